//! A climate beyond latitude: a global wetness field (0 arid … 1 wet) on a 0.5° latitude/
//! longitude grid, from the ground's heights (ETOPO5) and what is water (the shoreline mask,
//! or the sign of the reconstruction without one). Moisture is carried from the sea along
//! prevailing winds by latitude band, rained out over land with distance and by the ascent
//! over mountain ranges upwind, and precipitated where the large-scale flow lets it: the
//! subtropical subsidence belt dries the trade-wind regime, and a summer-monsoon regime (flow
//! from the equator side and the east, 2°–50°) wets the east and south coasts the subsidence
//! would dry. The wetter of the two regimes is the climate (docs/look.md, "The climate").
//!
//! Deterministic; made at the first start (≈ 1 s on two cores) and kept in the data directory
//! ([`Climate::cached`]); `shade.terrain` reads the grid bilinearly
//! (`shaders/common/climate.glsl`) in the same node layout as [`Climate::wetness`].

use super::amplify::smoothstep;
use super::derive::Source;
use super::water::WaterMap;

/// Grid columns: longitude −180° + 0.5°·i, wrapping.
pub const CLIMATE_NLON: usize = 720;
/// Grid rows: latitude −90° + 0.5°·j, both poles included (each pole row is one value).
pub const CLIMATE_NLAT: usize = 361;
/// Degrees between grid nodes.
pub const CLIMATE_STEP_DEG: f64 = 0.5;

/// km per degree of latitude on the 6,371 km sphere.
const KM_PER_DEG: f64 = 111.195;
/// Length of one step of a back trajectory, km (about one grid cell).
const STEP_KM: f64 = 50.0;
/// Longest back trajectory, km: air this far inland has lost its sea moisture anyway.
const MAX_PATH_KM: f64 = 6000.0;
/// Open sea upwind for this far: the air is saturated, the trace stops.
const SEA_FETCH_STOP_KM: f64 = 1500.0;
/// e-folding fetch over which the sea brings dry air back to saturation, km (evaporation:
/// a gulf 200 km across refills continental air to about a third).
const SEA_FETCH_KM: f64 = 500.0;
/// e-folding distance of rain-out over land, km, outside the tropics (precipitation
/// recycling over wet forest lengthens it; observed continental decay 1,000–2,000 km).
const LAND_DECAY_KM: f64 = 1500.0;
/// Extra factor on the decay length within 10°–20° of the equator (evapotranspiration
/// recycling over the rain forest: the Amazon carries Atlantic moisture 3,000 km inland and
/// stays wet: an e-folding of 5,250 km there).
const TROPICAL_RECYCLING: f64 = 2.5;
/// Extra factor on the decay length poleward of 35°–50° (the storm tracks carry the oceans'
/// moisture deep into the continents — Moscow, Siberia, the Great Plains — and the cold land
/// needs less of it: an e-folding of 3,750 km there).
const STORM_TRACK_REACH: f64 = 1.5;
/// e-folding ascent of orographic rain-out, m: air lifted 1 km over a range upwind keeps
/// e^(−1) of its moisture (water vapour's scale height is ≈ 2 km, and windward slopes rain
/// out more than the saturation drop alone).
const RAIN_OUT_ASCENT_M: f64 = 1000.0;
/// The last stretch of a trajectory, km, whose ascent does not dry the point: the windward
/// slope itself is where the lifted air rains.
const WINDWARD_KM: f64 = 200.0;
/// Moisture of air whose trajectory never reaches the sea (continental air).
const CONTINENTAL_Q: f64 = 0.15;
/// Wetness per unit of moisture and precipitation efficiency.
const GAIN: f64 = 1.25;

/// Wetness of the latitude belt from sin²(latitude): wet tropics, dry subtropics near 28°,
/// wet mid-latitudes, dry poles — the old latitude-only climate, kept as the precipitation
/// efficiency's shape, as the field without Earth data, and as the amplifier's wetness
/// (`amplify.rs`, mirrored by `shaders/common/amplify_detail.glsl`).
pub fn wet_belt(z2: f64) -> f64 {
    1.0 - 0.85 * smoothstep(0.0, 0.22, z2) + 0.65 * smoothstep(0.22, 0.6, z2)
        - 0.45 * smoothstep(0.75, 1.0, z2)
}

