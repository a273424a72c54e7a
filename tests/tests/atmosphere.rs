//! The atmosphere's LUTs (Hillaire 2020) on lavapipe under validation: the `atmos.*` nodes run
//! alone over their own frame constants, read back and checked against an independent f64
//! integration and physical sanity. Frames of the whole planet renderer, and what the LUTs do
//! to them, are in `atmosphere_render.rs`.

use engine::atmosphere::{
    Atmosphere, AtmosphereParams, AERIAL_SIZE, MULTISCATTER_SIZE, SEALEVEL_SIZE, SKYVIEW_SIZE,
    TRANSMITTANCE_SIZE,
};
use engine::camera::ViewCamera;
use engine::frame_constants::{FrameConstantBuffers, FrameConstants};
use engine::planet::Body;
use engine::renderer::local_sun;
use engine::surface::LodParams;
use framegraph::Graph;
use planetfall_tests::Gpu;

const R: f64 = 6_371_000.0;

/// The four LUTs of one frame, read back as rgb triples.
struct Luts {
    transmittance: Vec<[f32; 3]>,
    multiscatter: Vec<[f32; 3]>,
    skyview: Vec<[f32; 3]>,
    aerial: Vec<[f32; 3]>,
    sealevel: Vec<[f32; 3]>,
}

fn rgb(bytes: &[u8]) -> Vec<[f32; 3]> {
    let v: &[[f32; 4]] = bytemuck::cast_slice(bytes);
    v.iter().map(|p| [p[0], p[1], p[2]]).collect()
}

/// The atmosphere's nodes alone, over their own frame constants.
struct Lab {
    gpu: Gpu,
    atmos: Atmosphere,
    frame: FrameConstantBuffers,
}

impl Lab {
    fn new(params: AtmosphereParams) -> Lab {
        let gpu = Gpu::new();
        let n = gpu.exec.frames_in_flight();
        let atmos = Atmosphere::new(&gpu.ctx, params, n).unwrap();
        let frame = FrameConstantBuffers::new(&gpu.ctx, n).unwrap();
        Lab { gpu, atmos, frame }
    }

    /// Run a frame for `cam` with the sun at `sun_el` degrees (azimuth 270°, west) and read
    /// every LUT back.
    fn luts(&mut self, cam: &ViewCamera, sun_el: f64) -> Luts {
        let (gpu, body) = (&mut self.gpu, Body::EARTH);
        let (slot, _) = gpu.exec.begin_frame(&gpu.ctx).unwrap();
        let sun = local_sun(cam.eye, 270.0, sun_el);
        let c = FrameConstants::new(cam, body, sun, &LodParams::for_camera(body, cam), 1024);
        self.frame.write(slot, &c).unwrap();
        self.atmos.prepare(slot, &c, true).unwrap();
        let mut g = Graph::new();
        let f = self.frame.import(&mut g, slot);
        let l = self.atmos.declare(&mut g, f);
        g.readback("transmittance", l.transmittance);
        g.readback("multiscatter", l.multiscatter);
        g.readback("skyview", l.skyview);
        g.readback("aerial", l.aerial);
        g.readback("sealevel", l.sealevel);
        let compiled = g.compile(gpu.ctx.queue_setup()).unwrap();
        let out = gpu.exec.run(&gpu.ctx, compiled).unwrap();
        let get = |n: &str| rgb(out.readback(n).unwrap());
        Luts {
            transmittance: get("transmittance"),
            multiscatter: get("multiscatter"),
            skyview: get("skyview"),
            aerial: get("aerial"),
            sealevel: get("sealevel"),
        }
    }

    /// Free everything; fails on any validation message.
    fn finish(self) {
        let Lab { gpu, atmos, frame } = self;
        atmos.destroy(&gpu.ctx);
        frame.destroy(&gpu.ctx);
        gpu.assert_clean();
    }
}

