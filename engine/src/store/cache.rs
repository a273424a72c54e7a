//! The shared block cache (TERRAIN.md §5): blocks keyed by `BlockId`, LRU under a byte budget,
//! each block opened once and each tile produced once however many threads ask at the same
//! time — a thread that finds a block opening or a tile in production waits for it.
//!
//! A tile is produced by reading its slot (checked) or, failing that, deriving it from the
//! source and writing it back: the pyramid on disk is a cache of the derivation.
//!
//! Faults (`faults.rs`) never leave a waiter stuck: a production that panics resets its slot (or
//! its block's open state) and wakes the waiters; a failed write keeps the tile in memory; a
//! removed data directory turns the store into a memory-only one. Each is reported once.

use super::block::{BlockFile, BlockId, Header, SlotProblem, BLOCK_TILES};
use super::counters::Counters;
use super::faults::{FaultHook, FaultKind, FaultSummary, Reports};
use crate::earth::amplify::{amplify_tile, L9Tiles};
use crate::earth::{Source, Tile};
use crate::params::{FIRST_DERIVED_LEVEL, LAST_STORED_LEVEL};
use crate::planet::TileId;
use parking_lot::{Condvar, Mutex};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

enum Open {
    NotYet,
    Opening,
    /// Open; `None` when the block lives in memory only (no data dir, or the file failed).
    Ready(Option<Arc<BlockFile>>),
}

enum Slot {
    Unknown,
    Busy,
    Ready(Arc<Tile>),
}

struct BlockState {
    open: Open,
    header: Option<Header>,
    slots: [Slot; BLOCK_TILES],
}

struct BlockEntry {
    state: Mutex<BlockState>,
    cv: Condvar,
    last_used: AtomicU64,
    /// Bytes of the decoded tiles this entry holds.
    bytes: AtomicUsize,
}

struct CacheMap {
    entries: HashMap<BlockId, Arc<BlockEntry>>,
    tick: u64,
}

/// Blocks in memory, the source to derive missing tiles from, and the data directory.
pub struct TileCache {
    map: Mutex<CacheMap>,
    /// Byte budget for decoded tiles (mapped file pages are the kernel's to evict).
    pub budget: usize,
    source: Arc<Source>,
    /// `None`: in-memory only.
    root: Option<PathBuf>,
    pub counters: Counters,
    reports: Reports,
    /// The data directory was removed while running: no more disk reads or writes.
    lost: AtomicBool,
    faults: Option<Arc<FaultHook>>,
    /// The last block `changed_on_disk` checked (its round robin resumes after it).
    scanned: Mutex<Option<BlockId>>,
}

/// What a thread claimed in a block's state; reset (and the waiters woken) if the thread
/// unwinds before finishing, so a panic never leaves `Opening` or `Busy` behind.
struct Claim<'a> {
    entry: &'a BlockEntry,
    /// `None`: the block's opening; `Some(k)`: slot k.
    slot: Option<usize>,
    done: bool,
}

impl Drop for Claim<'_> {
    fn drop(&mut self) {
        if self.done {
            return;
        }
        let mut st = self.entry.state.lock();
        match self.slot {
            None => st.open = Open::NotYet,
            Some(k) => st.slots[k] = Slot::Unknown,
        }
        self.entry.cv.notify_all();
    }
}

impl TileCache {
    pub fn new(source: Arc<Source>, root: Option<PathBuf>, budget: usize) -> TileCache {
        // Tiles derived under the water mask differ from those of the sign rule (its fallback
        // when the mask cannot be had): they live apart, `DATA/gshhg/tiles-v…`, so neither is
        // ever served for the other.
        let root = root.map(|r| {
            if source.has_water_mask() {
                let r = r.join("gshhg");
                let _ = std::fs::create_dir_all(&r);
                r
            } else {
                r
            }
        });
        TileCache {
            map: Mutex::new(CacheMap {
                entries: HashMap::new(),
                tick: 0,
            }),
            budget,
            source,
            root,
            counters: Counters::default(),
            reports: Reports::default(),
            lost: AtomicBool::new(false),
            faults: None,
            scanned: Mutex::new(None),
        }
    }

