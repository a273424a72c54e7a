//! Detail the mesh does not resolve hides what lies behind it: over an analytic plain strewn
//! with boulders (1.5 m tall, 2 m across, on a 9 m lattice), seen from 2 m up at a grazing
//! pitch, the leaves tens of metres out are wider than a boulder and their edge midpoints
//! miss most of them, so a ray passes over the near chords and meets a chord behind a boulder.
//! `publish.resolve` must still publish the boulder (its march back along the ray) where it
//! stands within the surface search's reach (10 % of the distance); the CPU reference
//! (`engine::reference`, which casts every ray against the surface) says where. Boulders
//! farther in front of the chord's hit stay unseen: 377 px of this view against 137 within reach.
//! On lavapipe under validation.

use engine::camera::ViewCamera;
use engine::planet::Body;
use engine::publish::PublishOptions;
use engine::renderer::{PlanetRenderer, RendererOptions};
use engine::source::{AnalyticSource, TileSource};
use glam::DVec3;
use planetfall_tests::{
    aov_with, chords_in_every_slot, planet_frame, records_differ, Gpu, PlanetFrame,
};
use std::sync::Arc;

const R: f64 = 6_371_000.0;

const W: u32 = 160;
const H: u32 = 96;
const CELL_M: f64 = 9.0;

/// Boulders on a lattice of the plane tangent at (0°, 0°) (x east, y north, metres): in each
/// cell a dome 1.5 m tall and 1 m in radius, its centre hashed within the cell.
fn height(d: DVec3) -> f64 {
    let (x, y) = (d.y * R, d.z * R);
    let (ci, cj) = ((x / CELL_M).floor(), (y / CELL_M).floor());
    let mut top = 0.0f64;
    for dj in -1..=1 {
        for di in -1..=1 {
            let (i, j) = (ci + di as f64, cj + dj as f64);
            let h = ((i * 127.1 + j * 311.7).sin() * 43_758.545).fract().abs();
            let g = ((i * 269.5 + j * 183.3).sin() * 43_758.545).fract().abs();
            let (bx, by) = ((i + 0.2 + 0.6 * h) * CELL_M, (j + 0.2 + 0.6 * g) * CELL_M);
            let q = ((x - bx).powi(2) + (y - by).powi(2)) / 1.0;
            if q < 1.0 {
                top = top.max(1.5 * (1.0 - q).powi(2));
            }
        }
    }
    top
}

/// The published distance beside the CPU reference's first crossing, per terrain pixel the
/// reference also sees, of a planet of `height` (finest level 17, relief bound `relief`) drawn
/// from `cam` once the mesh has settled, with `opts` adjusted by `set`.
fn published_and_reference(
    relief: f64,
    height: fn(DVec3) -> f64,
    cam: &ViewCamera,
    set: impl FnOnce(&mut RendererOptions),
) -> Vec<(f64, f64)> {
    let mut gpu = Gpu::new();
    let (r, f, relief) = settled(&mut gpu, relief, height, cam, set);
    let lod = r.lod_params(cam);
    let reference = engine::reference::render(r.residency(), &lod, r.body, cam, relief);
    let pairs = f.terrain_against(&reference);
    r.destroy(&gpu.ctx);
    gpu.assert_clean();
    pairs
}

/// A renderer of a planet of `height` (finest level 17, relief bound `relief`) with `opts`
/// adjusted by `set`, once its mesh has settled for `cam`: the renderer, its last frame and the
/// source's relief bound.
fn settled(
    gpu: &mut Gpu,
    relief: f64,
    height: fn(DVec3) -> f64,
    cam: &ViewCamera,
    set: impl FnOnce(&mut RendererOptions),
) -> (PlanetRenderer, PlanetFrame, f64) {
    let body = Body { radius: R };
    let src = Arc::new(AnalyticSource::new(body, 17, relief, height));
    let mut opts = RendererOptions::for_device(&gpu.ctx);
    opts.slots = 512;
    opts.pool_capacity = 1 << 17;
    set(&mut opts);
    let relief = src.max_relief();
    let mut r = PlanetRenderer::new(&gpu.ctx, src, opts, gpu.exec.frames_in_flight()).unwrap();
    let mut f = planet_frame(gpu, &mut r, cam);
    for _ in 0..60 {
        if r.settled() {
            break;
        }
        f = planet_frame(gpu, &mut r, cam);
    }
    assert!(r.settled(), "{:?}", r.stats);
    (r, f, relief)
}

