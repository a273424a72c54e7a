//! The per-frame constants every shader reads (mirror of `shaders/common/frame.glsl`): built
//! whole, once per frame, from the f64 camera by [`FrameConstants::new`], written to this frame
//! slot's buffer in the renderer's prepare step and bound as their own graph handle. Every
//! vector is camera-relative: nothing planet-sized is subtracted on the GPU.

use crate::camera::ViewCamera;
use crate::planet::Body;
use crate::surface::LodParams;
use bytemuck::{Pod, Zeroable};
use framegraph::{BufferDesc, BufferRef, Context, GpuBuffer, Graph};
use glam::{DMat4, DVec3, DVec4, Mat4};

#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct FrameConstants {
    /// Camera-relative world → clip (reverse-Z, infinite far).
    pub view_proj: [[f32; 4]; 4],
    pub cam_forward: [f32; 3],
    pub tan_half_vfov: f32,
    pub cam_right: [f32; 3],
    /// Width / height.
    pub aspect: f32,
    pub cam_up: [f32; 3],
    /// Angle of the centre pixel, radians (the CBT criterion's and the level selection's unit).
    pub pixel_angle: f32,
    /// Planet centre relative to the camera, metres (culls only: f32 loses metres here).
    pub planet_center: [f32; 3],
    /// Datum radius, metres.
    pub planet_radius: f32,
    pub sun_dir: [f32; 3],
    /// Camera height above the datum, metres, subtracted in f64: the horizon tests need it
    /// without the cancellation of |planet_center| − radius in f32.
    pub eye_altitude: f32,
    /// Width, height, px.
    pub viewport: [f32; 2],
    pub inv_viewport: [f32; 2],
    /// Texel size at L0, metres.
    pub texel0: f32,
    /// Finest level the level selection may choose.
    pub max_level: u32,
    /// Tile lookup table size − 1 (a power of two).
    pub lookup_mask: u32,
    /// Added to the continuous level of detail.
    pub lod_bias: f32,
    /// The renderer's clock, seconds: what moves with time (the ocean's waves) reads it.
    /// f32 keeps 1 ms for 4.6 hours of running.
    pub time_s: f32,
}

/// Near plane of the reverse-Z infinite projection, metres: small enough for walking height,
/// and with reverse-Z float depth the precision at kilometres is still ample.
pub const NEAR_M: f64 = 0.05;

/// Camera-relative world → clip: reverse-Z (1 at the near plane, 0 at infinity), y down in
/// framebuffer coordinates as Vulkan expects.
pub fn view_proj(cam: &ViewCamera) -> Mat4 {
    let (f, r, u) = (cam.forward, cam.right, cam.up);
    // View: x right, y down, z forward.
    let view = DMat4::from_cols(
        DVec4::new(r.x, -u.x, f.x, 0.0),
        DVec4::new(r.y, -u.y, f.y, 0.0),
        DVec4::new(r.z, -u.z, f.z, 0.0),
        DVec4::new(0.0, 0.0, 0.0, 1.0),
    );
    let t = (0.5 * cam.vfov).tan();
    let aspect = cam.width as f64 / cam.height as f64;
    // x_clip = x/(t·aspect), y_clip = y/t, z_clip = near, w_clip = z  → depth = near/z.
    let proj = DMat4::from_cols(
        DVec4::new(1.0 / (t * aspect), 0.0, 0.0, 0.0),
        DVec4::new(0.0, 1.0 / t, 0.0, 0.0),
        DVec4::new(0.0, 0.0, 0.0, 1.0),
        DVec4::new(0.0, 0.0, NEAR_M, 0.0),
    );
    (proj * view).as_mat4()
}

impl FrameConstants {
    /// What a surface walk reads of the constants besides the level selection's distance terms
    /// (recomputed every time): the finest level it may choose and the datum radius. The key of
    /// `TileAtlas::surface_clock`: where it changes, `cbt.eval`'s memos are stale.
    pub fn memo_key(&self) -> u64 {
        ((self.max_level as u64) << 32) | self.planet_radius.to_bits() as u64
    }

