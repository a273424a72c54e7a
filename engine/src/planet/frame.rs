//! Per-tile tangent frame (TERRAIN.md §2): origin on the datum under the tile centre, normal
//! n, tangents e1 (along +u, orthonormalised) and e2 = n × e1. Positions inside a tile are
//! expressed in this frame so nothing planet-sized is subtracted per pixel on the GPU.

use super::tile::TileId;
use glam::DVec3;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TileFrame {
    /// Datum point under the tile centre, planet-centred world frame, metres.
    pub origin: DVec3,
    /// Outward unit normal at the tile centre.
    pub n: DVec3,
    /// Unit tangent along the face's +u direction, orthogonal to n.
    pub e1: DVec3,
    /// n × e1 (along +v up to the face's shear).
    pub e2: DVec3,
    /// Datum radius, metres.
    pub radius: f64,
}

/// A point expressed in a tile frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FramePoint {
    /// Gnomonic tangent-plane coordinates (q1, q2)/rq (dimensionless).
    pub a: f64,
    pub b: f64,
    /// Height above the datum, metres.
    pub h: f64,
}

impl TileFrame {
    pub fn new(tile: TileId, radius: f64) -> TileFrame {
        let n = tile.centre_dir();
        let u_axis = tile.face.u_axis();
        let e1 = (u_axis - n * n.dot(u_axis)).normalize();
        let e2 = n.cross(e1);
        TileFrame {
            origin: n * radius,
            n,
            e1,
            e2,
            radius,
        }
    }

    /// World position (planet-centred, metres) → tangent-plane coords and height, using the
    /// same steps the GPU does with camera-relative values:
    /// q = p − origin; rq = R + q·n; (a, b) = (q·e1, q·e2)/rq;
    /// h = q·n + t²/(√(t² + rq²) + rq), t² = (q·e1)² + (q·e2)² — |p| − R without cancellation.
    pub fn to_plane(&self, p: DVec3) -> FramePoint {
        let q = p - self.origin;
        let (qn, q1, q2) = (q.dot(self.n), q.dot(self.e1), q.dot(self.e2));
        let rq = self.radius + qn;
        let t2 = q1 * q1 + q2 * q2;
        FramePoint {
            a: q1 / rq,
            b: q2 / rq,
            h: qn + t2 / ((t2 + rq * rq).sqrt() + rq),
        }
    }

    /// Unit direction of tangent-plane point (a, b): normalize(n + a·e1 + b·e2).
    pub fn plane_to_dir(&self, a: f64, b: f64) -> DVec3 {
        (self.n + a * self.e1 + b * self.e2).normalize()
    }

    /// Direction → tangent-plane coords (gnomonic projection; needs dir·n > 0).
    pub fn dir_to_plane(&self, dir: DVec3) -> (f64, f64) {
        let d = dir.dot(self.n);
        (dir.dot(self.e1) / d, dir.dot(self.e2) / d)
    }

    /// World position of plane point (a, b) at height h above the datum, metres.
    pub fn from_plane(&self, a: f64, b: f64, h: f64) -> DVec3 {
        self.plane_to_dir(a, b) * (self.radius + h)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::planet::cube::Face;

    #[test]
    fn frame_is_orthonormal_and_e1_follows_u() {
        let t = TileId::new(7, Face(4), 100, 3);
        let f = TileFrame::new(t, 6_371_000.0);
        assert!((f.n.length() - 1.0).abs() < 1e-15 && (f.e1.length() - 1.0).abs() < 1e-15);
        assert!(f.n.dot(f.e1).abs() < 1e-15 && f.n.dot(f.e2).abs() < 1e-15);
        let (u, v) = t.centre_uv();
        let du = t.face.direction(u + 1e-6, v) - t.face.direction(u, v);
        assert!(du.normalize().dot(f.e1) > 0.999_999);
    }

    #[test]
    fn height_formula_is_cancellation_free() {
        let r = 6_371_000.0;
        let f = TileFrame::new(TileId::new(18, Face(1), 70_000, 200_000), r);
        for (a, b, h) in [
            (1e-6, -2e-6, 0.003),
            (0.0, 0.0, -10_000.0),
            (3e-7, 1e-7, 8_848.0),
        ] {
            let p = f.from_plane(a, b, h);
            let fp = f.to_plane(p);
            // |p| − R in f64 loses ~1e-9 m at R = 6.4e6 m; the frame keeps millimetres exact.
            assert!((fp.h - h).abs() < 1e-8, "h {h} → {}", fp.h);
            assert!((fp.a - a).abs() < 1e-15 && (fp.b - b).abs() < 1e-15);
        }
    }
}
