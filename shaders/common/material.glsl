// Terrain materials: albedo and roughness from altitude, slope, latitude and the climate's
// wetness (docs/look.md). Deterministic and per pixel: the same height, normal and position
// give the same material at every level and in every frame.
#ifndef MATERIAL_GLSL
#define MATERIAL_GLSL

// The climate: wetness comes from the field of common/climate.glsl (moisture carried from
// the sea by the winds, rain shadows, the monsoon and the subsidence belt; docs/look.md), the
// temperature from latitude and height as in the amplified levels (engine/src/earth/amplify.rs,
// `detail`).

// Mean temperature, °C: 28 °C at the equator, −14 °C at the poles (sea level), lapse
// 6.5 °C/km (the standard atmosphere's) with height `h` in metres.
float climate_temperature(float z2, float h) {
    return 28.0 - 42.0 * z2 - 0.0065 * h;
}

// Albedos: linear reflectance in our red, green and blue (≈ 650, 550, 450 nm), after typical
// surface reflectances (MODIS bands 1, 4, 3; ASTER spectral library), in the visible: snow
// 0.8–0.9, desert sand 0.3–0.45, grass 0.05–0.12, forest 0.03–0.07, rock 0.15–0.3 (plants are
// bright only in the near infrared, which is not rendered).
const vec3 ALBEDO_SNOW = vec3(0.80, 0.82, 0.86);       // old snow and firn, not fresh powder
const vec3 ALBEDO_ROCK = vec3(0.22, 0.21, 0.19);       // weathered granite and limestone
const vec3 ALBEDO_RED_ROCK = vec3(0.36, 0.20, 0.12);   // iron-oxide sandstone (Grand Canyon redbeds)
const vec3 ALBEDO_SAND = vec3(0.46, 0.33, 0.21);       // Saharan erg (MODIS over Algeria)
const vec3 ALBEDO_ARID_SOIL = vec3(0.30, 0.22, 0.14);  // aridisol and desert pavement, Munsell 5YR–7.5YR
const vec3 ALBEDO_TUNDRA = vec3(0.15, 0.14, 0.11);     // alpine and tundra ground: moss, lichen, scree
const vec3 ALBEDO_GRASS = vec3(0.07, 0.12, 0.05);      // grassland and crops in leaf
const vec3 ALBEDO_FOREST = vec3(0.035, 0.065, 0.03);   // closed canopy

// Microfacet roughness (GGX α = roughness²) of each ground: snow has a faint sheen, the
// rest is nearly Lambertian.
const float ROUGHNESS_SNOW = 0.55;
const float ROUGHNESS_ROCK = 0.80;
const float ROUGHNESS_GROUND = 0.90;

// Where each material takes over. Slope is 1 − n·up (0 level, 1 vertical).
const vec2 MAT_WET_ARID = vec2(0.30, 0.60);      // wetness: arid below 0.30, wet above 0.60
const vec2 MAT_HOT_DESERT_C = vec2(10.0, 20.0);  // °C: aridisol → sand (the Sahara's 20–25 °C)
const vec2 MAT_PLANT_C = vec2(-9.0, 1.0);        // °C: plant cover (tree line ≈ −8 °C on this scale)
const vec2 MAT_FOREST_C = vec2(-4.0, 8.0);       // °C: grass → forest, with wetness 0.6 → 0.9
const vec2 MAT_ROCK_SLOPE = vec2(0.18, 0.36);    // 35°–50°: past the angle of repose no soil holds
const float MAT_SNOW_C = -10.0;                  // °C: permanent snow, wet climate
const float MAT_SNOW_ARID_C = 6.0;               // °C colder in an arid one (little snowfall)
const float MAT_SNOW_BLEND_C = 2.0;              // ± °C of blend around the snow line
const vec2 MAT_SNOW_SLOPE = vec2(0.29, 0.50);    // 45°–60°: snow slides off steeper faces

struct Material {
    vec3 albedo;      // linear
    float roughness;  // perceptual, GGX α = roughness²
};

