//! Shading of the publish's hit records: `shade.terrain` (materials, light, sky; the debug
//! views) and, on request, `shade.aov` (exact per-pixel values — direction, distance, level,
//! water — for tests and tools).

use crate::atlas::SurfaceBindings;
use crate::atmosphere::AtmosphereLuts;
use crate::debug_view::DebugView;
use crate::earth::climate::Climate;
use framegraph::{BufferDesc, BufferRef, Context, GpuBuffer, Graph, ImageRef};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// The climate's grids on the GPU (`shaders/common/climate.glsl`, binding 27 of
/// `shade.terrain`): the f32 values of [`Climate::values`], uploaded by the first graph that
/// declares the shading (`shade.climate.upload`), and once more if a field computed on a
/// worker replaces the one drawn first ([`ClimateField::computing`]).
pub struct ClimateField {
    buf: GpuBuffer,
    /// The host copy until the upload has run.
    staging: GpuBuffer,
    /// The upload has been declared (atomic: `declare` takes `&self`).
    uploaded: AtomicBool,
    /// The frame ([`ClimateField::poll`]'s count) whose graph declared the last upload.
    uploaded_at: AtomicUsize,
    frame: usize,
    frames_in_flight: usize,
    /// The field a worker is computing, drawn once it lands.
    pending: Option<std::thread::JoinHandle<Climate>>,
}

impl ClimateField {
    pub fn new(
        ctx: &Context,
        climate: &Climate,
        frames_in_flight: usize,
    ) -> framegraph::Result<ClimateField> {
        let values = climate.values();
        let bytes: &[u8] = bytemuck::cast_slice(&values);
        let size = bytes.len() as u64;
        let mut staging = GpuBuffer::new(ctx, "shade.climate.staging", BufferDesc::upload(size))?;
        staging.write(0, bytes)?;
        Ok(ClimateField {
            buf: GpuBuffer::new(ctx, "shade.climate", BufferDesc::gpu(size))?,
            staging,
            uploaded: AtomicBool::new(false),
            uploaded_at: AtomicUsize::new(0),
            frame: 0,
            frames_in_flight,
            pending: None,
        })
    }

    /// Draw the field given to [`ClimateField::new`] until `make` (run on a worker thread)
    /// returns the one to draw instead. The Earth's takes about a second on two cores where the
    /// data directory does not hold it yet: the first frames do not wait for it.
    pub fn computing(mut self, make: impl FnOnce() -> Climate + Send + 'static) -> ClimateField {
        let worker = std::thread::Builder::new()
            .name("climate".into())
            .spawn(make);
        match worker {
            Ok(h) => self.pending = Some(h),
            Err(e) => log::warn!("no climate worker ({e}): the latitude belt stays"),
        }
        self
    }

    /// A field is still being computed.
    pub fn pending(&self) -> bool {
        self.pending.is_some()
    }

    /// Once a frame, before its graph is declared: lands the worker's field when it is done and
    /// the frame that uploaded the staging buffer last can no longer be in flight.
    pub fn poll(&mut self) -> framegraph::Result<()> {
        self.frame += 1;
        let done = self.pending.as_ref().is_some_and(|h| h.is_finished());
        let idle = self.uploaded.load(Ordering::Relaxed)
            && self.frame > self.uploaded_at.load(Ordering::Relaxed) + self.frames_in_flight;
        if !(done && idle) {
            return Ok(());
        }
        match self.pending.take().map(|h| h.join()) {
            Some(Ok(c)) => {
                let values = c.values();
                if values.len() * 4 == self.staging.desc.size as usize {
                    self.staging.write(0, bytemuck::cast_slice(&values))?;
                    self.uploaded.store(false, Ordering::Relaxed);
                } else {
                    log::warn!("climate field of another size: the latitude belt stays");
                }
            }
            Some(Err(_)) | None => log::warn!("climate worker failed: the latitude belt stays"),
        }
        Ok(())
    }

