//! Headless frames of the planet renderer on lavapipe under validation, checked for what the
//! atmosphere does to them: the sky's colour, the persistent LUTs of a first frame without
//! shading, auto exposure, and the viewer's preview frame. The LUTs alone, against an f64
//! integration, are in `atmosphere.rs`.

use engine::atmosphere::LutSizes;
use engine::camera::ViewCamera;
use engine::renderer::{local_sun, PlanetRenderer};
use framegraph::Graph;
use planetfall_tests::{earth_source, planet_frame, test_renderer_options, write_png, Gpu};

const R: f64 = 6_371_000.0;

/// Mean rgb over rows [y0, y1) of an RGBA8 image `w` wide.
fn mean_rgb(rgba: &[u8], w: u32, y0: u32, y1: u32) -> [f64; 3] {
    let mut s = [0.0; 3];
    for y in y0..y1 {
        for x in 0..w {
            let i = ((y * w + x) * 4) as usize;
            for c in 0..3 {
                s[c] += rgba[i + c] as f64;
            }
        }
    }
    s.map(|v| v / ((y1 - y0) * w) as f64)
}

/// `render` at 128×96 over the mid-Atlantic: looking up 60° with the sun 60° high, the top
/// fifth is blue (> 1.2 × red); looking west at the horizon with the sun 1° high in the west,
/// the band just above the horizon is red (> 1.2 × blue). From 400 km, space above the limb
/// is black and the limb glows.
#[test]
fn rendered_sky_is_blue_above_and_red_at_sunset() {
    let mut gpu = Gpu::new();
    let src = earth_source();
    let mut r = PlanetRenderer::new(
        &gpu.ctx,
        src,
        test_renderer_options(&gpu.ctx),
        gpu.exec.frames_in_flight(),
    )
    .unwrap();
    let (w, h) = (128u32, 96u32);
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    let mut frame = |r: &mut PlanetRenderer, cam: &ViewCamera, name: &str| {
        let mut f = planet_frame(&mut gpu, r, cam);
        for _ in 0..3 {
            f = planet_frame(&mut gpu, r, cam);
        }
        write_png(&dir.join(format!("{name}.png")), w, h, &f.rgba);
        f
    };

    let up = ViewCamera::geo(30.0, -40.0, R + 10.0, 0.0, 60.0, 60.0, w, h);
    r.sun = Some(local_sun(up.eye, 135.0, 60.0));
    let f = frame(&mut r, &up, "sky_up");
    let top = mean_rgb(&f.rgba, w, 0, h / 5);
    println!(
        "looking up, top fifth rgb {top:.1?}: blue/red {:.2}",
        top[2] / top[0]
    );
    assert!(top[2] > 1.2 * top[0], "top fifth blue > 1.2 × red: {top:?}");

    let west = ViewCamera::geo(30.0, -40.0, R + 10.0, 270.0, 0.0, 60.0, w, h);
    r.sun = Some(local_sun(west.eye, 270.0, 1.0));
    let f = frame(&mut r, &west, "sky_sunset");
    // The horizon: the first row of the centre column with terrain (the ocean) in it.
    let x = w / 2;
    let horizon = (0..h)
        .find(|&y| f.aov[(y * w + x) as usize].is_terrain())
        .expect("a horizon");
    let band = mean_rgb(&f.rgba, w, horizon.saturating_sub(8), horizon);
    println!(
        "sunset: horizon at row {horizon}, band above rgb {band:.1?}: red/blue {:.2}",
        band[0] / band[2]
    );
    assert!(
        band[0] > 1.2 * band[2],
        "band above the horizon red > 1.2 × blue: {band:?}"
    );

    let limb = ViewCamera::geo(30.0, -40.0, R + 400_000.0, 270.0, -15.0, 60.0, w, h);
    r.sun = Some(local_sun(limb.eye, 180.0, 40.0));
    let f = frame(&mut r, &limb, "limb_400km");
    let edge = (0..h)
        .find(|&y| f.aov[(y * w + x) as usize].is_terrain())
        .expect("the planet");
    // Down the centre column: space, then the limb's glow, then the planet.
    let lum = |y: u32| {
        let i = ((y * w + x) * 4) as usize;
        f.rgba[i..i + 3].iter().map(|&v| v as f64).sum::<f64>() / 3.0
    };
    let space = (0..edge.saturating_sub(8)).map(lum).fold(0.0, f64::max);
    let glow = (edge.saturating_sub(8)..edge).map(lum).fold(0.0, f64::max);
    let lit_rows = (0..edge).filter(|&y| lum(y) > 10.0).count();
    println!(
        "400 km: planet edge at row {edge}, space at most {space:.1}, limb glow {glow:.1}, {lit_rows} lit sky rows"
    );
    assert!(space < 3.0, "space above the limb is black: {space}");
    assert!(
        glow > 60.0,
        "the limb glows above the planet's edge: {glow}"
    );
    // 100 km of air seen edge-on from 400 km (~2,300 km away) spans ~4 rows at 0.63°/row.
    assert!(lit_rows <= 4, "the limb is thin: {lit_rows} rows");
    r.destroy(&gpu.ctx);
    gpu.assert_clean();
}

