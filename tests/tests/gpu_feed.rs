//! The stream fed by the GPU (`engine::earth::gpu_feed`), on lavapipe under validation: a
//! flying renderer whose tiles are made by `tiles.derive` in its own frames. The frames never
//! wait, the coarse stand-ins are replaced in their slots by GPU tiles that are bit for bit the
//! CPU's (`Source::derive_tile`, L0/L1 from their children as the store makes them), and the
//! feed meters them as derived supply.

use engine::camera::ViewCamera;
use engine::earth::{Source, Tile};
use engine::planet::TileId;
use engine::renderer::{PlanetRenderer, RendererOptions};
use engine::source::TileSource;
use planetfall_tests::{earth_source, planet_frame, Gpu};
use std::sync::Arc;

/// The CPU tile as the store makes it: L0/L1 from their four children.
fn cpu_tile(src: &Source, id: TileId) -> Tile {
    if id.level >= 2 {
        return src.derive_tile(id, None);
    }
    let ch = id.children().map(|c| Arc::new(cpu_tile(src, c)));
    src.derive_tile(id, Some(&ch))
}

#[test]
fn the_gpu_feed_replaces_stand_ins_with_the_cpus_exact_tiles_without_waiting() {
    let mut gpu = Gpu::new();
    let earth = earth_source();
    let src = earth.earth().expect("the Earth source has its grids");
    let mut opts = RendererOptions::for_device(&gpu.ctx);
    opts.slots = 256;
    opts.pool_capacity = 1 << 15;
    opts.wait_for_tiles = false;
    opts.gpu_tiles_per_frame = 3;
    // Lavapipe takes about a second a tile, so a real budget would allow one a frame; this
    // test is about landing what the GPU made (the budget has its own unit test).
    opts.gpu_tile_budget_ms = 1.0e6;
    let mut r = PlanetRenderer::new(&gpu.ctx, earth.clone(), opts, 2).expect("renderer");
    assert_eq!(
        r.gpu_tiles_per_frame(),
        Some(3),
        "lavapipe has shaderFloat64"
    );
    // The feed stands in for the Earth source: what is asked of it behind the renderer (the
    // climate's grids and data directory) is the Earth's, not a wrapper's nothing.
    assert!(
        r.source.earth().is_some(),
        "the feed forwards the Earth's grids"
    );
    assert_eq!(r.source.data_dir(), earth.data_dir());
    assert!(r.source.data_dir().is_some());
    r.set_frame_period(Some(1.0 / 60.0));
    let cam = ViewCamera::geo(20.0, 30.0, r.body.radius + 2.0e7, 0.0, -90.0, 60.0, 64, 48);
    // Frame k's tiles come back when its frame slot comes round (two in flight).
    let frames = 6;
    for _ in 0..frames {
        planet_frame(&mut gpu, &mut r, &cam);
        assert!(!r.stats.residency.waited, "a flying frame never waits");
    }
    let exact: Vec<_> = r
        .residency()
        .tiles
        .iter()
        .filter(|t| !r.is_provisional(t.id))
        .cloned()
        .collect();
    let made = r.source.feed().expect("metered").completed.0;
    eprintln!(
        "{} exact tiles resident after {frames} frames; GPU made {made:?}; {:?}",
        exact.len(),
        r.stats.residency
    );
    // Four frames' tiles are back (the first two frames' slots came round twice).
    assert!(exact.len() >= 6, "{} exact tiles", exact.len());
    assert!(made[0].unwrap() >= exact.len() as u64, "{made:?}");
    assert_eq!(made[1], None, "nothing is read from a store");
    assert!(
        exact.iter().any(|t| t.from.is_some()),
        "an exact tile cross-fades from its stand-in in the same slot"
    );
    for t in &exact {
        let want = cpu_tile(&src, t.id);
        assert!(
            t.tile.heights == want.heights && t.tile.water == want.water,
            "{}: the GPU tile differs from the CPU's",
            t.id
        );
    }
    r.destroy(&gpu.ctx);
}

/// The adaptive budget and the cut, wired through the renderer: a fresh renderer told of a
/// cut (as the bench's teleport is) draws every tile at full weight — stand-ins and the GPU's
/// exact replacements alike — until its view is first complete. Meanwhile the GPU tile budget
/// is its ceiling (50 ms) in every frame of the cut's window whose view misses tiles, grows
/// from the base after the window while tiles are still missing, never passes the cap, and is
/// back at the base in the frame the view is complete.
#[test]
fn the_budget_grows_while_the_view_misses_tiles_and_a_cut_shows_them_at_once() {
    use engine::earth::gpu_budget::CATCH_UP_MAX_MS;
    let mut gpu = Gpu::new();
    let earth = earth_source();
    let mut opts = RendererOptions::for_device(&gpu.ctx);
    opts.slots = 256;
    opts.pool_capacity = 1 << 15;
    opts.wait_for_tiles = false;
    opts.gpu_tiles_per_frame = 4;
    let base = 0.5;
    opts.gpu_tile_budget_ms = base;
    let mut r = PlanetRenderer::new(&gpu.ctx, earth.clone(), opts, 2).expect("renderer");
    r.set_frame_period(Some(1.0 / 60.0));
    let cam = ViewCamera::geo(20.0, 30.0, r.body.radius + 2.0e7, 0.0, -90.0, 60.0, 64, 48);
    r.cut();
    let mut grew = false;
    let mut complete_at = None;
    for frame in 0..24 {
        planet_frame(&mut gpu, &mut r, &cam);
        let b = r.gpu_tile_budget().expect("tiles are made on the GPU");
        let rs = r.stats.residency;
        eprintln!("frame {frame}: {b:?}; cut window {}", rs.cut_window);
        assert!(!rs.waited, "a flying frame never waits");
        assert!(
            b.ms >= base && b.ms <= b.cap_ms && b.cap_ms <= CATCH_UP_MAX_MS,
            "{b:?}"
        );
        if b.needed > 0 && rs.cut_window {
            assert_eq!(
                b.ms, CATCH_UP_MAX_MS,
                "frame {frame}: a cut's window takes the ceiling at once"
            );
            grew = true;
        } else if b.needed > 0 {
            assert!(
                b.ms > base,
                "frame {frame}: tiles missing, the budget grows: {b:?}"
            );
            grew = true;
        } else {
            assert_eq!(b.ms, base, "frame {frame}: nothing missing, the base");
        }
        for t in &r.residency().tiles {
            assert_eq!(t.fade, 1.0, "frame {frame}: {} fades in after a cut", t.id);
            assert!(
                t.from.is_none() || t.xfade == 1.0,
                "frame {frame}: {} cross-fades after a cut",
                t.id
            );
        }
        if rs.pending == 0 && rs.provisional == 0 && !rs.cut_window {
            complete_at = Some(frame);
            break;
        }
    }
    assert!(grew, "the budget never grew");
    let frame = complete_at.expect("the view completes within 24 frames");
    let b = r.gpu_tile_budget().expect("GPU feed");
    assert_eq!((b.needed, b.ms), (0, base), "caught up at frame {frame}");
    r.destroy(&gpu.ctx);
}
