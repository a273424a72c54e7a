//! The GPU-visible data of the CBT pool, in one place: the 160-byte [`Bisector`], the
//! [`Control`] block (counters, indirect arguments, per-iteration statistics), and the sizes of
//! the side arrays (free / request / draw bit words and their sum trees).
//!
//! Mirrored field for field by `shaders/common/bisector.glsl` (std430). Every field is a 4- or
//! 8-byte scalar or an array of them, so std430 adds no padding and the Rust `#[repr(C)]`
//! offsets are the GLSL offsets; `tests::glsl_mirror_matches` parses the GLSL file and checks.
//! Field semantics, writers and readers per stage: `docs/cbt.md`.

use bytemuck::{Pod, Zeroable};

/// "No entry": a missing neighbour (never on a closed sphere, kept for generality) or no child.
pub const INVALID: u32 = u32::MAX;

/// One pool entry: a leaf of the longest-edge bisection, double-buffered (current / next).
///
/// Corners are fixed-point face coordinates `[X0, Y0, X1, Y1, X2, Y2]` on the face of the
/// entry's root (u = X·2⁻²⁹ − 1, `docs/conventions.md`); vertex order, hypotenuse and neighbour
/// slots follow the CBT orientation convention there (v1 is the right-angle apex, the
/// hypotenuse is v2→v0, neighbour k lies across the edge from vertex k to vertex k+1).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct Bisector {
    /// LEB heap index; 0 = free entry. Roots are 16..=27, child = 2·parent + bit.
    pub path: u64,
    /// Path after this iteration (NEIGHBOURS); 0 = not live after COMMIT.
    pub next_path: u64,
    /// Current corners, fixed point.
    pub corners: [u32; 6],
    /// Corners after this iteration (NEIGHBOURS).
    pub next_corners: [u32; 6],
    /// Pool indices across edge v0v1, v1v2, v2v0 (the last is the twin, across the hypotenuse).
    pub neighbours: [u32; 3],
    /// Neighbours after this iteration (NEIGHBOURS), read-old/write-new.
    pub next_neighbours: [u32; 3],
    /// This frame's camera-relative corner positions, metres: x0 y0 z0 x1 y1 z1 x2 y2 z2
    /// (f32 triples, not vec3: std430 aligns vec3 to 16 bytes).
    pub positions: [f32; 9],
    /// Bit length of `path` (roots: 5); rewritten by COMMIT.
    pub depth: u32,
    /// `FLAG_*` bits: EVAL writes the measure bits, COMMIT sets `FLAG_DIRTY`.
    pub flags: u32,
    /// Interpolation residual at the hypotenuse midpoint, px (EVAL).
    pub r_hyp: f32,
    /// Larger residual of the two leg midpoints, px (EVAL).
    pub r_leg: f32,
    /// `WISH_*` (DECIDE, own entry only).
    pub wish: u32,
    /// Non-zero when a finer leaf's split needs this entry split (DECIDE of other entries,
    /// atomicOr).
    pub pushed: u32,
    /// `FATE_*` (RESOLVE, then RESERVE).
    pub fate: u32,
    /// Pool index of the odd child when `fate == FATE_SPLIT` (RESERVE).
    pub child: u32,
    /// When each corner was born, 10 bits per corner (corner k in bits 10k..10k + 10): 0 for
    /// a settled vertex, else a birth stamp ([`birth_stamp`]) while it morphs from its birth
    /// edge's chord midpoint onto the surface ([`morph_weight`]). NEIGHBOURS carries them
    /// through splits and merges; EVAL clears a stamp once its morph is over.
    pub births: u32,
}

/// In the view frustum and not horizon-culled: FINISH puts it in the draw list.
pub const FLAG_DRAW: u32 = 1 << 0;
/// All three corners' lines of sight pass below the datum sphere (and the datum patch is
/// outside the visible cap): never refines, merges when its parent is culled too.
pub const FLAG_CULLED: u32 = 1 << 1;
/// Outside the view frustum (inflated bounding sphere of the corners).
pub const FLAG_OFFSCREEN: u32 = 1 << 2;
/// Splitting would make children finer than the depth cap (or the fixed-point limit).
pub const FLAG_CAPPED: u32 = 1 << 3;
/// Geometry changed in a COMMIT since the last EVAL: positions and measures are stale.
pub const FLAG_DIRTY: u32 = 1 << 4;
/// Splitting would make children finer than the depth cap of `FINE_DETAIL_LEVEL`: only detail
/// finer than that level asks for this split (the fine-detail gain counts such split wishes).
pub const FLAG_FINE: u32 = 1 << 5;

