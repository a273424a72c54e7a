//! [`Pooled`]: any blocking [`TileSource`] behind a small worker pool, so the stream can
//! request its tiles without waiting — what the DEM oracle does for the Earth, for the
//! analytic planet and for test sources. Requests are served highest priority first; a
//! re-request takes the new priority. An optional delay per tile stands in for a slow
//! producer (the tests' 200 ms oracle).

use crate::earth::Tile;
use crate::planet::{Body, TileId};
use crate::source::{Completion, TileSource};
use parking_lot::{Condvar, Mutex};
use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

type Done = Vec<Completion>;

#[derive(Default)]
struct Queue {
    /// Queued tiles and their current priority.
    pending: HashMap<TileId, f32>,
    shutdown: bool,
}

struct Shared {
    inner: Arc<dyn TileSource>,
    delay: Duration,
    queue: Mutex<Queue>,
    work: Condvar,
    done: Mutex<Done>,
}

pub struct Pooled {
    shared: Arc<Shared>,
    workers: Vec<JoinHandle<()>>,
}

impl Pooled {
    /// `threads` workers (at least one) over `inner`, each sleeping `delay` per tile.
    pub fn new(inner: Arc<dyn TileSource>, threads: usize, delay: Duration) -> Pooled {
        let shared = Arc::new(Shared {
            inner,
            delay,
            queue: Mutex::new(Queue::default()),
            work: Condvar::new(),
            done: Mutex::new(Vec::new()),
        });
        let workers = (0..threads.max(1))
            .map(|k| {
                let s = shared.clone();
                std::thread::Builder::new()
                    .name(format!("tile-pool-{k}"))
                    .spawn(move || worker(&s))
                    .expect("spawning a tile worker")
            })
            .collect();
        Pooled { shared, workers }
    }

    /// `inner` behind one worker per core but one, the frame's: how a flight draws from a
    /// source without workers of its own.
    pub fn beside_the_frame(inner: Arc<dyn TileSource>) -> Pooled {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        Pooled::new(inner, cores.saturating_sub(1).max(1), Duration::ZERO)
    }

    /// Requests queued and not yet taken by a worker.
    pub fn queued(&self) -> usize {
        self.shared.queue.lock().pending.len()
    }
}

fn worker(s: &Shared) {
    loop {
        let id = {
            let mut q = s.queue.lock();
            loop {
                if q.shutdown {
                    return;
                }
                // Linear scan: the queue holds at most a wanted set (hundreds of tiles).
                let best = q
                    .pending
                    .iter()
                    .max_by(|a, b| a.1.total_cmp(b.1).then(b.0.cmp(a.0)))
                    .map(|(&id, _)| id);
                match best {
                    Some(id) => {
                        q.pending.remove(&id);
                        break id;
                    }
                    None => s.work.wait(&mut q),
                }
            }
        };
        if !s.delay.is_zero() {
            std::thread::sleep(s.delay);
        }
        // A producer that panics costs its tile, not the worker.
        let made = catch_unwind(AssertUnwindSafe(|| s.inner.tile(id))).map_err(|e| {
            let why = crate::store::faults::panic_message(e.as_ref());
            format!("the tile producer panicked: {why}")
        });
        s.done.lock().push((id, made));
    }
}

impl TileSource for Pooled {
    fn earth(&self) -> Option<Arc<crate::earth::Source>> {
        self.shared.inner.earth()
    }
    fn data_dir(&self) -> Option<std::path::PathBuf> {
        self.shared.inner.data_dir()
    }
    fn body(&self) -> Body {
        self.shared.inner.body()
    }
    fn finest_level(&self) -> u8 {
        self.shared.inner.finest_level()
    }
    fn tile(&self, id: TileId) -> Arc<Tile> {
        self.shared.inner.tile(id)
    }
    fn max_relief(&self) -> f64 {
        self.shared.inner.max_relief()
    }
    fn is_async(&self) -> bool {
        true
    }
    fn request(&self, tiles: &[(TileId, f32)]) {
        let mut q = self.shared.queue.lock();
        for &(id, p) in tiles {
            q.pending.insert(id, p);
        }
        drop(q);
        self.shared.work.notify_all();
    }
    fn cancel(&self, tiles: &[TileId]) {
        let mut q = self.shared.queue.lock();
        for id in tiles {
            q.pending.remove(id);
        }
    }
    fn updated_underneath(&self) -> Vec<TileId> {
        self.shared.inner.updated_underneath()
    }
    fn invalidate(&self, tiles: &[TileId]) {
        self.shared.inner.invalidate(tiles)
    }
    fn poll(&self) -> Vec<Completion> {
        std::mem::take(&mut *self.shared.done.lock())
    }
    fn provisional(&self, id: TileId) -> Option<Arc<Tile>> {
        self.shared.inner.provisional(id)
    }
}

impl Drop for Pooled {
    fn drop(&mut self) {
        self.shared.queue.lock().shutdown = true;
        self.shared.work.notify_all();
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
    }
}

/// `f(k, item)` for every item, in order, split in contiguous chunks over every core (scoped
/// threads; a panic in `f` resumes in the caller). For a frame's batch of tile work.
pub fn map_on_every_core<T: Sync, R: Send>(
    items: &[T],
    f: impl Fn(usize, &T) -> R + Sync,
) -> Vec<R> {
    if items.is_empty() {
        return Vec::new();
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let chunk = items.len().div_ceil(cores);
    let f = &f;
    std::thread::scope(|s| {
        let parts: Vec<_> = items
            .chunks(chunk)
            .enumerate()
            .map(|(c, part)| {
                s.spawn(move || {
                    part.iter()
                        .enumerate()
                        .map(|(k, item)| f(c * chunk + k, item))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        parts
            .into_iter()
            .flat_map(|p| p.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    })
}
