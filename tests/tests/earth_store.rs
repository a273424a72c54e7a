//! The pyramid on disk and the block cache: stored tiles equal derived ones, a block is loaded
//! once however many threads ask, the byte budget holds, and bad input (bit flips, truncation,
//! an unwritable directory) is detected, logged and re-derived — never a wrong height.

mod earth_common;

use engine::earth::Tile;
use engine::planet::{Face, TileId};
use engine::store::block::{BlockId, BLOCK_FILE_BYTES, HEADER_BYTES};
use engine::store::{Oracle, OracleConfig, OracleError};
use std::sync::Arc;

const L2_TILE: TileId = TileId {
    level: 2,
    face: Face(3),
    x: 1,
    y: 2,
};

/// The tile derived in memory, the reference every other path must reproduce exactly.
fn reference(id: TileId) -> Tile {
    earth_common::source().derive_tile(id, None)
}

#[test]
fn stored_tiles_equal_derived_and_are_read_back() {
    let dir = earth_common::temp_dir("stored");
    let want = reference(L2_TILE);
    {
        let o = earth_common::oracle(Some(dir.clone()), 1, 1 << 30);
        assert_eq!(*o.get(L2_TILE), want);
        let c = o.counters();
        assert_eq!(
            (c.derived.tiles, c.stored.tiles, c.tiles_written),
            (1, 0, 1)
        );
    }
    let o = earth_common::oracle(Some(dir.clone()), 1, 1 << 30);
    assert_eq!(*o.get(L2_TILE), want);
    let c = o.counters();
    assert_eq!((c.derived.tiles, c.stored.tiles), (0, 1));
    let f = BlockId::of(L2_TILE).path(&dir);
    assert_eq!(
        std::fs::metadata(&f).expect("block file").len(),
        BLOCK_FILE_BYTES
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn concurrent_requests_load_a_block_and_a_tile_once() {
    let dir = earth_common::temp_dir("once");
    let o = Arc::new(earth_common::oracle(Some(dir.clone()), 2, 1 << 30));
    let sibling = TileId { x: 0, ..L2_TILE };
    let threads: Vec<_> = (0..8)
        .map(|k| {
            let o = o.clone();
            std::thread::spawn(move || o.get(if k % 2 == 0 { L2_TILE } else { sibling }))
        })
        .collect();
    // The pool asks for the same tiles at the same time.
    o.request(&[L2_TILE, sibling], 1.0);
    let got: Vec<_> = threads
        .into_iter()
        .map(|t| t.join().expect("thread"))
        .collect();
    o.wait_idle();
    let done = o.collect();
    assert_eq!(done.len(), 2);
    assert!(done.iter().all(|(_, r)| r.is_ok()), "{done:?}");
    let c = o.counters();
    assert_eq!(c.blocks_opened, 1, "block opened more than once");
    assert_eq!(c.derived.tiles, 2, "a tile was derived more than once");
    assert!(got.iter().step_by(2).all(|t| Arc::ptr_eq(t, &got[0])));
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn byte_budget_holds() {
    let budget = 3 * Tile::MEMORY_BYTES;
    let o = earth_common::oracle(None, 1, budget);
    // Six tiles in six different blocks (L2: one block per face).
    for f in 0..6u8 {
        let id = TileId::new(2, Face(f), 0, 3);
        o.get(id);
        assert!(
            o.cache().bytes() <= budget,
            "{} > {budget}",
            o.cache().bytes()
        );
    }
    let c = o.counters();
    assert!(c.blocks_evicted >= 3, "{c:?}");
    assert!(o.cache().blocks() <= 3);
}

fn corrupt_and_reread(tag: &str, damage: impl Fn(&std::path::Path)) {
    let dir = earth_common::temp_dir(tag);
    let want = reference(L2_TILE);
    earth_common::oracle(Some(dir.clone()), 1, 1 << 30).get(L2_TILE);
    damage(&BlockId::of(L2_TILE).path(&dir));
    let o = earth_common::oracle(Some(dir.clone()), 1, 1 << 30);
    assert_eq!(*o.get(L2_TILE), want, "{tag}: wrong height after damage");
    let c = o.counters();
    assert_eq!(
        (c.corrupt, c.derived.tiles, c.stored.tiles),
        (1, 1, 0),
        "{tag}: {c:?}"
    );
    // Re-derived and rewritten: the next reader gets it from disk again.
    let o = earth_common::oracle(Some(dir.clone()), 1, 1 << 30);
    assert_eq!(*o.get(L2_TILE), want);
    assert_eq!(o.counters().stored.tiles, 1);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn bit_flipped_tile_is_detected_and_rederived() {
    corrupt_and_reread("flip", |p| {
        let mut b = std::fs::read(p).expect("block");
        let slot = BlockId::slot(L2_TILE);
        b[HEADER_BYTES + slot * engine::earth::tile::TILE_DISK_BYTES + 12_345] ^= 0x04;
        std::fs::write(p, b).expect("write");
    });
}

#[test]
fn truncated_block_is_detected_and_rederived() {
    corrupt_and_reread("trunc", |p| {
        let f = std::fs::OpenOptions::new()
            .write(true)
            .open(p)
            .expect("open");
        f.set_len(BLOCK_FILE_BYTES / 3).expect("truncate");
    });
}

#[test]
fn flipped_header_is_detected_and_rederived() {
    corrupt_and_reread("header", |p| {
        let mut b = std::fs::read(p).expect("block");
        b[30] ^= 0x80;
        std::fs::write(p, b).expect("write");
    });
}

#[test]
fn unwritable_data_dir_errors_or_falls_back_to_memory() {
    // A path under a regular file can never be a directory (this holds for root too).
    let file = earth_common::temp_dir("unwritable").join("not-a-dir");
    std::fs::write(&file, b"x").expect("file");
    let bad = file.join("pyramid");
    let cfg = |memory_fallback| OracleConfig {
        data_dir: Some(bad.clone()),
        memory_fallback,
        threads: 1,
        cache_bytes: 1 << 30,
    };
    match Oracle::new(earth_common::source(), cfg(false)) {
        Err(e @ OracleError::Unwritable { .. }) => {
            assert!(e.to_string().contains("not-a-dir/pyramid"), "{e}")
        }
        Ok(_) => panic!("an unwritable directory must be an error without fallback"),
    }
    let o = Oracle::new(earth_common::source(), cfg(true)).expect("fallback");
    assert!(o.data_dir().is_none());
    assert_eq!(*o.get(L2_TILE), reference(L2_TILE));
}

/// One worker kept busy by a blocker while four L2 tiles queue up at priorities 1, 1, 0.5 and
/// 5 (two on face 0, two on face 1: a face is one block at L2); the order they are served in.
fn served_order(o: &Oracle) -> Vec<TileId> {
    let t = |f: u8, x: u32| TileId::new(2, Face(f), x, 0);
    o.request(&[t(5, 0)], 9.0);
    std::thread::sleep(std::time::Duration::from_millis(20));
    o.request(&[t(0, 1), t(1, 1)], 1.0);
    o.request(&[t(0, 2)], 0.5);
    o.request(&[t(1, 2)], 5.0);
    o.wait_idle();
    o.collect().into_iter().map(|(id, _)| id).collect()
}

#[test]
fn requests_are_served_by_priority_with_their_block() {
    // One worker over a store on disk; at L2 a face is one block. The blocker keeps the worker
    // busy while the rest queue up; then the most urgent tile goes first, taking its block's
    // queued tile along (one file read serves both).
    let dir = earth_common::temp_dir("priority");
    let o = earth_common::oracle(Some(dir.clone()), 1, 1 << 30);
    let t = |f: u8, x: u32| TileId::new(2, Face(f), x, 0);
    let order = served_order(&o);
    assert_eq!(order.len(), 5);
    assert_eq!(order[0], t(5, 0));
    let mut urgent = order[1..3].to_vec();
    urgent.sort();
    assert_eq!(urgent, vec![t(1, 1), t(1, 2)], "{order:?}");
    let mut rest = order[3..].to_vec();
    rest.sort();
    assert_eq!(rest, vec![t(0, 1), t(0, 2)], "{order:?}");
    drop(o);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn in_memory_requests_are_served_one_tile_at_a_time_by_priority() {
    // No store on disk: every tile is a derivation, so a block's tiles are not taken along
    // (they would hold one worker while others idle) — the order is the priority order.
    let o = earth_common::oracle(None, 1, 1 << 30);
    let t = |f: u8, x: u32| TileId::new(2, Face(f), x, 0);
    let order = served_order(&o);
    assert_eq!(order[0], t(5, 0));
    assert_eq!(order[1], t(1, 2), "{order:?}");
    let mut mid = order[2..4].to_vec();
    mid.sort();
    assert_eq!(mid, vec![t(0, 1), t(1, 1)], "{order:?}");
    assert_eq!(order[4], t(0, 2), "{order:?}");
}