    /// The grid for this frame's shading (with its upload, when the staging copy is new).
    pub fn declare(&self, g: &mut Graph<'_>) -> BufferRef {
        let mut buf = g.import_buffer(&self.buf);
        if !self.uploaded.swap(true, Ordering::Relaxed) {
            self.uploaded_at.store(self.frame, Ordering::Relaxed);
            let src = g.import_buffer(&self.staging);
            g.transfer("shade.climate.upload")
                .copy_buffer(src, &mut buf, 0, 0, self.buf.desc.size);
        }
        buf
    }

    /// A worker still computing is left to finish on its own (about a second).
    pub fn destroy(self, ctx: &Context) {
        self.buf.destroy(ctx);
        self.staging.destroy(ctx);
    }
}

/// Declare `shade.terrain`, shading `hits` into `target` (RGBA8, storage) through the
/// atmosphere's LUTs, with the exposure `exposure.adapt` left in `exposure` (to which it adds
/// this frame's luminance measurement), its materials' wetness from `climate`
/// ([`ClimateField::declare`]).
#[allow(clippy::too_many_arguments)]
pub fn declare_terrain(
    g: &mut Graph<'_>,
    extent: [u32; 2],
    hits: ImageRef,
    surface: SurfaceBindings,
    atmos: AtmosphereLuts,
    mut exposure: BufferRef,
    climate: BufferRef,
    target: &mut ImageRef,
    view: DebugView,
    skips: Skips,
) {
    g.compute("shade.terrain", &shaders::SHADE_TERRAIN)
        .read("frame", surface.frame)
        .read("slots", surface.slots)
        .read("tile_heights", surface.heights)
        .read("hits", hits)
        .read("atmos", atmos.params)
        .read("transmittance", atmos.transmittance)
        .read("multiscatter", atmos.multiscatter)
        .read("skyview", atmos.skyview)
        .read("aerial", atmos.aerial)
        .read("sealevel", atmos.sealevel)
        .read("climate", climate)
        .write("exposure", &mut exposure)
        .write("color", target)
        .push(&[
            view.shade_mode(),
            atmos.sealevel_ready as u32,
            skips.shade_bits(),
            atmos.skyview_ready as u32,
        ])
        .dispatch_threads([extent[0], extent[1], 1]);
}

/// One pixel of `shade.aov` (three vec4, `shaders/shade/aov.comp`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct AovPixel {
    /// Unit direction of the hit from the planet centre.
    pub dir: [f32; 3],
    /// Distance along the ray, metres (0: no terrain).
    pub dist: f32,
    /// Level chosen for the hit (−1: no terrain).
    pub level: f32,
    /// 1 where the hit is water.
    pub water: f32,
    pub slot: f32,
    /// 1 where the surface-following correction moved the hit.
    pub corrected: f32,
    /// The published shading normal, unit, planet axes (as the hit record's octahedral
    /// 2×16-bit encoding gives it back); 0 where no terrain.
    pub normal: [f32; 3],
    /// Surface walks (locate + blended chain) `publish.resolve` took for the pixel (0 where
    /// no terrain or sky): where the resolve's time goes.
    pub walks: f32,
}

impl AovPixel {
    pub fn is_terrain(&self) -> bool {
        self.level >= 0.0
    }
    pub fn is_water(&self) -> bool {
        self.water > 0.5
    }
    /// Latitude, longitude in degrees (f64 from the f32 direction).
    pub fn latlon(&self) -> (f64, f64) {
        let d = glam::DVec3::new(self.dir[0] as f64, self.dir[1] as f64, self.dir[2] as f64);
        crate::planet::dir_to_latlon(d)
    }
}

/// Declare `shade.aov` (per pixel: an [`AovPixel`]).
pub fn declare_aov(
    g: &mut Graph<'_>,
    extent: [u32; 2],
    hits: ImageRef,
    surface: SurfaceBindings,
) -> BufferRef {
    let mut aov = g.create_buffer(
        "shade.aov",
        BufferDesc::gpu(
            std::mem::size_of::<AovPixel>() as u64 * extent[0] as u64 * extent[1] as u64,
        ),
    );
    g.compute("shade.aov", &shaders::SHADE_AOV)
        .read("frame", surface.frame)
        .read("slots", surface.slots)
        .read("tile_heights", surface.heights)
        .read("hits", hits)
        .write("aov", &mut aov)
        .dispatch_threads([extent[0], extent[1], 1]);
    aov
}