// The material at height `h` (m), slope 1 − n·up, latitude `lat` (degrees) and wetness `wet`
// (0 arid … 1 wet, common/climate.glsl).
// On this climate the snow line falls at ≈ 5,850 m on the equator, ≈ 5,350 m in the Himalaya
// (28° N), ≈ 2,500 m in the Alps (46° N) and reaches the sea at 70°–75°
// (observed: 4,800–5,500 m, 5,000–6,000 m, 2,700–3,000 m; Greenland and Svalbard).
Material terrain_material(float h, float slope, float lat, float wet) {
    float z2 = sin(radians(lat));
    z2 *= z2;
    float temp = climate_temperature(z2, h);
    float arid = 1.0 - smoothstep(MAT_WET_ARID.x, MAT_WET_ARID.y, wet);
    // Bare ground: alpine and tundra where it is wet, red soils where it is arid, sand where
    // it is also hot.
    vec3 desert = mix(ALBEDO_ARID_SOIL, ALBEDO_SAND, smoothstep(MAT_HOT_DESERT_C.x, MAT_HOT_DESERT_C.y, temp));
    vec3 bare = mix(ALBEDO_TUNDRA, desert, arid);
    // Plants need water and warmth.
    float forest = smoothstep(0.6, 0.9, wet) * smoothstep(MAT_FOREST_C.x, MAT_FOREST_C.y, temp);
    vec3 plants = mix(ALBEDO_GRASS, ALBEDO_FOREST, forest);
    float cover = (1.0 - arid) * smoothstep(MAT_PLANT_C.x, MAT_PLANT_C.y, temp);
    Material m;
    m.albedo = mix(bare, plants, cover);
    m.roughness = ROUGHNESS_GROUND;
    // Steep faces: rock, red where the climate is arid.
    float rock = smoothstep(MAT_ROCK_SLOPE.x, MAT_ROCK_SLOPE.y, slope);
    m.albedo = mix(m.albedo, mix(ALBEDO_ROCK, ALBEDO_RED_ROCK, arid), rock);
    m.roughness = mix(m.roughness, ROUGHNESS_ROCK, rock);
    // Permanent snow below the snow line's temperature, off the steepest faces.
    float snow_c = MAT_SNOW_C - MAT_SNOW_ARID_C * arid;
    float snow = 1.0 - smoothstep(snow_c - MAT_SNOW_BLEND_C, snow_c + MAT_SNOW_BLEND_C, temp);
    snow *= 1.0 - smoothstep(MAT_SNOW_SLOPE.x, MAT_SNOW_SLOPE.y, slope);
    m.albedo = mix(m.albedo, ALBEDO_SNOW, snow);
    m.roughness = mix(m.roughness, ROUGHNESS_SNOW, snow);
    return m;
}

// Schlick's Fresnel from the reflectance at normal incidence `f0`.
float fresnel_schlick(float f0, float cos_i) {
    float x = 1.0 - clamp(cos_i, 0.0, 1.0);
    float x2 = x * x;
    return f0 + (1.0 - f0) * x2 * x2 * x;
}

// GGX (Trowbridge-Reitz) specular with Smith's height-correlated visibility, per unit
// irradiance normal to the light: the BRDF × cos(light).
float ggx_specular(vec3 n, vec3 v, vec3 l, float roughness, float f0) {
    float nl = dot(n, l), nv = dot(n, v);
    if (nl <= 0.0 || nv <= 0.0) return 0.0;
    vec3 hv = normalize(v + l);
    float nh = max(dot(n, hv), 0.0);
    float a2 = roughness * roughness;
    a2 *= a2;
    float dd = nh * nh * (a2 - 1.0) + 1.0;
    float D = a2 / (PI * dd * dd);
    float vis = 0.5 / (nl * sqrt(nv * nv * (1.0 - a2) + a2) + nv * sqrt(nl * nl * (1.0 - a2) + a2));
    return D * vis * fresnel_schlick(f0, dot(v, hv)) * nl;
}

#endif
