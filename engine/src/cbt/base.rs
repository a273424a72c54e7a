//! The base mesh: the cube's 12 root triangles (each face split on its (0,0)–(1,1) diagonal),
//! their adjacency, and the face seams that make shared corners bit-identical.
//!
//! Nothing here is hand-typed adjacency: root neighbours and the seam maps are found by
//! matching 3D cube-corner positions from `planet::cube`, once, and cached.

use super::leb::{Corner, Corners, FIRST_ROOT, ROOT_COUNT};
use crate::planet::cube::{Face, FIXED_ONE};
use glam::DVec3;
use std::sync::OnceLock;

const ONE: u32 = FIXED_ONE as u32;

/// Corners of root `r` (0..12): root 2f is `[(0,0), (1,0), (1,1)]`, root 2f + 1 is
/// `[(1,1), (0,1), (0,0)]` on face f (units of 2^30). Both CCW, apex at a face corner,
/// hypotenuse on the face diagonal, so the two are each other's twin.
pub fn root_corners(r: u32) -> Corners {
    if r & 1 == 0 {
        [[0, 0], [ONE, 0], [ONE, ONE]]
    } else {
        [[ONE, ONE], [0, ONE], [0, 0]]
    }
}

/// Root path of root index r.
pub fn root_path(r: u32) -> u64 {
    FIRST_ROOT + r as u64
}

/// Face of root r.
pub fn root_face(r: u32) -> Face {
    Face((r / 2) as u8)
}

/// The cube point (unnormalised, |components| ≤ 1) of a fixed-point corner on a face.
fn cube_point(face: Face, c: Corner) -> DVec3 {
    use crate::planet::cube::fixed_to_unit;
    face.point_on_cube(fixed_to_unit(c[0] as u64), fixed_to_unit(c[1] as u64))
}

fn same_point(a: DVec3, b: DVec3) -> bool {
    // Cube corners are (±1, ±1, ±1) up to tan(π/4) rounding (1 ulp): far below this.
    (a - b).length() < 1e-9
}

/// Neighbour root indices `[across v0v1, across v1v2, twin]` of every root, found by matching
/// the 3D endpoints of the legs (which lie on cube edges) against every other root's legs.
pub fn root_neighbours() -> &'static [[u32; 3]; ROOT_COUNT as usize] {
    static TABLE: OnceLock<[[u32; 3]; ROOT_COUNT as usize]> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = [[u32::MAX; 3]; ROOT_COUNT as usize];
        for r in 0..ROOT_COUNT {
            let c = root_corners(r);
            for k in 0..2 {
                let (a, b) = (
                    cube_point(root_face(r), c[k]),
                    cube_point(root_face(r), c[k + 1]),
                );
                let mut found = Vec::new();
                for q in (0..ROOT_COUNT).filter(|&q| root_face(q) != root_face(r)) {
                    let d = root_corners(q);
                    for j in 0..2 {
                        let (x, y) = (
                            cube_point(root_face(q), d[j]),
                            cube_point(root_face(q), d[j + 1]),
                        );
                        // A shared edge runs in opposite directions on the two CCW triangles.
                        if same_point(a, y) && same_point(b, x) {
                            found.push(q);
                        }
                    }
                }
                assert_eq!(
                    found.len(),
                    1,
                    "root {r} leg {k} must meet exactly one root"
                );
                t[r as usize][k] = found[0];
            }
            t[r as usize][2] = r ^ 1;
        }
        t
    })
}

/// Where a point on one face edge lands on the face across it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Seam {
    /// The face across the edge.
    pub face: u8,
    /// Which coordinate is fixed on that face's edge (0 = X, 1 = Y) and its value (0 or 2^30).
    pub fixed_axis: u8,
    pub fixed_value: u32,
    /// The along-edge coordinate runs the opposite way on that face (s' = 2^30 − s).
    pub flip: bool,
}

/// Edges of a face: 0: Y = 0, 1: X = 1, 2: Y = 1, 3: X = 0 (in units of 2^30).
fn edge_axis(edge: usize) -> (usize, u32) {
    match edge {
        0 => (1, 0),
        1 => (0, ONE),
        2 => (1, ONE),
        _ => (0, 0),
    }
}

/// The point at along-edge coordinate s on `edge`.
fn edge_point(edge: usize, s: u32) -> Corner {
    let (axis, value) = edge_axis(edge);
    if axis == 0 {
        [value, s]
    } else {
        [s, value]
    }
}

