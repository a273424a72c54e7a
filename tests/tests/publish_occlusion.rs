//! Occlusion stamps and culling in the compute raster, on synthetic leaves behind a wall: the
//! two-phase cull leaves the visibility buffer the same bits and culls exactly what is hidden;
//! the one stamping pass stamps what it draws; `raster.unseen` restamps hidden exactly the
//! unseen leaves whose raised prism stays behind the image. On lavapipe under validation.

mod publish_common;
use engine::camera::ViewCamera;
use engine::cbt::gpu::buffers::{HIDDEN_STAMP, UNSEEN_STAMP};
use engine::publish::{Occlusion, PublishMode, PublishOptions, RasterCounts};
use glam::DVec3;
use planetfall_tests::Gpu;
use publish_common::*;

fn stamping() -> PublishOptions {
    PublishOptions {
        occlusion: Occlusion::Stamp,
        ..culling()
    }
}

fn culling() -> PublishOptions {
    PublishOptions {
        mode: PublishMode::Compute,
        occlusion: Occlusion::Cull,
        ..Default::default()
    }
}

/// `tris` drawn with occlusion culling on, the first `wall` stamped as drawn in the last frame
/// and the rest not: the visibility buffer without stamps (every leaf drawn), with them, and
/// the raster's counts of the second.
fn drawn_and_culled(
    gpu: &mut Gpu,
    cam: &ViewCamera,
    tris: &[[DVec3; 3]],
    wall: usize,
) -> (Vec<u64>, Vec<u64>, RasterCounts) {
    let stamps: Vec<u32> = (0..tris.len())
        .map(|i| if i < wall { STAMP - 1 } else { 0 })
        .collect();
    let all = rasterise(gpu, cam, tris, culling());
    let (culled, counts, _) = rasterise_with(gpu, cam, tris, culling(), Some((&stamps, STAMP)));
    (all, culled, counts)
}

/// Occlusion culling leaves the visibility buffer the same bits and culls exactly the leaves
/// behind what the early phase drew. A wall of small triangles 10 m ahead, stamped as drawn in
/// the last frame, covers the screen; behind it, 20–30 m ahead, 200 small unstamped triangles
/// (hidden: culled, every one); in front of it, 5 m ahead, 12 unstamped ones (nearer than the
/// wall: drawn). A second frame whose stamps name nothing culls nothing.
#[test]
fn occlusion_culling_is_exact() {
    let mut gpu = Gpu::new();
    let cam = camera();
    let p = |x, y, z| at(&cam, x, y, z);
    let mut tris = wall(&cam, |_, _| true);
    let wall = tris.len();
    // Hidden: within the wall's middle (their 8 px tiles all covered by it), 20–30 m ahead.
    for k in 0..200 {
        let (x, y) = (
            ((k * 37) % 40) as f64 / 40.0 * 16.0 - 8.0,
            ((k * 53) % 30) as f64 / 30.0 * 10.0 - 5.0,
        );
        let z = 20.0 + (k % 11) as f64;
        tris.push([p(x, y, z), p(x + 0.8, y, z), p(x, y + 0.8, z)]);
    }
    let hidden = tris.len() - wall;
    // In front: nearer than the wall.
    for k in 0..12 {
        let (x, y) = ((k % 4) as f64 - 1.5, (k / 4) as f64 - 1.0);
        tris.push([p(x, y, 5.0), p(x + 0.2, y, 5.0), p(x, y + 0.2, 5.0)]);
    }
    let (all, culled, counts) = drawn_and_culled(&mut gpu, &cam, &tris, wall);
    let differ = (0..all.len()).filter(|&i| all[i] != culled[i]).count();
    assert_eq!(differ, 0, "occlusion culling changed {differ} px");
    assert_eq!(counts.early as usize, wall);
    assert_eq!(
        counts.occluded as usize, hidden,
        "every hidden triangle culled, none other"
    );
    // The front triangles are drawn: some pixel holds each of them.
    for leaf in tris.len() - 12..tris.len() {
        assert!(
            culled.iter().any(|&k| (k & 0xffff_ffff) as usize == leaf),
            "front leaf {leaf}"
        );
    }
    // Nothing stamped as drawn in the last frame: nothing to test against, nothing culled.
    let none = vec![0u32; tris.len()];
    let (first, counts, _) = rasterise_with(&mut gpu, &cam, &tris, culling(), Some((&none, STAMP)));
    assert_eq!((counts.early, counts.occluded), (0, 0));
    assert_eq!(first, all);
    gpu.assert_clean();
}

