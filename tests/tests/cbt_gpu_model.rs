//! GPU = model. The topology stages are bit-exact (`cbt_gpu_topology`); what differs is EVAL and
//! DECIDE, which measure in f32 on the GPU and in f64 on the CPU (the same tile surface,
//! `engine::surface`). Here: from the very same pool, the GPU's measures and wishes against the
//! model's, per entry; and from the same cold start, the quiet leaf sets of both.

mod cbt_gpu_common;
use cbt_gpu_common::explain;
use cbt_gpu_common::*;
use engine::cbt::criterion::View;
use engine::cbt::gpu::nodes;
use engine::cbt::gpu::readback::{self, Readback};
use engine::cbt::stages::positions;
use engine::cbt::update::{eval_decide, frame_args, run_finish, run_topology, shuffled};
use engine::cbt::{Bisector, CbtParams, Pool};

/// At six altitudes, on the quiet mesh: one more frame read back right after iteration 0's
/// DECIDE, against the model's EVAL and DECIDE on the same pool. Positions agree within
/// `POS_TOL` of their distance, residuals within 0.02 px, and flags, wishes and pushes are equal
/// except decisions at their threshold within that error.
#[test]
fn eval_and_decide_match_the_model_from_the_same_pool() {
    let params = CbtParams::default();
    let mut scene = Scene::new(1 << 14, params);
    for (agl, pitch) in VIEWS {
        let cam = camera(LAT, LON, agl, 30.0, pitch);
        let (_, before) = scene.run_to_quiet(&cam, 40);
        let start = readback::pool(&before).expect("pool");
        let out = scene.frame_custom(&cam, Readback::Counters, None, |g, h, t, push| {
            nodes::frame_args(g, h, push);
            for it in 0..push.iterations {
                let p = push.at(it);
                nodes::eval(g, h, t, p);
                nodes::decide(g, h, t, p);
                if it == 0 {
                    g.readback("decided", h.pool);
                }
                nodes::topology(g, h, p);
            }
            nodes::finish(g, h, t, push.at(push.iterations - 1));
        });
        let gpu = entries(&out, "decided", start.entries.len());
        let mut cpu: Pool = start.clone();
        let surface = tile_surface(&cam);
        let view = View::new(&cam, world().body.radius, params);
        frame_args(&mut cpu);
        let mut seed = 1;
        eval_decide(&mut cpu, &surface, &view, 0, &mut |n| {
            seed += 1;
            shuffled(n, seed)
        });
        let mut decided = cpu.clone();
        for i in cpu.leaves() {
            decided.entries[i as usize] = gpu[i as usize];
        }
        let (pos_err, r_err) = measure_error(&decided, &cpu);
        let diffs = explain::decisions(&gpu, &cpu, &surface, &view, &cam);
        println!(
            "agl {agl:>10} m: {} leaves; positions within {pos_err:.1e} of distance, residuals within {r_err:.1e} px; {} differing decisions {:?}",
            cpu.leaf_count(),
            diffs.len(),
            diffs.iter().map(|d| &d.what).collect::<Vec<_>>()
        );
        assert!(
            pos_err <= explain::POS_TOL,
            "agl {agl}: positions off by {pos_err:.1e}"
        );
        assert!(r_err <= 0.02, "agl {agl}: residuals off by {r_err} px");
        assert!(diffs.iter().all(|d| d.near), "agl {agl}: {diffs:?}");
        assert!(
            diffs.len() * 200 <= cpu.leaf_count(),
            "agl {agl}: {} differing decisions",
            diffs.len()
        );
    }
    scene.destroy();
}

/// The pool without the f32 measures (positions, residuals), which differ by rounding.
fn masked(p: &Pool) -> Pool {
    let mut q = p.clone();
    for e in q.entries.iter_mut() {
        e.positions = [0.0; 9];
        e.r_hyp = 0.0;
        e.r_leg = 0.0;
    }
    q
}

/// Largest measure differences between two pools with the same leaves.
fn measure_error(gpu: &Pool, cpu: &Pool) -> (f64, f64) {
    let (mut pos, mut r) = (0f64, 0f64);
    for i in cpu.leaves() {
        let (a, b) = (&gpu.entries[i as usize], &cpu.entries[i as usize]);
        let (pa, pb) = (positions(a), positions(b));
        for k in 0..3 {
            pos = pos.max((pa[k] - pb[k]).length() / pb[k].length().max(1.0));
        }
        r = r.max((a.r_hyp - b.r_hyp).abs().max((a.r_leg - b.r_leg).abs()) as f64);
    }
    (pos, r)
}

#[derive(Default, Debug)]
struct Lockstep {
    iterations: usize,
    identical: usize,
    differing_decisions: Vec<String>,
    pos_err: f64,
    r_err: f64,
}

