//! The GPU mesh under load: conforming after every frame of a flight from orbit to 2 m above the
//! ground and a fast turn (with a pool that holds it and one that saturates), exhaustion of a
//! small pool, and the work bound (every sweep's dispatch size follows the high-water mark; a
//! quiet frame dispatches one iteration's work).

mod cbt_gpu_common;
use cbt_gpu_common::*;
use engine::cbt::bisector::Control;
use engine::cbt::gpu::layout::Sweeps;
use engine::cbt::gpu::nodes;
use engine::cbt::gpu::readback::{self, Readback};
use engine::cbt::{CbtParams, FrameStats};

/// Frames of the descent (altitude log-spaced from 20,000 km to 2 m above ground).
const DESCENT: usize = 48;
/// Frames of the turn at 2 m (30° per frame: a full turn in 12 frames).
const TURN: usize = 12;

fn flight_camera(f: usize) -> (engine::camera::ViewCamera, f64, f64) {
    let (top, bottom): (f64, f64) = (2.0e7, 2.0);
    let (agl, heading, pitch) = if f < DESCENT {
        let t = f as f64 / (DESCENT - 1) as f64;
        (
            top * (bottom / top).powf(t),
            30.0,
            -90.0 + 85.0 * t.powf(0.5),
        )
    } else {
        (bottom, 30.0 + 30.0 * (f - DESCENT + 1) as f64, -5.0)
    };
    // Drift east a little as we descend so the ground under the camera changes.
    (
        camera(
            LAT,
            LON + 0.01 * f as f64 / DESCENT as f64,
            agl,
            heading,
            pitch,
        ),
        agl,
        heading,
    )
}

/// Flies the path with a pool of `capacity`; returns the refused split candidates.
fn fly(capacity: u32) -> u32 {
    let mut scene = Scene::new(capacity, CbtParams::default());
    let mut saturated = 0;
    for f in 0..DESCENT + TURN {
        let (cam, agl, heading) = flight_camera(f);
        let out = scene.frame(&cam, Readback::Pool);
        let pool = readback::pool(&out).expect("pool");
        let r = conforming(
            &pool,
            &format!("capacity {capacity} frame {f} (agl {agl:.1} m, heading {heading})"),
        );
        let st = readback::frame_stats(&pool.control);
        assert!(
            st.high_water <= capacity
                && pool.control.free_count as usize == capacity as usize - r.leaves
        );
        saturated += st.saturated();
        if f % 8 == 0 || f >= DESCENT - 1 && f % 3 == 0 {
            println!(
                "cap {capacity} frame {f:>2} agl {agl:>12.1} m heading {heading:>5}: {:>5} leaves ({:>5} drawn) depth ≤ {:>2}, {} iterations, {:>4} splits {:>4} merges {:>5} refused, high water {}",
                r.leaves, st.drawn, r.max_depth, st.iterations, st.splits(), st.merges(), st.saturated(), st.high_water
            );
        }
    }
    scene.destroy();
    saturated
}

/// Orbit → 2 m (48 frames) then a 360° turn in 12 frames: the validator passes on the read-back
/// pool after every frame — reciprocal links, matched edges with identical fixed-point (or, across
/// face seams, canonical) endpoints, leaf areas summing to the 12 roots, zero T-junctions — with
/// 4,096 entries (no saturation) and with 1,024 (saturating from 1 km down).
#[test]
fn conforming_after_every_frame_of_orbit_to_ground_and_fast_turn() {
    assert_eq!(fly(4096), 0, "4,096 entries hold the flight");
    let refused = fly(1024);
    println!("capacity 1024: {refused} refused split candidates over the flight");
    assert!(refused > 0, "the 1k pool must saturate");
}

/// 768 entries at 3 m looking along the ground (the quiet mesh wants ≈ 2,300 leaves): every
/// frame conforming, nothing live at or past the capacity, and the control block reports the
/// refused candidates.
#[test]
fn exhausted_pool_stays_conforming_and_reports_saturation() {
    const CAPACITY: u32 = 768;
    let mut scene = Scene::new(CAPACITY, CbtParams::default());
    let cam = camera(LAT, LON, 3.0, 60.0, -5.0);
    let mut saturated_frames = 0;
    let mut most = 0;
    for f in 0..30 {
        let out = scene.frame(&cam, Readback::Pool);
        let pool = readback::pool(&out).expect("pool");
        let r = conforming(&pool, &format!("frame {f}"));
        let st = readback::frame_stats(&pool.control);
        assert!(st.high_water <= CAPACITY);
        most = most.max(r.leaves);
        saturated_frames += (st.saturated() > 0) as u32;
    }
    println!(
        "capacity {CAPACITY}: at most {most} leaves, saturated in {saturated_frames} of 30 frames"
    );
    assert!(most as u32 > CAPACITY - 64, "the pool fills ({most})");
    assert!(
        saturated_frames >= 10,
        "saturation is reported ({saturated_frames} frames)"
    );
    scene.destroy();
}

