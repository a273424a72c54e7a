//! The ETOPO source grid (`docs/earth.md`, "Source"): loading, grid conventions, and the smooth
//! reconstruction (monotone bicubic in lat/lon with pole reflection and longitude wrap).

use super::netcdf::{NcError, NcFile};
use std::path::{Path, PathBuf};

/// Debian's ETOPO5 (package `ferret-datasets`).
pub const DEFAULT_ETOPO_PATH: &str = "/usr/share/ferret-vis/data/etopo5.cdf";
/// Environment variable naming another ETOPO file.
pub const ETOPO_ENV: &str = "PLANETFALL_ETOPO";

#[derive(Debug, thiserror::Error)]
pub enum EtopoError {
    #[error(
        "ETOPO source {path} not found; install it with `apt-get install ferret-datasets` \
         (Debian package), or point --etopo / {ETOPO_ENV} at another ETOPO netCDF file"
    )]
    Missing { path: PathBuf },
    #[error(transparent)]
    NetCdf(#[from] NcError),
    #[error("{path}: {what}")]
    Grid { path: PathBuf, what: String },
}

/// A global lat/lon grid of heights (metres), rows south → north, longitude wrapping.
pub struct Etopo {
    pub path: PathBuf,
    /// Unique longitude columns (a duplicated wrap column in the file is dropped).
    pub nlon: usize,
    pub nlat: usize,
    /// Longitude of column 0 and spacing, degrees (spacing = 360/nlon exactly).
    pub lon0: f64,
    pub dlon: f64,
    /// Latitude of row 0 and spacing (> 0: rows run south → north), degrees.
    pub lat0: f64,
    pub dlat: f64,
    /// Heights, metres, row-major [row][column].
    pub data: Vec<f32>,
    /// Fill values found in the file (replaced by 0 m); 0 for the ETOPO files we know.
    pub fill_count: usize,
}

/// Chooses the ETOPO path: explicit option, then `PLANETFALL_ETOPO`, then Debian's path.
pub fn etopo_path(explicit: Option<&Path>) -> PathBuf {
    explicit
        .map(Path::to_path_buf)
        .or_else(|| std::env::var_os(ETOPO_ENV).map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from(DEFAULT_ETOPO_PATH))
}

impl Etopo {
    /// Loads the height variable (the file's only 2-D variable) and its coordinate axes.
    pub fn open(path: &Path) -> Result<Etopo, EtopoError> {
        if !path.exists() {
            return Err(EtopoError::Missing {
                path: path.to_path_buf(),
            });
        }
        Etopo::from_nc(&NcFile::open(path)?)
    }

