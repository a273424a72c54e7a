//! The feed envelope (TERRAIN.md §5, `docs/streaming.md`): how fast each feed class supplies
//! tiles (tiles/s), how many tiles lateral travel asks for (tiles per metre), and the lateral
//! speed the feed sustains (m/s) — supply over demand of the class that binds. Pure f64; the
//! renderer feeds a [`FeedMeter`] once per frame and the viewer turns it into a HUD and a speed
//! cap.

use crate::params::{LAST_STORED_LEVEL, MAX_LEVEL, TILE_SAMPLES};
use crate::planet::Body;
use std::collections::VecDeque;
use std::ops::{Index, IndexMut, RangeInclusive};

/// Where a tile comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FeedClass {
    /// Computed from the source (ETOPO5 reconstruction, bands, reductions).
    Derived,
    /// Read back from the tile store on disk.
    Stored,
    /// Detail above the data (§6, L10–L18): made by the oracle's workers or on the GPU.
    Amplified,
}

impl FeedClass {
    pub const ALL: [FeedClass; 3] = [FeedClass::Derived, FeedClass::Stored, FeedClass::Amplified];

    pub fn name(self) -> &'static str {
        match self {
            FeedClass::Derived => "derived",
            FeedClass::Stored => "stored",
            FeedClass::Amplified => "amplified",
        }
    }

    /// Levels this class serves: the data levels for derived and stored tiles, the levels
    /// above the data for amplified ones.
    pub fn levels(self) -> RangeInclusive<u8> {
        match self {
            FeedClass::Derived | FeedClass::Stored => 0..=LAST_STORED_LEVEL,
            FeedClass::Amplified => LAST_STORED_LEVEL + 1..=MAX_LEVEL,
        }
    }
}

/// One value per feed class.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PerClass<T>(pub [T; 3]);

impl<T> Index<FeedClass> for PerClass<T> {
    type Output = T;
    fn index(&self, c: FeedClass) -> &T {
        &self.0[c as usize]
    }
}

impl<T> IndexMut<FeedClass> for PerClass<T> {
    fn index_mut(&mut self, c: FeedClass) -> &mut T {
        &mut self.0[c as usize]
    }
}

/// What a tile source says about its feed at one moment.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FeedSnapshot {
    /// Tiles each class has produced since the source started; `None`: the source has no
    /// producer of that class (reported as absent, never as a supply of 0).
    pub completed: PerClass<Option<u64>>,
    /// Requests queued or in production. Which class will serve a request is only known once
    /// the tile is produced (a stored tile may turn out absent or corrupt and be derived), so
    /// this is one number; [`BacklogSplit`] attributes it.
    pub backlog: u64,
}

/// Supply per class: the mean of this many of the most recent counted buckets. Five seconds
/// follows a change of region (disk → derivation) within a few seconds while one slow second
/// moves the figure by a fifth.
pub const SUPPLY_BUCKETS: usize = 5;
/// Length of a supply bucket, seconds (§5: one second).
pub const BUCKET_S: f64 = 1.0;
/// Bounded flight holds lateral speed to this fraction of the sustainable speed (§5: 75 %).
pub const BOUNDED_FLIGHT_FRACTION: f64 = 0.75;
/// The backlog split remembers the class mix of about this many recent completions (tiles;
/// the weight of older ones halves every this many).
const SPLIT_MEMORY_TILES: f64 = 32.0;

/// A class's supply as the meter knows it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Supply {
    /// The source has no producer of this class.
    Absent,
    /// No counted bucket yet (nothing was asked of it, or it has not finished a second).
    Unknown,
    /// Tiles per second while it had a backlog.
    TilesPerS(f64),
}

impl Supply {
    pub fn rate(self) -> Option<f64> {
        match self {
            Supply::TilesPerS(r) => Some(r),
            _ => None,
        }
    }
}

/// Attributes the one backlog number to classes by the class mix of recent completions: a
/// queue that has lately been answered from disk is taken to be waiting on the disk. Only new
/// completions move the mix, so a class that stalls keeps its share (and its backlog: its
/// buckets then count zero supply, as they should). Before the first completion nothing is
/// attributed (supply stays unknown rather than zero).
#[derive(Clone, Debug, Default)]
pub struct BacklogSplit {
    weight: PerClass<f64>,
    last: Option<PerClass<Option<u64>>>,
}

