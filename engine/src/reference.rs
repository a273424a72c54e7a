//! The reference: a CPU ray caster (f64, multi-threaded) of exactly the surface the GPU draws —
//! the same resident tiles, the same level selection and blend (engine::surface) — producing a
//! terrain/sky mask and distance per pixel. It shares nothing with the GPU path but the surface
//! definition, so the GPU can be scored against it (TERRAIN.md §7b).

use crate::atlas::slots::Residency;
use crate::camera::ViewCamera;
use crate::earth::tile::Cover;
use crate::planet::Body;
use crate::surface::{height_at_point, locate, LodParams};
use glam::DVec3;

/// One pixel of the reference: distance along the ray to the first surface hit, or None.
pub type RefPixel = Option<f64>;

/// Ray of pixel (x, y) (centre), unit, in the camera's conventions (y down).
pub fn pixel_ray(cam: &ViewCamera, x: f64, y: f64) -> DVec3 {
    let t = (0.5 * cam.vfov).tan();
    let aspect = cam.width as f64 / cam.height as f64;
    let nx = (x / cam.width as f64) * 2.0 - 1.0;
    let ny = (y / cam.height as f64) * 2.0 - 1.0;
    (cam.forward + cam.right * (nx * t * aspect) - cam.up * (ny * t)).normalize()
}

/// Where the level selection measures its distance from: the ray's own eye, as the renderer
/// does, or a fixed point, which makes the surface the same for every eye (the pop metric's
/// floor: what two frames differ by when the surface does not move).
#[derive(Clone, Copy, Debug, Default)]
pub enum LodEye {
    #[default]
    Ray,
    Fixed(DVec3),
}

impl LodEye {
    fn distance(self, p: DVec3, t: f64) -> f64 {
        match self {
            LodEye::Ray => t,
            LodEye::Fixed(e) => (p - e).length(),
        }
    }
}

/// What a ray is cast against: the resident tiles, the level selection and where it measures
/// its distance from.
pub struct Target<'a> {
    pub res: &'a Residency,
    pub lod: &'a LodParams,
    pub body: Body,
    pub at: LodEye,
}

impl Target<'_> {
    /// Height of planet-centred point `p` at ray distance `t` above the blended surface under
    /// it (levels chosen from `at`'s distance).
    pub fn clearance(&self, p: DVec3, t: f64) -> f64 {
        let (h, _) = height_at_point(self.res, self.lod, p, self.at.distance(p, t));
        p.length() - self.body.radius - h
    }

    /// The least clearance of the ray over [t0, t1], sampled every `step` m, and where: below
    /// zero where the ray passes under the surface there. [`cast`]'s march steps at least
    /// 2 cm, so a crest the ray enters for less than that can be stepped over; this tells such
    /// a miss from a renderer's point off the surface.
    pub fn least_clearance(
        &self,
        eye: DVec3,
        d: DVec3,
        (t0, t1): (f64, f64),
        step: f64,
    ) -> (f64, f64) {
        let n = ((t1 - t0) / step).ceil().max(1.0) as usize;
        (0..=n)
            .map(|k| {
                let t = t0 + (t1 - t0) * k as f64 / n as f64;
                (t, self.clearance(eye + d * t, t))
            })
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .unwrap()
    }
}

/// Whether an ocean sample of the finest tile under `p` is among the four around it, as
/// `publish.resolve`'s `try_ocean` asks (land below the datum and lakes have none).
fn ocean_under(res: &Residency, lod: &LodParams, p: DVec3) -> bool {
    let (fs, s, tt) = locate(res, lod.max_level, p);
    let (i, j) = ((s - 0.5).floor() as i64, (tt - 0.5).floor() as i64);
    let at = |a: i64, b: i64| {
        fs.tile
            .cover((i + a).clamp(-4, 515), (j + b).clamp(-4, 515))
    };
    [(0, 0), (1, 0), (0, 1), (1, 1)]
        .iter()
        .any(|&(a, b)| at(a, b) == Cover::Ocean)
}

/// The first hit of the terrain or of the ocean: the datum sphere where the blended terrain
/// under it is the sea floor (hidden by the sea, as `publish.resolve` draws it); land below the
/// datum and lakes (at their level) are terrain.
pub fn cast(
    res: &Residency,
    lod: &LodParams,
    body: Body,
    eye: DVec3,
    d: DVec3,
    max_relief: f64,
) -> RefPixel {
    cast_from(res, lod, body, LodEye::Ray, eye, d, max_relief)
}

/// [`cast`] with the level selection's distance measured from `at`.
pub fn cast_from(
    res: &Residency,
    lod: &LodParams,
    body: Body,
    at: LodEye,
    eye: DVec3,
    d: DVec3,
    max_relief: f64,
) -> RefPixel {
    let target = Target { res, lod, body, at };
    let t_ocean = datum_distance(eye, d, body.radius);
    let ray = |t_max| march(&target, eye, d, max_relief, t_max);
    match (ray(t_ocean.unwrap_or(f64::INFINITY)), t_ocean) {
        (Some(t), _) => Some(t),
        (None, Some(to)) => {
            let p = eye + d * to;
            if target.clearance(p, to) > 0.0 && ocean_under(res, lod, p) {
                // The sea floor under the datum here: the ocean surface.
                Some(to)
            } else {
                // Land at the datum crossing: the terrain continues past it.
                ray(f64::INFINITY)
            }
        }
        (None, None) => None,
    }
}

