#version 460
#extension GL_KHR_shader_subgroup_arithmetic : require
// publish.resolve: the chord's hit moved onto the surface along the ray (common/resolve.glsl),
// without the searches for crossings the chord's root misses (publish.resolve.search): the
// default frame's resolve, a smaller shader than with them (fewer registers, and on lavapipe
// minutes less to compile). With the conservative shell on, the rays that enter a prism in front
// of their chord go to publish.resolve.shell.
#define RESOLVE_TAIL
#define RESOLVE_SHELL_HANDOVER
#include "common/resolve.glsl"
