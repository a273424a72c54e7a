// The CBT pool as the GPU sees it. Mirror of engine/src/cbt/bisector.rs (field for field,
// std430); `bisector::tests::glsl_mirror_matches` parses this file and checks every offset
// and constant. Semantics, writers and readers per stage: docs/cbt.md.
//
// Every member is a 4- or 8-byte scalar or an array of them, so std430 inserts no padding.
// Positions are float[9] rather than vec3[3] because std430 aligns vec3 to 16 bytes.
#ifndef CBT_BISECTOR_GLSL
#define CBT_BISECTOR_GLSL

#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

#define CBT_INVALID 0xffffffffu

// flags
#define CBT_FLAG_DRAW (1u<<0)
#define CBT_FLAG_CULLED (1u<<1)
#define CBT_FLAG_OFFSCREEN (1u<<2)
#define CBT_FLAG_CAPPED (1u<<3)
#define CBT_FLAG_DIRTY (1u<<4)
#define CBT_FLAG_FINE (1u<<5)

// wish (DECIDE)
#define CBT_WISH_KEEP 0u
#define CBT_WISH_SPLIT 1u
#define CBT_WISH_MERGE 2u

// fate (RESOLVE, RESERVE)
#define CBT_FATE_KEEP 0u
#define CBT_FATE_CANDIDATE 1u
#define CBT_FATE_SPLIT 2u
#define CBT_FATE_MERGE_KEEP 3u
#define CBT_FATE_MERGE_FREE 4u

#define CBT_WORKGROUP_SIZE 64u
#define CBT_MAX_ITERATIONS 4u
#define CBT_BASE_DEPTH 5u
#define CBT_MAX_DEPTH 64u
#define CBT_BIRTH_PERIOD 1023u

// Occlusion culling's stamp per pool entry (engine/src/cbt/gpu/buffers.rs `seen`, written by
// the raster phases and the resolve, read by cbt.decide): the last frame whose resolve saw the
// leaf win a pixel, or with CBT_HIDDEN_STAMP the frame raster.compute.late culled it as
// hidden, or with CBT_UNSEEN_STAMP the frame a raster phase drew it on screen (the resolve
// then rewrites a winner's). The frame is in the low bits.
#define CBT_HIDDEN_STAMP 0x80000000u
#define CBT_UNSEEN_STAMP 0x40000000u
#define CBT_STAMP_FRAME 0x3fffffffu

// Births (bisector.rs: birth_stamp, birth_of, with_birth, morph_weight).
uint cbt_birth_stamp(uint frame) { return frame % CBT_BIRTH_PERIOD + 1u; }
uint cbt_birth_of(uint births, uint k) { return (births >> (10u * k)) & 0x3ffu; }
uint cbt_with_birth(uint births, uint k, uint stamp) { return (births & ~(0x3ffu << (10u * k))) | (stamp << (10u * k)); }
float cbt_morph_weight(uint stamp, uint frame, uint updates) {
    if (stamp == 0u || updates == 0u) return 1.0;
    uint age = (cbt_birth_stamp(frame) + CBT_BIRTH_PERIOD - stamp) % CBT_BIRTH_PERIOD;
    return age >= updates ? 1.0 : float(age) / float(updates);
}

struct Bisector {
    uint64_t path;              // offset 0   LEB heap index, 0 = free; roots 16..27
    uint64_t next_path;         // offset 8   after this iteration (NEIGHBOURS)
    uint corners[6];            // offset 16  X0 Y0 X1 Y1 X2 Y2, 30-bit fixed point on the root's face
    uint next_corners[6];       // offset 40
    uint neighbours[3];         // offset 64  across v0v1, v1v2, v2v0 (twin)
    uint next_neighbours[3];    // offset 76
    float positions[9];         // offset 88  camera-relative corners, metres
    uint depth;                 // offset 124 bit length of path
    uint flags;                 // offset 128 CBT_FLAG_*
    float r_hyp;                // offset 132 residual at the hypotenuse midpoint, px
    float r_leg;                // offset 136 max residual at the leg midpoints, px
    uint wish;                  // offset 140 CBT_WISH_* (own)
    uint pushed;                // offset 144 atomicOr by finer leaves' DECIDE
    uint fate;                  // offset 148 CBT_FATE_*
    uint child;                 // offset 152 odd child's index when splitting
    uint births;                // offset 156 10-bit birth stamp per corner, 0 = settled
};                              // 160 bytes

// Per-iteration counters live in stats[iteration * 8 + k], k:
#define CBT_STAT_SPLITS 0u
#define CBT_STAT_MERGES 1u
#define CBT_STAT_CANDIDATES 2u
#define CBT_STAT_SATURATED 3u
#define CBT_STAT_EVALUATED 4u
#define CBT_STAT_SPLIT_WISHES 5u
#define CBT_STAT_MERGE_WISHES 6u
#define CBT_STAT_HIGH_WATER 7u

struct CbtControl {
    uint entry_sweep[3];        // offset 0   VkDispatchIndirectCommand over [0, high_water)
    uint commit_sweep[3];       // offset 12  over [0, max(high_water, alloc_high))
    uint word_sweep[3];         // offset 24  over the bit words of the commit range
    uint draw_args[4];          // offset 36  VkDrawIndirectCommand
    uint capacity;              // offset 52
    uint high_water;            // offset 56
    uint alloc_high;            // offset 60  atomicMax(child + 1), RESERVE
    uint next_high_water;       // offset 64  atomicMax(index + 1), COMMIT
    uint free_count;            // offset 68  root of the free sum tree
    uint iteration;             // offset 72
    uint pending;               // offset 76  1 while another iteration should run ("active" is reserved)
    uint frame;                 // offset 80
    uint leaves;                // offset 84  FINISH
    uint culled;                // offset 88  FINISH
    uint offscreen;             // offset 92  FINISH
    uint stats[32];             // offset 96  CBT_MAX_ITERATIONS x 8
    uint fine_split_wishes;     // offset 224 DECIDE: split wishes of CBT_FLAG_FINE leaves, whole frame
    uint morphing;              // offset 228 FINISH: leaves with a corner still morphing
    uint hidden_kept;           // offset 232 DECIDE: leaves hidden last frame kept from splitting
};                              // 236 bytes

// Side arrays (separate buffers), sized from the capacity N (a multiple of 64):
//   free bits      uint64_t[N/64]   bit i = 1 <=> entry i is free
//   request bits   uint64_t[N/64]   bit i = 1 <=> entry i is a split candidate this iteration
//   draw bits      uint64_t[N/64]   bit i = 1 <=> entry i is drawn this frame
//   sum trees      uint[2*L]        one per bit array; L = next power of two >= N/64;
//                                   node 1 = root, node L+w = popcount(word w), node i = 2i + 2i+1
//   draw list      uint[N]          pool indices of drawn leaves, ascending

// |cos| of the angle between a chord's normal and the view direction to its centroid, from its
// camera-relative corners (1 for a degenerate triangle): 0 where the view grazes the chord.
// The outline test of cbt.decide and cbt.eval (CbtParams::silhouette_cos) and raster.unseen.
float incidence_cos(vec3 p[3]) {
    vec3 n = cross(p[1] - p[0], p[2] - p[0]);
    vec3 g = p[0] + p[1] + p[2];
    return length(n) > 0.0 && length(g) > 0.0 ? abs(dot(normalize(n), normalize(g))) : 1.0;
}

#endif
