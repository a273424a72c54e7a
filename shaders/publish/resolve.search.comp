#version 460
// publish.resolve.search: publish.resolve with the searches for crossings the chord's root
// misses, each off unless its push constant asks (common/resolve.glsl): the first crossing
// within a widened window, from the conservative shell's face, the outline search, the march
// back along grazing rays, and the root search's bisection.
#define RESOLVE_SEARCHES
#include "common/resolve.glsl"
