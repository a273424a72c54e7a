#version 460
// raster.compute.late: the second phase of the occlusion-culled compute raster — every other
// leaf, skipped where raster.hiz shows it behind what the early phase drew
// (common/raster_small.glsl).
#define RASTER_LATE
#include "common/raster_small.glsl"
