//! Faults in the tile store (`docs/streaming.md`, "Faults in the tile store"): what a failed
//! request says (`TileFault`), the once-per-kind report that keeps a bad disk from flooding the
//! log while a flight goes on, and `FaultHook`, the switches tests use to make the store slow or
//! broken on purpose.

use super::block::BlockId;
use crate::planet::TileId;
use parking_lot::Mutex;
use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

/// Why a requested tile did not arrive. Clone so one fault can be handed to several consumers.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TileFault {
    /// Producing the tile panicked (a derivation bug). The worker survived and the tile's cache
    /// slot was reset, so asking again retries.
    #[error("tile {tile}: production panicked: {message}")]
    Panicked { tile: TileId, message: String },
}

/// Kinds of store fault; each is logged once per oracle, later occurrences only counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FaultKind {
    /// A tile's production panicked (`failed`).
    Panic,
    /// A stored tile or block failed its check or could not be read back (`corrupt`).
    Corrupt,
    /// A block file could not be created or written: disk full, read-only (`write_errors`).
    Write,
    /// The data directory disappeared; the store went on in memory (`store_lost`).
    StoreLost,
}

/// The first report of each fault kind, kept for a HUD or a test to show.
#[derive(Default)]
pub struct Reports {
    first: Mutex<Vec<(FaultKind, String)>>,
}

impl Reports {
    /// Logs `message` if it is the first fault of its kind (error for panics and a lost store,
    /// warning otherwise) and keeps it; later ones go to the debug log. True when logged.
    pub fn once(&self, kind: FaultKind, message: impl FnOnce() -> String) -> bool {
        let mut first = self.first.lock();
        if first.iter().any(|(k, _)| *k == kind) {
            drop(first);
            log::debug!("tile store: {}", message());
            return false;
        }
        let m = message();
        match kind {
            FaultKind::Panic | FaultKind::StoreLost => log::error!("tile store: {m}"),
            FaultKind::Corrupt | FaultKind::Write => log::warn!("tile store: {m}"),
        }
        first.push((kind, m));
        true
    }

    /// The reports made so far, in order.
    pub fn list(&self) -> Vec<(FaultKind, String)> {
        self.first.lock().clone()
    }
}

/// What has gone wrong in a store so far, for a HUD line.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FaultSummary {
    /// Requests that completed as a `TileFault`.
    pub failed: u64,
    /// Tiles or blocks that failed their check or a read, re-derived.
    pub corrupt: u64,
    /// Block writes or creations that failed; those tiles live in memory only.
    pub write_errors: u64,
    /// The data directory was removed while running; everything is in memory since.
    pub store_lost: bool,
    /// The first report of each kind, as logged.
    pub reports: Vec<(FaultKind, String)>,
}

impl FaultSummary {
    /// One short line ("store: 2 failed, 1 corrupt, store lost"), `None` when all is well.
    pub fn line(&self) -> Option<String> {
        let mut parts = Vec::new();
        if self.failed > 0 {
            parts.push(format!("{} failed", self.failed));
        }
        if self.corrupt > 0 {
            parts.push(format!("{} corrupt", self.corrupt));
        }
        if self.write_errors > 0 {
            parts.push(format!("{} write errors", self.write_errors));
        }
        if self.store_lost {
            parts.push("store lost (in memory)".into());
        }
        (!parts.is_empty()).then(|| format!("store: {}", parts.join(", ")))
    }
}

/// Injected faults, for tests. The store holds an `Option<Arc<FaultHook>>`: unset (the normal
/// case) costs one branch per read, write and derivation. Every switch can change mid-flight.
#[derive(Default)]
pub struct FaultHook {
    read_delay_ns: AtomicU64,
    write_delay_ns: AtomicU64,
    derive_delay_ns: AtomicU64,
    fail_writes: AtomicBool,
    panic_on: Mutex<HashSet<TileId>>,
    panic_on_open: Mutex<HashSet<BlockId>>,
}

impl FaultHook {
    /// A slow disk: each tile read sleeps this long first.
    pub fn set_read_delay(&self, d: Duration) {
        self.read_delay_ns
            .store(d.as_nanos() as u64, Ordering::Relaxed);
    }
    /// A slow disk: each tile write sleeps this long first.
    pub fn set_write_delay(&self, d: Duration) {
        self.write_delay_ns
            .store(d.as_nanos() as u64, Ordering::Relaxed);
    }
    /// A slow derivation: each derived tile sleeps this long first.
    pub fn set_derive_delay(&self, d: Duration) {
        self.derive_delay_ns
            .store(d.as_nanos() as u64, Ordering::Relaxed);
    }
    /// A full (or read-only) disk: block writes and creations fail with "no space left".
    pub fn set_fail_writes(&self, on: bool) {
        self.fail_writes.store(on, Ordering::Relaxed);
    }
    /// Producing `id` panics (a derivation bug), until `clear_panic`.
    pub fn panic_on(&self, id: TileId) {
        self.panic_on.lock().insert(id);
    }
    pub fn clear_panic(&self, id: TileId) {
        self.panic_on.lock().remove(&id);
    }
    /// Opening block `b` panics, until `clear_panic_on_open`.
    pub fn panic_on_open(&self, b: BlockId) {
        self.panic_on_open.lock().insert(b);
    }
    pub fn clear_panic_on_open(&self, b: BlockId) {
        self.panic_on_open.lock().remove(&b);
    }

    pub(crate) fn before_open(&self, b: BlockId) {
        if self.panic_on_open.lock().contains(&b) {
            panic!("injected panic opening block {b:?}");
        }
    }

    pub(crate) fn before_read(&self) {
        sleep_ns(self.read_delay_ns.load(Ordering::Relaxed));
    }

    pub(crate) fn before_write(&self) -> std::io::Result<()> {
        sleep_ns(self.write_delay_ns.load(Ordering::Relaxed));
        if self.fail_writes.load(Ordering::Relaxed) {
            return Err(std::io::Error::new(
                std::io::ErrorKind::StorageFull,
                "no space left on device (injected)",
            ));
        }
        Ok(())
    }

    pub(crate) fn before_derive(&self, id: TileId) {
        sleep_ns(self.derive_delay_ns.load(Ordering::Relaxed));
        if self.panic_on.lock().contains(&id) {
            panic!("injected derivation panic for tile {id}");
        }
    }
}

fn sleep_ns(ns: u64) {
    if ns > 0 {
        std::thread::sleep(Duration::from_nanos(ns));
    }
}

/// The message a caught panic carried.
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "(a panic without a message)".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_once_per_kind_and_summarises() {
        let r = Reports::default();
        assert!(r.once(FaultKind::Write, || "disk full".into()));
        assert!(!r.once(FaultKind::Write, || "disk full again".into()));
        assert!(r.once(FaultKind::StoreLost, || "gone".into()));
        assert_eq!(
            r.list(),
            vec![
                (FaultKind::Write, "disk full".to_string()),
                (FaultKind::StoreLost, "gone".to_string())
            ]
        );
        let s = FaultSummary {
            failed: 2,
            write_errors: 7,
            store_lost: true,
            ..Default::default()
        };
        assert_eq!(
            s.line().as_deref(),
            Some("store: 2 failed, 7 write errors, store lost (in memory)")
        );
        assert_eq!(FaultSummary::default().line(), None);
    }
}