/// A renderer whose first frame is the CBT debug view (no shading) still makes its persistent
/// LUTs then: the next, shaded frame has a sky.
#[test]
fn a_first_frame_without_shading_still_makes_the_persistent_luts() {
    use engine::debug_view::DebugView;
    use engine::renderer::FrameRequest;
    let mut gpu = Gpu::new();
    let mut r = PlanetRenderer::new(
        &gpu.ctx,
        earth_source(),
        test_renderer_options(&gpu.ctx),
        gpu.exec.frames_in_flight(),
    )
    .unwrap();
    let (w, h) = (32u32, 24u32);
    let cam = ViewCamera::geo(30.0, -40.0, R + 10.0, 0.0, 60.0, 60.0, w, h);
    let mut run = |r: &mut PlanetRenderer, view: DebugView| {
        let (slot, _) = gpu.exec.begin_frame(&gpu.ctx).unwrap();
        let req = FrameRequest {
            cam,
            frame_slot: slot,
            view,
            aov: false,
        };
        r.prepare(&gpu.ctx, req).unwrap();
        let mut g = Graph::new();
        let desc = framegraph::ImageDesc::d2(w, h, ash::vk::Format::R8G8B8A8_UNORM);
        let mut target = g.create_image("target", desc);
        r.declare(&mut g, &mut target).unwrap();
        g.readback_image("color", target);
        let compiled = g.compile(gpu.ctx.queue_setup()).unwrap();
        let out = gpu.exec.run(&gpu.ctx, compiled).unwrap();
        out.readback("color").unwrap().to_vec()
    };
    run(&mut r, DebugView::Cbt);
    assert!(r.atmosphere.recomputes(), "the first frame makes them");
    let rgba = run(&mut r, DebugView::Shaded);
    assert!(!r.atmosphere.recomputes(), "made in the first frame");
    let sky = mean_rgb(&rgba, w, 0, h / 5);
    println!("sky after a CBT-view first frame: {sky:.1?}");
    assert!(sky[2] > 1.2 * sky[0], "a blue sky: {sky:?}");
    r.destroy(&gpu.ctx);
    gpu.assert_clean();
}

/// Display value (exposure × luminance, before the tonemap) of an sRGB byte, by inverting the
/// sRGB transfer function and the ACES fit of `shade.terrain` (docs/atmosphere.md).
fn display_value(byte: u8) -> f64 {
    let v = byte as f64 / 255.0;
    let y = if v <= 0.04045 {
        v / 12.92
    } else {
        ((v + 0.055) / 1.055).powf(2.4)
    };
    // y = x(2.51x + 0.03) / (x(2.43x + 0.59) + 0.14), solved for x ≥ 0.
    let (a, b, c) = (2.43 * y - 2.51, 0.59 * y - 0.03, 0.14 * y);
    (-b - (b * b - 4.0 * a * c).sqrt()) / (2.0 * a)
}

