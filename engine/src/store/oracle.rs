//! The DEM oracle (TERRAIN.md §5): a pool of worker threads over the shared `TileCache`.
//! `request` queues tiles by priority without blocking; workers take the most urgent request
//! together with up to three more queued requests of the same block when the store is on disk
//! (neighbours travel together; one tile at a time in memory, where every tile is derived);
//! `collect` hands back what has completed — a tile or the `TileFault` that stopped it; a
//! worker survives a panicking production (`docs/streaming.md`, "Faults in the tile store").
//! `get` produces one tile in the caller's thread.

use super::block::BlockId;
use super::cache::TileCache;
use super::counters::CounterSnapshot;
use super::datadir::check_writable;
use super::faults::{panic_message, FaultHook, FaultKind, FaultSummary, TileFault};
use crate::earth::{Source, Tile};
use crate::planet::TileId;
use parking_lot::{Condvar, Mutex};
use std::collections::{BinaryHeap, HashMap};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// What `collect` hands back for one request.
pub type Completed = (TileId, Result<Arc<Tile>, TileFault>);

/// Default cache budget: 1 GiB of decoded tiles (≈ 940 tiles, 59 full blocks).
pub const DEFAULT_CACHE_BYTES: usize = 1 << 30;

#[derive(Debug, thiserror::Error)]
pub enum OracleError {
    #[error("data directory {path} is not writable: {source}")]
    Unwritable {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// How the oracle is set up.
#[derive(Clone, Debug)]
pub struct OracleConfig {
    /// Data directory; `None` keeps everything in memory.
    pub data_dir: Option<PathBuf>,
    /// When the data directory is unwritable: `true` → in memory (logged), `false` → error.
    pub memory_fallback: bool,
    /// Worker threads; 0 = one per core.
    pub threads: usize,
    /// Byte budget of decoded tiles in the cache.
    pub cache_bytes: usize,
}

impl Default for OracleConfig {
    fn default() -> Self {
        OracleConfig {
            data_dir: None,
            memory_fallback: true,
            threads: 0,
            cache_bytes: DEFAULT_CACHE_BYTES,
        }
    }
}

#[derive(PartialEq)]
struct Req {
    priority: f32,
    seq: u64,
    id: TileId,
}
impl Eq for Req {}
impl Ord for Req {
    /// Highest priority first; equal priorities in request order.
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.priority
            .total_cmp(&o.priority)
            .then_with(|| o.seq.cmp(&self.seq))
    }
}
impl PartialOrd for Req {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}

#[derive(Default)]
struct Queue {
    heap: BinaryHeap<Req>,
    /// Queued tiles and their current priority (heap entries with another priority are stale).
    pending: HashMap<TileId, f32>,
    seq: u64,
    /// Tiles taken by workers and not yet completed.
    running: usize,
    shutdown: bool,
}

struct Shared {
    cache: TileCache,
    queue: Mutex<Queue>,
    work: Condvar,
    idle: Condvar,
    done: Mutex<Vec<Completed>>,
    /// Take a block's other queued tiles along (a store on disk).
    batch_blocks: bool,
}

/// Most tiles of one block a worker takes at once from a store on disk.
const BLOCK_BATCH: usize = 4;

impl Shared {
    /// The tile, or the fault if producing it panicked (counted and reported once).
    fn produce(&self, id: TileId) -> Result<Arc<Tile>, TileFault> {
        catch_unwind(AssertUnwindSafe(|| self.cache.get(id))).map_err(|payload| {
            let fault = TileFault::Panicked {
                tile: id,
                message: panic_message(&*payload),
            };
            self.cache.counters.failed.fetch_add(1, Ordering::Relaxed);
            self.cache.report(FaultKind::Panic, || {
                format!("{fault}; the request failed, later requests retry (counted in failed)")
            });
            fault
        })
    }
}

pub struct Oracle {
    shared: Arc<Shared>,
    workers: Vec<JoinHandle<()>>,
    /// Where blocks are stored; `None` in memory.
    pub data_dir: Option<PathBuf>,
}

impl Oracle {
    pub fn new(source: Arc<Source>, cfg: OracleConfig) -> Result<Oracle, OracleError> {
        Oracle::with_fault_hook(source, cfg, None)
    }

