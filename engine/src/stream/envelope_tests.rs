use super::*;
use std::f64::consts::PI;

const EARTH: Body = Body::EARTH;

/// §5's closed form written out again from the design's numbers: texel(L) = πR/1024/2^L,
/// tiles 512 texels wide.
fn expected_demand(levels: RangeInclusive<u8>, clearance: f64, pixel_angle: f64) -> f64 {
    let mut sum = 0.0;
    for l in levels {
        let texel = PI * 6_371_000.0 / 1024.0 / 2f64.powi(l as i32);
        let range = 2.0 * texel / pixel_angle;
        if range > clearance {
            let g = (range.powi(2) - clearance.powi(2)).sqrt();
            sum += 2.0 * g / (512.0 * texel).powi(2);
        }
    }
    sum
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * b.abs().max(1e-300)
}

#[test]
fn demand_matches_the_closed_form() {
    // 60° over 720 px, 1° over 1,000 px, a wide 90° over 640 px.
    let angles = [
        60f64.to_radians() / 720.0,
        1f64.to_radians() / 1000.0,
        90f64.to_radians() / 640.0,
    ];
    for &pa in &angles {
        for &clear in &[0.0, 1.8, 100.0, 10_000.0, 400_000.0, 2.0e7] {
            for c in [FeedClass::Derived, FeedClass::Stored, FeedClass::Amplified] {
                let got = class_demand(EARTH, c, clear, pa);
                let want = expected_demand(c.levels(), clear, pa);
                assert!(
                    close(got, want),
                    "{c:?} clearance {clear} pa {pa}: {got} vs {want}"
                );
            }
        }
    }
    // One level by hand: L9 from the ground at 1 mrad/px. texel 38.18 m, range 76.36 km,
    // g = range, tile 19.55 km wide: 2·76,363/19,546² = 4.0e-4 tiles/m.
    let l9 = level_demand(EARTH, 9, 0.0, 1e-3);
    assert!((l9 - 3.997e-4).abs() < 1e-6, "{l9}");
    // Derived and stored serve the same levels, so they ask the same.
    let pa = angles[0];
    assert_eq!(
        class_demand(EARTH, FeedClass::Derived, 500.0, pa),
        class_demand(EARTH, FeedClass::Stored, 500.0, pa)
    );
}

#[test]
fn a_range_short_of_the_clearance_asks_nothing() {
    // At 1 mrad/px, L0's range is 39,092 km and L1's 19,546 km: from 20,000 km only L0 reaches.
    let (pa, clear) = (1e-3, 2.0e7);
    assert_eq!(level_demand(EARTH, 1, clear, pa), 0.0);
    assert!(level_demand(EARTH, 0, clear, pa) > 0.0);
    let d = class_demand(EARTH, FeedClass::Derived, clear, pa);
    assert!(close(d, level_demand(EARTH, 0, clear, pa)), "{d}");
    // From beyond every range: nothing, and no speed limit can be derived from it.
    assert_eq!(class_demand(EARTH, FeedClass::Derived, 1e9, pa), 0.0);
    // Bad inputs degrade to no demand.
    for (c, p) in [
        (100.0, 0.0),
        (100.0, -1e-3),
        (f64::NAN, 1e-3),
        (100.0, f64::INFINITY),
    ] {
        assert_eq!(level_demand(EARTH, 5, c, p), 0.0, "{c} {p}");
    }
}

fn done(derived: u64, stored: Option<u64>) -> PerClass<Option<u64>> {
    PerClass([Some(derived), stored, None])
}

fn busy(derived: u64, stored: u64) -> PerClass<u64> {
    PerClass([derived, stored, 0])
}

