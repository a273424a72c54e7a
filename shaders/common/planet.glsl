// Planet constants and the cube-sphere fixed-point conventions (docs/conventions.md).
// Mirrors engine/src/params.rs and engine/src/planet/cube.rs.
#ifndef PLANET_GLSL
#define PLANET_GLSL

#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

#define FIXED_BITS 30u
#define FIXED_ONE (1u << 30)
#define TILE_SAMPLES 512u
#define TILE_APRON 4
#define TILE_STRIDE 520
#define MAX_LEVEL 18u
#define NO_SLOT 0xffffffffu
#define PI 3.14159265358979

// (axis, u_axis, v_axis) per face, as in cube.rs.
const vec3 FACE_AXIS[6] = vec3[6](vec3(1, 0, 0), vec3(-1, 0, 0), vec3(0, 1, 0), vec3(0, -1, 0), vec3(0, 0, 1), vec3(0, 0, -1));
const vec3 FACE_U[6] = vec3[6](vec3(0, 1, 0), vec3(0, 0, 1), vec3(0, 0, 1), vec3(1, 0, 0), vec3(1, 0, 0), vec3(0, 1, 0));
const vec3 FACE_V[6] = vec3[6](vec3(0, 0, 1), vec3(0, 1, 0), vec3(1, 0, 0), vec3(0, 0, 1), vec3(0, 1, 0), vec3(1, 0, 0));

// GLSL's trigonometry is only as precise as the driver makes it (Vulkan allows 2^-11 absolute
// error for sin/cos and 4096 ulp for atan; lavapipe's tan was measured 4e-5 off, 245 m on Earth).
// The charts and face map need ~1e-7, so they use these: Taylor/odd-polynomial kernels with
// range reduction, accurate to f32 rounding over the ranges used.
float sin_p(float x) { // |x| <= π/4
    float x2 = x * x;
    return x * (1.0 + x2 * (-1.0 / 6.0 + x2 * (1.0 / 120.0 + x2 * (-1.0 / 5040.0 + x2 * (1.0 / 362880.0 + x2 * (-1.0 / 39916800.0))))));
}
float cos_p(float x) { // |x| <= π/4
    float x2 = x * x;
    return 1.0 + x2 * (-0.5 + x2 * (1.0 / 24.0 + x2 * (-1.0 / 720.0 + x2 * (1.0 / 40320.0 + x2 * (-1.0 / 3628800.0 + x2 * (1.0 / 479001600.0))))));
}
// tan for |x| <= π/2 − ε (reduced to |x| <= π/4 by tan(x) = 1/tan(π/2 − x)).
float tan_p(float x) {
    float a = abs(x);
    float t = a <= PI * 0.25 ? sin_p(a) / cos_p(a) : cos_p(PI * 0.5 - a) / sin_p(PI * 0.5 - a);
    return x < 0.0 ? -t : t;
}
// atan, reduced to |x| <= tan(π/12) by atan(x) = π/2 − atan(1/x) and
// atan(x) = π/6 + atan((√3·x − 1)/(x + √3)); odd series to x^15 there (< 1e-9).
float atan_p(float x) {
    float a = abs(x);
    bool inv = a > 1.0;
    if (inv) a = 1.0 / a;
    bool shift = a > 0.26794919;
    if (shift) a = (1.7320508 * a - 1.0) / (a + 1.7320508);
    float a2 = a * a;
    float r = a * (1.0 + a2 * (-1.0 / 3.0 + a2 * (1.0 / 5.0 + a2 * (-1.0 / 7.0 + a2 * (1.0 / 9.0 + a2 * (-1.0 / 11.0 + a2 * (1.0 / 13.0 + a2 * (-1.0 / 15.0))))))));
    if (shift) r += PI / 6.0;
    if (inv) r = PI * 0.5 - r;
    return x < 0.0 ? -r : r;
}

// Face (u, v) in [-1, 1] (a little beyond for aprons) → unit direction (equi-angular). f32:
// for far-away uses and culls; precise positions go through tile frames (tiles.glsl).
vec3 face_dir(uint face, vec2 uv) {
    vec2 t = vec2(tan_p(uv.x * (PI * 0.25)), tan_p(uv.y * (PI * 0.25)));
    return normalize(FACE_AXIS[face] + t.x * FACE_U[face] + t.y * FACE_V[face]);
}

// A point on a cube edge or corner belongs to several faces; evaluate it on the lowest-numbered
// one so every bisector sharing it computes the same bits. Exact integer remapping.
void canonical_vertex(inout uint face, inout uvec2 X) {
    bool edge = X.x == 0u || X.x == FIXED_ONE || X.y == 0u || X.y == FIXED_ONE;
    if (!edge || face == 0u) return;
    // Along a cube edge both faces' equi-angular coordinates are the same function, so the
    // linear cube point c = 2^29·(axis + u·u_axis + v·v_axis) maps exactly between them.
    const int H = int(1u << 29);
    ivec3 c = ivec3(FACE_AXIS[face]) * H + ivec3(FACE_U[face]) * (int(X.x) - H) + ivec3(FACE_V[face]) * (int(X.y) - H);
    for (uint f = 0u; f < face; ++f) {
        ivec3 a = ivec3(FACE_AXIS[f]);
        if (a.x * c.x + a.y * c.y + a.z * c.z == H) {
            ivec3 fu = ivec3(FACE_U[f]), fv = ivec3(FACE_V[f]);
            int u = fu.x * c.x + fu.y * c.y + fu.z * c.z;
            int v = fv.x * c.x + fv.y * c.y + fv.z * c.z;
            face = f;
            X = uvec2(uint(u + H), uint(v + H));
            return;
        }
    }
}

// Fixed-point coordinates on `face` of a direction with a positive component along its axis:
// the direction projected onto the face's plane, clamped to the face (f32: a hint to be refined
// through a tile frame, not an exact address).
ivec2 dir_to_fixed_on(uint face, vec3 dir) {
    float a = max(dot(dir, FACE_AXIS[face]), 1e-6);
    vec2 uv = vec2(atan_p(dot(dir, FACE_U[face]) / a), atan_p(dot(dir, FACE_V[face]) / a)) / (PI * 0.25);
    return ivec2(clamp((uv + 1.0) * float(1u << 29), vec2(0.0), vec2(float(FIXED_ONE))));
}

// Owning face and fixed-point face coordinates of a unit direction (a hint, as above).
void dir_to_face_fixed(vec3 dir, out uint face, out ivec2 X) {
    face = 0u;
    float best = -2.0;
    for (uint f = 0u; f < 6u; ++f) {
        float a = dot(dir, FACE_AXIS[f]);
        if (a > best) { best = a; face = f; }
    }
    X = dir_to_fixed_on(face, dir);
}

#endif
