//! Longest-edge bisection paths and the corner split rule, in exact fixed point.
//!
//! Orientation convention (also in `docs/conventions.md`, "CBT triangles"):
//! - A triangle is `[v0, v1, v2]`, counter-clockwise seen from outside the planet (face
//!   coordinates are right-handed with the outward axis, so CCW in (X, Y) is CCW from outside).
//! - v1 is the right-angle apex; the hypotenuse is the edge v2→v0.
//! - Neighbour slot k lies across the edge from vk to vk+1: slot 0 across v0v1, slot 1 across
//!   v1v2 (the legs), slot 2 across v2v0 (the hypotenuse: the *twin*).
//! - Splitting at m = midpoint(v0, v2) gives the even child `[v1, m, v0]` (path 2p, keeps the
//!   parent's pool slot) and the odd child `[v2, m, v1]` (path 2p + 1). Both stay CCW, both have
//!   m as apex; the even child's hypotenuse is the parent's leg v0v1, the odd child's is v1v2.

/// Bit length of a root path: roots are 16..=27 (12 roots < 32), so depth 5.
pub const BASE_DEPTH: u32 = 5;
/// Number of root triangles (two per cube face).
pub const ROOT_COUNT: u32 = 12;
/// Path of root 0.
pub const FIRST_ROOT: u64 = 16;
/// Deepest leaf: a depth-64 path is the longest that fits in 64 bits. The 30-bit corners stay
/// exact one level further (at depth 5 + 2k the hypotenuse spans 2^(30−k) units per axis, at
/// depth 6 + 2k it spans 2^(30−k) along one axis, so every midpoint down to depth 65 is an
/// integer). 59 levels below the roots: ≈ 1.4 cm legs on Earth.
pub const MAX_DEPTH: u32 = 64;

/// Fixed-point corner (X, Y) on the root's face, each in [0, 2^30].
pub type Corner = [u32; 2];
/// `[v0, v1, v2]`.
pub type Corners = [Corner; 3];

/// Bit length of a path (0 for the free marker 0).
pub fn depth(path: u64) -> u32 {
    64 - path.leading_zeros()
}

/// The root path (16..=27) a path descends from.
pub fn root_path(path: u64) -> u64 {
    path >> (depth(path) - BASE_DEPTH)
}

/// Root index 0..12 (= root path − 16); root 2f and 2f + 1 lie on face f.
pub fn root_index(path: u64) -> u32 {
    (root_path(path) - FIRST_ROOT) as u32
}

/// Cube face of the entry's corners.
pub fn face_index(path: u64) -> u8 {
    (root_index(path) / 2) as u8
}

/// True for a valid path of a live entry.
pub fn is_valid(path: u64) -> bool {
    let d = depth(path);
    (BASE_DEPTH..=MAX_DEPTH).contains(&d)
        && (FIRST_ROOT..FIRST_ROOT + ROOT_COUNT as u64).contains(&root_path(path))
}

pub fn parent(path: u64) -> u64 {
    path >> 1
}

pub fn children(path: u64) -> [u64; 2] {
    [path << 1, (path << 1) | 1]
}

/// The even child keeps the parent's slot.
pub fn is_even(path: u64) -> bool {
    path & 1 == 0
}

/// Midpoint of two corners when it is an exact integer.
pub fn midpoint(a: Corner, b: Corner) -> Option<Corner> {
    let (sx, sy) = (a[0] as u64 + b[0] as u64, a[1] as u64 + b[1] as u64);
    (sx % 2 == 0 && sy % 2 == 0).then_some([(sx / 2) as u32, (sy / 2) as u32])
}

/// Midpoint rounded down (for residual probes of triangles that can no longer split).
pub fn midpoint_floor(a: Corner, b: Corner) -> Corner {
    [
        ((a[0] as u64 + b[0] as u64) / 2) as u32,
        ((a[1] as u64 + b[1] as u64) / 2) as u32,
    ]
}

/// Children corners `(even, odd)`, or None past the fixed-point limit.
pub fn split(c: Corners) -> Option<(Corners, Corners)> {
    let m = midpoint(c[0], c[2])?;
    Some(([c[1], m, c[0]], [c[2], m, c[1]]))
}

/// Parent corners from the even child and the odd child's first corner (the parent's v2).
pub fn merge(even: Corners, odd_v0: Corner) -> Corners {
    [even[2], even[0], odd_v0]
}

/// Corners of a path, walked from its root (the validator's independent reference).
pub fn corners_of(path: u64) -> Option<Corners> {
    if !is_valid(path) {
        return None;
    }
    let d = depth(path);
    let mut c = crate::cbt::base::root_corners(root_index(path));
    for level in (0..d - BASE_DEPTH).rev() {
        let (even, odd) = split(c)?;
        c = if (path >> level) & 1 == 0 { even } else { odd };
    }
    Some(c)
}

