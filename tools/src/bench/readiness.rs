//! Readiness (docs/bench.md, "Readiness"): where the flights' tiles come from (a cold store by
//! default), whether each flight frame had the levels the camera needs, how fast the store
//! supplied tiles while it had a backlog, and how long a teleport takes to a still image.

use super::report::{HostStats, Readiness, Settle};
use super::scene::Scene;
use super::stats::{median, quantile};
use anyhow::{Context as _, Result};
use engine::planet::TileId;
use engine::renderer::PlanetRenderer;
use engine::source::{AnalyticSource, EarthSource, TileSource};
use engine::store::oracle::{Oracle, OracleConfig};
use engine::stream::pool::Pooled;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// A source that counts the tiles its callers (the pool's workers) completed and how many it
/// is making now: the analytic planet's supply meter.
struct Counted {
    inner: Arc<dyn TileSource>,
    made: AtomicU64,
    running: AtomicUsize,
}

impl TileSource for Counted {
    fn body(&self) -> engine::planet::Body {
        self.inner.body()
    }
    fn finest_level(&self) -> u8 {
        self.inner.finest_level()
    }
    fn tile(&self, id: TileId) -> Arc<engine::earth::Tile> {
        self.running.fetch_add(1, Ordering::Relaxed);
        let t = self.inner.tile(id);
        self.running.fetch_sub(1, Ordering::Relaxed);
        self.made.fetch_add(1, Ordering::Relaxed);
        t
    }
    fn max_relief(&self) -> f64 {
        self.inner.max_relief()
    }
    fn provisional(&self, id: TileId) -> Option<Arc<engine::earth::Tile>> {
        self.inner.provisional(id)
    }
}

enum Meter {
    Oracle(Arc<EarthSource>),
    Pool(Arc<Pooled>, Arc<Counted>),
}

/// Where the flights' renderers get their tiles: a source with workers (frames never wait),
/// and the counters that say how fast it delivers.
pub struct Feed {
    pub source: Arc<dyn TileSource>,
    meter: Meter,
}

impl Feed {
    /// A fresh, cold store of the scene: an in-memory DEM oracle over ETOPO5 (nothing derived
    /// yet, the data directory untouched), or a new analytic source behind a worker pool.
    pub fn cold(scene: &Scene) -> Result<Feed> {
        match scene {
            Scene::Earth(_) => {
                let body = engine::planet::Body::EARTH;
                let path = engine::earth::etopo::etopo_path(None);
                let src = engine::earth::derive::Source::open(&path, body)
                    .with_context(|| format!("opening ETOPO5 at {}", path.display()))?;
                let cfg = OracleConfig {
                    data_dir: None,
                    ..Default::default()
                };
                let oracle = Oracle::new(Arc::new(src), cfg).context("starting a cold oracle")?;
                Ok(Feed::earth(Arc::new(EarthSource {
                    oracle: Arc::new(oracle),
                    body,
                })))
            }
            Scene::Analytic(_) => Ok(Feed::pooled(Arc::new(AnalyticSource::from_surface(
                engine::cbt::surface::AnalyticSurface::earth(),
            )))),
        }
    }

    /// The scene's own store (`--prefetch-flights`: the tiles prefetched for the run).
    pub fn shared(scene: &Scene) -> Feed {
        match scene {
            Scene::Earth(e) => Feed::earth(e.clone()),
            Scene::Analytic(a) => Feed::pooled(a.clone()),
        }
    }

    fn earth(e: Arc<EarthSource>) -> Feed {
        Feed {
            source: e.clone(),
            meter: Meter::Oracle(e),
        }
    }

    /// A source without workers behind a pool, one worker per core but one (the frame's),
    /// as the viewer flies the analytic planet.
    fn pooled(inner: Arc<dyn TileSource>) -> Feed {
        let counted = Arc::new(Counted {
            inner,
            made: AtomicU64::new(0),
            running: AtomicUsize::new(0),
        });
        let pool = Arc::new(Pooled::beside_the_frame(counted.clone()));
        Feed {
            source: pool.clone(),
            meter: Meter::Pool(pool, counted),
        }
    }

