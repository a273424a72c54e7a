// The amplified height (engine/src/earth/amplify.rs `amplified` and what it calls, rocks in rocks.rs), operation
// for operation in f64: every double `precise`, so nothing is contracted into an fma, sums in
// the Rust's order. The including shader defines `double l9(uint face, int i, int j)` (where
// its L9 samples come from) and the push constant `pc.radius` before including this.
#ifndef AMPLIFY_DETAIL_GLSL
#define AMPLIFY_DETAIL_GLSL

// amplify.rs and rocks.rs constants (see there for why each).
const uint FIRST_BAND_LEVEL = 11u;
const uint LAST_BAND_LEVEL = 15u;
const uint LAST_GULLY_LEVEL = 13u;
const uint FIRST_TALUS_LEVEL = 12u;
const uint LAST_TERRACE_LEVEL = 13u;
const double TERRACE_PERIOD_TEXELS = 6.0lf;
const uint FIRST_ROCK_LEVEL = 13u;
const double BAND_WAVELENGTH_TEXELS = 3.0lf;
const double BAND_AMPLITUDE = 0.10lf;
const double BAND_CAP = 0.30lf;
const double FULL_SLOPE = 0.3lf;
const double FLAT_WEIGHT = 0.3lf;
const uint FIRST_BARE_BAND = 13u;
const double CURVATURE_LAPLACIAN_TEXELS = 0.25lf;
const double REGION_CELL_M = 20000.0lf;
const double GULLY_STRETCH = 4.0lf;
const double ROCK_CELL_M = 6.0lf;
const int ROCKS_PER_CELL = 2;
const double ROCK_MIN_RADIUS_M = 0.64lf;
const double ROCK_MAX_RADIUS_M = 2.0lf;
const double ROCK_OCCUPANCY = 0.35lf;
const double ROCK_MIN_GROUND_M = 2.0lf;
const double ROCK_MAX_SLOPE = 1.0lf;
const double ROCK_BARE_SLOPE = 0.005lf;
const double ROCK_FULL_SLOPE = 0.025lf;
const double ROCK_FILTER_TEXELS = 2.0lf;
const double ROCK_MAX_ASPECT = 2.5lf;
const int ROCK_FACETS = 4;
const double RIDGE_MEAN = 0.56lf;
const uint64_t SEED_REGION = 0xa5a50001ul;
const uint64_t SEED_WET = 0xa5a50002ul;
const uint64_t SEED_BEDDING = 0xa5a50003ul;
const uint64_t SEED_ROCK = 0xa5a50004ul;
const uint64_t SEED_ROCK_SHAPE = 0xa5a50005ul;
const uint64_t SEED_ROCK_FACET = 0xa5a50006ul;

double texel(uint level) {
    precise double t = batch.texel0 / double(1ul << level);
    return t;
}

// glam's dot: (x·x' + y·y') + z·z'.
double dot3(dvec3 a, dvec3 b) {
    precise double d = a.x * b.x + a.y * b.y + a.z * b.z;
    return d;
}

double smoothstep_d(double e0, double e1, double x) {
    precise double t = clamp((x - e0) / (e1 - e0), 0.0lf, 1.0lf);
    precise double s = t * t * (3.0lf - 2.0lf * t);
    return s;
}

// The 4×4 L9 samples around a point (h[row·4 + col]) and its fractions in the centre cell.
struct Stencil {
    double h[16];
    double fx;
    double fy;
    int i0;
    int j0;
};

Stencil stencil(uint face, double x, double y) {
    Stencil s;
    precise double ci = floor(x);
    precise double cj = floor(y);
    s.i0 = int(ci) - 1;
    s.j0 = int(cj) - 1;
    for (int k = 0; k < 16; k++) {
        s.h[k] = l9(face, s.i0 + (k & 3), s.j0 + (k >> 2));
    }
    precise double fx = x - ci;
    precise double fy = y - cj;
    s.fx = fx;
    s.fy = fy;
    return s;
}

