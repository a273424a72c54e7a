//! The CPU driver: runs the stages exactly as the GPU dispatches them, each kernel over its
//! range in a seeded shuffled order, and the small argument-writing steps in between.
//!
//! Per frame: up to `max_iterations` iterations of
//!   cbt.eval → cbt.decide → cbt.resolve → cbt.reserve.reduce → cbt.reserve →
//!   cbt.reserve.args → cbt.neighbours → cbt.commit → cbt.reduce → cbt.args
//! (the GPU records all of them; `cbt.args` zeroes the next iteration's dispatches once an
//! iteration neither split nor merged), then cbt.finish → cbt.finish.reduce →
//! cbt.finish.compact → cbt.finish.args.

use super::bisector::{
    bit_words, DispatchArgs, DrawArgs, IterationStats, FATE_CANDIDATE, FATE_MERGE_KEEP, FATE_SPLIT,
    FLAG_DIRTY, MAX_ITERATIONS, WISH_MERGE, WISH_SPLIT, WORKGROUP_SIZE,
};
use super::camera::ViewCamera;
use super::criterion::View;
use super::params::CbtParams;
use super::pool::Pool;
use super::stages::{commit, decide, eval, finish, neighbours, reserve, resolve};
use super::sumtree::{get_bit, set_bit};
use super::surface::Surface;

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
}

impl FrameStats {
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
    // cbt.frame.args: iteration 0 always runs, over the whole allocated prefix.
    pool.control.stats = [IterationStats::default(); MAX_ITERATIONS];
    pool.control.entry_sweep = DispatchArgs::covering(pool.control.high_water);
    pool.control.pending = 1;
    let mut iterations = 0;
    for it in 0..params.max_iterations.min(MAX_ITERATIONS) {
        pool.control.iteration = it as u32;
        iterations += 1;
        run_iteration(pool, surface, &view, it, &mut order);
        if pool.control.pending == 0 {
            break;
        }
    }
    run_finish(pool, surface, &view, &mut order);
    pool.control.frame += 1;
    let c = &pool.control;
    FrameStats {
        iterations,
        per_iteration: c.stats,
        quiet: c.stats[0].splits == 0 && c.stats[0].merges == 0,
        leaves: c.leaves,
        culled: c.culled,
        offscreen: c.offscreen,
        drawn: c.draw.vertex_count / 3,
        high_water: c.high_water,
    }
}

fn run_iteration<S: Surface + ?Sized>(
    pool: &mut Pool,
    surface: &S,
    view: &View,
    it: usize,
    order: &mut impl FnMut(u32) -> Vec<u32>,
) {
    let hw = pool.control.high_water;
    let words = bit_words(hw);
    // Every per-entry sweep is the indirect dispatch written by the previous args step:
    // whole groups of 64, threads past the high-water mark find free entries and return.
    let sweep = (pool.control.entry_sweep.x * WORKGROUP_SIZE).min(pool.capacity());

    // cbt.eval
    for i in order(sweep) {
        let b = &pool.entries[i as usize];
        if b.path == 0 || (it > 0 && b.flags & FLAG_DIRTY == 0) {
            continue;
        }
        let out = eval::eval_kernel(b, surface, view);
        let e = &mut pool.entries[i as usize];
        e.positions = out.positions;
        e.r_hyp = out.r_hyp;
        e.r_leg = out.r_leg;
        e.flags = out.flags;
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
    }

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

    // cbt.args
    let c = &mut pool.control;
    c.high_water = c.next_high_water;
    c.next_high_water = 0;
    c.alloc_high = 0;
    c.stats[it].high_water = c.high_water;
    c.pending = (c.stats[it].splits + c.stats[it].merges > 0) as u32;
    // Next iteration's sweeps; a quiet iteration zeroes them (the GPU records all
    // iterations, the dispatches of the ones after a quiet one are empty).
    c.entry_sweep = DispatchArgs::covering(c.high_water * c.pending);
}

fn run_finish<S: Surface + ?Sized>(
    pool: &mut Pool,
    surface: &S,
    view: &View,
    order: &mut impl FnMut(u32) -> Vec<u32>,
) {
    let hw = pool.control.high_water;
    let c = &mut pool.control;
    (c.leaves, c.culled, c.offscreen) = (0, 0, 0);
    let mut drawn = 0;

    // cbt.finish
    for i in order(hw) {
        if !pool.is_live(i) {
            continue;
        }
        let out = finish::finish_kernel(&pool.entries[i as usize], surface, view);
        if let Some(ev) = out.eval {
            let e = &mut pool.entries[i as usize];
            e.positions = ev.positions;
            e.r_hyp = ev.r_hyp;
            e.r_leg = ev.r_leg;
            e.flags = ev.flags;
        }
        set_bit(&mut pool.draw_bits, i, out.draw);
        let c = &mut pool.control;
        c.leaves += 1;
        c.culled += out.culled as u32;
        c.offscreen += out.offscreen as u32;
        drawn += out.draw as u32;
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

    // cbt.finish.args
    pool.control.draw = DrawArgs {
        vertex_count: 3 * drawn,
        instance_count: 1,
        first_vertex: 0,
        first_instance: 0,
    };
}