/// The climate's grids, each `CLIMATE_NLAT` rows (south → north) of `CLIMATE_NLON` values.
#[derive(Clone)]
pub struct Climate {
    /// Wetness, 0 arid … 1 wet.
    pub wet: Vec<f32>,
    /// The region's mean ground height above the datum, m (the sea counted as 0), over about
    /// 50 km: what warms the air over high ground (the mass-elevation effect of
    /// `shaders/common/material.glsl`, [`snow_line_m`]).
    pub region_h: Vec<f32>,
}

/// Direction the prevailing wind blows toward (east, north), unnormalised: trade easterlies
/// (blowing toward the west and the equator) below 30°, westerlies (toward the east) 30°–60°, polar easterlies beyond, blended over ±6° at the band edges.
fn prevailing_wind(lat: f64) -> (f64, f64) {
    let a = lat.abs();
    let s = lat.signum();
    // The trades turn easterly where those of the two hemispheres meet (the ITCZ).
    let trade = (-1.0, -0.35 * s * smoothstep(0.0, 15.0, a));
    let west = (1.0, 0.0);
    let polar = (-1.0, -0.2 * s);
    let t1 = smoothstep(24.0, 36.0, a);
    let t2 = smoothstep(54.0, 66.0, a);
    let mix = |p: (f64, f64), q: (f64, f64), t: f64| (p.0 + (q.0 - p.0) * t, p.1 + (q.1 - p.1) * t);
    mix(mix(trade, west, t1), polar, t2)
}

fn from_north(_: f64) -> (f64, f64) {
    (0.0, -1.0)
}
fn from_south(_: f64) -> (f64, f64) {
    (0.0, 1.0)
}
fn from_east(_: f64) -> (f64, f64) {
    (-1.0, 0.0)
}
fn from_west(_: f64) -> (f64, f64) {
    (1.0, 0.0)
}

/// What the storms' meridional moisture flux brings, relative to the mean westerly flow.
const STORM_EDDY: f64 = 1.0;

/// Rain needed for plant cover, relative to a warm climate's: cold land evaporates less
/// (Köppen's dryness threshold grows with mean temperature, 20 T + 140–280 mm), so the same
/// rain waters more. `T` is the sea-level temperature of the latitude (`28 − 42 z²` °C): 1 at
/// 8 °C and warmer (≈ 45°), falling to 0.35 at −6.3 °C (≈ 65°).
fn cold_need(lat: f64) -> f64 {
    let t = 28.0 - 42.0 * lat.to_radians().sin().powi(2);
    ((t + 14.0) / 22.0).clamp(0.35, 1.0)
}

/// Direction of the summer monsoon's flow (east, north): onshore from the equator side and
/// the east (south-easterly in the northern summer, north-easterly in the southern): the
/// flow round the western flank of the subtropical highs onto the east and south coasts.
fn monsoon_wind(lat: f64) -> (f64, f64) {
    (-0.5, lat.signum())
}

/// Precipitation efficiency of the trade-wind/westerly regime: the latitude belt (subsidence
/// near 28°), raised so that air straight off the sea still rains on a coast in the dry belt
/// (the humid subtropical east coasts get their winter rain that way).
fn efficiency_prevailing(lat: f64) -> f64 {
    let z2 = lat.to_radians().sin().powi(2);
    0.35 + 0.65 * wet_belt(z2)
}

/// Precipitation efficiency of the summer-monsoon regime: full from 8° of latitude, fading to
/// nothing by 2°, and poleward from 35° to 50° in the north (the big northern continents'
/// summer heating draws the East Asian monsoon to Manchuria and the Gulf of Mexico's low-level
/// jet over the Great Plains) but from 30° to 42° in the south, whose land is narrow there.
fn efficiency_monsoon(lat: f64) -> f64 {
    let a = lat.abs();
    let fade = if lat > 0.0 {
        smoothstep(35.0, 50.0, a)
    } else {
        smoothstep(30.0, 42.0, a)
    };
    smoothstep(2.0, 8.0, a) * (1.0 - fade)
}