// amplify.rs base: h0, gradient (x, y) and Laplacian (z), bilinear between the centre nodes.
dvec4 base(Stencil s) {
    precise double rows[4];
    for (int r = 0; r < 4; r++) {
        rows[r] = monotone_cubic(s.h[r * 4], s.h[r * 4 + 1], s.h[r * 4 + 2], s.h[r * 4 + 3], s.fx);
    }
    precise double h0 = monotone_cubic(rows[0], rows[1], rows[2], rows[3], s.fy);
    precise dvec3 nd[4];
    for (int k = 0; k < 4; k++) {
        int r = 1 + (k >> 1);
        int c = 1 + (k & 1);
        precise double gx = (s.h[r * 4 + c + 1] - s.h[r * 4 + c - 1]) * 0.5lf;
        precise double gy = (s.h[(r + 1) * 4 + c] - s.h[(r - 1) * 4 + c]) * 0.5lf;
        precise double lap = (s.h[r * 4 + c - 1] + s.h[r * 4 + c + 1])
            + (s.h[(r - 1) * 4 + c] + s.h[(r + 1) * 4 + c]) - 4.0lf * s.h[r * 4 + c];
        nd[k] = dvec3(gx, gy, lap);
    }
    precise dvec3 lo = nd[0] + (nd[1] - nd[0]) * s.fx;
    precise dvec3 hi = nd[2] + (nd[3] - nd[2]) * s.fx;
    precise dvec3 g = lo + (hi - lo) * s.fy;
    return dvec4(h0, g);
}

double wet_belt(double z2) {
    precise double w = 1.0lf - 0.85lf * smoothstep_d(0.0lf, 0.22lf, z2)
        + 0.65lf * smoothstep_d(0.22lf, 0.6lf, z2) - 0.45lf * smoothstep_d(0.75lf, 1.0lf, z2);
    return w;
}

double terrace(double x) {
    precise double f = x - floor(x);
    precise double t = smoothstep_d(0.7lf, 1.0lf, f) - f + 0.35lf;
    return t;
}

// glam's cross: (y·z' − y'·z, z·x' − z'·x, x·y' − x'·y).
dvec3 cross3(dvec3 a, dvec3 b) {
    precise dvec3 c = dvec3(a.y * b.z - b.y * a.z, a.z * b.x - b.z * a.x, a.x * b.y - b.x * a.y);
    return c;
}

// glam's normalize: v · (1 / |v|).
dvec3 normalize3(dvec3 v) {
    precise double len = sqrt(dot3(v, v));
    precise double inv = 1.0lf / len;
    precise dvec3 n = v * inv;
    return n;
}

// rocks.rs bits10: uniform in [0, 1) from bits k·10.. of a hash.
double bits10(uint64_t h, int k) {
    precise double v = double((h >> uint64_t(k * 10)) & 0x3fful) / 1024.0lf;
    return v;
}

// rocks.rs rational_dir: the unit vector of half-angle tangent t.
dvec2 rational_dir(double t) {
    precise double d = 1.0lf + t * t;
    precise dvec2 r = dvec2((1.0lf - t * t) / d, (2.0lf * t) / d);
    return r;
}

// A rock of rocks.rs `Rock`, its shape fields filled only once it is near (`rock_shape_of`).
struct RockT {
    dvec3 centre;
    double radius;
    double height;
    double draw;
    double aspect;
    double burial;
    uint64_t shape_hash;
    uint64_t salt;
    dvec3 long_axis;
    dvec3 short_axis;
    dvec4 facets[ROCK_FACETS];
};

// rock_in_cell's position, size and burial; false: the cell holds no rock (empty, or the
// rock's centre on the datum sphere lies in another cell).
bool rock_in_cell(int64_t x, int64_t y, int64_t z, int k, out RockT rock) {
    uint64_t salt = uint64_t(k) << 32ul;
    uint64_t h = hash3(x, y, z, SEED_ROCK ^ salt);
    precise double u[5];
    for (int k = 0; k < 5; k++) {
        u[k] = double((h >> uint64_t(k * 12)) & 0xffful) / 4096.0lf;
    }
    if (u[0] >= ROCK_OCCUPANCY) {
        return false;
    }
    precise dvec3 c = (dvec3(double(x), double(y), double(z)) + dvec3(u[1], u[2], u[3])) * ROCK_CELL_M;
    precise dvec3 n = normalize3(c);
    precise dvec3 home = floor(n * pc.radius / ROCK_CELL_M);
    if (home != dvec3(double(x), double(y), double(z))) {
        return false;
    }
    precise double radius = ROCK_MIN_RADIUS_M + (ROCK_MAX_RADIUS_M - ROCK_MIN_RADIUS_M) * u[4];
    uint64_t s = hash3(x, y, z, SEED_ROCK_SHAPE ^ salt);
    precise double aspect = 1.0lf + (ROCK_MAX_ASPECT - 1.0lf) * bits10(s, 0);
    precise double b = bits10(s, 2);
    precise double burial = 0.15lf + 0.55lf * (b * b * b);
    precise double hh = radius * (0.4lf + 0.5lf * (double(h >> 60ul) / 16.0lf)) * (1.15lf - burial);
    rock.centre = n;
    rock.radius = radius;
    rock.height = hh;
    rock.draw = u[0];
    rock.aspect = aspect;
    rock.burial = burial;
    rock.shape_hash = s;
    rock.salt = salt;
    return true;
}

