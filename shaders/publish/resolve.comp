#version 460
// publish.resolve: the chord's hit moved onto the surface along the ray (common/resolve.glsl),
// without the searches for crossings the chord's root misses (publish.resolve.search) and
// without the hand-overs (publish.resolve.handover): the default frame's resolve, the smallest
// shader of them (fewer registers, and on lavapipe minutes less to compile).
#include "common/resolve.glsl"