#[test]
fn forty_tiles_a_second_for_three_seconds_then_idle() {
    let mut m = SupplyMeter::default();
    assert_eq!(
        m.supply(FeedClass::Derived),
        Supply::Absent,
        "before any reading"
    );
    let mut tiles = 0u64;
    m.update(0.0, done(0, Some(0)), busy(0, 0));
    for f in 1..=30 {
        tiles += 4; // 40 tiles/s in frames of 0.1 s
        m.update(f as f64 * 0.1, done(tiles, Some(0)), busy(10, 0));
        if f < 10 {
            assert_eq!(
                m.supply(FeedClass::Derived),
                Supply::Unknown,
                "no bucket closed yet"
            );
        }
    }
    // Idle: no backlog for 10 s (a trickle of prefetched tiles is not supply under pressure).
    for f in 31..=130 {
        tiles += (f % 10 == 0) as u64;
        m.update(f as f64 * 0.1, done(tiles, Some(0)), busy(0, 0));
    }
    let s = m
        .supply(FeedClass::Derived)
        .rate()
        .expect("three counted buckets");
    assert!((s - 40.0).abs() < 1e-6, "{s}");
    // The stored class was never asked: unknown, not zero. Amplified has no producer.
    assert_eq!(m.supply(FeedClass::Stored), Supply::Unknown);
    assert_eq!(m.supply(FeedClass::Amplified), Supply::Absent);

    // Sustainable lateral speed = supply / demand, derived binding (the only figure).
    let (clear, pa) = (300.0, 60f64.to_radians() / 720.0);
    let env = Envelope::new(m.supplies(), EARTH, clear, pa);
    let want = 40.0 / expected_demand(0..=9, clear, pa);
    let s = env.sustainable.expect("derived has supply and demand");
    assert_eq!(s.binding, FeedClass::Derived);
    assert!(close(s.speed, want), "{} vs {want}", s.speed);
    assert!(env.outrunning(want * 1.01) && !env.outrunning(want * 0.99));
}

#[test]
fn buckets_without_backlog_are_ignored() {
    let mut m = SupplyMeter::default();
    m.update(0.0, done(0, None), busy(0, 0));
    // 2 s at 12 tiles/s with a backlog, then 3 s at 100 tiles/s without one, then 2 s at 28/s
    // with one: (12+12+28+28)/4 = 20, the no-backlog seconds not in it.
    let phases = [(2, 12, 1), (3, 100, 0), (2, 28, 1)];
    let (mut t, mut n) = (0.0, 0u64);
    for (secs, rate, backlog) in phases {
        for _ in 0..secs * 4 {
            t += 0.25;
            n += rate / 4;
            m.update(t, done(n, None), busy(backlog, 0));
        }
    }
    m.update(t + 1.0, done(n, None), busy(0, 0));
    let s = m.supply(FeedClass::Derived).rate().unwrap();
    assert!((s - 20.0).abs() < 1e-9, "{s}");
    assert_eq!(m.supply(FeedClass::Stored), Supply::Absent);
}

#[test]
fn a_backlog_that_ends_mid_bucket_counts_its_rate_not_a_diluted_one() {
    let mut m = SupplyMeter::default();
    m.update(0.0, done(0, None), busy(0, 0));
    // 40 tiles/s for 1.5 s, then nothing and no backlog.
    let mut n = 0;
    for f in 1..=15 {
        n += 4;
        m.update(f as f64 * 0.1, done(n, None), busy(3, 0));
    }
    m.update(2.5, done(n, None), busy(0, 0));
    let s = m.supply(FeedClass::Derived).rate().unwrap();
    assert!((s - 40.0).abs() < 1e-9, "{s}");
}

#[test]
fn one_long_frame_spreads_over_its_buckets_and_only_recent_buckets_count() {
    let mut m = SupplyMeter::default();
    m.update(10.0, done(0, None), busy(0, 0));
    // A frame that blocked for 3 s producing 120 tiles: 40/s in three buckets.
    m.update(13.0, done(120, None), busy(120, 0));
    m.update(13.5, done(120, None), busy(0, 0));
    assert!((m.supply(FeedClass::Derived).rate().unwrap() - 40.0).abs() < 1e-9);
    // Then 10 s at 10 tiles/s under backlog: the last five buckets are all 10/s.
    let mut n = 120;
    for f in 1..=20 {
        n += 5;
        m.update(13.5 + f as f64 * 0.5, done(n, None), busy(1, 0));
    }
    m.update(25.0, done(n, None), busy(0, 0));
    assert!((m.supply(FeedClass::Derived).rate().unwrap() - 10.0).abs() < 1e-9);
    // A clock that goes back or is not finite does not corrupt the figure.
    m.update(1.0, done(n + 1000, None), busy(5, 0));
    m.update(f64::NAN, done(n + 2000, None), busy(5, 0));
    assert!((m.supply(FeedClass::Derived).rate().unwrap() - 10.0).abs() < 1e-9);
}

