//! The mesh validator (CPU readback): everything the image hides.
//!
//! Checks, each independently of the update's own bookkeeping:
//! - every index in range; live ⇔ path ≠ 0 ⇔ free bit clear; nothing live at or above the
//!   high-water mark; the free sum tree matches the bits; roots resident in slots 0..12;
//! - every path valid, depth = bit length, corners = the path walked from its root;
//! - every neighbour link reciprocal, and the linked edges have identical endpoints
//!   (canonical fixed-point names, so edges on a face seam compare across faces exactly);
//! - globally: every directed leaf edge has exactly one reversed twin edge among all leaves
//!   (zero T-junctions, no duplicate triangles), and V − E + F = 2 (a closed sphere);
//! - leaf areas (exact, fixed point) sum per face to the face's two roots, every leaf CCW;
//! - the draw list holds exactly the live leaves flagged for drawing, in range.

use super::base::{canonical, root_path};
use super::bisector::{FLAG_DRAW, INVALID};
use super::leb::{self, Corner, ROOT_COUNT};
use super::pool::Pool;
use super::sumtree::{get_bit, SumTree};
use std::collections::{HashMap, HashSet};

/// Mesh facts from a clean validation.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MeshReport {
    pub leaves: usize,
    pub min_depth: u32,
    pub max_depth: u32,
    pub vertices: usize,
    pub edges: usize,
}

type Vertex = (u8, Corner);

fn vertex(face: u8, c: Corner) -> Vertex {
    canonical(face, c)
}

