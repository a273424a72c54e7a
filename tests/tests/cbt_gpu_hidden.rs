//! With occlusion culling, `cbt.decide` keeps a leaf that showed nothing in the last frame from
//! splitting (`CbtParams::hidden_leaves`): its stamp in the pool's `seen` buffer is the last
//! frame's with `HIDDEN_STAMP` (culled by `raster.compute.late`; `KeepCulled`) or, with
//! `KeepUnseen`, also `UNSEEN_STAMP` (drawn on screen, won no pixel) unless the view grazes it
//! (an outline's leaf, whose crest may rise above what hid its chord). A leaf stamped by another
//! frame, or as having won a pixel, decides as without stamps.

mod cbt_gpu_common;
use cbt_gpu_common::*;
use engine::cbt::bisector::{WISH_MERGE, WISH_SPLIT};
use engine::cbt::gpu::buffers::{HIDDEN_STAMP, UNSEEN_STAMP};
use engine::cbt::gpu::nodes;
use engine::cbt::gpu::readback::{self, Readback};
use engine::cbt::{Bisector, CbtParams};

const CAPACITY: u32 = 1 << 12;
/// The last frame's stamp.
const LAST: u32 = 41;

/// Entry `i`'s stamp: culled as hidden in the last frame, hidden in the frame before it, won a
/// pixel in the last frame, or drawn there and won none.
fn stamp(i: usize) -> u32 {
    match i % 4 {
        0 => LAST | HIDDEN_STAMP,
        1 => (LAST - 1) | HIDDEN_STAMP,
        2 => LAST,
        _ => LAST | UNSEEN_STAMP,
    }
}

/// |cos| between the chord's normal and the view to its centroid, as `cbt.decide` measures it
/// (`common/cbt_criterion.glsl` `incidence_cos`; the corners are camera-relative).
fn incidence_cos(b: &Bisector) -> f32 {
    let p = |k: usize| glam::Vec3::from_slice(&b.positions[3 * k..3 * k + 3]);
    let n = (p(1) - p(0)).cross(p(2) - p(0));
    let g = p(0) + p(1) + p(2);
    if n.length() > 0.0 && g.length() > 0.0 {
        n.normalize().dot(g.normalize()).abs()
    } else {
        1.0
    }
}

fn entries(out: &framegraph::FrameOutput, name: &str) -> Vec<Bisector> {
    let bytes = out.readback(name).expect("readback");
    let mut v = vec![Bisector::default(); CAPACITY as usize];
    bytemuck::cast_slice_mut::<_, u8>(&mut v).copy_from_slice(bytes);
    v
}