/// The edge a vertex was born on: the hypotenuse whose split made it, from the vertex alone
/// (so every leaf that shares the vertex finds the same edge). The bisection of a face is a
/// 4-8 mesh: a vertex whose coordinates have different numbers of trailing zeros is the
/// midpoint of an axis-aligned edge of length 2·2^k (k the smaller count); one whose counts
/// agree is the centre of a square of half-size 2^k, born on the diagonal that square's
/// parity in the 2^(k+1) grid gives (the face's own diagonal, (0,0)–(1,1), at even parity).
/// None for a face corner (a root corner, never born).
pub fn birth_edge(v: Corner) -> Option<(Corner, Corner)> {
    let (tx, ty) = (v[0].trailing_zeros(), v[1].trailing_zeros());
    let k = tx.min(ty);
    if k >= 30 {
        return None;
    }
    let s = 1u32 << k;
    let (x, y) = (v[0], v[1]);
    Some(if tx != ty {
        if tx == k {
            ([x - s, y], [x + s, y])
        } else {
            ([x, y - s], [x, y + s])
        }
    } else if ((x >> (k + 1)) + (y >> (k + 1))) & 1 == 0 {
        ([x - s, y - s], [x + s, y + s])
    } else {
        ([x - s, y + s], [x + s, y - s])
    })
}

/// Twice the signed area in fixed-point units² (positive = counter-clockwise), exact.
pub fn area2(c: Corners) -> i128 {
    let p = |k: usize| (c[k][0] as i128, c[k][1] as i128);
    let ((x0, y0), (x1, y1), (x2, y2)) = (p(0), p(1), p(2));
    (x1 - x0) * (y2 - y0) - (y1 - y0) * (x2 - x0)
}

/// Flattens corners into the `Bisector::corners` layout.
pub fn pack(c: Corners) -> [u32; 6] {
    [c[0][0], c[0][1], c[1][0], c[1][1], c[2][0], c[2][1]]
}

pub fn unpack(c: [u32; 6]) -> Corners {
    [[c[0], c[1]], [c[2], c[3]], [c[4], c[5]]]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::planet::cube::FIXED_ONE;

    #[test]
    fn paths() {
        assert_eq!(depth(16), 5);
        assert_eq!(depth(27), 5);
        assert_eq!(root_index(27), 11);
        assert_eq!(face_index(16), 0);
        assert_eq!(face_index(27), 5);
        let p = (21u64 << 10) | 0b1011001110;
        assert_eq!(depth(p), 15);
        assert_eq!(root_path(p), 21);
        assert_eq!(parent(children(p)[1]), p);
        assert!(is_even(children(p)[0]));
        assert!(is_valid(p) && !is_valid(15) && !is_valid(28) && !is_valid(0));
    }

    #[test]
    fn split_keeps_orientation_apex_and_area() {
        let c = crate::cbt::base::root_corners(0);
        let a = area2(c);
        assert!(a > 0);
        let (e, o) = split(c).expect("root splits");
        assert_eq!(area2(e), a / 2);
        assert_eq!(area2(o), a / 2);
        // The apex of both children is the parent's hypotenuse midpoint.
        assert_eq!(e[1], o[1]);
        // The even child's hypotenuse is the parent's leg v0v1, the odd child's is v1v2.
        assert_eq!((e[2], e[0]), (c[0], c[1]));
        assert_eq!((o[2], o[0]), (c[1], c[2]));
        assert_eq!(merge(e, o[0]), c);
    }

    /// Every split down to `MAX_DEPTH` is exact along any path, and the next one is not.
    #[test]
    fn birth_edge_is_the_hypotenuse_the_vertex_was_split_from() {
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        let same = |a: (Corner, Corner), b: (Corner, Corner)| a == b || a == (b.1, b.0);
        for root in 0..ROOT_COUNT {
            let rc = crate::cbt::base::root_corners(root);
            assert!(
                rc.iter().all(|v| birth_edge(*v).is_none()),
                "root corners are never born"
            );
            for _ in 0..40 {
                let mut c = rc;
                for _ in BASE_DEPTH..MAX_DEPTH - 1 {
                    s ^= s << 13;
                    s ^= s >> 7;
                    s ^= s << 17;
                    let (e, o) = split(c).expect("exact");
                    let got = birth_edge(e[1]).expect("a split's apex has a birth edge");
                    assert!(same(got, (c[0], c[2])), "{c:?}: {got:?}");
                    c = if s & 1 == 0 { e } else { o };
                }
            }
        }
    }

    #[test]
    fn fixed_point_is_exact_to_max_depth() {
        let mut s = 0x2545f4914f6cdd1du64;
        for root in 0..ROOT_COUNT {
            for _ in 0..20 {
                let mut c = crate::cbt::base::root_corners(root);
                for d in BASE_DEPTH..MAX_DEPTH {
                    s ^= s << 13;
                    s ^= s >> 7;
                    s ^= s << 17;
                    let (e, o) = split(c).unwrap_or_else(|| panic!("split at depth {d} inexact"));
                    c = if s & 1 == 0 { e } else { o };
                    assert!(area2(c) > 0);
                }
                let (e, _) = split(c).expect("depth 64 corners still split exactly");
                assert!(
                    split(e).is_none(),
                    "depth-65 corners are the last exact level"
                );
                assert!(c
                    .iter()
                    .all(|v| v[0] as u64 <= FIXED_ONE && v[1] as u64 <= FIXED_ONE));
            }
        }
    }

    #[test]
    fn corners_of_walks_the_path() {
        let p = (19u64 << 3) | 0b101;
        let c0 = crate::cbt::base::root_corners(3);
        let (_, o) = split(c0).expect("split");
        let (e, _) = split(o).expect("split");
        let (_, o2) = split(e).expect("split");
        assert_eq!(corners_of(p), Some(o2));
        assert_eq!(unpack(pack(o2)), o2);
    }
}