/// Pixels whose published distance is beyond the reference's by more than 0.5 % (the pixel
/// shows ground behind a boulder) but within the resolve's reach (10 %), all such pixels,
/// and the terrain pixels compared.
fn seen_past(march: u32) -> (usize, usize, usize) {
    // 2 m over the plain east of (0°, 0°), looking east 1.5° down: the ground from 76 m out to
    // the horizon, boulders standing above the rays from about 40 m on.
    let lon = (-300.0 / R).to_degrees();
    let cam = ViewCamera::geo(0.0, lon, R + 2.0, 90.0, -1.5, 60.0, W, H);
    let pairs = published_and_reference(2.0, height, &cam, |o| o.publish.march_samples = march);
    let past = pairs.iter().filter(|(t, c)| *t > c * 1.005);
    let reach = past.clone().filter(|(t, c)| *t < c / 0.9).count();
    (reach, past.count(), pairs.len())
}

#[test]
fn a_ray_over_the_chords_still_meets_the_boulder_in_front() {
    let (without, all_without, n0) = seen_past(0);
    let (with, all_with, n) = seen_past(engine::publish::RESOLVE_MARCH_SAMPLES);
    println!(
        "pixels seeing past a boulder within the search's reach: {without} of {n0} without the \
         march, {with} of {n} with {} samples (beyond the reach as well: {all_without}, {all_with})",
        engine::publish::RESOLVE_MARCH_SAMPLES
    );
    assert!(
        n > (W * H / 3) as usize,
        "the view is mostly ground: {n} px"
    );
    // The scene must show the fault the march mends, or this test proves nothing.
    assert!(
        without * 100 > n,
        "boulders hidden from the chords: {without} of {n0} px"
    );
    // Measured 137 → 57 px (an exhaustive march, 512 samples over the whole reach under every
    // leaf, leaves 48: rays already inside another boulder where the reach begins).
    assert!(
        with * 2 < without,
        "the march finds the boulders: {with} vs {without} px"
    );
}

/// Ridges with sharp crests across the view (0.3 m tall, every 3 m, the crest line wavering
/// north–south; stored heights are quantised to 0.3125 m, so the tiles make them steps with
/// sharp edges), seen from 1.2 m up: every crest is an outline over the trough behind it, and
/// the chords across a crest sag under it at the mesh's depth cap. A narrow field (12°) gives
/// this small image the pixel angle of a 1080p one (2.2 mrad), so a sag of centimetres at
/// 10 m is pixels.
fn ridge(d: DVec3) -> f64 {
    let (x, y) = (d.y * R, d.z * R);
    let u = (x + 0.5 * (y / 5.0).sin()) / 3.0;
    0.3 * (1.0 - (2.0 * (u - u.floor()) - 1.0).abs())
}

/// Of the terrain pixels nearer than 40 m (farther, at this pixel angle, the steps are under a
/// pixel tall): those whose published distance is past the reference's by more than 0.5 % (a
/// crest drawn lower than it stands), past it beyond the surface search's reach (10 %), before
/// it by more than 0.5 % (a crossing the surface lacks), and all of them. `rescue`: the root
/// search's steps once bracketed past its sixth (`PublishOptions::rescue_steps`; 0: none).
fn crests_missed(outline: u32, bisect: bool, rescue: u32) -> (usize, usize, usize, usize) {
    crests_missed_with(|o| {
        o.publish.outline_samples = outline;
        o.publish.root_bisect = bisect;
        o.publish.rescue_steps = rescue;
    })
}

/// 1.2 m over the ridge field, looking east 3° down through a 12° field.
fn ridge_camera() -> ViewCamera {
    let lon = (-300.0 / R).to_degrees();
    ViewCamera::geo(0.0, lon, R + 1.2, 90.0, -3.0, 12.0, W, H)
}