// The rest of rock_in_cell: the footprint's axes and the facets.
void rock_shape_of(int64_t x, int64_t y, int64_t z, inout RockT rock) {
    dvec3 n = rock.centre;
    dvec3 reference = abs(n.z) < 0.9lf ? dvec3(0.0lf, 0.0lf, 1.0lf) : dvec3(1.0lf, 0.0lf, 0.0lf);
    dvec3 e1 = normalize3(cross3(reference, n));
    dvec3 e2 = cross3(n, e1);
    uint64_t s = rock.shape_hash;
    dvec2 a = rational_dir(2.0lf * bits10(s, 1) - 1.0lf);
    precise dvec3 long_axis = a.x * e1 + a.y * e2;
    precise dvec3 short_axis = a.x * e2 - a.y * e1;
    rock.long_axis = long_axis;
    rock.short_axis = short_axis;
    uint64_t stream[3] = uint64_t[3](s, hash3(x, y, z, SEED_ROCK_FACET ^ rock.salt),
        hash3(x, y, z, (SEED_ROCK_FACET + 1ul) ^ rock.salt));
    const dvec2 side[4] = dvec2[4](dvec2(1.0lf, 0.0lf), dvec2(0.0lf, 1.0lf), dvec2(-1.0lf, 0.0lf),
        dvec2(0.0lf, -1.0lf));
    for (int k = 0; k < ROCK_FACETS; k++) {
        int m = 3 + 3 * k;
        dvec2 t = rational_dir(0.8lf * bits10(stream[m / 6], m % 6) - 0.4lf);
        precise double sx = side[k].x;
        precise double sy = side[k].y;
        precise double dx = sx * t.x - sy * t.y;
        precise double dy = sx * t.y + sy * t.x;
        precise double c = 0.75lf + 0.5lf * bits10(stream[(m + 1) / 6], (m + 1) % 6);
        precise double g = 0.4lf + 0.4lf * bits10(stream[(m + 2) / 6], (m + 2) % 6);
        rock.facets[k] = dvec4(dx, dy, c, g);
    }
}

// face_coord: atan2(dir·axis, dir·face axis) / (π/4), extended beyond the face edge.
double face_coord(dvec3 dir, uint face, dvec3 axis) {
    precise double a = f64_atan2(dot3(dir, axis), dot3(dir, dvec3(FACE_AXIS[face])));
    precise double c = a / FRAC_PI_4_D;
    return c;
}

// rock_accepted: the L9 surface at the rock's centre, bilinear, ≥ 2 m above the datum,
// flatter than slope 1 and steep enough for the rock's draw (the bare-to-full slope ramp).
bool rock_accepted(uint face, dvec3 centre, double draw) {
    precise double n9 = double(int(TILE_SAMPLES) << LAST_STORED_LEVEL);
    precise double su = face_coord(centre, face, dvec3(FACE_U[face]));
    precise double sv = face_coord(centre, face, dvec3(FACE_V[face]));
    precise double x = ((su + 1.0lf) * n9 - 1.0lf) * 0.5lf;
    precise double y = ((sv + 1.0lf) * n9 - 1.0lf) * 0.5lf;
    precise double ci = floor(x);
    precise double cj = floor(y);
    precise double fx = x - ci;
    precise double fy = y - cj;
    precise double q[4];
    for (int k = 0; k < 4; k++) {
        q[k] = l9(face, int(ci) + (k & 1), int(cj) + (k >> 1));
    }
    for (int k = 0; k < 4; k++) {
        if (q[k] < ROCK_MIN_GROUND_M) {
            return false;
        }
    }
    precise double lo = q[0] + (q[1] - q[0]) * fx;
    precise double hi = q[2] + (q[3] - q[2]) * fx;
    precise double gx = (q[1] - q[0]) + ((q[3] - q[2]) - (q[1] - q[0])) * fy;
    precise double gy = hi - lo;
    precise double ground = lo + gy * fy;
    precise double slope = sqrt(gx * gx + gy * gy);
    precise double t9 = texel(LAST_STORED_LEVEL);
    precise double max_slope = ROCK_MAX_SLOPE * t9;
    precise double ramp = (ROCK_FULL_SLOPE - ROCK_BARE_SLOPE) * t9;
    precise double excess = (slope - ROCK_BARE_SLOPE * t9) * ROCK_OCCUPANCY;
    precise double need = draw * ramp;
    return ground >= ROCK_MIN_GROUND_M && slope < max_slope && excess > need;
}