/// Per pixel, the luminance of the display values (None where a channel is near black or
/// white, where the inversion is ill-conditioned).
fn display_luminance(rgba: &[u8]) -> Vec<Option<f64>> {
    rgba.chunks(4)
        .map(|p| {
            p[..3].iter().all(|&c| (10..=245).contains(&c)).then(|| {
                let x = [0, 1, 2].map(|k| display_value(p[k]));
                0.2126 * x[0] + 0.7152 * x[1] + 0.0722 * x[2]
            })
        })
        .collect()
}

/// Auto exposure puts the scene's geometric mean luminance at the key. The same view is
/// rendered at the fixed default (5) and with `ExposureMode::Auto`; from the fixed image the
/// test recovers the scene's luminance (inverting sRGB and ACES), computes the exposure the rule
/// asks for (the key over the geometric mean, within ±2 stops of 5), and compares it with the
/// exposure the auto image was made with (its display values over the fixed image's, × 5):
/// within 0.15 stop. Scenes without the sun or its glint in view (their pixels saturate, so the
/// test cannot measure them; the shading counts them, clamped): the sea at 2 km with the sun
/// 20° high behind the camera, and the noon sky looking up.
#[test]
fn auto_exposure_puts_the_geometric_mean_at_the_key() {
    use engine::exposure::ExposureMode;
    let mut gpu = Gpu::new();
    let (w, h) = (96u32, 64u32);
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    let scenes = [
        (
            "sea_2km",
            ViewCamera::geo(30.0, -40.0, R + 2_000.0, 270.0, -5.0, 60.0, w, h),
            90.0,
            20.0,
        ),
        (
            "sky_up",
            ViewCamera::geo(30.0, -40.0, R + 10.0, 0.0, 60.0, 60.0, w, h),
            135.0,
            60.0,
        ),
    ];
    for (name, cam, az, el) in scenes {
        let mut images = Vec::new();
        for mode in [ExposureMode::Fixed(5.0), ExposureMode::Auto] {
            let mut opts = test_renderer_options(&gpu.ctx);
            opts.exposure = mode;
            let mut r =
                PlanetRenderer::new(&gpu.ctx, earth_source(), opts, gpu.exec.frames_in_flight())
                    .unwrap();
            r.sun = Some(local_sun(cam.eye, az, el));
            let mut f = planet_frame(&mut gpu, &mut r, &cam);
            for _ in 0..3 {
                f = planet_frame(&mut gpu, &mut r, &cam);
            }
            write_png(
                &dir.join(format!("exposure_{name}_{mode:?}.png")),
                w,
                h,
                &f.rgba,
            );
            images.push(f.rgba);
            r.destroy(&gpu.ctx);
        }
        let (fixed, auto) = (display_luminance(&images[0]), display_luminance(&images[1]));
        let logs: Vec<f64> = fixed.iter().flatten().map(|x| (x / 5.0).log2()).collect();
        assert!(
            logs.len() > (w * h / 2) as usize,
            "{name}: most pixels measurable"
        );
        let mean = logs.iter().sum::<f64>() / logs.len() as f64;
        let want = (engine::exposure::AUTO_KEY / mean.exp2()).clamp(5.0 / 4.0, 5.0 * 4.0);
        let mut ratios: Vec<f64> = fixed
            .iter()
            .zip(&auto)
            .filter_map(|(f, a)| Some((a.as_ref()? / f.as_ref()?).log2()))
            .collect();
        ratios.sort_by(f64::total_cmp);
        assert!(!ratios.is_empty(), "{name}: pixels measurable in both");
        let got = 5.0 * ratios[ratios.len() / 2].exp2();
        println!(
            "{name}: geometric mean luminance 2^{mean:.2}, the rule's exposure {want:.3}, the \
             auto image's {got:.3} ({} pixels)",
            ratios.len()
        );
        assert!(
            (got / want).log2().abs() < 0.15,
            "{name}: auto exposure {got:.3}, want {want:.3}"
        );
    }
    gpu.assert_clean();
}

