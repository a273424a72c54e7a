// The exposure's state across frames (engine/src/exposure.rs, docs/atmosphere.md "Exposure"):
// the value `shade.terrain` applies, and the sum of log2 luminance over the pixels it shaded,
// which `exposure.adapt` turns into the next frame's value.
#ifndef EXPOSURE_GLSL
#define EXPOSURE_GLSL

#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_atomic_int64 : require

// log2 luminance is summed in fixed point, 1/256 of a stop, each pixel's clamped to
// [EXPOSURE_LOG2_MIN, EXPOSURE_LOG2_MAX]: the sun's disk and its glint (10^3–10^5 in these
// units) would otherwise pull a whole frame's exposure down by a third of a stop per few
// hundred pixels; 2^4 is already nine stops over middle grey at the default exposure.
#define EXPOSURE_LOG_SCALE 256.0
// Pixels darker than this (relative luminance; black space, the night side) do not count:
// they would drive the exposure up without bound.
#define EXPOSURE_MIN_LUMINANCE 1e-4
#define EXPOSURE_LOG2_MIN -14.0
#define EXPOSURE_LOG2_MAX 4.0

layout(std430, set = 0, binding = 26) buffer ExposureState {
    float value;        // display value per unit of luminance, before the tonemap
    float mean_log2;    // the last measured mean log2 luminance
    int64_t log_sum;    // Σ round(log2 L · 256) over the counted pixels of the frame shaded
    uint count;         // how many pixels counted
    uint pad;
} exposure;

#endif