/// Ground quantities per grid node: fraction of water, mean land height (m, ≥ 0).
pub(crate) struct Ground {
    water: Vec<f32>,
    height: Vec<f32>,
    /// Per row: degrees of longitude per km east, and the fraction of its moisture air keeps
    /// over one step of land (the decay length of the row's latitude).
    km_to_lon: Vec<f64>,
    land_keep: Vec<f64>,
    /// The water fraction averaged over ±1.5° (7 × 7 nodes): what refills the air. A
    /// trajectory is one line, and an inland sea crossed by it would otherwise send a plume
    /// of its full width 2,000 km downwind with sharp edges; air mixes sideways, so a narrow
    /// sea moistens less and its plume spreads.
    fetch: Vec<f32>,
}

impl Ground {
    pub(crate) fn of(src: &Source) -> Ground {
        let e = &src.etopo;
        let n = CLIMATE_NLAT * CLIMATE_NLON;
        let (mut water, mut height) = (vec![0f32; n], vec![0f32; n]);
        // ETOPO nodes within ±0.25° of a grid node (6 × 6 at 5′), and the mask at 3 × 3
        // points of the same square when there is one.
        let half = (0.5 * CLIMATE_STEP_DEG / e.dlat).round().max(1.0) as i64;
        for j in 0..CLIMATE_NLAT {
            let lat = -90.0 + CLIMATE_STEP_DEG * j as f64;
            for i in 0..CLIMATE_NLON {
                let lon = -180.0 + CLIMATE_STEP_DEG * i as f64;
                let (r, c) = e.grid_pos(lat, lon);
                let (r, c) = (r.round() as i64, c.round() as i64);
                let (mut sum, mut wet, mut count) = (0.0f64, 0usize, 0usize);
                for dr in -half..half {
                    for dc in -half..half {
                        let h = e.node(r + dr, c + dc) as f64;
                        sum += h.max(0.0);
                        wet += (h < 0.0) as usize;
                        count += 1;
                    }
                }
                let k = j * CLIMATE_NLON + i;
                height[k] = (sum / count as f64) as f32;
                water[k] = match &src.water {
                    WaterMap::Mask(m) => {
                        let mut w = 0;
                        for a in [-1.0, 0.0, 1.0] {
                            for b in [-1.0, 0.0, 1.0] {
                                let d = CLIMATE_STEP_DEG / 3.0;
                                let p = (lat + a * d).clamp(-90.0, 90.0);
                                w += m.water_at(p, lon + b * d).is_water() as usize;
                            }
                        }
                        w as f32 / 9.0
                    }
                    WaterMap::BelowDatum => wet as f32 / count as f32,
                };
            }
        }
        let lats = (0..CLIMATE_NLAT).map(|j| -90.0 + CLIMATE_STEP_DEG * j as f64);
        let km_to_lon = lats
            .clone()
            .map(|lat: f64| 1.0 / (KM_PER_DEG * lat.to_radians().cos().max(0.1)))
            .collect();
        let land_keep = lats
            .map(|lat: f64| {
                let tropics = 1.0 - smoothstep(10.0, 20.0, lat.abs());
                let storms = smoothstep(35.0, 50.0, lat.abs());
                let decay = LAND_DECAY_KM
                    * (1.0 + TROPICAL_RECYCLING * tropics + STORM_TRACK_REACH * storms);
                (-STEP_KM / decay).exp()
            })
            .collect();
        let fetch = box_mean(&water, 3);
        Ground {
            water,
            height,
            km_to_lon,
            land_keep,
            fetch,
        }
    }
}

