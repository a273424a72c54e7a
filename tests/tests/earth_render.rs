//! Images of Earth: headless frames of the planet renderer on lavapipe
//! under validation, checked against independent f64 geometry and the ETOPO source.

use engine::camera::ViewCamera;
use engine::planet::cube::latlon_to_dir;
use engine::renderer::PlanetRenderer;
use engine::shade::AovPixel;
use engine::source::TileSource;
use glam::DVec3;
use planetfall_tests::{
    earth_ground, earth_source, planet_frame, test_renderer_options, write_png, Gpu,
};

const R: f64 = 6_371_000.0;

struct Frame {
    rgba: Vec<u8>,
    aov: Vec<AovPixel>,
}

fn render(gpu: &mut Gpu, r: &mut PlanetRenderer, cam: &ViewCamera) -> Frame {
    let f = planet_frame(gpu, r, cam);
    Frame {
        rgba: f.rgba,
        aov: f.aov,
    }
}

fn save(name: &str, cam: &ViewCamera, f: &Frame) {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    write_png(
        &dir.join(format!("{name}.png")),
        cam.width,
        cam.height,
        &f.rgba,
    );
}

/// Independent f64 ray–sphere intersection with the datum for pixel (x, y).
fn ray_sphere(cam: &ViewCamera, x: u32, y: u32) -> Option<DVec3> {
    let t = (0.5 * cam.vfov).tan();
    let aspect = cam.width as f64 / cam.height as f64;
    let nx = ((x as f64 + 0.5) / cam.width as f64) * 2.0 - 1.0;
    let ny = ((y as f64 + 0.5) / cam.height as f64) * 2.0 - 1.0;
    let d = (cam.forward + cam.right * (nx * t * aspect) - cam.up * (ny * t)).normalize();
    let b = cam.eye.dot(d);
    let c = cam.eye.length_squared() - R * R;
    let disc = b * b - c;
    (disc >= 0.0).then(|| cam.eye + d * (-b - disc.sqrt()))
}

#[test]
fn orbit_disk_radius_and_water_agree_with_geometry_and_source() {
    let mut gpu = Gpu::new();
    let src = earth_source();
    let mut r = PlanetRenderer::new(
        &gpu.ctx,
        src.clone(),
        test_renderer_options(&gpu.ctx),
        gpu.exec.frames_in_flight(),
    )
    .unwrap();
    let alt = 20_000_000.0;
    let (w, h) = (160u32, 160u32);
    // Over Africa, looking straight down with a 60° field of view: the disk fits.
    let cam = ViewCamera::geo(5.0, 20.0, R + alt, 0.0, -90.0, 32.0, w, h);
    let mut f = render(&mut gpu, &mut r, &cam);
    for _ in 0..3 {
        f = render(&mut gpu, &mut r, &cam);
    }
    save("orbit_africa", &cam, &f);
    // Disk radius: count terrain pixels on the centre row; geometry says asin(R/(R+alt)).
    let row = h / 2;
    let terrain: Vec<u32> = (0..w)
        .filter(|&x| f.aov[(row * w + x) as usize].is_terrain())
        .collect();
    let measured = (terrain.last().unwrap() - terrain.first().unwrap() + 1) as f64 / 2.0;
    let half_angle = (R / (R + alt)).asin();
    let expected = half_angle.tan() / (0.5 * cam.vfov).tan() * h as f64 / 2.0;
    assert!(
        (measured - expected).abs() <= 1.0,
        "disk radius {measured} px, geometry {expected} px"
    );
    // Water agreement away from coasts, against ETOPO's sign at the f64 ray–sphere point.
    let etopo = engine::earth::etopo::Etopo::open(&engine::earth::etopo::etopo_path(None)).unwrap();
    let sign = |p: DVec3| {
        let (lat, lon) = engine::planet::dir_to_latlon(p);
        etopo.reconstruct(lat, lon) < 0.0
    };
    let (mut agree, mut total) = (0, 0);
    for y in 2..h - 2 {
        for x in 2..w - 2 {
            let Some(p) = ray_sphere(&cam, x, y) else {
                continue;
            };
            let here = sign(p);
            // Far from coasts: the 5×5 neighbourhood has one sign.
            let uniform = (-2i32..=2).all(|dy| {
                (-2i32..=2).all(|dx| {
                    ray_sphere(&cam, (x as i32 + dx) as u32, (y as i32 + dy) as u32).map(sign)
                        == Some(here)
                })
            });
            let a = f.aov[(y * w + x) as usize];
            if !uniform || !a.is_terrain() {
                continue;
            }
            total += 1;
            agree += (a.is_water() == here) as u32;
        }
    }
    assert!(total > 5000, "{total} disk pixels tested");
    assert!(
        agree as f64 >= 0.99 * total as f64,
        "water agrees on {agree}/{total}"
    );
    r.destroy(&gpu.ctx);
    gpu.assert_clean();
}

