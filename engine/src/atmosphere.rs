//! The atmosphere after Hillaire 2020 ("A Scalable and Production Ready Sky and Atmosphere
//! Rendering Technique", EGSR; docs/atmosphere.md): Earth's parameters in one place with
//! units, and the LUT nodes that precompute light in air for the shading.
//!
//! In frame order: `atmos.transmittance` (transmittance to the top of the atmosphere per height
//! and zenith angle) → `atmos.multiscatter` (isotropic multiple-scattering transfer Ψ_ms per
//! height and sun angle, and the sky's irradiance on level ground) — both persistent, computed
//! only when the parameters change — then `atmos.skyview` (sky luminance around the camera,
//! horizon-weighted) and `atmos.aerial` (in-scattering and transmittance in 32³ froxels over
//! the frustum), persistent too but made again whenever what they are functions of changes:
//! the eye's height and the sun for the sky view, the whole camera for the froxels. A still
//! camera makes neither, and no frame makes the sky view while every pixel's ray meets the
//! ground ([`sky_may_show`]). `atmos.sealevel` (the sky seen from the sea for any sun angle,
//! which the ocean reflects) is persistent like the first two. `shade.terrain` reads them all.
//!
//! A preview frame ([`Atmosphere::preview_next`]: the viewer's first) makes the LUTs at half
//! their size on each axis and leaves `atmos.sealevel` to the next frame, which makes them all
//! at full size.

use crate::camera::ViewCamera;
use crate::frame_constants::FrameConstants;
use crate::params::STREAM_MIN_HEIGHT_M;
use crate::planet::Body;
use bytemuck::{Pod, Zeroable};
use framegraph::{BufferDesc, BufferRef, Context, GpuBuffer, Graph};

/// Transmittance LUT, texels (μ, r): Hillaire's 256×64.
pub const TRANSMITTANCE_SIZE: [u32; 2] = [256, 64];
/// Multiple-scattering LUT, texels (μ_sun, r): Hillaire's 32×32.
pub const MULTISCATTER_SIZE: [u32; 2] = [32, 32];
/// Sky-view LUT, texels (azimuth to the sun, zenith angle): Hillaire's 192×108.
pub const SKYVIEW_SIZE: [u32; 2] = [192, 108];
/// Aerial-perspective volume: froxels per side (screen x, screen y, depth): Hillaire's 32³.
/// `atmos.aerial` runs a workgroup of this many threads (one per depth slice) per column.
pub const AERIAL_SIZE: u32 = 32;
/// Sky seen from the sea, texels (view zenith, azimuth to the sun, sun zenith): what the ocean
/// reflects, looked up instead of marched per pixel. 64 zenith texels, denser toward the
/// horizon; 32 in azimuth, denser toward the sun; 64 sun elevations from 90° to −20°, denser
/// about the horizon (0.05° apart there, 4° at the zenith).
pub const SEALEVEL_SIZE: [u32; 3] = [64, 32, 64];

/// A planet's air. Lengths in kilometres, coefficients per kilometre (at the ground, or at the
/// ozone peak), as Hillaire's paper and Bruneton's model give them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AtmosphereParams {
    /// Datum radius, km: Hillaire's 6,360 km Earth is mapped onto the body's radius.
    pub bottom_radius_km: f64,
    /// Thickness of the atmosphere above the datum, km.
    pub thickness_km: f64,
    /// Rayleigh scattering at the ground, per km (680, 550, 440 nm).
    pub rayleigh_scattering: [f64; 3],
    /// Rayleigh density scale height, km.
    pub rayleigh_scale_height_km: f64,
    /// Mie scattering at the ground, per km.
    pub mie_scattering: [f64; 3],
    /// Mie absorption at the ground, per km (extinction − scattering).
    pub mie_absorption: [f64; 3],
    /// Mie density scale height, km.
    pub mie_scale_height_km: f64,
    /// Cornette-Shanks asymmetry of Mie scattering.
    pub mie_g: f64,
    /// Ozone absorption at its peak, per km.
    pub ozone_absorption: [f64; 3],
    /// Height of the ozone peak above the datum, km.
    pub ozone_center_km: f64,
    /// Half width of the ozone tent, km: density falls linearly to zero this far from the peak.
    pub ozone_half_width_km: f64,
    /// Diffuse albedo of the ground, for light it bounces back into the air.
    pub ground_albedo: [f64; 3],
    /// Sun illuminance, relative units (the exposure maps them to display values).
    pub sun_illuminance: [f64; 3],
    /// Angular radius of the sun's disk, degrees (0.2666°: 0.533° across, seen from Earth).
    pub sun_angular_radius_deg: f64,
    /// Display value per unit of luminance before the tonemap: with a unit sun, a white
    /// Lambertian surface facing it has luminance 1/π, so 5 puts it at 1.6 before ACES (0.9
    /// after) — snow in full sun keeps some detail on the shoulder, and grass (linear albedo
    /// ~0.08) stays out of the toe (docs/atmosphere.md).
    pub exposure: f64,
}