/// Thin leaves hidden behind a wall whose edge is a diagonal: the first one's pixel box reaches
/// tiles of sky beyond the edge that the triangle itself cannot cover, so only a test of the
/// tiles it may cover culls it; the second crosses tiles that hold sky, but not in the quarters
/// it crosses. The image is the same bits.
#[test]
fn a_thin_hidden_leaf_is_culled_though_its_box_reaches_sky() {
    let mut gpu = Gpu::new();
    let cam = camera();
    // The wall's cells below the diagonal x + y = 0 (every point with x + y < 0 within its
    // extent), sky above it.
    let mut tris = wall(&cam, |i, j| i + j < 0);
    let wall = tris.len();
    // At 20 m, behind the wall: a sliver along the diagonal, 2 px inside it, whose 15 × 15 px
    // box (one thread's, under the 256 px hand-over) spans 3 × 3 tiles; the box's corner tile
    // beyond the diagonal holds sky, while every tile the sliver may cover holds wall only
    // (pixel centres with sx − sy < 16 at 96 × 64 and 5.54 px a metre at 10 m). Given in
    // pixels, placed at 20 m.
    let px = |sx, sy| screen_at(&cam, sx, sy, 20.0);
    tris.push([px(20.0, 22.0), px(33.0, 35.0), px(31.5, 35.5)]);
    // Nearer the edge, along sx − sy = 12: it crosses 8 px tiles that reach past the diagonal
    // (sx − sy from 9 to 23), but only 4 px quarters of wall (9 to 15): the quarters cull it.
    tris.push([px(20.0, 8.0), px(33.0, 21.0), px(32.0, 20.5)]);
    let (all, culled, counts) = drawn_and_culled(&mut gpu, &cam, &tris, wall);
    assert_eq!(counts.early as usize, wall);
    assert_eq!(counts.occluded, 2, "both slivers culled");
    let differ = (0..all.len()).filter(|&i| all[i] != culled[i]).count();
    assert_eq!(differ, 0, "occlusion culling changed {differ} px");
    gpu.assert_clean();
}

/// The one stamping pass (`Occlusion::Stamp`) draws the same bits as the plain raster, culls
/// nothing, and stamps exactly the leaves it drew on screen as unseen this frame: the wall, the
/// triangles behind it (drawn, winning nothing) and one crossing the near plane (handed over),
/// while a triangle beside the view keeps its old stamp.
#[test]
fn the_stamping_pass_stamps_what_it_draws_and_changes_no_pixel() {
    let mut gpu = Gpu::new();
    let cam = camera();
    let p = |x, y, z| at(&cam, x, y, z);
    let mut tris = wall(&cam, |_, _| true);
    for k in 0..20 {
        let (x, y) = ((k % 5) as f64 * 2.0 - 4.0, (k / 5) as f64 * 2.0 - 3.0);
        tris.push([p(x, y, 25.0), p(x + 0.8, y, 25.0), p(x, y + 0.8, 25.0)]);
    }
    let on_screen = tris.len();
    // Crossing the near plane, in view: handed over, and drawn on screen all the same.
    tris.push([p(-0.5, -0.3, -1.0), p(0.5, -0.3, 3.0), p(0.0, 0.4, 3.0)]);
    let crosser = on_screen;
    // Far beside the view (the CBT's draw list holds no leaf wholly behind the camera).
    tris.push([
        p(300.0, 0.0, 10.0),
        p(301.0, 0.0, 10.0),
        p(300.0, 1.0, 10.0),
    ]);
    const OLD: u32 = 3;
    let old = vec![OLD; tris.len()];
    let stamping = stamping();
    let plain = PublishOptions {
        occlusion: Occlusion::Off,
        ..stamping
    };
    let all = rasterise(&mut gpu, &cam, &tris, plain);
    let (drawn, counts, seen) =
        rasterise_with(&mut gpu, &cam, &tris, stamping, Some((&old, STAMP)));
    let differ = (0..all.len()).filter(|&i| all[i] != drawn[i]).count();
    assert_eq!(differ, 0, "the stamping pass changed {differ} px");
    assert_eq!((counts.early, counts.occluded), (0, 0), "nothing culled");
    assert_eq!(seen.len(), tris.len());
    let unseen = STAMP | engine::cbt::gpu::buffers::UNSEEN_STAMP;
    for (leaf, &s) in seen.iter().enumerate() {
        let want = if leaf <= crosser { unseen } else { OLD };
        assert_eq!(s, want, "leaf {leaf} of {}", tris.len());
    }
    // The hidden triangles did draw: they are stamped, yet hold no pixel.
    for leaf in on_screen - 20..on_screen {
        assert!(
            !drawn.iter().any(|&k| (k & 0xffff_ffff) as usize == leaf),
            "hidden leaf {leaf} won a pixel"
        );
    }
    gpu.assert_clean();
}