/// Transmittance from radius `r` km along zenith cosine `mu` to the top, integrated here in
/// f64 with 20,000 midpoint steps from the published coefficients (not the shader's code).
fn transmittance_f64(p: &AtmosphereParams, r: f64, mu: f64) -> [f64; 3] {
    let top = p.bottom_radius_km + p.thickness_km;
    // Distance to the top sphere along the ray.
    let len = -r * mu + (r * r * (mu * mu - 1.0) + top * top).sqrt();
    let n = 20_000;
    let dt = len / n as f64;
    let mut depth = [0.0f64; 3];
    for i in 0..n {
        let t = (i as f64 + 0.5) * dt;
        let h = (r * r + t * t + 2.0 * r * t * mu).sqrt() - p.bottom_radius_km;
        let rayleigh = (-h / p.rayleigh_scale_height_km).exp();
        let mie = (-h / p.mie_scale_height_km).exp();
        let ozone = (1.0 - (h - p.ozone_center_km).abs() / p.ozone_half_width_km).max(0.0);
        for (c, d) in depth.iter_mut().enumerate() {
            *d += dt
                * (rayleigh * p.rayleigh_scattering[c]
                    + mie * (p.mie_scattering[c] + p.mie_absorption[c])
                    + ozone * p.ozone_absorption[c]);
        }
    }
    depth.map(|d| (-d).exp())
}

fn all_finite(name: &str, v: &[[f32; 3]]) {
    let bad = v
        .iter()
        .filter(|p| p.iter().any(|x| !x.is_finite() || *x < 0.0))
        .count();
    assert_eq!(
        bad,
        0,
        "{name}: {bad} of {} texels are NaN, Inf or negative",
        v.len()
    );
}

/// A camera 10 m over the mid-Atlantic (30° N, 40° W) looking west at the horizon.
fn sea_level_camera() -> ViewCamera {
    ViewCamera::geo(30.0, -40.0, R + 10.0, 270.0, 0.0, 60.0, 64, 48)
}

