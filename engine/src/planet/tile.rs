//! Tile addressing: (level, face, x, y), sample positions, parent/children and neighbours,
//! including across face edges (see `docs/conventions.md`, "Levels and tiles").

use super::cube::Face;
use crate::params::{TILE_APRON, TILE_SAMPLES, TILE_STRIDE};
use glam::DVec3;

/// One tile of the hierarchy. `x` runs along the face's u axis, `y` along v; both < 2^level.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TileId {
    pub level: u8,
    pub face: Face,
    pub x: u32,
    pub y: u32,
}

/// Samples along one face edge at `level`: 512·2^level.
pub fn samples_per_face(level: u8) -> i64 {
    (TILE_SAMPLES as i64) << level
}

/// Face coordinate (u or v) of face-global sample index `index` at `level`:
/// u = 2·(I + 0.5)/(512·2^L) − 1, computed as (2I+1)/(512·2^L) − 1 in f64. The division is by a
/// power of two (exact), so every tile holding the sample computes the same bits.
pub fn sample_coord(level: u8, index: i64) -> f64 {
    (2 * index + 1) as f64 / samples_per_face(level) as f64 - 1.0
}

/// Where a face-global sample index (possibly beyond the face, as in aprons) takes its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SampleRef {
    /// A sample inside a face: (face, I, J) with 0 ≤ I, J < 512·2^L.
    Owned(Face, i64, i64),
    /// Beyond a cube corner (both indices off the face): the mean of the three faces'
    /// corner-most samples, listed in ascending face order (the summation order).
    Corner([(Face, i64, i64); 3]),
}

/// Index of face whose axis is `dir` (a signed unit axis vector).
fn face_with_axis(dir: DVec3) -> Face {
    Face::ALL
        .into_iter()
        .find(|f| f.axis() == dir)
        .expect("a cube axis always names a face")
}

/// Folds a sample index one step across the edge of `face` that `index` (along `axis_out`,
/// the face's u or v axis) has crossed: returns the neighbour face and the sample's (I, J) on
/// it. `k` texels beyond the edge → `k` texels inside it; along the edge the index is kept,
/// mirrored where the neighbour's axis points the other way. Needs |overshoot| < N.
fn fold(face: Face, along_u: bool, index: i64, other: i64, n: i64) -> (Face, i64, i64) {
    let (cross_axis, along_axis) = if along_u {
        (face.u_axis(), face.v_axis())
    } else {
        (face.v_axis(), face.u_axis())
    };
    let (k, out) = if index >= n {
        (index - n, cross_axis)
    } else {
        (-1 - index, -cross_axis)
    };
    let g = face_with_axis(out);
    // On g the shared edge is where g's coordinate along `face.axis()` is +1 (or −1).
    let fa = face.axis();
    let (gu, gv) = (g.u_axis(), g.v_axis());
    let inside = |sign: f64| if sign > 0.0 { n - 1 - k } else { k };
    let keep = |sign: f64| if sign > 0.0 { other } else { n - 1 - other };
    if fa.dot(gu) != 0.0 {
        (g, inside(fa.dot(gu)), keep(along_axis.dot(gv)))
    } else {
        (g, keep(along_axis.dot(gu)), inside(fa.dot(gv)))
    }
}

/// Resolves face-global sample (I, J) of `face` at `level` — at most one face width beyond the
/// face — to the sample whose value it carries (conventions: folded aprons, corner rule).
pub fn canonical_sample(level: u8, face: Face, i: i64, j: i64) -> SampleRef {
    let n = samples_per_face(level);
    let iu = (0..n).contains(&i);
    let jv = (0..n).contains(&j);
    match (iu, jv) {
        (true, true) => SampleRef::Owned(face, i, j),
        (false, true) => {
            let (g, a, b) = fold(face, true, i, j, n);
            SampleRef::Owned(g, a, b)
        }
        (true, false) => {
            let (g, a, b) = fold(face, false, j, i, n);
            SampleRef::Owned(g, a, b)
        }
        (false, false) => {
            let ci = if i >= n { n - 1 } else { 0 };
            let cj = if j >= n { n - 1 } else { 0 };
            let own = (face, ci, cj);
            let across_u = fold(face, true, if i >= n { n } else { -1 }, cj, n);
            let across_v = fold(face, false, if j >= n { n } else { -1 }, ci, n);
            let mut three = [own, across_u, across_v];
            three.sort_by_key(|s| s.0);
            SampleRef::Corner(three)
        }
    }
}

