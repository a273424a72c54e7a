//! The mesh conforms after every frame of a scripted flight: orbit → 2 m above the ground,
//! then a fast turn, with a small pool.

mod cbt_cpu_common;
use cbt_cpu_common::*;
use engine::cbt::{update_frame, CbtParams, Pool};

/// Frames of the descent (altitude log-spaced from 20,000 km to 2 m above ground).
const DESCENT: usize = 48;
/// Frames of the turn at 2 m (30° per frame: a full turn in 12 frames).
const TURN: usize = 12;
/// Small pools: 8,192 entries (1.3 MiB) against ≈ 6,300 leaves quiet at 2 m, and 3,072,
/// which saturates on the way down.
const CAPACITIES: [u32; 2] = [1 << 13, 3072];

#[test]
fn conforming_after_every_frame_of_orbit_to_ground_and_fast_turn() {
    for cap in CAPACITIES {
        let saturated = fly(cap);
        println!("capacity {cap}: saturated split candidates over the flight: {saturated}");
        if cap < 4096 {
            assert!(saturated > 0, "the 3k pool must saturate");
        }
    }
}

fn fly(cap: u32) -> u32 {
    let s = planet();
    let p = CbtParams::default();
    let mut pool = Pool::new(cap).expect("pool");
    let (top, bottom): (f64, f64) = (2.0e7, 2.0);
    let mut saturated = 0;
    for f in 0..DESCENT + TURN {
        let (agl, heading, pitch) = if f < DESCENT {
            let t = f as f64 / (DESCENT - 1) as f64;
            let agl = top * (bottom / top).powf(t);
            // Straight down from orbit, easing to 5° below the horizon at the ground.
            (agl, 30.0, -90.0 + 85.0 * t.powf(0.5))
        } else {
            (bottom, 30.0 + 30.0 * (f - DESCENT + 1) as f64, -5.0)
        };
        // Drift east a little as we descend so the ground under the camera changes.
        let cam = camera(
            &s,
            LAT,
            LON + 0.01 * f as f64 / DESCENT as f64,
            agl,
            heading,
            pitch,
        );
        let st = update_frame(&mut pool, &s, &cam, &p, f as u64);
        let r = conforming(
            &pool,
            &format!("frame {f} (agl {agl:.1} m, heading {heading})"),
        );
        assert!(st.high_water <= cap);
        saturated += st.saturated();
        if f % 6 == 0 || f >= DESCENT - 1 {
            println!(
                "cap {cap} frame {f:>2} agl {agl:>12.1} m heading {heading:>5}: {:>5} leaves ({:>5} drawn) depth ≤ {:>2}, {} iterations, {:>4} splits {:>4} merges {:>4} saturated, high water {}",
                r.leaves, st.drawn, r.max_depth, st.iterations, st.splits(), st.merges(), st.saturated(), st.high_water
            );
        }
    }
    saturated
}
