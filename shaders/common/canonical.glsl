// planet/tile.rs `canonical_sample` on the GPU: where a face-global sample (I, J) of any level
// is owned. An apron sample beyond one face edge folds onto the neighbouring face; beyond a cube
// corner it is the three faces' corner samples, sorted by face (the order every mean sums in).
// Shared by tiles.derive and the amplified passes so both fold the same way.
#ifndef CANONICAL_GLSL
#define CANONICAL_GLSL

#include "common/planet.glsl"

// Face axes as integers, for the folding (cube.rs FACE_AXES).
ivec3 face_axis_i(uint f) { return ivec3(FACE_AXIS[f]); }
ivec3 face_u_i(uint f) { return ivec3(FACE_U[f]); }
ivec3 face_v_i(uint f) { return ivec3(FACE_V[f]); }

uint face_with_axis(ivec3 d) {
    uint idx = d.x != 0 ? 0u : (d.y != 0 ? 1u : 2u);
    int s = d.x + d.y + d.z;
    return 2u * idx + (s < 0 ? 1u : 0u);
}

int idot(ivec3 a, ivec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

// planet/tile.rs `fold`: one step across the edge of `face` that `index` (along u when
// `along_u`, else v) has crossed; returns (face, I, J) on the neighbour.
ivec3 fold(uint face, bool along_u, int index, int other, int n) {
    ivec3 cross_axis = along_u ? face_u_i(face) : face_v_i(face);
    ivec3 along_axis = along_u ? face_v_i(face) : face_u_i(face);
    int k = index >= n ? index - n : -1 - index;
    uint g = face_with_axis(index >= n ? cross_axis : -cross_axis);
    ivec3 fa = face_axis_i(face);
    int fa_gu = idot(fa, face_u_i(g));
    if (fa_gu != 0) {
        int a = fa_gu > 0 ? n - 1 - k : k;
        int b = idot(along_axis, face_v_i(g)) > 0 ? other : n - 1 - other;
        return ivec3(int(g), a, b);
    }
    int a = idot(along_axis, face_u_i(g)) > 0 ? other : n - 1 - other;
    int b = idot(fa, face_v_i(g)) > 0 ? n - 1 - k : k;
    return ivec3(int(g), a, b);
}

// canonical_sample: writes the owner(s) (face, I, J) to t and returns how many: 1 (owned, on
// this face or folded) or 3 (beyond a cube corner, ascending face order).
int canonical_sample(uint level, uint face, int i, int j, out ivec3 t[3]) {
    int n = int(TILE_SAMPLES) << level;
    bool iu = i >= 0 && i < n;
    bool jv = j >= 0 && j < n;
    if (iu && jv) {
        t[0] = ivec3(int(face), i, j);
        return 1;
    }
    if (!iu && jv) {
        t[0] = fold(face, true, i, j, n);
        return 1;
    }
    if (iu && !jv) {
        t[0] = fold(face, false, j, i, n);
        return 1;
    }
    int ci = i >= n ? n - 1 : 0;
    int cj = j >= n ? n - 1 : 0;
    t[0] = ivec3(int(face), ci, cj);
    t[1] = fold(face, true, i >= n ? n : -1, cj, n);
    t[2] = fold(face, false, j >= n ? n : -1, ci, n);
    // Sort the three (distinct) faces ascending.
    ivec3 s;
    if (t[1].x < t[0].x) { s = t[0]; t[0] = t[1]; t[1] = s; }
    if (t[2].x < t[1].x) { s = t[1]; t[1] = t[2]; t[2] = s; }
    if (t[1].x < t[0].x) { s = t[0]; t[0] = t[1]; t[1] = s; }
    return 3;
}

#endif