impl AtmosphereParams {
    /// Earth's air (Hillaire 2020 §4 and its demo; Bruneton 2017 for ozone): Rayleigh from
    /// Bucholtz 1995 at 680/550/440 nm, Mie for a clear day with 1.2 km aerosols, ozone in a
    /// 30 km tent at 25 km, over the body's datum.
    pub fn earth(body: Body) -> AtmosphereParams {
        AtmosphereParams {
            bottom_radius_km: body.radius * 1e-3,
            thickness_km: 100.0,
            rayleigh_scattering: [5.802e-3, 13.558e-3, 33.1e-3],
            rayleigh_scale_height_km: 8.0,
            mie_scattering: [3.996e-3; 3],
            mie_absorption: [0.444e-3; 3],
            mie_scale_height_km: 1.2,
            mie_g: 0.8,
            ozone_absorption: [0.650e-3, 1.881e-3, 0.085e-3],
            ozone_center_km: 25.0,
            ozone_half_width_km: 15.0,
            ground_albedo: [0.3; 3],
            sun_illuminance: [1.0; 3],
            sun_angular_radius_deg: 0.2666,
            exposure: 5.0,
        }
    }

    /// What the persistent LUTs depend on: the air and the ground, not the sun's brightness or
    /// size (they hold light per unit sun illuminance) nor the exposure.
    pub fn air(&self) -> AtmosphereParams {
        AtmosphereParams {
            sun_illuminance: [0.0; 3],
            sun_angular_radius_deg: 0.0,
            exposure: 0.0,
            ..*self
        }
    }

    /// Density of air relative to the ground at `h` km: (Rayleigh, Mie, ozone).
    pub fn densities(&self, h: f64) -> (f64, f64, f64) {
        let h = h.max(0.0);
        let oz = 1.0 - (h - self.ozone_center_km).abs() / self.ozone_half_width_km;
        (
            (-h / self.rayleigh_scale_height_km).exp(),
            (-h / self.mie_scale_height_km).exp(),
            oz.max(0.0),
        )
    }

    /// Extinction at `h` km, per km, per channel.
    pub fn extinction(&self, h: f64) -> [f64; 3] {
        let (r, m, o) = self.densities(h);
        std::array::from_fn(|c| {
            r * self.rayleigh_scattering[c]
                + m * (self.mie_scattering[c] + self.mie_absorption[c])
                + o * self.ozone_absorption[c]
        })
    }

    /// The shaders' copy (`shaders/common/atmosphere.glsl`), with the full LUT sizes.
    pub fn gpu(&self) -> AtmosphereGpu {
        self.gpu_sized(LutSizes::FULL)
    }

    /// The shaders' copy with the LUT sizes `sizes`.
    pub fn gpu_sized(&self, sizes: LutSizes) -> AtmosphereGpu {
        let v = |a: [f64; 3]| a.map(|x| x as f32);
        AtmosphereGpu {
            rayleigh_scattering: v(self.rayleigh_scattering),
            bottom_radius: self.bottom_radius_km as f32,
            mie_scattering: v(self.mie_scattering),
            top_radius: (self.bottom_radius_km + self.thickness_km) as f32,
            mie_absorption: v(self.mie_absorption),
            rayleigh_scale_height: self.rayleigh_scale_height_km as f32,
            ozone_absorption: v(self.ozone_absorption),
            mie_scale_height: self.mie_scale_height_km as f32,
            ground_albedo: v(self.ground_albedo),
            mie_g: self.mie_g as f32,
            sun_illuminance: v(self.sun_illuminance),
            sun_angular_radius: self.sun_angular_radius_deg.to_radians() as f32,
            ozone_center: self.ozone_center_km as f32,
            ozone_half_width: self.ozone_half_width_km as f32,
            exposure: self.exposure as f32,
            aerial_size: AERIAL_SIZE,
            transmittance_size: sizes.transmittance,
            multiscatter_size: sizes.multiscatter,
            skyview_size: sizes.skyview,
            aerial_steps: AERIAL_STEPS,
            sky_steps: SKY_STEPS,
            sealevel_size: SEALEVEL_SIZE,
        }
    }
}