    /// Injects faults (tests only; see `FaultHook`).
    pub fn with_fault_hook(mut self, hook: Option<Arc<FaultHook>>) -> TileCache {
        self.faults = hook;
        self
    }

    /// Logs a fault if it is the first of its kind.
    pub fn report(&self, kind: FaultKind, message: impl FnOnce() -> String) {
        self.reports.once(kind, message);
    }

    /// Faults so far.
    pub fn faults(&self) -> FaultSummary {
        let c = self.counters.snapshot();
        FaultSummary {
            failed: c.failed,
            corrupt: c.corrupt,
            write_errors: c.write_errors,
            store_lost: c.store_lost > 0,
            reports: self.reports.list(),
        }
    }

    /// The data directory, unless it has been found removed. Checking costs one `stat`, next to
    /// a 575 kB write or a block open; without it a removed directory would be silently
    /// re-created block by block (`create_dir_all`) or written to as unlinked files.
    fn live_root(&self) -> Option<&Path> {
        let root = self.root.as_deref()?;
        if self.lost.load(Ordering::Relaxed) {
            return None;
        }
        if root.is_dir() {
            return Some(root);
        }
        if !self.lost.swap(true, Ordering::Relaxed) {
            self.counters.store_lost.store(1, Ordering::Relaxed);
            self.report(FaultKind::StoreLost, || {
                format!(
                    "data directory {} was removed; tiles are kept in memory from now on",
                    root.display()
                )
            });
        }
        None
    }

    pub fn source(&self) -> &Arc<Source> {
        &self.source
    }

    /// Decoded bytes held now.
    pub fn bytes(&self) -> usize {
        let m = self.map.lock();
        m.entries
            .values()
            .map(|e| e.bytes.load(Ordering::Relaxed))
            .sum()
    }

    /// Blocks held now.
    pub fn blocks(&self) -> usize {
        self.map.lock().entries.len()
    }

    fn entry(&self, b: BlockId) -> Arc<BlockEntry> {
        let mut m = self.map.lock();
        m.tick += 1;
        let tick = m.tick;
        let e = m.entries.entry(b).or_insert_with(|| {
            Arc::new(BlockEntry {
                state: Mutex::new(BlockState {
                    open: Open::NotYet,
                    header: None,
                    slots: std::array::from_fn(|_| Slot::Unknown),
                }),
                cv: Condvar::new(),
                last_used: AtomicU64::new(0),
                bytes: AtomicUsize::new(0),
            })
        });
        e.last_used.store(tick, Ordering::Relaxed);
        e.clone()
    }

    /// Tiles held in memory whose stored copy another process rewrote since they were read or
    /// made (a concurrent `planetfall bake`): their slots are forgotten, so the next `get`
    /// reads the new copy. Checks the on-disk headers of at most `blocks` open stored blocks
    /// per call, round robin (one 4 KB read each): a slot changed when the disk's header
    /// holds it and our copy of the header does not, or with another checksum. Our own
    /// writes update both headers under the block's lock, so they never count.
    pub fn changed_on_disk(&self, blocks: usize) -> Vec<TileId> {
        let mut ids: Vec<BlockId> = {
            let m = self.map.lock();
            m.entries
                .keys()
                .filter(|b| b.level <= LAST_STORED_LEVEL)
                .copied()
                .collect()
        };
        if ids.is_empty() || self.live_root().is_none() {
            return Vec::new();
        }
        ids.sort();
        let mut scanned = self.scanned.lock();
        let start = scanned.map_or(0, |last| ids.partition_point(|b| *b <= last));
        let mut changed = Vec::new();
        for k in 0..blocks.min(ids.len()) {
            let bid = ids[(start + k) % ids.len()];
            *scanned = Some(bid);
            let Some(entry) = self.map.lock().entries.get(&bid).cloned() else {
                continue;
            };
            let mut st = entry.state.lock();
            let (Open::Ready(Some(file)), Some(ours)) = (&st.open, st.header.clone()) else {
                continue;
            };
            let Some(disk) = file.read_header() else {
                continue;
            };
            if disk == ours {
                continue;
            }
            for slot in 0..BLOCK_TILES {
                let bit = 1u16 << slot;
                let rewritten = disk.present & bit != 0
                    && (ours.present & bit == 0 || ours.crc[slot] != disk.crc[slot]);
                if rewritten && matches!(st.slots[slot], Slot::Ready(_)) {
                    st.slots[slot] = Slot::Unknown;
                    entry.bytes.fetch_sub(Tile::MEMORY_BYTES, Ordering::Relaxed);
                    let (x, y) = (slot as u32 % 4, slot as u32 / 4);
                    changed.push(TileId::new(
                        bid.level,
                        bid.face,
                        bid.bx * 4 + x,
                        bid.by * 4 + y,
                    ));
                }
            }
            st.header = Some(disk);
        }
        changed
    }