/// A preview frame (the viewer's first: `Atmosphere::preview_next`) makes the LUTs at half
/// size and no sea-level sky, and its image is close to the full path's; the next frame makes
/// every LUT at full size, and from then on the image is the one a renderer that never
/// previewed makes, byte for byte.
#[test]
fn a_preview_frame_is_close_and_the_next_frame_is_the_full_path() {
    let mut gpu = Gpu::new();
    let (w, h) = (96u32, 64u32);
    // The Strait of Gibraltar from 300 km, looking north-east: the Atlantic, the Alboran
    // Sea, Spain and Morocco.
    let cam = ViewCamera::geo(35.0, -7.0, R + 300_000.0, 45.0, -45.0, 60.0, w, h);
    let make = |gpu: &Gpu| {
        let mut r = PlanetRenderer::new(
            &gpu.ctx,
            earth_source(),
            test_renderer_options(&gpu.ctx),
            gpu.exec.frames_in_flight(),
        )
        .unwrap();
        // The same clock (the waves move with it) and sun in both renderers.
        r.set_frame_period(Some(1.0 / 60.0));
        r.sun = Some(local_sun(cam.eye, 135.0, 30.0));
        r
    };
    let (mut full, mut preview) = (make(&gpu), make(&gpu));
    preview.atmosphere.preview_next();
    let p0 = planet_frame(&mut gpu, &mut preview, &cam);
    assert!(
        !preview.atmosphere.sealevel_ready(),
        "no sea-level sky in a preview"
    );
    assert_eq!(preview.atmosphere.sizes(), LutSizes::PREVIEW);
    let f0 = planet_frame(&mut gpu, &mut full, &cam);
    assert!(full.atmosphere.sealevel_ready());
    assert_eq!(full.atmosphere.sizes(), LutSizes::FULL);
    // Mean |difference| per channel (of 255) over land and over water.
    let (mut n, mut diff) = ([0u32; 2], [0.0f64; 2]);
    for (i, a) in f0.aov.iter().enumerate().filter(|(_, a)| a.is_terrain()) {
        let k = a.is_water() as usize;
        let (p, q) = (&p0.rgba[4 * i..4 * i + 3], &f0.rgba[4 * i..4 * i + 3]);
        n[k] += 1;
        diff[k] += p
            .iter()
            .zip(q)
            .map(|(&x, &y)| (x as f64 - y as f64).abs())
            .sum::<f64>()
            / 3.0;
    }
    let [land, water] = [0, 1].map(|k| diff[k] / n[k].max(1) as f64);
    println!(
        "preview vs full first frame: {} land pixels differ by {land:.2}, {} water pixels by {water:.2} (of 255, mean)",
        n[0], n[1]
    );
    assert!(
        n[0] > 100 && n[1] > 100,
        "the view holds land and sea: {n:?}"
    );
    assert!(land < 1.0, "half-size LUTs shade the land alike: {land:.2}");
    assert!(water > land, "the water reflects the stand-in sky");
    assert!(
        water < 10.0,
        "the stand-in sky is the same sky on average: {water:.2}"
    );
    let p1 = planet_frame(&mut gpu, &mut preview, &cam);
    assert!(
        preview.atmosphere.sealevel_ready(),
        "made by the second frame"
    );
    assert_eq!(preview.atmosphere.sizes(), LutSizes::FULL);
    let f1 = planet_frame(&mut gpu, &mut full, &cam);
    assert!(
        p1.rgba == f1.rgba,
        "from the second frame on, the image of the full path"
    );
    full.destroy(&gpu.ctx);
    preview.destroy(&gpu.ctx);
    gpu.assert_clean();
}