impl BacklogSplit {
    /// The backlog per class for this snapshot (the mix includes the snapshot's completions).
    pub fn split(&mut self, s: &FeedSnapshot) -> PerClass<u64> {
        let delta = completed_delta(self.last.as_ref(), &s.completed);
        self.last = Some(s.completed);
        let n: u64 = delta.0.iter().sum();
        if n > 0 {
            let keep = 0.5f64.powf(n as f64 / SPLIT_MEMORY_TILES);
            for c in FeedClass::ALL {
                self.weight[c] = self.weight[c] * keep + delta[c] as f64;
            }
        }
        let total: f64 = self.weight.0.iter().sum();
        let mut out = PerClass::default();
        if s.backlog == 0 || total <= 0.0 {
            return out;
        }
        for c in FeedClass::ALL {
            let share = self.weight[c] / total;
            // A class below one tile of the remembered mix is not serving this region.
            if s.completed[c].is_some() && share * SPLIT_MEMORY_TILES >= 1.0 {
                out[c] = ((s.backlog as f64 * share).round() as u64).max(1);
            }
        }
        out
    }
}

/// Tiles completed per class between two cumulative readings (0 where a class is absent, new,
/// or its counter went backwards).
fn completed_delta(
    last: Option<&PerClass<Option<u64>>>,
    now: &PerClass<Option<u64>>,
) -> PerClass<u64> {
    let mut d = PerClass::default();
    if let Some(last) = last {
        for c in FeedClass::ALL {
            if let (Some(a), Some(b)) = (last[c], now[c]) {
                d[c] = b.saturating_sub(a);
            }
        }
    }
    d
}

#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Bucket {
    index: i64,
    /// Tiles produced while the class had a backlog.
    tiles: f64,
    /// Seconds of this bucket during which the class had a backlog.
    busy_s: f64,
}

/// Supply per class in one-second buckets, a bucket counted only if its class had a backlog
/// during it (§5): an idle feed is not a slow one.
///
/// Each update covers the interval since the previous one; its completions and time are spread
/// evenly over the buckets the interval overlaps (a blocking frame of 3 s fills three). Supply
/// is the mean rate over the last [`SUPPLY_BUCKETS`] counted, closed buckets, weighted by the
/// time each had a backlog (a bucket where the backlog ran out half-way counts half), which is
/// the plain mean when the backlog lasted all along.
#[derive(Clone, Debug, Default)]
pub struct SupplyMeter {
    last: Option<(f64, PerClass<Option<u64>>)>,
    open: PerClass<Option<Bucket>>,
    counted: PerClass<VecDeque<Bucket>>,
}

impl SupplyMeter {
    /// One reading: the time (seconds, any monotonic clock), the cumulative completions per
    /// class (`None`: no producer) and the backlog per class during the interval since the last
    /// reading. A clock that stands still waits for the next reading; one that goes back or is
    /// not finite restarts the interval.
    pub fn update(&mut self, now_s: f64, completed: PerClass<Option<u64>>, backlog: PerClass<u64>) {
        self.update_partly(now_s, completed, backlog, 1.0);
    }