// rock_height: the tallest accepted rock covering `dir` on `level`'s lattice (rocks never
// stack), each pre-filtered to the lattice (rocks.rs: rock_filtered, rock_shape).
double rock_height(uint level, uint face, dvec3 dir) {
    precise double w = ROCK_FILTER_TEXELS * texel(level);
    precise double w2 = w * w;
    precise dvec3 p = dir * pc.radius / ROCK_CELL_M;
    precise dvec3 c = floor(p);
    precise double top = 0.0lf;
    // The tallest wins whatever the order: the cells' candidates in any order.
    for (int m = 0; m < 27 * ROCKS_PER_CELL; m++) {
        int k = m / ROCKS_PER_CELL;
        int64_t x = int64_t(c.x) + int64_t(k % 3 - 1);
        int64_t y = int64_t(c.y) + int64_t((k / 3) % 3 - 1);
        int64_t z = int64_t(c.z) + int64_t(k / 9 - 1);
        RockT rock;
        if (!rock_in_cell(x, y, z, m % ROCKS_PER_CELL, rock)) {
            continue;
        }
        precise double ra = sqrt(rock.aspect);
        precise double a = rock.radius * ra;
        precise double b = rock.radius / ra;
        precise double fa2 = a * a + w2;
        precise double fb2 = b * b + w2;
        precise double fa = sqrt(fa2);
        precise double fb = sqrt(fb2);
        precise double fh = rock.height * ((a * b) / (fa * fb));
        precise double sharp = (b * b) / fb2;
        precise double rim = fb / w;
        precise dvec3 o = (dir - rock.centre) * pc.radius;
        if (sqrt(dot3(o, o)) >= fa || fh <= top) {
            continue;
        }
        rock_shape_of(x, y, z, rock);
        precise double u = dot3(o, rock.long_axis) / fa;
        precise double v = dot3(o, rock.short_axis) / fb;
        precise double q2 = u * u + v * v;
        if (q2 >= 1.0lf) {
            continue;
        }
        precise double q4 = q2 * q2;
        precise double dome = 1.0lf - q4;
        precise double bu = rock.burial;
        precise double b2 = bu * bu;
        precise double cut = (sqrt(sqrt(1.0lf - q4 * (1.0lf - b2 * b2))) - bu) / (1.0lf - bu);
        cut = min(cut, (1.0lf - sqrt(q2)) * rim);
        for (int f = 0; f < ROCK_FACETS; f++) {
            dvec4 fc = rock.facets[f];
            precise double plane = fc.z - fc.w * (u * fc.x + v * fc.y);
            cut = min(cut, plane);
        }
        precise double bump = fh * (dome + sharp * (max(cut, 0.0lf) - dome));
        if (bump > top && rock_accepted(face, rock.centre, rock.draw)) {
            top = bump;
        }
    }
    return top;
}

// gully: valley noise stretched along each centre node's fall line, blended bilinearly.
double gully(uint face, Stencil s, dvec3 p, uint k) {
    uint64_t seed = mix64(0x6a110000ul + uint64_t(k));
    dvec3 fu = dvec3(FACE_U[face]);
    dvec3 fv = dvec3(FACE_V[face]);
    precise double sum = 0.0lf;
    for (int m = 0; m < 4; m++) {
        int r = 1 + (m >> 1);
        int c = 1 + (m & 1);
        precise double wx = (m & 1) == 1 ? s.fx : 1.0lf - s.fx;
        precise double wy = (m >> 1) == 1 ? s.fy : 1.0lf - s.fy;
        precise double w = wx * wy;
        precise double gx = (s.h[r * 4 + c + 1] - s.h[r * 4 + c - 1]) * 0.5lf;
        precise double gy = (s.h[(r + 1) * 4 + c] - s.h[(r - 1) * 4 + c]) * 0.5lf;
        dvec3 node = dir_from_tans(face, tan_of(LAST_STORED_LEVEL, s.i0 + c),
            tan_of(LAST_STORED_LEVEL, s.j0 + r));
        precise dvec3 down = -(gx * fu + gy * fv);
        precise dvec3 fall = down - dot3(down, node) * node;
        precise double len = sqrt(dot3(fall, fall));
        precise dvec3 q = p;
        if (len > 1e-9lf) {
            precise dvec3 f = fall / len;
            q = p - (1.0lf - 1.0lf / GULLY_STRETCH) * dot3(p, f) * f;
        }
        precise double n = perlin(q, seed);
        sum += w * (2.0lf * abs(n) - 1.0lf + RIDGE_MEAN);
    }
    return sum;
}

