#version 460
// publish.resolve.skyline: the sky pixels beside terrain that the resolve passes hand over,
// each searched by a workgroup near its neighbours' chord planes for a crest its ray dips
// under (common/resolve_skyline.glsl).
#define RESOLVE_SKYLINE_PASS
#include "common/resolve.glsl"
