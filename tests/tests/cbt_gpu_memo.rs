//! `cbt.eval`'s surface memo: a moved eye re-blends what each leaf's points kept instead of
//! walking them again, and the pool it builds is the one every point walked would build, bit
//! for bit — also across a fade, an arrival's end and an eviction of the tiles it kept.

mod cbt_gpu_common;
use cbt_gpu_common::*;
use engine::atlas::slots::Residency;
use engine::cbt::gpu::buffers::MEMO_CORNER_WORDS;
use engine::cbt::gpu::nodes;
use engine::cbt::gpu::readback::{self, Readback};
use engine::cbt::CbtParams;
use engine::planet::cube::{dir_to_face, latlon_to_dir};
use engine::planet::TileId;

const CAPACITY: u32 = 1 << 14;

/// The pool and, per entry, the surface clock at which its memo was last written.
fn frame_with_memo(
    scene: &mut Scene,
    cam: &engine::camera::ViewCamera,
) -> (engine::cbt::Pool, Vec<u32>) {
    let out = scene.frame_custom(cam, Readback::Pool, None, |g, h, t, push| {
        nodes::declare_update(g, h, t, push);
        g.readback("memo", h.memo_corners);
    });
    let words: Vec<u32> = out
        .readback("memo")
        .expect("memo")
        .chunks_exact(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    let clock_word = (MEMO_CORNER_WORDS - 1) * CAPACITY as usize;
    let kept = words[clock_word..clock_word + CAPACITY as usize].to_vec();
    (readback::pool(&out).expect("pool"), kept)
}

/// Applies `f` to both scenes' residencies (the same change in each).
fn change(scenes: [&mut Scene; 2], f: impl Fn(&mut Vec<engine::atlas::slots::ResidentTile>)) {
    for s in scenes {
        let mut tiles = s.s.res.tiles.clone();
        f(&mut tiles);
        s.s.res = Residency::new(tiles);
    }
}

/// A camera drifting at 1 km (0.3 m and 0.02° a frame: the quiet thresholds' scale) over the
/// tiles, once with the memo and once without: every frame's pool is the same bit for bit,
/// positions included. Meanwhile the finest tile fades (its points walk again), ends its fade,
/// its parent fades (what the finest tile's points blend with), the finest tile is evicted (its
/// points fall back to the parent) and arrives again (the parent's points in it find it). The
/// memo is really used: a tile far from the view fades a little each frame so that the surface clock
/// advances, and most leaves keep a memo from an older clock.
#[test]
fn a_moving_eye_reblends_to_the_bits_of_a_walk() {
    let mut on = Scene::new(CAPACITY, CbtParams::default());
    let mut off = Scene::new(
        CAPACITY,
        CbtParams {
            surface_memo: false,
            ..CbtParams::default()
        },
    );
    let cam = |f: usize| {
        camera(
            LAT + f as f64 * 3e-6,
            LON,
            1000.0 + 0.3 * f as f64,
            30.0 + 0.02 * f as f64,
            -15.0,
        )
    };
    on.run_to_quiet(&cam(0), 40);
    off.run_to_quiet(&cam(0), 40);

    let spot = latlon_to_dir(LAT, LON);
    let home = TileId::new(0, dir_to_face(spot).0, 0, 0);
    // The L0 tile sharing no edge or corner with the spot's: its fade reaches no record a walk
    // near the spot reads (an L0 tile's own weight is 1 whatever its fade).
    let far = world()
        .res
        .tiles
        .iter()
        .map(|t| t.id)
        .find(|id| {
            id.level == 0
                && *id != home
                && (-1..=1).all(|dx| (-1..=1).all(|dy| home.neighbour(dx, dy) != Some(*id)))
        })
        .expect("the opposite face");
    let finest = world()
        .res
        .tiles
        .iter()
        .map(|t| t.id)
        .filter(|id| id.level == FINEST)
        .collect::<Vec<_>>();
    let parents: Vec<TileId> = finest.iter().filter_map(|id| id.parent()).collect();
    assert!(!finest.is_empty());

    // What each frame changes besides the far tile's fade.
    let schedule = |f: usize, tiles: &mut Vec<engine::atlas::slots::ResidentTile>| match f {
        4..=6 => {
            for t in tiles.iter_mut().filter(|t| finest.contains(&t.id)) {
                t.fade = [0.5, 0.75, 1.0][f - 4];
            }
        }
        7 | 8 => {
            for t in tiles.iter_mut().filter(|t| parents.contains(&t.id)) {
                t.fade = if f == 7 { 0.5 } else { 1.0 };
            }
        }
        11 | 12 => tiles.retain(|t| !finest.contains(&t.id)),
        13 => *tiles = world().res.tiles.clone(),
        _ => {}
    };
    let mut written = [0usize; 15];
    for (f, slot) in written.iter_mut().enumerate().skip(1) {
        let fade_far = 0.5 + 0.01 * f as f32;
        change([&mut on, &mut off], |tiles| {
            schedule(f, tiles);
            for t in tiles.iter_mut().filter(|t| t.id == far) {
                t.fade = fade_far;
            }
        });
        let (a, kept) = frame_with_memo(&mut on, &cam(f));
        let b = readback::pool(&off.frame(&cam(f), Readback::Pool)).expect("pool");
        assert_same_pool(&a, &b, &format!("frame {f}: memo against walks"));
        let now = on.s.clock.now;
        let leaves: Vec<u32> = a.leaves().collect();
        let old = leaves.iter().filter(|&&i| kept[i as usize] < now).count();
        let fresh = leaves.iter().filter(|&&i| kept[i as usize] == now).count();
        assert_eq!(
            old + fresh,
            leaves.len(),
            "frame {f}: a memo newer than the clock"
        );
        let st = readback::frame_stats(&a.control);
        println!(
            "frame {f:>2}: {} leaves, {} iterations, memo kept by {old}, written by {fresh}",
            leaves.len(),
            st.iterations
        );
        *slot = fresh;
        // Where nothing seen changed, most leaves kept their memo (those that wrote it are the
        // planet's coarse leaves far from the view, whose L0 tiles' edges border the fading
        // one, and a few whose level changed).
        if matches!(f, 1..=3 | 9 | 10 | 14) {
            assert!(
                old as f64 > 0.9 * leaves.len() as f64,
                "frame {f}: only {old} of {} leaves kept their memo",
                leaves.len()
            );
        }
    }
    // The finest tile faded (4), its parent faded (7), the finest was evicted (11) and came
    // back (13, where the parent's points in it find it: the parent's children changed): the
    // points reading them walked again.
    for f in [4, 7, 11, 13] {
        assert!(
            written[f] >= 2 * written[3],
            "frame {f}: the tiles seen changed, yet only {} memos were written (frame 3: {})",
            written[f],
            written[3]
        );
    }
    on.destroy();
    off.destroy();
}