    /// The grid of an opened netCDF file (see [`Etopo::open`]).
    pub fn from_nc(f: &NcFile) -> Result<Etopo, EtopoError> {
        let path = &f.path;
        let grid_err = |what: String| EtopoError::Grid {
            path: path.to_path_buf(),
            what,
        };
        let var = f
            .vars
            .iter()
            .find(|v| v.dims.len() == 2)
            .ok_or_else(|| grid_err("no 2-D height variable".into()))?;
        // The axes index the height rows and columns, so each must be the 1-D variable of its
        // own dimension (a 2-D or other-length "axis" would send the row slicing out of range).
        let axis = |d: usize| -> Result<Vec<f64>, EtopoError> {
            let name = &f.dims[d].name;
            let v = f.var(name)?;
            if v.dims != [d] {
                return Err(grid_err(format!(
                    "coordinate variable {name} is not 1-D along dimension {name}"
                )));
            }
            let xs = f.read_f64(v);
            if xs.iter().any(|x| !x.is_finite()) {
                return Err(grid_err(format!(
                    "coordinate variable {name} is not finite"
                )));
            }
            Ok(xs)
        };
        let (ys, xs) = (axis(var.dims[0])?, axis(var.dims[1])?);
        if xs.len() < 8 || ys.len() < 8 {
            return Err(grid_err("grid too small".into()));
        }
        // Longitudes: evenly spaced, covering 360° (ETOPO5's axis is stored with a float32
        // spacing 0.0833341°; the grid itself is 5′ = 1/12° exactly, 4320 columns).
        let step = (xs[xs.len() - 1] - xs[0]) / (xs.len() - 1) as f64;
        let nlon = (360.0 / step).round();
        let even = |a: &[f64], d: f64| {
            a.windows(2)
                .all(|w| (w[1] - w[0] - d).abs() <= 1e-3 * d.abs())
        };
        if !(1.0..=xs.len() as f64).contains(&nlon)
            || (360.0 / nlon - step).abs() > 1e-3 * step
            || !even(&xs, step)
            || xs[0].abs() > 360.0
        {
            return Err(grid_err(format!(
                "longitude axis is not evenly spaced over 360° from a start in ±360° \
                 ({}..{}, step {step}°)",
                xs[0],
                xs[xs.len() - 1]
            )));
        }
        let nlon = nlon as usize;
        // Latitudes: evenly spaced pole to pole (within a row), south → north or flipped on
        // load; the reconstruction reflects across the poles.
        let (ya, yb) = (ys[0], ys[ys.len() - 1]);
        let nlat = ys.len();
        let flip = ya > yb;
        let (lat0, lat1) = if flip { (yb, ya) } else { (ya, yb) };
        let ystep = (yb - ya) / (nlat - 1) as f64;
        let dlat = ystep.abs();
        if !(dlat > 0.0 && even(&ys, ystep))
            || lat0 < -90.0 - 1e-6
            || lat1 > 90.0 + 1e-6
            || lat0 > -90.0 + dlat * 1.001
            || lat1 < 90.0 - dlat * 1.001
        {
            return Err(grid_err(format!(
                "latitude axis is not evenly spaced from pole to pole ({ya}..{yb})"
            )));
        }
        let raw = f.read_f32(var);
        // netCDF fills a missing value with the fill value itself, stored in the variable's
        // type: compare exactly there (a tolerance would turn a small fill value such as
        // −32768 into "every height is missing").
        let fill = var
            .attr("_FillValue")
            .or_else(|| var.attr("missing_value"))
            .and_then(|a| a.values.first())
            .map(|&fv| fv as f32);
        let mut data = Vec::with_capacity(nlat * nlon);
        let mut fill_count = 0;
        for r in 0..nlat {
            let src = if flip { nlat - 1 - r } else { r };
            for &v in &raw[src * xs.len()..src * xs.len() + nlon] {
                let is_fill = !v.is_finite() || fill == Some(v);
                fill_count += is_fill as usize;
                data.push(if is_fill { 0.0 } else { v });
            }
        }
        Ok(Etopo {
            path: path.clone(),
            nlon,
            nlat,
            lon0: xs[0],
            dlon: 360.0 / nlon as f64,
            lat0,
            dlat,
            data,
            fill_count,
        })
    }

    /// Height at grid node (row, column), wrapped and reflected (see `node_index`).
    #[inline]
    pub fn node(&self, row: i64, col: i64) -> f32 {
        self.data[self.node_index(row, col)]
    }

    /// Fractional (row, column) of a latitude/longitude, degrees.
    #[inline]
    pub fn grid_pos(&self, lat: f64, lon: f64) -> (f64, f64) {
        ((lat - self.lat0) / self.dlat, (lon - self.lon0) / self.dlon)
    }

    /// Smooth reconstruction at (lat, lon), degrees: separable monotone cubic Hermite
    /// (Fritsch–Butland slopes) over the 4×4 nodes around the point. It passes through every
    /// node, has no overshoot along either axis, and stays within the range of the 2×2 nodes
    /// around the point — so a point between four water (land) nodes is water (land).
    pub fn reconstruct(&self, lat: f64, lon: f64) -> f64 {
        let (y, x) = self.grid_pos(lat, lon);
        let (r0, c0) = (y.floor(), x.floor());
        let (fy, fx) = (y - r0, x - c0);
        let (r0, c0) = (r0 as i64, c0 as i64);
        let mut rows = [0.0; 4];
        for (k, row) in rows.iter_mut().enumerate() {
            let r = r0 - 1 + k as i64;
            let p = [
                self.node(r, c0 - 1) as f64,
                self.node(r, c0) as f64,
                self.node(r, c0 + 1) as f64,
                self.node(r, c0 + 2) as f64,
            ];
            *row = monotone_cubic(p, fx);
        }
        monotone_cubic(rows, fy)
    }

    /// Bilinear interpolation of an auxiliary grid laid out like `data` (e.g. relief).
    pub fn bilinear(&self, grid: &[f32], lat: f64, lon: f64) -> f64 {
        let (y, x) = self.grid_pos(lat, lon);
        let (r0, c0) = (y.floor(), x.floor());
        let (fy, fx) = (y - r0, x - c0);
        let (r0, c0) = (r0 as i64, c0 as i64);
        let at = |r: i64, c: i64| grid[self.node_index(r, c)] as f64;
        let top = at(r0, c0) * (1.0 - fx) + at(r0, c0 + 1) * fx;
        let bot = at(r0 + 1, c0) * (1.0 - fx) + at(r0 + 1, c0 + 1) * fx;
        top * (1.0 - fy) + bot * fy
    }

