#version 460
#extension GL_KHR_shader_subgroup_arithmetic : require
// publish.resolve.handover: publish.resolve that hands work over (common/resolve.glsl): root
// searches still running after `tail_after` steps to publish.resolve.tail, and with the
// conservative shell on, the rays that enter a prism in front of their chord to
// publish.resolve.shell. Only where one of them is on: the hand-overs' code costs the plain
// resolve registers and time even when it hands nothing over.
#define RESOLVE_TAIL
#define RESOLVE_SHELL_HANDOVER
#include "common/resolve.glsl"