    /// `new` with injected faults (tests; see `FaultHook`).
    pub fn with_fault_hook(
        source: Arc<Source>,
        cfg: OracleConfig,
        hook: Option<Arc<FaultHook>>,
    ) -> Result<Oracle, OracleError> {
        let data_dir = match cfg.data_dir {
            None => {
                log::info!("tile store: in memory (no data directory)");
                None
            }
            Some(d) => match check_writable(&d) {
                Ok(()) => {
                    log::info!("tile store: {}", d.display());
                    Some(d)
                }
                Err(e) if cfg.memory_fallback => {
                    log::warn!(
                        "tile store: {} is not writable ({e}); tiles are kept in memory only",
                        d.display()
                    );
                    None
                }
                Err(source) => return Err(OracleError::Unwritable { path: d, source }),
            },
        };
        let threads = if cfg.threads == 0 {
            std::thread::available_parallelism().map_or(1, |n| n.get())
        } else {
            cfg.threads
        };
        let shared = Arc::new(Shared {
            cache: TileCache::new(source, data_dir.clone(), cfg.cache_bytes).with_fault_hook(hook),
            queue: Mutex::new(Queue::default()),
            work: Condvar::new(),
            idle: Condvar::new(),
            done: Mutex::new(Vec::new()),
            batch_blocks: data_dir.is_some(),
        });
        let workers = (0..threads)
            .map(|k| {
                let s = shared.clone();
                std::thread::Builder::new()
                    .name(format!("dem-oracle-{k}"))
                    .spawn(move || {
                        below_render_priority();
                        worker(&s)
                    })
                    .expect("spawning a worker thread")
            })
            .collect();
        Ok(Oracle {
            shared,
            workers,
            data_dir,
        })
    }

    /// Queues tiles at `priority` (higher first) without blocking. A tile already queued keeps
    /// the higher of its two priorities.
    pub fn request(&self, ids: &[TileId], priority: f32) {
        let mut q = self.shared.queue.lock();
        for &id in ids {
            if q.pending.get(&id).is_some_and(|&p| p >= priority) {
                continue;
            }
            q.pending.insert(id, priority);
            q.seq += 1;
            let seq = q.seq;
            q.heap.push(Req { priority, seq, id });
        }
        drop(q);
        self.shared.work.notify_all();
    }

    /// Queues each tile at its own priority without blocking. Unlike `request`, a tile
    /// already queued takes the new priority, higher or lower: the stream re-ranks what it
    /// still wants every frame, so after a turn the view being looked at is made first.
    pub fn request_each(&self, tiles: &[(TileId, f32)]) {
        let mut q = self.shared.queue.lock();
        for &(id, priority) in tiles {
            if q.pending.get(&id) == Some(&priority) {
                continue;
            }
            q.pending.insert(id, priority);
            q.seq += 1;
            let seq = q.seq;
            q.heap.push(Req { priority, seq, id });
        }
        // Re-ranking every frame leaves stale entries behind; rebuild before they dominate.
        if q.heap.len() > 4 * q.pending.len() + 1024 {
            let q = &mut *q;
            q.heap = q
                .pending
                .iter()
                .enumerate()
                .map(|(k, (&id, &priority))| Req {
                    priority,
                    seq: q.seq + k as u64,
                    id,
                })
                .collect();
            q.seq += q.pending.len() as u64;
        }
        drop(q);
        self.shared.work.notify_all();
    }

    /// Drops queued (not yet running) requests; their heap entries become stale.
    pub fn cancel(&self, tiles: &[TileId]) {
        let mut q = self.shared.queue.lock();
        for id in tiles {
            q.pending.remove(id);
        }
        if q.pending.is_empty() && q.running == 0 {
            self.shared.idle.notify_all();
        }
    }

    /// Requests completed since the last call, in completion order: each the tile or why it
    /// failed. A failed tile is not cached; requesting it again retries.
    pub fn collect(&self) -> Vec<Completed> {
        std::mem::take(&mut *self.shared.done.lock())
    }