    /// Index of node (row, column) with the wrap and pole reflection applied: rows beyond a
    /// pole continue on the far side (longitude + 180°). Row r has latitude lat0 + r·dlat; its
    /// mirror across the pole (±90°) sits at ±180° − lat, i.e. row (±180 − 2·lat0)/dlat − r.
    #[inline]
    fn node_index(&self, row: i64, col: i64) -> usize {
        let n = self.nlat as i64;
        let (mut r, mut c) = (row, col);
        if r < 0 || r >= n {
            let pole = if r < 0 { -180.0 } else { 180.0 };
            r = (((pole - 2.0 * self.lat0) / self.dlat).round() as i64 - r).clamp(0, n - 1);
            c += self.nlon as i64 / 2;
        }
        r as usize * self.nlon + c.rem_euclid(self.nlon as i64) as usize
    }

    /// Local relief per node: max − min over the 3×3 nodes around it, metres.
    ///
    /// Separable: min and max over 3 columns per row (longitude wrap) first, then over 3 of
    /// those rows. A row beyond a pole is its mirror row shifted by half a turn, and the
    /// shift commutes with the column window, so the mirror row's column pass, read at
    /// `c + nlon/2`, is exactly the 3 nodes the direct walk reads. Only three rows of column
    /// minima and maxima are kept (the whole grid is 9 M nodes for ETOPO5).
    pub fn relief_grid(&self) -> Vec<f32> {
        let (nlat, nlon) = (self.nlat as i64, self.nlon);
        let mut out = vec![0f32; self.data.len()];
        // Column pass of stored row `row`, keyed by it; at most three are alive at once.
        let mut rows: Vec<(usize, Vec<f32>, Vec<f32>)> = Vec::with_capacity(4);
        for r in 0..nlat {
            // (stored row, column shift) of rows r−1, r, r+1 (see `node_index`).
            let taps: [(usize, usize); 3] = std::array::from_fn(|k| {
                let i = self.node_index(r - 1 + k as i64, 0);
                (i / nlon, i % nlon)
            });
            rows.retain(|(row, ..)| taps.iter().any(|t| t.0 == *row));
            for &(row, _) in &taps {
                if !rows.iter().any(|x| x.0 == row) {
                    let (lo, hi) = self.column_pass(row);
                    rows.push((row, lo, hi));
                }
            }
            let pass = taps.map(|(row, shift)| {
                let x = rows
                    .iter()
                    .find(|x| x.0 == row)
                    .expect("row computed above");
                (shift, &x.1, &x.2)
            });
            let dst = &mut out[r as usize * nlon..(r as usize + 1) * nlon];
            for (c, o) in dst.iter_mut().enumerate() {
                let (mut lo, mut hi) = (f32::MAX, f32::MIN);
                for &(shift, l, h) in &pass {
                    let i = if shift == 0 { c } else { (c + shift) % nlon };
                    lo = lo.min(l[i]);
                    hi = hi.max(h[i]);
                }
                *o = hi - lo;
            }
        }
        out
    }

    /// Min and max over columns c−1, c, c+1 (wrapping) of stored row `row`.
    fn column_pass(&self, row: usize) -> (Vec<f32>, Vec<f32>) {
        let n = self.nlon;
        let v = &self.data[row * n..(row + 1) * n];
        let (mut lo, mut hi) = (vec![0f32; n], vec![0f32; n]);
        for c in 0..n {
            let (a, b, d) = (v[(c + n - 1) % n], v[c], v[(c + 1) % n]);
            lo[c] = f32::MAX.min(a).min(b).min(d);
            hi[c] = f32::MIN.max(a).max(b).max(d);
        }
        (lo, hi)
    }

    /// A flat source at `h` metres on a 45° grid (a constant reconstructs to itself).
    #[cfg(test)]
    pub(crate) fn flat(h: f32) -> Etopo {
        Etopo {
            path: PathBuf::from("flat"),
            nlon: 8,
            nlat: 5,
            lon0: 0.0,
            dlon: 45.0,
            lat0: -90.0,
            dlat: 45.0,
            data: vec![h; 40],
            fill_count: 0,
        }
    }

    /// [`Etopo::relief_grid`] as the plain 3×3 walk over `node` (the test's reference).
    #[cfg(test)]
    fn relief_grid_direct(&self) -> Vec<f32> {
        let mut out = vec![0f32; self.data.len()];
        for r in 0..self.nlat as i64 {
            for c in 0..self.nlon as i64 {
                let (mut lo, mut hi) = (f32::MAX, f32::MIN);
                for dr in -1..=1 {
                    for dc in -1..=1 {
                        let v = self.node(r + dr, c + dc);
                        lo = lo.min(v);
                        hi = hi.max(v);
                    }
                }
                out[r as usize * self.nlon + c as usize] = hi - lo;
            }
        }
        out
    }