impl TileId {
    pub fn new(level: u8, face: Face, x: u32, y: u32) -> TileId {
        debug_assert!(x < (1 << level) && y < (1 << level) && face.0 < 6);
        TileId { level, face, x, y }
    }

    /// Tiles per face edge at this level.
    pub fn tiles_per_edge(&self) -> u32 {
        1 << self.level
    }

    pub fn parent(&self) -> Option<TileId> {
        (self.level > 0).then(|| TileId::new(self.level - 1, self.face, self.x / 2, self.y / 2))
    }

    /// The four children in order (0,0), (1,0), (0,1), (1,1) (x first).
    pub fn children(&self) -> [TileId; 4] {
        let (l, f, x, y) = (self.level + 1, self.face, self.x * 2, self.y * 2);
        [
            TileId::new(l, f, x, y),
            TileId::new(l, f, x + 1, y),
            TileId::new(l, f, x, y + 1),
            TileId::new(l, f, x + 1, y + 1),
        ]
    }

    /// Face-global index of local sample `i` (−4 ≤ i < 516) along u.
    pub fn global_i(&self, i: i64) -> i64 {
        TILE_SAMPLES as i64 * self.x as i64 + i
    }
    /// Face-global index of local sample `j` along v.
    pub fn global_j(&self, j: i64) -> i64 {
        TILE_SAMPLES as i64 * self.y as i64 + j
    }

    /// Face coordinates (u, v) of local sample (i, j), unfolded (may lie beyond the face).
    pub fn sample_uv(&self, i: i64, j: i64) -> (f64, f64) {
        (
            sample_coord(self.level, self.global_i(i)),
            sample_coord(self.level, self.global_j(j)),
        )
    }

    /// Face coordinates of the tile centre.
    pub fn centre_uv(&self) -> (f64, f64) {
        let t = self.tiles_per_edge() as f64;
        (
            (2.0 * self.x as f64 + 1.0) / t - 1.0,
            (2.0 * self.y as f64 + 1.0) / t - 1.0,
        )
    }

    /// Unit direction of the tile centre.
    pub fn centre_dir(&self) -> DVec3 {
        let (u, v) = self.centre_uv();
        self.face.direction(u, v)
    }

    /// The tile `dx`, `dy` ∈ {−1, 0, 1} tiles away, folded across face edges like aprons;
    /// `None` for the diagonal beyond a cube corner (there is no tile there).
    pub fn neighbour(&self, dx: i32, dy: i32) -> Option<TileId> {
        let half = TILE_SAMPLES as i64 / 2;
        let i = self.global_i(dx as i64 * TILE_SAMPLES as i64 + half);
        let j = self.global_j(dy as i64 * TILE_SAMPLES as i64 + half);
        match canonical_sample(self.level, self.face, i, j) {
            SampleRef::Owned(f, a, b) => Some(TileId::new(
                self.level,
                f,
                (a / TILE_SAMPLES as i64) as u32,
                (b / TILE_SAMPLES as i64) as u32,
            )),
            SampleRef::Corner(_) => None,
        }
    }

    /// The (up to) eight tiles around this one.
    pub fn neighbours(&self) -> Vec<TileId> {
        let mut out = Vec::with_capacity(8);
        for dy in -1..=1 {
            for dx in -1..=1 {
                if (dx, dy) != (0, 0) {
                    out.extend(self.neighbour(dx, dy));
                }
            }
        }
        out
    }

    /// Index into a 520×520 stored array of local sample (i, j), −4 ≤ i, j < 516.
    pub fn stored_index(i: i64, j: i64) -> usize {
        let a = TILE_APRON as i64;
        ((j + a) * TILE_STRIDE as i64 + (i + a)) as usize
    }

