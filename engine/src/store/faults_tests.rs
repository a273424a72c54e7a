//! Faults under load: each test flies a little (requests tiles a few at a time and collects
//! them every few milliseconds, as the renderer does), injects one fault mid-flight, and checks
//! that every request completes within a deadline, later tiles keep coming, the fault is
//! reported exactly once and counted, and every tile that arrives equals the unfaulted one.

use super::block::{BlockId, HEADER_BYTES};
use super::faults::{FaultHook, FaultKind, TileFault};
use super::oracle::{Completed, Oracle, OracleConfig};
use crate::earth::tile::TILE_DISK_BYTES;
use crate::earth::{Etopo, Source, Tile};
use crate::planet::{Body, Face, TileId};
use parking_lot::Mutex;
use std::collections::HashMap;
use std::os::unix::fs::FileExt;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

/// Far beyond a loaded 2-core machine's worst case for a handful of tiles, far below "forever".
const DEADLINE: Duration = Duration::from_secs(30);
/// How often the "frame loop" polls.
const FRAME: Duration = Duration::from_millis(5);

/// A small synthetic source (5° grid, land and sea), so the tests need no data files.
fn source() -> Arc<Source> {
    static SRC: OnceLock<Arc<Source>> = OnceLock::new();
    SRC.get_or_init(|| {
        let (nlon, nlat) = (72, 37);
        let data = (0..nlat * nlon)
            .map(|k| {
                let (r, c) = ((k / nlon) as f32, (k % nlon) as f32);
                3000.0 * (0.21 * c).sin() * (0.17 * r).cos() - 500.0
            })
            .collect();
        let etopo = Etopo {
            path: PathBuf::from("synthetic"),
            nlon,
            nlat,
            lon0: 0.0,
            dlon: 5.0,
            lat0: -90.0,
            dlat: 5.0,
            data,
            fill_count: 0,
        };
        Arc::new(Source::from_etopo(etopo, Body::EARTH))
    })
    .clone()
}

/// The tile derived alone, the reference every faulted path must reproduce bit for bit
/// (memoised: the tests compare many tiles more than once).
fn reference(id: TileId) -> Arc<Tile> {
    static REF: OnceLock<Mutex<HashMap<TileId, Arc<Tile>>>> = OnceLock::new();
    let map = REF.get_or_init(Default::default);
    if let Some(t) = map.lock().get(&id) {
        return t.clone();
    }
    let t = Arc::new(source().derive_tile(id, None));
    map.lock().insert(id, t.clone());
    t
}

fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("planetfall-faults-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

fn oracle(dir: Option<PathBuf>, hook: &Arc<FaultHook>) -> Oracle {
    let cfg = OracleConfig {
        data_dir: dir,
        memory_fallback: false,
        threads: 2,
        cache_bytes: 1 << 30,
    };
    Oracle::with_fault_hook(source(), cfg, Some(hook.clone())).expect("oracle")
}

/// Requests `ids` two at a time (most urgent first) and collects every `FRAME` until all have
/// completed; panics if any is still outstanding at `DEADLINE` (a hang). Returns the results
/// and the longest a single request + collect took (what a frame would pay).
fn fly(o: &Oracle, ids: &[TileId]) -> (HashMap<TileId, Result<Arc<Tile>, TileFault>>, Duration) {
    let start = Instant::now();
    let mut got = HashMap::new();
    let mut next = 0;
    let mut worst = Duration::ZERO;
    while got.len() < ids.len() {
        assert!(
            start.elapsed() < DEADLINE,
            "hang: {} of {} requests completed in {DEADLINE:?}",
            got.len(),
            ids.len()
        );
        let t = Instant::now();
        if next < ids.len() && o.outstanding() < 2 {
            let end = (next + 2).min(ids.len());
            o.request(&ids[next..end], 100.0 - next as f32);
            next = end;
        }
        let done: Vec<Completed> = o.collect();
        worst = worst.max(t.elapsed());
        for (id, r) in done {
            assert!(ids.contains(&id), "{id} completed but was not requested");
            assert!(got.insert(id, r).is_none(), "{id} completed twice");
        }
        std::thread::sleep(FRAME);
    }
    assert!(
        o.wait_idle_for(DEADLINE),
        "oracle not idle after the flight"
    );
    (got, worst)
}

/// Every result is a tile equal to the unfaulted one.
fn assert_exact(got: &HashMap<TileId, Result<Arc<Tile>, TileFault>>) {
    for (id, r) in got {
        match r {
            Ok(t) => assert!(
                **t == *reference(*id),
                "{id}: differs from the unfaulted tile"
            ),
            Err(e) => panic!("{id}: unexpected fault {e}"),
        }
    }
}

fn reports_of(o: &Oracle, kind: FaultKind) -> usize {
    o.faults()
        .reports
        .iter()
        .filter(|(k, _)| *k == kind)
        .count()
}

fn l2(face: u8, x: u32, y: u32) -> TileId {
    TileId::new(2, Face(face), x, y)
}

#[test]
fn panicking_production_fails_once_and_the_flight_goes_on() {
    let hook = Arc::new(FaultHook::default());
    let dir = temp_dir("panic");
    let o = Arc::new(oracle(Some(dir.clone()), &hook));
    let bad = l2(0, 1, 1);
    hook.panic_on(bad);
    // Slow derivation so a second asker is waiting on the busy slot when the panic comes: it
    // must be woken (slot reset), not left waiting forever.
    hook.set_derive_delay(Duration::from_millis(300));
    o.request(&[bad], 1000.0);
    std::thread::sleep(Duration::from_millis(50));
    let (tx, rx) = std::sync::mpsc::channel();
    let o2 = o.clone();
    std::thread::spawn(move || tx.send(o2.try_get(bad)).unwrap());
    let waiter = rx
        .recv_timeout(DEADLINE)
        .expect("a waiter on a panicked slot hung");
    assert!(
        matches!(&waiter, Err(TileFault::Panicked { tile, message })
            if *tile == bad && message.contains("injected")),
        "{waiter:?}"
    );
    assert!(o.wait_idle_for(DEADLINE), "the worker hung on a panic");
    let first = o.collect();
    assert!(
        matches!(first.as_slice(), [(t, Err(TileFault::Panicked { .. }))] if *t == bad),
        "{first:?}"
    );
    hook.set_derive_delay(Duration::ZERO);

    // The parent's production needs the panicking child: it fails too, and nothing hangs.
    let parent = bad.parent().expect("L1 parent");
    let siblings = [l2(0, 0, 0), l2(0, 1, 0), l2(0, 0, 1)];
    let mut ids = vec![parent];
    ids.extend(siblings);
    ids.push(l2(1, 2, 2)); // another block, later in the flight
    let (mut got, _) = fly(&o, &ids);
    assert!(matches!(
        got.remove(&parent),
        Some(Err(TileFault::Panicked { .. }))
    ));
    assert_exact(&got);

    let f = o.faults();
    // The worker's `bad`, the waiter's retry, the parent (whose child panicked): each failed.
    assert_eq!(f.failed, 3, "{f:?}");
    assert_eq!(reports_of(&o, FaultKind::Panic), 1, "{f:?}");
    assert_eq!(f.reports.len(), 1, "{f:?}");

    // The derivation is fixed: asking again retries (the slot was reset, not poisoned).
    hook.clear_panic(bad);
    let (got, _) = fly(&o, &[bad, parent]);
    let kids = parent.children().map(reference);
    let want = source().derive_tile(parent, Some(&kids));
    assert!(**got[&parent].as_ref().expect("parent") == want);
    assert_exact(&[(bad, got[&bad].clone())].into_iter().collect());
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn many_askers_of_a_panicking_tile_all_get_the_fault() {
    // Eight threads and the pool ask for one tile whose production panics, slowly: each asker
    // in turn finds the slot reset, tries, panics and wakes the next. None may be left waiting.
    let hook = Arc::new(FaultHook::default());
    let o = Arc::new(oracle(None, &hook));
    let bad = l2(3, 2, 2);
    hook.panic_on(bad);
    hook.set_derive_delay(Duration::from_millis(30));
    let (tx, rx) = std::sync::mpsc::channel();
    for _ in 0..8 {
        let (o, tx) = (o.clone(), tx.clone());
        std::thread::spawn(move || tx.send(o.try_get(bad)).unwrap());
    }
    o.request(&[bad], 1.0);
    for k in 0..8 {
        let r = rx
            .recv_timeout(DEADLINE)
            .unwrap_or_else(|_| panic!("asker {k} hung"));
        assert!(matches!(r, Err(TileFault::Panicked { tile, .. }) if tile == bad));
    }
    assert!(o.wait_idle_for(DEADLINE));
    let done = o.collect();
    assert!(
        matches!(done.as_slice(), [(t, Err(_))] if *t == bad),
        "{done:?}"
    );
    assert_eq!(o.faults().failed, 9);
    assert_eq!(o.faults().reports.len(), 1);
    // Fixed: one production, shared by every asker again.
    hook.clear_panic(bad);
    let tiles: Vec<Arc<Tile>> = (0..4).map(|_| o.try_get(bad).expect("fixed")).collect();
    assert!(tiles.iter().all(|t| Arc::ptr_eq(t, &tiles[0])));
    assert!(*tiles[0] == *reference(bad));
    assert_eq!(o.counters().derived.tiles, 1);
}

#[test]
fn a_panic_while_opening_a_block_fails_its_tiles_and_retries_later() {
    let hook = Arc::new(FaultHook::default());
    let dir = temp_dir("open");
    let o = oracle(Some(dir.clone()), &hook);
    let (a, b, other) = (l2(4, 0, 2), l2(4, 1, 2), l2(5, 0, 2));
    hook.panic_on_open(BlockId::of(a));
    let (mut got, _) = fly(&o, &[a, b, other]);
    for t in [a, b] {
        assert!(
            matches!(got.remove(&t), Some(Err(TileFault::Panicked { .. }))),
            "{t}"
        );
    }
    assert_exact(&got);
    assert_eq!((o.faults().failed, o.faults().reports.len()), (2, 1));
    // The block's state went back to "not open": the next ask opens it.
    hook.clear_panic_on_open(BlockId::of(a));
    let (got, _) = fly(&o, &[a, b]);
    assert_exact(&got);
    assert_eq!(o.counters().tiles_written, 3);
    let _ = std::fs::remove_dir_all(dir);
}

/// Writes a block's tiles with one oracle, then opens the block in a second one (reading one
/// tile), damages the file under the open handle and flies over the rest of the block.
fn damage_mid_flight(tag: &str, damage: impl Fn(&std::fs::File)) {
    let hook = Arc::new(FaultHook::default());
    let dir = temp_dir(tag);
    let ids: Vec<TileId> = (0..4).map(|x| l2(1, x, 0)).collect();
    {
        let o = oracle(Some(dir.clone()), &hook);
        let (got, _) = fly(&o, &ids);
        assert_exact(&got);
        assert_eq!(o.counters().tiles_written, 4);
    }
    let o = oracle(Some(dir.clone()), &hook);
    assert!(*o.get(ids[0]) == *reference(ids[0]));
    assert_eq!(o.counters().stored.tiles, 1);
    let path = BlockId::of(ids[0]).path(&dir);
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&path)
        .expect("block file");
    damage(&file);
    drop(file);
    let (got, _) = fly(&o, &ids[1..]);
    assert_exact(&got);
    let c = o.counters();
    assert_eq!(
        (c.corrupt, c.derived.tiles, c.stored.tiles),
        (3, 3, 1),
        "{tag}: {c:?}"
    );
    assert_eq!(reports_of(&o, FaultKind::Corrupt), 1, "{tag}");
    assert_eq!(c.failed + c.write_errors + c.store_lost, 0, "{tag}: {c:?}");
    drop(o);
    // Re-derived and written back: a fresh oracle reads them from disk.
    let o = oracle(Some(dir.clone()), &hook);
    let (got, _) = fly(&o, &ids[1..]);
    assert_exact(&got);
    assert_eq!(o.counters().stored.tiles, 3, "{tag}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn block_truncated_under_an_open_handle_is_re_derived() {
    // Under a memory map this read would raise SIGBUS and kill the process.
    damage_mid_flight("trunc", |f| {
        f.set_len((HEADER_BYTES + TILE_DISK_BYTES / 2) as u64)
            .expect("truncate")
    });
}

#[test]
fn block_corrupted_under_an_open_handle_is_re_derived() {
    damage_mid_flight("flip", |f| {
        for slot in 1..4 {
            let at = (HEADER_BYTES + slot * TILE_DISK_BYTES + 4321) as u64;
            let mut b = [0u8];
            f.read_exact_at(&mut b, at).expect("read");
            f.write_all_at(&[b[0] ^ 0x20], at).expect("write");
        }
    });
}

#[test]
fn slow_disk_and_derivation_never_block_a_frame() {
    // Each read, write and derivation waits this long: a frame that waited on one would take
    // at least this; one that does not takes microseconds (half of it allows for a loaded box).
    const SLOW: Duration = Duration::from_millis(400);
    let hook = Arc::new(FaultHook::default());
    let dir = temp_dir("slow");
    let ids: Vec<TileId> = (0..4).map(|x| l2(2, x, 1)).collect();
    {
        let o = oracle(Some(dir.clone()), &hook);
        hook.set_write_delay(SLOW);
        hook.set_derive_delay(SLOW);
        let (got, worst) = fly(&o, &ids);
        assert_exact(&got);
        assert!(worst < SLOW / 2, "a frame waited {worst:?}");
    }
    hook.set_read_delay(SLOW);
    let o = oracle(Some(dir.clone()), &hook);
    let t = Instant::now();
    let (got, worst) = fly(&o, &ids);
    eprintln!(
        "slow disk: 4 stored tiles in {:.2} s, longest request + collect {worst:?}",
        t.elapsed().as_secs_f64()
    );
    assert_exact(&got);
    assert!(worst < SLOW / 2, "a frame waited {worst:?}");
    assert_eq!(o.counters().stored.tiles, 4);
    assert_eq!(o.faults().line(), None, "{:?}", o.faults());
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn full_disk_keeps_tiles_in_memory_and_reports_once() {
    let hook = Arc::new(FaultHook::default());
    let dir = temp_dir("full");
    let o = oracle(Some(dir.clone()), &hook);
    let (got, _) = fly(&o, &[l2(3, 0, 0), l2(3, 1, 0)]);
    assert_exact(&got);
    assert_eq!(o.counters().tiles_written, 2);

    // The disk fills mid-flight: the same block and a new one.
    hook.set_fail_writes(true);
    let (got, _) = fly(&o, &[l2(3, 2, 0), l2(3, 3, 0), l2(4, 0, 0), l2(4, 1, 0)]);
    assert_exact(&got);
    let c = o.counters();
    assert_eq!((c.tiles_written, c.write_errors), (2, 4), "{c:?}");

    // A block that cannot even be created (its directory is a file): same report, counted.
    let blocked = BlockId::of(TileId::new(3, Face(5), 0, 0)).path(&dir);
    let level_dir = blocked.parent().and_then(|p| p.parent()).expect("L3 dir");
    std::fs::create_dir_all(level_dir.parent().expect("tiles dir")).expect("dir");
    std::fs::write(level_dir, b"not a directory").expect("file");
    let (got, _) = fly(&o, &[TileId::new(3, Face(5), 0, 0)]);
    assert_exact(&got);
    assert_eq!(o.counters().write_errors, 5);
    assert_eq!(reports_of(&o, FaultKind::Write), 1);
    assert_eq!(o.faults().reports.len(), 1, "{:?}", o.faults());

    // Space again: writes resume.
    hook.set_fail_writes(false);
    let (got, _) = fly(&o, &[l2(4, 2, 0)]);
    assert_exact(&got);
    assert_eq!(o.counters().tiles_written, 3);
    assert_eq!(o.counters().failed, 0);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn deleted_store_goes_on_in_memory_and_reports_once() {
    let hook = Arc::new(FaultHook::default());
    let dir = temp_dir("deleted");
    let o = oracle(Some(dir.clone()), &hook);
    let (got, _) = fly(&o, &[l2(5, 0, 0), l2(5, 1, 0)]);
    assert_exact(&got);
    std::fs::remove_dir_all(&dir).expect("remove the store");
    // Open blocks and new ones, several of each.
    let later = [
        l2(5, 2, 0),
        l2(5, 3, 0),
        l2(0, 3, 3),
        l2(1, 3, 3),
        l2(2, 3, 3),
    ];
    let (got, _) = fly(&o, &later);
    assert_exact(&got);
    let c = o.counters();
    assert_eq!((c.store_lost, c.write_errors, c.failed), (1, 0, 0), "{c:?}");
    assert_eq!(c.tiles_written, 2, "{c:?}");
    assert_eq!(reports_of(&o, FaultKind::StoreLost), 1);
    assert_eq!(o.faults().reports.len(), 1, "{:?}", o.faults());
    assert!(!dir.exists(), "the removed data directory was re-created");
    assert!(o.faults().line().unwrap_or_default().contains("store lost"));
    // Tiles already in memory still come back from the cache.
    assert!(*o.get(l2(5, 0, 0)) == *reference(l2(5, 0, 0)));
}

#[test]
fn a_long_flight_through_every_fault_at_once() {
    // Sixteen tiles over four blocks, two of which panic; a slow disk throughout; the disk
    // fills after the first quarter and the data directory is removed after the second.
    let hook = Arc::new(FaultHook::default());
    let dir = temp_dir("chaos");
    let o = oracle(Some(dir.clone()), &hook);
    hook.set_read_delay(Duration::from_millis(20));
    hook.set_write_delay(Duration::from_millis(20));
    let ids: Vec<TileId> = (0..16)
        .map(|k| TileId::new(3, Face((k % 4) as u8), k as u32 / 4, 7))
        .collect();
    let bad = [ids[5], ids[10]];
    bad.iter().for_each(|&b| hook.panic_on(b));
    let mut got = HashMap::new();
    for (k, leg) in ids.chunks(4).enumerate() {
        match k {
            1 => hook.set_fail_writes(true),
            2 => std::fs::remove_dir_all(&dir).expect("remove the store"),
            _ => {}
        }
        got.extend(fly(&o, leg).0);
    }
    assert_eq!(got.len(), 16);
    for b in bad {
        assert!(matches!(
            got.remove(&b),
            Some(Err(TileFault::Panicked { .. }))
        ));
    }
    assert_exact(&got);
    let f = o.faults();
    assert_eq!((f.failed, f.store_lost, f.corrupt), (2, true, 0), "{f:?}");
    // Legs: 4 written; the second leg's 4 (one panics before writing) fail to write.
    assert_eq!(
        (o.counters().tiles_written, f.write_errors),
        (4, 3),
        "{f:?}"
    );
    // One report per kind (panic and write error may come in either order).
    for kind in [FaultKind::Panic, FaultKind::Write, FaultKind::StoreLost] {
        assert_eq!(reports_of(&o, kind), 1, "{kind:?}: {f:?}");
    }
    assert_eq!(f.reports.len(), 3, "{f:?}");
    assert!(!dir.exists());
}

/// Another process (a concurrent `planetfall bake`) rewrites a tile this cache holds: the next
/// header check finds exactly that tile, forgets the old copy, and the next read returns the
/// new content. Our own writes never count.
#[test]
fn a_tile_rewritten_underneath_is_found_and_read_again() {
    let hook = Arc::new(FaultHook::default());
    let dir = temp_dir("underneath");
    let ids: Vec<TileId> = (0..4).map(|x| l2(1, x, 0)).collect();
    let o = oracle(Some(dir.clone()), &hook);
    let (got, _) = fly(&o, &ids);
    assert_exact(&got);
    assert_eq!(o.counters().tiles_written, 4);
    assert!(o.cache().changed_on_disk(8).is_empty(), "own writes");
    // The other writer: the same block file, one slot with new content, then its header.
    let bid = BlockId::of(ids[1]);
    let (f, mut h, problem) =
        super::block::BlockFile::open(&dir, bid, Body::EARTH.radius).expect("block");
    assert!(problem.is_none());
    let mut t = (*reference(ids[1])).clone();
    for k in 0..1000 {
        t.set(k, t.code(k).saturating_add(16)); // +5 m on land
    }
    h.crc[BlockId::slot(ids[1])] = f.write_slot(&t).expect("write");
    f.write_header(&h).expect("header");
    drop(f);
    assert_eq!(o.cache().changed_on_disk(8), vec![ids[1]]);
    assert!(o.cache().changed_on_disk(8).is_empty(), "reported once");
    assert!(*o.get(ids[1]) == t, "the new content is read");
    assert!(*o.get(ids[0]) == *reference(ids[0]), "the others are kept");
    // Forgetting (a detail-setting change) makes the next read go to the store again.
    let stored = o.counters().stored.tiles;
    o.cache().forget(&[ids[2]]);
    assert!(*o.get(ids[2]) == *reference(ids[2]));
    assert_eq!(o.counters().stored.tiles, stored + 1);
    let _ = std::fs::remove_dir_all(dir);
}
