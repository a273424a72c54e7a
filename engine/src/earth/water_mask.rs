//! The water mask as data: GMT's cells read from the grid file, the lakes labelled as connected
//! components and levelled, and the coastline reconstructed from the cells by a cubic. Kept
//! apart from `water.rs` (which finds the mask file, has GMT build it and falls back without
//! one): this is what the tiles ask of a mask once there is one.

use super::coast::{catmull_rom, Shore};
use super::etopo::Etopo;
use super::lakes::{LakeLevel, NAMED_LAKES};
use super::water::{Water, WaterError};
use std::path::Path;

/// GMT's `grdlandmask -N` values, one byte per cell: ocean / land / lake / island in a lake /
/// pond in an island. Islands are land; ponds are lakes like any other.
const OCEAN: u8 = 0;
const LAKE: u8 = 2;
const POND: u8 = 4;
pub(super) const N_VALUES: &str = "0/1/2/3/4";

/// Size of the header of a GMT native grid (`=bb`): 3 i32, 10 f64, then text fields.
const GMT_HEADER: usize = 892;

/// One connected lake (4-neighbour cells, longitude wrapping).
#[derive(Clone, Debug, PartialEq)]
pub struct Lake {
    /// Surface level, metres above the datum.
    pub level_m: f64,
    /// Where the level came from.
    pub source: LakeLevel,
    /// The shore rule's level (the level too unless the lake is named), metres.
    pub shore_m: f64,
    /// Mask cells it covers.
    pub cells: u32,
}

/// The rasterised mask with its lakes labelled and levelled.
pub struct WaterMask {
    /// Cells per row (longitude) and rows (latitude); cell (c, r) is centred at
    /// lon = −180° + (c + ½)·d, lat = 90° − (r + ½)·d, d = 360°/nx (rows north → south).
    nx: usize,
    ny: usize,
    class: Vec<u8>,
    /// Sorted cell indices of lake cells, and the lake each belongs to.
    lake_cells: Vec<u32>,
    lake_of: Vec<u32>,
    pub lakes: Vec<Lake>,
}

impl WaterMask {
    /// Reads a GMT native byte grid (`=bb`) as `build_mask` writes it, then labels and levels
    /// its lakes over `etopo`.
    pub fn load(path: &Path, etopo: &Etopo) -> Result<WaterMask, WaterError> {
        let bytes = std::fs::read(path).map_err(|err| WaterError::Io {
            path: path.to_path_buf(),
            err,
        })?;
        let bad = |what: String| WaterError::Format {
            path: path.to_path_buf(),
            what,
        };
        if bytes.len() < GMT_HEADER {
            return Err(bad(format!("{} bytes, shorter than a header", bytes.len())));
        }
        let i32_at = |k: usize| i32::from_le_bytes(bytes[4 * k..4 * k + 4].try_into().unwrap());
        let f64_at = |k: usize| {
            let o = 12 + 8 * k;
            f64::from_le_bytes(bytes[o..o + 8].try_into().unwrap())
        };
        let (nx, ny, reg) = (i32_at(0), i32_at(1), i32_at(2));
        let bounds = [f64_at(0), f64_at(1), f64_at(2), f64_at(3)];
        if nx <= 0 || ny <= 0 || nx != 2 * ny || reg != 1 || bounds != [-180.0, 180.0, -90.0, 90.0]
        {
            return Err(bad(format!(
                "want a global pixel-registered grid (−180..180, −90..90, nx = 2·ny); found \
                 {nx}×{ny}, registration {reg}, bounds {bounds:?}"
            )));
        }
        let (nx, ny) = (nx as usize, ny as usize);
        if bytes.len() != GMT_HEADER + nx * ny {
            return Err(bad(format!(
                "{} bytes, want {} for {nx}×{ny} (truncated?)",
                bytes.len(),
                GMT_HEADER + nx * ny
            )));
        }
        let class = bytes[GMT_HEADER..].to_vec();
        if let Some(v) = class.iter().find(|&&v| v > POND) {
            return Err(bad(format!("cell value {v} is not one of {N_VALUES}")));
        }
        Ok(WaterMask::from_cells(nx, ny, class, etopo))
    }