    /// The frame's constants: `lod` is the level selection the CPU mirror uses too
    /// (`crate::surface`), `lookup_size` the tile lookup table's size (a power of two).
    pub fn new(
        cam: &ViewCamera,
        body: Body,
        sun_dir: DVec3,
        lod: &LodParams,
        lookup_size: u32,
    ) -> FrameConstants {
        debug_assert!(lookup_size.is_power_of_two());
        let v3 = |v: DVec3| [v.x as f32, v.y as f32, v.z as f32];
        let (w, h) = (cam.width as f32, cam.height as f32);
        FrameConstants {
            view_proj: view_proj(cam).to_cols_array_2d(),
            cam_forward: v3(cam.forward),
            tan_half_vfov: (0.5 * cam.vfov).tan() as f32,
            cam_right: v3(cam.right),
            aspect: (cam.width as f64 / cam.height as f64) as f32,
            cam_up: v3(cam.up),
            pixel_angle: lod.pixel_angle as f32,
            planet_center: v3(-cam.eye),
            planet_radius: body.radius as f32,
            sun_dir: v3(sun_dir.normalize()),
            eye_altitude: (cam.eye.length() - body.radius) as f32,
            viewport: [w, h],
            inv_viewport: [1.0 / w, 1.0 / h],
            texel0: lod.texel0 as f32,
            max_level: lod.max_level as u32,
            lookup_mask: lookup_size - 1,
            lod_bias: lod.lod_bias as f32,
            time_s: 0.0,
        }
    }

    /// The same constants at the renderer's clock `time_s` (seconds).
    pub fn at_time(self, time_s: f64) -> FrameConstants {
        FrameConstants {
            time_s: time_s as f32,
            ..self
        }
    }
}

/// One host-visible constants buffer per frame slot: written in the prepare step (the slot's
/// previous frame has finished), imported by the declare step.
pub struct FrameConstantBuffers {
    bufs: Vec<GpuBuffer>,
}

impl FrameConstantBuffers {
    pub fn new(ctx: &Context, frames_in_flight: usize) -> framegraph::Result<Self> {
        let size = std::mem::size_of::<FrameConstants>() as u64;
        let bufs = (0..frames_in_flight.max(1))
            .map(|i| {
                GpuBuffer::new(
                    ctx,
                    &format!("frame.constants{i}"),
                    BufferDesc::upload(size),
                )
            })
            .collect::<framegraph::Result<Vec<_>>>()?;
        Ok(FrameConstantBuffers { bufs })
    }

    pub fn write(&mut self, frame_slot: usize, c: &FrameConstants) -> framegraph::Result<()> {
        let n = self.bufs.len();
        self.bufs[frame_slot % n].write(0, bytemuck::bytes_of(c))
    }

    pub fn import(&self, g: &mut Graph<'_>, frame_slot: usize) -> BufferRef {
        g.import_buffer(&self.bufs[frame_slot % self.bufs.len()])
    }