// detail: the amplified height at `dir` from its stencil (TERRAIN.md §6).
double detail(uint level, uint face, dvec3 dir, Stencil s) {
    dvec4 b = base(s);
    precise double h0 = b.x;
    if (h0 < 0.0lf || level < FIRST_BAND_LEVEL) {
        return h0;
    }
    precise double t9 = texel(LAST_STORED_LEVEL);
    precise double slope = sqrt(b.y * b.y + b.z * b.z) / t9;
    precise double curv = clamp(-b.w / (CURVATURE_LAPLACIAN_TEXELS * t9), -1.0lf, 1.0lf);
    precise dvec3 region_p = dir * (pc.radius / REGION_CELL_M);
    // The three 20 km fields in one loop (one inlined copy of perlin).
    precise double field[3];
    for (int k = 0; k < 3; k++) {
        field[k] = perlin(region_p, k == 0 ? SEED_REGION : (k == 1 ? SEED_WET : SEED_BEDDING));
    }
    precise double region = field[0];
    precise double z2 = dir.z * dir.z;
    precise double wet = clamp(wet_belt(z2) + 0.3lf * field[1], 0.0lf, 1.0lf);
    precise double temp = 28.0lf - 42.0lf * z2 - 0.0065lf * h0;
    precise double weight = clamp(slope / FULL_SLOPE, FLAT_WEIGHT, 1.0lf);
    precise double bare = smoothstep_d(ROCK_BARE_SLOPE, ROCK_FULL_SLOPE, slope);
    precise double fine_weight = max(weight, bare);
    precise double talus = max(-curv, 0.0lf) * max(smoothstep_d(4.0lf, -4.0lf, temp), 1.0lf - wet);
    precise double gullies = wet * smoothstep_d(0.3lf, 0.9lf, slope) * smoothstep_d(-2.0lf, 8.0lf, temp);
    precise double strata = smoothstep_d(0.0lf, 0.4lf, region) * smoothstep_d(0.5lf, 1.2lf, slope);
    precise double bedding = 40.0lf * field[2];
    precise double convex = abs(curv);
    precise double d = 0.0lf;
    precise double bound = 0.0lf;
    for (uint k = FIRST_BAND_LEVEL; k <= min(level, LAST_BAND_LEVEL); k++) {
        precise double lambda = BAND_WAVELENGTH_TEXELS * texel(k);
        precise double cap = BAND_CAP * lambda;
        precise double wk = k >= FIRST_BARE_BAND ? fine_weight : weight;
        precise double amp = min(BAND_AMPLITUDE * lambda * wk * (1.0lf + 0.35lf * curv)
            * (0.82lf + 0.42lf * wet), cap);
        if (k >= FIRST_TALUS_LEVEL) {
            amp *= 1.0lf - 0.6lf * talus;
        }
        precise dvec3 p = dir * (2.0lf * pc.radius / lambda);
        precise double n = perlin(p, mix64(0xa3b10000ul + uint64_t(k)));
        precise double ridged = 1.0lf - 2.0lf * abs(n) - RIDGE_MEAN;
        precise double signed_ridged = curv > 0.0lf ? ridged : -ridged;
        precise double shape = (1.0lf - convex) * n + convex * signed_ridged;
        if (k >= FIRST_BARE_BAND) {
            shape = (1.0lf - bare) * shape + bare * ridged;
        }
        if (k <= LAST_GULLY_LEVEL && gullies > 0.0lf) {
            precise double g = gully(face, s, p, k);
            shape = (1.0lf - gullies) * shape + gullies * g;
        }
        precise double band = amp * shape;
        if (k <= LAST_TERRACE_LEVEL && strata > 0.0lf) {
            precise double period = TERRACE_PERIOD_TEXELS * texel(k);
            precise double tr = terrace((h0 + bedding) / period);
            band += strata * tr * period;
        }
        d += clamp(band, -cap, cap);
        bound += cap;
    }
    precise double h = h0 + shore_fade(h0 / bound) * d;
    if (level >= FIRST_ROCK_LEVEL) {
        h += rock_height(level, face, dir);
    }
    return h;
}

// amplified: the height of owned sample (a, b) of `face` at `level`, metres.
double amplified(uint level, uint face, int a, int b) {
    dvec3 dir = dir_from_tans(face, tan_of(level, a), tan_of(level, b));
    Stencil s = stencil(face, l9_position(level, a), l9_position(level, b));
    return detail(level, face, dir, s);
}

#endif
