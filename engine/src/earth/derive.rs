//! Derived levels (`docs/earth.md`, "Derivation"): every sample is a pure function of
//! (level, face, I, J). L2–L9: what covers the sample comes from the water map (the GSHHG mask,
//! or without it the sign of r); land is the source's monotone bicubic reconstruction r plus
//! residual bands 2..=L, faded to 0 where r nears the datum; the ocean keeps r (its floor); a
//! lake is flat at its level. L0–L1: 2×2 means of the level below. Heights are quantised
//! (`earth::tile::quantise_cover`) as they are made.

use super::bands::{band_sum, relief_weight, shore_fade, BAND_AMPLITUDE_PER_TEXEL};
use super::coast::{coastal_land, sea_floor, SEA_FLOOR_MIN_M};
use super::etopo::{Etopo, EtopoError};
use super::fmath;
use super::tile::{quantise, quantise_cover, Cover, Tile};
use super::water::{Water, WaterMap};
use crate::params::{FIRST_DERIVED_LEVEL, TILE_APRON, TILE_SAMPLES, TILE_STRIDE};
use crate::planet::tile::{canonical_sample, sample_coord, samples_per_face, SampleRef};
use crate::planet::{Body, Face, TileId};
use glam::DVec3;
use std::f64::consts::FRAC_PI_4;
use std::path::Path;
use std::sync::Arc;

/// The source as the derivation uses it: the ETOPO grid and its local-relief grid.
pub struct Source {
    pub etopo: Etopo,
    relief: Vec<f32>,
    /// Metres between two source nodes along a meridian.
    spacing_m: f64,
    pub body: Body,
    /// What is water: the shoreline mask, or the sign of the reconstruction without one.
    pub water: WaterMap,
}

/// One quantised sample: (height in metres as stored, what covers it).
pub type Sample = (f32, Cover);

/// Unit direction from the two face tangents (glam: (axis + tu·u) + tv·v, then
/// v·(1/√(x·x + y·y + z·z)); `shaders/tiles/derive.comp` repeats these operations).
#[inline]
pub(crate) fn dir_from_tans(face: Face, tu: f64, tv: f64) -> DVec3 {
    (face.axis() + tu * face.u_axis() + tv * face.v_axis()).normalize()
}

/// tan(π/4·u) of a sample coordinate, with the f64 kernel the GPU mirrors (`fmath`).
#[inline]
pub(crate) fn tan_of(level: u8, index: i64) -> f64 {
    fmath::tan(FRAC_PI_4 * sample_coord(level, index))
}

impl Source {
    pub fn open(path: &Path, body: Body) -> Result<Source, EtopoError> {
        let etopo = Etopo::open(path)?;
        Ok(Source::from_etopo(etopo, body))
    }

    pub fn from_etopo(etopo: Etopo, body: Body) -> Source {
        let relief = etopo.relief_grid();
        let spacing_m = etopo.node_spacing_m(body.radius);
        Source {
            etopo,
            relief,
            spacing_m,
            body,
            water: WaterMap::BelowDatum,
        }
    }