/// `raster.unseen` restamps as hidden an unseen leaf whose prism — its chord raised and lowered
/// by `unseen_raise` times its residual, at least a pixel — lies behind the image in every cell
/// its footprint may cover, and leaves the others unseen. Behind a wall 10 m ahead whose top
/// edge is at row 7.1 px, at 25 m: a flat leaf mid-wall (hidden); the same leaf with a 10 px
/// residual, whose prism reaches the sky above the wall (unseen); and two leaves 4 px below the
/// wall's edge, one flat (raised a pixel: hidden) and one with a 1 px residual (raised 4 px,
/// into the sky's tile and quarter: unseen); two larger leaves, read over 16 px cells, one
/// within the wall (hidden) and one reaching the sky (unseen). The wall's leaves, which win
/// the pixels, are not behind themselves; a leaf beside the view keeps its old stamp. With no
/// raise, the 1 px leaf is hidden too.
#[test]
fn the_unseen_pass_finds_hidden_only_what_its_prism_keeps_hidden() {
    let mut gpu = Gpu::new();
    let cam = camera();
    let p = |x, y, z| at(&cam, x, y, z);
    let mut tris = wall(&cam, |_, _| true);
    let wall = tris.len();
    let px = |sx, sy| screen_at(&cam, sx, sy, 25.0);
    let mid = [px(44.0, 30.0), px(52.0, 30.0), px(48.0, 34.0)];
    let high = [px(44.0, 11.0), px(52.0, 11.0), px(48.0, 14.0)];
    // Two leaves whose boxes (36 px a side) are read at raster.hiz's 16 px level: one within
    // the wall, one reaching the sky above it.
    let big_in = [px(25.0, 15.0), px(60.0, 15.0), px(40.0, 50.0)];
    let big_out = [px(25.0, 2.0), px(60.0, 2.0), px(40.0, 40.0)];
    tris.extend([mid, mid, high, high, big_in, big_out]);
    let mut residual = vec![0.0f32; tris.len()];
    residual[wall + 1] = 10.0;
    residual[wall + 3] = 1.0;
    tris.push([
        p(300.0, 0.0, 10.0),
        p(301.0, 0.0, 10.0),
        p(300.0, 1.0, 10.0),
    ]);
    residual.push(0.0);
    const OLD: u32 = 3;
    let old = vec![OLD; tris.len()];
    let stamping = stamping();
    let run = |gpu: &mut Gpu, opts| {
        rasterise_leaves(gpu, &cam, &tris, &residual, opts, Some((&old, STAMP)), true)
    };
    let (hidden, unseen) = (STAMP | HIDDEN_STAMP, STAMP | UNSEEN_STAMP);
    let (vis, counts, seen) = run(&mut gpu, stamping);
    assert_eq!(vis, rasterise(&mut gpu, &cam, &tris, stamping), "the image");
    assert!(seen[..wall].iter().all(|&s| s == unseen), "the wall");
    assert_eq!(
        seen[wall..],
        [hidden, unseen, hidden, unseen, hidden, unseen, OLD]
    );
    assert_eq!(counts.occluded, 3);
    let flat = PublishOptions {
        unseen_raise: 0.0,
        ..stamping
    };
    let (_, counts, seen) = run(&mut gpu, flat);
    assert_eq!(
        seen[wall..],
        [hidden, hidden, hidden, hidden, hidden, unseen, OLD]
    );
    assert_eq!(counts.occluded, 5);
    gpu.assert_clean();
}

/// A flat sliver 5–7 px inside a wall's diagonal edge, at 20 m (pixel centres with
/// sx − sy < 16 are wall; the sliver lies along sx − sy = 6…8): its 15 × 15 px box reaches
/// the sky beyond the edge (up to sx − sy = 21), but its prism's footprint (raised and lowered
/// a pixel) and the 4 px quarters it may cover do not, so `raster.unseen` finds it hidden.
#[test]
fn the_unseen_pass_tests_the_tiles_a_sliver_may_cover() {
    let mut gpu = Gpu::new();
    let cam = camera();
    let mut tris = wall(&cam, |i, j| i + j < 0);
    let wall = tris.len();
    let px = |sx, sy| screen_at(&cam, sx, sy, 20.0);
    tris.push([px(20.0, 12.0), px(33.0, 25.0), px(31.5, 25.5)]);
    let old = vec![3u32; tris.len()];
    let stamping = stamping();
    let (_, counts, seen) = rasterise_leaves(
        &mut gpu,
        &cam,
        &tris,
        &[],
        stamping,
        Some((&old, STAMP)),
        true,
    );
    assert_eq!(seen[wall], STAMP | HIDDEN_STAMP);
    assert_eq!(counts.occluded, 1);
    gpu.assert_clean();
}
