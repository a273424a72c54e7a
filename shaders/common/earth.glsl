// One derived Earth sample on the GPU: the mirror of engine/src/earth/{derive,etopo,bands,tile}.rs
// (docs/earth.md, "Derivation"), operation for operation in f64 so the result is the CPU's
// code bit for bit. Every double is `precise` (no fma contraction; Rust never fuses either).
// The buffers are the ETOPO grid and its relief grid (f32, uploaded once, engine/src/earth/gpu.rs)
// and the batch header with the grid constants the host computed.
#ifndef EARTH_GLSL
#define EARTH_GLSL

#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

#include "common/planet.glsl"
#include "common/f64math.glsl"

layout(std430, set = 0, binding = 0) readonly buffer Etopo { float h[]; } etopo;
layout(std430, set = 0, binding = 1) readonly buffer Relief { float r[]; } relief;

// One tile to derive (engine::earth::gpu::JobRecord, 20 bytes).
struct DeriveJob {
    uint level;
    uint face;
    uint x;
    uint y;
    uint out_index; // 520×520 floats at out_index·520²
};

// engine::earth::gpu::DeriveHeader (80 bytes), then the jobs.
layout(std430, set = 0, binding = 2) readonly buffer Jobs {
    double lat0;      // degrees, row 0
    double dlat;      // degrees per row
    double lon0;      // degrees, column 0
    double dlon;      // degrees per column
    double texel0;    // metres, L0 texel (Body::texel0)
    double spacing_m; // metres between two nodes along a meridian
    int nlat;
    int nlon;
    int pole_south;   // row r < 0 reflects to pole_south − r (etopo.rs node_index)
    int pole_north;   // row r ≥ nlat reflects to pole_north − r
    uint job_count;
    uint pad0;
    uint pad1;
    uint pad2;
    DeriveJob jobs[];
} batch;

const double FRAC_PI_4_D = 0.7853981633974483lf;
const double HEIGHT_Q_MIN_D = -11250.0lf;
const double HEIGHT_Q_STEP_D = 0.3125lf;
const int SEA_LEVEL_CODE = 36000; // 11,250 m / 0.3125 m
const double BAND_AMPLITUDE_PER_TEXEL_D = 0.25lf;
const double RELIEF_WEIGHT_MIN_D = 0.01lf;
const uint FIRST_DERIVED_LEVEL = 2u;

// ---- grid (etopo.rs) ----

// node_index: longitude wraps, rows beyond a pole continue half a turn away.
uint node_index(int row, int col) {
    int n = batch.nlat;
    int r = row;
    int c = col;
    if (r < 0 || r >= n) {
        r = clamp((r < 0 ? batch.pole_south : batch.pole_north) - r, 0, n - 1);
        c += batch.nlon / 2;
    }
    // rem_euclid for the columns reached (−nlon ≤ c < 3·nlon); GLSL's % is undefined below 0.
    if (c < 0) c += batch.nlon;
    if (c >= batch.nlon) c -= batch.nlon;
    if (c >= batch.nlon) c -= batch.nlon;
    return uint(r * batch.nlon + c);
}

double node_h(int row, int col) {
    return double(etopo.h[node_index(row, col)]);
}

double slope_fb(double a, double b) {
    precise double ab = a * b;
    precise double m = 0.0lf;
    if (ab > 0.0lf) {
        m = 2.0lf * a * b / (a + b);
    }
    return m;
}

// Cubic Hermite between p1 and p2 with Fritsch–Butland slopes (monotone_cubic).
double monotone_cubic(double p0, double p1, double p2, double p3, double t) {
    precise double d0 = p1 - p0;
    precise double d1 = p2 - p1;
    precise double d2 = p3 - p2;
    precise double m1 = slope_fb(d0, d1);
    precise double m2 = slope_fb(d1, d2);
    precise double t2 = t * t;
    precise double t3 = t * t * t;
    precise double h00 = 2.0lf * t3 - 3.0lf * t2 + 1.0lf;
    precise double h10 = t3 - 2.0lf * t2 + t;
    precise double h01 = -2.0lf * t3 + 3.0lf * t2;
    precise double h11 = t3 - t2;
    precise double v = h00 * p1 + h10 * m1 + h01 * p2 + h11 * m2;
    return v;
}