    /// Whether tile `id` comes out the same under the sign rule (water = below the datum) as
    /// under this source's water — above the stored levels, judged for the L9 tile it is
    /// amplified from. Always without a mask. Under one, when every mask cell around the tile
    /// is land over ETOPO nodes all above the datum, or ocean over nodes all below it: the
    /// reconstruction stays within its 2×2 nodes, so every sample gets the same cover and
    /// height both ways. The GPU derivation and amplifier know the sign rule only, so these
    /// tiles (all but coasts, lakes and land below the datum) can still be made there.
    pub fn sign_rule_holds(&self, id: TileId) -> bool {
        let WaterMap::Mask(mask) = &self.water else {
            return true;
        };
        let mut t = id;
        while t.level > crate::params::LAST_STORED_LEVEL {
            t = t
                .parent()
                .expect("a level above the stored ones has a parent");
        }
        // The tile's footprint (apron and the amplifier's stencil inside one mask cell).
        let n = TILE_SAMPLES as i64;
        let (a0, b0) = (
            t.x as i64 * n - TILE_APRON as i64,
            t.y as i64 * n - TILE_APRON as i64,
        );
        let span = n + 2 * TILE_APRON as i64;
        let (mut lat_lo, mut lat_hi, mut lon_lo, mut lon_hi) =
            (90.0f64, -90.0f64, 180.0f64, -180.0f64);
        for k in 0..25 {
            let (a, b) = (a0 + span * (k % 5) / 4, b0 + span * (k / 5) / 4);
            let (lat, lon) = latlon(dir_from_tans(
                t.face,
                tan_of(t.level, a),
                tan_of(t.level, b),
            ));
            lat_lo = lat_lo.min(lat);
            lat_hi = lat_hi.max(lat);
            lon_lo = lon_lo.min(lon);
            lon_hi = lon_hi.max(lon);
        }
        // Coarse tiles, the poles and the antimeridian go to the CPU: few tiles, simple rule.
        if lat_hi - lat_lo > 1.0 || lon_hi - lon_lo > 1.0 || lat_hi.abs().max(lat_lo.abs()) > 80.0 {
            return false;
        }
        let (cells_x, cells_y) = mask.size();
        let (cell_lon, cell_lat) = (360.0 / cells_x as f64, 180.0 / cells_y as f64);
        // Two cells on every side: the cubic coastline reads the 4×4 cells around a sample.
        let (lat_lo, lat_hi) = (lat_lo - 2.0 * cell_lat, lat_hi + 2.0 * cell_lat);
        let (lon_lo, lon_hi) = (lon_lo - 2.0 * cell_lon, lon_hi + 2.0 * cell_lon);
        let (mut land, mut ocean) = (true, true);
        let mut lat = lat_lo;
        while lat <= lat_hi + 0.5 * cell_lat {
            let mut lon = lon_lo;
            while lon <= lon_hi + 0.5 * cell_lon {
                match mask.water_at(lat, lon) {
                    Water::Land => ocean = false,
                    Water::Ocean => land = false,
                    Water::Lake { .. } => return false,
                }
                if !land && !ocean {
                    return false;
                }
                lon += cell_lon;
            }
            lat += cell_lat;
        }
        // The nodes any sample's reconstruction reads (4×4 around it), with one to spare.
        let (r0, c0) = self.etopo.grid_pos(lat_lo, lon_lo);
        let (r1, c1) = self.etopo.grid_pos(lat_hi, lon_hi);
        let (rlo, rhi) = (r0.min(r1).floor() as i64 - 2, r0.max(r1).ceil() as i64 + 2);
        let (clo, chi) = (c0.min(c1).floor() as i64 - 2, c0.max(c1).ceil() as i64 + 2);
        let (mut lo, mut hi) = (f32::INFINITY, f32::NEG_INFINITY);
        for r in rlo..=rhi {
            for c in clo..=chi {
                let v = self.etopo.node(r, c);
                lo = lo.min(v);
                hi = hi.max(v);
            }
        }
        (land && lo > 0.0) || (ocean && (hi as f64) < -SEA_FLOOR_MIN_M)
    }

    /// The same source with water from `water` (tiles derived under a mask differ from those
    /// without one: the tile store keeps them apart, `store::block::tiles_dir`).
    pub fn with_water(mut self, water: WaterMap) -> Source {
        self.water = water;
        self
    }

    /// The same source with water from the mask at `path` (built there first if absent; the
    /// sign rule, warned once, when it cannot be had: `WaterMap::open`).
    pub fn with_mask_at(self, path: &Path) -> Source {
        let water = WaterMap::open(path, &self.etopo);
        self.with_water(water)
    }

    /// Whether water comes from a shoreline mask rather than the sign of the reconstruction.
    pub fn has_water_mask(&self) -> bool {
        matches!(self.water, WaterMap::Mask(_))
    }

    /// The local-relief grid (`Etopo::relief_grid`), laid out like `etopo.data`.
    pub fn relief(&self) -> &[f32] {
        &self.relief
    }

    /// Metres between two source nodes along a meridian (the slope's denominator is twice it).
    pub fn spacing_m(&self) -> f64 {
        self.spacing_m
    }

    /// The smooth reconstruction of the source at a unit direction, metres.
    pub fn reconstruct(&self, dir: DVec3) -> f64 {
        let (lat, lon) = latlon(dir);
        self.etopo.reconstruct(lat, lon)
    }

