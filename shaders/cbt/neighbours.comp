#version 460
// cbt.neighbours: every survivor computes its next path, corners and neighbours from the old
// state and the published fates (read old, write next; nothing is patched in place); a
// splitting entry also writes its odd child's slot, owned through RESERVE. Births are written
// in place: only a merge's even child reads another entry's, its sibling's, which is being
// freed and writes none. Indirect over commit_sweeps.neighbours: the entry sweep, or nothing in
// an iteration that neither splits nor merges (cbt.commit then keeps the current state). Kernel: engine/src/cbt/stages/neighbours.rs (rules: docs/cbt.md §2).
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 64) in;

#define CBT_WRITES_POOL
#define CBT_READS_CONTROL
#include "common/cbt_buffers.glsl"
#include "common/cbt_leb.glsl"

// Who lies, after this iteration, across the edge of `from` that old neighbour n shares.
uint across(uint n, uint from) {
    if (n == CBT_INVALID) return CBT_INVALID;
    uint fate = pool.b[n].fate;
    // The shared edge is one of n's legs: leg v0v1 goes to the even child (n's slot), leg v1v2
    // to the odd child.
    if (fate == CBT_FATE_SPLIT) return pool.b[n].neighbours[0] == from ? n : pool.b[n].child;
    // The shared edge is n's hypotenuse, a leg of the parent in the even child's slot.
    if (fate == CBT_FATE_MERGE_FREE) return pool.b[n].neighbours[1];
    return n; // KEEP, CANDIDATE (refused), MERGE_KEEP
}

void write_next(uint slot, uint64_t path, uint c[6], uint nb[3]) {
    pool.b[slot].next_path = path;
    pool.b[slot].next_corners = c;
    pool.b[slot].next_neighbours = nb;
}

uint[6] pack(uvec2 a, uvec2 b, uvec2 c) { return uint[6](a.x, a.y, b.x, b.y, c.x, c.y); }

uint births3(uint a, uint b, uint c) { return a | (b << 10u) | (c << 20u); }

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= pc.capacity || pool.b[i].path == 0ul) return;
    uint64_t path = pool.b[i].path;
    uint c[6] = pool.b[i].corners;
    uint nb[3] = pool.b[i].neighbours;
    uint fate = pool.b[i].fate;
    if (fate == CBT_FATE_SPLIT) {
        uvec2 v0 = corner(c, 0u), v1 = corner(c, 1u), v2 = corner(c, 2u);
        if (!midpoint_exact(v0, v2)) {
            // RESOLVE never makes a candidate past the fixed-point limit; keep it unchanged.
            write_next(i, path, c, nb);
            return;
        }
        uvec2 m = midpoint_floor(v0, v2);
        uint child = pool.b[i].child;
        uint t = nb[2];
        // The twin splits too: its odd child faces our even child's edge m→v0, its even child
        // (its own slot) faces our odd child's edge v2→m.
        uint twin_odd = t == CBT_INVALID ? CBT_INVALID : pool.b[t].child;
        uint twin_even = t;
        write_next(i, path << 1, pack(v1, m, v0), uint[3](child, twin_odd, across(nb[0], i)));
        write_next(child, (path << 1) | 1ul, pack(v2, m, v1), uint[3](twin_even, i, across(nb[1], i)));
        // The midpoint is born now (the twin gives it the same stamp); the others keep theirs.
        uint bs = pool.b[i].births, now = cbt_birth_stamp(control.c.frame);
        pool.b[i].births = births3(cbt_birth_of(bs, 1u), now, cbt_birth_of(bs, 0u));
        pool.b[child].births = births3(cbt_birth_of(bs, 2u), now, cbt_birth_of(bs, 1u));
        return;
    }
    if (fate == CBT_FATE_MERGE_KEEP) {
        uint s = nb[0];
        // Parent = [even.v2, even.v0, odd.v0]. Its legs: ours is our hypotenuse (v0v1), the
        // sibling's is its hypotenuse (v1v2); its twin re-forms in the facing even child's slot.
        uint parent_c[6] = pack(corner(c, 2u), corner(c, 0u), corner(pool.b[s].corners, 0u));
        uint next_nb[3] = uint[3](across(nb[2], i), across(pool.b[s].neighbours[2], s), pool.b[s].neighbours[0]);
        write_next(i, path >> 1, parent_c, next_nb);
        uint bs = pool.b[i].births;
        pool.b[i].births = births3(cbt_birth_of(bs, 2u), cbt_birth_of(bs, 0u), cbt_birth_of(pool.b[s].births, 0u));
        return;
    }
    if (fate == CBT_FATE_MERGE_FREE) {
        uint zc[6] = uint[6](0u, 0u, 0u, 0u, 0u, 0u);
        write_next(i, 0ul, zc, uint[3](0u, 0u, 0u));
        return;
    }
    write_next(i, path, c, uint[3](across(nb[0], i), across(nb[1], i), across(nb[2], i)));
}
