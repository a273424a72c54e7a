//! The look of the ground and the sea (docs/look.md) on lavapipe under validation: headless
//! renders at 128×96 whose colours are checked against the physical property each material
//! or the ocean's model stands for, with the geometry computed here in f64.

use engine::camera::ViewCamera;
use engine::renderer::{local_sun, PlanetRenderer};
use engine::shade::AovPixel;
use glam::DVec3;
use planetfall_tests::{earth_source, planet_frame, test_renderer_options, write_png, Gpu};

const R: f64 = 6_371_000.0;
const W: u32 = 128;
const H: u32 = 96;

struct Frame {
    rgba: Vec<u8>,
    aov: Vec<AovPixel>,
}

impl Frame {
    fn rgb(&self, x: u32, y: u32) -> [f64; 3] {
        let i = ((y * W + x) * 4) as usize;
        [0, 1, 2].map(|c| self.rgba[i + c] as f64)
    }
    fn aov(&self, x: u32, y: u32) -> AovPixel {
        self.aov[(y * W + x) as usize]
    }
}

/// A renderer over the Earth and a way to run frames of it.
struct Bench {
    gpu: Gpu,
    r: PlanetRenderer,
}

impl Bench {
    fn new() -> Bench {
        let gpu = Gpu::new();
        let r = PlanetRenderer::new(
            &gpu.ctx,
            earth_source(),
            test_renderer_options(&gpu.ctx),
            gpu.exec.frames_in_flight(),
        )
        .unwrap();
        Bench { gpu, r }
    }

    /// Frames of `cam` until the renderer settles (the mesh refined, every wanted tile
    /// resident: materials read the finest heights), the sun at `sun_az`, `sun_el` degrees
    /// over the camera; the last is kept and written as `look_<name>.png`.
    fn frame(&mut self, cam: &ViewCamera, sun_az: f64, sun_el: f64, name: &str) -> Frame {
        self.r.sun = Some(local_sun(cam.eye, sun_az, sun_el));
        let mut f = planet_frame(&mut self.gpu, &mut self.r, cam);
        let mut n = 1;
        while n < 4 || (!self.r.settled() && n < 200) {
            if !self.r.settled() {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            f = planet_frame(&mut self.gpu, &mut self.r, cam);
            n += 1;
        }
        println!("{name}: {n} frames, settled {}", self.r.settled());
        let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
        write_png(&dir.join(format!("look_{name}.png")), W, H, &f.rgba);
        Frame {
            rgba: f.rgba,
            aov: f.aov,
        }
    }

    fn finish(self) {
        let Bench { gpu, r } = self;
        r.destroy(&gpu.ctx);
        gpu.assert_clean();
    }
}

/// The f64 ray through the centre of pixel (x, y).
fn pixel_ray(cam: &ViewCamera, x: f64, y: f64) -> DVec3 {
    let t = (0.5 * cam.vfov).tan();
    let aspect = cam.width as f64 / cam.height as f64;
    let nx = ((x + 0.5) / cam.width as f64) * 2.0 - 1.0;
    let ny = ((y + 0.5) / cam.height as f64) * 2.0 - 1.0;
    (cam.forward + cam.right * (nx * t * aspect) - cam.up * (ny * t)).normalize()
}

/// The pixel (x, y) whose centre's ray is `d` (the inverse of [`pixel_ray`]).
fn project(cam: &ViewCamera, d: DVec3) -> (f64, f64) {
    let t = (0.5 * cam.vfov).tan();
    let aspect = cam.width as f64 / cam.height as f64;
    let z = d.dot(cam.forward);
    let nx = d.dot(cam.right) / z / (t * aspect);
    let ny = -d.dot(cam.up) / z / t;
    (
        (nx + 1.0) * 0.5 * cam.width as f64 - 0.5,
        (ny + 1.0) * 0.5 * cam.height as f64 - 0.5,
    )
}

/// Where the ray `d` from the camera meets the datum sphere, if it does.
fn datum_hit(cam: &ViewCamera, d: DVec3) -> Option<DVec3> {
    let b = cam.eye.dot(d);
    let c = cam.eye.length_squared() - R * R;
    let disc = b * b - c;
    (disc >= 0.0 && b < 0.0).then(|| cam.eye + d * (-b - disc.sqrt()))
}

/// Height above the datum of the published hit at pixel (x, y), metres.
fn hit_height(cam: &ViewCamera, f: &Frame, x: u32, y: u32) -> f64 {
    let d = pixel_ray(cam, x as f64, y as f64);
    (cam.eye + d * f.aov(x, y).dist as f64).length() - R
}

fn luminance(c: [f64; 3]) -> f64 {
    0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]
}