// Etopo::reconstruct: separable monotone bicubic over the 4×4 nodes, rows last.
double reconstruct(double lat, double lon) {
    precise double y = (lat - batch.lat0) / batch.dlat;
    precise double x = (lon - batch.lon0) / batch.dlon;
    precise double r0f = floor(y);
    precise double c0f = floor(x);
    precise double fy = y - r0f;
    precise double fx = x - c0f;
    int r0 = int(r0f);
    int c0 = int(c0f);
    precise double rows[4];
    for (int k = 0; k < 4; k++) {
        int r = r0 - 1 + k;
        rows[k] = monotone_cubic(node_h(r, c0 - 1), node_h(r, c0), node_h(r, c0 + 1), node_h(r, c0 + 2), fx);
    }
    return monotone_cubic(rows[0], rows[1], rows[2], rows[3], fy);
}

// Etopo::bilinear over the relief grid.
double relief_bilinear(double lat, double lon) {
    precise double y = (lat - batch.lat0) / batch.dlat;
    precise double x = (lon - batch.lon0) / batch.dlon;
    precise double r0f = floor(y);
    precise double c0f = floor(x);
    precise double fy = y - r0f;
    precise double fx = x - c0f;
    int r0 = int(r0f);
    int c0 = int(c0f);
    precise double a = double(relief.r[node_index(r0, c0)]);
    precise double b = double(relief.r[node_index(r0, c0 + 1)]);
    precise double c = double(relief.r[node_index(r0 + 1, c0)]);
    precise double d = double(relief.r[node_index(r0 + 1, c0 + 1)]);
    precise double top = a * (1.0lf - fx) + b * fx;
    precise double bot = c * (1.0lf - fx) + d * fx;
    precise double v = top * (1.0lf - fy) + bot * fy;
    return v;
}

// ---- bands (bands.rs) ----

uint64_t mix64(uint64_t z0) {
    uint64_t z = z0;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ul;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebul;
    return z ^ (z >> 31);
}

uint64_t hash3(int64_t x, int64_t y, int64_t z, uint64_t seed) {
    return mix64((uint64_t(x) * 0x9e3779b97f4a7c15ul) ^ (uint64_t(y) * 0xc2b2ae3d27d4eb4ful)
        ^ (uint64_t(z) * 0x165667b19e3779f9ul) ^ seed);
}

double grad(uint64_t h, double x, double y, double z) {
    uint k = uint((h >> 32) % 12ul);
    precise double v;
    switch (k) {
        case 0u: v = x + y; break;
        case 1u: v = -x + y; break;
        case 2u: v = x - y; break;
        case 3u: v = -x - y; break;
        case 4u: v = x + z; break;
        case 5u: v = -x + z; break;
        case 6u: v = x - z; break;
        case 7u: v = -x - z; break;
        case 8u: v = y + z; break;
        case 9u: v = -y + z; break;
        case 10u: v = y - z; break;
        default: v = -y - z; break;
    }
    return v;
}

double fade(double t) {
    precise double v = t * t * t * (t * (t * 6.0lf - 15.0lf) + 10.0lf);
    return v;
}

double lerp_d(double a, double b, double t) {
    precise double v = a + (b - a) * t;
    return v;
}

double corner(int64_t ix, int64_t iy, int64_t iz, dvec3 f, int dx, int dy, int dz, uint64_t seed) {
    uint64_t h = hash3(ix + dx, iy + dy, iz + dz, seed);
    precise double x = f.x - double(dx);
    precise double y = f.y - double(dy);
    precise double z = f.z - double(dz);
    return grad(h, x, y, z);
}

// Improved Perlin noise, lattice cell 1, clamped to [−1, 1] (bands::perlin).
double perlin(dvec3 p, uint64_t seed) {
    precise dvec3 c = floor(p);
    precise dvec3 f = p - c;
    int64_t ix = int64_t(c.x);
    int64_t iy = int64_t(c.y);
    int64_t iz = int64_t(c.z);
    precise double u = fade(f.x);
    precise double v = fade(f.y);
    precise double w = fade(f.z);
    precise double x00 = lerp_d(corner(ix, iy, iz, f, 0, 0, 0, seed), corner(ix, iy, iz, f, 1, 0, 0, seed), u);
    precise double x10 = lerp_d(corner(ix, iy, iz, f, 0, 1, 0, seed), corner(ix, iy, iz, f, 1, 1, 0, seed), u);
    precise double x01 = lerp_d(corner(ix, iy, iz, f, 0, 0, 1, seed), corner(ix, iy, iz, f, 1, 0, 1, seed), u);
    precise double x11 = lerp_d(corner(ix, iy, iz, f, 0, 1, 1, seed), corner(ix, iy, iz, f, 1, 1, 1, seed), u);
    precise double y0 = lerp_d(x00, x10, v);
    precise double y1 = lerp_d(x01, x11, v);
    return clamp(lerp_d(y0, y1, w), -1.0lf, 1.0lf);
}