    /// Forgets the decoded copies of `tiles` (amplified tiles to be remade with new detail
    /// settings, for one): the next `get` reads or makes them again.
    pub fn forget(&self, tiles: &[TileId]) {
        for &id in tiles {
            let Some(entry) = self.map.lock().entries.get(&BlockId::of(id)).cloned() else {
                continue;
            };
            let mut st = entry.state.lock();
            let slot = BlockId::slot(id);
            if matches!(st.slots[slot], Slot::Ready(_)) {
                st.slots[slot] = Slot::Unknown;
                entry.bytes.fetch_sub(Tile::MEMORY_BYTES, Ordering::Relaxed);
            }
        }
    }

    /// The tile, from memory, disk or derivation, produced once whoever else asks meanwhile.
    pub fn get(&self, id: TileId) -> Arc<Tile> {
        let bid = BlockId::of(id);
        let slot = BlockId::slot(id);
        let entry = self.entry(bid);
        let tile = self.get_in(&entry, bid, slot, id);
        drop(entry);
        self.enforce_budget();
        tile
    }

    fn get_in(&self, entry: &BlockEntry, bid: BlockId, slot: usize, id: TileId) -> Arc<Tile> {
        let mut st = entry.state.lock();
        loop {
            match st.open {
                Open::Ready(_) => break,
                Open::Opening => entry.cv.wait(&mut st),
                Open::NotYet => {
                    st.open = Open::Opening;
                    drop(st);
                    let mut claim = Claim {
                        entry,
                        slot: None,
                        done: false,
                    };
                    let (file, header) = self.open_block(bid);
                    st = entry.state.lock();
                    st.open = Open::Ready(file);
                    st.header = header;
                    claim.done = true;
                    entry.cv.notify_all();
                }
            }
        }
        loop {
            match &st.slots[slot] {
                Slot::Ready(t) => return t.clone(),
                Slot::Busy => entry.cv.wait(&mut st),
                Slot::Unknown => break,
            }
        }
        st.slots[slot] = Slot::Busy;
        let file = match &st.open {
            Open::Ready(f) => f.clone(),
            _ => None,
        };
        let header = st.header.clone();
        drop(st);
        let mut claim = Claim {
            entry,
            slot: Some(slot),
            done: false,
        };

        let tile = Arc::new(self.produce(id, file.as_deref(), header.as_ref(), entry));
        let mut st = entry.state.lock();
        st.slots[slot] = Slot::Ready(tile.clone());
        claim.done = true;
        entry.bytes.fetch_add(Tile::MEMORY_BYTES, Ordering::Relaxed);
        entry.cv.notify_all();
        tile
    }

    fn open_block(&self, bid: BlockId) -> (Option<Arc<BlockFile>>, Option<Header>) {
        if bid.level > LAST_STORED_LEVEL {
            return (None, None);
        }
        if let Some(hook) = &self.faults {
            hook.before_open(bid);
        }
        let Some(root) = self.live_root() else {
            return (None, None);
        };
        self.counters.blocks_opened.fetch_add(1, Ordering::Relaxed);
        match BlockFile::open(root, bid, self.source.body.radius) {
            Ok((f, h, problem)) => {
                if let Some(p) = problem {
                    self.counters.corrupt.fetch_add(1, Ordering::Relaxed);
                    self.report(FaultKind::Corrupt, || {
                        format!(
                            "block {}: {p}; reset, its tiles will be re-derived",
                            f.path.display()
                        )
                    });
                }
                (Some(Arc::new(f)), Some(h))
            }
            Err(e) => {
                if self.live_root().is_some() {
                    self.counters.write_errors.fetch_add(1, Ordering::Relaxed);
                    self.report(FaultKind::Write, || {
                        format!(
                            "block {bid:?}: cannot open under {}: {e}; \
                             such blocks are kept in memory",
                            root.display()
                        )
                    });
                }
                (None, None)
            }
        }
    }