/// Mean rgb over the pixels `keep` selects, and their count.
fn mean_where(f: &Frame, keep: impl Fn(u32, u32) -> bool) -> ([f64; 3], usize) {
    let (mut s, mut n) = ([0.0; 3], 0);
    for y in 0..H {
        for x in 0..W {
            if keep(x, y) {
                let c = f.rgb(x, y);
                for k in 0..3 {
                    s[k] += c[k];
                }
                n += 1;
            }
        }
    }
    (s.map(|v| v / n.max(1) as f64), n)
}

/// A sunlit surface has no black pixel: a NaN in the shading comes out of the tonemap's clamp
/// as 0 (or as 1), and a lit surface in daylight is never black.
fn assert_no_black_surface(f: &Frame, name: &str) {
    let black = (0..H)
        .flat_map(|y| (0..W).map(move |x| (x, y)))
        .filter(|&(x, y)| f.aov(x, y).is_terrain() && f.rgb(x, y).iter().all(|&v| v == 0.0))
        .count();
    assert_eq!(black, 0, "{name}: {black} black surface pixels (NaN?)");
}

/// The Grand Canyon from 10 km reads as red rock and arid soil (red > green); the Himalaya
/// above 5,700 m as snow (bright and near-neutral); a temperate lowland (France) as
/// vegetation (green > red).
#[test]
fn arid_ground_is_red_high_ground_is_snow_temperate_lowland_is_green() {
    let mut b = Bench::new();

    let canyon = ViewCamera::geo(36.1, -112.1, R + 10_000.0, 0.0, -60.0, 60.0, W, H);
    let f = b.frame(&canyon, 135.0, 30.0, "grand_canyon_10km");
    assert_no_black_surface(&f, "grand canyon");
    let (c, n) = mean_where(&f, |x, y| f.aov(x, y).is_terrain());
    println!("Grand Canyon from 10 km: {n} terrain pixels, mean rgb {c:.1?}");
    assert!(n as u32 > W * H * 9 / 10, "{n} terrain pixels");
    assert!(c[0] > c[1], "red > green: {c:?}");

    // From over Nepal's middle hills, looking north across the foothills to the range round
    // Everest (which the 5′ source smooths to ≈ 6,100 m).
    let everest = ViewCamera::geo(27.5, 86.9, R + 10_000.0, 0.0, -10.0, 60.0, W, H);
    let f = b.frame(&everest, 135.0, 45.0, "himalaya_10km");
    assert_no_black_surface(&f, "everest");
    let mut hs: Vec<f64> = (0..H)
        .flat_map(|y| (0..W).map(move |x| (x, y)))
        .filter(|&(x, y)| f.aov(x, y).is_terrain())
        .map(|(x, y)| hit_height(&everest, &f, x, y))
        .collect();
    hs.sort_by(f64::total_cmp);
    println!(
        "Himalaya hit heights: min {:.0}, median {:.0}, max {:.0} m",
        hs[0],
        hs[hs.len() / 2],
        hs[hs.len() - 1]
    );
    let high =
        |x: u32, y: u32| f.aov(x, y).is_terrain() && hit_height(&everest, &f, x, y) > 5_700.0;
    let (c, n) = mean_where(&f, high);
    let (low, nl) = mean_where(&f, |x, y| {
        f.aov(x, y).is_terrain() && hit_height(&everest, &f, x, y) < 3_000.0
    });
    let spread = (c.iter().cloned().fold(0.0, f64::max) - c.iter().cloned().fold(255.0, f64::min))
        / c.iter().cloned().fold(0.0, f64::max);
    println!(
        "Himalaya from 10 km: {n} pixels above 5,700 m, mean rgb {c:.1?} (luminance {:.1}, \
         spread {spread:.3}); {nl} pixels below 3,000 m, mean rgb {low:.1?} (luminance {:.1})",
        luminance(c),
        luminance(low)
    );
    assert!(n > 50, "{n} pixels above 5,700 m");
    // Snow (albedo ≈ 0.82) with the sun 45° high: L ≈ 0.82/π × (0.85 × 0.7 + 0.1) ≈ 0.18, ×
    // exposure 5 → 0.9, ACES → 0.78, sRGB → 230 of 255 (the shoulder compresses: the soil
    // below, ~3.5× darker in radiance, is only ~1.3× darker on screen). Neutral: snow's
    // reflectance is flat, the soil's rises toward red.
    assert!(luminance(c) > 200.0, "snow is bright: {c:?}");
    assert!(luminance(c) > luminance(low), "snow {c:?} vs below {low:?}");
    assert!(spread < 0.05, "snow is near-neutral: {c:?}");

    let france = ViewCamera::geo(47.0, 2.0, R + 3_000.0, 0.0, -35.0, 60.0, W, H);
    let f = b.frame(&france, 135.0, 45.0, "france_3km");
    assert_no_black_surface(&f, "france");
    let (c, n) = mean_where(&f, |x, y| {
        f.aov(x, y).is_terrain() && !f.aov(x, y).is_water()
    });
    println!("France from 3 km: {n} land pixels, mean rgb {c:.1?}");
    assert!(n as u32 > W * H / 3, "{n} land pixels");
    assert!(c[1] > c[0], "green > red: {c:?}");
    b.finish();
}

