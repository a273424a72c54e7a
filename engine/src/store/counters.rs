//! Feed counters (TERRAIN.md §5): per class `derived` (computed from the source), `stored`
//! (read from disk) and `amplified` (L10–L18 made from L9) — tiles, bytes, seconds — plus
//! block, integrity and fault events.

use crate::earth::tile::TILE_DISK_BYTES;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

#[derive(Default)]
pub struct ClassCounter {
    pub tiles: AtomicU64,
    /// Payload bytes (the tile's encoded size, 574,600 B each).
    pub bytes: AtomicU64,
    pub nanos: AtomicU64,
}

impl ClassCounter {
    pub fn add(&self, took: Duration) {
        self.tiles.fetch_add(1, Ordering::Relaxed);
        self.bytes
            .fetch_add(TILE_DISK_BYTES as u64, Ordering::Relaxed);
        self.nanos
            .fetch_add(took.as_nanos() as u64, Ordering::Relaxed);
    }
    pub fn snapshot(&self) -> ClassStats {
        ClassStats {
            tiles: self.tiles.load(Ordering::Relaxed),
            bytes: self.bytes.load(Ordering::Relaxed),
            seconds: self.nanos.load(Ordering::Relaxed) as f64 * 1e-9,
        }
    }
}

#[derive(Default)]
pub struct Counters {
    pub derived: ClassCounter,
    pub stored: ClassCounter,
    pub amplified: ClassCounter,
    /// Block files opened (or attempted); once per block while it stays cached.
    pub blocks_opened: AtomicU64,
    pub blocks_evicted: AtomicU64,
    pub tiles_written: AtomicU64,
    /// Blocks reset and tiles rejected by their checksum or a short read.
    pub corrupt: AtomicU64,
    /// Requests that completed as a `TileFault` (production panicked).
    pub failed: AtomicU64,
    /// Block creations and tile writes that failed (disk full, read-only).
    pub write_errors: AtomicU64,
    /// 1 once the data directory was found removed (the store then runs in memory).
    pub store_lost: AtomicU64,
}

/// One feed class: tiles, bytes and busy seconds (summed over threads).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ClassStats {
    pub tiles: u64,
    pub bytes: u64,
    pub seconds: f64,
}

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CounterSnapshot {
    pub derived: ClassStats,
    pub stored: ClassStats,
    pub amplified: ClassStats,
    pub blocks_opened: u64,
    pub blocks_evicted: u64,
    pub tiles_written: u64,
    pub corrupt: u64,
    pub failed: u64,
    pub write_errors: u64,
    pub store_lost: u64,
}

impl Counters {
    pub fn snapshot(&self) -> CounterSnapshot {
        CounterSnapshot {
            derived: self.derived.snapshot(),
            stored: self.stored.snapshot(),
            amplified: self.amplified.snapshot(),
            blocks_opened: self.blocks_opened.load(Ordering::Relaxed),
            blocks_evicted: self.blocks_evicted.load(Ordering::Relaxed),
            tiles_written: self.tiles_written.load(Ordering::Relaxed),
            corrupt: self.corrupt.load(Ordering::Relaxed),
            failed: self.failed.load(Ordering::Relaxed),
            write_errors: self.write_errors.load(Ordering::Relaxed),
            store_lost: self.store_lost.load(Ordering::Relaxed),
        }
    }
}
