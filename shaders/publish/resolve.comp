#version 460
// publish.resolve: the chord's hit moved onto the surface along the ray (common/resolve.glsl),
// without the searches for crossings the chord's root misses (publish.resolve.search): the
// default frame's resolve, a smaller shader than with them (fewer registers, and on lavapipe
// minutes less to compile).
#define RESOLVE_TAIL
#include "common/resolve.glsl"