fn node_index(lat: f64, lon: f64) -> usize {
    let j = (((lat + 90.0) / CLIMATE_STEP_DEG).round() as i64).clamp(0, CLIMATE_NLAT as i64 - 1);
    let i = (((lon + 180.0) / CLIMATE_STEP_DEG).round() as i64).rem_euclid(CLIMATE_NLON as i64);
    j as usize * CLIMATE_NLON + i as usize
}

/// Moisture (0 … 1) of the air arriving at (lat, lon) along the wind `wind(lat)`: traced
/// back step by step until the sea has been upwind for `SEA_FETCH_STOP_KM` (saturated air)
/// or the path is `MAX_PATH_KM` long (continental air), then carried forward: refilled over
/// water, rained out over land with distance and by every ascent except on the last
/// `WINDWARD_KM` (the windward slope where that rain falls).
pub(crate) fn moisture(g: &Ground, lat: f64, lon: f64, wind: fn(f64) -> (f64, f64)) -> f64 {
    const MAX_STEPS: usize = (MAX_PATH_KM / STEP_KM) as usize + 1;
    let mut path = [0u32; MAX_STEPS];
    let mut n = 0;
    let (mut la, mut lo) = (lat, lon);
    let mut sea_run = 0.0;
    let mut start_q = CONTINENTAL_Q;
    while n < MAX_STEPS {
        let k = node_index(la, lo);
        path[n] = k as u32;
        n += 1;
        sea_run = if g.water[k] > 0.5 {
            sea_run + STEP_KM
        } else {
            0.0
        };
        if sea_run >= SEA_FETCH_STOP_KM {
            start_q = 1.0;
            break;
        }
        let (ve, vn) = wind(la);
        let len = (ve * ve + vn * vn).sqrt().max(1e-9);
        // One step upwind.
        let (de, dn) = (-ve / len * STEP_KM, -vn / len * STEP_KM);
        la += dn / KM_PER_DEG;
        lo += de * g.km_to_lon[k / CLIMATE_NLON];
        if la.abs() > 89.0 {
            break;
        }
    }
    let refill = 1.0 - (-STEP_KM / SEA_FETCH_KM).exp();
    let mut q = start_q;
    // The highest ground the air has crossed since it last left the sea: lifting past it
    // condenses (the saturation ceiling falls with height), bumps below it do not.
    let mut crest = 0.0f32;
    for (step, &k) in path[..n].iter().enumerate().rev() {
        let k = k as usize;
        let (w, h) = (g.fetch[k], g.height[k]);
        let keep = g.land_keep[k / CLIMATE_NLON];
        if w > 0.0 {
            q += w as f64 * (1.0 - q) * refill;
        }
        if w == 0.0 {
            q *= keep;
        } else if w < 1.0 {
            q *= keep.powf(1.0 - w as f64);
        }
        if w > 0.5 {
            crest = 0.0;
        } else if h > crest {
            if step as f64 * STEP_KM > WINDWARD_KM {
                q *= (-((h - crest) as f64) / RAIN_OUT_ASCENT_M).exp();
            }
            crest = h;
        }
    }
    q
}

/// Bump when the model changes: the cached field's file name carries it.
pub const CLIMATE_VERSION: u32 = 2;
const CACHE_MAGIC: &[u8; 8] = b"PFCLIMAT";

impl Climate {
    /// The field of `src`, read from the data directory `dir` when it holds it (made and
    /// written there otherwise): `DATA/climate-v{CLIMATE_VERSION}.f32`, or under `DATA/gshhg/`
    /// for a source with the water mask (as the tiles are kept apart). A file that does not
    /// check out (size, header, CRC-32 of the values) is made again; a failure to write is
    /// logged and the field used all the same.
    pub fn cached(src: &Source, dir: Option<&std::path::Path>) -> Climate {
        let Some(dir) = dir else {
            return Climate::of(src);
        };
        if let Some(c) = Climate::read_cached(src, Some(dir)) {
            return c;
        }
        let path = Climate::cache_path(src, dir);
        let dir = path.parent().unwrap_or(dir);
        let c = Climate::of(src);
        let tmp = dir.join(format!(
            "climate-v{CLIMATE_VERSION}.f32.{}",
            std::process::id()
        ));
        let written = std::fs::create_dir_all(dir)
            .and_then(|_| std::fs::write(&tmp, c.encode()))
            .and_then(|_| std::fs::rename(&tmp, &path));
        if let Err(e) = written {
            let _ = std::fs::remove_file(&tmp);
            log::warn!("climate field not cached at {}: {e}", path.display());
        }
        c
    }