/// DECIDE: keep this leaf.
pub const WISH_KEEP: u32 = 0;
/// DECIDE: this leaf's own criterion asks for a split.
pub const WISH_SPLIT: u32 = 1;
/// DECIDE: this leaf's parent would measure under the hysteresis targets.
pub const WISH_MERGE: u32 = 2;

/// RESOLVE/RESERVE: unchanged this iteration.
pub const FATE_KEEP: u32 = 0;
/// RESOLVE: wants a split and its twin agrees; waiting for RESERVE.
pub const FATE_CANDIDATE: u32 = 1;
/// RESERVE: splits; the even child keeps this slot, the odd child goes to `child`.
pub const FATE_SPLIT: u32 = 2;
/// RESOLVE: even child of a merging pair; becomes the parent in this slot.
pub const FATE_MERGE_KEEP: u32 = 3;
/// RESOLVE: odd child of a merging pair; freed by COMMIT.
pub const FATE_MERGE_FREE: u32 = 4;

/// Compute workgroup width of every per-entry sweep (entries per group).
pub const WORKGROUP_SIZE: u32 = 64;
/// Most update iterations per frame (TERRAIN.md §3: 4 while splits are pending).
pub const MAX_ITERATIONS: usize = 4;

/// Mesh updates over which a new vertex moves from its birth edge's chord midpoint onto the
/// surface when morphs are on (`CbtParams::morph_updates`, off by default; half a second at
/// 60 Hz, as a tile's arrival fade): a split moves an outline by at most its residual over this
/// many updates per update, instead of all of it at once. Merges wait for the morphs of their
/// leaves' corners (a morphing vertex is not yet the surface the merge's measure assumes).
pub const MORPH_UPDATES: u32 = 30;
/// Birth stamps cycle through 1..=BIRTH_PERIOD (0 is "settled"): every live entry is evaluated
/// in every updating frame, so a stamp is cleared long before it could come round again.
pub const BIRTH_PERIOD: u32 = 1023;

/// The stamp of a vertex born in update `frame` (`Control::frame`).
pub fn birth_stamp(frame: u32) -> u32 {
    frame % BIRTH_PERIOD + 1
}

/// Corner k's stamp in a `births` word.
pub fn birth_of(births: u32, k: usize) -> u32 {
    (births >> (10 * k)) & 0x3ff
}

/// `births` with corner k's stamp replaced.
pub fn with_birth(births: u32, k: usize, stamp: u32) -> u32 {
    (births & !(0x3ff << (10 * k))) | (stamp << (10 * k))
}

/// How far a vertex with birth stamp `stamp` has moved onto the surface in update `frame` of a
/// morph over `updates` updates: 0 when born, linear to 1 after `updates`; 1 when settled or
/// when nothing morphs (`updates` = 0).
pub fn morph_weight(stamp: u32, frame: u32, updates: u32) -> f32 {
    if stamp == 0 || updates == 0 {
        return 1.0;
    }
    let age = (birth_stamp(frame) + BIRTH_PERIOD - stamp) % BIRTH_PERIOD;
    if age >= updates {
        1.0
    } else {
        age as f32 / updates as f32
    }
}

/// `VkDispatchIndirectCommand`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct DispatchArgs {
    pub x: u32,
    pub y: u32,
    pub z: u32,
}

impl DispatchArgs {
    /// Groups of `WORKGROUP_SIZE` covering `n` items.
    pub fn covering(n: u32) -> DispatchArgs {
        DispatchArgs {
            x: n.div_ceil(WORKGROUP_SIZE),
            y: 1,
            z: 1,
        }
    }
}

/// `VkDrawIndirectCommand`: 3 vertices per drawn leaf, the vertex shader reads the draw list.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct DrawArgs {
    pub vertex_count: u32,
    pub instance_count: u32,
    pub first_vertex: u32,
    pub first_instance: u32,
}

