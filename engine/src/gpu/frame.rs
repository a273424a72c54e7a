//! Per-frame constants as shaders read them (mirror of `shaders/common/frame.glsl`), built from
//! the f64 camera: every vector is camera-relative, nothing planet-sized is subtracted on the GPU.

use crate::cbt::camera::ViewCamera;
use bytemuck::{Pod, Zeroable};
use glam::{DMat4, DVec3, Mat4};

#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct FrameConstants {
    pub view_proj: [[f32; 4]; 4],
    pub cam_forward: [f32; 4],
    pub cam_right: [f32; 4],
    pub cam_up: [f32; 4],
    pub planet_center: [f32; 4],
    pub viewport: [f32; 4],
    pub sun: [f32; 4],
    pub texel0: f32,
    pub time: f32,
    pub frame_index: u32,
    pub max_level: u32,
    pub debug_view: u32,
    pub lookup_mask: u32,
    pub lod_bias: f32,
    pub eye_radius: f32,
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
        glam::DVec4::new(r.x, -u.x, f.x, 0.0),
        glam::DVec4::new(r.y, -u.y, f.y, 0.0),
        glam::DVec4::new(r.z, -u.z, f.z, 0.0),
        glam::DVec4::new(0.0, 0.0, 0.0, 1.0),
    );
    let t = (0.5 * cam.vfov).tan();
    let aspect = cam.width as f64 / cam.height as f64;
    // x_clip = x/(t·aspect), y_clip = y/t, z_clip = near, w_clip = z  → depth = near/z.
    let proj = DMat4::from_cols(
        glam::DVec4::new(1.0 / (t * aspect), 0.0, 0.0, 0.0),
        glam::DVec4::new(0.0, 1.0 / t, 0.0, 0.0),
        glam::DVec4::new(0.0, 0.0, 0.0, 1.0),
        glam::DVec4::new(0.0, 0.0, NEAR_M, 0.0),
    );
    (proj * view).as_mat4()
}

/// Everything except the tile lookup size and level cap, which the caller knows.
pub fn frame_constants(
    cam: &ViewCamera,
    radius: f64,
    texel0: f64,
    sun_dir: DVec3,
    time: f32,
    frame_index: u32,
) -> FrameConstants {
    let t = (0.5 * cam.vfov).tan();
    let aspect = cam.width as f64 / cam.height as f64;
    let c = -cam.eye;
    let alt = cam.eye.length() - radius;
    let f3 = |v: DVec3, w: f64| [v.x as f32, v.y as f32, v.z as f32, w as f32];
    FrameConstants {
        view_proj: view_proj(cam).to_cols_array_2d(),
        cam_forward: f3(cam.forward, t),
        cam_right: f3(cam.right, aspect),
        cam_up: f3(cam.up, cam.pixel_angle()),
        planet_center: f3(c, radius),
        viewport: [
            cam.width as f32,
            cam.height as f32,
            1.0 / cam.width as f32,
            1.0 / cam.height as f32,
        ],
        sun: f3(sun_dir.normalize(), alt),
        texel0: texel0 as f32,
        time,
        frame_index,
        max_level: crate::params::MAX_LEVEL as u32,
        debug_view: 0,
        lookup_mask: 0,
        lod_bias: 0.0,
        eye_radius: cam.eye.length() as f32,
    }
}

#[cfg(test)]
mod tests {
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
}