/// The sizes of the LUTs a frame makes or reads, texels (the shaders read them from the
/// parameters block, so any sizes work).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LutSizes {
    pub transmittance: [u32; 2],
    pub multiscatter: [u32; 2],
    pub skyview: [u32; 2],
}

impl LutSizes {
    /// Hillaire's sizes, for every frame but a preview.
    pub const FULL: LutSizes = LutSizes {
        transmittance: TRANSMITTANCE_SIZE,
        multiscatter: MULTISCATTER_SIZE,
        skyview: SKYVIEW_SIZE,
    };
    /// A preview frame's: half on each axis, a quarter of the cost (the LUT passes cost the
    /// same per texel).
    pub const PREVIEW: LutSizes = LutSizes {
        transmittance: [TRANSMITTANCE_SIZE[0] / 2, TRANSMITTANCE_SIZE[1] / 2],
        multiscatter: [MULTISCATTER_SIZE[0] / 2, MULTISCATTER_SIZE[1] / 2],
        skyview: [SKYVIEW_SIZE[0] / 2, SKYVIEW_SIZE[1] / 2],
    };
}

/// March steps per aerial-perspective slice: 32 slices × 2 steps along the densest column.
pub const AERIAL_STEPS: u32 = 2;
/// March steps per sky ray (sky view, and sky seen from above the atmosphere): 32, square-law
/// spaced; Hillaire uses 4–14 for the sky view, we keep margin for grazing limbs from orbit.
pub const SKY_STEPS: u32 = 32;

/// The atmosphere as the shaders read it (mirror of `AtmosphereBlock`, std430).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct AtmosphereGpu {
    pub rayleigh_scattering: [f32; 3],
    pub bottom_radius: f32,
    pub mie_scattering: [f32; 3],
    pub top_radius: f32,
    pub mie_absorption: [f32; 3],
    pub rayleigh_scale_height: f32,
    pub ozone_absorption: [f32; 3],
    pub mie_scale_height: f32,
    pub ground_albedo: [f32; 3],
    pub mie_g: f32,
    pub sun_illuminance: [f32; 3],
    pub sun_angular_radius: f32,
    pub ozone_center: f32,
    pub ozone_half_width: f32,
    pub exposure: f32,
    pub aerial_size: u32,
    pub transmittance_size: [u32; 2],
    pub multiscatter_size: [u32; 2],
    pub skyview_size: [u32; 2],
    pub aerial_steps: u32,
    pub sky_steps: u32,
    pub sealevel_size: [u32; 3],
}

/// The LUTs of one frame, as graph handles.
#[derive(Clone, Copy, Debug)]
pub struct AtmosphereLuts {
    pub params: BufferRef,
    /// vec4 per texel, rgb transmittance.
    pub transmittance: BufferRef,
    /// vec4 per texel: Ψ_ms (rgb) in the first half, sky irradiance (rgb) in the second.
    pub multiscatter: BufferRef,
    /// vec4 per texel, rgb sky luminance.
    pub skyview: BufferRef,
    /// Two vec4 per froxel: in-scattered luminance (rgb), transmittance (rgb).
    pub aerial: BufferRef,
    /// vec4 per texel, rgb sky luminance seen from the sea.
    pub sealevel: BufferRef,
    /// Whether `sealevel` holds the current air (made this frame or before); if not, the
    /// shading reflects a uniform sky instead ([`Atmosphere::preview_next`]).
    pub sealevel_ready: bool,
    /// Whether `skyview` holds this frame's sky (made this frame or before); if not, a pixel
    /// that shows sky marches its ray instead (only where no sky was expected: a hole).
    pub skyview_ready: bool,
}