/// Counters of one update iteration (atomicAdd targets; read back for `--stats`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct IterationStats {
    /// Bisectors split (a diamond counts 2).
    pub splits: u32,
    /// Parents re-formed by merges (a four-leaf diamond counts 2).
    pub merges: u32,
    /// Split candidates (RESOLVE) = allocation requests.
    pub candidates: u32,
    /// Candidates refused because the pool could not cover them.
    pub saturated: u32,
    /// Entries evaluated by EVAL.
    pub evaluated: u32,
    /// Leaves whose own criterion wanted a split (DECIDE).
    pub split_wishes: u32,
    /// Leaves that wanted to merge (DECIDE).
    pub merge_wishes: u32,
    /// High-water mark after this iteration's COMMIT.
    pub high_water: u32,
}

/// The pool's control block: one small storage buffer, also the source of every indirect
/// dispatch/draw (all offsets are multiples of 4, as Vulkan requires).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct Control {
    /// Per-entry sweeps: groups over [0, high_water).
    pub entry_sweep: DispatchArgs,
    /// COMMIT: groups over [0, max(high_water, alloc_high)).
    pub commit_sweep: DispatchArgs,
    /// Bit-word sweeps (REDUCE popcount pass): groups over the words of the commit range.
    pub word_sweep: DispatchArgs,
    /// The indirect draw of the compacted leaves (FINISH).
    pub draw: DrawArgs,
    /// Pool entries (a multiple of 64).
    pub capacity: u32,
    /// Entries at or above this index are free: every sweep stops here.
    pub high_water: u32,
    /// RESERVE: max(child index) + 1 this iteration (atomicMax).
    pub alloc_high: u32,
    /// COMMIT: max(live index) + 1 (atomicMax); becomes `high_water` in the args step.
    pub next_high_water: u32,
    /// Free entries (root of the free sum tree after REDUCE): RESERVE's budget.
    pub free_count: u32,
    /// Iteration running now (0..MAX_ITERATIONS); indexes `stats`.
    pub iteration: u32,
    /// 1 while another iteration should run (the last one split or merged).
    pub pending: u32,
    /// Frames updated since the pool was created.
    pub frame: u32,
    /// FINISH: live leaves.
    pub leaves: u32,
    /// FINISH: horizon-culled leaves.
    pub culled: u32,
    /// FINISH: leaves outside the frustum.
    pub offscreen: u32,
    /// Per-iteration counters of the current frame.
    pub stats: [IterationStats; MAX_ITERATIONS],
    /// DECIDE: split wishes of `FLAG_FINE` leaves over the frame's iterations (the fine-detail
    /// gain's input).
    pub fine_split_wishes: u32,
    /// FINISH: leaves with a corner still morphing (`births` ≠ 0): the mesh is not still yet
    /// (`gpu::record::still`).
    pub morphing: u32,
    /// DECIDE: leaves kept from splitting over the frame's iterations because they showed
    /// nothing in the last frame (`CbtParams::hidden_leaves`; 0 in the model).
    pub hidden_kept: u32,
}

/// Number of 64-bit words of a bit array over `capacity` entries.
pub const fn bit_words(capacity: u32) -> usize {
    capacity.div_ceil(64) as usize
}

/// Leaves of a sum tree over `words` bit words (a power of two; node 1 is the root, node
/// `leaves + w` counts word `w`, node i sums nodes 2i and 2i+1; node 0 unused).
pub const fn tree_leaves(words: usize) -> usize {
    words.next_power_of_two()
}

