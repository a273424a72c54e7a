//! Fuzzing the netCDF reader and the ETOPO grid built on it: random bytes, valid files
//! (written here) truncated, mutated, and with length fields made absurd, and the shipped
//! ETOPO files. Every outcome is checked: a valid file gives back exactly what was written, a
//! damaged one is an error naming the file, and whatever is accepted is a usable grid.

use super::etopo::Etopo;
use super::netcdf::NcFile;
use crate::testing::{mutate_bytes, run, Rng, HUGE_U32};
use std::path::Path;
use std::time::Duration;

const FILE: &str = "fuzz/etopo.nc";
const SEED: u64 = 0x5EED_E707_0005;
/// Far above any real case (under a millisecond), far below a hang; generous so a loaded
/// machine does not fail the run.
const PER_CASE: Duration = Duration::from_millis(500);

struct Attr {
    name: &'static str,
    ty: u32,
    /// Big-endian values, unpadded.
    data: Vec<u8>,
}

struct Var {
    name: &'static str,
    dims: Vec<u32>,
    attrs: Vec<Attr>,
    ty: u32,
    data: Vec<u8>,
}

fn size_of(ty: u32) -> usize {
    [0, 1, 1, 2, 4, 4, 8][ty as usize]
}

/// A netCDF-3 classic writer (CDF-1, or CDF-2 with 64-bit offsets), returning the file and
/// the offsets of its length and count fields (the ones a corrupt file would get wrong).
fn write_nc(v2: bool, dims: &[(&str, u32)], vars: &[Var]) -> (Vec<u8>, Vec<usize>) {
    let mut b = Vec::new();
    let mut fields = Vec::new();
    let u32 = |b: &mut Vec<u8>, v: u32| b.extend_from_slice(&v.to_be_bytes());
    let pad = |b: &mut Vec<u8>| b.resize(b.len().div_ceil(4) * 4, 0);
    let name = |b: &mut Vec<u8>, f: &mut Vec<usize>, s: &str| {
        f.push(b.len());
        u32(b, s.len() as u32);
        b.extend_from_slice(s.as_bytes());
        pad(b);
    };
    b.extend_from_slice(if v2 { b"CDF\x02" } else { b"CDF\x01" });
    u32(&mut b, 0);
    u32(&mut b, 0x0A);
    fields.push(b.len());
    u32(&mut b, dims.len() as u32);
    for (n, len) in dims {
        name(&mut b, &mut fields, n);
        fields.push(b.len());
        u32(&mut b, *len);
    }
    let history = Attr {
        name: "history",
        ty: 2,
        data: b"written by netcdf_fuzz".to_vec(),
    };
    let attrs = |b: &mut Vec<u8>, f: &mut Vec<usize>, list: &[Attr]| {
        u32(b, if list.is_empty() { 0 } else { 0x0C });
        f.push(b.len());
        u32(b, list.len() as u32);
        for a in list {
            name(b, f, a.name);
            u32(b, a.ty);
            f.push(b.len());
            u32(b, (a.data.len() / size_of(a.ty)) as u32);
            b.extend_from_slice(&a.data);
            pad(b);
        }
    };
    attrs(&mut b, &mut fields, &[history]);
    u32(&mut b, 0x0B);
    fields.push(b.len());
    u32(&mut b, vars.len() as u32);
    let mut begins = Vec::new();
    for v in vars {
        name(&mut b, &mut fields, v.name);
        fields.push(b.len());
        u32(&mut b, v.dims.len() as u32);
        for &d in &v.dims {
            u32(&mut b, d);
        }
        attrs(&mut b, &mut fields, &v.attrs);
        u32(&mut b, v.ty);
        u32(&mut b, v.data.len().div_ceil(4) as u32 * 4);
        begins.push(b.len());
        fields.push(b.len());
        b.extend_from_slice(if v2 { &[0; 8] } else { &[0; 4] });
    }
    for (v, at) in vars.iter().zip(begins) {
        let begin = b.len() as u64;
        if v2 {
            b[at..at + 8].copy_from_slice(&begin.to_be_bytes());
        } else {
            b[at..at + 4].copy_from_slice(&(begin as u32).to_be_bytes());
        }
        b.extend_from_slice(&v.data);
        pad(&mut b);
    }
    // Without the last variable's padding (which readers do not need), every shorter prefix
    // of the file cuts into data.
    b.truncate(b.len() - (4 - vars.last().map_or(0, |v| v.data.len()) % 4) % 4);
    (b, fields)
}