/// Reads back each iteration's dispatch arguments (after `cbt.reserve.args`, when all of an
/// iteration's are written) and checks them against the marks in the control block.
fn frame_with_args(
    scene: &mut Scene,
    cam: &engine::camera::ViewCamera,
) -> (FrameStats, Vec<(Control, Sweeps)>, Sweeps, f64, f64) {
    let out = scene.frame_custom(cam, Readback::Counters, None, |g, h, t, push| {
        nodes::frame_args(g, h, push);
        for it in 0..push.iterations {
            let p = push.at(it, 0);
            nodes::eval(g, h, t, p);
            nodes::decide(g, h, t, p);
            nodes::reserve(g, h, p);
            readback::declare_readback_as(g, h, Readback::Counters, &format!("it{it}."));
            nodes::commit(g, h, p);
        }
        nodes::finish(g, h, t, push.at(push.iterations - 1, 0));
    });
    let its = (0..4)
        .map(|k| {
            let pre = format!("it{k}.");
            (
                readback::control_as(&out, &pre).expect("control"),
                readback::sweeps_as(&out, &pre).expect("sweeps"),
            )
        })
        .collect();
    let c = readback::control(&out).expect("control");
    let eval_ms = out.time_ms("cbt.eval").unwrap_or(0.0);
    (
        readback::frame_stats(&c),
        its,
        readback::sweeps(&out).expect("sweeps"),
        out.total_ms(),
        eval_ms,
    )
}

fn reduce_groups(words: u32, pass: usize, levels: u32) -> u32 {
    let passes = levels.div_ceil(6).max(1) as usize;
    if words == 0 || pass >= passes {
        return 0;
    }
    words.div_ceil(1 << (6 * pass)).div_ceil(64)
}

/// Workgroups a frame dispatched: five per-entry sweeps, COMMIT and the reductions per
/// iteration, from the arguments read back.
fn groups(its: &[(Control, Sweeps)]) -> u32 {
    its.iter()
        .map(|(_, s)| {
            5 * s.entry.x
                + s.commit.x
                + s.request.iter().map(|a| a.x).sum::<u32>()
                + s.free.iter().map(|a| a.x).sum::<u32>()
        })
        .sum()
}

/// A view refined from cold: every iteration's dispatch arguments, read back, are whole groups
/// of 64 over the high-water mark (entry sweeps), over max(high water, new children) (COMMIT) and
/// the reduction passes over their words, zero for iterations after a quiet one; FINISH covers
/// the final mark. The quiet frame dispatches less than the last four-iteration frame.
#[test]
fn dispatch_sizes_follow_the_high_water_mark_and_quiet_frames_do_less() {
    const CAPACITY: u32 = 1 << 14;
    let mut scene = Scene::new(CAPACITY, CbtParams::default());
    let levels = (CAPACITY / 64).trailing_zeros();
    let cam = camera(LAT, LON, 300.0, 30.0, -20.0);
    let mut refining = None;
    let mut quiet = None;
    for f in 0..40 {
        let (st, its, end, ms, eval_ms) = frame_with_args(&mut scene, &cam);
        for (k, (c, s)) in its.iter().enumerate() {
            let ran = k < st.iterations;
            let hw = c.high_water;
            let range = hw.max(c.alloc_high);
            let want = |n: u32| if ran { n.div_ceil(64) } else { 0 };
            assert_eq!(
                s.entry.x,
                want(hw),
                "frame {f} iteration {k}: entry sweep over high water {hw}"
            );
            assert_eq!(
                s.commit.x,
                want(range),
                "frame {f} iteration {k}: commit sweep over {range}"
            );
            for p in 0..4 {
                assert_eq!(
                    s.request[p].x,
                    if ran {
                        reduce_groups(hw.div_ceil(64), p, levels)
                    } else {
                        0
                    },
                    "frame {f} it {k} request pass {p}"
                );
                assert_eq!(
                    s.free[p].x,
                    if ran {
                        reduce_groups(range.div_ceil(64), p, levels)
                    } else {
                        0
                    },
                    "frame {f} it {k} free pass {p}"
                );
            }
            assert!(
                s.entry.x * 64 < CAPACITY,
                "sweeps stay far below the capacity"
            );
        }
        assert_eq!(
            end.finish.x,
            st.high_water.div_ceil(64),
            "frame {f}: FINISH over the high water"
        );
        let work = groups(&its);
        // The last frame that ran all four iterations: nearly the quiet mesh's high water.
        if st.iterations == 4 {
            refining = Some((f, work, st.high_water, ms, eval_ms));
        }
        if st.quiet {
            quiet = Some((f, work, st.high_water, ms, eval_ms));
            assert_eq!(st.iterations, 1);
            assert!(
                its[1..]
                    .iter()
                    .all(|(_, s)| s.entry.x == 0 && s.commit.x == 0),
                "quiet: later iterations dispatch nothing"
            );
            break;
        }
    }
    let (rf, rw, rhw, rms, reval) = refining.expect("a refining frame with four iterations");
    let (qf, qw, qhw, qms, qeval) = quiet.expect("the view goes quiet");
    println!("refining frame {rf}: high water {rhw}, {rw} workgroups, GPU {rms:.1} ms (eval {reval:.1} ms)");
    println!(
        "quiet frame {qf}: high water {qhw}, {qw} workgroups, GPU {qms:.1} ms (eval {qeval:.1} ms)"
    );
    assert!(
        qhw >= rhw && 2 * qw < rw,
        "a quiet frame over a no smaller prefix dispatches under half a refining one's work"
    );
    scene.destroy();
}

