// The leaves raster.compute hands over (`raster.big`, engine/src/publish.rs): to the hardware
// raster as an indirect draw of 3 vertices per leaf (draw_args), or to raster.compute.big as
// (leaf, first tile) pairs whose count and total tiles one 64-bit tally holds
// (count << 32 | tiles). RASTER_BIG_BINDING (default 3) and RASTER_BIG_ACCESS (readonly, or
// empty) may be defined before the include.
#ifndef RASTER_BIG_GLSL
#define RASTER_BIG_GLSL
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

#ifndef RASTER_BIG_BINDING
#define RASTER_BIG_BINDING 3
#endif
#ifndef RASTER_BIG_ACCESS
#define RASTER_BIG_ACCESS
#endif

layout(std430, set = 0, binding = RASTER_BIG_BINDING) RASTER_BIG_ACCESS buffer Big {
    uint draw_args[4]; // VkDrawIndirectCommand (raster.hardware)
    uint64_t tally;    // leaves << 32 | tiles (raster.compute.big)
    uint early;        // leaves the early phase drew (raster.compute.early)
    uint occluded;     // leaves the late phase culled (raster.compute.late)
    uvec2 leaves[];    // (leaf, first tile)
} big;

#endif