/// From 1,000 km over the Tibetan plateau (4,500–5,000 m), the ground is arid soil with snow on
/// the ranges above the snow line, not a snowfield: under a quarter of its land pixels read as
/// snow (its glaciers and permanent snow cover a few per cent of the plateau), and the ranges
/// that rise above it carry some. The shading and `snow_line_m` over the same field agree:
/// ground 400 m below its snow line is drawn as soil, and snow lies only on ground within
/// 400 m of the line or above it (pixels are 5 km across: their footprint's share of snow,
/// not their centre's, sets them).
#[test]
fn tibet_is_soil_below_its_snow_line_and_snow_above_it() {
    use engine::earth::climate::{snow_line_m, Climate};
    use engine::source::TileSource;
    let climate = Climate::of(&earth_source().earth().expect("the Earth"));
    let mut b = Bench::new();
    let cam = ViewCamera::geo(32.0, 88.0, R + 1_000_000.0, 0.0, -90.0, 30.0, W, H);
    let f = b.frame(&cam, 180.0, 60.0, "tibet_1000km");
    assert_no_black_surface(&f, "tibet");
    // Snow is bright and near-neutral; arid soil's red is about twice its blue.
    let snowy = |c: [f64; 3]| c[2] >= 0.95 * c[0] && luminance(c) > SNOW_LUMINANCE;
    let (mut land, mut white) = (0usize, 0usize);
    let (mut below, mut below_white, mut above, mut above_white) = (0usize, 0usize, 0usize, 0usize);
    let (mut soil, mut snow) = (Vec::new(), Vec::new());
    // The blend spans ± 310 m around the line; the footprint's taps differ from the centre.
    const MARGIN_M: f64 = 400.0;
    for y in 0..H {
        for x in 0..W {
            let a = f.aov(x, y);
            if !a.is_terrain() || a.is_water() {
                continue;
            }
            let (la, lo) = a.latlon();
            let line = snow_line_m(la, climate.wetness(la, lo), climate.region_height(la, lo));
            let (h, c) = (hit_height(&cam, &f, x, y), f.rgb(x, y));
            let s = snowy(c);
            land += 1;
            white += s as usize;
            if h < line - MARGIN_M {
                below += 1;
                below_white += s as usize;
                soil.push(c);
            } else if h > line + MARGIN_M {
                above += 1;
                above_white += s as usize;
                snow.push(c);
            }
        }
    }
    let mean = |v: &[[f64; 3]]| {
        let n = v.len().max(1) as f64;
        [0, 1, 2].map(|k| v.iter().map(|c| c[k]).sum::<f64>() / n)
    };
    println!(
        "Tibet from 1,000 km: {land} land pixels, {white} snow; {below} {MARGIN_M} m below their \
         snow line ({below_white} snow, mean rgb {:.1?}), {above} {MARGIN_M} m above it \
         ({above_white} snow, mean rgb {:.1?})",
        mean(&soil),
        mean(&snow)
    );
    assert!(land as u32 > W * H / 2, "{land} land pixels");
    assert!(
        white * 4 < land,
        "{white} of {land} land pixels snow: a snowfield"
    );
    // The ranges that rise above the line carry snow.
    assert!(
        white * 100 >= land,
        "{white} of {land} land pixels snow: no ranges"
    );
    assert!(below as u32 > W * H / 4, "{below} pixels below the line");
    assert!(
        below_white * 50 <= below,
        "{below_white} of {below} below the line snow"
    );
    assert!(
        above_white * 2 >= above,
        "{above_white} of {above} above the line snow"
    );
    // Snow is drawn where the ground reaches the line, not below it.
    assert!(
        (white - below_white) * 20 >= white * 19,
        "{below_white} of {white} snow pixels below the line"
    );
    b.finish();
}