/// The planet frame's wrapper (`GpuMesh`): its counters, copied to host memory per frame slot
/// and read when the slot comes round, equal the control block the frame read back directly,
/// one slot-cycle late; and its `MeshBindings` point at the indirect draw FINISH wrote.
#[test]
fn gpu_mesh_counters_arrive_one_slot_cycle_late() {
    use engine::cbt::gpu::mesh::GpuMesh;
    use engine::frame_constants::{FrameConstantBuffers, FrameConstants};
    use engine::surface::LodParams;
    let Scene { mut gpu, s } = Scene::new(64, CbtParams::default());
    let engine::cbt::gpu::scene::CbtScene { mut tiles, cbt, .. } = s;
    cbt.destroy(&gpu.ctx);
    let slots = gpu.exec.frames_in_flight();
    let mut mesh =
        GpuMesh::new(&gpu.ctx, Some(1 << 12), CbtParams::default(), slots).expect("mesh");
    let w = world();
    let cam = camera(LAT, LON, 500.0, 30.0, -20.0);
    let mut constants = FrameConstantBuffers::new(&gpu.ctx, slots).expect("constants");
    let mut direct = Vec::new();
    for f in 0..12u32 {
        let (slot, _) = gpu.exec.begin_frame(&gpu.ctx).expect("slot");
        let lod = LodParams::for_camera(w.body, &cam);
        let consts = FrameConstants::new(&cam, w.body, glam::DVec3::Z, &lod, tiles.lookup_size);
        constants.write(slot, &consts).expect("constants");
        tiles
            .prepare(&gpu.ctx, slot, &w.res, &[], cam.eye, w.body.texel0())
            .expect("tiles");
        mesh.prepare(slot);
        let mut g = framegraph::Graph::new();
        let frame = constants.import(&mut g, slot);
        let t = engine::atlas::SurfaceBindings::new(frame, tiles.declare(&mut g));
        let h = mesh.declare(&mut g, &t);
        if f as usize >= slots {
            assert_eq!(
                mesh.control,
                direct[f as usize - slots],
                "frame {f}: counters of frame {}",
                f as usize - slots
            );
        }
        let m = h.mesh();
        assert_eq!((m.draw_args, m.draw_args_offset), (h.control, 36));
        readback::declare_readback(&mut g, &h, Readback::Counters);
        let out = gpu
            .exec
            .run(
                &gpu.ctx,
                g.compile(gpu.ctx.queue_setup()).expect("compiles"),
            )
            .expect("runs");
        direct.push(readback::control(&out).expect("control"));
    }
    assert!(
        mesh.stats.leaves > 12 && mesh.stats.drawn > 0,
        "{:?}",
        mesh.stats
    );
    mesh.destroy(&gpu.ctx);
    tiles.destroy(&gpu.ctx);
    constants.destroy(&gpu.ctx);
    gpu.assert_clean();
}