    /// Reads the tile from its slot or derives (and writes back) it.
    fn produce(
        &self,
        id: TileId,
        file: Option<&BlockFile>,
        header: Option<&Header>,
        entry: &BlockEntry,
    ) -> Tile {
        let hook = self.faults.as_deref();
        // A removed data directory: whatever is still open is no longer the store.
        let file = file.filter(|_| !self.lost.load(Ordering::Relaxed));
        let mut t0 = Instant::now();
        if let (Some(f), Some(h)) = (file, header) {
            if let Some(hook) = hook {
                hook.before_read();
            }
            match f.read_tile(h, id) {
                Ok(t) => {
                    self.counters.stored.add(t0.elapsed());
                    return t;
                }
                Err(SlotProblem::Absent) => {}
                Err(SlotProblem::Corrupt(why)) => {
                    self.counters.corrupt.fetch_add(1, Ordering::Relaxed);
                    self.report(FaultKind::Corrupt, || {
                        format!("tile {id} in {}: {why}; re-deriving", f.path.display())
                    });
                }
            }
        }
        if let Some(hook) = hook {
            hook.before_derive(id);
        }
        if id.level > LAST_STORED_LEVEL {
            // Amplified tiles are never stored: remade from L9 faster than read back, and
            // their detail is finer than the disk's 16-bit codes.
            let get = |t: TileId| self.get(t);
            let l9 = L9Tiles::new(&get);
            t0 = Instant::now();
            let tile = amplify_tile(id, self.source.body, &l9);
            self.counters.amplified.add(t0.elapsed());
            return tile;
        }
        let tile = if id.level < FIRST_DERIVED_LEVEL {
            let children = id.children().map(|c| self.get(c));
            // The children are counted on their own; time only this tile's reduction.
            t0 = Instant::now();
            self.source.derive_tile(id, Some(&children))
        } else {
            self.source.derive_tile(id, None)
        };
        self.counters.derived.add(t0.elapsed());
        if let Some(f) = file.filter(|_| self.live_root().is_some()) {
            let written = hook
                .map_or(Ok(()), FaultHook::before_write)
                .and_then(|()| f.write_slot(&tile))
                .and_then(|crc| {
                    let mut st = entry.state.lock();
                    let h = st.header.as_mut().expect("an open file has a header");
                    h.crc[BlockId::slot(id)] = crc;
                    h.present |= 1 << BlockId::slot(id);
                    f.write_header(h)
                });
            match written {
                Ok(()) => {
                    self.counters.tiles_written.fetch_add(1, Ordering::Relaxed);
                }
                Err(e) => {
                    self.counters.write_errors.fetch_add(1, Ordering::Relaxed);
                    self.report(FaultKind::Write, || {
                        format!(
                            "tile {id}: write to {} failed: {e}; tiles that cannot be \
                             written are kept in memory (counted in write_errors)",
                            f.path.display()
                        )
                    });
                }
            }
        }
        tile
    }

    /// Evicts least-recently-used idle blocks until the decoded bytes fit the budget. A block
    /// some thread is using (its entry referenced outside the map) is never evicted.
    fn enforce_budget(&self) {
        let mut m = self.map.lock();
        let mut total: usize = m
            .entries
            .values()
            .map(|e| e.bytes.load(Ordering::Relaxed))
            .sum();
        while total > self.budget {
            let victim = m
                .entries
                .iter()
                .filter(|(_, e)| Arc::strong_count(e) == 1)
                .min_by_key(|(_, e)| e.last_used.load(Ordering::Relaxed))
                .map(|(b, e)| (*b, e.bytes.load(Ordering::Relaxed)));
            match victim {
                Some((b, bytes)) => {
                    m.entries.remove(&b);
                    total -= bytes;
                    self.counters.blocks_evicted.fetch_add(1, Ordering::Relaxed);
                }
                None => break,
            }
        }
    }
}