    /// The field of `src` from the data directory `dir`, if it holds a good one (no work
    /// otherwise: see [`Climate::cached`]).
    pub fn read_cached(src: &Source, dir: Option<&std::path::Path>) -> Option<Climate> {
        let path = Climate::cache_path(src, dir?);
        std::fs::read(path).ok().and_then(|b| Climate::decode(&b))
    }

    fn cache_path(src: &Source, dir: &std::path::Path) -> std::path::PathBuf {
        let dir = if src.has_water_mask() {
            dir.join("gshhg")
        } else {
            dir.to_path_buf()
        };
        dir.join(format!("climate-v{CLIMATE_VERSION}.f32"))
    }

    /// The grids as the GPU reads them (`shaders/common/climate.glsl`): the wetness, then the
    /// region's height.
    pub fn values(&self) -> Vec<f32> {
        [&self.wet[..], &self.region_h[..]].concat()
    }

    /// The cache file's bytes: magic, columns and rows (u32 LE), the values of
    /// [`Climate::values`] (f32 LE), the CRC-32 of the values' bytes.
    pub fn encode(&self) -> Vec<u8> {
        let v = self.values();
        let values: &[u8] = bytemuck::cast_slice(&v);
        let mut b = Vec::with_capacity(values.len() + 20);
        b.extend_from_slice(CACHE_MAGIC);
        b.extend_from_slice(&(CLIMATE_NLON as u32).to_le_bytes());
        b.extend_from_slice(&(CLIMATE_NLAT as u32).to_le_bytes());
        b.extend_from_slice(values);
        b.extend_from_slice(&crc32fast::hash(values).to_le_bytes());
        b
    }

    /// The field from [`Climate::encode`]'s bytes, if they check out.
    pub fn decode(b: &[u8]) -> Option<Climate> {
        let n = CLIMATE_NLON * CLIMATE_NLAT;
        if b.len() != 16 + 8 * n + 4 || &b[..8] != CACHE_MAGIC {
            return None;
        }
        let dims = [&b[8..12], &b[12..16]].map(|d| u32::from_le_bytes(d.try_into().unwrap()));
        if dims != [CLIMATE_NLON as u32, CLIMATE_NLAT as u32] {
            return None;
        }
        let values = &b[16..16 + 8 * n];
        let crc = u32::from_le_bytes(b[16 + 8 * n..].try_into().unwrap());
        if crc32fast::hash(values) != crc {
            return None;
        }
        let mut v: Vec<f32> = values
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        let region_h = v.split_off(n);
        Some(Climate { wet: v, region_h })
    }

    /// The latitude belt alone (no Earth data: the analytic planet).
    pub fn latitude_belt() -> Climate {
        let mut wet = vec![0f32; CLIMATE_NLAT * CLIMATE_NLON];
        for j in 0..CLIMATE_NLAT {
            let lat = (-90.0 + CLIMATE_STEP_DEG * j as f64).to_radians();
            let v = wet_belt(lat.sin().powi(2)) as f32;
            wet[j * CLIMATE_NLON..(j + 1) * CLIMATE_NLON].fill(v);
        }
        // No ground: no region warms its air.
        let region_h = vec![0f32; wet.len()];
        Climate { wet, region_h }
    }

