//! Once quiet, the mesh is what the criterion asks for, and it stays put.

mod cbt_cpu_common;
use cbt_cpu_common::*;
use engine::cbt::{update_frame, CbtParams, Pool};

/// Altitudes above ground (m) and pitch (deg) of the static views.
const VIEWS: [(f64, f64); 6] = [
    (2.0e7, -90.0),
    (1.0e5, -60.0),
    (1.0e4, -30.0),
    (1000.0, -15.0),
    (100.0, -10.0),
    (2.0, -5.0),
];

/// From a cold pool at each altitude: quiet within 30 frames, conforming, and the f64
/// criterion finds no visible uncapped leaf above the split targets (beyond f32 rounding) and no
/// four-leaf diamond whose parents both measure under the merge targets.
#[test]
fn quiet_mesh_meets_the_criterion() {
    let s = planet();
    let p = CbtParams::default();
    for (agl, pitch) in VIEWS {
        let cam = camera(&s, LAT, LON, agl, 30.0, pitch);
        let mut pool = Pool::new(1 << 15).expect("pool");
        let (frames, st) = run_to_quiet(&mut pool, &s, &cam, &p, 30, 1);
        let r = conforming(&pool, "quiet");
        assert_eq!(st.saturated(), 0, "the pool is large enough here");
        let o = oracle(&pool, &s, &cam, &p);
        println!(
            "agl {agl:>10} m: quiet after {frames:>2} frames, {:>5} leaves ({} drawn, {} culled, {} offscreen), depth {}..{}, oracle checked {} excused {}",
            r.leaves, st.drawn, st.culled, st.offscreen, r.min_depth, r.max_depth, o.checked, o.excused
        );
        assert!(
            o.under_refined.is_empty(),
            "agl {agl}: under-refined leaves {:?}",
            &o.under_refined[..o.under_refined.len().min(5)]
        );
        assert_eq!(o.mergeable, 0, "agl {agl}: mergeable diamonds left");
    }
}

/// A static camera goes quiet within 30 frames and then the pool (every entry, bit and counter
/// that describes the mesh) stays identical for 100 further frames.
#[test]
fn static_camera_stays_identical_for_100_frames() {
    let s = planet();
    let p = CbtParams::default();
    let cam = camera(&s, LAT, LON, 50.0, 120.0, -8.0);
    let mut pool = Pool::new(1 << 15).expect("pool");
    let (frames, _) = run_to_quiet(&mut pool, &s, &cam, &p, 30, 2);
    let leaves = pool.leaf_paths();
    let entries = pool.entries.clone();
    for f in 0..100 {
        let st = update_frame(&mut pool, &s, &cam, &p, 100 + f);
        assert!(
            st.quiet && st.iterations == 1,
            "frame {f} after quiet: {st:?}"
        );
        assert!(pool.entries == entries, "frame {f}: pool changed");
    }
    assert_eq!(pool.leaf_paths(), leaves);
    println!(
        "static camera: quiet after {frames} frames, {} leaves, identical for 100 frames",
        leaves.len()
    );
}

/// Back and forth between two poses (a 200 m step sideways and up, and a 60° turn): after
/// each round trip the leaf set at the first pose is the same.
#[test]
fn back_and_forth_returns_to_the_same_leaf_set() {
    let s = planet();
    let p = CbtParams::default();
    let a = camera(&s, LAT, LON, 20.0, 30.0, -10.0);
    let b = camera(&s, LAT + 0.002, LON + 0.001, 220.0, 90.0, -20.0);
    let mut pool = Pool::new(1 << 15).expect("pool");
    run_to_quiet(&mut pool, &s, &a, &p, 40, 3);
    let cold = pool.leaf_paths();
    let mut rounds = Vec::new();
    for round in 0..3 {
        run_to_quiet(&mut pool, &s, &b, &p, 40, 10 + round);
        run_to_quiet(&mut pool, &s, &a, &p, 40, 20 + round);
        conforming(&pool, "back at A");
        rounds.push(pool.leaf_paths());
    }
    println!(
        "back and forth: {} leaves from cold, {} after each round trip, cold == round 1: {}",
        cold.len(),
        rounds[0].len(),
        cold == rounds[0]
    );
    assert_eq!(rounds[0], rounds[1]);
    assert_eq!(rounds[1], rounds[2]);
}
