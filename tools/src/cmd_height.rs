//! `planetfall height --lat DEG --lon DEG [--level L] [--data DIR]`: the ground the tiles hold
//! at a point (engine::ground), read from the pyramid or derived on the spot.

use crate::cmd_bake::StoreArgs;
use anyhow::{bail, Result};
use engine::ground::{height_at_latlon, locate};
use engine::params::MAX_LEVEL;
use engine::planet::latlon_to_dir;

#[derive(clap::Args)]
pub struct Args {
    /// Latitude, degrees north (geocentric).
    #[arg(long, allow_negative_numbers = true)]
    pub lat: f64,
    /// Longitude, degrees east.
    #[arg(long, allow_negative_numbers = true)]
    pub lon: f64,
    /// Tile level to read: L0–L9 are derived and stored, L10–L18 amplify L9 (made on the spot
    /// at the point). Default: the finest stored level.
    #[arg(long, default_value_t = engine::params::LAST_STORED_LEVEL)]
    pub level: u8,
    #[command(flatten)]
    pub store: StoreArgs,
}

pub fn run(a: Args) -> Result<()> {
    if !(-90.0..=90.0).contains(&a.lat) || !a.lon.is_finite() {
        bail!(
            "--lat must be in [-90, 90] and --lon finite (got {}, {})",
            a.lat,
            a.lon
        );
    }
    if a.level > MAX_LEVEL {
        bail!("--level {}: levels run 0–{MAX_LEVEL}", a.level);
    }
    let oracle = a.store.oracle(true)?;
    let g = height_at_latlon(&oracle, a.lat, a.lon, a.level);
    let (tile, s, t) = locate(latlon_to_dir(a.lat, a.lon), a.level);
    println!(
        "lat {:.6} lon {:.6} level {}: {:.2} m {} (tile {tile}, texel {s:.2},{t:.2})",
        a.lat,
        a.lon,
        a.level,
        g.height_m,
        if g.water { "water" } else { "land" }
    );
    Ok(())
}