/// Luminance (0–255) over which a near-neutral pixel reads as snow: snow's in full sun is ≈ 230
/// (`arid_ground_is_red_high_ground_is_snow_temperate_lowland_is_green`), the soils' ≈ 150.
const SNOW_LUMINANCE: f64 = 190.0;

/// From 300 km straight down, the ground's colour follows the climate's wetness field
/// (docs/look.md, "The climate"), not latitude: Bangladesh and south-east China, in the dry
/// belt of the latitude-only climate (23°–24° N) but wet from the monsoon, read as plant cover
/// (green > red); the Sahara at the same latitude reads as desert (red > green). The field
/// the shading read is checked at the same pixels from the CPU's `Climate`.
#[test]
fn monsoon_lands_are_green_and_the_sahara_red_at_one_latitude() {
    use engine::earth::climate::Climate;
    use engine::source::TileSource;
    let climate = Climate::of(&earth_source().earth().expect("the Earth"));
    let mut b = Bench::new();
    for (name, lat, lon, wet) in [
        ("bangladesh_300km", 23.8, 90.4, true),
        ("se_china_300km", 24.0, 113.0, true),
        ("sahara_300km", 23.0, 10.0, false),
    ] {
        let cam = ViewCamera::geo(lat, lon, R + 300_000.0, 0.0, -90.0, 30.0, W, H);
        let f = b.frame(&cam, 180.0, 60.0, name);
        assert_no_black_surface(&f, name);
        let land = |x: u32, y: u32| f.aov(x, y).is_terrain() && !f.aov(x, y).is_water();
        let (c, n) = mean_where(&f, land);
        let (mut w, mut old) = (0.0, 0.0);
        for y in 0..H {
            for x in 0..W {
                if land(x, y) {
                    let (la, lo) = f.aov(x, y).latlon();
                    w += climate.wetness(la, lo);
                    old += engine::earth::climate::wet_belt(la.to_radians().sin().powi(2));
                }
            }
        }
        let (w, old) = (w / n as f64, old / n as f64);
        println!(
            "{name}: {n} land pixels, mean rgb {c:.1?}, mean wetness {w:.3} (latitude belt \
             {old:.3})"
        );
        assert!(n as u32 > W * H / 2, "{name}: {n} land pixels");
        // The latitude belt alone would make all three arid.
        assert!(old < 0.4, "{name}: belt {old}");
        if wet {
            assert!(w > 0.6, "{name}: wetness {w}");
            assert!(c[1] > c[0], "{name}: green > red: {c:?}");
        } else {
            assert!(w < 0.3, "{name}: wetness {w}");
            assert!(c[0] > c[1], "{name}: red > green: {c:?}");
        }
    }
    b.finish();
}