/// A small global grid as an ETOPO file could hold it, and what reading it must give.
#[derive(Clone, Debug)]
struct Grid {
    v2: bool,
    nx: usize,
    ny: usize,
    /// The file repeats column 0 at +360°.
    wrap: bool,
    north_first: bool,
    /// Rows at cell centres (±(90 − dlat/2)) rather than on the poles.
    centred: bool,
    lon0: f64,
    /// Height type code (byte, short, float, double) and axis type code (float, double).
    ty: u32,
    axis_ty: u32,
    /// Heights, rows south → north, exactly representable in `ty`.
    heights: Vec<f64>,
    fill: Option<f64>,
}

impl Grid {
    fn random(r: &mut Rng) -> Grid {
        let (nx, ny) = (8 + r.below(33), 8 + r.below(17));
        let ty = *r.pick(&[1, 3, 5, 6]);
        let value = |r: &mut Rng| match ty {
            1 => r.below(256) as f64 - 128.0,
            3 => r.below(65536) as f64 - 32768.0,
            5 => r.range_f64(-11_000.0, 9_000.0) as f32 as f64,
            _ => r.range_f64(-11_000.0, 9_000.0),
        };
        let heights = (0..nx * ny).map(|_| value(r)).collect();
        let any_lon0 = r.range_f64(-360.0, 360.0);
        let lon0 = *r.pick(&[0.0, -180.0, 21.0, any_lon0]);
        Grid {
            v2: r.one_in(2),
            nx,
            ny,
            wrap: r.one_in(3),
            north_first: r.one_in(2),
            centred: r.one_in(3),
            lon0,
            ty,
            axis_ty: *r.pick(&[5, 6]),
            heights,
            fill: r.one_in(2).then(|| value(r)),
        }
    }

    fn lat(&self, row: usize) -> f64 {
        if self.centred {
            -90.0 + (row as f64 + 0.5) * 180.0 / self.ny as f64
        } else {
            -90.0 + row as f64 * 180.0 / (self.ny - 1) as f64
        }
    }

    /// The file and the offsets of its length fields.
    fn file(&self) -> (Vec<u8>, Vec<usize>) {
        let cols = self.nx + self.wrap as usize;
        let enc = |ty: u32, xs: &mut dyn Iterator<Item = f64>| -> Vec<u8> {
            xs.flat_map(|x| match ty {
                1 => vec![x as i8 as u8],
                3 => (x as i16).to_be_bytes().to_vec(),
                5 => (x as f32).to_be_bytes().to_vec(),
                _ => x.to_be_bytes().to_vec(),
            })
            .collect()
        };
        let file_row = |k: usize| if self.north_first { self.ny - 1 - k } else { k };
        let xs = (0..cols).map(|c| self.lon0 + c as f64 * 360.0 / self.nx as f64);
        let ys = (0..self.ny).map(|k| self.lat(file_row(k)));
        let zs = (0..self.ny).flat_map(|k| {
            let row = &self.heights[file_row(k) * self.nx..][..self.nx];
            (0..cols).map(move |c| row[c % self.nx])
        });
        let mut attrs = vec![Attr {
            name: "units",
            ty: 2,
            data: b"METERS".to_vec(),
        }];
        if let Some(f) = self.fill {
            attrs.push(Attr {
                name: "_FillValue",
                ty: self.ty,
                data: enc(self.ty, &mut std::iter::once(f)),
            });
        }
        let axis = |name, d| Var {
            name,
            dims: vec![d],
            attrs: Vec::new(),
            ty: self.axis_ty,
            data: Vec::new(),
        };
        let vars = [
            Var {
                data: enc(self.axis_ty, &mut { xs }),
                ..axis("ETOPO_X", 0)
            },
            Var {
                data: enc(self.axis_ty, &mut { ys }),
                ..axis("ETOPO_Y", 1)
            },
            Var {
                name: "ROSE",
                dims: vec![1, 0],
                attrs,
                ty: self.ty,
                data: enc(self.ty, &mut { zs }),
            },
        ];
        write_nc(
            self.v2,
            &[("ETOPO_X", cols as u32), ("ETOPO_Y", self.ny as u32)],
            &vars,
        )
    }

