//! `planetfall height --lat DEG --lon DEG [--level L] [--data DIR] [--water FILE]`: the ground
//! the tiles hold at a point (engine::ground), read from the pyramid or derived on the spot,
//! what the water mask says is there (engine::earth::water), and the climate the shading
//! reads there (engine::earth::climate: wetness, the region's height, the snow line).

use crate::cmd_bake::StoreArgs;
use anyhow::{bail, Result};
use engine::earth::climate::{snow_line_m, Climate};
use engine::earth::lakes::LakeLevel;
use engine::earth::water::{Water, WaterMap};
use engine::ground::{height_at_latlon, locate};
use engine::params::MAX_LEVEL;
use engine::planet::latlon_to_dir;
use std::path::PathBuf;

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
    /// Water mask file, rasterised from GSHHG by `gmt grdlandmask` the first time [env:
    /// PLANETFALL_WATER; default DATA/water/gshhg-f-2m-v1.bb].
    #[arg(long)]
    pub water: Option<PathBuf>,
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
    let source = a.store.source_with_water(a.water.as_deref())?;
    let oracle = a.store.oracle_over(source.clone(), true)?;
    let g = height_at_latlon(&oracle, a.lat, a.lon, a.level);
    let (tile, s, t) = locate(latlon_to_dir(a.lat, a.lon), a.level);
    let water = &source.water;
    let mask = match (water, water.water_at(&source.etopo, a.lat, a.lon)) {
        (WaterMap::BelowDatum, Water::Land) => "land (no mask: the below-datum rule)".to_string(),
        (WaterMap::BelowDatum, _) => "ocean (no mask: the below-datum rule)".to_string(),
        (WaterMap::Mask(_), Water::Lake { level_m }) => format!("lake at {level_m:.1} m"),
        (WaterMap::Mask(_), Water::Ocean) => "ocean".to_string(),
        (WaterMap::Mask(_), Water::Land) => "land".to_string(),
    };
    let name = match water {
        WaterMap::Mask(m) => m.lake_at(a.lat, a.lon).map(|l| match l.source {
            LakeLevel::Named(n) => format!(" ({n})"),
            LakeLevel::Shore => " (level from its shore)".to_string(),
        }),
        WaterMap::BelowDatum => None,
    };
    println!(
        "lat {:.6} lon {:.6} level {}: {:.2} m {} (tile {tile}, texel {s:.2},{t:.2}); \
         water mask: {mask}{}",
        a.lat,
        a.lon,
        a.level,
        g.height_m,
        if g.water { "water" } else { "land" },
        name.unwrap_or_default()
    );
    // The field the shading reads (made once, about a second, and kept in the data directory).
    let climate = Climate::cached(&source, Some(&a.store.data_dir()));
    let (wet, region) = (
        climate.wetness(a.lat, a.lon),
        climate.region_height(a.lat, a.lon),
    );
    println!(
        "climate: wetness {wet:.2}, the region's mean height {region:.0} m, snow line {:.0} m",
        snow_line_m(a.lat, wet, region)
    );
    Ok(())
}
