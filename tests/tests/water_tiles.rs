//! Water where the shoreline survey puts it, in the tiles and on screen (`docs/earth.md`,
//! "Water"): the ground query and small renders on lavapipe under validation over the
//! Qattara Depression (land 45 m below the datum), Amsterdam, the Caspian (a lake at −28 m),
//! the Dead Sea and the open ocean. Expectations are published levels and the mask's own
//! classes, not the program's output.

use engine::camera::ViewCamera;
use engine::earth::water::{mask_path, Water, WaterMap};
use engine::ground::{height_at, GroundSample};
use engine::planet::latlon_to_dir;
use engine::reference::pixel_ray;
use engine::renderer::{local_sun, PlanetRenderer};
use engine::store::data_dir;
use planetfall_tests::{
    earth_source_with_water, planet_frame, test_renderer_options, write_png, Gpu,
};

const R: f64 = 6_371_000.0;

fn ground(lat: f64, lon: f64, level: u8) -> GroundSample {
    height_at(
        &earth_source_with_water().oracle,
        latlon_to_dir(lat, lon),
        level,
    )
}

/// The ground query at a stored level (L9) and an amplified one (L12): land below the datum
/// is land with its negative height, lakes report their level, the ocean its floor under a
/// surface at the datum.
#[test]
fn ground_query_follows_the_mask() {
    let src = earth_source_with_water();
    let s = src.oracle.cache().source();
    let WaterMap::Mask(m) = &s.water else {
        panic!("no water mask")
    };
    for level in [9, 12] {
        for (name, lat, lon) in [("Qattara", 29.5, 27.0), ("Amsterdam", 52.45, 4.95)] {
            assert_eq!(m.water_at(lat, lon), Water::Land, "{name} in the mask");
            let g = ground(lat, lon, level);
            println!("L{level} {name}: {g:?}");
            assert!(
                !g.water && g.water_level_m.is_none(),
                "L{level} {name}: {g:?}"
            );
        }
        // Qattara's floor is below the datum (ETOPO5: −45 m there) and stays so.
        let q = ground(29.5, 27.0, level);
        assert!(q.height_m < -20.0, "L{level} Qattara {q:?}");
        // Published levels: the Caspian −28 m, the Dead Sea −430 m (2016) to −435 m; within
        // 5 m, and the query's height is the surface itself.
        for (name, lat, lon, want) in [
            ("Caspian", 42.0, 50.5, -28.0),
            ("Dead Sea", 31.5, 35.5, -432.0),
        ] {
            let g = ground(lat, lon, level);
            println!("L{level} {name}: {g:?}");
            let level_m = g.water_level_m.unwrap_or(f64::NAN);
            assert!(
                g.water && (level_m - want).abs() <= 5.0,
                "L{level} {name}: {g:?}"
            );
            assert!(
                (g.height_m - level_m).abs() < 1e-9,
                "L{level} {name}: {g:?}"
            );
        }
        let sea = ground(30.0, -40.0, level);
        println!("L{level} mid-Atlantic: {sea:?}");
        assert!(
            sea.water && sea.water_level_m == Some(0.0) && sea.height_m < -2_000.0,
            "L{level} mid-Atlantic {sea:?}"
        );
    }
    // Sanity of the independent side: ETOPO5 itself holds Qattara below the datum.
    assert!(s.etopo.reconstruct(29.5, 27.0) < 0.0);
    assert!(mask_path(None, &data_dir(None)).exists());
}