    /// Node spacing along a meridian, metres on a sphere of `radius`.
    pub fn node_spacing_m(&self, radius: f64) -> f64 {
        self.dlat.to_radians() * radius
    }
}

/// Cubic Hermite between p[1] and p[2] at t ∈ [0, 1] with Fritsch–Butland slopes
/// (harmonic mean of the neighbouring differences, 0 at local extrema): monotone, C¹.
#[inline]
pub fn monotone_cubic(p: [f64; 4], t: f64) -> f64 {
    let (d0, d1, d2) = (p[1] - p[0], p[2] - p[1], p[3] - p[2]);
    let slope = |a: f64, b: f64| {
        if a * b > 0.0 {
            2.0 * a * b / (a + b)
        } else {
            0.0
        }
    };
    let (m1, m2) = (slope(d0, d1), slope(d1, d2));
    let (t2, t3) = (t * t, t * t * t);
    let h00 = 2.0 * t3 - 3.0 * t2 + 1.0;
    let h10 = t3 - 2.0 * t2 + t;
    let h01 = -2.0 * t3 + 3.0 * t2;
    let h11 = t3 - t2;
    h00 * p[1] + h10 * m1 + h01 * p[2] + h11 * m2
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn monotone_cubic_interpolates_without_overshoot() {
        let p = [0.0, 0.0, 10.0, 10.0];
        for k in 0..=20 {
            let v = monotone_cubic(p, k as f64 / 20.0);
            assert!((0.0..=10.0).contains(&v));
        }
        assert_eq!(monotone_cubic([3.0, 1.0, 7.0, 2.0], 0.0), 1.0);
        assert_eq!(monotone_cubic([3.0, 1.0, 7.0, 2.0], 1.0), 7.0);
    }

    /// A grid of pseudo-random heights with repeated values (ties) and both pole layouts:
    /// nodes on the poles (mirror of row −1 is row 1) and cell-centred rows (it is row 0).
    fn grid(nlat: usize, nlon: usize, centred: bool, seed: u64) -> Etopo {
        let dlat = 180.0 / if centred { nlat } else { nlat - 1 } as f64;
        let mut x = seed;
        let data = (0..nlat * nlon)
            .map(|_| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((x >> 40) % 97) as f32 * 37.5 - 1800.0
            })
            .collect();
        Etopo {
            path: PathBuf::from("synthetic"),
            nlon,
            nlat,
            lon0: 0.0,
            dlon: 360.0 / nlon as f64,
            lat0: if centred { -90.0 + dlat / 2.0 } else { -90.0 },
            dlat,
            data,
            fill_count: 0,
        }
    }

    #[test]
    fn separable_relief_equals_the_direct_walk() {
        for (nlat, nlon, centred) in [
            (9, 12, false),
            (10, 12, true),
            (7, 9, false),
            (31, 64, true),
        ] {
            let e = grid(nlat, nlon, centred, (nlat * 1000 + nlon) as u64);
            let fast = e.relief_grid();
            let direct = e.relief_grid_direct();
            assert_eq!(fast.len(), nlat * nlon);
            for (i, (a, b)) in fast.iter().zip(&direct).enumerate() {
                assert_eq!(
                    a.to_bits(),
                    b.to_bits(),
                    "{nlat}×{nlon} node {i}: {a} vs {b}"
                );
            }
        }
    }

    #[test]
    fn relief_sees_across_the_wrap_and_the_pole() {
        // One peak at column 0 of the southernmost row: its relief shows in the last column
        // (wrap) and, through the pole, in row 0 half a turn away.
        let mut e = grid(9, 12, false, 1);
        e.data.iter_mut().for_each(|v| *v = 0.0);
        e.data[0] = 500.0;
        let rel = e.relief_grid();
        assert_eq!(rel[11], 500.0, "wrap");
        assert_eq!(rel[6], 0.0, "the pole mirrors row −1 onto row 1, not row 0");
        // Row 1 is row −1's mirror: row 0 column 6 sees row 1 column 0 only through it.
        e.data[0] = 0.0;
        e.data[12] = 500.0;
        let rel = e.relief_grid();
        assert_eq!(rel[6], 500.0, "pole reflection");
        assert_eq!(rel[3], 0.0);
    }

    #[test]
    fn missing_file_names_the_package() {
        let e = Etopo::open(Path::new("/nonexistent/etopo5.cdf"))
            .err()
            .expect("must fail");
        let msg = e.to_string();
        assert!(msg.contains("apt-get install ferret-datasets"), "{msg}");
        assert!(msg.contains("/nonexistent/etopo5.cdf"), "{msg}");
    }
}