    /// The tile at `level` holding face point (u, v) ∈ [−1, 1]² (edges go to the last tile).
    pub fn containing(level: u8, face: Face, u: f64, v: f64) -> TileId {
        let t = (1u32 << level) as f64;
        let x = (((u + 1.0) * 0.5 * t).floor() as i64).clamp(0, (1 << level) - 1) as u32;
        let y = (((v + 1.0) * 0.5 * t).floor() as i64).clamp(0, (1 << level) - 1) as u32;
        TileId::new(level, face, x, y)
    }
}

impl std::fmt::Display for TileId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "L{}/f{}/{}_{}", self.level, self.face.0, self.x, self.y)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn children_nest_and_parent_inverts() {
        let t = TileId::new(5, Face(3), 17, 30);
        for c in t.children() {
            assert_eq!(c.parent(), Some(t));
        }
        // Dyadic nesting: the parent's sample centre is the mean of its 2×2 children's.
        let (l, i) = (4u8, 1234i64);
        let mean = 0.5 * (sample_coord(l + 1, 2 * i) + sample_coord(l + 1, 2 * i + 1));
        assert!((mean - sample_coord(l, i)).abs() < 1e-15);
    }

    #[test]
    fn folded_samples_are_geometrically_adjacent() {
        // The sample k texels beyond an edge folds to the neighbour sample k texels inside:
        // its position is the mirror image across the edge, so it lies within (2k+1) texels.
        for level in [0u8, 3] {
            let n = samples_per_face(level);
            let texel = std::f64::consts::FRAC_PI_2 / n as f64;
            for f in Face::ALL {
                for (i, j) in [(n + 2, 7), (-3, n / 3), (n / 2, n + 1), (5, -4)] {
                    let SampleRef::Owned(g, a, b) = canonical_sample(level, f, i, j) else {
                        panic!("edge sample must be owned");
                    };
                    assert_ne!(g, f);
                    let here = f.direction(sample_coord(level, i), sample_coord(level, j));
                    let there = g.direction(sample_coord(level, a), sample_coord(level, b));
                    let over = |x: i64| (x - n + 1).max(-x).max(0);
                    let k = (over(i) + over(j) - 1) as f64;
                    let ang = here.angle_between(there);
                    assert!(ang < (2.0 * k + 1.5) * texel, "f{} ({i},{j}) L{level}", f.0);
                    // Folding back returns to the start.
                    assert!(matches!(
                        canonical_sample(level, g, a, b),
                        SampleRef::Owned(..)
                    ));
                }
            }
        }
    }

    #[test]
    fn neighbours_are_mutual_across_face_edges() {
        for level in [0u8, 1, 2] {
            for f in Face::ALL {
                let t = 1u32 << level;
                for y in 0..t {
                    for x in 0..t {
                        let id = TileId::new(level, f, x, y);
                        let ns = id.neighbours();
                        for n in &ns {
                            assert!(n.neighbours().contains(&id), "{id} ↔ {n}");
                        }
                        let corner = (x == 0 || x == t - 1) && (y == 0 || y == t - 1);
                        let expect = if corner { 7 } else { 8 };
                        assert_eq!(ns.len(), if level == 0 { 4 } else { expect }, "{id}");
                    }
                }
            }
        }
    }

    #[test]
    fn corner_rule_is_shared_by_the_three_faces() {
        let n = samples_per_face(2);
        let SampleRef::Corner(a) = canonical_sample(2, Face(0), n + 1, n + 3) else {
            panic!()
        };
        // The same cube corner seen from the other two faces lists the same three samples.
        for &(g, _, _) in &a[1..] {
            let mut found = false;
            for (i, j) in [(n, n), (n, -1), (-1, n), (-1, -1)] {
                if let SampleRef::Corner(b) = canonical_sample(2, g, i, j) {
                    found |= b == a;
                }
            }
            assert!(found, "face {g:?}");
        }
    }
}
