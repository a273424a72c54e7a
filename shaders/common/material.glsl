// Terrain materials: albedo and roughness from altitude, slope, latitude and the climate's
// wetness (docs/look.md). Deterministic and per pixel: the same height, normal and position
// give the same material at every level and in every frame.
#ifndef MATERIAL_GLSL
#define MATERIAL_GLSL

// The climate: wetness comes from the field of common/climate.glsl (moisture carried from
// the sea by the winds, rain shadows, the monsoon and the subsidence belt; docs/look.md), the
// temperature from latitude and height as in the amplified levels (engine/src/earth/amplify.rs,
// `detail`), warmed over high ground by the region's mean height (below).

// Mean temperature, °C: 28 °C at the equator, −14 °C at the poles (sea level), lapse
// 6.5 °C/km (the standard atmosphere's) with height `h` in metres.
const float MAT_LAPSE_C_PER_M = 0.0065;
float climate_temperature(float z2, float h) {
    return 28.0 - 42.0 * z2 - MAT_LAPSE_C_PER_M * h;
}

// The mass-elevation effect: a high region's ground heats the air over it, so that the
// ground of a plateau or a broad massif is warmer than the free air at its height, and its
// snow line, tree line and glaciers lie higher than on an isolated peak (Tibet's snow line at
// 5,500–6,200 m, the highest of its latitude). °C per metre of the region's mean height (the
// ~50 km mean of common/climate.glsl): with the lapse rate it raises the snow line by 185 m
// per km of the region's height. The value is fitted, with the wet tropics' threshold below,
// to the snow lines observed at nine massifs from the Andes of Ecuador to the Caucasus
// (docs/look.md "Snow lines"; engine climate test `the_snow_line_lies_where_it_is_observed`).
// Ice sheets do not heat the air: it fades out poleward with `MAT_POLAR_Z2`.
const float MAT_MASS_ELEVATION_C_PER_M = 0.0012;
// sin²(latitude) over which the polar regime takes over (60°–72°): summers too cold for snow
// to melt whatever little falls, so neither aridity nor a region's height raises the snow line
// there (Greenland's and Antarctica's ice reach the sea).
const vec2 MAT_POLAR_Z2 = vec2(0.75, 0.90);

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
const float MAT_SNOW_C = -10.0;                  // °C: permanent snow, wet seasonal climate
// °C: permanent snow in the wet tropics, which have no winter: the snow line lies near the
// freezing level there (4,800–5,000 m in the Andes of Ecuador), not at the mean temperature
// of a climate whose winter snow outlasts a short summer. Taken over from 0° to 23° (sin²).
const float MAT_SNOW_TROPICS_C = -1.0;
const vec2 MAT_SNOW_SEASONAL_Z2 = vec2(0.0, 0.15);
const float MAT_SNOW_ARID_C = 6.0;               // °C colder in an arid one (little snowfall)
const float MAT_SNOW_BLEND_C = 2.0;              // ± °C of blend around the snow line
const vec2 MAT_SNOW_SLOPE = vec2(0.29, 0.50);    // 45°–60°: snow slides off steeper faces

struct Material {
    vec3 albedo;      // linear
    float roughness;  // perceptual, GGX α = roughness²
};

// Aridity, 0 wet … 1 arid, from the climate's wetness.
float material_aridity(float wet) {
    return 1.0 - smoothstep(MAT_WET_ARID.x, MAT_WET_ARID.y, wet);
}

// The region's warming of the ground's air, °C, at sin²(latitude) `z2`.
float mass_elevation_c(float z2, float region_h) {
    float polar = smoothstep(MAT_POLAR_Z2.x, MAT_POLAR_Z2.y, z2);
    return MAT_MASS_ELEVATION_C_PER_M * max(region_h, 0.0) * (1.0 - polar);
}

// Height of the snow line (m) at sin²(latitude) `z2`, aridity `arid` and the region's mean
// height `region_h`: where the ground's temperature meets the permanent-snow threshold and
// half of level ground is snow (`engine::earth::climate::snow_line_m` mirrors it).
// On this climate it lies at ≈ 5,000 m in the Andes of Ecuador, ≈ 5,200 m in the Khumbu,
// 5,800–5,900 m on the Tibetan plateau, ≈ 2,900 m in the Alps and reaches the sea at 65°–75°
// (observed: 4,700–5,100, 5,200–5,800, 5,500–6,300, 2,600–3,100 m; Greenland and Svalbard;
// docs/look.md "Snow lines").
float snow_line_height(float z2, float arid, float region_h) {
    float polar = smoothstep(MAT_POLAR_Z2.x, MAT_POLAR_Z2.y, z2);
    float seasonal = smoothstep(MAT_SNOW_SEASONAL_Z2.x, MAT_SNOW_SEASONAL_Z2.y, z2);
    float snow_c = mix(MAT_SNOW_TROPICS_C, MAT_SNOW_C, seasonal) - MAT_SNOW_ARID_C * arid * (1.0 - polar);
    return (climate_temperature(z2, 0.0) + mass_elevation_c(z2, region_h) - snow_c) / MAT_LAPSE_C_PER_M;
}

// Half the height span of snow's blend around the snow line, m.
float snow_blend_m() { return MAT_SNOW_BLEND_C / MAT_LAPSE_C_PER_M; }

// Snow's share of level ground at height `h` under the snow line `line`: the blend spans
// ± MAT_SNOW_BLEND_C of temperature around it.
float snow_ground(float h, float line) {
    float b = snow_blend_m();
    return smoothstep(line - b, line + b, h);
}

// The material at height `h` (m), slope 1 − n·up, latitude `lat` (degrees), wetness `wet`
// (0 arid … 1 wet) and the region's mean height `region_h` (m; both common/climate.glsl),
// with `snow` the share of the ground under the pixel that lies above the snow line
// (`snow_ground` averaged over the footprint: a single peak's snow under a distant pixel
// shades as its share, not as a white speck).
Material terrain_material(float h, float slope, float lat, float wet, float region_h, float snow) {
    float z2 = sin(radians(lat));
    z2 *= z2;
    float temp = climate_temperature(z2, h) + mass_elevation_c(z2, region_h);
    float arid = material_aridity(wet);
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
    // Permanent snow above the snow line, off the steepest faces.
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