    /// Tiles queued or being made, and completed so far per feed class (derived, stored,
    /// amplified), as renderer `r` meets them: from the GPU feed when `r` makes its tiles on
    /// the GPU, else from the store's own counters.
    fn sample(&self, r: &PlanetRenderer) -> (usize, [u64; 3]) {
        if r.gpu_tiles_per_frame().is_some() {
            if let Some(f) = r.source.feed() {
                let c = f.completed.0.map(|c| c.unwrap_or(0));
                return (f.backlog as usize, c);
            }
        }
        match &self.meter {
            Meter::Oracle(e) => {
                let c = e.oracle.counters();
                let made = [c.derived.tiles, c.stored.tiles, c.amplified.tiles];
                (e.oracle.outstanding(), made)
            }
            Meter::Pool(p, c) => {
                let queued = p.queued() + c.running.load(Ordering::Relaxed);
                (queued, [c.made.load(Ordering::Relaxed), 0, 0])
            }
        }
    }
}

/// Tiles completed per second of flight while the feed had a backlog, per class: sampled at
/// every flight frame; an interval counts when the backlog was non-empty at its start. The
/// CPU workers run in wall time, so their seconds are wall seconds. Tiles made on the GPU are
/// made in the frames, so their seconds are the flight's 60 Hz clock: what a viewer at 60 Hz
/// gets, provided the device runs a frame and its tiles in 16.7 ms (`tile_gpu_ms` says how
/// much of that the tiles take), however slowly the benchmark's own per-frame analysis runs.
#[derive(Default)]
pub struct Supply {
    last: Option<(f64, usize, [u64; 3])>,
    busy_s: f64,
    tiles: [u64; 3],
    /// The feed reads a store on disk (the analytic planet's pool has none, nor does a cold
    /// in-memory oracle, nor the GPU).
    stored_class: bool,
    /// Which feed made the tiles ("GPU, 16 tiles a frame" or "CPU workers").
    pub maker: String,
    /// Wall-time origin for the CPU workers' samples.
    epoch: Option<Instant>,
}

impl Supply {
    pub fn for_feed(feed: &Feed) -> Supply {
        Supply {
            stored_class: matches!(&feed.meter, Meter::Oracle(e) if e.oracle.data_dir().is_some()),
            ..Default::default()
        }
    }

    pub fn sample(&mut self, feed: &Feed, r: &PlanetRenderer) {
        self.maker = match r.gpu_tiles_per_frame() {
            Some(n) => {
                format!("GPU, at most {n} tiles a frame, per second of the 60 Hz flight clock")
            }
            None => "CPU workers, per wall second".into(),
        };
        let now = if r.gpu_tiles_per_frame().is_some() {
            self.stored_class = false;
            r.clock_s()
        } else {
            self.epoch
                .get_or_insert_with(Instant::now)
                .elapsed()
                .as_secs_f64()
        };
        let (backlog, c) = feed.sample(r);
        if let Some((t, backlog0, c0)) = self.last {
            if backlog0 > 0 {
                self.busy_s += (now - t).max(0.0);
                for k in 0..3 {
                    self.tiles[k] += c[k].saturating_sub(c0[k]);
                }
            }
        }
        self.last = Some((now, backlog, c));
    }

    /// Between flights (settling is not flight).
    pub fn pause(&mut self) {
        self.last = None;
    }

    /// (derived, stored, amplified) tiles per second; None without a backlog (stored: or a
    /// store; amplified: or any amplified tile made).
    pub fn rates(&self) -> (Option<f64>, Option<f64>, Option<f64>) {
        let rate = |n: u64| (self.busy_s > 0.0).then(|| n as f64 / self.busy_s);
        let stored = rate(self.tiles[1]).filter(|_| self.stored_class);
        let amplified = rate(self.tiles[2]).filter(|_| self.tiles[2] > 0);
        (rate(self.tiles[0]), stored, amplified)
    }
}