    /// A mask from its cells (values as `grdlandmask -N0/1/2/3/4`), rows north → south.
    pub fn from_cells(nx: usize, ny: usize, class: Vec<u8>, etopo: &Etopo) -> WaterMask {
        assert_eq!(class.len(), nx * ny);
        let lake_cells: Vec<u32> = (0..class.len() as u32)
            .filter(|&k| matches!(class[k as usize], LAKE | POND))
            .collect();
        let mut m = WaterMask {
            nx,
            ny,
            class,
            lake_of: vec![u32::MAX; lake_cells.len()],
            lake_cells,
            lakes: Vec::new(),
        };
        let shores = m.label_lakes();
        m.level_lakes(&shores, etopo);
        m
    }

    /// Cells along a row and rows.
    pub fn size(&self) -> (usize, usize) {
        (self.nx, self.ny)
    }

    fn cell_deg(&self) -> f64 {
        360.0 / self.nx as f64
    }

    /// The cell holding (lat, lon), degrees.
    fn cell(&self, lat: f64, lon: f64) -> usize {
        let d = self.cell_deg();
        let c = ((lon + 180.0) / d).floor().rem_euclid(self.nx as f64) as usize;
        let r = ((90.0 - lat) / d).floor().clamp(0.0, self.ny as f64 - 1.0) as usize;
        r * self.nx + c
    }

    fn centre(&self, k: usize) -> (f64, f64) {
        let d = self.cell_deg();
        let (r, c) = (k / self.nx, k % self.nx);
        (90.0 - (r as f64 + 0.5) * d, -180.0 + (c as f64 + 0.5) * d)
    }

    /// The four neighbours of cell k: east and west wrap, none beyond a pole row.
    fn neighbours(&self, k: usize) -> [Option<usize>; 4] {
        let (nx, ny) = (self.nx, self.ny);
        let (r, c) = (k / nx, k % nx);
        [
            Some(r * nx + (c + nx - 1) % nx),
            Some(r * nx + (c + 1) % nx),
            (r > 0).then(|| k - nx),
            (r + 1 < ny).then(|| k + nx),
        ]
    }

    fn lake_index(&self, k: usize) -> Option<usize> {
        self.lake_cells.binary_search(&(k as u32)).ok()
    }

    /// Labels the lakes (flood fill over lake cells); returns each lake's shore cells (the
    /// non-lake cells next to it, each once per lake).
    fn label_lakes(&mut self) -> Vec<Vec<u32>> {
        let mut shores = Vec::new();
        let mut stack = Vec::new();
        for seed in 0..self.lake_cells.len() {
            if self.lake_of[seed] != u32::MAX {
                continue;
            }
            let id = self.lakes.len() as u32;
            let (mut cells, mut shore) = (0u32, Vec::new());
            self.lake_of[seed] = id;
            stack.push(seed);
            while let Some(i) = stack.pop() {
                cells += 1;
                let k = self.lake_cells[i] as usize;
                for n in self.neighbours(k).into_iter().flatten() {
                    match self.lake_index(n) {
                        Some(j) if self.lake_of[j] == u32::MAX => {
                            self.lake_of[j] = id;
                            stack.push(j);
                        }
                        Some(_) => {}
                        None => shore.push(n as u32),
                    }
                }
            }
            shore.sort_unstable();
            shore.dedup();
            shores.push(shore);
            self.lakes.push(Lake {
                level_m: 0.0,
                shore_m: 0.0,
                source: LakeLevel::Shore,
                cells,
            });
        }
        shores
    }

    /// Every lake's level: the named table's where one of its points lies in the lake, else
    /// the shore's (see [`shore_level`]).
    fn level_lakes(&mut self, shores: &[Vec<u32>], etopo: &Etopo) {
        let levels: Vec<f64> = shores
            .iter()
            .map(|shore| {
                let heights = shore.iter().map(|&k| {
                    let (lat, lon) = self.centre(k as usize);
                    etopo.reconstruct(lat, lon)
                });
                shore_level(heights.collect())
            })
            .collect();
        for (lake, level) in self.lakes.iter_mut().zip(levels) {
            (lake.level_m, lake.shore_m) = (level, level);
        }
        for named in NAMED_LAKES {
            let k = self.cell(named.lat, named.lon);
            if let Some(i) = self.lake_index(k) {
                let lake = &mut self.lakes[self.lake_of[i] as usize];
                lake.level_m = named.level_m;
                lake.source = LakeLevel::Named(named.name);
            } else {
                log::debug!(
                    "water mask: {} ({}, {}) is not in a lake cell",
                    named.name,
                    named.lat,
                    named.lon
                );
            }
        }
    }