/// Under the mask every sample is still a pure function of its place: the apron of an L9 tile
/// over the Dutch coast (polders below the datum beside the North Sea) equals its
/// neighbour's interior, heights and covers, bit for bit.
#[test]
fn aprons_match_neighbours_under_the_mask() {
    use engine::earth::tile::Cover;
    use engine::planet::TileId;
    let oracle = &earth_source_with_water().oracle;
    let (a, _, _) = engine::ground::locate(latlon_to_dir(52.45, 4.95), 9);
    let b = TileId::new(9, a.face, a.x + 1, a.y);
    let (ta, tb) = (oracle.get(a), oracle.get(b));
    let mut kinds = [0usize; 3];
    for j in -4..516 {
        for k in 0..4 {
            let (ha, ca) = (ta.height(512 + k, j), ta.cover(512 + k, j));
            let (hb, cb) = (tb.height(k, j), tb.cover(k, j));
            assert_eq!(
                (ha.to_bits(), ca),
                (hb.to_bits(), cb),
                "{a} | {b} at ({k}, {j})"
            );
        }
    }
    for j in 0..512 {
        for i in 0..512 {
            kinds[ta.cover(i, j) as usize] += 1;
        }
    }
    let below = (0..512)
        .flat_map(|j| (0..512).map(move |i| (i, j)))
        .filter(|&(i, j)| ta.cover(i, j) == Cover::Land && ta.height(i, j) < 0.0)
        .count();
    println!("{a}: land/ocean/lake samples {kinds:?}, land below the datum {below}");
    assert!(below > 1_000, "polders below the datum are land: {below}");
}

const W: u32 = 160;
const H: u32 = 90;

/// A renderer over the Earth with the water mask, as the tests' options make it.
fn water_renderer(gpu: &Gpu) -> PlanetRenderer {
    PlanetRenderer::new(
        &gpu.ctx,
        earth_source_with_water(),
        test_renderer_options(&gpu.ctx),
        gpu.exec.frames_in_flight(),
    )
    .unwrap()
}

