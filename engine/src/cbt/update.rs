//! The CPU driver: runs the stages exactly as the GPU dispatches them, each kernel over its
//! range in a seeded shuffled order, and the small argument-writing steps in between.
//!
//! Per frame: up to `max_iterations` iterations of
//!   cbt.eval → cbt.decide → cbt.resolve → cbt.reserve.reduce → cbt.reserve →
//!   cbt.reserve.args → cbt.neighbours → cbt.commit → cbt.reduce → end of iteration
//! (on the GPU the last workgroup of `cbt.reduce` ends the iteration, zeroing the next
//! iteration's dispatches once an iteration neither split nor merged; the GPU frame records 1
//! or 4 iterations, `gpu::record`), then cbt.finish → cbt.finish.reduce → end of frame (the last
//! workgroup of `cbt.finish.reduce` on the GPU) → cbt.finish.compact.

use super::bisector::{
    bit_words, Control, DispatchArgs, DrawArgs, IterationStats, FATE_CANDIDATE, FATE_MERGE_KEEP,
    FATE_SPLIT, FLAG_DIRTY, FLAG_FINE, MAX_ITERATIONS, WISH_MERGE, WISH_SPLIT, WORKGROUP_SIZE,
};
use super::criterion::View;
use super::params::CbtParams;
use super::pool::Pool;
use super::stages::decide::twin_chain;
use super::stages::{commit, decide, eval, finish, neighbours, reserve, resolve};
use super::sumtree::{get_bit, set_bit};
use super::surface::Surface;
use crate::camera::ViewCamera;

/// A frame's mesh in a few numbers, as the HUD, `render --stats` and the bench's JSON show it.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct MeshStats {
    pub leaves: u32,
    /// Leaves the raster draws (the others are culled or off screen).
    pub drawn: u32,
    /// Pool entries in use at most (the sweeps' extent).
    pub high_water: u32,
    /// Refinement iterations the frame ran.
    pub iterations: usize,
    /// At rest: the first iteration neither split nor merged and no vertex was morphing.
    pub quiet: bool,
    /// Splits refused for want of free entries.
    pub saturated: u32,
    /// Split wishes only levels finer than L14 allowed (`FLAG_FINE`), all iterations.
    #[serde(default)]
    pub fine_split_wishes: u32,
    /// Of `drawn`, the leaves the raster culled as hidden behind terrain (occlusion culling,
    /// `raster.compute.late`); the raster drew `drawn − occluded`.
    #[serde(default)]
    pub occluded: u32,
    /// Of `drawn`, with occlusion culling, the leaves that won a pixel in the frame before
    /// (`raster.compute.early` drew them first). In a still view these are the visible leaves,
    /// so `drawn − early` is what an exact cull could leave out at most.
    #[serde(default)]
    pub early: u32,
    /// Split wishes refused over the frame's iterations because the leaf showed nothing in the
    /// frame before: culled as hidden, or drawn and won no pixel (`CbtParams::hidden_leaves`,
    /// with occlusion stamps).
    #[serde(default)]
    pub hidden_kept: u32,
    /// The fine-detail gain after the frame (`cbt::gain`).
    #[serde(default = "unit_gain")]
    pub fine_detail_gain: f32,
}

fn unit_gain() -> f32 {
    1.0
}

/// What a frame did (the `--stats` readback).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FrameStats {
    /// Iterations that ran (dispatched non-empty).
    pub iterations: usize,
    pub per_iteration: [IterationStats; MAX_ITERATIONS],
    /// The first iteration neither split nor merged.
    pub quiet: bool,
    pub leaves: u32,
    pub culled: u32,
    pub offscreen: u32,
    pub drawn: u32,
    pub high_water: u32,
    /// `Control::fine_split_wishes`.
    pub fine_split_wishes: u32,
    /// Leaves the raster culled as occluded (`publish::RasterCounts::occluded`; the control
    /// block does not hold it).
    pub occluded: u32,
    /// Leaves the raster's early phase drew (`publish::RasterCounts::early`).
    pub early: u32,
    /// `Control::morphing`.
    pub morphing: u32,
    /// `Control::hidden_kept`.
    pub hidden_kept: u32,
}