/// Distance along `d` from `eye` to the datum sphere, if the ray meets it in front.
fn datum_distance(eye: DVec3, d: DVec3, radius: f64) -> Option<f64> {
    let b = eye.dot(d);
    let alt = eye.length() - radius;
    let c = alt * (eye.length() + radius);
    let disc = b * b - c;
    (disc >= 0.0 && b < 0.0 && alt > 0.0).then(|| c / (-b + disc.sqrt()))
}

/// March one ray up to `t_max`: steps bounded by the clearance over a slope bound, then
/// bisection to 1 mm (or 1e-7 of the distance) once the ray is below the surface.
fn march(target: &Target, eye: DVec3, d: DVec3, max_relief: f64, t_max: f64) -> RefPixel {
    // Skip to the shell [R − relief, R + relief]; miss if the ray never enters it.
    let top = target.body.radius + max_relief;
    let b = eye.dot(d);
    let c = eye.length_squared() - top * top;
    let disc = b * b - c;
    if disc < 0.0 {
        return None;
    }
    let (t_in, t_out) = (-b - disc.sqrt(), -b + disc.sqrt());
    let t_out = t_out.min(t_max);
    if t_out < 0.0 {
        return None;
    }
    let mut t = t_in.max(0.0);
    if t > t_out {
        return None;
    }
    let mut prev_t = t;
    let mut prev_c = target.clearance(eye + d * t, t.max(1e-3));
    if prev_c <= 0.0 {
        return Some(t);
    }
    // Terrain slopes stay below ~4:1 at these resolutions; steps use a safety factor on it.
    const SLOPE: f64 = 4.0;
    let mut steps = 0;
    while t < t_out && steps < 100_000 {
        steps += 1;
        let step = (prev_c / SLOPE).max(0.02 + 1e-5 * t);
        t += step;
        let cl = target.clearance(eye + d * t, t);
        if cl <= 0.0 {
            // Bisection between prev_t (above) and t (below).
            let (mut lo, mut hi) = (prev_t, t);
            for _ in 0..60 {
                let mid = 0.5 * (lo + hi);
                if target.clearance(eye + d * mid, mid) <= 0.0 {
                    hi = mid;
                } else {
                    lo = mid;
                }
                if hi - lo < (1e-3f64).max(1e-7 * hi) {
                    break;
                }
            }
            return Some(hi);
        }
        prev_t = t;
        prev_c = cl;
    }
    None
}

/// The whole image, rows spread over the machine's threads. Row-major, y down.
pub fn render(
    res: &Residency,
    lod: &LodParams,
    body: Body,
    cam: &ViewCamera,
    max_relief: f64,
) -> Vec<RefPixel> {
    render_from(res, lod, body, LodEye::Ray, cam, max_relief)
}

/// [`render`] with the level selection's distance measured from `at`.
pub fn render_from(
    res: &Residency,
    lod: &LodParams,
    body: Body,
    at: LodEye,
    cam: &ViewCamera,
    max_relief: f64,
) -> Vec<RefPixel> {
    let (w, h) = (cam.width as usize, cam.height as usize);
    let mut out = vec![None; w * h];
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2)
        .min(h.max(1));
    let rows_per = h.div_ceil(threads);
    std::thread::scope(|s| {
        for (k, chunk) in out.chunks_mut(rows_per * w).enumerate() {
            s.spawn(move || {
                for (i, px) in chunk.iter_mut().enumerate() {
                    let (x, y) = (i % w, k * rows_per + i / w);
                    let d = pixel_ray(cam, x as f64 + 0.5, y as f64 + 0.5);
                    *px = cast_from(res, lod, body, at, cam.eye, d, max_relief);
                }
            });
        }
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cbt::gpu::scene::residency_around;
    use crate::planet::cube::latlon_to_dir;
    use crate::source::AnalyticSource;

    /// The level selection measured from a fixed point: from the ray's own eye it is the
    /// renderer's surface; from a point far away it is the coarse levels' surface, which over
    /// rough ground meets the ray elsewhere.
    #[test]
    fn levels_chosen_from_a_fixed_point() {
        let body = Body { radius: 1.0e6 };
        let src = AnalyticSource::new(body, 6, 100.0, |d| {
            100.0 * (d.x * 4000.0).sin() * (d.y * 3000.0 + d.z * 2000.0).cos()
        });
        let dir = latlon_to_dir(10.0, 20.0);
        let res = residency_around(&src, dir, 6, 1);
        let lod = LodParams {
            texel0: body.texel0(),
            pixel_angle: 1e-3,
            lod_bias: 0.0,
            max_level: 6,
        };
        let eye = dir * (body.radius + 2_000.0);
        let east = DVec3::Z.cross(dir).normalize();
        // 1 in 5 down: the ground about 10 km ahead.
        let d = (east * 5.0 - dir).normalize();
        let own = cast(&res, &lod, body, eye, d, 100.0).expect("the ground ahead");
        let same = cast_from(&res, &lod, body, LodEye::Fixed(eye), eye, d, 100.0).expect("hit");
        assert!((own - same).abs() < 1e-3, "{own} against {same}");
        // From 3,000 km away every point takes L0's blend, whose 3 km texels smooth away the
        // bumps 1.6 km across.
        let far = LodEye::Fixed(eye + east * 3.0e6);
        let coarse = cast_from(&res, &lod, body, far, eye, d, 100.0).expect("hit");
        assert!((own - coarse).abs() > 1.0, "{own} against {coarse}");
    }
}
