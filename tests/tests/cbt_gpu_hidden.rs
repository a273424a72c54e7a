//! With occlusion culling, `cbt.decide` keeps a leaf that `raster.compute.late` culled as hidden
//! in the last frame from splitting (`CbtParams::refine_hidden` false): its stamp in the pool's
//! `seen` buffer is the last frame's with `HIDDEN_STAMP`. A leaf stamped by another frame, or
//! stamped as having won a pixel, decides as without stamps.

mod cbt_gpu_common;
use cbt_gpu_common::*;
use engine::cbt::bisector::{WISH_MERGE, WISH_SPLIT};
use engine::cbt::gpu::buffers::HIDDEN_STAMP;
use engine::cbt::gpu::nodes;
use engine::cbt::gpu::readback::{self, Readback};
use engine::cbt::{Bisector, CbtParams};

const CAPACITY: u32 = 1 << 12;
/// The last frame's stamp.
const LAST: u32 = 41;

/// What entry `i`'s stamp says: hidden in the last frame, hidden in the frame before it, or
/// won a pixel in the last frame (only the first keeps a leaf from splitting).
fn stamp(i: usize) -> u32 {
    match i % 3 {
        0 => LAST | HIDDEN_STAMP,
        1 => (LAST - 1) | HIDDEN_STAMP,
        _ => LAST,
    }
}

fn entries(out: &framegraph::FrameOutput, name: &str) -> Vec<Bisector> {
    let bytes = out.readback(name).expect("readback");
    let mut v = vec![Bisector::default(); CAPACITY as usize];
    bytemuck::cast_slice_mut::<_, u8>(&mut v).copy_from_slice(bytes);
    v
}

#[test]
fn a_leaf_hidden_in_the_last_frame_does_not_split() {
    let mut scene = Scene::new(CAPACITY, CbtParams::default());
    // The mesh at rest 30 km up, then the eye at 3 km: the leaves in view are ten times larger
    // on screen, and many wish to split.
    scene.run_to_quiet(&camera(LAT, LON, 30_000.0, 30.0, -25.0), 40);
    let cam = camera(LAT, LON, 3_000.0, 30.0, -25.0);
    let stamps: Vec<u32> = (0..CAPACITY as usize).map(stamp).collect();
    // From the same pool, one iteration's measures, then DECIDE without stamps and again with
    // the last frame's (DECIDE rewrites every leaf's wish).
    let out = scene.frame_custom(&cam, Readback::Counters, None, |g, h, t, push| {
        nodes::frame_args(g, h, push);
        let p = push.at(0);
        nodes::eval(g, h, t, p);
        nodes::decide(g, h, t, p);
        g.readback("plain", h.pool);
        g.transfer("test.stamps")
            .update(&mut h.seen, 0, bytemuck::cast_slice(&stamps));
        nodes::decide(g, h, t, p.with_hidden_stamp(LAST | HIDDEN_STAMP));
        g.readback("stamped", h.pool);
    });
    let (plain, stamped) = (entries(&out, "plain"), entries(&out, "stamped"));
    let control = readback::control(&out).expect("control");
    let (mut kept, mut splits) = (0u32, [0u32; 3]);
    for (i, (a, b)) in plain.iter().zip(&stamped).enumerate() {
        if a.path == 0 {
            continue;
        }
        if a.wish == WISH_SPLIT {
            splits[i % 3] += 1;
        }
        if i % 3 == 0 && a.wish == WISH_SPLIT {
            kept += 1;
            assert!(
                b.wish != WISH_SPLIT,
                "entry {i}: hidden in the last frame, yet it wishes to split"
            );
        } else if !(i % 3 == 0 && b.wish == WISH_MERGE) {
            assert_eq!(
                a.wish, b.wish,
                "entry {i} (stamp {:#x}): its wish changed",
                stamps[i]
            );
        }
    }
    println!("split wishes by stamp (hidden last frame, hidden before, won a pixel): {splits:?}; kept {kept}");
    assert!(
        splits.iter().all(|&n| n >= 20),
        "too few split wishes to test: {splits:?}"
    );
    assert_eq!(control.hidden_kept, kept, "the counter of leaves kept");
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