    /// Checks a reading of this grid against what was written.
    fn compare(&self, e: &Etopo) -> Result<(), String> {
        let want = (self.nx, self.ny, self.lat(0));
        if (e.nlon, e.nlat) != (want.0, want.1) || (e.lat0 - want.2).abs() > 1e-4 {
            return Err(format!(
                "read {}×{} from {}, wrote {want:?}",
                e.nlon, e.nlat, e.lat0
            ));
        }
        let lon0 = if self.axis_ty == 5 {
            self.lon0 as f32 as f64
        } else {
            self.lon0
        };
        if e.lon0 != lon0 {
            return Err(format!("lon0 {} ≠ {lon0}", e.lon0));
        }
        let fill = self.fill.map(|f| f as f32);
        for (k, (&got, &h)) in e.data.iter().zip(&self.heights).enumerate() {
            let h = h as f32;
            let want = if Some(h) == fill { 0.0 } else { h };
            if got != want {
                return Err(format!("height {k}: read {got}, wrote {h} (fill {fill:?})"));
            }
        }
        let fills = self.heights.iter().filter(|&&h| Some(h as f32) == fill);
        if e.fill_count != fills.count() {
            return Err(format!("fill count {}", e.fill_count));
        }
        Ok(())
    }
}

/// What a case must do.
#[derive(Debug)]
enum Expect {
    /// Read back exactly this grid.
    Grid(Box<Grid>),
    Refused,
    /// Either, as long as what is accepted is sound.
    Either,
}

#[derive(Debug)]
struct Case {
    expect: Expect,
    bytes: Vec<u8>,
}

/// A grid accepted from damaged bytes must still be one the renderer can sample.
fn sound(e: &Etopo) -> Result<(), String> {
    let lat1 = e.lat0 + (e.nlat - 1) as f64 * e.dlat;
    let ok = e.data.len() == e.nlat * e.nlon
        && e.data.iter().all(|v| v.is_finite())
        && e.dlat > 0.0
        && e.lat0 >= -90.0 - 1e-6
        && lat1 <= 90.0 + 1e-6
        && e.lon0.is_finite()
        && (e.dlon * e.nlon as f64 - 360.0).abs() < 1e-9;
    if !ok {
        return Err(format!(
            "unsound grid accepted: {}×{} from ({}, {}) step ({}, {})",
            e.nlat, e.nlon, e.lat0, e.lon0, e.dlat, e.dlon
        ));
    }
    let lo = e.data.iter().fold(f32::MAX, |a, &b| a.min(b)) as f64;
    let hi = e.data.iter().fold(f32::MIN, |a, &b| a.max(b)) as f64;
    for (lat, lon) in [
        (0.0, 0.0),
        (-90.0, 10.0),
        (90.0, -170.0),
        (45.5, 359.9),
        (-3.3, -181.0),
    ] {
        let h = e.reconstruct(lat, lon);
        if !(lo - 1e-3..=hi + 1e-3).contains(&h) {
            return Err(format!(
                "reconstruct({lat}, {lon}) = {h} outside [{lo}, {hi}]"
            ));
        }
    }
    Ok(())
}

fn check(c: &Case) -> Result<(), String> {
    let path = Path::new(FILE);
    let read = NcFile::from_bytes(path, c.bytes.clone())
        .map_err(|e| e.to_string())
        .and_then(|f| {
            for v in &f.vars {
                let n = f.len_of(v);
                if f.raw(v).len() != n * v.ty.size() || f.read_f64(v).len() != n {
                    return Err(format!("variable {} reads wrong length", v.name));
                }
            }
            Etopo::from_nc(&f).map_err(|e| e.to_string())
        });
    match (read, &c.expect) {
        (Err(msg), _) if !msg.contains(FILE) => Err(format!("error without the file: {msg}")),
        (Err(msg), Expect::Grid(_)) => Err(format!("valid file refused: {msg}")),
        (Err(_), _) => Ok(()),
        (Ok(_), Expect::Refused) => Err("damaged file accepted".into()),
        (Ok(e), Expect::Grid(g)) => g.compare(&e).and_then(|()| sound(&e)),
        (Ok(e), Expect::Either) => sound(&e),
    }
}

