//! The GPU mesh under load: conforming after every frame of a flight from orbit to 2 m above the
//! ground and a fast turn (with a pool that holds it and one that saturates), exhaustion of a
//! small pool, and the work bound (every sweep's dispatch size follows the high-water mark; a
//! quiet frame dispatches one iteration's work).

mod cbt_gpu_common;
use cbt_gpu_common::*;
use engine::cbt::bisector::Control;
use engine::cbt::gpu::layout::{CommitSweeps, Sweeps};
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

/// One iteration's control block and dispatch arguments, read back after `cbt.reserve.args`
/// (when all of the iteration's arguments are written).
type IterationArgs = (Control, Sweeps, CommitSweeps);

/// Reads back each iteration's dispatch arguments and checks them against the marks in the
/// control block.
fn frame_with_args(
    scene: &mut Scene,
    cam: &engine::camera::ViewCamera,
) -> (FrameStats, Vec<IterationArgs>, Sweeps, f64, f64) {
    let out = scene.frame_custom(cam, Readback::Counters, None, |g, h, t, push| {
        nodes::frame_args(g, h, push);
        for it in 0..push.iterations {
            let p = push.at(it);
            nodes::eval(g, h, t, p);
            nodes::decide(g, h, t, p);
            nodes::reserve(g, h, p);
            readback::declare_readback_as(g, h, Readback::Counters, &format!("it{it}."));
            nodes::commit(g, h, p);
        }
        nodes::finish(g, h, t, push.at(push.iterations - 1));
    });
    let its = (0..4)
        .map(|k| {
            let pre = format!("it{k}.");
            (
                readback::control_as(&out, &pre).expect("control"),
                readback::sweeps_as(&out, &pre).expect("sweeps"),
                readback::commit_sweeps_as(&out, &pre).expect("commit sweeps"),
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

/// Workgroups a frame dispatched: five per-entry sweeps, COMMIT and the two reductions per
/// iteration, from the arguments read back.
fn groups(its: &[IterationArgs]) -> u32 {
    its.iter()
        .map(|(_, s, cs)| 5 * s.entry.x + cs.commit.x + s.request.x + cs.free.x)
        .sum()
}

/// A view refined from cold: every iteration's dispatch arguments, read back, are whole groups
/// of 64 over the high-water mark (entry sweeps), over max(high water, new children) (COMMIT),
/// and one group per 64 bit words of those for the reductions, zero for iterations after a
/// quiet one; FINISH covers the final mark. The quiet frame dispatches less than the last
/// four-iteration frame.
#[test]
fn dispatch_sizes_follow_the_high_water_mark_and_quiet_frames_do_less() {
    const CAPACITY: u32 = 1 << 14;
    let mut scene = Scene::new(CAPACITY, CbtParams::default());
    let cam = camera(LAT, LON, 300.0, 30.0, -20.0);
    let mut refining = None;
    let mut quiet = None;
    for f in 0..40 {
        let (st, its, end, ms, eval_ms) = frame_with_args(&mut scene, &cam);
        for (k, (c, s, cs)) in its.iter().enumerate() {
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
                cs.commit.x,
                want(range),
                "frame {f} iteration {k}: commit sweep over {range}"
            );
            assert_eq!(
                s.request.x,
                want(hw.div_ceil(64)),
                "frame {f} it {k}: request tree over the words of {hw}"
            );
            assert_eq!(
                cs.free.x,
                want(range.div_ceil(64)),
                "frame {f} it {k}: free tree over the words of {range}"
            );
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
                    .all(|(_, s, cs)| s.entry.x == 0 && cs.commit.x == 0),
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

/// The planet frame's mesh (`GpuMesh`) over the test world's tiles, one frame at a time.
struct MeshRig {
    gpu: planetfall_tests::Gpu,
    tiles: engine::atlas::TileAtlas,
    constants: engine::frame_constants::FrameConstantBuffers,
    mesh: engine::cbt::gpu::mesh::GpuMesh,
}

impl MeshRig {
    fn new(capacity: u32) -> MeshRig {
        let Scene { gpu, s } = Scene::new(64, CbtParams::default());
        let engine::cbt::gpu::scene::CbtScene { tiles, cbt, .. } = s;
        cbt.destroy(&gpu.ctx);
        let slots = gpu.exec.frames_in_flight();
        let mesh = engine::cbt::gpu::mesh::GpuMesh::new(
            &gpu.ctx,
            Some(capacity),
            CbtParams::default(),
            slots,
        )
        .expect("mesh");
        let constants =
            engine::frame_constants::FrameConstantBuffers::new(&gpu.ctx, slots).expect("constants");
        MeshRig {
            gpu,
            tiles,
            constants,
            mesh,
        }
    }

    /// One frame for `cam` as the planet frame declares it, reading back `what`: the names of
    /// the nodes it recorded and its output.
    fn frame(
        &mut self,
        cam: &engine::camera::ViewCamera,
        what: Readback,
    ) -> (Vec<String>, framegraph::FrameOutput) {
        use engine::cbt::gpu::record::ViewPose;
        use engine::frame_constants::FrameConstants;
        use engine::surface::LodParams;
        let w = world();
        let (slot, _) = self.gpu.exec.begin_frame(&self.gpu.ctx).expect("slot");
        let lod = LodParams::for_camera(w.body, cam);
        let consts = FrameConstants::new(cam, w.body, glam::DVec3::Z, &lod, self.tiles.lookup_size);
        self.constants.write(slot, &consts).expect("constants");
        self.tiles
            .prepare(&self.gpu.ctx, slot, &w.res, &[], cam.eye, w.body.texel0())
            .expect("tiles");
        // The rest of the update's inputs (constants, surface) follow the camera alone here.
        self.mesh
            .prepare(slot, ViewPose::new(cam, w.body.radius), 0);
        let mut g = framegraph::Graph::new();
        let frame = self.constants.import(&mut g, slot);
        let t = engine::atlas::SurfaceBindings::new(frame, self.tiles.declare(&mut g));
        let h = self.mesh.declare(&mut g, &t);
        let m = h.mesh();
        assert_eq!((m.draw_args, m.draw_args_offset), (h.control, 36));
        readback::declare_readback(&mut g, &h, what);
        let compiled = g.compile(self.gpu.ctx.queue_setup()).expect("compiles");
        let names = compiled.nodes.iter().map(|n| n.name.clone()).collect();
        let out = self.gpu.exec.run(&self.gpu.ctx, compiled).expect("runs");
        (names, out)
    }

    fn destroy(self) {
        let MeshRig {
            gpu,
            tiles,
            constants,
            mesh,
        } = self;
        mesh.destroy(&gpu.ctx);
        tiles.destroy(&gpu.ctx);
        constants.destroy(&gpu.ctx);
        gpu.assert_clean();
    }
}

/// The planet frame's wrapper (`GpuMesh`): its counters, copied to host memory per frame slot
/// and read when the slot comes round, equal the control block the frame read back directly,
/// one slot-cycle late; and its `MeshBindings` point at the indirect draw FINISH wrote.
#[test]
fn gpu_mesh_counters_arrive_one_slot_cycle_late() {
    let mut rig = MeshRig::new(1 << 12);
    let slots = rig.gpu.exec.frames_in_flight();
    let cam = camera(LAT, LON, 500.0, 30.0, -20.0);
    let mut direct = Vec::new();
    for f in 0..12usize {
        let (_, out) = rig.frame(&cam, Readback::Counters);
        // `prepare` of frame f read the counters of frame f - slots.
        if f >= slots {
            assert_eq!(
                rig.mesh.control,
                direct[f - slots],
                "frame {f}: counters of frame {}",
                f - slots
            );
        }
        direct.push(readback::control(&out).expect("control"));
    }
    assert!(
        rig.mesh.stats.leaves > 12 && rig.mesh.stats.drawn > 0,
        "{:?}",
        rig.mesh.stats
    );
    rig.destroy();
}

/// Nodes of the CBT update in a frame's node list (`cbt.*` but the counters' copy).
fn update_nodes(names: &[String]) -> Vec<&str> {
    names
        .iter()
        .map(String::as_str)
        .filter(|n| n.starts_with("cbt.") && !n.starts_with("cbt.counters") && *n != "cbt.init")
        .collect()
}

/// The recording rule on the GPU: a static view records all four iterations until the frame
/// it reads back (frames in flight old) was quiet, then nothing — the pool and its draw list
/// are that view's fixed point. A view that moves within the quiet thresholds records one
/// iteration (the whole update in 13 nodes), the mesh unchanged and conforming. A 20° turn
/// records all four iterations again at once, and the mesh refines and stays conforming
/// through it until it is quiet again.
#[test]
fn still_frames_record_nothing_quiet_ones_one_iteration_and_a_turn_all_four() {
    let mut rig = MeshRig::new(1 << 12);
    let slots = rig.gpu.exec.frames_in_flight();
    let one: Vec<&str> = vec![
        "cbt.frame.args",
        "cbt.eval",
        "cbt.decide",
        "cbt.resolve",
        "cbt.reserve.reduce",
        "cbt.reserve",
        "cbt.reserve.args",
        "cbt.neighbours",
        "cbt.commit",
        "cbt.reduce",
        "cbt.finish",
        "cbt.finish.reduce",
        "cbt.finish.compact",
    ];
    let evals = |names: &[String]| names.iter().filter(|n| *n == "cbt.eval").count();
    let mut still_at = None;
    let mut last_pool: Option<(Vec<_>, Control)> = None;
    for f in 0..40usize {
        let cam = camera(LAT, LON, 300.0, 30.0, -15.0);
        let (names, out) = rig.frame(&cam, Readback::Pool);
        let pool = readback::pool(&out).expect("pool");
        conforming(&pool, &format!("static frame {f}"));
        let recorded = rig.mesh.iterations;
        assert_eq!(evals(&names) as u32, recorded, "frame {f}");
        if f < slots {
            assert_eq!(recorded, 4, "frame {f}: nothing read back yet");
        }
        if recorded == 0 {
            assert!(update_nodes(&names).is_empty(), "frame {f}: {names:?}");
            assert!(
                rig.mesh.stats.quiet,
                "frame {f}: recorded nothing though the frame read back was not quiet"
            );
            // The pool, its control block (the indirect draw) and the draw list stay those
            // of the last frame that ran the update, which had reached the view's fixed point.
            let (entries, control) = last_pool.as_ref().expect("a frame before");
            assert_eq!(
                &pool.entries, entries,
                "frame {f}: a still frame changes no entry"
            );
            assert_eq!(&pool.control, control, "frame {f}");
            assert!(
                readback::frame_stats(&pool.control).drawn > 0,
                "frame {f}: draws"
            );
            still_at.get_or_insert(f);
            if f >= still_at.unwrap() + 3 {
                break;
            }
        } else {
            assert_eq!(recorded, 4, "frame {f}: the view never moved");
            assert_eq!(update_nodes(&names).len(), 1 + 4 * 9 + 3, "frame {f}");
        }
        last_pool = Some((pool.entries, pool.control));
    }
    let still_at = still_at.expect("the static view goes quiet and records nothing");
    println!("static view: nothing recorded from frame {still_at}");

    // Sway by a fifth of a centre pixel: the view changes, but within the quiet thresholds.
    let px_deg = camera(LAT, LON, 300.0, 30.0, -15.0)
        .pixel_angle()
        .to_degrees();
    let mut one_at = None;
    let mut last_one: Option<Vec<u64>> = None;
    for f in 0..20usize {
        let heading = 30.0 + if f % 2 == 0 { 0.2 } else { -0.2 } * px_deg;
        let cam = camera(LAT, LON, 300.0, heading, -15.0);
        let (names, out) = rig.frame(&cam, Readback::Pool);
        let pool = readback::pool(&out).expect("pool");
        conforming(&pool, &format!("sway frame {f}"));
        let recorded = rig.mesh.iterations;
        assert_eq!(evals(&names) as u32, recorded, "sway frame {f}");
        assert!(
            recorded > 0,
            "sway frame {f}: the view moved, the update runs"
        );
        if recorded == 1 {
            assert_eq!(update_nodes(&names), one, "sway frame {f}");
            let st = readback::frame_stats(&pool.control);
            assert!(st.quiet, "sway frame {f}: {st:?}");
            // A quiet frame keeps every leaf; only the positions follow the moved eye.
            let leaves: Vec<u64> = pool.entries.iter().map(|e| e.path).collect();
            if let Some(prev) = &last_one {
                assert_eq!(
                    &leaves, prev,
                    "sway frame {f}: a quiet frame keeps the leaves"
                );
            }
            last_one = Some(leaves);
            one_at.get_or_insert(f);
            if f >= one_at.unwrap() + 3 {
                break;
            }
        }
    }
    assert!(one_at.is_some(), "a swaying view records one iteration");

    // Turn 20°: the new view differs from the one the quiet frame was recorded for.
    let (mut splits, mut ran_more) = (0, false);
    let mut back_to_still = None;
    for f in 0..30usize {
        let cam = camera(LAT, LON, 300.0, 50.0, -15.0);
        let (names, out) = rig.frame(&cam, Readback::Pool);
        let pool = readback::pool(&out).expect("pool");
        conforming(&pool, &format!("turn frame {f}"));
        let st = readback::frame_stats(&pool.control);
        let recorded = rig.mesh.iterations;
        assert_eq!(evals(&names) as u32, recorded, "turn frame {f}");
        if f == 0 {
            assert_eq!(recorded, 4, "the turning frame records the full update");
            assert_eq!(update_nodes(&names).len(), 1 + 4 * 9 + 3);
            assert!(!st.quiet && st.splits() > 0, "the turn refines: {st:?}");
        }
        splits += st.splits();
        ran_more |= st.iterations > 1;
        if recorded == 0 {
            back_to_still = Some(f);
            break;
        }
    }
    println!("turn: {splits} splits, nothing recorded again from frame {back_to_still:?}");
    assert!(ran_more, "the turn uses more than one iteration in a frame");
    assert!(back_to_still.is_some(), "still again after the turn");
    rig.destroy();
}
