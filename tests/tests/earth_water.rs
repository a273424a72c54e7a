//! The water mask over the real Earth (GSHHG through `gmt grdlandmask`, docs/earth.md
//! "Water"): land below the datum stays land, the sea and lakes are water, lakes at their own
//! levels. The mask is the shared one of the default data directory (built once per machine,
//! about 40 s; `PLANETFALL_WATER` names another file).

use engine::earth::lakes::{LakeLevel, NAMED_LAKES};
use engine::earth::water::{mask_path, Water, WaterMap, WaterMask};
use engine::earth::{etopo_path, Etopo};
use engine::store::data_dir;
use std::sync::OnceLock;

fn etopo() -> &'static Etopo {
    static E: OnceLock<Etopo> = OnceLock::new();
    E.get_or_init(|| Etopo::open(&etopo_path(None)).unwrap_or_else(|e| panic!("{e}")))
}

fn mask() -> &'static WaterMask {
    static M: OnceLock<WaterMask> = OnceLock::new();
    M.get_or_init(|| {
        let path = mask_path(None, &data_dir(None));
        let gmt = std::env::var(engine::earth::water::GMT_ENV).unwrap_or("gmt".into());
        WaterMap::try_open(&path, &gmt, etopo()).unwrap_or_else(|e| panic!("{e}"))
    })
}

#[test]
fn land_below_the_datum_is_land_and_the_sea_and_lakes_are_water() {
    let m = mask();
    let e = etopo();
    // Below the datum in ETOPO5 (−45 m, −3.75 m) and dry in fact.
    for (name, lat, lon) in [
        ("Qattara Depression", 29.5, 27.0),
        ("Amsterdam", 52.45, 4.95),
    ] {
        assert_eq!(m.water_at(lat, lon), Water::Land, "{name}");
        assert!(
            e.reconstruct(lat, lon) < 0.0,
            "{name} is below the datum in ETOPO5"
        );
    }
    // Below the datum in fact (−86 m at Badwater), above it in ETOPO5's 5′ cells.
    assert_eq!(m.water_at(36.25, -116.82), Water::Land, "Death Valley");
    assert_eq!(m.water_at(30.0, -40.0), Water::Ocean, "mid-Atlantic");
    assert_eq!(m.water_at(0.0, -160.0), Water::Ocean, "central Pacific");
    assert_eq!(
        m.water_at(43.0, 34.0),
        Water::Ocean,
        "the Black Sea joins the sea"
    );
    assert_eq!(m.water_at(27.988, 86.925), Water::Land, "Everest");
    // Lakes at their published levels (the Caspian −28 m; the Dead Sea −430 m in 2016,
    // ≈ −435 m lately), independent of the table's exact figures: within 5 m.
    for (name, lat, lon, want) in [
        ("Caspian Sea", 42.0, 50.5, -28.0),
        ("Dead Sea", 31.5, 35.5, -432.0),
        ("Lake Titicaca", -15.8, -69.4, 3812.0),
    ] {
        match m.water_at(lat, lon) {
            Water::Lake { level_m } => {
                assert!(
                    (level_m - want).abs() <= 5.0,
                    "{name}: {level_m} m, want {want}"
                )
            }
            w => panic!("{name}: {w:?}"),
        }
    }
    // ETOPO5 misses the Dead Sea (+25.7 m there) and holds Lake Michigan's surface 5 m low.
    assert!(e.reconstruct(31.5, 35.5) > 0.0);
}

#[test]
fn every_named_lake_lies_in_a_lake_of_the_mask_and_takes_its_level() {
    let m = mask();
    for l in NAMED_LAKES {
        let lake = m
            .lake_at(l.lat, l.lon)
            .unwrap_or_else(|| panic!("{} ({}, {}) is not in a lake", l.name, l.lat, l.lon));
        assert_eq!(lake.level_m, l.level_m, "{}", l.name);
        assert!(matches!(lake.source, LakeLevel::Named(_)), "{}", l.name);
    }
    // Michigan and Huron are one water body.
    assert_eq!(
        m.lake_at(43.5, -87.0).map(|l| l.cells),
        m.lake_at(44.8, -82.4).map(|l| l.cells)
    );
}

#[test]
fn the_shore_rule_finds_most_named_lakes_levels() {
    let m = mask();
    let mut errors = Vec::new();
    let mut names: Vec<&str> = Vec::new();
    for l in NAMED_LAKES {
        if names.contains(&l.name) {
            continue;
        }
        names.push(l.name);
        let lake = m.lake_at(l.lat, l.lon).unwrap();
        println!(
            "{:<18} published {:>8.1} m  shore rule {:>8.1} m  {} cells",
            l.name, l.level_m, lake.shore_m, lake.cells
        );
        errors.push((lake.shore_m - l.level_m).abs());
    }
    errors.sort_by(f64::total_cmp);
    let median = errors[errors.len() / 2];
    println!("median error {median:.1} m");
    // Measured 9.0 m (GSHHG 2.3.7 at 2′ over ETOPO5).
    assert!(
        median <= 12.0,
        "median |shore rule − published| {median:.1} m"
    );
}