#[test]
fn the_binding_class_has_the_smallest_ratio() {
    let supply = PerClass([
        Supply::TilesPerS(40.0),
        Supply::TilesPerS(8.0),
        Supply::Absent,
    ]);
    let demand = PerClass([0.002, 0.002, 0.01]);
    let s = sustainable_speed(&supply, &demand).unwrap();
    assert_eq!(s.binding, FeedClass::Stored);
    assert!(close(s.speed, 4_000.0));
    // A class without demand here (range short of the clearance) cannot bind.
    let s = sustainable_speed(&supply, &PerClass([0.002, 0.0, 0.0])).unwrap();
    assert_eq!((s.binding, s.speed), (FeedClass::Derived, 20_000.0));
    // Unknown supplies bind nothing; all unknown → no figure (never 0 or infinity).
    let none = PerClass([Supply::Unknown, Supply::Unknown, Supply::Absent]);
    assert_eq!(sustainable_speed(&none, &demand), None);
    assert!(!Envelope::new(none, EARTH, 10.0, 1e-3).outrunning(1e9));
}

#[test]
fn the_backlog_follows_the_recent_mix_and_stalled_classes_keep_theirs() {
    let mut s = BacklogSplit::default();
    let snap = |d, st, backlog| FeedSnapshot {
        completed: done(d, Some(st)),
        backlog,
    };
    // Nothing produced yet: the backlog is nobody's.
    assert_eq!(s.split(&snap(0, 0, 50)), busy(0, 0));
    assert_eq!(s.split(&snap(0, 0, 50)), busy(0, 0));
    // Half derived, half stored.
    assert_eq!(s.split(&snap(20, 20, 50)), busy(25, 25));
    // A long run from disk only: derived's share falls below one remembered tile.
    let b = s.split(&snap(20, 400, 50));
    assert_eq!((b[FeedClass::Derived], b[FeedClass::Stored]), (0, 50));
    // The disk stalls: no completions, the mix stands, stored keeps the backlog.
    assert_eq!(s.split(&snap(20, 400, 30)), b.map_backlog(30));
    // No backlog: nothing to attribute.
    assert_eq!(s.split(&snap(20, 400, 0)), busy(0, 0));
}

impl PerClass<u64> {
    fn map_backlog(self, n: u64) -> PerClass<u64> {
        PerClass(self.0.map(|b| if b > 0 { n } else { 0 }))
    }
}

#[test]
fn synchronous_fetches_count_as_backlog_only_when_something_was_produced() {
    let mut f = FeedMeter::default();
    let snap = |d| FeedSnapshot {
        completed: done(d, None),
        backlog: 0,
    };
    let here = |tiles, busy_fraction| LocalFetch {
        tiles,
        busy_fraction,
    };
    f.observe(0.0, &snap(0), here(0, 0.0));
    // Frames that fetched from memory: 30 tiles a frame, none produced → nothing counted.
    for k in 1..=20 {
        f.observe(k as f64 * 0.1, &snap(0), here(30, 0.5));
    }
    assert_eq!(f.meter().supply(FeedClass::Derived), Supply::Unknown);
    // Frames of 0.1 s that produced 2 tiles each in the quarter of the frame spent fetching:
    // 80 tiles/s while fetching (20/s over whole frames, which would count rendering time).
    let mut n = 0;
    for k in 21..=45 {
        n += 2;
        f.observe(k as f64 * 0.1, &snap(n), here(2, 0.25));
    }
    f.observe(5.0, &snap(n), here(0, 0.0));
    let s = f.meter().supply(FeedClass::Derived).rate().unwrap();
    assert!((s - 80.0).abs() < 1e-6, "{s}");
}