    /// Unquantised derived height at unit direction `dir` for level ≥ 2, metres, and what
    /// covers it.
    pub fn height(&self, dir: DVec3, level: u8) -> (f64, Cover) {
        let (lat, lon) = latlon(dir);
        let r = self.etopo.reconstruct(lat, lon);
        let (r, cover) = match &self.water {
            WaterMap::BelowDatum => (r, Cover::below_datum(r)),
            WaterMap::Mask(m) => {
                let shore = m.water_cubic(lat, lon);
                match shore.water {
                    Water::Land => (coastal_land(r, &shore), Cover::Land),
                    Water::Ocean => (sea_floor(r), Cover::Ocean),
                    Water::Lake { level_m } => return (level_m, Cover::Lake),
                }
            }
        };
        if cover == Cover::Ocean {
            return (r, cover);
        }
        let slope = self.etopo.bilinear(&self.relief, lat, lon) / (2.0 * self.spacing_m);
        let unit_amp = BAND_AMPLITUDE_PER_TEXEL * self.body.texel0() * relief_weight(slope);
        let (d, bound) = band_sum(dir, FIRST_DERIVED_LEVEL, level, unit_amp);
        // |r|: land below the datum (only under a mask) fades its detail toward the datum
        // contour as land above it does; without a mask land has r ≥ 0.
        (r + shore_fade(r.abs() / bound) * d, cover)
    }

    fn quantised(&self, dir: DVec3, level: u8) -> Sample {
        let (h, cover) = self.height(dir, level);
        let c = self.quantise(h, cover);
        (super::tile::dequantise(c), cover)
    }

    /// The code of a height: the sign rule keeps land at or above the datum (its bands never
    /// take it below); under a mask land keeps its sign.
    fn quantise(&self, h: f64, cover: Cover) -> u16 {
        match (&self.water, cover) {
            (WaterMap::BelowDatum, Cover::Land) => quantise(h, false),
            _ => quantise_cover(h, cover),
        }
    }

    /// The stored value of face-global sample (I, J) of `face` at `level`, which may lie in an
    /// apron beyond the face (folded; cube-corner rule: mean of the three corner samples).
    pub fn sample(&self, level: u8, face: Face, i: i64, j: i64) -> Sample {
        match canonical_sample(level, face, i, j) {
            SampleRef::Owned(f, a, b) => self.owned_sample(level, f, a, b),
            SampleRef::Corner(three) => {
                let v = three.map(|(f, a, b)| self.owned_sample(level, f, a, b));
                mean_sample(
                    (v[0].0 as f64 + v[1].0 as f64) + v[2].0 as f64,
                    &v.map(|s| s.1),
                )
            }
        }
    }

    fn owned_sample(&self, level: u8, face: Face, i: i64, j: i64) -> Sample {
        if level >= FIRST_DERIVED_LEVEL {
            self.quantised(
                dir_from_tans(face, tan_of(level, i), tan_of(level, j)),
                level,
            )
        } else {
            let c = |a: i64, b: i64| self.owned_sample(level + 1, face, 2 * i + a, 2 * j + b);
            let q = [c(0, 0), c(1, 0), c(0, 1), c(1, 1)];
            let h = q.map(|s| s.0 as f64);
            mean_sample((h[0] + h[1]) + (h[2] + h[3]), &q.map(|s| s.1))
        }
    }

    /// A stand-in for tile `id`, made in milliseconds: every sample (aprons included) is the
    /// source grid read bilinearly at the sample's direction, without the monotone cubic or
    /// the bands. It serves the first frames while the exact tile is derived, then the
    /// exact one cross-fades over it in the same slot; at L0–L2 (texels of 4.9 km and more,
    /// about the 9.3 km node spacing) the two differ by the bands' few hundred metres.
    pub fn provisional_tile(&self, id: TileId) -> Tile {
        let mut tile = Tile::empty(id);
        let a = TILE_APRON as i64;
        let stride = TILE_STRIDE as i64;
        let tu: Vec<f64> = (-a..stride - a)
            .map(|i| tan_of(id.level, id.global_i(i)))
            .collect();
        for row in 0..stride {
            let tv = tan_of(id.level, id.global_j(row - a));
            for (col, &t) in tu.iter().enumerate() {
                let (lat, lon) = latlon(dir_from_tans(id.face, t, tv));
                let h = self.etopo.bilinear(&self.etopo.data, lat, lon);
                let k = row as usize * stride as usize + col;
                match &self.water {
                    WaterMap::BelowDatum => tile.set(k, quantise(h, h < 0.0)),
                    WaterMap::Mask(m) => {
                        let shore = m.water_cubic(lat, lon);
                        let (h, cover) = match shore.water {
                            Water::Land => (coastal_land(h, &shore), Cover::Land),
                            Water::Ocean => (sea_floor(h), Cover::Ocean),
                            Water::Lake { level_m } => (level_m, Cover::Lake),
                        };
                        tile.set_cover(k, quantise_cover(h, cover), cover);
                    }
                }
            }
        }
        tile
    }