/// u32 nodes of a sum tree over `words` bit words.
pub const fn tree_nodes(words: usize) -> usize {
    2 * tree_leaves(words)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{offset_of, size_of};

    /// (field, offset, bytes) of the Rust struct, in declaration order.
    fn bisector_fields() -> Vec<(&'static str, usize, usize)> {
        vec![
            ("path", offset_of!(Bisector, path), 8),
            ("next_path", offset_of!(Bisector, next_path), 8),
            ("corners", offset_of!(Bisector, corners), 24),
            ("next_corners", offset_of!(Bisector, next_corners), 24),
            ("neighbours", offset_of!(Bisector, neighbours), 12),
            ("next_neighbours", offset_of!(Bisector, next_neighbours), 12),
            ("positions", offset_of!(Bisector, positions), 36),
            ("depth", offset_of!(Bisector, depth), 4),
            ("flags", offset_of!(Bisector, flags), 4),
            ("r_hyp", offset_of!(Bisector, r_hyp), 4),
            ("r_leg", offset_of!(Bisector, r_leg), 4),
            ("wish", offset_of!(Bisector, wish), 4),
            ("pushed", offset_of!(Bisector, pushed), 4),
            ("fate", offset_of!(Bisector, fate), 4),
            ("child", offset_of!(Bisector, child), 4),
            ("births", offset_of!(Bisector, births), 4),
        ]
    }

    #[test]
    fn bisector_is_160_bytes_and_dense() {
        assert_eq!(size_of::<Bisector>(), 160);
        let f = bisector_fields();
        let mut end = 0;
        for (name, off, bytes) in &f {
            assert_eq!(
                *off, end,
                "{name} must follow the previous field with no padding"
            );
            end = off + bytes;
        }
        assert_eq!(end, 160);
        assert_eq!(offset_of!(Bisector, positions), 88);
        assert_eq!(size_of::<Control>(), 96 + 32 * MAX_ITERATIONS + 12);
        assert_eq!(offset_of!(Control, draw), 36);
        assert_eq!(offset_of!(Control, stats), 96);
    }

    /// std430 (offset, size) of a member declared as `type name[n]` (scalars only).
    fn std430(ty: &str, count: usize, at: usize) -> (usize, usize) {
        let scalar = match ty {
            "uint64_t" => 8,
            "uint" | "float" => 4,
            other => panic!("unexpected GLSL type {other} in bisector.glsl"),
        };
        (at.next_multiple_of(scalar), scalar * count)
    }

    /// Parses the members of `struct <name> { ... };` from the GLSL mirror: every member is
    /// `type name;` or `type name[N];` with a `// offset N` comment that must agree too.
    fn glsl_members(src: &str, name: &str) -> Vec<(String, usize, usize)> {
        let start = src
            .find(&format!("struct {name}"))
            .unwrap_or_else(|| panic!("struct {name} missing from bisector.glsl"));
        let body = &src[start..];
        let open = body.find('{').expect("struct body");
        let close = body.find("};").expect("struct end");
        let mut at = 0;
        let mut out = Vec::new();
        for line in body[open + 1..close].lines() {
            let code = line.split("//").next().unwrap_or("").trim();
            if code.is_empty() {
                continue;
            }
            let code = code.trim_end_matches(';');
            let mut parts = code.split_whitespace();
            let ty = parts.next().expect("type");
            let decl = parts.next().expect("name");
            let (field, count) = match decl.find('[') {
                Some(b) => (
                    &decl[..b],
                    decl[b + 1..decl.len() - 1].parse().expect("array length"),
                ),
                None => (decl, 1),
            };
            let (off, bytes) = std430(ty, count, at);
            let doc_off: usize = line
                .split("// offset")
                .nth(1)
                .and_then(|s| s.split_whitespace().next())
                .and_then(|s| s.trim_end_matches(',').parse().ok())
                .unwrap_or_else(|| panic!("{name}.{field}: missing `// offset N` comment"));
            assert_eq!(
                doc_off, off,
                "{name}.{field}: documented offset disagrees with std430"
            );
            out.push((field.to_string(), off, bytes));
            at = off + bytes;
        }
        out
    }

    #[test]
    fn glsl_mirror_matches() {
        let src = include_str!("../../../shaders/common/bisector.glsl");
        let glsl = glsl_members(src, "Bisector");
        let rust = bisector_fields();
        assert_eq!(glsl.len(), rust.len(), "field count");
        for ((gn, go, gb), (rn, ro, rb)) in glsl.iter().zip(rust.iter()) {
            assert_eq!((gn.as_str(), *go, *gb), (*rn, *ro, *rb));
        }
        // The control block: compare total size and the indirect-argument offsets.
        let ctl = glsl_members(src, "CbtControl");
        let end = ctl.last().map(|(_, o, b)| o + b).unwrap_or(0);
        assert_eq!(end, size_of::<Control>());
        let off = |n: &str| ctl.iter().find(|(f, _, _)| f == n).map(|(_, o, _)| *o);
        assert_eq!(off("entry_sweep"), Some(offset_of!(Control, entry_sweep)));
        assert_eq!(off("commit_sweep"), Some(offset_of!(Control, commit_sweep)));
        assert_eq!(off("word_sweep"), Some(offset_of!(Control, word_sweep)));
        assert_eq!(off("draw_args"), Some(offset_of!(Control, draw)));
        assert_eq!(off("capacity"), Some(offset_of!(Control, capacity)));
        assert_eq!(off("high_water"), Some(offset_of!(Control, high_water)));
        assert_eq!(off("free_count"), Some(offset_of!(Control, free_count)));
        assert_eq!(off("stats"), Some(offset_of!(Control, stats)));
        assert_eq!(
            off("fine_split_wishes"),
            Some(offset_of!(Control, fine_split_wishes))
        );
        // Constants must agree.
        for (name, value) in [
            ("CBT_FLAG_DRAW", FLAG_DRAW),
            ("CBT_FLAG_CULLED", FLAG_CULLED),
            ("CBT_FLAG_OFFSCREEN", FLAG_OFFSCREEN),
            ("CBT_FLAG_CAPPED", FLAG_CAPPED),
            ("CBT_FLAG_DIRTY", FLAG_DIRTY),
            ("CBT_FLAG_FINE", FLAG_FINE),
            ("CBT_WISH_SPLIT", WISH_SPLIT),
            ("CBT_WISH_MERGE", WISH_MERGE),
            ("CBT_FATE_CANDIDATE", FATE_CANDIDATE),
            ("CBT_FATE_SPLIT", FATE_SPLIT),
            ("CBT_FATE_MERGE_KEEP", FATE_MERGE_KEEP),
            ("CBT_FATE_MERGE_FREE", FATE_MERGE_FREE),
            ("CBT_WORKGROUP_SIZE", WORKGROUP_SIZE),
            ("CBT_BIRTH_PERIOD", BIRTH_PERIOD),
            ("CBT_HIDDEN_STAMP", crate::cbt::gpu::buffers::HIDDEN_STAMP),
            ("CBT_UNSEEN_STAMP", crate::cbt::gpu::buffers::UNSEEN_STAMP),
            ("CBT_STAMP_FRAME", crate::cbt::gpu::buffers::STAMP_FRAME),
        ] {
            let pat = format!("#define {name} ");
            let line = src
                .lines()
                .find(|l| l.starts_with(&pat))
                .unwrap_or_else(|| panic!("{name} missing from bisector.glsl"));
            let v = line[pat.len()..].split_whitespace().next().unwrap_or("");
            let v = v.trim_end_matches('u');
            let parsed = if let Some(shift) = v.strip_prefix("(1u<<") {
                1u32 << shift.trim_end_matches(')').parse::<u32>().expect("shift")
            } else if let Some(hex) = v.strip_prefix("0x") {
                u32::from_str_radix(hex, 16).expect("hex")
            } else {
                v.parse().expect("number")
            };
            assert_eq!(parsed, value, "{name}");
        }
    }

    #[test]
    fn a_birth_morphs_over_morph_updates_and_survives_the_stamp_period() {
        for born in [0u32, 5, BIRTH_PERIOD - 1, BIRTH_PERIOD, 5000] {
            let stamp = birth_stamp(born);
            assert!((1..=BIRTH_PERIOD).contains(&stamp));
            let w: Vec<f32> = (0..=MORPH_UPDATES + 1)
                .map(|a| morph_weight(stamp, born + a, MORPH_UPDATES))
                .collect();
            assert_eq!(w[0], 0.0, "born at {born}");
            assert_eq!(w[1], 1.0 / MORPH_UPDATES as f32);
            assert!(w.windows(2).all(|p| p[1] >= p[0]));
            assert_eq!(w[MORPH_UPDATES as usize], 1.0);
        }
        assert_eq!(morph_weight(0, 17, MORPH_UPDATES), 1.0, "settled");
        assert_eq!(morph_weight(birth_stamp(17), 17, 0), 1.0, "no morph");
        let b = with_birth(with_birth(0, 1, 7), 2, BIRTH_PERIOD);
        assert_eq!(
            (birth_of(b, 0), birth_of(b, 1), birth_of(b, 2)),
            (0, 7, BIRTH_PERIOD)
        );
        assert_eq!(birth_of(with_birth(b, 1, 0), 1), 0);
    }

    #[test]
    fn side_array_sizes() {
        assert_eq!(bit_words(1 << 22), 1 << 16);
        assert_eq!(tree_nodes(bit_words(1 << 22)), 1 << 17);
        assert_eq!(bit_words(100), 2);
        assert_eq!(tree_leaves(3), 4);
    }
}