/// The per-view LUTs are made only when what they read changes, and the sky view only where
/// the sky may show. A still camera at the horizon: its second frame makes neither
/// (`atmos.skyview` and `atmos.aerial` absent from its GPU times) and its sky's pixels are
/// the first frame's bytes, at a fixed exposure. Turned to look 60° down from 100 m, every
/// ray meets the ground: no sky view is made, and no pixel shows sky.
#[test]
fn a_still_camera_makes_the_view_luts_once_and_the_ground_no_sky_view() {
    use engine::debug_view::DebugView;
    use engine::exposure::ExposureMode;
    use engine::renderer::FrameRequest;
    let mut gpu = Gpu::new();
    let mut opts = test_renderer_options(&gpu.ctx);
    opts.exposure = ExposureMode::Fixed(5.0);
    let mut r =
        PlanetRenderer::new(&gpu.ctx, earth_source(), opts, gpu.exec.frames_in_flight()).unwrap();
    let (w, h) = (48u32, 32u32);
    let mut run = |r: &mut PlanetRenderer, cam: &ViewCamera| {
        let (slot, _) = gpu.exec.begin_frame(&gpu.ctx).unwrap();
        let req = FrameRequest {
            cam: *cam,
            frame_slot: slot,
            view: DebugView::Shaded,
            aov: true,
        };
        r.prepare(&gpu.ctx, req).unwrap();
        let made = r.atmosphere.makes_view_luts();
        let mut g = Graph::new();
        let desc = framegraph::ImageDesc::d2(w, h, ash::vk::Format::R8G8B8A8_UNORM);
        let mut target = g.create_image("target", desc);
        let aov = r.declare(&mut g, &mut target).unwrap().unwrap();
        g.readback_image("color", target);
        g.readback("aov", aov);
        let compiled = g.compile(gpu.ctx.queue_setup()).unwrap();
        let out = gpu.exec.run(&gpu.ctx, compiled).unwrap();
        let names: Vec<String> = out.times.iter().map(|t| t.name.clone()).collect();
        let aov: Vec<engine::shade::AovPixel> =
            bytemuck::cast_slice(out.readback("aov").unwrap()).to_vec();
        (made, names, out.readback("color").unwrap().to_vec(), aov)
    };
    let horizon = ViewCamera::geo(30.0, -40.0, R + 10.0, 270.0, 0.0, 60.0, w, h);
    let (made, names, first, aov) = run(&mut r, &horizon);
    assert_eq!(made, (true, true), "the first frame makes both");
    assert!(names.iter().any(|n| n == "atmos.skyview"), "{names:?}");
    let sky: Vec<usize> = (0..aov.len()).filter(|&i| !aov[i].is_terrain()).collect();
    assert!(
        sky.len() > (w * h / 4) as usize,
        "the horizon view shows sky: {}",
        sky.len()
    );
    let (made, names, second, _) = run(&mut r, &horizon);
    assert_eq!(made, (false, false), "a still camera makes neither again");
    assert!(
        !names
            .iter()
            .any(|n| n == "atmos.skyview" || n == "atmos.aerial"),
        "{names:?}"
    );
    let differ = sky
        .iter()
        .filter(|&&i| first[4 * i..4 * i + 3] != second[4 * i..4 * i + 3])
        .count();
    assert_eq!(differ, 0, "sky pixels that changed in a still frame");

    let down = ViewCamera::geo(30.0, -40.0, R + 100.0, 270.0, -60.0, 60.0, w, h);
    let (made, names, _, aov) = run(&mut r, &down);
    assert_eq!(
        made,
        (false, true),
        "looking down: the froxels, no sky view"
    );
    assert!(!names.iter().any(|n| n == "atmos.skyview"), "{names:?}");
    let sky = aov.iter().filter(|a| !a.is_terrain()).count();
    assert_eq!(sky, 0, "no pixel shows sky looking 60° down");
    r.destroy(&gpu.ctx);
    gpu.assert_clean();
}