/// Validates the pool; Err lists every problem found (capped at 50 lines).
pub fn validate(pool: &Pool) -> Result<MeshReport, Vec<String>> {
    let mut errs = Vec::new();
    let mut err = |s: String| {
        if errs.len() < 50 {
            errs.push(s);
        }
    };
    let cap = pool.capacity();
    let hw = pool.control.high_water;
    if hw > cap {
        err(format!("high-water mark {hw} exceeds capacity {cap}"));
    }
    // Liveness, free bits, tree.
    let mut live = Vec::new();
    for i in 0..cap {
        let b = &pool.entries[i as usize];
        let is_live = b.path != 0;
        if is_live == pool.is_free_bit(i) {
            err(format!(
                "entry {i}: live={is_live} but free bit={}",
                pool.is_free_bit(i)
            ));
        }
        if is_live {
            if i >= hw {
                err(format!(
                    "entry {i} live at or above the high-water mark {hw}"
                ));
            }
            live.push(i);
        }
    }
    let mut tree = SumTree::new(pool.free_bits.len());
    tree.build(&pool.free_bits, pool.free_bits.len());
    if tree != pool.free_tree {
        err("free sum tree does not match the free bits".into());
    }
    if pool.control.free_count as usize != cap as usize - live.len() {
        err(format!(
            "free_count {} but {} live of {cap}",
            pool.control.free_count,
            live.len()
        ));
    }
    for r in 0..ROOT_COUNT {
        let p = pool.entries[r as usize].path;
        if p == 0 || !leb::is_valid(p) || p != root_path(r) << (leb::depth(p) - leb::BASE_DEPTH) {
            err(format!(
                "slot {r} must hold root {r}'s leftmost descendant, holds path {p}"
            ));
        }
    }

    // Per-leaf geometry.
    let mut area = [0i128; 6];
    let mut min_depth = u32::MAX;
    let mut max_depth = 0;
    for &i in &live {
        let b = &pool.entries[i as usize];
        if !leb::is_valid(b.path) {
            err(format!("entry {i}: invalid path {}", b.path));
            continue;
        }
        if b.depth != leb::depth(b.path) {
            err(format!(
                "entry {i}: depth {} but path has {}",
                b.depth,
                leb::depth(b.path)
            ));
        }
        min_depth = min_depth.min(b.depth);
        max_depth = max_depth.max(b.depth);
        let c = leb::unpack(b.corners);
        if leb::corners_of(b.path) != Some(c) {
            err(format!("entry {i}: corners do not match path {}", b.path));
        }
        let a = leb::area2(c);
        if a <= 0 {
            err(format!("entry {i}: not counter-clockwise"));
        }
        area[leb::face_index(b.path) as usize] += a;
    }
    // Two roots per face, each 2·area = (2^30)^2.
    for (f, a) in area.iter().enumerate() {
        if *a != 2 * (1i128 << 60) {
            err(format!(
                "face {f}: leaf areas sum to {a}, want {}",
                2 * (1i128 << 60)
            ));
        }
    }

    // Links: in range, live, reciprocal, same edge.
    let edge = |i: u32, k: usize| -> (Vertex, Vertex) {
        let b = &pool.entries[i as usize];
        let f = leb::face_index(b.path);
        let c = leb::unpack(b.corners);
        (vertex(f, c[k]), vertex(f, c[(k + 1) % 3]))
    };
    for &i in &live {
        let b = &pool.entries[i as usize];
        for k in 0..3 {
            let n = b.neighbours[k];
            if n == INVALID || n >= cap || !pool.is_live(n) {
                err(format!(
                    "entry {i} slot {k}: neighbour {n} out of range or not live"
                ));
                continue;
            }
            let back: Vec<usize> = (0..3)
                .filter(|&j| pool.entries[n as usize].neighbours[j] == i)
                .collect();
            if back.len() != 1 {
                err(format!(
                    "entry {i} slot {k}: neighbour {n} points back {} times",
                    back.len()
                ));
                continue;
            }
            let (a, bv) = edge(i, k);
            let (c, d) = edge(n, back[0]);
            if (a, bv) != (d, c) {
                err(format!(
                    "entry {i} slot {k} ↔ {n} slot {}: edges differ {a:?}-{bv:?} vs {c:?}-{d:?}",
                    back[0]
                ));
            }
        }
    }

    // Global edge matching and Euler characteristic.
    let mut directed: HashMap<(Vertex, Vertex), u32> = HashMap::new();
    let mut verts: HashSet<Vertex> = HashSet::new();
    for &i in &live {
        for k in 0..3 {
            let (a, b) = edge(i, k);
            verts.insert(a);
            *directed.entry((a, b)).or_insert(0) += 1;
        }
    }
    let mut t_junctions = 0;
    for (&(a, b), &n) in &directed {
        if n != 1 || directed.get(&(b, a)) != Some(&1) {
            t_junctions += 1;
            if t_junctions <= 5 {
                err(format!(
                    "edge {a:?}→{b:?} used {n}× with {:?} reverse",
                    directed.get(&(b, a))
                ));
            }
        }
    }
    if t_junctions > 0 {
        err(format!(
            "{t_junctions} unmatched directed edges (T-junctions or duplicates)"
        ));
    }
    let (v, e, f) = (
        verts.len() as i64,
        directed.len() as i64 / 2,
        live.len() as i64,
    );
    if v - e + f != 2 {
        err(format!(
            "Euler characteristic V−E+F = {v}−{e}+{f} = {}, want 2",
            v - e + f
        ));
    }

    // Draw list.
    let drawn = pool.drawn();
    let want: Vec<u32> = live
        .iter()
        .copied()
        .filter(|&i| pool.entries[i as usize].flags & FLAG_DRAW != 0)
        .collect();
    if drawn != want.as_slice() {
        err(format!(
            "draw list ({}) is not the ascending set of drawn leaves ({})",
            drawn.len(),
            want.len()
        ));
    }
    for &i in &live {
        if get_bit(&pool.draw_bits, i) != (pool.entries[i as usize].flags & FLAG_DRAW != 0) {
            err(format!("entry {i}: draw bit disagrees with its flag"));
            break;
        }
    }

    if errs.is_empty() {
        Ok(MeshReport {
            leaves: live.len(),
            min_depth,
            max_depth,
            vertices: verts.len(),
            edges: directed.len() / 2,
        })
    } else {
        Err(errs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fresh_pool_is_valid() {
        let p = Pool::new(64).expect("pool");
        let r = validate(&p).expect("roots conform");
        assert_eq!((r.leaves, r.vertices, r.edges), (12, 8, 18));
    }

    #[test]
    fn a_broken_link_is_caught() {
        let mut p = Pool::new(64).expect("pool");
        p.entries[3].neighbours[0] = 5;
        assert!(validate(&p).is_err());
    }
}