/// Legs no shorter than a texel of the finest level (a quarter by default): the chords cannot
/// follow the crests, as at walking height over the Earth, where the fine-detail gain holds the
/// cap at L14's while the surface carries L15–L18 detail.
fn coarse_chords(o: &mut RendererOptions) {
    o.cbt.depth_cap_texel_fraction = 1.0;
}

fn crests_missed_with(set: impl FnOnce(&mut RendererOptions)) -> (usize, usize, usize, usize) {
    let pairs = published_and_reference(0.5, ridge, &ridge_camera(), |o| {
        coarse_chords(o);
        set(o);
    });
    let near: Vec<_> = pairs.into_iter().filter(|(_, c)| *c <= 40.0).collect();
    let count = |f: &dyn Fn(f64, f64) -> bool| near.iter().filter(|(t, c)| f(*t, *c)).count();
    (
        count(&|t, c| t > c * 1.005),
        count(&|t, c| t > c / 0.9),
        count(&|t, c| t < c * 0.995),
        near.len(),
    )
}

#[test]
fn a_ray_over_a_sagging_crest_meets_the_crest() {
    let outline = engine::publish::RESOLVE_OUTLINE_SAMPLES;
    let rescue = engine::publish::RESOLVE_RESCUE_STEPS;
    let settings = [
        (0, false, 0),
        (0, true, 0),
        (outline, true, 0),
        (0, false, rescue),
    ];
    let runs = settings.map(|(o, b, r)| crests_missed(o, b, r));
    for ((o, b, r), (past, beyond, before, n)) in settings.iter().zip(&runs) {
        println!(
            "outline search {o}, bisection {b}, rescue {r}: crests drawn lower {past} px of {n} \
             ({beyond} beyond the search's reach), {before} before the surface"
        );
    }
    let [(past0, _, before0, n0), (past1, beyond1, _, _), (past, beyond, before, n), (past_r, _, before_r, _)] =
        runs;
    assert!(
        n > (W * H / 3) as usize,
        "the view is mostly near ground: {n} px"
    );
    // The scene must show the fault, or this test proves nothing: 1,083 of 9,848 px.
    assert!(
        past0 * 100 > n0,
        "the chords sag under the crests: {past0} of {n0} px"
    );
    // The root search beside the chord reaches the roots at the steps' edges where it bisects:
    // 340 px.
    assert!(
        past1 * 3 < past0,
        "roots at the edges: {past1} vs {past0} px drawn past them"
    );
    // The outline search meets the crests the chords pass under: 101 px, none beyond the
    // search's reach (155 without it).
    assert!(
        past * 3 < past1,
        "the outline search meets the crests: {past} vs {past1} px"
    );
    assert!(
        beyond * 20 < beyond1,
        "crests beyond the reach: {beyond} vs {beyond1} px"
    );
    assert!(
        before <= before0 + n / 1000,
        "no crossing the surface lacks: {before} vs {before0}"
    );
    // The rescue carries on the searches bracketed at the steps' edges after their six steps:
    // 410 px.
    assert!(
        past_r * 2 < past0,
        "roots at the edges, rescued: {past_r} vs {past0} px drawn past them"
    );
    assert!(
        before_r <= before0 + n / 1000,
        "no crossing the surface lacks, rescued: {before_r} vs {before0}"
    );
}

/// Outlines in the skyline pass (`PublishOptions::skyline_outline_m`): a pixel behind a nearer
/// neighbour's chord has its ray searched near that chord by `publish.resolve.skyline`, and
/// where the ray dips under a crest there, the crest replaces the ground behind. Over the
/// ridge field, by default (the rescue on): fewer crests drawn lower than they stand, far
/// fewer beyond the root search's reach, and no crossing the surface lacks.
#[test]
fn an_outline_is_searched_for_the_crest_in_front() {
    let (past0, beyond0, before0, n0) = crests_missed_with(|_| {});
    let (past, beyond, before, n) = crests_missed_with(|o| o.publish.skyline_outline_m = 50.0);
    println!(
        "outlines searched: crests drawn lower {past0} → {past} px ({beyond0} → {beyond} beyond \
         the reach), before the surface {before0} → {before}, of {n0} px"
    );
    assert_eq!(n, n0, "the same near pixels");
    // The scene must show the fault: crests beyond the root search's reach.
    assert!(
        beyond0 * 100 > n0,
        "crests beyond the reach: {beyond0} of {n0} px"
    );
    assert!(
        beyond * 2 < beyond0,
        "the outlines' crests are met: {beyond} vs {beyond0} px beyond the reach"
    );
    assert!(
        past < past0,
        "fewer crests drawn lower: {past} vs {past0} px"
    );
    assert!(
        before <= before0 + n / 1000,
        "no crossing the surface lacks: {before} vs {before0}"
    );
}

