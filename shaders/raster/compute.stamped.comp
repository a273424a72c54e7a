#version 460
// raster.compute.stamped: every leaf in one pass, as raster.compute, each drawn on screen
// stamped unseen (common/raster_small.glsl); no cull.
#define RASTER_STAMPED
#include "common/raster_small.glsl"