impl FrameStats {
    /// What a frame did, from its control block: the end of an iteration advances `iteration`
    /// only when another recorded iteration runs, so it ends at the last one that ran.
    pub fn from_control(c: &Control) -> FrameStats {
        FrameStats {
            iterations: c.iteration as usize + 1,
            per_iteration: c.stats,
            quiet: c.stats[0].splits == 0 && c.stats[0].merges == 0,
            leaves: c.leaves,
            culled: c.culled,
            offscreen: c.offscreen,
            drawn: c.draw.vertex_count / 3,
            high_water: c.high_water,
            fine_split_wishes: c.fine_split_wishes,
            occluded: 0,
            early: 0,
            morphing: c.morphing,
            hidden_kept: c.hidden_kept,
        }
    }

    /// In a few numbers, for a frame that ran with `fine_detail_gain`.
    pub fn summary(&self, fine_detail_gain: f64) -> MeshStats {
        MeshStats {
            leaves: self.leaves,
            drawn: self.drawn,
            high_water: self.high_water,
            iterations: self.iterations,
            // At rest: no split or merge, and no vertex still morphing onto the surface.
            quiet: self.quiet && self.morphing == 0,
            saturated: self.saturated(),
            fine_split_wishes: self.fine_split_wishes,
            occluded: self.occluded,
            early: self.early,
            hidden_kept: self.hidden_kept,
            fine_detail_gain: fine_detail_gain as f32,
        }
    }

    pub fn splits(&self) -> u32 {
        self.per_iteration.iter().map(|s| s.splits).sum()
    }
    pub fn merges(&self) -> u32 {
        self.per_iteration.iter().map(|s| s.merges).sum()
    }
    pub fn saturated(&self) -> u32 {
        self.per_iteration.iter().map(|s| s.saturated).sum()
    }
}