#[test]
fn luts_are_finite_and_transmittance_matches_an_f64_integration() {
    let params = AtmosphereParams::earth(Body::EARTH);
    let mut lab = Lab::new(params);
    let l = lab.luts(&sea_level_camera(), 30.0);
    let [tw, th] = TRANSMITTANCE_SIZE;
    let [mw, mh] = MULTISCATTER_SIZE;
    let [sw, sh] = SKYVIEW_SIZE;
    assert_eq!(l.transmittance.len(), (tw * th) as usize);
    assert_eq!(l.multiscatter.len(), (2 * mw * mh) as usize);
    assert_eq!(l.skyview.len(), (sw * sh) as usize);
    assert_eq!(l.aerial.len(), (2 * AERIAL_SIZE.pow(3)) as usize);
    for (name, v) in [
        ("atmos.transmittance", &l.transmittance),
        ("atmos.multiscatter", &l.multiscatter),
        ("atmos.skyview", &l.skyview),
        ("atmos.aerial", &l.aerial),
        ("atmos.sealevel", &l.sealevel),
    ] {
        all_finite(name, v);
    }
    // Texel (0, 0) is the zenith from the ground (its unit coordinates are exactly 0, 0).
    let zenith = transmittance_f64(&params, params.bottom_radius_km, 1.0);
    let gpu_zenith = l.transmittance[0];
    println!("zenith transmittance from sea level: LUT {gpu_zenith:?}, f64 {zenith:?}");
    for c in 0..3 {
        let e = (gpu_zenith[c] as f64 - zenith[c]).abs() / zenith[c];
        assert!(
            e < 0.02,
            "channel {c}: LUT {} vs f64 {} ({:.2} %)",
            gpu_zenith[c],
            zenith[c],
            100.0 * e
        );
    }
    // The ground row at every direction above the horizon: u = i/(w−1) is where the distance
    // to the top lies between its least (straight up, the thickness) and its greatest (to the
    // horizon, H): the ray's zenith cosine follows from the triangle (Bruneton 2017 §4).
    let (b, top) = (
        params.bottom_radius_km,
        params.bottom_radius_km + params.thickness_km,
    );
    let hz = (top * top - b * b).sqrt();
    let mut worst: f64 = 0.0;
    for i in (0..tw).step_by(15) {
        let u = i as f64 / (tw - 1) as f64;
        let d = (top - b) + u * (hz - (top - b));
        let mu = ((hz * hz - d * d) / (2.0 * b * d)).clamp(-1.0, 1.0);
        let want = transmittance_f64(&params, b, mu);
        let got = l.transmittance[i as usize];
        for c in 0..3 {
            // Near the horizon the transmittance is tiny: compare optical depths there.
            let e = ((got[c] as f64).ln() - want[c].ln()).abs() / want[c].ln().abs().max(1.0);
            worst = worst.max(e);
        }
    }
    println!("ground row: worst relative error {:.3} %", 100.0 * worst);
    assert!(worst < 0.02, "ground row: worst relative error {worst}");
    // The sky's irradiance on level ground with the sun at the zenith (second half of the
    // multiple-scattering buffer, ground row, μ_sun = 1) against a first-order estimate from
    // the coefficients: half the Rayleigh-scattered beam and (1 + g)/2 of the Mie-scattered
    // beam come down, over the direct beam's transmittance. The estimate ignores the
    // attenuation of the scattered light on its way down (the LUT's lower) and the higher
    // orders (higher): within 30 %. Clean air (aerosol optical depth 0.005) puts it at 3–16 %,
    // below the 10–20 % of a typical turbid day.
    let sky = l.multiscatter[(mw * mh + mw - 1) as usize];
    for c in 0..3 {
        let tau_r = params.rayleigh_scattering[c] * params.rayleigh_scale_height_km;
        let tau_m = params.mie_scattering[c] * params.mie_scale_height_km;
        let down =
            0.5 * (1.0 - (-tau_r).exp()) + 0.5 * (1.0 + params.mie_g) * (1.0 - (-tau_m).exp());
        let (ratio, estimate) = (sky[c] as f64 / zenith[c], down / zenith[c]);
        println!("channel {c}: sky/direct irradiance at noon {ratio:.4}, estimate {estimate:.4}");
        assert!(
            (ratio / estimate - 1.0).abs() < 0.3,
            "channel {c}: {ratio} vs {estimate}"
        );
    }
    // The top row sees no air above it toward the zenith.
    let top_zenith = l.transmittance[((th - 1) * tw) as usize];
    assert!(top_zenith.iter().all(|&t| t > 0.999), "{top_zenith:?}");
    lab.finish();
}

/// The aerial volume's transmittance at the far end of each froxel column that looks up from
/// 10 m over the sea, against an f64 integration of the extinction along the same ray to the
/// top of the atmosphere (the column's span): the slices, integrated one per thread, must
/// compose front to back into the whole ray's transmittance.
#[test]
fn aerial_columns_compose_to_the_transmittance_of_their_rays() {
    let params = AtmosphereParams::earth(Body::EARTH);
    let mut lab = Lab::new(params);
    let cam = sea_level_camera();
    let l = lab.luts(&cam, 30.0);
    let n = AERIAL_SIZE;
    let r0 = params.bottom_radius_km + 0.01; // the camera's 10 m (atmos_eye)
    let t = (0.5 * cam.vfov).tan();
    let aspect = cam.width as f64 / cam.height as f64;
    let up = cam.eye.normalize();
    let (mut worst, mut checked): (f64, usize) = (0.0, 0);
    for cy in 0..n / 2 - 1 {
        for cx in (0..n).step_by(3) {
            let ndc = |c: u32| (c as f64 + 0.5) / n as f64 * 2.0 - 1.0;
            let d =
                (cam.forward + ndc(cx) * t * aspect * cam.right - ndc(cy) * t * cam.up).normalize();
            let mu = d.dot(up);
            if mu <= 0.02 {
                continue;
            }
            let tau = transmittance_f64(&params, r0, mu).map(|t| -t.ln());
            let got = l.aerial[(2 * (((n - 1) * n + cy) * n + cx) + 1) as usize];
            for c in 0..3 {
                let rel = (-(got[c] as f64).ln() - tau[c]).abs() / tau[c];
                worst = worst.max(rel);
            }
            checked += 1;
        }
    }
    println!(
        "aerial: {checked} upward columns, worst optical-depth error {:.3} %",
        100.0 * worst
    );
    assert!(checked > 20, "{checked} columns checked");
    assert!(
        worst < 0.03,
        "optical depth to the end of a column off by {worst}"
    );
    lab.finish();
}