    /// [`SupplyMeter::update`] for a backlog that lasted only `busy_fraction` (0…1) of the
    /// interval: tiles fetched synchronously are waited for during a frame's fetch, not while
    /// it renders, so only that part of the frame was time under backlog.
    pub fn update_partly(
        &mut self,
        now_s: f64,
        completed: PerClass<Option<u64>>,
        backlog: PerClass<u64>,
        busy_fraction: f64,
    ) {
        let busy_fraction = if busy_fraction.is_finite() {
            busy_fraction.clamp(0.0, 1.0)
        } else {
            1.0
        };
        if !now_s.is_finite() {
            return;
        }
        let Some((t0, last)) = self.last else {
            self.last = Some((now_s, completed));
            return;
        };
        if now_s == t0 {
            return;
        }
        self.last = Some((now_s, completed));
        if now_s < t0 {
            return;
        }
        let delta = completed_delta(Some(&last), &completed);
        let span = now_s - t0;
        let (first, end) = (bucket_of(t0), bucket_of(now_s));
        // Only the last few buckets can still count; an interval of hours adds no more.
        let first = first.max(end - SUPPLY_BUCKETS as i64 - 1);
        for c in FeedClass::ALL {
            if completed[c].is_none() {
                continue;
            }
            for k in first..=end {
                let lo = (k as f64 * BUCKET_S).max(t0);
                let hi = ((k + 1) as f64 * BUCKET_S).min(now_s);
                if hi <= lo || backlog[c] == 0 || busy_fraction == 0.0 {
                    continue;
                }
                let b = self.bucket(c, k);
                b.busy_s += (hi - lo) * busy_fraction;
                b.tiles += delta[c] as f64 * (hi - lo) / span;
            }
        }
        self.close_before(end);
    }

    /// The open bucket `k` of class `c`, closing an older one.
    fn bucket(&mut self, c: FeedClass, k: i64) -> &mut Bucket {
        match self.open[c] {
            Some(b) if b.index == k => {}
            old => {
                if let Some(b) = old {
                    self.push_counted(c, b);
                }
                self.open[c] = Some(Bucket {
                    index: k,
                    ..Default::default()
                });
            }
        }
        self.open[c].as_mut().expect("just opened")
    }

    fn close_before(&mut self, k: i64) {
        for c in FeedClass::ALL {
            if let Some(b) = self.open[c].filter(|b| b.index < k) {
                self.open[c] = None;
                self.push_counted(c, b);
            }
        }
    }

    fn push_counted(&mut self, c: FeedClass, b: Bucket) {
        if b.busy_s > 0.0 {
            let q = &mut self.counted[c];
            q.push_back(b);
            while q.len() > SUPPLY_BUCKETS {
                q.pop_front();
            }
        }
    }

    /// The class's supply, tiles/s.
    pub fn supply(&self, c: FeedClass) -> Supply {
        match self.last {
            Some((_, done)) if done[c].is_some() => {}
            _ => return Supply::Absent,
        }
        let q = &self.counted[c];
        let busy: f64 = q.iter().map(|b| b.busy_s).sum();
        if busy <= 0.0 {
            return Supply::Unknown;
        }
        Supply::TilesPerS(q.iter().map(|b| b.tiles).sum::<f64>() / busy)
    }

    pub fn supplies(&self) -> PerClass<Supply> {
        PerClass(FeedClass::ALL.map(|c| self.supply(c)))
    }
}

fn bucket_of(t: f64) -> i64 {
    (t / BUCKET_S).floor() as i64
}

/// Tiles a caller fetched in its own thread since the last reading.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LocalFetch {
    pub tiles: u64,
    /// The part of the interval (0…1, wall time) spent fetching them.
    pub busy_fraction: f64,
}

/// What the renderer owns: the backlog split and the supply meter, fed once per frame.
#[derive(Clone, Debug, Default)]
pub struct FeedMeter {
    split: BacklogSplit,
    meter: SupplyMeter,
    last_total: Option<u64>,
}

impl FeedMeter {
    /// One reading at `now_s`, with what the caller fetched in its own thread during the
    /// interval (synchronous residency, where nothing waits in the source's queue). While the
    /// source's own queue is not empty the whole interval was under backlog.
    pub fn observe(&mut self, now_s: f64, snapshot: &FeedSnapshot, here: LocalFetch) {
        let total: u64 = snapshot.completed.0.iter().flatten().sum();
        let produced = self.last_total.is_some_and(|t| total > t);
        self.last_total = Some(total);
        let mut s = *snapshot;
        let mut busy = 1.0;
        // Local fetches were a backlog only if the interval produced anything: tiles served
        // from memory ask nothing of any feed.
        if s.backlog == 0 && produced && here.tiles > 0 {
            s.backlog = here.tiles;
            busy = here.busy_fraction;
        }
        let backlog = self.split.split(&s);
        self.meter.update_partly(now_s, s.completed, backlog, busy);
    }