/// A seeded permutation of 0..n (splitmix64 + Fisher–Yates): the "thread order" of a sweep.
pub fn shuffled(n: u32, seed: u64) -> Vec<u32> {
    let mut v: Vec<u32> = (0..n).collect();
    let mut s = seed;
    let mut next = || {
        s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = s;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    for i in (1..v.len()).rev() {
        let j = (next() % (i as u64 + 1)) as usize;
        v.swap(i, j);
    }
    v
}

/// Runs one frame of the update for `camera`. `order_seed` picks the thread order of every
/// sweep; the resulting pool must not depend on it.
pub fn update_frame<S: Surface + ?Sized>(
    pool: &mut Pool,
    surface: &S,
    camera: &ViewCamera,
    params: &CbtParams,
    order_seed: u64,
) -> FrameStats {
    let view = View::new(camera, surface.radius(), *params);
    let mut seed = order_seed ^ (pool.control.frame as u64).wrapping_mul(0x2545_f491_4f6c_dd1d);
    let mut order = |n: u32| {
        seed = seed.wrapping_add(1);
        shuffled(n, seed)
    };
    frame_args(pool);
    let recorded = params.max_iterations.min(MAX_ITERATIONS);
    for it in 0..recorded {
        run_iteration(pool, surface, &view, it, recorded, &mut order);
        if pool.control.pending == 0 {
            break;
        }
    }
    run_finish(pool, surface, &view, &mut order);
    FrameStats::from_control(&pool.control)
}

/// `cbt.frame.args` (one thread): iteration 0 always runs, over the whole allocated prefix;
/// the frame's counters start from zero (FINISH accumulates leaves, culled, offscreen and the
/// draw's vertex count into them).
pub fn frame_args(pool: &mut Pool) {
    let c = &mut pool.control;
    c.stats = [IterationStats::default(); MAX_ITERATIONS];
    c.fine_split_wishes = 0;
    c.morphing = 0;
    c.hidden_kept = 0;
    c.entry_sweep = DispatchArgs::covering(c.high_water);
    c.pending = 1;
    c.iteration = 0;
    (c.leaves, c.culled, c.offscreen) = (0, 0, 0);
    c.draw.vertex_count = 0;
}

fn run_iteration<S: Surface + ?Sized>(
    pool: &mut Pool,
    surface: &S,
    view: &View,
    it: usize,
    recorded: usize,
    order: &mut impl FnMut(u32) -> Vec<u32>,
) {
    eval_decide(pool, surface, view, it, order);
    run_topology(pool, it, recorded, order);
}

/// EVAL → DECIDE of iteration `it`: the measures and the wishes. Public so tests can compare
/// them with the GPU's (the topology that follows is exact).
pub fn eval_decide<S: Surface + ?Sized>(
    pool: &mut Pool,
    surface: &S,
    view: &View,
    it: usize,
    order: &mut impl FnMut(u32) -> Vec<u32>,
) {
    // Every per-entry sweep is the indirect dispatch written by the previous args step:
    // whole groups of 64, threads past the high-water mark find free entries and return.
    let sweep = (pool.control.entry_sweep.x * WORKGROUP_SIZE).min(pool.capacity());

    // cbt.eval
    for i in order(sweep) {
        let b = &pool.entries[i as usize];
        if b.path == 0 || (it > 0 && b.flags & FLAG_DIRTY == 0) {
            continue;
        }
        let out = eval::eval_kernel(b, surface, view, pool.control.frame);
        let e = &mut pool.entries[i as usize];
        e.positions = out.positions;
        e.r_hyp = out.r_hyp;
        e.r_leg = out.r_leg;
        e.flags = out.flags;
        e.births = out.births;
        pool.control.stats[it].evaluated += 1;
    }

    // cbt.decide
    let mut pushes = Vec::new();
    for i in order(sweep) {
        if !pool.is_live(i) {
            continue;
        }
        pushes.clear();
        let out = decide::decide_kernel(pool, i, view, &mut pushes);
        pool.entries[i as usize].wish = out.wish;
        for &t in &pushes {
            pool.entries[t as usize].pushed |= 1;
        }
        let s = &mut pool.control.stats[it];
        s.split_wishes += (out.wish == WISH_SPLIT) as u32;
        s.merge_wishes += (out.wish == WISH_MERGE) as u32;
        let fine = pool.entries[i as usize].flags & FLAG_FINE != 0;
        pool.control.fine_split_wishes += (out.wish == WISH_SPLIT && fine) as u32;
    }
}

/// DECIDE with wishes chosen by `wish(path)` instead of the criterion (a split wish still marks
/// its twin chain), over the live entries: tests drive the topology stages with it.
pub fn force_wishes(pool: &mut Pool, wish: impl Fn(u64) -> u32) {
    let mut pushes = Vec::new();
    for i in 0..pool.control.high_water {
        if !pool.is_live(i) {
            continue;
        }
        let w = wish(pool.entries[i as usize].path);
        pool.entries[i as usize].wish = w;
        if w == WISH_SPLIT {
            pushes.clear();
            twin_chain(pool, &pool.entries[i as usize], &mut pushes);
            for &t in &pushes {
                pool.entries[t as usize].pushed |= 1;
            }
        }
    }
}

/// RESOLVE → RESERVE → NEIGHBOURS → COMMIT → REDUCE → args: everything after the wishes are
/// set, in iteration `it` of `recorded` (the args step advances `control.iteration` when another
/// recorded iteration will run). Public so tests can drive the topology with arbitrary wishes.
pub fn run_topology(
    pool: &mut Pool,
    it: usize,
    recorded: usize,
    order: &mut impl FnMut(u32) -> Vec<u32>,
) {
    let hw = pool.control.high_water;
    let words = bit_words(hw);
    let sweep = (pool.control.entry_sweep.x * WORKGROUP_SIZE).min(pool.capacity());

    // cbt.resolve
    for i in order(sweep) {
        if !pool.is_live(i) {
            continue;
        }
        let out = resolve::resolve_kernel(pool, i);
        pool.entries[i as usize].fate = out.fate;
        if out.request {
            set_bit(&mut pool.request_bits, i, true);
        }
        let s = &mut pool.control.stats[it];
        s.candidates += out.request as u32;
        s.merges += (out.fate == FATE_MERGE_KEEP) as u32;
    }

    // cbt.reserve.reduce: the request sum tree over the swept words.
    pool.request_tree.build(&pool.request_bits, words);

    // cbt.reserve
    for i in order(sweep) {
        if pool.entries[i as usize].fate != FATE_CANDIDATE {
            continue;
        }
        let out = reserve::reserve_kernel(pool, i);
        let e = &mut pool.entries[i as usize];
        e.fate = out.fate;
        e.child = out.child;
        let s = &mut pool.control.stats[it];
        s.saturated += out.saturated as u32;
        if out.fate == FATE_SPLIT {
            s.splits += 1;
            pool.control.alloc_high = pool.control.alloc_high.max(out.child + 1);
        }
    }

    // cbt.neighbours
    for i in order(sweep) {
        if !pool.is_live(i) {
            continue;
        }
        let out = neighbours::neighbours_kernel(pool, i);
        let mut write = |slot: u32, n: neighbours::Next| {
            let e = &mut pool.entries[slot as usize];
            e.next_path = n.path;
            e.next_corners = n.corners;
            e.next_neighbours = n.neighbours;
            // Births are written in place: only a merge reads another entry's (its sibling's,
            // which is being freed and writes none).
            if n.path != 0 {
                e.births = n.births;
            }
        };
        write(i, out.own);
        if let Some((slot, n)) = out.child {
            write(slot, n);
        }
    }

    // cbt.reserve.args: COMMIT and REDUCE must also cover the children just allocated.
    let range = hw.max(pool.control.alloc_high);
    pool.control.commit_sweep = DispatchArgs::covering(range);
    pool.control.word_sweep = DispatchArgs::covering(bit_words(range) as u32);

    // cbt.commit over [0, max(hw, alloc_high)), rounded up to whole groups
    let commit_n = (pool.control.commit_sweep.x * WORKGROUP_SIZE).min(pool.capacity());
    for i in order(commit_n) {
        let Some(out) = commit::commit_kernel(&pool.entries[i as usize]) else {
            continue;
        };
        pool.entries[i as usize] = out.entry;
        set_bit(&mut pool.free_bits, i, !out.live);
        set_bit(&mut pool.request_bits, i, false);
        if !out.live {
            set_bit(&mut pool.draw_bits, i, false);
        } else {
            pool.control.next_high_water = pool.control.next_high_water.max(i + 1);
        }
    }

    // cbt.reduce: the free sum tree over the committed words.
    pool.free_tree.build(&pool.free_bits, bit_words(range));
    pool.control.free_count = pool.free_tree.total();

    // End of the iteration (the last workgroup of cbt.reduce on the GPU).
    let c = &mut pool.control;
    c.high_water = c.next_high_water;
    c.next_high_water = 0;
    c.alloc_high = 0;
    c.stats[it].high_water = c.high_water;
    c.pending = (c.stats[it].splits + c.stats[it].merges > 0) as u32;
    // Next iteration's sweeps; a quiet iteration zeroes them (the GPU records all
    // iterations, the dispatches of the ones after a quiet one are empty, and its
    // one-thread argument steps see `pending == 0` and write nothing).
    c.entry_sweep = DispatchArgs::covering(c.high_water * c.pending);
    if c.pending == 0 {
        c.commit_sweep = DispatchArgs::covering(0);
        c.word_sweep = DispatchArgs::covering(0);
    } else if it + 1 < recorded {
        c.iteration = it as u32 + 1;
    }
}

/// FINISH: evaluate what the last iteration changed, mark and compact the drawn leaves, write
/// the draw. Public so tests can run it from a read-back GPU state.
pub fn run_finish<S: Surface + ?Sized>(
    pool: &mut Pool,
    surface: &S,
    view: &View,
    order: &mut impl FnMut(u32) -> Vec<u32>,
) {
    let hw = pool.control.high_water;

    // cbt.finish (counters were zeroed by cbt.frame.args)
    for i in order(hw) {
        if !pool.is_live(i) {
            continue;
        }
        let frame = pool.control.frame;
        let out = finish::finish_kernel(&pool.entries[i as usize], surface, view, frame);
        if let Some(ev) = out.eval {
            let e = &mut pool.entries[i as usize];
            e.positions = ev.positions;
            e.r_hyp = ev.r_hyp;
            e.r_leg = ev.r_leg;
            e.flags = ev.flags;
            e.births = ev.births;
        }
        set_bit(&mut pool.draw_bits, i, out.draw);
        let c = &mut pool.control;
        c.leaves += 1;
        c.culled += out.culled as u32;
        c.offscreen += out.offscreen as u32;
        c.morphing += (pool.entries[i as usize].births != 0) as u32;
        c.draw.vertex_count += 3 * out.draw as u32;
    }

    // cbt.finish.reduce
    pool.draw_tree.build(&pool.draw_bits, bit_words(hw));

    // cbt.finish.compact
    for i in order(hw) {
        if get_bit(&pool.draw_bits, i) {
            let rank = pool.draw_tree.prefix(&pool.draw_bits, i);
            pool.draw_list[rank as usize] = i;
        }
    }

    // End of the frame (the last workgroup of cbt.finish.reduce on the GPU, before the
    // compaction there; neither reads what the other writes).
    pool.control.draw = DrawArgs {
        vertex_count: pool.control.draw.vertex_count,
        instance_count: 1,
        first_vertex: 0,
        first_instance: 0,
    };
    pool.control.frame += 1;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cbt::bisector::{WISH_KEEP, WISH_MERGE, WISH_SPLIT};
    use crate::cbt::validate::validate;

    /// One iteration with wishes chosen by `wish(path)` instead of the criterion (DECIDE's push
    /// of split wishes down the twin chain included), then the real topology stages.
    fn forced(pool: &mut Pool, wish: impl Fn(u64) -> u32, seed: u64) {
        let mut s = seed;
        let mut order = |n: u32| {
            s = s.wrapping_add(1);
            shuffled(n, s)
        };
        frame_args(pool);
        force_wishes(pool, wish);
        run_topology(pool, 0, 1, &mut order);
    }

    #[track_caller]
    fn valid(pool: &Pool) -> usize {
        match validate(pool) {
            Ok(r) => r.leaves,
            Err(e) => panic!("invalid mesh:\n  {}", e.join("\n  ")),
        }
    }

    #[test]
    fn split_everything_twice_then_merge_back_to_the_roots() {
        let fresh = Pool::new(256).expect("pool");
        let mut pool = fresh.clone();
        forced(&mut pool, |_| WISH_SPLIT, 1);
        assert_eq!(valid(&pool), 24);
        forced(&mut pool, |_| WISH_SPLIT, 2);
        assert_eq!(valid(&pool), 48);
        assert_eq!(pool.control.high_water, 48, "lowest free entries first");
        forced(&mut pool, |_| WISH_MERGE, 3);
        assert_eq!(valid(&pool), 24);
        forced(&mut pool, |_| WISH_MERGE, 4);
        assert_eq!(valid(&pool), 12);
        assert_eq!(pool.control.high_water, 12);
        for (a, b) in pool.entries.iter().zip(fresh.entries.iter()).take(12) {
            assert_eq!(
                (a.path, a.corners, a.neighbours),
                (b.path, b.corners, b.neighbours)
            );
        }
    }

    /// Random split / merge / keep wishes (a function of the path and the iteration, so both
    /// thread orders see the same wishes) on a small pool: conforming after every iteration,
    /// identical pools for two thread orders, saturation exercised.
    #[test]
    fn random_wishes_conform_in_any_thread_order() {
        let hash = |x: u64| {
            let mut z = x.wrapping_mul(0x9e37_79b9_7f4a_7c15);
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z ^ (z >> 31)
        };
        let mut a = Pool::new(1024).expect("pool");
        let mut b = a.clone();
        let (mut saturated, mut merges, mut splits) = (0, 0, 0);
        let mut most = 0;
        for it in 0..150u64 {
            // Phases of growth and shrinkage so the pool fills, saturates and empties.
            let split_pct = if (it / 25) % 2 == 0 { 45 } else { 10 };
            let wish = |path: u64| match hash(path ^ (it << 58) ^ 0x5eed) % 100 {
                x if x < split_pct => WISH_SPLIT,
                x if x < split_pct + 45 => WISH_MERGE,
                _ => WISH_KEEP,
            };
            forced(&mut a, wish, 1000 + it);
            forced(&mut b, wish, 77_777 * (it + 1));
            assert!(a == b, "iteration {it}: thread order changed the pool");
            most = most.max(valid(&a));
            saturated += a.control.stats[0].saturated;
            merges += a.control.stats[0].merges;
            splits += a.control.stats[0].splits;
        }
        assert!(
            merges > 500 && splits > 1000,
            "{splits} splits, {merges} merges"
        );
        assert!(saturated > 0, "the pool must saturate at some point");
        assert!(
            most > 900,
            "the pool must nearly fill ({most} leaves at most)"
        );
    }
}