/// The sea-level LUT (what the ocean reflects, for any sun angle) against the sky-view LUT of
/// a camera 10 m over the sea, for sun angles on its layers and halfway between: every sky-view
/// texel above the horizon, located in the sea-level LUT through the parameterisations as
/// docs/atmosphere.md gives them (written out here in f64) and interpolated bilinearly there.
/// Both march the same air, so what differs is the interpolation: a wrong axis, order or
/// mapping shows as tens of per cent.
#[test]
fn the_sea_level_sky_is_the_sky_seen_from_the_sea() {
    use std::f64::consts::PI;
    let params = AtmosphereParams::earth(Body::EARTH);
    let mut lab = Lab::new(params);
    let [sw, sh] = SKYVIEW_SIZE;
    let [nx, ny, nz] = SEALEVEL_SIZE;
    // The sun's layers: elevation 90° → 0° → −20° on a square law about the horizon.
    let z0 = 90f64.sqrt() / (90f64.sqrt() + 20f64.sqrt());
    let elevation = |z: f64| {
        if z <= z0 {
            90.0 * (1.0 - z / z0).powi(2)
        } else {
            -20.0 * ((z - z0) / (1.0 - z0)).powi(2)
        }
    };
    let at = |l: &[[f32; 3]], x: u32, y: u32, z: u32| l[((z * ny + y) * nx + x) as usize];
    // (layer, bound on the median, bound on p95): between layers the sun's angle is
    // interpolated too, and near sunset the sky's colour moves fastest with it.
    for (k, p50, p95) in [
        (16.0, 0.01, 0.05),
        (40.0, 0.01, 0.05),
        (16.5, 0.02, 0.08),
        (30.5, 0.02, 0.08),
        (41.5, 0.02, 0.08),
    ] {
        let zenith = (90.0 - elevation(k / (nz - 1) as f64)).to_radians();
        let (z0, fz) = (k.floor() as u32, k - k.floor());
        let l = lab.luts(&sea_level_camera(), 90.0 - zenith.to_degrees());
        all_finite("atmos.sealevel", &l.sealevel);
        let mut errs = Vec::new();
        // Rows above the horizon: v = row/(h−1) < 0.5 (the sky-view's square law above it).
        for row in 0..sh {
            let v = row as f64 / (sh - 1) as f64;
            if v >= 0.5 {
                break;
            }
            // The sky-view's horizon from 10 m is 0.1° below level: the upper side spans
            // zenith angles [0, π/2 + 0.1°]; keep the rows up to level.
            let r = params.bottom_radius_km + 0.01;
            let beta = ((r * r - params.bottom_radius_km.powi(2)).sqrt() / r).acos();
            let q = 1.0 - 2.0 * v;
            let theta = (PI - beta) * (1.0 - q * q);
            if theta > 0.5 * PI {
                continue;
            }
            for col in 0..sw {
                let u = col as f64 / (sw - 1) as f64;
                let az = u * u * PI;
                let x = (1.0 - (1.0 - theta / (0.5 * PI)).max(0.0).sqrt()) * (nx - 1) as f64;
                let y = (az / PI).sqrt() * (ny - 1) as f64;
                let (x0, y0) = (x.floor() as u32, y.floor() as u32);
                let (x1, y1) = ((x0 + 1).min(nx - 1), (y0 + 1).min(ny - 1));
                let (fx, fy) = (x - x0 as f64, y - y0 as f64);
                let want = l.skyview[(row * sw + col) as usize];
                for (c, &want) in want.iter().enumerate() {
                    let g = |x, y| {
                        (1.0 - fz) * at(&l.sealevel, x, y, z0)[c] as f64
                            + fz * at(&l.sealevel, x, y, (z0 + 1).min(nz - 1))[c] as f64
                    };
                    let got = (1.0 - fy) * ((1.0 - fx) * g(x0, y0) + fx * g(x1, y0))
                        + fy * ((1.0 - fx) * g(x0, y1) + fx * g(x1, y1));
                    errs.push((got - want as f64).abs() / (want as f64).max(1e-6));
                }
            }
        }
        errs.sort_by(f64::total_cmp);
        let pick = |p: f64| errs[((errs.len() - 1) as f64 * p) as usize];
        println!(
            "sun zenith {:.1}°: sea-level LUT vs sky view from 10 m over {} values: median {:.3} %, p95 {:.3} %, max {:.3} %",
            zenith.to_degrees(),
            errs.len(),
            100.0 * pick(0.5),
            100.0 * pick(0.95),
            100.0 * pick(1.0)
        );
        assert!(pick(0.5) < p50, "median relative difference {}", pick(0.5));
        assert!(pick(0.95) < p95, "p95 relative difference {}", pick(0.95));
    }
    lab.finish();
}

