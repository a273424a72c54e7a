#version 460
// exposure.adapt (one thread), before shade.terrain: the exposure this frame applies, from
// the luminance the previous frame's shading measured. Auto: the key over the geometric mean
// luminance, clamped to a range around the default, approached by a fraction `alpha` of the
// way in log2 (alpha = 1 − exp(−dt/τ), 1 for a still render); fixed: the given value. Then the
// sums restart for this frame's shading. Model: engine/src/exposure.rs `adapt`.
#include "common/exposure.glsl"
layout(local_size_x = 1) in;

layout(push_constant) uniform Push {
    float fixed_value;  // the exposure in fixed mode, and the start in auto mode
    float key;          // auto: the display value of the mean luminance
    float min_value;
    float max_value;
    float alpha;
    uint mode;          // bit 0: auto; bit 1: first frame (the state holds nothing yet)
} pc;

void main() {
    bool auto_mode = (pc.mode & 1u) != 0u;
    bool first = (pc.mode & 2u) != 0u;
    float e = first ? pc.fixed_value : exposure.value;
    if (!auto_mode) {
        e = pc.fixed_value;
    } else if (!first && exposure.count > 0u) {
        float mean = float(exposure.log_sum) / (EXPOSURE_LOG_SCALE * float(exposure.count));
        float target = clamp(pc.key / exp2(mean), pc.min_value, pc.max_value);
        e = exp2(mix(log2(max(e, 1e-6)), log2(target), pc.alpha));
        exposure.mean_log2 = mean;
    }
    exposure.value = e;
    exposure.log_sum = 0l;
    exposure.count = 0u;
}