    pub fn meter(&self) -> &SupplyMeter {
        &self.meter
    }
}

/// Tiles per metre of lateral travel asked of level `level` by a camera `clearance_m` above
/// the ground with `pixel_angle` radians per pixel (§5): the level is wanted out to the range
/// where its texel covers two pixels, which meets the ground in a disc of radius g; moving
/// sideways by one metre sweeps 2g square metres of new ground, in tiles of (512 texels)² each.
/// 0 where the range does not reach the ground, or for inputs that are not finite and positive.
pub fn level_demand(body: Body, level: u8, clearance_m: f64, pixel_angle: f64) -> f64 {
    if !(pixel_angle > 0.0 && pixel_angle.is_finite() && clearance_m.is_finite()) {
        return 0.0;
    }
    let clearance = clearance_m.max(0.0);
    let texel = body.texel(level);
    let range = 2.0 * texel / pixel_angle;
    if range <= clearance {
        return 0.0;
    }
    let g = (range * range - clearance * clearance).sqrt();
    let width = TILE_SAMPLES as f64 * texel;
    2.0 * g / (width * width)
}

/// Tiles per metre of lateral travel asked of class `c`: the sum over the levels it serves.
pub fn class_demand(body: Body, c: FeedClass, clearance_m: f64, pixel_angle: f64) -> f64 {
    c.levels()
        .map(|l| level_demand(body, l, clearance_m, pixel_angle))
        .sum()
}

/// The lateral speed the feed sustains and the class that binds it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sustainable {
    /// m/s.
    pub speed: f64,
    pub binding: FeedClass,
}

/// Supply over demand of the binding class: the smallest ratio among classes with a supply
/// figure and a nonzero demand. None when no class has both.
pub fn sustainable_speed(
    supply: &PerClass<Supply>,
    demand_per_m: &PerClass<f64>,
) -> Option<Sustainable> {
    FeedClass::ALL
        .into_iter()
        .filter_map(|c| {
            let s = supply[c].rate()?;
            let d = demand_per_m[c];
            (d > 0.0 && s.is_finite()).then_some(Sustainable {
                speed: s / d,
                binding: c,
            })
        })
        .min_by(|a, b| a.speed.total_cmp(&b.speed))
}

/// The whole envelope for one camera: supply, demand and the sustainable speed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Envelope {
    pub supply: PerClass<Supply>,
    /// Tiles per metre of lateral travel.
    pub demand_per_m: PerClass<f64>,
    pub sustainable: Option<Sustainable>,
}

impl Envelope {
    pub fn new(
        supply: PerClass<Supply>,
        body: Body,
        clearance_m: f64,
        pixel_angle: f64,
    ) -> Envelope {
        let demand_per_m =
            PerClass(FeedClass::ALL.map(|c| class_demand(body, c, clearance_m, pixel_angle)));
        Envelope {
            supply,
            demand_per_m,
            sustainable: sustainable_speed(&supply, &demand_per_m),
        }
    }

    /// Whether a camera moving sideways at `lateral_mps` outruns the feed (never while the
    /// sustainable speed is unknown).
    pub fn outrunning(&self, lateral_mps: f64) -> bool {
        self.sustainable.is_some_and(|s| lateral_mps > s.speed)
    }
}

/// The speed bounded flight allows: `speed` (m/s along the direction of motion) held so its
/// lateral part (`lateral_fraction` of it, 0…1) stays within [`BOUNDED_FLIGHT_FRACTION`] of
/// the sustainable speed. No cap while the sustainable speed is unknown, nor for purely
/// vertical motion.
pub fn bounded_speed(speed: f64, lateral_fraction: f64, sustainable: Option<f64>) -> f64 {
    match sustainable {
        Some(s) if s.is_finite() && lateral_fraction > 0.0 => {
            let cap = BOUNDED_FLIGHT_FRACTION * s.max(0.0) / lateral_fraction.min(1.0);
            speed.min(cap)
        }
        _ => speed,
    }
}

#[cfg(test)]
#[path = "envelope_tests.rs"]
mod tests;