/// The conservative shell (`PublishOptions::shell_k`): each leaf whose chord may lie a pixel
/// under the surface is also drawn as a prism raised K times its residual, and a ray that
/// enters a prism searches for its first crossing from the prism's face. Over the ridge field
/// it must meet the crests the chords sag under, with no search beside the chord (no outline
/// search, no bisection), and add no crossing the surface lacks.
#[test]
fn a_ray_into_the_shell_meets_the_crest() {
    let (past0, beyond0, before0, n0) = crests_missed(0, false, 0);
    let (past, beyond, before, n) = crests_missed_with(|o| {
        o.publish.shell_k = 2.0;
        o.publish.rescue_steps = 0;
    });
    println!(
        "shell 2: crests drawn lower {past} px of {n} ({beyond} beyond the search's reach), \
         {before} before the surface; without: {past0} of {n0} ({beyond0}), {before0}"
    );
    assert!(
        past0 * 100 > n0,
        "the chords sag under the crests: {past0} of {n0} px"
    );
    assert!(
        past * 3 < past0,
        "the shell meets the crests: {past} vs {past0} px"
    );
    assert!(
        before <= before0 + n / 1000,
        "no crossing the surface lacks: {before} vs {before0}"
    );
}

/// With no other search on, `publish.resolve` hands the rays that enter a prism in front of
/// their chord to `publish.resolve.shell`, which resolves them as `publish.resolve.search`
/// resolves them with the shell inline: the hit records are the same bits. Before the compared
/// frame every frame slot publishes uncorrected (chord points), so a handed-over pixel the shell
/// pass failed to publish would keep such a record and differ.
#[test]
fn the_shell_handed_over_publishes_the_same_hits() {
    let mut gpu = Gpu::new();
    let cam = ridge_camera();
    let (mut r, _, _) = settled(&mut gpu, 0.5, ridge, &cam, |o| {
        coarse_chords(o);
        o.publish.shell_k = 2.0;
    });
    let base = r.publish_options();
    assert!(base.shell_handed_over());
    let publish =
        |gpu: &mut Gpu, r: &mut PlanetRenderer, opts: PublishOptions| aov_with(gpu, r, &cam, opts);
    let differ = records_differ;
    let inline = PublishOptions {
        shell_inline: true,
        ..base
    };
    publish(&mut gpu, &mut r, inline);
    let want = publish(&mut gpu, &mut r, inline);
    let without = publish(
        &mut gpu,
        &mut r,
        PublishOptions {
            shell_k: 0.0,
            ..base
        },
    );
    // The shell must change this view, or the comparison proves nothing.
    let shell_px = differ(&want, &without);
    let terrain = want.iter().filter(|p| p.is_terrain()).count();
    println!("ridge field, shell 2: {shell_px} of {terrain} terrain px differ from no shell");
    assert!(shell_px * 50 > terrain, "the shell changes {shell_px} px");
    chords_in_every_slot(&mut gpu, &mut r, &cam, base, &want, shell_px);
    let got = publish(&mut gpu, &mut r, base);
    let n = differ(&want, &got);
    assert_eq!(
        n, 0,
        "shell handed over: {n} px differ from the shell inline"
    );
    r.destroy(&gpu.ctx);
    gpu.assert_clean();
}

