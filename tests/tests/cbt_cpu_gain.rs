//! The fine-detail gain on the CPU model (the GPU runs the same kernels, compared in
//! `cbt_gpu_model`): what it scales — the depth cap of levels finer than L14 — and that the
//! loop it closes (count → attenuate → fewer such splits) ends.

mod cbt_cpu_common;
use cbt_cpu_common::*;
use engine::cbt::bisector::FLAG_FINE;
use engine::cbt::gain::FineDetailGain;
use engine::cbt::stages::positions;
use engine::cbt::{update_frame, CbtParams, Pool};
use engine::planet::Body;

/// 0.5 m above the analytic Earth (finest level L18), looking 60° down: the nearest ground is
/// under a metre away, where the 24 px edge target asks for legs of a few centimetres, finer
/// than the caps of L14 and L15.
fn view() -> (engine::cbt::AnalyticSurface, engine::camera::ViewCamera) {
    let s = planet();
    let cam = camera(&s, LAT, LON, 0.5, 30.0, -60.0);
    (s, cam)
}

/// The finest drawn leaf's longer leg, metres. One leg of a leaf is half its parent's
/// hypotenuse (the depth cap's `child_leg` when the parent split); the other is the parent's
/// median, which the cube map's anisotropy may make shorter.
fn finest_leg(pool: &Pool) -> f64 {
    pool.leaves()
        .filter(|&i| pool.entries[i as usize].flags & engine::cbt::bisector::FLAG_DRAW != 0)
        .map(|i| {
            let p = positions(&pool.entries[i as usize]);
            (p[1] - p[0]).length().max((p[2] - p[1]).length())
        })
        .fold(f64::MAX, f64::min)
}

fn quiet_at_gain(g: f64) -> (Pool, u32) {
    let (s, cam) = view();
    quiet(&s, &cam, g, 0.0)
}

/// The pool's quiet mesh for gain `g`, outlines within `silhouette_cos` of grazing exempt.
fn quiet(
    s: &engine::cbt::AnalyticSurface,
    cam: &engine::camera::ViewCamera,
    g: f64,
    silhouette_cos: f64,
) -> (Pool, u32) {
    let (s, cam) = (s.clone(), *cam);
    let p = CbtParams {
        fine_detail_gain: g,
        silhouette_cos,
        ..CbtParams::default()
    };
    let mut pool = Pool::new(1 << 16).expect("pool");
    let mut fine = 0;
    for f in 1..=40 {
        let st = update_frame(&mut pool, &s, &cam, &p, 7);
        fine += st.fine_split_wishes;
        if st.quiet {
            conforming(&pool, "quiet");
            assert_eq!(st.saturated(), 0, "pool large enough");
            return (pool, fine);
        }
        assert!(f < 40, "not quiet at gain {g}");
    }
    unreachable!()
}

/// g = 1 refines past L15's cap (the fine splits are counted), g = 0 stops at a quarter of
/// L14's texel (none counted), g = ¼ (level 14 + ¼·4) at L15's; every g keeps the mesh valid.
#[test]
fn the_gain_moves_the_depth_cap_between_l14_and_the_finest_level() {
    let body = Body::EARTH;
    let quarter = |level: u8| 0.25 * body.texel(level);
    let (full, fine_full) = quiet_at_gain(1.0);
    let (half, fine_half) = quiet_at_gain(0.25);
    let (none, fine_none) = quiet_at_gain(0.0);
    let legs = [finest_leg(&full), finest_leg(&half), finest_leg(&none)];
    println!(
        "finest drawn leg: g=1 {:.3} m ({fine_full} fine wishes), g=¼ {:.3} m ({fine_half}), g=0 {:.3} m ({fine_none}); quarter texel L14 {:.3} L15 {:.3} L18 {:.4}",
        legs[0], legs[1], legs[2], quarter(14), quarter(15), quarter(18)
    );
    assert!(
        fine_full > 0,
        "at 2 m the mesh wants splits below L14's cap"
    );
    assert!(fine_half > 0);
    assert_eq!(fine_none, 0, "at g = 0 no split is finer than L14's cap");
    // A leaf's legs are ≥ its parent's capped child leg (the surface midpoint moves a leg by
    // far less than 10 % at these scales).
    assert!(legs[2] >= 0.95 * quarter(14), "g=0: {} m", legs[2]);
    assert!(
        legs[1] >= 0.95 * quarter(15) && legs[1] < 0.95 * quarter(14),
        "g=¼: {} m",
        legs[1]
    );
    assert!(legs[0] < 0.95 * quarter(15), "g=1: {} m", legs[0]);
    // No leaf of the g = 0 mesh would want a split only L15+ allows: FINE leaves are capped.
    for i in none.leaves() {
        let b = &none.entries[i as usize];
        if b.flags & FLAG_FINE != 0 {
            assert_ne!(b.flags & engine::cbt::bisector::FLAG_CAPPED, 0, "entry {i}");
        }
    }
}