    /// Requests queued or running.
    pub fn outstanding(&self) -> usize {
        let q = self.shared.queue.lock();
        q.pending.len() + q.running
    }

    /// Blocks until nothing is queued or running.
    pub fn wait_idle(&self) {
        let mut q = self.shared.queue.lock();
        while !q.pending.is_empty() || q.running > 0 {
            self.shared.idle.wait(&mut q);
        }
    }

    /// Like `wait_idle`, but gives up after `timeout`; true when idle.
    pub fn wait_idle_for(&self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let mut q = self.shared.queue.lock();
        while !q.pending.is_empty() || q.running > 0 {
            if self.shared.idle.wait_until(&mut q, deadline).timed_out() {
                return q.pending.is_empty() && q.running == 0;
            }
        }
        true
    }

    /// The tile, produced in this thread if nobody has it (blocking). A panicking production
    /// panics here too (after resetting the tile's slot); `try_get` returns it as a fault.
    pub fn get(&self, id: TileId) -> Arc<Tile> {
        self.shared.cache.get(id)
    }

    /// `get`, with a panicking production returned as a `TileFault` (counted, reported once).
    pub fn try_get(&self, id: TileId) -> Result<Arc<Tile>, TileFault> {
        self.shared.produce(id)
    }

    /// Faults so far (counts and the first report of each kind), for a HUD.
    pub fn faults(&self) -> FaultSummary {
        self.shared.cache.faults()
    }

    pub fn counters(&self) -> CounterSnapshot {
        self.shared.cache.counters.snapshot()
    }

    pub fn cache(&self) -> &TileCache {
        &self.shared.cache
    }

    pub fn threads(&self) -> usize {
        self.workers.len()
    }

    pub fn data_dir(&self) -> Option<&Path> {
        self.data_dir.as_deref()
    }
}

/// Lower the calling thread's priority (nice 10): on two cores the workers must not starve
/// the render thread, which never waits for them. Best effort; nothing to do off Linux.
fn below_render_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: plain syscalls on the calling thread; on Linux PRIO_PROCESS with a thread id
    // sets that one thread's nice value.
    unsafe {
        let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
        libc::setpriority(libc::PRIO_PROCESS, tid, 10);
    }
}

fn worker(s: &Shared) {
    loop {
        let batch = {
            let mut q = s.queue.lock();
            let first = loop {
                if q.shutdown {
                    return;
                }
                match q.heap.pop() {
                    Some(r) if q.pending.get(&r.id) == Some(&r.priority) => break r.id,
                    Some(_) => continue, // stale
                    None => s.work.wait(&mut q),
                }
            };
            // With a store on disk, take up to a few more of this block's queued tiles along,
            // most urgent first (one block lookup, one file). In memory every tile is a
            // derivation: one at a time, so the workers derive a region's tiles in parallel
            // (a whole block's 16 on one worker held a cold flight's supply to a fraction).
            let block = BlockId::of(first);
            let mut batch = vec![first];
            if s.batch_blocks {
                let mut more: Vec<(f32, TileId)> = q
                    .pending
                    .iter()
                    .filter(|(t, _)| **t != first && BlockId::of(**t) == block)
                    .map(|(&t, &p)| (p, t))
                    .collect();
                more.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
                batch.extend(more.into_iter().take(BLOCK_BATCH - 1).map(|m| m.1));
            }
            for t in &batch {
                q.pending.remove(t);
            }
            q.running += batch.len();
            batch
        };
        for id in batch {
            let tile = s.produce(id);
            s.done.lock().push((id, tile));
            let mut q = s.queue.lock();
            q.running -= 1;
            if q.pending.is_empty() && q.running == 0 {
                s.idle.notify_all();
            }
        }
    }
}

impl Drop for Oracle {
    fn drop(&mut self) {
        self.shared.queue.lock().shutdown = true;
        self.shared.work.notify_all();
        if std::thread::panicking() {
            // Unwinding (a failed test, a crashing caller): detach rather than join, so a
            // worker stuck in a tile cannot turn the panic into a hang. The workers own their
            // share of the state and leave at their next look at the queue.
            return;
        }
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
    }
}