/// A ridge 30 m tall running north–south 400 m east of the camera below, its crest line
/// wavering by 20 m: seen level from 2 m up, its crest is the skyline.
fn hill(d: DVec3) -> f64 {
    let (x, y) = (d.y * R, d.z * R);
    let u = (x - 100.0 + 20.0 * (y / 40.0).sin()) / 60.0;
    30.0 * (-u * u).exp()
}

/// Over the ridge with the skyline in view: pixels the renderer draws as sky where the
/// reference sees ground (see-through), the reverse (covers-sky), and the reference's terrain
/// pixels, with `opts` adjusted by `set`.
fn sky_mismatch(set: impl FnOnce(&mut RendererOptions)) -> (usize, usize, usize) {
    let mut gpu = Gpu::new();
    // 2 m up, level, a 12° field (about 1080p's pixel angle at 60°).
    let lon = (-300.0 / R).to_degrees();
    let cam = ViewCamera::geo(0.0, lon, R + 2.0, 90.0, 0.0, 12.0, W, H);
    let (r, f, relief) = settled(&mut gpu, 30.0, hill, &cam, set);
    let lod = r.lod_params(&cam);
    let reference = engine::reference::render(r.residency(), &lod, r.body, &cam, relief);
    let see = f
        .aov
        .iter()
        .zip(&reference)
        .filter(|(a, c)| !a.is_terrain() && c.is_some())
        .count();
    let covers = f
        .aov
        .iter()
        .zip(&reference)
        .filter(|(a, c)| a.is_terrain() && c.is_none())
        .count();
    let n = reference.iter().filter(|c| c.is_some()).count();
    r.destroy(&gpu.ctx);
    gpu.assert_clean();
    (see, covers, n)
}

/// A ridge's crest stands over its chord by up to the leaf's residual, so rays just over the
/// chords along the skyline show sky where the surface rises into them. The sky pixels next
/// to terrain have their rays searched near their neighbours' chords
/// (`PublishOptions::skyline`, `publish.resolve.skyline`) and draw the crest: fewer
/// see-through pixels, and none drawn where the reference sees sky.
#[test]
fn the_skyline_is_drawn_to_the_crests() {
    let (see0, covers0, n) = sky_mismatch(|o| o.publish.skyline = false);
    let (see, covers, _) = sky_mismatch(|_| {});
    println!(
        "ridge skyline: see-through {see0} → {see} px, covers-sky {covers0} → {covers} px, of \
         {n} reference terrain px"
    );
    assert!(n > (W * H / 4) as usize, "the view shows ground: {n} px");
    // The fault must show, or the test proves nothing.
    assert!(
        see0 >= 10,
        "rays over the crests' chords show sky: {see0} px"
    );
    assert!(
        see * 2 < see0,
        "the skyline search draws the crests: {see} vs {see0} px"
    );
    assert!(
        covers <= covers0 + n / 1000,
        "no ground where the reference sees sky: {covers} vs {covers0}"
    );
}

/// The walk up a crest (`PublishOptions::skyline_walk`): with chords four texels long at
/// the least, the ridge field's crests stand rows over their chords, and the outlines' search
/// meets only the row beside the nearer chord. Walked up from there, row by row, more of each
/// crest is drawn where it stands.
#[test]
fn a_crest_over_its_chord_is_walked_up_row_by_row() {
    let run = |walk: bool| {
        crests_missed_with(|o| {
            o.publish.skyline_outline_m = 50.0;
            o.publish.skyline_walk = walk;
            o.cbt.depth_cap_texel_fraction = 4.0;
        })
    };
    let (lower0, _, before0, n0) = run(false);
    let (lower, _, before, n) = run(true);
    println!(
        "crests walked up: drawn lower {lower0} → {lower} px, before the surface {before0} → \
         {before}, of {n0} px"
    );
    assert_eq!(n, n0, "the same near pixels");
    assert!(
        lower0 * 100 > n0,
        "the crests show the fault: {lower0} of {n0} px"
    );
    assert!(
        lower * 4 < lower0 * 3,
        "the walk draws the crests: {lower} vs {lower0} px"
    );
    assert!(
        before <= before0,
        "no crossing the surface lacks: {before} vs {before0}"
    );
}
