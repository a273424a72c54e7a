// The climate's fields (engine/src/earth/climate.rs) on a 0.5° latitude/longitude grid of
// nodes, rows from the south pole to the north pole (each pole row one value), columns from
// −180° wrapping: the wetness (0 arid … 1 wet), then the region's mean ground height above the
// datum (m, the sea counted as 0). Read bilinearly as `Climate::wetness` and
// `Climate::region_height` read them, so that both are continuous across the antimeridian and
// at the poles.
#ifndef CLIMATE_GLSL
#define CLIMATE_GLSL

#define CLIMATE_NLON 720
#define CLIMATE_NLAT 361
#define CLIMATE_STEP_DEG 0.5

layout(std430, set = 0, binding = 27) readonly buffer ClimateBlock { float w[]; } climate;

float climate_node(int field, int j, int i) {
    int ii = i - CLIMATE_NLON * int(floor(float(i) / float(CLIMATE_NLON)));
    return climate.w[(field * CLIMATE_NLAT + j) * CLIMATE_NLON + ii];
}

// Both fields at the unit direction `up` (planet axes): (wetness, the region's height in m),
// from one set of grid coordinates.
vec2 climate_at(vec3 up) {
    float lat = degrees(asin(clamp(up.z, -1.0, 1.0)));
    // At a pole any longitude reads the same (one value per pole row); atan(0, 0) is not.
    float lon = abs(up.x) + abs(up.y) > 0.0 ? degrees(atan(up.y, up.x)) : 0.0;
    float y = clamp((lat + 90.0) / CLIMATE_STEP_DEG, 0.0, float(CLIMATE_NLAT - 1));
    float x = (lon + 180.0) / CLIMATE_STEP_DEG;
    float j0 = min(floor(y), float(CLIMATE_NLAT - 2));
    float i0 = floor(x);
    float fy = y - j0, fx = x - i0;
    int j = int(j0), i = int(i0);
    vec2 out_v;
    for (int f = 0; f < 2; ++f) {
        float lo = mix(climate_node(f, j, i), climate_node(f, j, i + 1), fx);
        float hi = mix(climate_node(f, j + 1, i), climate_node(f, j + 1, i + 1), fx);
        out_v[f] = mix(lo, hi, fy);
    }
    return out_v;
}

#endif