fn make(r: &mut Rng) -> Case {
    let grid = Grid::random(r);
    let (valid, fields) = grid.file();
    let (expect, bytes) = match r.below(10) {
        0 | 1 => {
            let mut b = match r.below(3) {
                0 => Vec::new(),
                1 => b"CDF\x01".to_vec(),
                _ => b"CDF\x02".to_vec(),
            };
            let n = r.below(600);
            b.extend(r.bytes(n));
            (Expect::Either, b)
        }
        2 | 3 => (Expect::Refused, valid[..r.below(valid.len())].to_vec()),
        4..=6 => (Expect::Either, mutate_bytes(r, &valid, 1 << 16)),
        7 => {
            let mut b = valid;
            let at = *r.pick(&fields);
            b[at..at + 4].copy_from_slice(&r.pick(HUGE_U32).to_be_bytes());
            (Expect::Refused, b)
        }
        _ => (Expect::Grid(Box::new(grid)), valid),
    };
    Case { expect, bytes }
}

#[test]
fn random_truncated_and_mutated_files_never_panic() {
    let report = run("netcdf+etopo", SEED, 12_000, PER_CASE, make, check);
    assert_eq!(report.cases, 12_000);
}

#[test]
fn every_prefix_of_a_valid_file_is_refused() {
    let grid = Grid::random(&mut Rng::new(SEED));
    let (valid, _) = grid.file();
    let mut len = 0;
    let prefixes = |_: &mut Rng| {
        len += 1;
        let b = valid[..len - 1].to_vec();
        Case {
            expect: Expect::Refused,
            bytes: b,
        }
    };
    run(
        "netcdf prefixes",
        SEED,
        valid.len(),
        PER_CASE,
        prefixes,
        check,
    );
    let whole = Case {
        expect: Expect::Grid(Box::new(grid)),
        bytes: valid,
    };
    check(&whole).unwrap();
}

#[test]
fn absurd_counts_are_refused_before_allocating() {
    // 2^31 dimensions (and other huge lists) in a 40-byte file: refused by size, not by an
    // allocation failure (which would abort the process rather than fail the test).
    for (tag, n) in [(0x0A, 1u32 << 31), (0x0A, u32::MAX), (0x0B, 1 << 30)] {
        let mut b = b"CDF\x01\0\0\0\0".to_vec();
        if tag == 0x0B {
            b.extend_from_slice(&[0; 16]);
        }
        b.extend_from_slice(&u32::to_be_bytes(tag));
        b.extend_from_slice(&n.to_be_bytes());
        b.extend_from_slice(&[0; 24]);
        let e = NcFile::from_bytes(Path::new(FILE), b)
            .err()
            .expect("refused");
        let msg = e.to_string();
        assert!(
            msg.contains(FILE) && msg.contains(&format!("claims {n} entries")),
            "{msg}"
        );
    }
}

#[test]
fn a_fill_value_matches_exactly() {
    // A tolerance around a small fill value once swallowed every height near it.
    let mut g = Grid::random(&mut Rng::new(3));
    g.ty = 3;
    g.heights = (0..g.nx * g.ny).map(|k| (k % 50) as f64 - 20.0).collect();
    g.fill = Some(-20.0);
    let (bytes, _) = g.file();
    let e = Etopo::from_nc(&NcFile::from_bytes(Path::new(FILE), bytes).unwrap()).unwrap();
    g.compare(&e).unwrap();
    assert_eq!(
        e.fill_count,
        g.heights.iter().filter(|&&h| h == -20.0).count()
    );
}

#[test]
fn the_shipped_etopo_files_load_and_their_mutations_are_handled() {
    let dir = Path::new("/usr/share/ferret-vis/data");
    let small = dir.join("etopo120.cdf");
    let Ok(real) = std::fs::read(&small) else {
        eprintln!("{} absent: skipped", small.display());
        return;
    };
    // etopo20 repeats its first column at +360° and has rows at cell centres.
    for (name, nlon, nlat) in [
        ("etopo120.cdf", 180, 90),
        ("etopo60.cdf", 360, 180),
        ("etopo40.cdf", 540, 270),
        ("etopo20.cdf", 1080, 540),
    ] {
        let e = Etopo::open(&dir.join(name)).unwrap();
        assert_eq!((e.nlon, e.nlat, e.fill_count), (nlon, nlat, 0), "{name}");
        sound(&e).unwrap();
    }
    let mutated = |r: &mut Rng| Case {
        expect: Expect::Either,
        bytes: if r.one_in(4) {
            real[..r.below(real.len())].to_vec()
        } else {
            mutate_bytes(r, &real, real.len() + 64)
        },
    };
    run("netcdf etopo120", SEED, 600, PER_CASE, mutated, check);
}