/// Whether any pixel of `cam` may see past the ground, where the shading reads the sky-view
/// LUT: false where every ray of the frustum meets the ball of the lowest ground
/// ([`STREAM_MIN_HEIGHT_M`] under the datum of a planet of `radius`, m), in front of which
/// terrain or ocean fills the pixel. From outside a ball the rays that meet it form a circular
/// cone, which is convex, and every ray of the frustum is a positive combination of its four
/// corner rays: the corners inside the cone put every ray inside. Conservative: true from
/// inside that ball.
pub fn sky_may_show(cam: &ViewCamera, radius: f64) -> bool {
    let ball = radius + STREAM_MIN_HEIGHT_M;
    let to_centre = -cam.eye;
    let dist = to_centre.length();
    // (A NaN eye counts as inside.)
    if dist.is_nan() || dist <= ball {
        return true;
    }
    let axis = to_centre / dist;
    let cos_cone = (1.0 - (ball / dist).powi(2)).sqrt();
    let ty = (0.5 * cam.vfov).tan();
    let tx = ty * cam.width as f64 / cam.height.max(1) as f64;
    [(-1.0, -1.0), (1.0, -1.0), (-1.0, 1.0), (1.0, 1.0)]
        .iter()
        .any(|&(sx, sy)| {
            let d = (cam.forward + cam.right * (sx * tx) + cam.up * (sy * ty)).normalize();
            // A margin of 1e-9 rad for rounding: a corner on the cone's edge counts as outside.
            d.dot(axis) < cos_cone + 1e-9
        })
}

/// What a per-view LUT was made from: the persistent LUTs' generation, its size, and the
/// frame constants it reads (the clock zeroed: nothing in the air moves with it).
#[derive(Clone, Copy, PartialEq)]
struct ViewLutKey {
    generation: u64,
    size: [u32; 2],
    frame: [u32; std::mem::size_of::<FrameConstants>() / 4],
}

impl ViewLutKey {
    fn new(generation: u64, size: [u32; 2], consts: &FrameConstants) -> ViewLutKey {
        let mut c = *consts;
        c.time_s = 0.0;
        ViewLutKey {
            generation,
            size,
            frame: bytemuck::cast(c),
        }
    }

    /// The sky view's: of the frame constants, only the eye's height and the sun and the
    /// planet's directions (the LUT is laid out relative to the local up and the sun's
    /// azimuth, whichever way the camera looks).
    fn skyview(generation: u64, size: [u32; 2], consts: &FrameConstants) -> ViewLutKey {
        let mut c = FrameConstants::zeroed();
        c.eye_altitude = consts.eye_altitude;
        c.sun_dir = consts.sun_dir;
        c.planet_center = consts.planet_center;
        ViewLutKey::new(generation, size, &c)
    }
}

/// The atmosphere's persistent state: its parameters (one host-visible copy per frame slot),
/// the transmittance and multiple-scattering LUTs, and which parameters those hold.
pub struct Atmosphere {
    pub params: AtmosphereParams,
    params_bufs: Vec<GpuBuffer>,
    transmittance: GpuBuffer,
    multiscatter: GpuBuffer,
    sealevel: GpuBuffer,
    /// The air the transmittance and multiple-scattering LUTs were last declared for
    /// ([`AtmosphereParams::air`]), and whether at a preview's sizes.
    computed: Option<(AtmosphereParams, bool)>,
    /// The air the sea-level sky LUT was last declared for: a frame behind `computed` after a
    /// preview.
    sealevel_computed: Option<AtmosphereParams>,
    /// Whether the prepared frame recomputes the transmittance and multiple-scattering LUTs.
    recompute: bool,
    /// Whether the prepared frame recomputes the sea-level sky LUT.
    recompute_sealevel: bool,
    /// The next prepared frame is a preview ([`Atmosphere::preview_next`]).
    preview_next: bool,
    /// The prepared frame's LUT sizes.
    sizes: LutSizes,
    frame_slot: usize,
    /// Counts the transmittance and multiple-scattering LUTs' makings: the per-view LUTs read
    /// them.
    generation: u64,
    skyview: GpuBuffer,
    aerial: GpuBuffer,
    /// What `skyview` and `aerial` hold, once made.
    skyview_made: Option<ViewLutKey>,
    aerial_made: Option<ViewLutKey>,
    /// Whether the prepared frame makes them, and whether `skyview` then holds its sky.
    make_skyview: bool,
    make_aerial: bool,
    skyview_ready: bool,
}

const VEC4: u64 = 16;