/// Blue over red of a sky-view texel at azimuth column `col` (0: toward the sun) and row
/// `row` (0: zenith; (h−1)/2: the horizon).
fn blue_over_red(sky: &[[f32; 3]], col: u32, row: u32) -> f64 {
    let p = sky[(row * SKYVIEW_SIZE[0] + col) as usize];
    p[2] as f64 / p[0] as f64
}

#[test]
fn noon_zenith_is_bluer_than_the_horizon_and_sunset_reddens_the_horizon() {
    let mut lab = Lab::new(AtmosphereParams::earth(Body::EARTH));
    let cam = sea_level_camera();
    let noon = lab.luts(&cam, 80.0).skyview;
    let sunset = lab.luts(&cam, 1.0).skyview;
    assert!(!lab.atmos.recomputes(), "the persistent LUTs are made once");
    // Row 53 of 108 is the last above the horizon (v = 53/107 < 0.5).
    let horizon = SKYVIEW_SIZE[1] / 2 - 1;
    let (zen, hor) = (blue_over_red(&noon, 0, 0), blue_over_red(&noon, 0, horizon));
    println!("noon: zenith blue/red {zen:.3}, horizon blue/red {hor:.3}");
    assert!(
        zen > hor,
        "noon zenith bluer than the horizon: {zen} vs {hor}"
    );
    let set = 1.0 / blue_over_red(&sunset, 0, horizon);
    let day = 1.0 / blue_over_red(&noon, 0, horizon);
    println!("horizon toward the sun, red/blue: sunset {set:.3}, noon {day:.3}");
    assert!(
        set > day,
        "sunset horizon redder than at noon: {set} vs {day}"
    );
    // A change of air recomputes the persistent LUTs in the next frame, and only then.
    lab.atmos.params.rayleigh_scattering = lab.atmos.params.rayleigh_scattering.map(|b| 2.0 * b);
    let thick = lab.luts(&cam, 80.0);
    assert!(lab.atmos.recomputes(), "new parameters recompute the LUTs");
    let before = noon[0];
    let after = thick.skyview[0];
    println!("zenith at noon, twice the Rayleigh scattering: {before:?} → {after:?}");
    assert!(
        after[2] > before[2],
        "more Rayleigh scattering brightens the blue zenith"
    );
    lab.luts(&cam, 80.0);
    assert!(!lab.atmos.recomputes());
    // The exposure is applied in the shading: it leaves the LUTs as they are.
    lab.atmos.params.exposure *= 2.0;
    lab.luts(&cam, 80.0);
    assert!(!lab.atmos.recomputes(), "a new exposure recomputes nothing");
    lab.finish();
}