    /// Derives a whole tile. Levels ≥ 2 compute every sample; levels < 2 take their interior
    /// from the four `children` tiles (2×2 means) and their apron sample by sample.
    pub fn derive_tile(&self, id: TileId, children: Option<&[Arc<Tile>; 4]>) -> Tile {
        let mut tile = Tile::empty(id);
        let n = samples_per_face(id.level);
        let a = TILE_APRON as i64;
        let stride = TILE_STRIDE as i64;
        let gi: Vec<i64> = (-a..stride - a).map(|i| id.global_i(i)).collect();
        let gj: Vec<i64> = (-a..stride - a).map(|j| id.global_j(j)).collect();
        let on_face = |g: i64| (0..n).contains(&g);
        let tu: Vec<f64> = gi.iter().map(|&g| tan_of(id.level, g)).collect();
        for (row, &j) in gj.iter().enumerate() {
            let tv = tan_of(id.level, j);
            for (col, &i) in gi.iter().enumerate() {
                let k = row * stride as usize + col;
                let interior = (a..a + TILE_SAMPLES as i64).contains(&(row as i64))
                    && (a..a + TILE_SAMPLES as i64).contains(&(col as i64));
                let s = match children {
                    Some(ch) if interior => {
                        reduce_from_children(ch, col as i64 - a, row as i64 - a)
                    }
                    _ if id.level >= FIRST_DERIVED_LEVEL && on_face(i) && on_face(j) => {
                        self.quantised(dir_from_tans(id.face, tu[col], tv), id.level)
                    }
                    _ => self.sample(id.level, id.face, i, j),
                };
                tile.set_cover(k, self.quantise(s.0 as f64, s.1), s.1);
            }
        }
        tile
    }
}

/// Mean of the stored heights of `covers.len()` samples (summed in a fixed order by the
/// caller), quantised, and what covers it: ocean where the mean is below the datum and one of
/// the samples is ocean (without a mask: where the mean is below the datum, as every sample
/// below it is ocean); else a lake where at least half the samples are lake; else land.
pub(crate) fn mean_sample(sum: f64, covers: &[Cover]) -> Sample {
    let count = covers.len();
    let m = sum / count as f64;
    let n = |c: Cover| covers.iter().filter(|&&x| x == c).count();
    let cover = if m < 0.0 && n(Cover::Ocean) > 0 {
        Cover::Ocean
    } else if 2 * n(Cover::Lake) >= count {
        Cover::Lake
    } else {
        Cover::Land
    };
    (super::tile::dequantise(quantise_cover(m, cover)), cover)
}

/// Interior sample (i, j) of a level-L tile from its level-(L+1) children.
fn reduce_from_children(ch: &[Arc<Tile>; 4], i: i64, j: i64) -> Sample {
    let half = TILE_SAMPLES as i64 / 2;
    let (cx, cy) = ((i >= half) as usize, (j >= half) as usize);
    let t = &ch[cy * 2 + cx];
    let (ci, cj) = (2 * (i - cx as i64 * half), 2 * (j - cy as i64 * half));
    let c = |a: i64, b: i64| t.height(ci + a, cj + b) as f64;
    let k = |a: i64, b: i64| t.cover(ci + a, cj + b);
    mean_sample(
        (c(0, 0) + c(1, 0)) + (c(0, 1) + c(1, 1)),
        &[k(0, 0), k(1, 0), k(0, 1), k(1, 1)],
    )
}

/// Geocentric latitude/longitude in degrees of a unit direction (`fmath`'s asin and atan2,
/// which the GPU derivation computes bit for bit).
#[inline]
fn latlon(d: DVec3) -> (f64, f64) {
    (
        fmath::asin(d.z.clamp(-1.0, 1.0)) * fmath::DEG_PER_RAD,
        fmath::atan2(d.y, d.x) * fmath::DEG_PER_RAD,
    )
}