/// Pixels whose ray meets the datum sphere but are drawn as sky. Ground stands on or above the
/// datum and the ocean is the datum itself, so every such pixel shows sky through the planet's
/// outline: where the chords along the limb sag inside the surface (the bench's see-through).
fn sky_inside_the_datum(cam: &ViewCamera, f: &Frame) -> (usize, usize) {
    let (mut inside, mut wrong) = (0, 0);
    for y in 0..cam.height {
        for x in 0..cam.width {
            if ray_sphere(cam, x, y).is_some() {
                inside += 1;
                wrong += !f.aov[(y * cam.width + x) as usize].is_terrain() as usize;
            }
        }
    }
    (inside, wrong)
}

/// The planet's outline from orbit is drawn by the chords of the leaves along the limb, which
/// sag inside the surface by up to their residual. At the grazing residual target of the
/// edges (0.375 px) a band of the limb's pixels showed sky; the outlines' own target
/// (`CbtParams::outline_tighten`, 0.125 px) draws the limb to the datum.
#[test]
fn the_limb_from_orbit_is_drawn_to_the_datum() {
    let mut gpu = Gpu::new();
    // Over central Asia: the limb runs over land in the north and west.
    let cam = ViewCamera::geo(45.0, 80.0, R + 20_000_000.0, 0.0, -90.0, 32.0, 480, 480);
    let mut counts = Vec::new();
    let tight = engine::cbt::CbtParams::default().outline_tighten;
    // The skyline search (on by default) also draws the limb: the outlines' target is measured
    // without it, then the default.
    for (tighten, skyline) in [(0.0, false), (tight, false), (tight, true)] {
        let mut opts = test_renderer_options(&gpu.ctx);
        opts.cbt.outline_tighten = tighten;
        opts.publish.skyline = skyline;
        let mut r =
            PlanetRenderer::new(&gpu.ctx, earth_source(), opts, gpu.exec.frames_in_flight())
                .unwrap();
        let mut f = render(&mut gpu, &mut r, &cam);
        for _ in 0..3 {
            f = render(&mut gpu, &mut r, &cam);
        }
        save(&format!("limb_asia_{tighten:.2}_{skyline}"), &cam, &f);
        let (inside, wrong) = sky_inside_the_datum(&cam, &f);
        println!(
            "residual tightened by {tighten}, skyline search {skyline}: {wrong} of {inside} \
             datum pixels drawn as sky"
        );
        counts.push(wrong);
        r.destroy(&gpu.ctx);
    }
    // Measured: 34 without the outlines' target, 9 with it, of 136,388 datum pixels; 1 with
    // the skyline search too.
    assert!(
        counts[0] >= 20,
        "the edges' target leaves sky inside the limb: {counts:?}"
    );
    assert!(
        counts[1] * 3 <= counts[0],
        "the outlines' target draws the limb: {counts:?}"
    );
    assert!(
        counts[2] <= counts[1],
        "the skyline search adds no sky inside the limb: {counts:?}"
    );
    gpu.assert_clean();
}

#[test]
fn nadir_latlon_at_the_centre_pixel() {
    let mut gpu = Gpu::new();
    let src = earth_source();
    let mut r = PlanetRenderer::new(
        &gpu.ctx,
        src.clone(),
        test_renderer_options(&gpu.ctx),
        gpu.exec.frames_in_flight(),
    )
    .unwrap();
    let (lat, lon) = (46.55, 8.0); // Bernese Alps
    let cam = ViewCamera::geo(lat, lon, R + 10_000.0, 0.0, -90.0, 60.0, 65, 65);
    let mut f = render(&mut gpu, &mut r, &cam);
    for _ in 0..6 {
        f = render(&mut gpu, &mut r, &cam);
    }
    save("nadir_alps", &cam, &f);
    let c = f.aov[(32 * 65 + 32) as usize];
    assert!(c.is_terrain(), "terrain at the centre");
    let (la, lo) = c.latlon();
    assert!(
        (la - lat).abs() < 1e-4 && (lo - lon).abs() < 1e-4,
        "centre pixel at {la}, {lo} (camera {lat}, {lon})"
    );
    let _ = latlon_to_dir(lat, lon);
    r.destroy(&gpu.ctx);
    gpu.assert_clean();
}