    /// The field over the Earth of `src`.
    pub fn of(src: &Source) -> Climate {
        let g = Ground::of(src);
        let n = CLIMATE_NLAT * CLIMATE_NLON;
        // Only nodes with some land within five nodes are drawn (the bilinear read, the coast's
        // fill and the smoothing reach that far): the open sea, 70 % of the grid, keeps the
        // latitude belt without tracing a trajectory.
        let near_land = near_land(&g.water);
        // Per node the moisture of each regime's air: the prevailing winds' (with the
        // doldrums'), the storms' from the equator side, the monsoon's.
        let row = |j: usize| -> Vec<[f32; 3]> {
            let lat = -90.0 + CLIMATE_STEP_DEG * j as f64;
            (0..CLIMATE_NLON)
                .map(|i| {
                    if !near_land[j * CLIMATE_NLON + i] {
                        return [0.0; 3];
                    }
                    let lon = -180.0 + CLIMATE_STEP_DEG * i as f64;
                    let mut qa = moisture(&g, lat, lon, prevailing_wind);
                    // In the doldrums the trades of both hemispheres converge and air comes
                    // from every side (the Congo's moisture from the Atlantic).
                    let itcz = 1.0 - smoothstep(5.0, 10.0, lat.abs());
                    if itcz > 0.0 {
                        for wind in [from_north, from_south, from_east, from_west] {
                            qa = qa.max(itcz * moisture(&g, lat, lon, wind));
                        }
                    }
                    // Poleward of 30°–40° the storms of the westerlies also draw moist air from
                    // the equator side (the Gulf of Mexico's into the eastern US, the Black
                    // Sea's and the Mediterranean's into Russia).
                    let qe = if lat.abs() > 30.0 {
                        let side = if lat > 0.0 { from_south } else { from_north };
                        moisture(&g, lat, lon, side)
                    } else {
                        0.0
                    };
                    let qm = if efficiency_monsoon(lat) > 0.0 {
                        moisture(&g, lat, lon, monsoon_wind)
                    } else {
                        0.0
                    };
                    [qa as f32, qe as f32, qm as f32]
                })
                .collect()
        };
        // Rows in interleaved chunks over the cores (each row's cost depends on its land).
        let threads = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(16);
        let mut rows: Vec<Vec<[f32; 3]>> = vec![Vec::new(); CLIMATE_NLAT];
        std::thread::scope(|s| {
            let handles: Vec<_> = (0..threads)
                .map(|t| {
                    let row = &row;
                    s.spawn(move || {
                        (t..CLIMATE_NLAT)
                            .step_by(threads)
                            .map(|j| (j, row(j)))
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            for h in handles {
                for (j, r) in h.join().expect("climate worker") {
                    rows[j] = r;
                }
            }
        });
        let q: Vec<[f32; 3]> = rows.concat();
        debug_assert_eq!(q.len(), n);
        // Storms are a thousand kilometres across: the moisture they draw from the equator
        // side spreads sideways (one trajectory per node would draw each inland sea's plume
        // as a sharp stripe 2,000 km long): two passes of a ±2° box.
        let qe: Vec<f32> = q.iter().map(|v| v[1]).collect();
        let qe = box_mean(&box_mean(&qe, 4), 4);
        // Poleward of 45°–55° the storms spread the mean flow's and the monsoon's moisture
        // the same way (the Baltic's and the Caspian's plumes over Russia).
        let qa: Vec<f32> = q.iter().map(|v| v[0]).collect();
        let qa_wide = box_mean(&box_mean(&qa, 4), 4);
        let qm: Vec<f32> = q.iter().map(|v| v[2]).collect();
        let qm_wide = box_mean(&box_mean(&qm, 4), 4);
        let mut wet: Vec<f32> = (0..n)
            .map(|k| {
                let lat = -90.0 + CLIMATE_STEP_DEG * (k / CLIMATE_NLON) as f64;
                if !near_land[k] {
                    return wet_belt(lat.to_radians().sin().powi(2)) as f32;
                }
                let eddies = STORM_EDDY * smoothstep(30.0, 40.0, lat.abs());
                let storms = smoothstep(45.0, 55.0, lat.abs());
                let qa = qa[k] as f64 + (qa_wide[k] as f64 - qa[k] as f64) * storms;
                let qm = qm[k] as f64 + (qm_wide[k] as f64 - qm[k] as f64) * storms;
                let qa = qa.max(eddies * qe[k] as f64);
                let a = qa * efficiency_prevailing(lat) / cold_need(lat);
                let b = qm * efficiency_monsoon(lat);
                (GAIN * a.max(b)).clamp(0.0, 1.0) as f32
            })
            .collect();
        // Water nodes take their land neighbours' mean, so a coast blends land into land.
        let filled: Vec<f32> = (0..n)
            .map(|k| {
                if g.water[k] < 0.5 {
                    return wet[k];
                }
                let (j, i) = ((k / CLIMATE_NLON) as i64, (k % CLIMATE_NLON) as i64);
                let (mut s, mut c) = (0.0f32, 0u32);
                for dj in -1..=1 {
                    for di in -1..=1 {
                        let jj = (j + dj).clamp(0, CLIMATE_NLAT as i64 - 1) as usize;
                        let ii = (i + di).rem_euclid(CLIMATE_NLON as i64) as usize;
                        let kk = jj * CLIMATE_NLON + ii;
                        if g.water[kk] < 0.5 {
                            s += wet[kk];
                            c += 1;
                        }
                    }
                }
                if c > 0 {
                    s / c as f32
                } else {
                    wet[k]
                }
            })
            .collect();
        // Two binomial passes (σ ≈ 1 node, 55 km): neighbouring trajectories mix.
        wet = filled;
        for _ in 0..2 {
            wet = smooth(&wet);
        }
        pole_rows_to_points(&mut wet);
        // The mean height over each node's 0.5° square and one binomial pass (about 50 km
        // across): the scale over which a massif warms its air, not the peaks' own heights.
        let mut region_h = smooth(&g.height);
        pole_rows_to_points(&mut region_h);
        Climate { wet, region_h }
    }

    /// Wetness at (lat, lon), degrees: bilinear between the grid's nodes, longitude wrapping
    /// (`shaders/common/climate.glsl` reads the grid the same way).
    pub fn wetness(&self, lat: f64, lon: f64) -> f64 {
        bilinear(&self.wet, lat, lon)
    }

    /// The region's mean height at (lat, lon), m, read as [`Climate::wetness`] reads its grid.
    pub fn region_height(&self, lat: f64, lon: f64) -> f64 {
        bilinear(&self.region_h, lat, lon)
    }
}

/// Height above the datum (m) of the snow line that `shade.terrain` draws at latitude `lat`
/// (degrees), wetness `wet` and the region's mean height `region_h` (m) on level ground: where
/// the material's temperature meets its permanent-snow threshold and half the ground is snow
/// (`terrain_material` in `shaders/common/material.glsl`, whose constants these mirror; the
/// blend spans ± 2 °C, ≈ ± 300 m, around it). For tools and tests: the shading does not call it.
pub fn snow_line_m(lat: f64, wet: f64, region_h: f64) -> f64 {
    const LAPSE_C_PER_M: f64 = 0.0065;
    const MASS_ELEVATION_C_PER_M: f64 = 0.0012;
    const SNOW_C: f64 = -10.0;
    const SNOW_TROPICS_C: f64 = -1.0;
    const SNOW_ARID_C: f64 = 6.0;
    let z2 = lat.to_radians().sin().powi(2);
    let polar = smoothstep(0.75, 0.90, z2);
    let seasonal = smoothstep(0.0, 0.15, z2);
    let arid = 1.0 - smoothstep(0.30, 0.60, wet);
    let snow_c =
        SNOW_TROPICS_C + (SNOW_C - SNOW_TROPICS_C) * seasonal - SNOW_ARID_C * arid * (1.0 - polar);
    let sea_level_c = 28.0 - 42.0 * z2 + MASS_ELEVATION_C_PER_M * region_h.max(0.0) * (1.0 - polar);
    (sea_level_c - snow_c) / LAPSE_C_PER_M
}

/// Each pole is one point: its row of `grid` takes the row's mean.
fn pole_rows_to_points(grid: &mut [f32]) {
    for j in [0, CLIMATE_NLAT - 1] {
        let row = &mut grid[j * CLIMATE_NLON..(j + 1) * CLIMATE_NLON];
        let mean = row.iter().map(|&v| v as f64).sum::<f64>() / CLIMATE_NLON as f64;
        row.fill(mean as f32);
    }
}

/// A grid of [`Climate`] at (lat, lon), degrees: bilinear between the nodes, longitude
/// wrapping.
fn bilinear(grid: &[f32], lat: f64, lon: f64) -> f64 {
    let y = ((lat + 90.0) / CLIMATE_STEP_DEG).clamp(0.0, (CLIMATE_NLAT - 1) as f64);
    let x = (lon + 180.0) / CLIMATE_STEP_DEG;
    let (j0, i0) = (y.floor().min((CLIMATE_NLAT - 2) as f64), x.floor());
    let (fy, fx) = (y - j0, x - i0);
    let (j0, i0) = (j0 as usize, i0 as i64);
    let at = |j: usize, i: i64| {
        grid[j * CLIMATE_NLON + i.rem_euclid(CLIMATE_NLON as i64) as usize] as f64
    };
    let lo = at(j0, i0) * (1.0 - fx) + at(j0, i0 + 1) * fx;
    let hi = at(j0 + 1, i0) * (1.0 - fx) + at(j0 + 1, i0 + 1) * fx;
    lo * (1.0 - fy) + hi * fy
}

/// The mean over the (2r + 1)² nodes around each node, longitude wrapping, rows clamped.
fn box_mean(v: &[f32], r: i64) -> Vec<f32> {
    let (nj, ni) = (CLIMATE_NLAT as i64, CLIMATE_NLON as i64);
    let at = |j: i64, i: i64| v[(j.clamp(0, nj - 1) * ni + i.rem_euclid(ni)) as usize];
    // Separable: along rows, then along columns.
    let mut rows = vec![0f32; v.len()];
    for j in 0..nj {
        for i in 0..ni {
            rows[(j * ni + i) as usize] = (-r..=r).map(|d| at(j, i + d)).sum::<f32>();
        }
    }
    let at = |j: i64, i: i64| rows[(j.clamp(0, nj - 1) * ni + i.rem_euclid(ni)) as usize];
    let n = ((2 * r + 1) * (2 * r + 1)) as f32;
    (0..nj)
        .flat_map(|j| (0..ni).map(move |i| (j, i)))
        .map(|(j, i)| (-r..=r).map(|d| at(j + d, i)).sum::<f32>() / n)
        .collect()
}

/// Whether any node within five rows and columns holds land.
fn near_land(water: &[f32]) -> Vec<bool> {
    let (nj, ni) = (CLIMATE_NLAT as i64, CLIMATE_NLON as i64);
    let land = |j: i64, i: i64| water[(j.clamp(0, nj - 1) * ni + i.rem_euclid(ni)) as usize] < 1.0;
    let mut out = vec![false; water.len()];
    for j in 0..nj {
        for i in 0..ni {
            out[(j * ni + i) as usize] = (-5..=5).any(|dj| (-5..=5).any(|di| land(j + dj, i + di)));
        }
    }
    out
}

/// One pass of the 3 × 3 binomial filter (1 2 1)², longitude wrapping, rows clamped.
fn smooth(v: &[f32]) -> Vec<f32> {
    let (nj, ni) = (CLIMATE_NLAT as i64, CLIMATE_NLON as i64);
    let at = |j: i64, i: i64| v[(j.clamp(0, nj - 1) * ni + i.rem_euclid(ni)) as usize];
    let mut out = vec![0f32; v.len()];
    for j in 0..nj {
        for i in 0..ni {
            let mut s = 0.0;
            for (dj, wj) in [(-1, 1.0), (0, 2.0), (1, 1.0)] {
                for (di, wi) in [(-1, 1.0), (0, 2.0), (1, 1.0)] {
                    s += wj * wi * at(j + dj, i + di);
                }
            }
            out[(j * ni + i) as usize] = s / 16.0;
        }
    }
    out
}

#[cfg(test)]
#[path = "climate_tests.rs"]
mod tests;