/// Seam maps of every face edge, `[face][edge]`, derived from 3D cube corners. Along a cube
/// edge both faces' equi-angular parametrisations coincide (`docs/conventions.md`), so the
/// map is exactly s ↦ s or s ↦ 2^30 − s in fixed point.
pub fn seams() -> &'static [[Seam; 4]; 6] {
    static TABLE: OnceLock<[[Seam; 4]; 6]> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = [[Seam {
            face: 0,
            fixed_axis: 0,
            fixed_value: 0,
            flip: false,
        }; 4]; 6];
        for f in Face::ALL {
            for (e, slot) in t[f.0 as usize].iter_mut().enumerate() {
                let (p, q) = (
                    cube_point(f, edge_point(e, 0)),
                    cube_point(f, edge_point(e, ONE)),
                );
                let mut found = Vec::new();
                for g in Face::ALL.into_iter().filter(|&g| g != f) {
                    for e2 in 0..4 {
                        let (p2, q2) = (
                            cube_point(g, edge_point(e2, 0)),
                            cube_point(g, edge_point(e2, ONE)),
                        );
                        let (axis, value) = edge_axis(e2);
                        let seam = |flip| Seam {
                            face: g.0,
                            fixed_axis: axis as u8,
                            fixed_value: value,
                            flip,
                        };
                        if same_point(p, p2) && same_point(q, q2) {
                            found.push(seam(false));
                        } else if same_point(p, q2) && same_point(q, p2) {
                            found.push(seam(true));
                        }
                    }
                }
                assert_eq!(
                    found.len(),
                    1,
                    "face {} edge {e} must meet exactly one face",
                    f.0
                );
                *slot = found[0];
            }
        }
        t
    })
}

/// Maps a point on `edge` of `face` to the face across it.
fn across_seam(face: u8, edge: usize, c: Corner) -> (u8, Corner) {
    let s = seams()[face as usize][edge];
    let (axis, _) = edge_axis(edge);
    let along = c[1 - axis];
    let along = if s.flip { ONE - along } else { along };
    let mapped = if s.fixed_axis == 0 {
        [s.fixed_value, along]
    } else {
        [along, s.fixed_value]
    };
    (s.face, mapped)
}

/// The canonical name of a corner: a point on a face edge (or cube corner) is named on the
/// lowest-numbered face that holds it, so every triangle sharing it evaluates the surface with
/// bit-identical inputs (TERRAIN.md §3). Interior points are returned unchanged.
pub fn canonical(face: u8, c: Corner) -> (u8, Corner) {
    let on_edge = |c: Corner, e: usize| {
        let (axis, value) = edge_axis(e);
        c[axis] == value
    };
    if !(0..4).any(|e| on_edge(c, e)) {
        return (face, c);
    }
    // Up to three faces hold a cube corner; reach them by at most two seam crossings.
    let mut seen = [(face, c); 3];
    let mut n = 1;
    let mut i = 0;
    while i < n {
        let (f, p) = seen[i];
        for e in (0..4).filter(|&e| on_edge(p, e)) {
            let (g, q) = across_seam(f, e, p);
            if n < 3 && !seen[..n].iter().any(|&(h, _)| h == g) {
                seen[n] = (g, q);
                n += 1;
            }
        }
        i += 1;
    }
    seen[..n]
        .iter()
        .copied()
        .min_by_key(|&(f, _)| f)
        .unwrap_or((face, c))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::planet::cube::fixed_to_unit;

    fn dir(face: u8, c: Corner) -> DVec3 {
        Face(face).direction(fixed_to_unit(c[0] as u64), fixed_to_unit(c[1] as u64))
    }

    #[test]
    fn roots_are_mutual_and_share_3d_edges() {
        let t = root_neighbours();
        for r in 0..ROOT_COUNT {
            for k in 0..3 {
                let q = t[r as usize][k];
                assert!(q < ROOT_COUNT);
                assert_eq!(
                    t[q as usize].iter().filter(|&&x| x == r).count(),
                    1,
                    "root {r} slot {k}"
                );
            }
            // Each root meets three distinct roots; the legs meet two other faces.
            let n = t[r as usize];
            assert!(n[0] != n[1] && root_face(n[0]) != root_face(n[1]));
        }
    }

    #[test]
    fn seams_map_to_the_same_3d_point() {
        let mut s = 0x9e3779b97f4a7c15u64;
        for f in 0..6u8 {
            for e in 0..4 {
                for _ in 0..50 {
                    s ^= s << 13;
                    s ^= s >> 7;
                    s ^= s << 17;
                    let along = (s % (ONE as u64 + 1)) as u32;
                    let c = edge_point(e, along);
                    let (g, q) = across_seam(f, e, c);
                    assert!(
                        (dir(f, c) - dir(g, q)).length() < 1e-14,
                        "face {f} edge {e}"
                    );
                    // Crossing back returns the same name.
                    let back = (0..4)
                        .map(|e2| across_seam(g, e2, q))
                        .find(|&(h, _)| h == f)
                        .expect("seam back");
                    assert_eq!(back, (f, c));
                }
            }
        }
    }

    #[test]
    fn canonical_names_agree_from_every_face() {
        // Every cube corner and some edge points: all faces holding the point must agree.
        for f in 0..6u8 {
            for c in [
                [0, 0],
                [ONE, 0],
                [0, ONE],
                [ONE, ONE],
                [ONE / 2, 0],
                [ONE, 12345],
                [777, ONE],
            ] {
                let (g, q) = canonical(f, c);
                assert!(g <= f);
                assert!((dir(f, c) - dir(g, q)).length() < 1e-14);
                assert_eq!(canonical(g, q), (g, q));
            }
        }
        assert_eq!(canonical(3, [5, 7]), (3, [5, 7]));
    }
}