#[test]
fn two_metres_in_the_himalaya_has_no_holes() {
    let mut gpu = Gpu::new();
    let src = earth_source();
    let mut r = PlanetRenderer::new(
        &gpu.ctx,
        src.clone(),
        test_renderer_options(&gpu.ctx),
        gpu.exec.frames_in_flight(),
    )
    .unwrap();
    // Khumbu valley, looking north towards Everest, level.
    let (lat, lon) = (27.90, 86.83);
    let (w, h) = (96u32, 64u32);
    let cam = ViewCamera::geo(
        lat,
        lon,
        R + earth_ground(lat, lon) + 2.0,
        10.0,
        0.0,
        60.0,
        w,
        h,
    );
    let mut f = render(&mut gpu, &mut r, &cam);
    for _ in 0..30 {
        f = render(&mut gpu, &mut r, &cam);
    }
    save("two_metres_himalaya", &cam, &f);
    let lod = r.lod_params(&cam);
    let reference = engine::reference::render(r.residency(), &lod, r.body, &cam, src.max_relief());
    let gpu_terrain = |x: u32, y: u32| f.aov[(y * w + x) as usize].is_terrain();
    let (mut holes, mut silhouette, mut covers_sky, mut terrain_px) = (0, 0, 0, 0);
    for y in 0..h {
        for x in 0..w {
            let cpu = reference[(y * w + x) as usize].is_some();
            let g = gpu_terrain(x, y);
            terrain_px += cpu as u32;
            if cpu && !g {
                // See-through: sky shows although GPU terrain lies above in the same column.
                if (0..y).any(|yy| gpu_terrain(x, yy)) {
                    holes += 1;
                } else {
                    silhouette += 1;
                }
            }
            covers_sky += (!cpu && g) as u32;
        }
    }
    println!("2 m Himalaya: {terrain_px} terrain px, {holes} holes, {silhouette} silhouette px, {covers_sky} covers-sky px");
    assert!(
        terrain_px > (w * h / 3),
        "the view shows terrain ({terrain_px} px)"
    );
    assert_eq!(holes, 0, "see-through holes");
    assert!(
        (0..w).all(|x| !gpu_terrain(x, 0) && reference[x as usize].is_none()),
        "sky above (top row)"
    );
    // The mesh silhouette follows the surface within a pixel: mismatches are a thin line.
    assert!(
        silhouette + covers_sky <= 2 * w,
        "{silhouette} + {covers_sky} silhouette mismatches"
    );
    for a in &f.aov {
        assert!(
            a.dir
                .iter()
                .chain([a.dist, a.level].iter())
                .all(|v| v.is_finite()),
            "finite AOV: {a:?}"
        );
    }
    r.destroy(&gpu.ctx);
    gpu.assert_clean();
}

#[test]
fn descent_from_orbit_to_two_metres_is_finite_and_clean() {
    let mut gpu = Gpu::new();
    let src = earth_source();
    let mut r = PlanetRenderer::new(
        &gpu.ctx,
        src.clone(),
        test_renderer_options(&gpu.ctx),
        gpu.exec.frames_in_flight(),
    )
    .unwrap();
    let (lat, lon) = (27.90, 86.83);
    let top = earth_ground(lat, lon);
    let frames = 60;
    for i in 0..frames {
        // Altitude above ground falls geometrically from 20,000 km to 2 m; the view tilts up.
        let k = i as f64 / (frames - 1) as f64;
        let agl = 2.0 * (2.0e7f64 / 2.0).powf(1.0 - k);
        let pitch = -90.0 + 90.0 * k;
        let cam = ViewCamera::geo(lat, lon, R + top + agl, 10.0, pitch, 60.0, 48, 32);
        let f = render(&mut gpu, &mut r, &cam);
        for a in &f.aov {
            assert!(
                a.dir
                    .iter()
                    .chain([a.dist, a.level].iter())
                    .all(|v| v.is_finite()),
                "frame {i}: {a:?}"
            );
            assert!(
                !a.is_terrain() || (a.dist > 0.0 && a.dist < 3.0e7),
                "frame {i}: distance {}",
                a.dist
            );
        }
        gpu.assert_clean();
    }
    r.destroy(&gpu.ctx);
}

/// A tile table larger than the device's image array layers allow (the atlas is one array of
/// slots + 64 pages) is refused with a message naming the most it holds, not a Vulkan error.
#[test]
fn more_tile_slots_than_the_device_holds_is_refused_clearly() {
    let gpu = Gpu::new();
    let layers = gpu.ctx.info.max_image_array_layers;
    let mut opts = test_renderer_options(&gpu.ctx);
    opts.slots = layers - 63;
    let err = PlanetRenderer::new(&gpu.ctx, earth_source(), opts, gpu.exec.frames_in_flight())
        .err()
        .expect("a table one slot too large is refused");
    let msg = err.to_string();
    assert!(
        msg.contains("tile slots") && msg.contains(&format!("1 to {}", layers - 64)),
        "{msg}"
    );
    gpu.assert_clean();
}