    pub fn destroy(self, ctx: &Context) {
        for b in self.bufs {
            b.destroy(ctx);
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn projection_maps_axis_to_centre_and_edges_to_ndc_bounds() {
        let cam = ViewCamera::geo(10.0, 20.0, 7e6, 30.0, -10.0, 60.0, 200, 100);
        let m = view_proj(&cam).as_dmat4();
        let p = |v: DVec3| {
            let c = m * v.extend(1.0);
            (c.x / c.w, c.y / c.w, c.z / c.w)
        };
        let (x, y, z) = p(cam.forward * 10.0);
        assert!(x.abs() < 1e-6 && y.abs() < 1e-6 && (z - NEAR_M / 10.0).abs() < 1e-9);
        let t = (0.5 * cam.vfov).tan();
        let (_, y, _) = p(cam.forward + cam.up * t);
        assert!(
            (y + 1.0).abs() < 1e-5,
            "top of the view is y = −1 in Vulkan NDC: {y}"
        );
        let (x, _, _) = p(cam.forward + cam.right * t * 2.0);
        assert!((x - 1.0).abs() < 1e-5, "{x}");
    }

    /// The GLSL block's member names and offsets, read back from a compiled shader, equal the
    /// Rust struct's: a field added or reordered on one side only fails here.
    #[test]
    fn glsl_block_matches_the_struct() {
        use std::mem::offset_of;
        let rust = [
            ("view_proj", offset_of!(FrameConstants, view_proj)),
            ("cam_forward", offset_of!(FrameConstants, cam_forward)),
            ("tan_half_vfov", offset_of!(FrameConstants, tan_half_vfov)),
            ("cam_right", offset_of!(FrameConstants, cam_right)),
            ("aspect", offset_of!(FrameConstants, aspect)),
            ("cam_up", offset_of!(FrameConstants, cam_up)),
            ("pixel_angle", offset_of!(FrameConstants, pixel_angle)),
            ("planet_center", offset_of!(FrameConstants, planet_center)),
            ("planet_radius", offset_of!(FrameConstants, planet_radius)),
            ("sun_dir", offset_of!(FrameConstants, sun_dir)),
            ("eye_altitude", offset_of!(FrameConstants, eye_altitude)),
            ("viewport", offset_of!(FrameConstants, viewport)),
            ("inv_viewport", offset_of!(FrameConstants, inv_viewport)),
            ("texel0", offset_of!(FrameConstants, texel0)),
            ("max_level", offset_of!(FrameConstants, max_level)),
            ("lookup_mask", offset_of!(FrameConstants, lookup_mask)),
            ("lod_bias", offset_of!(FrameConstants, lod_bias)),
            ("time_s", offset_of!(FrameConstants, time_s)),
        ];
        let glsl = block_members(&shaders::PUBLISH_RESOLVE.words(), "FrameBlock");
        let rust: Vec<(String, u32)> = rust
            .iter()
            .map(|(n, o)| (n.to_string(), *o as u32))
            .collect();
        assert_eq!(glsl, rust);
        assert_eq!(std::mem::size_of::<FrameConstants>(), 180);
    }

    /// (member name, byte offset) of the struct named `block`, in member order.
    pub(crate) fn block_members(words: &[u32], block: &str) -> Vec<(String, u32)> {
        use rspirv::dr::Operand;
        use rspirv::spirv::{Decoration, Op};
        let words = framegraph::shader::strip_source_text(words);
        let m = rspirv::dr::load_words(words).expect("SPIR-V");
        let id = m
            .debug_names
            .iter()
            .find(|i| {
                i.class.opcode == Op::Name
                    && matches!(i.operands.get(1), Some(Operand::LiteralString(s)) if s == block)
            })
            .and_then(|i| i.operands[0].id_ref_any())
            .expect("block name in the SPIR-V");
        let mut names: Vec<(u32, String)> = m
            .debug_names
            .iter()
            .filter(|i| i.class.opcode == Op::MemberName && i.operands[0].id_ref_any() == Some(id))
            .filter_map(|i| match (&i.operands[1], &i.operands[2]) {
                (Operand::LiteralBit32(k), Operand::LiteralString(s)) => Some((*k, s.clone())),
                _ => None,
            })
            .collect();
        names.sort();
        names
            .into_iter()
            .map(|(k, name)| {
                let off = m
                    .annotations
                    .iter()
                    .find_map(|a| match a.operands.as_slice() {
                        [Operand::IdRef(t), Operand::LiteralBit32(mk), Operand::Decoration(Decoration::Offset), Operand::LiteralBit32(o)]
                            if a.class.opcode == Op::MemberDecorate && *t == id && *mk == k =>
                        {
                            Some(*o)
                        }
                        _ => None,
                    })
                    .expect("member offset");
                (name, off)
            })
            .collect()
    }
}