/// What one frame had of what its camera needs.
#[derive(Clone, Copy, Debug, Default)]
pub struct FrameNeed {
    /// A tile the view needs at its own level (a wanted tile that is a target, not only an
    /// ancestor) has neither itself nor its parent drawn: there the view is served two or
    /// more levels too coarse.
    pub missing_level: bool,
    /// Every wanted tile of the finest wanted level holds its exact payload (a provisional
    /// stand-in does not count).
    pub finest_ready: bool,
    pub finest_level: u8,
}

/// After a frame: what of its wanted set is resident. The set is the stream's own walk for
/// the frame's camera (with its measured height bounds: a walk of the planet-wide shell wants
/// the finest level everywhere within 10 km and would never be ready).
pub fn need(r: &PlanetRenderer) -> FrameNeed {
    let wanted = r.wanted();
    let drawn = |id: TileId| r.residency().get(&id).is_some();
    let missing_level = wanted
        .tiles
        .iter()
        .any(|t| t.target && !drawn(t.id) && t.id.parent().is_none_or(|p| !drawn(p)));
    let finest_level = wanted.tiles.iter().map(|t| t.id.level).max().unwrap_or(0);
    let finest_ready = wanted
        .tiles
        .iter()
        .filter(|t| t.id.level == finest_level)
        .all(|t| drawn(t.id) && !r.is_provisional(t.id));
    FrameNeed {
        missing_level,
        finest_ready,
        finest_level,
    }
}

/// The longest stretch of consecutive frames whose finest wanted level was not all resident
/// (frames, the same at 60 Hz in seconds, and the frames' wall time), from per-frame
/// (ready, wall ms).
pub fn longest_wait(frames: &[(bool, f64)], period_s: f64) -> (u32, f64, f64) {
    let (mut best, mut cur) = ((0u32, 0.0f64), (0u32, 0.0f64));
    for &(ready, wall_ms) in frames {
        if ready {
            cur = (0, 0.0);
        } else {
            cur = (cur.0 + 1, cur.1 + wall_ms * 1e-3);
            if cur.0 > best.0 {
                best = cur;
            }
        }
    }
    (best.0, best.0 as f64 * period_s, best.1)
}

/// Host time statistics over every flight frame, ms: (median, p95, max).
pub fn host_stats(host_ms: &[f64]) -> (f64, f64, f64) {
    (
        median(host_ms),
        quantile(host_ms, 0.95),
        host_ms.iter().copied().fold(0.0, f64::max),
    )
}

/// The GPU tile budget over a flight's frames (None when no frame made tiles on the GPU).
pub fn budget_stats(
    frames: &[engine::earth::gpu_budget::BudgetState],
) -> Option<super::report::TileBudgetStats> {
    use engine::earth::gpu_budget::BudgetLimit;
    let first = frames.first()?;
    let ms: Vec<f64> = frames.iter().map(|b| b.ms).collect();
    let (median, p95, max) = host_stats(&ms);
    Some(super::report::TileBudgetStats {
        ms: HostStats { median, p95, max },
        base_ms: first.base_ms,
        needed_frames: frames.iter().filter(|b| b.needed > 0).count() as u32,
        tile_cap_frames: frames
            .iter()
            .filter(|b| b.limit == BudgetLimit::Tiles)
            .count() as u32,
    })
}

/// Fill the run-wide totals of `out` from its per-flight rows, the supply and the teleports.
pub fn finish(out: &mut Readiness, supply: &Supply, cold: &Settle, warm: &Settle, host: &[f64]) {
    out.frames_waited = out.flights.iter().map(|f| f.frames_waited).sum();
    out.missing_level_frames = out.flights.iter().map(|f| f.missing_level_frames).sum();
    let (d, s, a) = supply.rates();
    out.supply_tiles_per_s.derived = d;
    out.supply_tiles_per_s.stored = s;
    out.supply_tiles_per_s.amplified = a;
    out.feed_maker = supply.maker.clone();
    out.teleport_still_s.cold = cold.seconds_to_still;
    out.teleport_still_s.warm = warm.seconds_to_still;
    out.teleport_cold = cold.clone();
    out.teleport_warm = warm.clone();
    (out.host_ms.median, out.host_ms.p95, out.host_ms.max) = host_stats(host);
}

