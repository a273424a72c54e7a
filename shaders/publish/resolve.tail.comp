#version 460
// publish.resolve.tail: the root searches publish.resolve handed over because they ran long,
// carried on side by side in full warps and published (common/resolve.glsl).
#define RESOLVE_TAIL
#define RESOLVE_TAIL_PASS
#include "common/resolve.glsl"
