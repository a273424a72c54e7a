//! GPU = model, bit for bit, for everything after the wishes: RESOLVE, the request tree,
//! RESERVE, NEIGHBOURS, COMMIT, the free tree and the argument kernels, under wishes chosen by a
//! hash (splits, merges, keeps; phases that fill the pool until it saturates and drain it
//! again; and quiet rounds that neither split nor merge, where `cbt.neighbours` does not run).
//! After every round the whole read-back pool — entries, bits, sum trees, draw list, control
//! block — equals the model's, and the validator passes.

mod cbt_gpu_common;
use cbt_gpu_common::*;
use engine::cbt::bisector::{Control, WISH_KEEP, WISH_MERGE, WISH_SPLIT};
use engine::cbt::gpu::layout::{CbtPush, Sweeps};
use engine::cbt::gpu::readback::{self, Readback};
use engine::cbt::gpu::{nodes, CbtGpu};
use engine::cbt::update::{force_wishes, frame_args, run_topology, shuffled};
use engine::cbt::{CbtParams, Pool};
use framegraph::{BufferDesc, Graph};
use planetfall_tests::Gpu;

fn mix64(x: u64) -> u64 {
    let mut z = x.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z ^ (z >> 31)
}

/// The model's side of one forced round (test.cbt_forced_wish's hash).
fn cpu_round(pool: &mut Pool, round: u32, split_pct: u64, merge_pct: u64) {
    frame_args(pool);
    let wish = |path: u64| match mix64(path ^ ((round as u64) << 58) ^ 0x5eed) % 100 {
        x if x < split_pct => WISH_SPLIT,
        x if x < split_pct + merge_pct => WISH_MERGE,
        _ => WISH_KEEP,
    };
    force_wishes(pool, wish);
    let mut seed = round as u64 * 7919;
    run_topology(pool, 0, 1, &mut |n| {
        seed += 1;
        shuffled(n, seed)
    });
}

/// `rounds` forced rounds on a pool of `capacity`; returns (splits, merges, refused, most leaves).
fn forced_rounds(capacity: u32, rounds: u32) -> (u32, u32, u32, usize) {
    let mut gpu = Gpu::new();
    let params = CbtParams::default();
    let mut cbt = CbtGpu::new(&gpu.ctx, Some(capacity), params).expect("pool");
    let mut cpu = Pool::new(capacity).expect("pool");
    let push = CbtPush::new(&params, capacity, 1);
    let (mut splits, mut merges, mut saturated, mut most) = (0, 0, 0, 0);
    let mut quiet = 0;
    for round in 0..rounds {
        // Phases of growth and shrinkage so the pool fills, saturates and empties; every tenth
        // round wishes no merge, and every twentieth nothing at all (quiet, unless a split is
        // granted: while the pool is saturated every candidate is refused).
        let split_pct = match round % 20 {
            19 => 0,
            _ if (round / 20) % 2 == 0 => 45,
            _ => 10,
        };
        let merge_pct = if round % 10 == 9 { 0 } else { 45 };
        let hw_before = cpu.control.high_water;
        cpu_round(&mut cpu, round, split_pct, merge_pct);

        cbt.prepare();
        let mut g = Graph::new();
        let mut h = cbt.import(&mut g);
        let mut forced = g.create_buffer("test.forced", BufferDesc::gpu(16));
        g.transfer("test.forced.upload").update(
            &mut forced,
            0,
            bytemuck::cast_slice(&[round, split_pct as u32, merge_pct as u32, 0]),
        );
        nodes::frame_args(&mut g, &mut h, push);
        g.compute("test.cbt_forced_wish", &shaders::TEST_CBT_FORCED_WISH)
            .read("forced", forced)
            .write("pool", &mut h.pool)
            .push(&push)
            .dispatch_indirect(h.sweeps, Sweeps::ENTRY);
        nodes::topology(&mut g, &mut h, push);
        readback::declare_readback(&mut g, &h, Readback::Pool);
        let out = gpu
            .exec
            .run(
                &gpu.ctx,
                g.compile(gpu.ctx.queue_setup()).expect("compiles"),
            )
            .expect("runs");
        let gp = readback::pool(&out).expect("readback");
        assert_same_pool(&gp, &cpu, &format!("round {round}"));
        most = most.max(conforming(&gp, &format!("round {round}")).leaves);
        let s = &gp.control.stats[0];
        (splits, merges, saturated) = (
            splits + s.splits,
            merges + s.merges,
            saturated + s.saturated,
        );
        // The sweeps the GPU dispatched follow the marks it kept.
        let sw = readback::sweeps(&out).expect("sweeps");
        let c: &Control = &gp.control;
        assert_eq!(sw.entry, c.entry_sweep, "round {round}: entry sweep");
        // One reduction group per 64 bit words (4,096 entries) of the bound.
        assert_eq!(
            sw.request.x,
            if c.pending == 1 {
                c.high_water.div_ceil(64).div_ceil(64)
            } else {
                0
            },
            "round {round}: request tree groups"
        );
        let cs = readback::commit_sweeps(&out).expect("commit sweeps");
        assert!(cs.commit.x * 64 >= c.high_water, "round {round}: {cs:?}");
        assert_eq!(cs.free.x, cs.commit.x.div_ceil(64), "round {round}: {cs:?}");
        // NEIGHBOURS ran over the entries only where the round split or merged.
        let expect = if s.splits + s.merges > 0 {
            hw_before.div_ceil(64)
        } else {
            0
        };
        assert_eq!(cs.neighbours.x, expect, "round {round}: {cs:?}");
        quiet += (s.splits + s.merges == 0) as u32;
    }
    println!("{rounds} rounds, capacity {capacity}: {splits} splits, {merges} merges, {saturated} refused, at most {most} leaves, {quiet} quiet");
    assert!(quiet > 0, "no quiet round was checked");
    cbt.destroy(&gpu.ctx);
    gpu.assert_clean();
    (splits, merges, saturated, most)
}

/// A pool whose sum trees fit one workgroup (16 words), filled until it saturates.
#[test]
fn topology_stages_equal_the_model_bit_for_bit() {
    let (splits, merges, saturated, most) = forced_rounds(1024, 120);
    assert!(
        splits > 1000 && merges > 500,
        "{splits} splits, {merges} merges"
    );
    assert!(saturated > 0, "the pool must saturate");
    assert!(most > 900, "the pool must nearly fill ({most})");
}

/// A pool of 2¹⁶ entries (sum trees of 1,024 leaves, 10 levels) grown past 4,096 entries, so
/// each reduction runs several workgroups and the last to arrive builds the levels above 6.
#[test]
fn multi_workgroup_reductions_equal_the_model_bit_for_bit() {
    let (splits, _, _, most) = forced_rounds(1 << 16, 24);
    assert!(splits > 8000, "{splits} splits");
    assert!(
        most > 3 * 4096,
        "the reductions span several workgroups ({most} leaves)"
    );
}