/// The feed envelope for lateral flight `clearance_m` above the ground at `pixel_angle`: the
/// closed-form demand per class and the measured supply's sustainable speed.
pub fn sustainable(
    body: engine::planet::Body,
    clearance_m: f64,
    pixel_angle: f64,
    supply: &super::report::Supply,
) -> super::report::SustainableReport {
    use engine::stream::envelope::{class_demand, FeedClass};
    let demand = |c| class_demand(body, c, clearance_m, pixel_angle);
    let (dd, ds) = (demand(FeedClass::Derived), demand(FeedClass::Stored));
    let da = demand(FeedClass::Amplified);
    let speed = |s: Option<f64>, d: f64| s.filter(|_| d > 0.0).map(|s| s / d);
    let (vd, vs) = (speed(supply.derived, dd), speed(supply.stored, ds));
    let va = speed(supply.amplified, da);
    // A class with no backlog during the run has no supply figure; a measured 0 binds at 0.
    let binding = [
        ("derived", vd),
        ("stored", vs.filter(|v| *v > 0.0)),
        ("amplified", va),
    ]
    .into_iter()
    .filter_map(|(n, v)| Some((n, v?)))
    .min_by(|a, b| a.1.total_cmp(&b.1));
    super::report::SustainableReport {
        clearance_m,
        pixel_angle,
        demand_tiles_per_km: super::report::Supply {
            derived: Some(dd * 1e3),
            stored: Some(ds * 1e3),
            amplified: Some(da * 1e3),
        },
        speed_m_s: super::report::Supply {
            derived: vd,
            stored: vs,
            amplified: va,
        },
        binding: binding.map(|b| b.0.to_string()),
        sustainable_m_s: binding.map(|b| b.1),
    }
}

#[cfg(test)]
mod tests {
    use super::longest_wait;

    #[test]
    fn the_sustainable_speed_is_supply_over_the_closed_form_demand() {
        use super::super::report::Supply;
        let body = engine::planet::Body::EARTH;
        let pa = 60f64.to_radians() / 1080.0;
        let supply = Supply {
            derived: Some(24.0),
            stored: None,
            amplified: None,
        };
        let r = super::sustainable(body, 100.0, pa, &supply);
        // The closed form written out: Σ over L0..L9 of 2·√(range² − c²)/(512·texel)².
        let d: f64 = (0..=9u8)
            .map(|l| {
                let texel = body.texel(l);
                let range = 2.0 * texel / pa;
                if range > 100.0 {
                    2.0 * (range * range - 1.0e4).sqrt() / (512.0 * texel).powi(2)
                } else {
                    0.0
                }
            })
            .sum();
        assert!((r.demand_tiles_per_km.derived.unwrap() - d * 1e3).abs() < 1e-9 * d * 1e3);
        assert!((r.sustainable_m_s.unwrap() - 24.0 / d).abs() < 1e-6 * 24.0 / d);
        assert_eq!(r.binding.as_deref(), Some("derived"));
        assert_eq!(r.speed_m_s.stored, None);
    }

    #[test]
    fn the_longest_wait_is_the_longest_unready_stretch() {
        let f = [
            (true, 10.0),
            (false, 20.0),
            (false, 30.0),
            (true, 5.0),
            (false, 100.0),
        ];
        let (n, clock, wall) = longest_wait(&f, 1.0 / 60.0);
        assert_eq!(n, 2);
        assert!((clock - 2.0 / 60.0).abs() < 1e-12);
        assert!((wall - 0.05).abs() < 1e-12);
        assert_eq!(longest_wait(&[(true, 1.0)], 0.1), (0, 0.0, 0.0));
    }
}
