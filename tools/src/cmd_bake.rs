//! `planetfall bake [--levels A..B] [--region lat0,lon0,lat1,lon1]`: pre-fills the tile
//! pyramid with every worker the machine has, with a progress line, and reports the feed
//! counters (tiles/s per core for the derived and stored classes).

use anyhow::{bail, Context, Result};
use engine::earth::{etopo_path, Source};
use engine::params::{FIRST_DERIVED_LEVEL, LAST_STORED_LEVEL, TILE_SAMPLES};
use engine::planet::tile::sample_coord;
use engine::planet::{dir_to_face, dir_to_latlon, latlon_to_dir, Body, Face, TileId};
use engine::store::{data_dir, Oracle, OracleConfig};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Where the source and the pyramid are, shared by `bake` and `height`.
#[derive(clap::Args)]
pub struct StoreArgs {
    /// Data directory of the tile pyramid [env: PLANETFALL_DATA; default
    /// $XDG_CACHE_HOME/planetfall or ~/.cache/planetfall].
    #[arg(long)]
    pub data: Option<PathBuf>,
    /// ETOPO netCDF file [env: PLANETFALL_ETOPO; default /usr/share/ferret-vis/data/etopo5.cdf].
    #[arg(long)]
    pub etopo: Option<PathBuf>,
    /// Worker threads (0 = one per core).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Block cache budget, MiB of decoded tiles.
    #[arg(long, default_value_t = 1024)]
    pub cache_mb: usize,
}

impl StoreArgs {
    /// Loads the source and opens the oracle. `memory_fallback`: an unwritable data
    /// directory degrades to in-memory tiles (logged) instead of failing.
    pub fn oracle(&self, memory_fallback: bool) -> Result<Oracle> {
        self.oracle_over(self.source()?, memory_fallback)
    }

    /// The ETOPO source, water from the mask in the data directory.
    pub fn source(&self) -> Result<Arc<Source>> {
        self.source_with_water(None)
    }

    /// The ETOPO source, water from the mask at `water` (else `PLANETFALL_WATER`, else the
    /// data directory's).
    pub fn source_with_water(&self, water: Option<&Path>) -> Result<Arc<Source>> {
        let path = etopo_path(self.etopo.as_deref());
        let src = Source::open(&path, Body::EARTH)?;
        Ok(Arc::new(src.with_mask_at(
            &engine::earth::water::mask_path(water, &self.data_dir()),
        )))
    }

    /// The oracle over a loaded source (see [`StoreArgs::oracle`]).
    pub fn oracle_over(&self, source: Arc<Source>, memory_fallback: bool) -> Result<Oracle> {
        let oracle = Oracle::new(
            source,
            OracleConfig {
                data_dir: Some(self.data_dir()),
                memory_fallback,
                threads: self.threads,
                cache_bytes: self.cache_mb << 20,
            },
        )?;
        Ok(oracle)
    }

    /// The data directory: `--data`, else `PLANETFALL_DATA`, else the user's cache.
    pub fn data_dir(&self) -> PathBuf {
        data_dir(self.data.as_deref())
    }
}

#[derive(clap::Args)]
pub struct Args {
    /// Levels to bake, inclusive: "A..B" or "L" (0–9).
    #[arg(long, default_value = "0..4")]
    pub levels: String,
    /// Only tiles touching this box: lat0,lon0,lat1,lon1 in degrees (lon0 > lon1 wraps the
    /// antimeridian).
    #[arg(long, allow_hyphen_values = true)]
    pub region: Option<String>,
    #[command(flatten)]
    pub store: StoreArgs,
}

fn parse_levels(s: &str) -> Result<(u8, u8)> {
    let parse = |t: &str| -> Result<u8> {
        t.trim()
            .parse::<u8>()
            .with_context(|| format!("--levels: {t:?} is not a level"))
    };
    let (a, b) = match s.split_once("..") {
        Some((a, b)) => (parse(a)?, parse(b.trim_start_matches('='))?),
        None => (parse(s)?, parse(s)?),
    };
    if a > b || b > LAST_STORED_LEVEL {
        bail!("--levels {s}: want A..B with A ≤ B ≤ {LAST_STORED_LEVEL}");
    }
    Ok((a, b))
}

/// A lat/lon box, degrees.
#[derive(Clone, Copy, Debug)]
struct Region {
    lat0: f64,
    lat1: f64,
    lon0: f64,
    lon1: f64,
}

impl Region {
    fn parse(s: &str) -> Result<Region> {
        let v: Vec<f64> = s
            .split(',')
            .map(|t| t.trim().parse::<f64>())
            .collect::<std::result::Result<_, _>>()
            .with_context(|| format!("--region {s:?}: want lat0,lon0,lat1,lon1"))?;
        let [a, b, c, d] = v[..] else {
            bail!("--region {s:?}: want four numbers lat0,lon0,lat1,lon1");
        };
        if !(-90.0..=90.0).contains(&a) || !(-90.0..=90.0).contains(&c) {
            bail!("--region {s:?}: latitudes must be in [-90, 90]");
        }
        Ok(Region {
            lat0: a.min(c),
            lat1: a.max(c),
            lon0: b,
            lon1: d,
        })
    }

    fn contains(&self, lat: f64, lon: f64) -> bool {
        let lon_in = if self.lon0 <= self.lon1 {
            (self.lon0..=self.lon1).contains(&lon)
        } else {
            lon >= self.lon0 || lon <= self.lon1
        };
        (self.lat0..=self.lat1).contains(&lat) && lon_in
    }