#[test]
fn bounded_flight_caps_the_lateral_part_at_three_quarters() {
    // Unknown: no cap.
    assert_eq!(bounded_speed(5_000.0, 1.0, None), 5_000.0);
    // Level flight: 75 % of 1,000 m/s.
    assert_eq!(bounded_speed(5_000.0, 1.0, Some(1_000.0)), 750.0);
    // Under the cap: unchanged.
    assert_eq!(bounded_speed(500.0, 1.0, Some(1_000.0)), 500.0);
    // Diving at 60° below the horizon: half the motion is lateral, so twice the speed.
    let s = bounded_speed(5_000.0, 0.5, Some(1_000.0));
    assert!(close(s, 1_500.0) && close(s * 0.5, 750.0), "{s}");
    // Straight down: no lateral travel, no cap. A zero supply stops lateral flight.
    assert_eq!(bounded_speed(5_000.0, 0.0, Some(1_000.0)), 5_000.0);
    assert_eq!(bounded_speed(5_000.0, 1.0, Some(0.0)), 0.0);
}

/// The whole chain on the real Earth: an in-memory oracle (no data directory, so stored is
/// absent) derives 48 L6 tiles on its worker pool while a `FeedMeter` reads
/// `EarthSource::feed` every 50 ms. The metered supply must agree with tiles derived over the
/// wall time they took, measured here independently. `cargo test -p engine --lib
/// earth_supply -- --ignored --nocapture`.
#[test]
#[ignore]
fn earth_supply_is_what_the_oracle_derives() {
    use crate::earth::{etopo::etopo_path, Source};
    use crate::planet::{Face, TileId};
    use crate::source::{EarthSource, TileSource};
    use crate::store::oracle::{Oracle, OracleConfig};
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    let src = Arc::new(Source::open(&etopo_path(None), EARTH).expect("ETOPO5"));
    let oracle = Arc::new(Oracle::new(src, OracleConfig::default()).expect("oracle"));
    let es = EarthSource {
        oracle: oracle.clone(),
        body: EARTH,
    };
    let ids: Vec<TileId> = (0..8)
        .flat_map(|x| (0..6).map(move |y| TileId::new(6, Face(2), 20 + x, 30 + y)))
        .collect();
    let mut f = FeedMeter::default();
    let t0 = Instant::now();
    f.observe(0.0, &es.feed().unwrap(), LocalFetch::default());
    oracle.request(&ids, 1.0);
    let mut busy_until = 0.0;
    while t0.elapsed() < Duration::from_secs(120) {
        std::thread::sleep(Duration::from_millis(50));
        let snap = es.feed().unwrap();
        let now = t0.elapsed().as_secs_f64();
        f.observe(now, &snap, LocalFetch::default());
        if snap.backlog == 0 {
            busy_until = now;
            break;
        }
    }
    // Two idle seconds so the last busy bucket closes.
    for k in 1..=40 {
        f.observe(
            busy_until + k as f64 * 0.05,
            &es.feed().unwrap(),
            LocalFetch::default(),
        );
    }
    let derived = oracle.counters().derived.tiles;
    let overall = derived as f64 / busy_until;
    let m = f.meter();
    eprintln!(
        "{derived} tiles derived in {busy_until:.2} s on {} workers: {overall:.2} tiles/s overall; metered {:?}",
        oracle.threads(),
        m.supply(FeedClass::Derived)
    );
    assert_eq!(derived, ids.len() as u64);
    assert_eq!(m.supply(FeedClass::Stored), Supply::Absent);
    assert_eq!(m.supply(FeedClass::Amplified), Supply::Absent);
    let s = m
        .supply(FeedClass::Derived)
        .rate()
        .expect("a counted second");
    // The meter averages the last 5 busy seconds, the overall figure all of them.
    assert!(s > 0.5 * overall && s < 2.0 * overall, "{s} vs {overall}");
}