    /// The lake holding (lat, lon), if any.
    pub fn lake_at(&self, lat: f64, lon: f64) -> Option<&Lake> {
        let i = self.lake_index(self.cell(lat, lon))?;
        Some(&self.lakes[self.lake_of[i] as usize])
    }

    /// Land, ocean or lake at (lat, lon), degrees: the cell holding the point.
    pub fn water_at(&self, lat: f64, lon: f64) -> Water {
        self.water_of_cell(self.cell(lat, lon))
    }

    /// The coastline reconstructed from the binary mask with a cubic at its native level
    /// (TERRAIN.md §6, "the reconstructed shoreline"): the water indicator (ocean or lake = 1,
    /// land = 0) of the 4×4 cells around the point is interpolated by Catmull-Rom in cell
    /// coordinates, and water is where that is ≥ ½. Read cell by cell, a coast is a staircase
    /// of 3.7 km steps (2′ cells); the interpolant instead draws a smooth curve through the cell
    /// boundaries' midpoints. Being interpolating, it keeps every cell centre's class, so no
    /// one-cell lake, island or strait is lost (a smoothing spline would drop them: a lone
    /// cell peaks at 4/9). The water's kind is that of the nearest water cell of the 16 (its
    /// lake's level for a lake). Also how near the sea and lakes are ([`Shore`]).
    pub fn water_cubic(&self, lat: f64, lon: f64) -> Shore {
        let d = self.cell_deg();
        let x = (lon + 180.0) / d - 0.5;
        let y = (90.0 - lat) / d - 0.5;
        let (ix, iy) = (x.floor(), y.floor());
        let (fx, fy) = (x - ix, y - iy);
        let (ix, iy) = (ix as i64, iy as i64);
        let nx = self.nx as i64;
        let ny = self.ny as i64;
        let cell =
            |i: i64, j: i64| -> usize { (j.clamp(0, ny - 1) * nx + i.rem_euclid(nx)) as usize };
        let first = self.class[cell(ix - 1, iy - 1)];
        let uniform = (0..16).all(|k| self.class[cell(ix - 1 + k % 4, iy - 1 + k / 4)] == first);
        if uniform {
            let water = self.water_of_cell(cell(ix, iy));
            let lake_level = match water {
                Water::Lake { level_m } => Some(level_m),
                _ => None,
            };
            return Shore {
                water,
                sea: if first == OCEAN { 1.0 } else { 0.0 },
                lake: if lake_level.is_some() { 1.0 } else { 0.0 },
                lake_level,
            };
        }
        let (wx, wy) = (catmull_rom(fx), catmull_rom(fy));
        let (mut water, mut sea, mut lake) = (0.0, 0.0, 0.0);
        let mut nearest: Option<(f64, usize)> = None;
        let mut nearest_lake: Option<(f64, usize)> = None;
        for j in 0..4 {
            for i in 0..4 {
                let k = cell(ix - 1 + i, iy - 1 + j);
                let c = self.class[k];
                let w = wx[i as usize] * wy[j as usize];
                let (dx, dy) = ((i - 1) as f64 - fx, (j - 1) as f64 - fy);
                let d2 = dx * dx + dy * dy;
                let closer = |n: Option<(f64, usize)>| n.is_none_or(|(best, _)| d2 < best);
                match c {
                    OCEAN => sea += w,
                    LAKE | POND => {
                        lake += w;
                        if closer(nearest_lake) {
                            nearest_lake = Some((d2, k));
                        }
                    }
                    _ => continue,
                }
                water += w;
                if closer(nearest) {
                    nearest = Some((d2, k));
                }
            }
        }
        let lake_level = nearest_lake.and_then(|(_, k)| match self.water_of_cell(k) {
            Water::Lake { level_m } => Some(level_m),
            _ => None,
        });
        Shore {
            water: match nearest {
                Some((_, k)) if water >= 0.5 => self.water_of_cell(k),
                _ => Water::Land,
            },
            sea: sea.clamp(0.0, 1.0),
            lake: lake.clamp(0.0, 1.0),
            lake_level,
        }
    }