    /// Whether a tile touches the box: any of a 9×9 grid over the tile lies in the box, or any
    /// of a 5×5 grid over the box lies in the tile (approximate for slivers).
    fn touches(&self, t: TileId) -> bool {
        let n = TILE_SAMPLES as i64;
        for j in 0..=8 {
            for i in 0..=8 {
                let (u, v) = (
                    sample_coord(t.level, t.global_i(i * n / 8) - (i == 8) as i64),
                    sample_coord(t.level, t.global_j(j * n / 8) - (j == 8) as i64),
                );
                let (lat, lon) = dir_to_latlon(t.face.direction(u, v));
                if self.contains(lat, lon) {
                    return true;
                }
            }
        }
        let span = if self.lon0 <= self.lon1 {
            self.lon1 - self.lon0
        } else {
            self.lon1 + 360.0 - self.lon0
        };
        (0..=4).any(|j| {
            (0..=4).any(|i| {
                let lat = self.lat0 + (self.lat1 - self.lat0) * j as f64 / 4.0;
                let lon = self.lon0 + span * i as f64 / 4.0;
                let (f, u, v) = dir_to_face(latlon_to_dir(lat, lon));
                TileId::containing(t.level, f, u, v) == t
            })
        })
    }
}

/// Tiles of `level` touching the region (all when `None`), by descent from the faces.
fn tiles(level: u8, region: Option<&Region>) -> Vec<TileId> {
    let mut cur: Vec<TileId> = Face::ALL.iter().map(|&f| TileId::new(0, f, 0, 0)).collect();
    cur.retain(|t| region.is_none_or(|r| r.touches(*t)));
    for _ in 0..level {
        cur = cur
            .iter()
            .flat_map(|t| t.children())
            .filter(|t| region.is_none_or(|r| r.touches(*t)))
            .collect();
    }
    cur
}

pub fn run(a: Args) -> Result<()> {
    let (lo, hi) = parse_levels(&a.levels)?;
    let region = a.region.as_deref().map(Region::parse).transpose()?;
    let oracle = a.store.oracle(false)?;
    let dir = oracle
        .data_dir()
        .map(|d| d.display().to_string())
        .unwrap_or_default();
    // Derived levels first (in parallel), then the reductions from the stored level below.
    let mut order: Vec<u8> = (lo.max(FIRST_DERIVED_LEVEL)..=hi).collect();
    order.extend((lo..FIRST_DERIVED_LEVEL.min(hi + 1)).rev());
    let plan: Vec<(u8, Vec<TileId>)> = order
        .iter()
        .map(|&l| (l, tiles(l, region.as_ref())))
        .collect();
    let total: usize = plan.iter().map(|(_, t)| t.len()).sum();
    log::info!(
        "bake: {total} tiles, levels {lo}..{hi}, {} workers, into {dir}",
        oracle.threads()
    );
    let start = Instant::now();
    let mut done = 0usize;
    // Tiles whose production failed; the bake goes on and reports them at the end.
    let mut failed = Vec::new();
    let mut collect = |done: &mut usize| {
        for (id, r) in oracle.collect() {
            *done += 1;
            if let Err(e) = r {
                failed.push((id, e));
            }
        }
    };
    let mut last_print = Instant::now() - Duration::from_secs(1);
    let window = 4 * oracle.threads();
    for (level, ids) in &plan {
        let mut next = 0;
        while next < ids.len() || oracle.outstanding() > 0 {
            let room = window.saturating_sub(oracle.outstanding());
            let take = room.min(ids.len() - next);
            if take > 0 {
                oracle.request(&ids[next..next + take], 1.0);
                next += take;
            }
            collect(&mut done);
            if last_print.elapsed() > Duration::from_millis(500) {
                progress(done, total, *level, start.elapsed());
                last_print = Instant::now();
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        collect(&mut done);
    }
    progress(done, total, hi, start.elapsed());
    eprintln!();
    report(&oracle, start.elapsed());
    if let Some((_, first)) = failed.first() {
        bail!("{} tiles failed (first: {first})", failed.len());
    }
    Ok(())
}

fn progress(done: usize, total: usize, level: u8, took: Duration) {
    let frac = done as f64 / total.max(1) as f64;
    let bar: String = (0..30)
        .map(|k| if (k as f64) < frac * 30.0 { '#' } else { '-' })
        .collect();
    let rate = done as f64 / took.as_secs_f64().max(1e-9);
    let eta = (total - done.min(total)) as f64 / rate.max(1e-9);
    eprint!("\r[{bar}] {done}/{total} tiles  L{level}  {rate:.2} tiles/s  ETA {eta:.0} s   ");
    let _ = std::io::stderr().flush();
}

/// Feed counters; tiles/s per core = tiles / summed worker seconds of that class.
fn report(oracle: &Oracle, wall: Duration) {
    let c = oracle.counters();
    println!(
        "bake: {:.1} s wall, {} workers",
        wall.as_secs_f64(),
        oracle.threads()
    );
    println!(
        "{:<8} {:>8} {:>12} {:>10} {:>16}",
        "class", "tiles", "MB", "busy s", "tiles/s/core"
    );
    for (name, s) in [("derived", c.derived), ("stored", c.stored)] {
        println!(
            "{name:<8} {:>8} {:>12.1} {:>10.2} {:>16.2}",
            s.tiles,
            s.bytes as f64 / 1e6,
            s.seconds,
            s.tiles as f64 / s.seconds.max(1e-9)
        );
    }
    println!(
        "blocks opened {}  tiles written {}  corrupt/reset {}",
        c.blocks_opened, c.tiles_written, c.corrupt
    );
    if let Some(line) = oracle.faults().line() {
        println!("{line}");
    }
}