/// Where the data directory does not hold the climate field yet, it is made on a worker and
/// the first frame does not wait for it: the renderer draws the latitude belt (Bangladesh
/// arid, red > green) and reports itself unsettled ("climate"); a render that waits for a
/// settled frame gets the field (green > red), which is then in the directory for the next
/// start. A cold store of its own (tiles derived afresh: about a minute here).
#[test]
fn the_first_frame_does_not_wait_for_the_climate() {
    use engine::earth::climate::Climate;
    use engine::source::TileSource;
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("climate-cold-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let src = planetfall_tests::earth_source_at(&dir);
    let earth = src.earth().expect("the Earth");
    assert!(Climate::read_cached(&earth, Some(&dir)).is_none());
    let mut gpu = Gpu::new();
    let mut r = PlanetRenderer::new(
        &gpu.ctx,
        src,
        test_renderer_options(&gpu.ctx),
        gpu.exec.frames_in_flight(),
    )
    .unwrap();
    let cam = ViewCamera::geo(23.8, 90.4, R + 300_000.0, 0.0, -90.0, 30.0, W, H);
    r.sun = Some(local_sun(cam.eye, 180.0, 60.0));
    let land_mean = |f: &planetfall_tests::PlanetFrame| {
        let f = Frame {
            rgba: f.rgba.clone(),
            aov: f.aov.clone(),
        };
        mean_where(&f, |x, y| {
            f.aov(x, y).is_terrain() && !f.aov(x, y).is_water()
        })
    };
    let mut f = planet_frame(&mut gpu, &mut r, &cam);
    let first: Vec<&str> = r.unsettled().collect();
    let (c0, n0) = land_mean(&f);
    let mut n = 1;
    while !r.settled() && n < 200 {
        std::thread::sleep(std::time::Duration::from_millis(20));
        f = planet_frame(&mut gpu, &mut r, &cam);
        n += 1;
    }
    let (c, n1) = land_mean(&f);
    println!(
        "first frame unsettled by {first:?}, land rgb {c0:.1?} ({n0} px); settled after {n} \
         frames, land rgb {c:.1?} ({n1} px)"
    );
    assert!(first.contains(&"climate"), "{first:?}");
    assert!(r.settled(), "{:?}", r.unsettled().collect::<Vec<_>>());
    assert!(n0 as u32 > W * H / 2 && n1 as u32 > W * H / 2);
    assert!(c0[0] > c0[1], "the latitude belt first: {c0:?}");
    assert!(c[1] > c[0], "the field once settled: {c:?}");
    assert!(Climate::read_cached(&earth, Some(&dir)).is_some());
    r.destroy(&gpu.ctx);
    gpu.assert_clean();
    let _ = std::fs::remove_dir_all(&dir);
}

/// From 2 km over the open Atlantic with the sun behind the camera, the sea brightens toward
/// the horizon (Fresnel: 2 % of the sky straight down, toward 100 % at grazing); from 20 km
/// the glint's brightest pixel sits where the sun's mirror reflection does.
#[test]
fn sea_reflects_more_toward_the_horizon_and_the_glint_sits_at_the_mirror_point() {
    let mut b = Bench::new();

    let cam = ViewCamera::geo(30.0, -40.0, R + 2_000.0, 270.0, -10.0, 60.0, W, H);
    let f = b.frame(&cam, 90.0, 30.0, "sea_2km_sun_behind");
    assert_no_black_surface(&f, "sea");
    // Mean luminance of each row that is all ocean, bottom to top.
    let rows: Vec<(u32, f64)> = (0..H)
        .rev()
        .filter(|&y| (0..W).all(|x| f.aov(x, y).is_water()))
        .map(|y| {
            (
                y,
                (0..W).map(|x| luminance(f.rgb(x, y))).sum::<f64>() / W as f64,
            )
        })
        .collect();
    let profile: Vec<String> = rows
        .iter()
        .step_by(4)
        .map(|(y, l)| format!("{y}:{l:.1}"))
        .collect();
    println!(
        "sea from 2 km, row: mean luminance, bottom up: {}",
        profile.join(" ")
    );
    assert!(rows.len() > 30, "{} ocean rows", rows.len());
    // Rising toward the horizon: every 8-row band brighter than the one below it.
    let bands: Vec<f64> = rows
        .chunks(8)
        .filter(|c| c.len() == 8)
        .map(|c| c.iter().map(|r| r.1).sum::<f64>() / 8.0)
        .collect();
    println!("8-row bands, bottom up: {bands:.1?}");
    assert!(
        bands.windows(2).all(|w| w[1] > w[0]),
        "bands rise toward the horizon: {bands:?}"
    );

    // The waves move with the renderer's clock: a second later the near sea has changed.
    std::thread::sleep(std::time::Duration::from_millis(1000));
    let g = b.frame(&cam, 90.0, 30.0, "sea_2km_sun_behind_later");
    let changed = (H - 16..H)
        .flat_map(|y| (0..W).map(move |x| (x, y)))
        .filter(|&(x, y)| f.rgb(x, y) != g.rgb(x, y))
        .count();
    println!("sea from 2 km, a second later: {changed} of the bottom 16 rows' pixels changed");
    assert!(changed > 0, "the waves move");

    // The glint from 20 km, looking 75° down, the sun 72° high and 20° to the right: every
    // octave is below two footprints there (the surface is its slope distribution, smooth).
    // Cox and Munk's 1/cos(view) moves the brightest facets from the mirror point toward the
    // horizon by ≈ 2·cot(72°)·(mean-square slope 0.031) = 0.020 rad (1.2°, ≈ 2 px here); the
    // model's own brightest pixel is computed below too.
    let cam = ViewCamera::geo(30.0, -40.0, R + 20_000.0, 0.0, -75.0, 60.0, W, H);
    let (sun_az, sun_el) = (20.0, 72.0);
    let sun = local_sun(cam.eye, sun_az, sun_el).normalize();
    let f = b.frame(&cam, sun_az, sun_el, "glint_20km");
    assert_no_black_surface(&f, "glint");
    let (mut best, mut best_l) = ((0, 0), -1.0);
    for y in 0..H {
        for x in 0..W {
            let l = luminance(f.rgb(x, y));
            if f.aov(x, y).is_water() && l > best_l {
                (best, best_l) = ((x, y), l);
            }
        }
    }
    // The mirror point: where the ray from the eye reflects about the sphere's normal into
    // the sun, by Newton's method on the pixel plane (f64, independent of the shader).
    let mirror_error = |p: (f64, f64)| -> DVec3 {
        let d = pixel_ray(&cam, p.0, p.1);
        let q = datum_hit(&cam, d).expect("the sea");
        let n = q.normalize();
        (d - 2.0 * d.dot(n) * n) - sun
    };
    // Start from the mirror of the sun about the camera's own vertical.
    let up = cam.eye.normalize();
    let mut p = project(&cam, sun - 2.0 * sun.dot(up) * up);
    p = (p.0.clamp(0.0, W as f64), p.1.clamp(0.0, H as f64));
    for _ in 0..50 {
        let e = mirror_error(p);
        let h = 1e-3;
        let ex = (mirror_error((p.0 + h, p.1)) - e) / h;
        let ey = (mirror_error((p.0, p.1 + h)) - e) / h;
        // Least squares on the 3 components for the 2 unknowns.
        let (a, bb, c) = (ex.dot(ex), ex.dot(ey), ey.dot(ey));
        let (r1, r2) = (-ex.dot(e), -ey.dot(e));
        let det = a * c - bb * bb;
        p = (
            p.0 + (c * r1 - bb * r2) / det,
            p.1 + (a * r2 - bb * r1) / det,
        );
    }
    assert!(mirror_error(p).length() < 1e-6, "mirror point converged");
    let dist = ((best.0 as f64 - p.0).powi(2) + (best.1 as f64 - p.1).powi(2)).sqrt();
    // The glint of Cox and Munk's isotropic Gaussian slopes (mean square 0.031: the shader's
    // 0.020 unresolved plus six octaves of steepness 0.06) with Schlick's Fresnel for water,
    // per pixel in f64: its brightest pixel.
    let mss = 0.020 + 6.0 * 0.5 * 0.06f64.powi(2);
    let mut model = ((0, 0), -1.0);
    for y in 0..H {
        for x in 0..W {
            let d = pixel_ray(&cam, x as f64, y as f64);
            let Some(q) = datum_hit(&cam, d) else {
                continue;
            };
            let (n, v) = (q.normalize(), -d);
            let hv = (v + sun).normalize();
            let c = n.dot(hv);
            let tan2 = (1.0 - c * c) / (c * c);
            let f = 0.0204 + (1.0 - 0.0204) * (1.0 - v.dot(hv)).powi(5);
            let l = f * (-tan2 / mss).exp()
                / (std::f64::consts::PI * mss)
                / (4.0 * n.dot(v) * c.powi(4));
            if l > model.1 {
                model = ((x, y), l);
            }
        }
    }
    let model_dist = ((best.0 as f64 - model.0 .0 as f64).powi(2)
        + (best.1 as f64 - model.0 .1 as f64).powi(2))
    .sqrt();
    println!(
        "glint from 20 km: brightest sea pixel {best:?} (luminance {best_l:.1}); mirror point \
         ({:.2}, {:.2}), {dist:.2} px away; Cox–Munk's brightest pixel {:?}, {model_dist:.2} px away",
        p.0, p.1, model.0
    );
    assert!(
        dist <= 3.0,
        "glint {best:?} vs mirror point {p:?}: {dist} px"
    );
    assert!(
        model_dist <= 1.5,
        "glint {best:?} vs the model's {:?}: {model_dist} px",
        model.0
    );
    // A later frame of the same static view: at 20 km every octave is slope variance (the
    // longest, 305 m, spans 1.3 footprints), so the waves' motion changes nothing.
    std::thread::sleep(std::time::Duration::from_millis(500));
    let g = b.frame(&cam, sun_az, sun_el, "glint_20km_later");
    let moved = (0..H)
        .flat_map(|y| (0..W).map(move |x| (x, y)))
        .filter(|&(x, y)| f.aov(x, y).is_water())
        .map(|(x, y)| {
            let (a, c) = (f.rgb(x, y), g.rgb(x, y));
            (0..3).map(|k| (a[k] - c[k]).abs()).fold(0.0, f64::max)
        })
        .fold(0.0, f64::max);
    println!("glint from 20 km, a later frame: largest change on the sea {moved} of 255");
    assert!(moved <= 1.0, "unresolved waves do not move: {moved}");
    b.finish();
}
