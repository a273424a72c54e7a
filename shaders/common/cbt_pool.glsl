// Per-entry helpers shared by the cbt.* kernels (mirror of engine/src/cbt/stages/decide.rs and
// resolve.rs helpers). Needs common/cbt_buffers.glsl (the pool) included first.
#ifndef CBT_POOL_GLSL
#define CBT_POOL_GLSL

#include "common/cbt_leb.glsl"

// The stored corner positions (camera-relative, metres).
void load_positions(uint i, out vec3 p[3]) {
    for (uint k = 0u; k < 3u; ++k) {
        p[k] = vec3(pool.b[i].positions[3u * k], pool.b[i].positions[3u * k + 1u], pool.b[i].positions[3u * k + 2u]);
    }
}

// The sibling's index when it is a leaf (the even child's sibling lies across its edge v0v1,
// slot 0; the odd child's across v1v2, slot 1), else CBT_INVALID.
uint leaf_sibling(uint i) {
    if (pool.b[i].depth <= CBT_BASE_DEPTH) return CBT_INVALID;
    uint64_t path = pool.b[i].path;
    uint s = leb_is_even(path) ? pool.b[i].neighbours[0] : pool.b[i].neighbours[1];
    if (s == CBT_INVALID || pool.b[s].path != (path ^ 1ul)) return CBT_INVALID;
    return s;
}

// RESOLVE's reading of DECIDE's results (resolve.rs wants_split / wants_merge).
bool wants_split_resolved(uint i) { return pool.b[i].wish == CBT_WISH_SPLIT || pool.b[i].pushed != 0u; }
bool wants_merge_resolved(uint i) { return pool.b[i].wish == CBT_WISH_MERGE && pool.b[i].pushed == 0u; }

// A split needs the twin across the hypotenuse at the same depth and splitting too; a coarser
// twin must split first, and so on down its own chain (decide.rs twin_chain; <= depth - 5 long).
void push_twin_chain(uint i) {
    uint depth = pool.b[i].depth;
    uint t = pool.b[i].neighbours[2];
    for (uint k = 0u; k < CBT_MAX_DEPTH && t != CBT_INVALID; ++k) {
        uint td = pool.b[t].depth;
        if (td > depth) break; // not in a conforming mesh: a twin is never finer
        atomicOr(pool.b[t].pushed, 1u);
        if (td == depth) break;
        depth = td;
        t = pool.b[t].neighbours[2];
    }
}

#endif