/// One GPU frame with the pool read back before every iteration, after every DECIDE and before
/// FINISH; the model runs each iteration (and FINISH) from the GPU's own state before it, so
/// every step is compared from the very same pool.
fn lockstep_frame(
    scene: &mut Scene,
    cam: &engine::camera::ViewCamera,
    params: &CbtParams,
    ls: &mut Lockstep,
    f: usize,
) {
    let out = scene.frame_custom(cam, Readback::Pool, None, |g, h, t, push| {
        nodes::frame_args(g, h, push);
        for it in 0..push.iterations {
            let p = push.at(it);
            readback::declare_readback_as(g, h, Readback::Pool, &format!("it{it}."));
            nodes::eval(g, h, t, p);
            nodes::decide(g, h, t, p);
            g.readback(&format!("it{it}.decided"), h.pool);
            nodes::topology(g, h, p);
        }
        readback::declare_readback_as(g, h, Readback::Pool, "it4.");
        nodes::finish(g, h, t, push.at(push.iterations - 1));
    });
    let surface = tile_surface(cam);
    let view = View::new(cam, world().body.radius, *params);
    let mut seed = f as u64 * 1000;
    let mut order = |n: u32| {
        seed += 1;
        shuffled(n, seed)
    };
    for it in 0..4usize {
        let start = readback::pool_as(&out, &format!("it{it}.")).expect("pool");
        let next = readback::pool_as(&out, &format!("it{}.", it + 1)).expect("pool");
        if start.control.pending == 0 {
            assert!(start == next, "frame {f} iteration {it}: a quiet frame's later iterations must not touch the pool");
            continue;
        }
        ls.iterations += 1;
        let mut cpu = start.clone();
        eval_decide(&mut cpu, &surface, &view, it, &mut order);
        let decided = entries(&out, &format!("it{it}.decided"), cpu.entries.len());
        let diffs = explain::decisions(&decided, &cpu, &surface, &view, cam);
        run_topology(&mut cpu, it, 4, &mut order);
        if masked(&cpu) == masked(&next) {
            ls.identical += 1;
            let (p, r) = measure_error(&next, &cpu);
            (ls.pos_err, ls.r_err) = (ls.pos_err.max(p), ls.r_err.max(r));
        } else {
            // Topology is exact, so a different result needs different decisions, each at
            // the threshold within the f32 measurement error.
            if diffs.is_empty() {
                assert_same_pool(
                    &masked(&next),
                    &masked(&cpu),
                    &format!("frame {f} iteration {it}, identical decisions"),
                );
            }
            for d in &diffs {
                assert!(
                    d.near,
                    "frame {f} iteration {it}: decision differs away from any threshold: {d:?}"
                );
            }
            ls.differing_decisions.extend(
                diffs
                    .iter()
                    .map(|d| format!("frame {f} it {it}: {}", d.what)),
            );
        }
    }
    let before = readback::pool_as(&out, "it4.").expect("pool");
    let end = readback::pool(&out).expect("pool");
    let mut cpu = before.clone();
    run_finish(&mut cpu, &surface, &view, &mut order);
    if masked(&cpu) != masked(&end) {
        let diffs = explain::decisions(&end.entries, &cpu, &surface, &view, cam);
        assert!(
            !diffs.is_empty() && diffs.iter().all(|d| d.near),
            "frame {f} finish: {diffs:?}"
        );
        ls.differing_decisions.extend(
            diffs
                .iter()
                .map(|d| format!("frame {f} finish: {}", d.what)),
        );
    }
}

fn entries(out: &framegraph::FrameOutput, name: &str, n: usize) -> Vec<Bisector> {
    let bytes = out.readback(name).expect("readback");
    let mut v = vec![Bisector::default(); n];
    bytemuck::cast_slice_mut::<_, u8>(&mut v).copy_from_slice(bytes);
    v
}

/// From the same cold start, a descent from orbit to 2 m and a fast turn, stepped in lockstep:
/// every iteration of the GPU equals the model's bit for bit in everything but the f32
/// measures, except where a decision sits at its threshold within the measurement error.
#[test]
fn descent_equals_the_model_iteration_by_iteration() {
    let params = CbtParams::default();
    let mut scene = Scene::new(1 << 13, params);
    let (frames, top, bottom) = (24usize, 2.0e7f64, 2.0f64);
    let mut ls = Lockstep::default();
    for f in 0..frames + 6 {
        let (agl, heading, pitch) = if f < frames {
            let t = f as f64 / (frames - 1) as f64;
            (top * (bottom / top).powf(t), 30.0, -90.0 + 85.0 * t.sqrt())
        } else {
            (bottom, 30.0 + 40.0 * (f - frames + 1) as f64, -5.0)
        };
        let cam = camera(LAT, LON, agl, heading, pitch);
        lockstep_frame(&mut scene, &cam, &params, &mut ls, f);
    }
    println!(
        "{} iterations compared, {} identical (measures within {:.1e} of distance, {:.1e} px); differing decisions (all at a threshold): {:?}",
        ls.iterations, ls.identical, ls.pos_err, ls.r_err, ls.differing_decisions
    );
    assert!(ls.iterations >= 60, "{} iterations ran", ls.iterations);
    assert!(
        ls.differing_decisions.len() * 20 <= ls.iterations,
        "{:?}",
        ls.differing_decisions
    );
    scene.destroy();
}