    /// What cell k holds.
    fn water_of_cell(&self, k: usize) -> Water {
        match self.class[k] {
            OCEAN => Water::Ocean,
            LAKE | POND => Water::Lake {
                level_m: self
                    .lake_index(k)
                    .map_or(0.0, |i| self.lakes[self.lake_of[i] as usize].level_m),
            },
            _ => Water::Land,
        }
    }

    /// Centre (lat, lon) of the cell holding a point (for reports).
    pub fn cell_centre(&self, lat: f64, lon: f64) -> (f64, f64) {
        self.centre(self.cell(lat, lon))
    }
}

/// A lake's level from the ground around it: the 10th percentile of the reconstructed heights
/// of its shore cells (the non-lake cells next to it). The lowest shore is about the water's
/// level; a low percentile rather than the minimum keeps a few cells where the 5′ source
/// smooths a gorge, the sea or the lake bed into the shore from sinking the lake. Measured on
/// the 30 named lakes (`tests/tests/earth_water.rs`): median error 9 m, 17 of 30 within
/// 10 m; the 25th percentile and the median do worse, climbing the shore (Tanganyika +80 m
/// and +270 m). The rule fails where ETOPO5 holds the lake's bed under its shore cells
/// (Superior 97 m for 183 m, Ladoga, the Dead Sea) and on steep rift shores (Kivu +190 m):
/// those lakes are named. A lake with no shore (impossible on a globe with land) gets the
/// datum.
pub fn shore_level(mut heights: Vec<f64>) -> f64 {
    if heights.is_empty() {
        return 0.0;
    }
    heights.sort_by(f64::total_cmp);
    heights[(heights.len() - 1) / 10]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 16 × 8 cells of 22.5°, rows north → south, from a picture: '.' ocean, '#' land, 'L'
    /// lake, 'i' island in a lake, 'p' pond.
    fn mask(rows: [&str; 8], h: f32) -> WaterMask {
        let class = rows
            .iter()
            .flat_map(|r| r.bytes())
            .map(|b| match b {
                b'.' => OCEAN,
                b'#' => 1,
                b'L' => LAKE,
                b'i' => 3,
                b'p' => POND,
                _ => panic!("{b}"),
            })
            .collect();
        WaterMask::from_cells(16, 8, class, &Etopo::flat(h))
    }

    /// Centre of cell (row, column) as (lat, lon).
    fn at(r: usize, c: usize) -> (f64, f64) {
        (
            90.0 - (r as f64 + 0.5) * 22.5,
            -180.0 + (c as f64 + 0.5) * 22.5,
        )
    }

    #[test]
    fn lakes_are_connected_components_with_wrap_islands_and_named_levels() {
        let m = mask(
            [
                "................",
                "L##############L",
                "##LLLLL###L#####",
                "##LiiiL#########",
                "##LipiL#L#######",
                "##LiiiL##L######",
                "................",
                "................",
            ],
            250.0,
        );
        // Lakes: the two edge cells joined across the antimeridian; the ring with its island;
        // the pond in the island; the Caspian's cell (row 2, column 10: 42 N, 50.5 E); and the
        // two diagonal cells, which are two lakes (4-neighbour connectivity).
        assert_eq!(m.lakes.len(), 6, "{:?}", m.lakes);
        let lake = |r, c| {
            let (lat, lon) = at(r, c);
            m.lake_at(lat, lon).cloned()
        };
        assert_eq!(lake(1, 0), lake(1, 15));
        assert_eq!(lake(1, 0).unwrap().cells, 2);
        assert_eq!(lake(2, 3).unwrap().cells, 11);
        assert_eq!(lake(4, 4).unwrap().cells, 1, "the pond is its own lake");
        let (lat, lon) = at(3, 4);
        assert_eq!(
            m.water_at(lat, lon),
            Water::Land,
            "an island in a lake is land"
        );
        assert_eq!(m.water_at(89.0, 0.0), Water::Ocean);
        assert_eq!(m.water_at(at(6, 0).0, at(6, 0).1), Water::Ocean);
        assert_eq!(m.water_at(at(5, 0).0, at(5, 0).1), Water::Land);
        let caspian = m.lake_at(42.0, 50.5).unwrap();
        assert_eq!(caspian.source, LakeLevel::Named("Caspian Sea"));
        assert_eq!(m.water_at(42.0, 50.5), Water::Lake { level_m: -28.0 });
        // Lakes with no named point take their shore's level: the flat source's 250 m.
        for (r, c) in [(1, 0), (4, 8), (5, 9)] {
            let (lat, lon) = at(r, c);
            assert_eq!(m.water_at(lat, lon), Water::Lake { level_m: 250.0 });
            assert_eq!(lake(r, c).unwrap().source, LakeLevel::Shore);
        }
        // Longitudes wrap, latitudes clamp to the pole rows.
        assert_eq!(
            m.water_at(at(1, 0).0, at(1, 0).1 + 360.0),
            m.water_at(at(1, 0).0, at(1, 0).1)
        );
        assert_eq!(m.water_at(90.0, 0.0), Water::Ocean);
        assert_eq!(m.water_at(-90.0, 0.0), Water::Ocean);
    }

    #[test]
    fn shore_level_is_the_tenth_percentile() {
        let h: Vec<f64> = (1..=20).rev().map(|v| v as f64 * 10.0).collect();
        // 20 shore heights 10..200 m: index (20 − 1)/10 = 1 of the sorted list.
        assert_eq!(shore_level(h), 20.0);
        assert_eq!(shore_level(vec![7.0]), 7.0);
        assert_eq!(shore_level(vec![]), 0.0);
    }

    #[test]
    fn a_bad_mask_file_is_named_and_refused() {
        let dir = std::env::temp_dir().join(format!("pf-water-bad-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("m.bb");
        std::fs::write(&p, [0u8; 100]).unwrap();
        let e = WaterMask::load(&p, &Etopo::flat(0.0))
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("m.bb") && e.contains("shorter"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_cubic_coast_keeps_every_cell_and_follows_a_diagonal_without_stairs() {
        let lakes = mask(
            [
                "................",
                "L##############L",
                "##LLLLL###L#####",
                "##LiiiL#L#######",
                "##LipiL##L######",
                "##LiiiL#########",
                "................",
                "................",
            ],
            250.0,
        );
        // Interpolating: at every cell centre the class is the cell's own, one-cell lakes,
        // ponds and islands included.
        for r in 0..8 {
            for c in 0..16 {
                let (lat, lon) = at(r, c);
                assert_eq!(
                    lakes.water_cubic(lat, lon).water,
                    lakes.water_at(lat, lon),
                    "cell ({r}, {c})"
                );
            }
        }
        // A coast at 45° through the cells: ocean where column ≥ row + 4. Cell by cell it is a
        // staircase, the boundary ±½ cell off the straight line column = row + 3.5; the
        // reconstruction follows that line within 0.11 cell (a separable cubic keeps a slight
        // wave along a diagonal).
        let rows: Vec<String> = (0..8)
            .map(|r| {
                (0..16)
                    .map(|c| if c >= r + 4 { '.' } else { '#' })
                    .collect()
            })
            .collect();
        let diag = mask(std::array::from_fn(|r| rows[r].as_str()), 100.0);
        let d = 22.5;
        let is_sea = |x: f64, y: f64| {
            // Cell-index coordinates (centre of cell (r, c) at x = c, y = r).
            let (lat, lon) = (90.0 - (y + 0.5) * d, -180.0 + (x + 0.5) * d);
            diag.water_cubic(lat, lon).water == Water::Ocean
        };
        let (mut worst, mut worst_nearest) = (0.0f64, 0.0f64);
        for k in 0..=30 {
            let y = 2.0 + k as f64 * 0.1;
            let (mut lo, mut hi) = (y + 1.5, y + 5.5);
            assert!(!is_sea(lo, y) && is_sea(hi, y), "row {y}: land then sea");
            for _ in 0..40 {
                let mid = 0.5 * (lo + hi);
                if is_sea(mid, y) {
                    hi = mid
                } else {
                    lo = mid
                }
            }
            worst = worst.max((lo - (y + 3.5)).abs());
            // Cell by cell the crossing is at the cell edge of row round(y).
            worst_nearest = worst_nearest.max(((y + 0.5).floor() + 3.5 - (y + 3.5)).abs());
        }
        assert!(worst_nearest >= 0.45, "the staircase is there to remove");
        assert!(worst < 0.12, "coast {worst} cells off the diagonal");
    }
}
