// The ocean's surface (docs/look.md): wave normals from moving octaves fixed to the planet,
// their unresolved slopes folded into a Cox–Munk slope distribution, and the colour of the
// water below from its depth. Needs common/tiles.glsl (slot records, frame constants).
#ifndef OCEAN_GLSL
#define OCEAN_GLSL

// Six octaves, wavelengths 305, 153, 76, 38, 19 and 9.5 m (a face edge, π/2·R, over 2^m for
// m = 15…20) divided by the length of their integer direction in face cells, so that each
// wave's phase is an exact function of the tile address and texel (no planet-sized floats).
#define OCEAN_OCTAVES 6
const uint OCEAN_FIRST_OCTAVE = 15u;
const ivec2 OCEAN_DIR[OCEAN_OCTAVES] = ivec2[](
    ivec2(1, 0), ivec2(1, 1), ivec2(2, -1), ivec2(0, 1), ivec2(1, -2), ivec2(-1, 1));
// Steepness a·k of every octave: its slopes have mean square S²/2 = 0.0018.
const float OCEAN_STEEPNESS = 0.06;
// Mean-square slope of the waves too short for the octaves (capillary and short gravity
// waves). With the octaves' 6 × 0.0018 the total, 0.031, is Cox and Munk's (1954)
// 0.003 + 0.00512·U for a wind of U ≈ 5.5 m/s.
const float OCEAN_BASE_MSS = 0.020;
// An octave is drawn as normals while its wavelength spans more than 6 footprints, and is
// all slope variance below 2: it never aliases, from the ground to orbit.
const vec2 OCEAN_RESOLVED_FOOTPRINTS = vec2(2.0, 6.0);
const float GRAVITY = 9.81;   // m/s², deep-water dispersion ω² = g·k

// Water's reflectance at normal incidence, ((1.333 − 1)/(1.333 + 1))².
const float WATER_F0 = 0.0204;
// Irradiance reflectance of the water column (light scattered back up through the surface),
// linear, per band (≈ 650, 550, 450 nm): deep clear ocean (Morel & Prieur 1977, case 1),
// shelf water with sediment and phytoplankton (case 2), and a sand bottom.
const vec3 WATER_DEEP = vec3(0.002, 0.010, 0.030);
const vec3 WATER_SHELF = vec3(0.010, 0.035, 0.040);
const vec3 WATER_BOTTOM = vec3(0.30, 0.27, 0.20);
// Diffuse attenuation of coastal water, 1/m (Jerlov coastal type 1, red dominated by water's
// own absorption): the bottom shows through ≈ 1/(2K) metres of water, 1 m red, 7 m green.
const vec3 WATER_K = vec3(0.45, 0.075, 0.05);
// Depth over which shelf water turns into deep water, m (ETOPO's shelves are 20–200 m deep).
const float WATER_SHELF_M = 80.0;
// Depth a lake is shaded with, m: the water mask gives lakes an outline and a level, no
// bathymetry; deep enough that no bottom shows (exp(−2·0.05·30) = 5 % in blue).
const float LAKE_DEPTH_M = 30.0;

// Phase cycles of a wave with `2^m` crests per face edge at texel `s` of tile `tile` at
// `level`: fract((tile·512 + s)·2^m / (512·2^level)), exact in integers above the texel.
float ocean_cycles(uint tile, float s, uint level, uint m) {
    if (m >= level) return fract(s * exp2(float(m - level)) / 512.0);
    uint k = level - m;
    return fract((float(tile & ((1u << k) - 1u)) + s / 512.0) / float(1u << k));
}

// The wave surface at texel `st` of slot record `r`, seen with a footprint of `footprint_m`:
// its slope (∂h/∂u, ∂h/∂v along the tile's axes) from the resolved octaves, and the mean-square
// slope of everything finer, which the BRDF spreads the light by.
void ocean_waves(SlotRecord r, vec2 st, float footprint_m, float time_s, out vec2 slope, out float mss) {
    slope = vec2(0.0);
    mss = OCEAN_BASE_MSS;
    float face_m = frame.texel0 * 512.0;
    for (int i = 0; i < OCEAN_OCTAVES; i++) {
        uint m = OCEAN_FIRST_OCTAVE + uint(i);
        vec2 dir = vec2(OCEAN_DIR[i]);
        float len = length(dir);
        float wavelength = face_m / (exp2(float(m)) * len);
        float k = 2.0 * PI / wavelength;
        float cyc = fract(float(OCEAN_DIR[i].x) * ocean_cycles(r.x, st.x, r.level, m)
                          + float(OCEAN_DIR[i].y) * ocean_cycles(r.y, st.y, r.level, m));
        float phase = 2.0 * PI * cyc - sqrt(GRAVITY * k) * time_s;
        float resolved = smoothstep(OCEAN_RESOLVED_FOOTPRINTS.x, OCEAN_RESOLVED_FOOTPRINTS.y, wavelength / footprint_m);
        slope += resolved * OCEAN_STEEPNESS * cos(phase) * dir / len;
        mss += (1.0 - resolved) * 0.5 * OCEAN_STEEPNESS * OCEAN_STEEPNESS;
    }
}

// Radiance of the sun's glint per unit sun irradiance normal to the beam (Cox & Munk 1954): the facets whose
// normal is the half vector of `v` (to the eye) and `l` (to the sun), with an isotropic
// Gaussian of slopes of mean square `mss` about the mean normal `n`.
float ocean_glint(vec3 n, vec3 v, vec3 l, float mss) {
    float nl = dot(n, l), nv = dot(n, v);
    if (nl <= 0.0 || nv <= 0.0) return 0.0;
    vec3 hv = normalize(v + l);
    float c = max(dot(n, hv), 1e-3);
    float tan2 = (1.0 - c * c) / (c * c);
    float p = exp(-tan2 / mss) / (PI * mss);
    return fresnel_schlick(WATER_F0, dot(v, hv)) * p / (4.0 * max(nv, 0.05) * c * c * c * c);
}

// Irradiance reflectance of the water below the surface at depth `depth_m` (m, positive):
// the bottom's through the water where it is shallow, shelf water, then deep ocean.
vec3 ocean_body(float depth_m) {
    vec3 column = mix(WATER_SHELF, WATER_DEEP, smoothstep(0.0, WATER_SHELF_M, depth_m));
    return mix(column, WATER_BOTTOM, exp(-2.0 * WATER_K * depth_m));
}

#endif