impl Atmosphere {
    pub fn new(
        ctx: &Context,
        params: AtmosphereParams,
        frames_in_flight: usize,
    ) -> framegraph::Result<Atmosphere> {
        let size = std::mem::size_of::<AtmosphereGpu>() as u64;
        let params_bufs = (0..frames_in_flight.max(1))
            .map(|i| GpuBuffer::new(ctx, &format!("atmos.params{i}"), BufferDesc::upload(size)))
            .collect::<framegraph::Result<Vec<_>>>()?;
        let [tw, th] = TRANSMITTANCE_SIZE;
        let [mw, mh] = MULTISCATTER_SIZE;
        Ok(Atmosphere {
            params,
            params_bufs,
            transmittance: GpuBuffer::new(
                ctx,
                "atmos.transmittance",
                BufferDesc::gpu(VEC4 * (tw * th) as u64),
            )?,
            multiscatter: GpuBuffer::new(
                ctx,
                "atmos.multiscatter",
                BufferDesc::gpu(2 * VEC4 * (mw * mh) as u64),
            )?,
            sealevel: GpuBuffer::new(
                ctx,
                "atmos.sealevel",
                BufferDesc::gpu(VEC4 * SEALEVEL_SIZE.iter().map(|&n| n as u64).product::<u64>()),
            )?,
            computed: None,
            sealevel_computed: None,
            recompute: false,
            recompute_sealevel: false,
            preview_next: false,
            sizes: LutSizes::FULL,
            frame_slot: 0,
            generation: 0,
            skyview: GpuBuffer::new(
                ctx,
                "atmos.skyview",
                BufferDesc::gpu(VEC4 * (SKYVIEW_SIZE[0] * SKYVIEW_SIZE[1]) as u64),
            )?,
            aerial: GpuBuffer::new(
                ctx,
                "atmos.aerial",
                BufferDesc::gpu(2 * VEC4 * (AERIAL_SIZE * AERIAL_SIZE * AERIAL_SIZE) as u64),
            )?,
            skyview_made: None,
            aerial_made: None,
            make_skyview: false,
            make_aerial: false,
            skyview_ready: false,
        })
    }

    /// Host work of a frame: write the parameters to the slot's buffer; the persistent LUTs
    /// are recomputed when the air differs from the one they hold (the first frame too) or
    /// they were a preview's, the sea-level sky's unless this frame is a preview; the per-view
    /// ones when what they read of `consts` (or of those LUTs) changed, the sky view only
    /// while `sky_may_show` (see [`sky_may_show`]).
    pub fn prepare(
        &mut self,
        frame_slot: usize,
        consts: &FrameConstants,
        sky_may_show: bool,
    ) -> framegraph::Result<()> {
        let preview = std::mem::take(&mut self.preview_next);
        let air = self.params.air();
        self.recompute = match self.computed {
            Some((held, small)) if held == air => small && !preview,
            _ => true,
        };
        if self.recompute {
            self.computed = Some((air, preview));
            self.generation += 1;
        }
        self.recompute_sealevel = self.sealevel_computed != Some(air) && !preview;
        if self.recompute_sealevel {
            self.sealevel_computed = Some(air);
        }
        // The persistent LUTs at the sizes they were made at; the sky view at this frame's.
        let small = self.computed.is_some_and(|(_, small)| small);
        let persistent = if small {
            LutSizes::PREVIEW
        } else {
            LutSizes::FULL
        };
        let frame = if preview {
            LutSizes::PREVIEW
        } else {
            LutSizes::FULL
        };
        self.sizes = LutSizes {
            skyview: frame.skyview,
            ..persistent
        };
        let sky = ViewLutKey::skyview(self.generation, self.sizes.skyview, consts);
        self.make_skyview = sky_may_show && self.skyview_made != Some(sky);
        if self.make_skyview {
            self.skyview_made = Some(sky);
        }
        self.skyview_ready = self.skyview_made == Some(sky);
        let aerial = ViewLutKey::new(self.generation, [AERIAL_SIZE; 2], consts);
        self.make_aerial = self.aerial_made != Some(aerial);
        if self.make_aerial {
            self.aerial_made = Some(aerial);
        }
        let n = self.params_bufs.len();
        self.frame_slot = frame_slot % n;
        let gpu = self.params.gpu_sized(self.sizes);
        self.params_bufs[self.frame_slot].write(0, bytemuck::bytes_of(&gpu))?;
        Ok(())
    }