// ---- the derived height (derive.rs Source::height) ----

// Unit direction from the face tangents as glam computes it: (axis + tu·u) + tv·v, then
// v·(1/√((x·x + y·y) + z·z)).
dvec3 dir_from_tans(uint face, double tu, double tv) {
    dvec3 a = dvec3(FACE_AXIS[face]);
    dvec3 u = dvec3(FACE_U[face]);
    dvec3 v = dvec3(FACE_V[face]);
    precise dvec3 p = a + tu * u + tv * v;
    precise double d = p.x * p.x + p.y * p.y + p.z * p.z;
    precise double len = sqrt(d);
    precise double inv = 1.0lf / len;
    precise dvec3 n = p * inv;
    return n;
}

// tan(π/4·u) of face-global sample `index` at `level` (sample_coord: (2I+1)/N − 1).
double tan_of(uint level, int index) {
    precise double u = double(2 * index + 1) / double(int(TILE_SAMPLES) << level) - 1.0lf;
    precise double x = FRAC_PI_4_D * u;
    return f64_tan(x);
}

// bands.rs shore_fade: x − x²/4 below 2, 1 beyond (land never becomes water).
double shore_fade(double x) {
    precise double f = 1.0lf;
    if (x < 2.0lf) {
        f = max(x - 0.25lf * x * x, 0.0lf);
    }
    return f;
}

// Unquantised height (metres) at level ≥ 2; water when the reconstruction is below 0.
double derived_height(dvec3 dir, uint level, out bool water) {
    precise double lat = f64_asin(clamp(dir.z, -1.0lf, 1.0lf)) * F64_DEG_PER_RAD;
    precise double lon = f64_atan2(dir.y, dir.x) * F64_DEG_PER_RAD;
    precise double r = reconstruct(lat, lon);
    water = r < 0.0lf;
    if (water) {
        return r;
    }
    precise double slope = relief_bilinear(lat, lon) / (2.0lf * batch.spacing_m);
    precise double w = clamp(2.0lf * slope, RELIEF_WEIGHT_MIN_D, 1.0lf);
    precise double unit_amp = BAND_AMPLITUDE_PER_TEXEL_D * batch.texel0 * w;
    precise double sum = 0.0lf;
    precise double bound = 0.0lf;
    for (uint k = FIRST_DERIVED_LEVEL; k <= level; k++) {
        precise double amp = unit_amp / double(1ul << k);
        uint64_t seed = mix64(0x5eed0000ul + uint64_t(k));
        precise double freq = double(512ul << k) / F64_PI;
        precise dvec3 p = dir * freq;
        precise double n = perlin(p, seed);
        sum += amp * n;
        bound += amp;
    }
    precise double h = r + shore_fade(r / bound) * sum;
    return h;
}

// tile.rs quantise then dequantise: the stored height, whose sign is the water bit.
float quantised(double h, bool water) {
    precise double q = (h - HEIGHT_Q_MIN_D) / HEIGHT_Q_STEP_D;
    int c = int(clamp(f64_round(q), 0.0lf, 65535.0lf));
    c = water ? min(c, SEA_LEVEL_CODE - 1) : max(c, SEA_LEVEL_CODE);
    precise double m = HEIGHT_Q_MIN_D + double(c) * HEIGHT_Q_STEP_D;
    return float(m);
}

// The stored value of on-face sample (I, J) at a derived level (Source::quantised).
float derived_sample(uint level, uint face, int i, int j) {
    bool water;
    double h = derived_height(dir_from_tans(face, tan_of(level, i), tan_of(level, j)), level, water);
    return quantised(h, water);
}

// mean_sample: the mean of stored heights summed by the caller, quantised; water below 0.
float mean_sample(double sum, double count) {
    precise double m = sum / count;
    return quantised(m, m < 0.0lf);
}

#endif