/// At least four frames of `cam` and until the renderer settles (at most 200), with the sun
/// 45° high in the south-east; the last frame, also written to `water_NAME.png`.
fn settled_frame(
    gpu: &mut Gpu,
    r: &mut PlanetRenderer,
    cam: &ViewCamera,
    name: &str,
) -> planetfall_tests::PlanetFrame {
    r.sun = Some(local_sun(cam.eye, 135.0, 45.0));
    let mut f = planet_frame(gpu, r, cam);
    let mut n = 1;
    while n < 4 || (!r.settled() && n < 200) {
        if !r.settled() {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        f = planet_frame(gpu, r, cam);
        n += 1;
    }
    println!("{name}: {n} frames, settled {}", r.settled());
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    write_png(&dir.join(format!("water_{name}.png")), W, H, &f.rgba);
    f
}

/// 2 km over the Qattara Depression looking down: all land (the sign rule drew sea here);
/// 2 km over the Caspian: water whose published hits lie on the lake's surface at −28 m.
#[test]
fn qattara_renders_as_land_and_the_caspian_at_its_level() {
    let mut gpu = Gpu::new();
    let mut r = water_renderer(&gpu);
    let mut frame = |cam: &ViewCamera, name: &str| settled_frame(&mut gpu, &mut r, cam, name);

    let qattara = ViewCamera::geo(29.5, 27.0, R + 2_000.0, 0.0, -70.0, 60.0, W, H);
    let f = frame(&qattara, "qattara_2km");
    let terrain = f.aov.iter().filter(|p| p.is_terrain()).count();
    let water = f.aov.iter().filter(|p| p.is_water()).count();
    println!("Qattara from 2 km: {terrain} terrain pixels, {water} water");
    assert_eq!(terrain as u32, W * H, "all ground");
    assert_eq!(water, 0, "no water over the Qattara Depression");

    let caspian = ViewCamera::geo(42.0, 50.5, R + 2_000.0, 0.0, -70.0, 60.0, W, H);
    let f = frame(&caspian, "caspian_2km");
    let mut hs: Vec<f64> = Vec::new();
    for y in 0..H {
        for x in 0..W {
            let p = f.aov[(y * W + x) as usize];
            assert!(
                p.is_terrain() && p.is_water(),
                "pixel ({x}, {y}) is not water: {p:?}"
            );
            let d = pixel_ray(&caspian, x as f64 + 0.5, y as f64 + 0.5);
            hs.push((caspian.eye + d * p.dist as f64).length() - R);
        }
    }
    hs.sort_by(f64::total_cmp);
    let (lo, med, hi) = (hs[0], hs[hs.len() / 2], hs[hs.len() - 1]);
    println!("Caspian from 2 km: hit heights min {lo:.3}, median {med:.3}, max {hi:.3} m");
    // The lake's samples hold −28.125 m (−28 m on the 0.3125 m code grid). The published hit
    // follows the surface within the resolve's trigger (min(1 m, 1e-4 × 2.3 km) = 0.23 m)
    // plus the f32 distance (≤ 1 mm here): 0.5 m allows both with margin; the sign rule put
    // the Caspian at the datum, 28 m higher.
    for h in [lo, med, hi] {
        assert!(
            (h + 28.125).abs() < 0.5,
            "hit at {h:.3} m, the surface is at −28.125 m"
        );
    }
    r.destroy(&gpu.ctx);
    gpu.assert_clean();
}

/// The Strait of Gibraltar from 20 km, looking down: the rendered water/land boundary is the
/// reconstructed coastline (`WaterMask::water_cubic`, evaluated here on the CPU at each
/// pixel's published ground point) within 2 px, and every pixel is ground or water — no sky
/// or black between the sea and the land. Against ETOPO5's zero contour (the sign rule) the
/// disagreement is reported, not bounded: its 9 km cells put that contour kilometres off the
/// surveyed coast.
#[test]
fn gibraltar_coast_follows_the_reconstructed_shoreline() {
    let mut gpu = Gpu::new();
    let mut r = water_renderer(&gpu);
    let cam = ViewCamera::geo(35.97, -5.55, R + 20_000.0, 0.0, -90.0, 60.0, W, H);
    let f = settled_frame(&mut gpu, &mut r, &cam, "gibraltar_20km");
    let src = earth_source_with_water();
    let s = src.oracle.cache().source();
    let (w, h) = (W as usize, H as usize);
    let mut want = vec![false; w * h];
    let mut etopo_sea = vec![false; w * h];
    for y in 0..h {
        for x in 0..w {
            let p = f.aov[y * w + x];
            assert!(
                p.is_terrain(),
                "pixel ({x}, {y}) is not ground or water: {p:?}"
            );
            let rgb = &f.rgba[4 * (y * w + x)..4 * (y * w + x) + 3];
            assert!(
                rgb.iter().map(|&c| c as u32).sum::<u32>() > 30,
                "pixel ({x}, {y}) is black: {rgb:?}"
            );
            let d = pixel_ray(&cam, x as f64 + 0.5, y as f64 + 0.5);
            let g = cam.eye + d * p.dist as f64;
            let (lat, lon) = engine::planet::dir_to_latlon(g.normalize());
            want[y * w + x] = s.water.water_at(&s.etopo, lat, lon).is_water();
            etopo_sea[y * w + x] = s.etopo.reconstruct(lat, lon) < 0.0;
        }
    }
    // A pixel disagreeing with the CPU's coastline must lie within 2 px of that coastline.
    let near_boundary = |x: usize, y: usize, map: &[bool]| {
        let c = map[y * w + x];
        (y.saturating_sub(2)..(y + 3).min(h))
            .any(|j| (x.saturating_sub(2)..(x + 3).min(w)).any(|i| map[j * w + i] != c))
    };
    let (mut off, mut off_far, mut off_etopo) = (0, 0, 0);
    for y in 0..h {
        for x in 0..w {
            let got = f.aov[y * w + x].is_water();
            if got != want[y * w + x] {
                off += 1;
                if !near_boundary(x, y, &want) {
                    off_far += 1;
                    println!(
                        "({x}, {y}) water {got}, the coastline says {}",
                        want[y * w + x]
                    );
                }
            }
            if got != etopo_sea[y * w + x] {
                off_etopo += 1;
            }
        }
    }
    let water = f.aov.iter().filter(|p| p.is_water()).count();
    println!(
        "Gibraltar from 20 km: {water} of {} pixels water; {off} differ from the \
         reconstructed coastline, {off_far} of them more than 2 px from it; {off_etopo} differ \
         from ETOPO5's zero contour",
        w * h
    );
    // Both shores and the strait are in view.
    assert!(
        water > w * h / 10 && water < w * h * 9 / 10,
        "{water} water pixels"
    );
    assert_eq!(off_far, 0, "water/land more than 2 px from the coastline");
    r.destroy(&gpu.ctx);
    gpu.assert_clean();
}

/// Tibet from 1,500 km, looking down: hundreds of lakes of a few kilometres, each under a pixel
/// or two (16 km across). A pixel is shaded by the share of its footprint that is water, so a
/// lake that covers part of a pixel darkens it by about that share; drawn as a whole pixel of
/// water it is a dark speck in the plateau's snow and steppe. The shares come from the CPU's
/// coastline (`WaterMap::water_at`) at 4×4 points of each pixel's footprint on the datum, not
/// from the tiles. A speck: a pixel whose footprint is at most half water, darker than the
/// median of its eight neighbours by more than that share of water could make it (water's
/// light taken as nothing) plus a quarter of the neighbours' light.
#[test]
fn a_lake_under_a_pixel_darkens_it_by_its_share() {
    let mut gpu = Gpu::new();
    let mut r = water_renderer(&gpu);
    let cam = ViewCamera::geo(33.0, 88.0, R + 1_500_000.0, 0.0, -90.0, 60.0, W, H);
    let f = settled_frame(&mut gpu, &mut r, &cam, "tibet_1500km");
    let src = earth_source_with_water();
    let s = src.oracle.cache().source();
    let (w, h) = (W as usize, H as usize);
    let share = |x: usize, y: usize| {
        let mut n = 0;
        for j in 0..4 {
            for i in 0..4 {
                let d = pixel_ray(
                    &cam,
                    x as f64 + (i as f64 + 0.5) / 4.0,
                    y as f64 + (j as f64 + 0.5) / 4.0,
                );
                let b = cam.eye.dot(d);
                let c = cam.eye.length_squared() - R * R;
                let g = cam.eye + d * (-b - (b * b - c).sqrt());
                let (lat, lon) = engine::planet::dir_to_latlon(g.normalize());
                n += s.water.water_at(&s.etopo, lat, lon).is_water() as u32;
            }
        }
        n as f64 / 16.0
    };
    let lum = |x: usize, y: usize| {
        let c = &f.rgba[4 * (y * w + x)..4 * (y * w + x) + 3];
        0.2126 * c[0] as f64 + 0.7152 * c[1] as f64 + 0.0722 * c[2] as f64
    };
    let (mut specks, mut partial, mut lakes) = (0, 0, 0);
    for y in 1..h - 1 {
        for x in 1..w - 1 {
            let fs = share(x, y);
            if fs > 0.0 {
                lakes += 1;
            }
            if fs > 0.5 {
                continue;
            }
            partial += (fs > 0.0) as u32;
            let mut nb: Vec<f64> = (0..9)
                .filter(|&k| k != 4)
                .map(|k| lum(x + k % 3 - 1, y + k / 3 - 1))
                .collect();
            nb.sort_by(f64::total_cmp);
            let m = 0.5 * (nb[3] + nb[4]);
            if lum(x, y) < m * (1.0 - fs - 0.25) {
                specks += 1;
                println!(
                    "speck at ({x}, {y}): water share {fs:.2}, luminance {:.0} against {m:.0}",
                    lum(x, y)
                );
            }
        }
    }
    println!("Tibet from 1,500 km: {lakes} pixels hold water, {partial} of them at most half; {specks} specks");
    // The frame must hold the lakes it is about.
    assert!(partial > 50, "{partial} pixels partly water");
    assert!(
        specks <= partial / 20,
        "{specks} specks among {partial} pixels partly water"
    );
    r.destroy(&gpu.ctx);
    gpu.assert_clean();
}

fn tile_at(lat: f64, lon: f64, level: u8) -> engine::planet::TileId {
    let (face, u, v) = engine::planet::dir_to_face(latlon_to_dir(lat, lon));
    let n = 1u32 << level;
    let at = |c: f64| (((c + 1.0) * 0.5 * n as f64) as u32).min(n - 1);
    engine::planet::TileId::new(level, face, at(u), at(v))
}

/// The GPU derives and amplifies by the sign rule only; under the mask it is handed the tiles
/// where the sign rule gives the same tile (`Source::sign_rule_holds`), and the CPU the rest.
/// Inland and open-sea tiles qualify, and derived under the mask they are bit for bit the sign
/// rule's; tiles over coasts, lakes and land below the datum do not.
#[test]
fn the_gpu_is_handed_only_tiles_the_sign_rule_makes_alike() {
    let masked = earth_source_with_water();
    let masked = masked.oracle.cache().source();
    let plain = planetfall_tests::earth_source();
    let plain = plain.oracle.cache().source();
    assert!(masked.has_water_mask() && !plain.has_water_mask());
    for (name, lat, lon) in [
        ("Qattara", 29.5, 27.0),
        ("Amsterdam", 52.45, 4.95),
        ("the Caspian", 42.0, 50.5),
        ("the Dead Sea", 31.5, 35.5),
        ("Gibraltar's strait", 35.97, -5.6),
    ] {
        for level in [9, 13] {
            let id = tile_at(lat, lon, level);
            assert!(!masked.sign_rule_holds(id), "{name} {id:?}");
        }
    }
    for (name, lat, lon) in [("the Alps", 45.9, 7.0), ("the mid-Atlantic", 30.0, -40.0)] {
        for level in [9, 13] {
            let id = tile_at(lat, lon, level);
            assert!(masked.sign_rule_holds(id), "{name} {id:?}");
            assert!(plain.sign_rule_holds(id), "{name}: no mask, always");
        }
        let id = tile_at(lat, lon, 9);
        let (a, b) = (masked.derive_tile(id, None), plain.derive_tile(id, None));
        assert!(a == b, "{name} {id:?}: the tiles differ");
    }
}

/// 10 m over the open Atlantic looking 25° down, toward a low sun: every pixel below the
/// horizon is ocean, and each ocean hit is read in the tile that holds it. The sea floor's
/// leaves lie 3.5 km down, so the resolve must locate the ocean point from its own direction:
/// located from the leaf's hint (the floor's chord point, kilometres down the ray) the near
/// pixels were read in tiles far away, and shaded as a dark polygon of the floor's mesh.
#[test]
fn the_ocean_near_the_camera_is_read_where_it_is() {
    let mut gpu = Gpu::new();
    let mut r = water_renderer(&gpu);
    let cam = ViewCamera::geo(30.0, -40.0, R + 10.0, 270.0, -25.0, 60.0, W, H);
    let f = settled_frame(&mut gpu, &mut r, &cam, "atlantic_10m");
    let tiles: std::collections::HashMap<u32, engine::planet::TileId> =
        r.residency().tiles.iter().map(|t| (t.slot, t.id)).collect();
    let (mut ocean, mut elsewhere) = (0, 0);
    for y in 0..H {
        for x in 0..W {
            let p = f.aov[(y * W + x) as usize];
            if !p.is_water() {
                continue;
            }
            ocean += 1;
            let d = pixel_ray(&cam, x as f64 + 0.5, y as f64 + 0.5);
            let hit = cam.eye + d * p.dist as f64;
            let (face, u, v) = engine::planet::cube::dir_to_face(hit.normalize());
            let tile = tiles[&(p.slot as u32)];
            let holds = engine::planet::TileId::containing(tile.level, face, u, v) == tile;
            elsewhere += !holds as u32;
        }
    }
    println!("Atlantic from 10 m: {ocean} ocean pixels, {elsewhere} read in another tile");
    // Below the horizon (pitch −25°, 60° vertical field): most of the frame.
    assert!(ocean > W * H / 2, "{ocean} ocean pixels");
    // A point within rounding of a tile edge may be read in its neighbour (the apron).
    assert!(
        elsewhere * 100 <= ocean,
        "{elsewhere} of {ocean} ocean pixels read in a tile that does not hold them"
    );
    r.destroy(&gpu.ctx);
    gpu.assert_clean();
}