    /// Make the next prepared frame a preview, cheap and replaced at once (the viewer's
    /// first): its LUTs at [`LutSizes::PREVIEW`], and no `atmos.sealevel` — the ocean reflects
    /// a uniform sky of the same irradiance on level ground (E/π, from `atmos.multiscatter`),
    /// dimmer toward the horizon than the real one. The frame after makes every LUT at full
    /// size. (On llvmpipe at 640×360 the full LUTs were 2.0 s of a 4.5 s first frame,
    /// `atmos.sealevel` 1.3 s of it.)
    pub fn preview_next(&mut self) {
        self.preview_next = true;
    }

    /// The prepared frame's LUT sizes.
    pub fn sizes(&self) -> LutSizes {
        self.sizes
    }

    /// Whether the prepared frame recomputes the transmittance and multiple-scattering LUTs.
    pub fn recomputes(&self) -> bool {
        self.recompute
    }

    /// Whether the prepared frame makes `atmos.skyview` and `atmos.aerial`.
    pub fn makes_view_luts(&self) -> (bool, bool) {
        (self.make_skyview, self.make_aerial)
    }

    /// Whether the prepared frame's sea-level sky LUT holds the current air (made in this
    /// frame or an earlier one).
    pub fn sealevel_ready(&self) -> bool {
        self.sealevel_computed.is_some() && self.sealevel_computed == self.computed.map(|c| c.0)
    }

