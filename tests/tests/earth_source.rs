//! ETOPO reader checked against an independent raw scan of the file, and the geography the
//! issue names, through the same path as `planetfall height`.

mod earth_common;

use engine::earth::{etopo_path, Etopo};
use engine::ground::height_at_latlon;
use engine::params::LAST_STORED_LEVEL;
use std::path::Path;

/// The last 4320×2161 big-endian f32 of etopo5.cdf are the ROSE variable (it is the last
/// variable in the file: header 704 B, two f64 axes, then the grid, rows south → north).
fn raw_scan(bytes: &[u8]) -> Vec<f32> {
    let n = 4320 * 2161 * 4;
    bytes[bytes.len() - n..]
        .chunks_exact(4)
        .map(|c| f32::from_be_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

#[test]
fn reader_matches_a_raw_scan() {
    let path = etopo_path(None);
    let bytes = std::fs::read(&path).expect("etopo5.cdf");
    let raw = raw_scan(&bytes);
    let e = Etopo::open(&path).expect("reader");
    assert_eq!((e.nlon, e.nlat), (4320, 2161));
    assert_eq!(e.fill_count, 0);
    assert_eq!((e.lon0, e.lat0), (0.0, -90.0));
    assert!((e.dlon - 1.0 / 12.0).abs() < 1e-15 && (e.dlat - 1.0 / 12.0).abs() < 1e-12);
    assert_eq!(e.data, raw, "reader's grid differs from the raw array");
    // Coordinate axes: independent parse of the two f64 arrays just before the grid.
    let axis = |start: usize, n: usize| -> Vec<f64> {
        bytes[start..start + 8 * n]
            .chunks_exact(8)
            .map(|c| f64::from_be_bytes(c.try_into().unwrap()))
            .collect()
    };
    let grid_start = bytes.len() - raw.len() * 4;
    let ys = axis(grid_start - 8 * 2161, 2161);
    let xs = axis(grid_start - 8 * 2161 - 8 * 4320, 4320);
    assert_eq!((ys[0], ys[2160]), (-90.0, 90.0));
    assert_eq!(xs[0], 0.0);
    for (r, y) in ys.iter().enumerate() {
        assert!((e.lat0 + r as f64 * e.dlat - y).abs() < 1e-9, "row {r}");
    }
    // The file's longitude axis carries float32 spacing (0.0833341°): within 0.004° of 5′.
    for (c, x) in xs.iter().enumerate() {
        assert!((e.lon0 + c as f64 * e.dlon - x).abs() < 4e-3, "column {c}");
    }
    // Extremes: maximum in the Himalaya, minimum in the Mariana Trench.
    let (imax, max) = raw
        .iter()
        .enumerate()
        .fold((0, f32::MIN), |a, (i, &v)| if v > a.1 { (i, v) } else { a });
    let (imin, min) = raw
        .iter()
        .enumerate()
        .fold((0, f32::MAX), |a, (i, &v)| if v < a.1 { (i, v) } else { a });
    let at = |i: usize| (ys[i / 4320], xs[i % 4320]);
    let (lat, lon) = at(imax);
    assert!(
        max > 7000.0 && (26.0..37.0).contains(&lat) && (70.0..100.0).contains(&lon),
        "max {max} at {lat},{lon}"
    );
    let (lat, lon) = at(imin);
    assert!(
        min < -10_000.0 && (8.0..16.0).contains(&lat) && (140.0..150.0).contains(&lon),
        "min {min} at {lat},{lon}"
    );
    assert_eq!(e.node((imax / 4320) as i64, (imax % 4320) as i64), max);
    assert_eq!(e.node((imin / 4320) as i64, (imin % 4320) as i64), min);
    // Pole rows are constant (one point each) and reflection across the pole is continuous.
    assert!(raw[..4320].iter().all(|&v| v == raw[0]));
    assert_eq!(e.node(2161, 10), e.node(2159, 10 + 2160));
    assert_eq!(e.node(5, -1), e.node(5, 4319));
}

#[test]
fn coarse_grids_with_wrap_columns_and_cell_centres_load() {
    let p = Path::new("/usr/share/ferret-vis/data/etopo20.cdf");
    let e = Etopo::open(p).expect("etopo20");
    // 1081 columns in the file, the last repeating the first 360° on.
    assert_eq!((e.nlon, e.nlat), (1080, 540));
    assert!((e.lat0 + 89.8333333).abs() < 1e-6);
    let near_pole = e.reconstruct(89.99, 0.0) - e.reconstruct(89.99, 180.0);
    assert!(
        near_pole.abs() < 5.0,
        "pole reconstruction discontinuous: {near_pole}"
    );
}

#[test]
fn geography_through_the_height_path() {
    let o = earth_common::oracle(None, 1, 64 << 20);
    let l = LAST_STORED_LEVEL;
    let everest = height_at_latlon(&o, 27.988, 86.925, l);
    assert!(
        everest.height_m > 5000.0 && !everest.water,
        "Everest {everest:?}"
    );
    let deep = height_at_latlon(&o, 11.35, 142.2, l);
    assert!(
        deep.height_m < -8000.0 && deep.water,
        "Challenger Deep {deep:?}"
    );
    let pacific = height_at_latlon(&o, 0.0, -160.0, l);
    assert!(
        pacific.height_m < -4000.0 && pacific.water,
        "central Pacific {pacific:?}"
    );
    let london = height_at_latlon(&o, 51.5, -0.12, l);
    assert!(!london.water && london.height_m >= 0.0, "London {london:?}");
    let atlantic = height_at_latlon(&o, 30.0, -40.0, l);
    assert!(
        atlantic.water && atlantic.height_m < 0.0,
        "mid-Atlantic {atlantic:?}"
    );
}