/// At g = 0 the outlines still refine to the finest level's cap: a camera 0.5 m up looking 3°
/// down sees the ground at grazing incidence, where the chords draw the outline the resolve
/// cannot move. With the exemption (|cos| < 0.3) grazing leaves go below L14's quarter texel
/// and none of them counts as a fine wish; without it, no leaf does.
#[test]
fn outlines_keep_the_finest_cap_when_the_gain_is_zero() {
    let s = planet();
    let cam = camera(&s, LAT, LON, 0.5, 30.0, -3.0);
    let l14 = 0.25 * Body::EARTH.texel(14);
    let grazing_finer = |pool: &Pool| {
        let mut n = 0;
        for i in pool.leaves() {
            let b = &pool.entries[i as usize];
            if b.flags & engine::cbt::bisector::FLAG_DRAW == 0 {
                continue;
            }
            let p = positions(b);
            let leg = (p[1] - p[0]).length().max((p[2] - p[1]).length());
            if engine::cbt::criterion::incidence_cos(&p) < 0.3 && leg < 0.9 * l14 {
                assert_eq!(b.flags & FLAG_FINE, 0, "an outline leaf is never fine: {i}");
                n += 1;
            }
        }
        n
    };
    let (off, _) = quiet(&s, &cam, 0.0, 0.0);
    let (on, fine_on) = quiet(&s, &cam, 0.0, 0.3);
    let (n_off, n_on) = (grazing_finer(&off), grazing_finer(&on));
    println!(
        "grazing leaves finer than L14's cap: exempt {n_on} (fine wishes {fine_on}), not {n_off}; leaves {} vs {}",
        on.leaves().count(),
        off.leaves().count()
    );
    assert_eq!(
        n_off, 0,
        "without the exemption g = 0 caps every leaf at L14's"
    );
    assert!(n_on > 100, "outline leaves refine past L14's cap: {n_on}");
    assert_eq!(fine_on, 0, "g = 0 and outline splits are not fine wishes");
}

/// The loop closed: each frame's count attenuates the gain the next frame runs with. From a
/// cold pool at 2 m it attenuates while the fine splits go on, and ends: within 21
/// attenuations the count is 0 (g = 0 allows none), after which the gain and the mesh hold.
#[test]
fn the_gain_loop_converges_and_holds() {
    let (s, cam) = view();
    let mut p = CbtParams::default();
    let mut gain = FineDetailGain::default();
    let mut pool = Pool::new(1 << 16).expect("pool");
    let mut trace = Vec::new();
    let mut quiet_since = None;
    for f in 0..80 {
        p.fine_detail_gain = gain.value();
        let st = update_frame(&mut pool, &s, &cam, &p, 11);
        let before = gain.value();
        gain.observe(st.fine_split_wishes);
        if st.fine_split_wishes > 0 {
            assert_eq!(
                gain.value(),
                if before * 0.8 < 0.01 {
                    0.0
                } else {
                    before * 0.8
                }
            );
        } else {
            assert_eq!(gain.value(), before, "frame {f}: held");
        }
        trace.push((st.fine_split_wishes, gain.value()));
        if st.quiet && st.fine_split_wishes == 0 {
            quiet_since.get_or_insert(f);
        } else {
            quiet_since = None;
        }
    }
    println!("(fine wishes, gain) per frame: {trace:?}");
    conforming(&pool, "after the loop");
    assert!(gain.attenuations() >= 1 && gain.attenuations() <= 21);
    let q = quiet_since.expect("quiet with no fine wishes by the end");
    assert!(q < 60, "quiet from frame {q}");
    // Held from there on: the last 20 frames have neither fine wishes nor a gain change.
    let tail = &trace[60..];
    assert!(tail.iter().all(|&(n, g)| n == 0 && g == tail[0].1));
}