    /// Declare the prepared frame's atmosphere: `atmos.transmittance` → `atmos.multiscatter`
    /// when the parameters changed, `atmos.sealevel` when they changed and it is not deferred
    /// (or was deferred by the frame before), then `atmos.skyview` and `atmos.aerial` for
    /// `frame` where [`Atmosphere::prepare`] found them out of date.
    pub fn declare(&self, g: &mut Graph<'_>, frame: BufferRef) -> AtmosphereLuts {
        let params = g.import_buffer(&self.params_bufs[self.frame_slot]);
        let mut transmittance = g.import_buffer(&self.transmittance);
        let mut multiscatter = g.import_buffer(&self.multiscatter);
        let mut sealevel = g.import_buffer(&self.sealevel);
        if self.recompute {
            let [tw, th] = self.sizes.transmittance;
            g.compute("atmos.transmittance", &shaders::ATMOS_TRANSMITTANCE)
                .read("atmos", params)
                .write("transmittance", &mut transmittance)
                .dispatch_threads([tw, th, 1]);
            let [mw, mh] = self.sizes.multiscatter;
            g.compute("atmos.multiscatter", &shaders::ATMOS_MULTISCATTER)
                .read("atmos", params)
                .read("transmittance", transmittance)
                .write("multiscatter", &mut multiscatter)
                .dispatch_threads([mw, mh, 1]);
        }
        if self.recompute_sealevel {
            g.compute("atmos.sealevel", &shaders::ATMOS_SEALEVEL)
                .read("atmos", params)
                .read("transmittance", transmittance)
                .read("multiscatter", multiscatter)
                .write("sealevel", &mut sealevel)
                .dispatch_threads(SEALEVEL_SIZE);
        }
        // A per-view LUT: the frame and the persistent LUTs in, `out` (binding `binding`) made.
        let view_lut = |g: &mut Graph<'_>, node, shader, binding, out: &mut BufferRef, threads| {
            g.compute(node, shader)
                .read("frame", frame)
                .read("atmos", params)
                .read("transmittance", transmittance)
                .read("multiscatter", multiscatter)
                .write(binding, out)
                .dispatch_threads(threads);
        };
        let mut skyview = g.import_buffer(&self.skyview);
        if self.make_skyview {
            let [sw, sh] = self.sizes.skyview;
            let shader = &shaders::ATMOS_SKYVIEW;
            view_lut(
                g,
                "atmos.skyview",
                shader,
                "skyview",
                &mut skyview,
                [sw, sh, 1],
            );
        }
        let mut aerial = g.import_buffer(&self.aerial);
        if self.make_aerial {
            let a = AERIAL_SIZE;
            view_lut(
                g,
                "atmos.aerial",
                &shaders::ATMOS_AERIAL,
                "aerial",
                &mut aerial,
                [a, a, a],
            );
        }
        AtmosphereLuts {
            params,
            transmittance,
            multiscatter,
            skyview,
            aerial,
            sealevel,
            sealevel_ready: self.sealevel_ready(),
            skyview_ready: self.skyview_ready,
        }
    }

    pub fn destroy(self, ctx: &Context) {
        for b in self.params_bufs {
            b.destroy(ctx);
        }
        self.transmittance.destroy(ctx);
        self.multiscatter.destroy(ctx);
        self.sealevel.destroy(ctx);
        self.skyview.destroy(ctx);
        self.aerial.destroy(ctx);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `sky_may_show` against rays cast through a 65×49 grid over the whole frustum (pixel
    /// edges included) and tested against the lowest ground's ball in f64: it says the sky
    /// may show exactly where some ray misses the ball, over cameras from 2 m to 40,000 km
    /// looking from straight down to straight up.
    #[test]
    fn the_sky_may_show_where_some_ray_misses_the_lowest_ground() {
        let radius = 6_371_000.0;
        let ball = radius + STREAM_MIN_HEIGHT_M;
        let mut shows = [0, 0];
        for &alt in &[2.0, 100.0, 1_000.0, 20_000.0, 400_000.0, 4.0e6, 4.0e7] {
            for pitch in (-90..=90).step_by(5) {
                for &(fov, w, h) in &[
                    (60.0, 1920u32, 1080u32),
                    (20.0, 320, 180),
                    (100.0, 200, 400),
                ] {
                    let cam =
                        ViewCamera::geo(27.0, 86.0, radius + alt, 30.0, pitch as f64, fov, w, h);
                    let (ty, tx) = (
                        (0.5 * cam.vfov).tan(),
                        (0.5 * cam.vfov).tan() * w as f64 / h as f64,
                    );
                    let misses = (0..=64).any(|i| {
                        (0..=48).any(|j| {
                            let sx = -1.0 + 2.0 * i as f64 / 64.0;
                            let sy = -1.0 + 2.0 * j as f64 / 48.0;
                            let d = (cam.forward + cam.right * (sx * tx) + cam.up * (sy * ty))
                                .normalize();
                            // |eye + t·d| = ball has a root with t > 0.
                            let b = cam.eye.dot(d);
                            let c = cam.eye.length_squared() - ball * ball;
                            !(b < 0.0 && b * b - c >= 0.0)
                        })
                    });
                    let may = sky_may_show(&cam, radius);
                    assert_eq!(may, misses, "alt {alt} pitch {pitch} fov {fov}");
                    shows[may as usize] += 1;
                }
            }
        }
        // Both answers occur: the test sees cameras of each kind.
        assert!(shows[0] > 50 && shows[1] > 50, "{shows:?}");
    }

    /// The GLSL block's member names and offsets, read back from a compiled shader, equal the
    /// Rust struct's.
    #[test]
    fn glsl_block_matches_the_struct() {
        use std::mem::offset_of;
        macro_rules! members {
            ($($f:ident),*) => { vec![$((stringify!($f).to_string(), offset_of!(AtmosphereGpu, $f) as u32)),*] };
        }
        let rust = members!(
            rayleigh_scattering,
            bottom_radius,
            mie_scattering,
            top_radius,
            mie_absorption,
            rayleigh_scale_height,
            ozone_absorption,
            mie_scale_height,
            ground_albedo,
            mie_g,
            sun_illuminance,
            sun_angular_radius,
            ozone_center,
            ozone_half_width,
            exposure,
            aerial_size,
            transmittance_size,
            multiscatter_size,
            skyview_size,
            aerial_steps,
            sky_steps,
            sealevel_size
        );
        let words = shaders::SHADE_TERRAIN.words();
        let glsl = crate::frame_constants::tests::block_members(&words, "AtmosphereBlock");
        assert_eq!(glsl, rust);
        assert_eq!(std::mem::size_of::<AtmosphereGpu>(), 156);
    }

    /// Earth's vertical optical depth at 550 nm: Rayleigh ≈ 0.108 (Bucholtz 1995 gives
    /// 0.097 at 550 nm for a standard atmosphere; Hillaire's coefficient with H = 8 km gives
    /// 13.558e-3 × 8), plus Mie and ozone: the sky is clear (T ≈ 0.85–0.9 at noon).
    #[test]
    fn earth_zenith_optical_depth_is_that_of_a_clear_sky() {
        let p = AtmosphereParams::earth(Body::EARTH);
        let n = 100_000;
        let dh = p.thickness_km / n as f64;
        let tau: f64 = (0..n)
            .map(|i| p.extinction((i as f64 + 0.5) * dh)[1] * dh)
            .sum();
        assert!(
            (0.12..0.2).contains(&tau),
            "zenith optical depth at 550 nm {tau}"
        );
    }
}
