#version 460
// raster.compute.early: the first phase of the occlusion-culled compute raster — the leaves
// that won a pixel in the last frame, drawn untested (common/raster_small.glsl).
#define RASTER_EARLY
#include "common/raster_small.glsl"
