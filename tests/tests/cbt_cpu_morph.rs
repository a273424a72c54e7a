//! New vertices morph onto the surface (CPU model; the GPU runs the same kernels, compared in
//! `cbt_gpu_model`): a split draws its new vertex on the edge it splits, so the drawn mesh —
//! and the outline it gives a rock — does not jump; the vertex then moves onto the surface
//! over `MORPH_UPDATES` updates, a fraction of its offset per update (morphs are off by
//! default: `CbtParams::morph_updates`).

mod cbt_cpu_common;
use cbt_cpu_common::*;
use engine::cbt::base::canonical;
use engine::cbt::bisector::{birth_of, MORPH_UPDATES};
use engine::cbt::criterion::View;
use engine::cbt::leb::{self, Corner};
use engine::cbt::stages::{eval::corner_position, positions};
use engine::cbt::{update_frame, CbtParams, Pool, Surface};
use glam::DVec3;
use std::collections::HashMap;

/// A vertex by its canonical name (face, fixed point).
type Key = (u8, Corner);

struct Drawn {
    pos: DVec3,
    settled: bool,
    /// The canonical names of its birth edge's ends (None for a face corner).
    edge: Option<(Key, Key)>,
}

/// Every live leaf's corners as drawn (stored positions), by vertex.
fn drawn(pool: &Pool) -> HashMap<Key, Drawn> {
    let mut out = HashMap::new();
    for i in pool.leaves() {
        let b = &pool.entries[i as usize];
        let face = leb::face_index(b.path);
        let c = leb::unpack(b.corners);
        let p = positions(b);
        for k in 0..3 {
            let edge = leb::birth_edge(c[k]).map(|(a, e)| (canonical(face, a), canonical(face, e)));
            out.insert(
                canonical(face, c[k]),
                Drawn {
                    pos: p[k],
                    settled: birth_of(b.births, k) == 0,
                    edge,
                },
            );
        }
    }
    out
}

/// Surface position of a canonically named vertex, evaluated afresh in f64.
fn surface_at(s: &dyn Surface, view: &View, v: Key) -> DVec3 {
    corner_position(s, v.0, v.1, view)
}

/// Every live corner settled and drawn on the surface (fresh f64 evaluation).
#[track_caller]
fn settled_on_surface(pool: &Pool, s: &dyn Surface, view: &View) {
    assert!(
        pool.leaves().all(|i| pool.entries[i as usize].births == 0),
        "morphs over after MORPH_UPDATES updates with no split"
    );
    for (v, d) in &drawn(pool) {
        let want = surface_at(s, view, *v);
        assert!(
            (d.pos - want).length() <= 1e-6 * want.length().max(1.0),
            "{v:?} settled at {:?}, surface {want:?}",
            d.pos
        );
    }
}

/// Updates at a still camera until no corner morphs (a split during the morphs starts new
/// ones: a few; bounded).
fn settle(
    pool: &mut Pool,
    s: &engine::cbt::AnalyticSurface,
    cam: &engine::camera::ViewCamera,
    p: &CbtParams,
) {
    for f in 0.. {
        if update_frame(pool, s, cam, p, 3).morphing == 0 {
            return;
        }
        assert!(f < 4 * MORPH_UPDATES, "still morphing after {f} updates");
    }
}

/// 300 m above the ground looking 30° down until the mesh is quiet and every morph over, then
/// one frame from 200 m: its splits of edges the last frame drew on the surface draw their new
/// vertices on those edges; at the still camera they then move onto the surface.
#[test]
fn a_split_draws_its_new_vertex_on_the_edge_it_splits_then_morphs_onto_the_surface() {
    let s = planet();
    let p = CbtParams {
        morph_updates: MORPH_UPDATES,
        ..CbtParams::default()
    };
    let far = camera(&s, LAT, LON, 300.0, 30.0, -30.0);
    let mut pool = Pool::new(1 << 16).expect("pool");
    run_to_quiet(&mut pool, &s, &far, &p, 40, 3);
    settle(&mut pool, &s, &far, &p);
    settled_on_surface(&pool, &s, &View::new(&far, s.radius(), p));

    // Positions are camera-relative: compare the first frame at the new eye with the old
    // mesh seen from there (the same settled surface points, shifted).
    let cam = camera(&s, LAT, LON, 200.0, 30.0, -30.0);
    let view = View::new(&cam, s.radius(), p);
    let shift = far.eye - cam.eye;
    let before: HashMap<Key, Drawn> = drawn(&pool)
        .into_iter()
        .map(|(k, d)| {
            (
                k,
                Drawn {
                    pos: d.pos + shift,
                    ..d
                },
            )
        })
        .collect();
    let st = update_frame(&mut pool, &s, &cam, &p, 3);
    assert!(st.splits() > 0, "coming closer splits");
    let (mut checked, mut worst_on_edge, mut worst_offset) = (0usize, 0f64, 0f64);
    for (v, d) in &drawn(&pool) {
        if before.contains_key(v) {
            continue;
        }
        let Some((a, b)) = d.edge else { continue };
        let (Some(da), Some(db)) = (before.get(&a), before.get(&b)) else {
            continue;
        };
        // Born this frame on an edge the last frame drew on the surface: drawn at that edge's
        // midpoint, not on the surface (which is off it by the edge's residual).
        let mid = (da.pos + db.pos) * 0.5;
        let scale = mid.length().max(1.0);
        worst_on_edge = worst_on_edge.max((d.pos - mid).length() / scale);
        worst_offset = worst_offset.max((surface_at(&s, &view, *v) - mid).length() / scale);
        assert!(!d.settled, "a vertex born this frame is morphing");
        checked += 1;
    }
    assert!(checked > 100, "only {checked} births checked");
    assert!(
        worst_on_edge < 1e-6,
        "a new vertex is drawn {worst_on_edge:.2e} (relative) off the edge it split"
    );
    // The test means something: the surface is off those chords.
    assert!(
        worst_offset > 1e-5,
        "surface off the chords by {worst_offset:.2e} only"
    );

    // Still camera: every vertex moves onto the surface in MORPH_UPDATES updates, by at most
    // 1/MORPH_UPDATES per update of the distance between the surface and its birth edge's
    // chord midpoint.
    let mut last = drawn(&pool);
    for f in 0.. {
        let st = update_frame(&mut pool, &s, &cam, &p, 3);
        if st.morphing == 0 {
            break;
        }
        assert!(f < 4 * MORPH_UPDATES, "still morphing after {f} updates");
        let now = drawn(&pool);
        for (v, d) in &now {
            let (Some(l), Some((a, b))) = (last.get(v), d.edge) else {
                continue;
            };
            let mid = (surface_at(&s, &view, a) + surface_at(&s, &view, b)) * 0.5;
            let offset = (surface_at(&s, &view, *v) - mid).length();
            let step = (d.pos - l.pos).length();
            assert!(
                step <= offset / MORPH_UPDATES as f64 * 1.01 + 1e-6 * d.pos.length().max(1.0),
                "{v:?} moved {step} m in one update, offset {offset} m"
            );
        }
        last = now;
    }
    settled_on_surface(&pool, &s, &view);
}