#[test]
fn a_leaf_that_showed_nothing_in_the_last_frame_does_not_split() {
    // Outlines within 3° of grazing (the default's 17.5° takes nearly every leaf wishing to
    // split in this view), so that the unseen leaves include both kinds.
    let params = CbtParams {
        silhouette_cos: 0.05,
        ..CbtParams::default()
    };
    let mut scene = Scene::new(CAPACITY, params);
    // The mesh at rest 30 km up, then the eye at 3 km: the leaves in view are ten times larger
    // on screen, and many wish to split.
    scene.run_to_quiet(&camera(LAT, LON, 30_000.0, 30.0, -25.0), 40);
    let cam = camera(LAT, LON, 3_000.0, 30.0, -25.0);
    let stamps: Vec<u32> = (0..CAPACITY as usize).map(stamp).collect();
    // From the same pool, one iteration's measures, then DECIDE without stamps, keeping the
    // culled, and keeping the unseen too (DECIDE rewrites every leaf's wish).
    let culled = LAST | HIDDEN_STAMP;
    let unseen = culled | UNSEEN_STAMP;
    let out = scene.frame_custom(&cam, Readback::Counters, None, |g, h, t, push| {
        nodes::frame_args(g, h, push);
        let p = push.at(0);
        nodes::eval(g, h, t, p);
        nodes::decide(g, h, t, p);
        g.readback("plain", h.pool);
        g.transfer("test.stamps")
            .update(&mut h.seen, 0, bytemuck::cast_slice(&stamps));
        nodes::decide(g, h, t, p.with_hidden_stamp(culled));
        g.readback("culled", h.pool);
        nodes::decide(g, h, t, p.with_hidden_stamp(unseen));
        g.readback("unseen", h.pool);
    });
    let plain = entries(&out, "plain");
    let control = readback::control(&out).expect("control");
    let mut kept_total = 0;
    let mut splits = [0u32; 4];
    let (mut outlines, mut unseen_kept) = (0, 0);
    for (name, kinds) in [
        ("culled", [true, false, false, false]),
        ("unseen", [true, false, false, true]),
    ] {
        let decided = entries(&out, name);
        for (i, (a, b)) in plain.iter().zip(&decided).enumerate() {
            if a.path == 0 {
                continue;
            }
            if name == "culled" && a.wish == WISH_SPLIT {
                splits[i % 4] += 1;
            }
            // An unseen outline leaf still splits.
            let outline = i % 4 == 3 && incidence_cos(a) < params.silhouette_cos as f32;
            if name == "unseen" && outline && a.wish == WISH_SPLIT {
                outlines += 1;
            }
            if name == "unseen" && i % 4 == 3 && !outline && a.wish == WISH_SPLIT {
                unseen_kept += 1;
            }
            if kinds[i % 4] && !outline && a.wish == WISH_SPLIT {
                kept_total += 1;
                assert!(
                    b.wish != WISH_SPLIT,
                    "{name}: entry {i} (stamp {:#x}) showed nothing in the last frame, yet it wishes to split",
                    stamps[i]
                );
            } else if !(kinds[i % 4] && !outline && b.wish == WISH_MERGE) {
                assert_eq!(
                    a.wish,
                    b.wish,
                    "{name}: entry {i} (stamp {:#x}, incidence {}): its wish changed",
                    stamps[i],
                    incidence_cos(a)
                );
            }
        }
    }
    println!(
        "split wishes by stamp (culled last frame, culled before, won a pixel, unseen): {splits:?}; unseen: {unseen_kept} kept, {outlines} outlines split"
    );
    assert!(
        splits.iter().all(|&n| n >= 20),
        "too few split wishes to test: {splits:?}"
    );
    assert!(
        unseen_kept >= 10 && outlines >= 3,
        "too few unseen leaves to test: {unseen_kept} kept, {outlines} outlines"
    );
    assert_eq!(
        control.hidden_kept, kept_total,
        "the counter of leaves kept"
    );
    scene.destroy();
}

/// A split's odd child, new in its entry, takes its parent's stamp (the even child keeps the
/// parent's entry and stamp): the children of a leaf that won a pixel are drawn in the next
/// frame's early phase, and a new leaf never carries its entry's last occupant's stamp.
#[test]
fn a_split_child_takes_its_parents_stamp() {
    let mut scene = Scene::new(CAPACITY, CbtParams::default());
    scene.run_to_quiet(&camera(LAT, LON, 30_000.0, 30.0, -25.0), 40);
    let cam = camera(LAT, LON, 3_000.0, 30.0, -25.0);
    // A stamp of its own in every entry, free ones too.
    let before: Vec<u32> = (0..CAPACITY).map(|i| 1000 + 7 * i).collect();
    let out = scene.frame_custom(&cam, Readback::Pool, None, |g, h, t, push| {
        g.transfer("test.stamps")
            .update(&mut h.seen, 0, bytemuck::cast_slice(&before));
        g.readback("before", h.pool);
        let push = engine::cbt::gpu::layout::CbtPush {
            iterations: 1,
            ..push
        };
        nodes::declare_update(g, h, t, push);
        g.readback("seen", h.seen);
    });
    let (old, new) = (entries(&out, "before"), readback::pool(&out).expect("pool"));
    let after: &[u32] = bytemuck::cast_slice(out.readback("seen").expect("seen"));
    let mut children = 0;
    for (e, b) in new.entries.iter().enumerate() {
        if b.path == 0 {
            continue;
        }
        if old[e].path != 0 {
            // Kept, or the even child of a split or the parent of a merge in the same entry.
            assert_eq!(
                after[e], before[e],
                "entry {e}: a live entry's stamp changed"
            );
            continue;
        }
        assert_eq!(b.path & 1, 1, "entry {e}: a new entry holds an odd child");
        let parent = new
            .entries
            .iter()
            .position(|s| s.path == b.path - 1)
            .expect("the even child");
        assert_eq!(
            after[e], before[parent],
            "entry {e}: the odd child's stamp is not its parent's (entry {parent})"
        );
        children += 1;
    }
    println!("{children} odd children");
    assert!(children >= 20, "too few splits to test: {children}");
    scene.destroy();
}