/// Parts of the frame left out to attribute their cost (`--skip`, docs/bench.md "Where a
/// frame's time goes"): the bench's per-node times with and without a part are what it
/// costs. The image is wrong by design while any is set; none is by default.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Skips(u32);

impl Skips {
    /// `publish.resolve`'s root search along the ray (the hit stays on the chord).
    pub const ROOT_SEARCH: Skips = Skips(1 << 0);
    /// `shade.terrain`'s aerial perspective (no air between the eye and the ground).
    pub const AERIAL: Skips = Skips(1 << 1);
    /// Its water and snow shares over the pixel's footprint (land pixels: no water, the snow
    /// of the centre's height).
    pub const FOOTPRINT: Skips = Skips(1 << 2);
    /// Its climate field (every material at one wetness and region height).
    pub const CLIMATE: Skips = Skips(1 << 3);
    /// Its sum of the image's luminance for the auto exposure (the exposure stays put).
    pub const EXPOSURE_SUM: Skips = Skips(1 << 4);
    /// Its sun transmittance and sky irradiance at the point (constants instead).
    pub const LIGHT: Skips = Skips(1 << 5);
    /// The ocean's waves (a flat sea under the same slope variance).
    pub const WAVES: Skips = Skips(1 << 6);

    /// Names on the command line, in bit order.
    pub const NAMES: [(&'static str, Skips); 7] = [
        ("root-search", Skips::ROOT_SEARCH),
        ("aerial", Skips::AERIAL),
        ("footprint", Skips::FOOTPRINT),
        ("climate", Skips::CLIMATE),
        ("exposure-sum", Skips::EXPOSURE_SUM),
        ("light", Skips::LIGHT),
        ("waves", Skips::WAVES),
    ];

    pub fn contains(self, part: Skips) -> bool {
        self.0 & part.0 == part.0
    }

    /// A comma-separated list of names (`all`: every part).
    pub fn parse(list: &str) -> Result<Skips, String> {
        let mut s = Skips(0);
        for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            if name == "all" {
                s.0 |= Skips::NAMES.iter().fold(0, |a, (_, p)| a | p.0);
                continue;
            }
            let part = Skips::NAMES
                .iter()
                .find(|(n, _)| *n == name)
                .ok_or_else(|| {
                    format!(
                        "unknown part {name:?}; known: all, {}",
                        Skips::NAMES.map(|(n, _)| n).join(", ")
                    )
                })?;
            s.0 |= part.1 .0;
        }
        Ok(s)
    }

    /// The names set, comma-separated ("" for none).
    pub fn names(self) -> String {
        Skips::NAMES
            .iter()
            .filter(|(_, p)| self.contains(*p))
            .map(|(n, _)| *n)
            .collect::<Vec<_>>()
            .join(",")
    }

    /// `shade.terrain`'s push constant (`SKIP_*` in `shaders/shade/terrain.comp`).
    fn shade_bits(self) -> u32 {
        self.0 >> 1
    }
}

#[cfg(test)]
mod skip_tests {
    use super::Skips;

    #[test]
    fn skips_parse_their_names_and_name_an_unknown_one() {
        assert_eq!(Skips::parse(""), Ok(Skips::default()));
        let s = Skips::parse("aerial, waves").unwrap();
        assert!(s.contains(Skips::AERIAL) && s.contains(Skips::WAVES));
        assert!(!s.contains(Skips::ROOT_SEARCH));
        assert_eq!(s.names(), "aerial,waves");
        assert_eq!(s.shade_bits(), 1 | 1 << 5);
        let all = Skips::parse("all").unwrap();
        assert_eq!(all.names().split(',').count(), Skips::NAMES.len());
        let e = Skips::parse("aerial,fog").unwrap_err();
        assert!(e.contains("\"fog\"") && e.contains("root-search"), "{e}");
    }
}
