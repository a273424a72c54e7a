use super::*;
use crate::earth::etopo::etopo_path;
use crate::planet::Body;
use std::sync::OnceLock;

/// The arid and wet thresholds of the shading (`MAT_WET_ARID` in
/// shaders/common/material.glsl): arid below the first, plant cover full above the second.
const ARID_BELOW: f64 = 0.30;
const WET_ABOVE: f64 = 0.60;

/// Köppen BW (desert) places.
const ARID: [(&str, f64, f64); 10] = [
    ("Sahara", 23.0, 10.0),
    ("Rub al Khali", 21.0, 50.0),
    ("Thar", 27.0, 71.0),
    ("Taklamakan", 39.0, 83.0),
    ("Gobi", 43.0, 105.0),
    ("Atacama", -24.0, -69.5),
    ("Namib", -24.0, 15.0),
    ("central Australia", -25.0, 133.0),
    ("Mojave/Grand Canyon", 36.0, -113.0),
    ("Patagonian steppe", -45.0, -69.0),
];

/// Köppen A and C (humid) places.
const WET: [(&str, f64, f64); 14] = [
    ("Kolkata", 22.5, 88.3),
    ("Dhaka", 23.8, 90.4),
    ("Guangzhou", 23.0, 113.0),
    ("Shanghai", 31.0, 121.5),
    ("Orlando", 28.5, -81.4),
    ("Atlanta", 33.7, -84.4),
    ("Kathmandu", 27.7, 85.3),
    ("Mumbai", 19.0, 72.8),
    ("Hanoi", 21.0, 105.8),
    ("São Paulo", -23.5, -46.6),
    ("Brisbane", -27.5, 153.0),
    ("Valdivia", -39.8, -73.2),
    ("Manaus", -3.0, -60.0),
    ("Paris", 48.9, 2.3),
];

fn mask_source() -> Source {
    let src = Source::open(&etopo_path(None), Body::EARTH).expect("ETOPO5");
    let dir = crate::store::datadir::data_dir(None);
    src.with_mask_at(&crate::earth::water::mask_path(None, &dir))
}

fn climate() -> &'static Climate {
    static C: OnceLock<Climate> = OnceLock::new();
    C.get_or_init(|| {
        let src = mask_source();
        let t = std::time::Instant::now();
        let c = Climate::of(&src);
        println!("field made in {:.2} s", t.elapsed().as_secs_f64());
        c
    })
}

/// Which of the named places fall on the wrong side of their threshold, and the table.
fn misplaced(c: &Climate) -> (Vec<String>, String) {
    let mut wrong = Vec::new();
    let mut table = String::new();
    for (name, lat, lon) in ARID {
        let w = c.wetness(lat, lon);
        let ok = w < ARID_BELOW;
        table += &format!(
            "arid {name:22} {lat:6.1} {lon:7.1}  {w:.3} {}\n",
            if ok { "ok" } else { "WRONG" }
        );
        if !ok {
            wrong.push(format!("{name} {w:.3}"));
        }
    }
    for (name, lat, lon) in WET {
        let w = c.wetness(lat, lon);
        let ok = w > WET_ABOVE;
        table += &format!(
            "wet  {name:22} {lat:6.1} {lon:7.1}  {w:.3} {}\n",
            if ok { "ok" } else { "WRONG" }
        );
        if !ok {
            wrong.push(format!("{name} {w:.3}"));
        }
    }
    (wrong, table)
}

#[test]
#[ignore]
fn more_places() {
    let c = climate();
    for (name, lat, lon) in [
        ("Moscow", 55.7, 37.6),
        ("Novosibirsk", 55.0, 83.0),
        ("Yakutsk", 62.0, 129.7),
        ("Ulaanbaatar", 47.9, 106.9),
        ("Kazakh steppe", 48.0, 68.0),
        ("Chicago", 41.9, -87.6),
        ("Winnipeg", 49.9, -97.1),
        ("Denver", 39.7, -105.0),
        ("Madrid", 40.4, -3.7),
        ("Beijing", 39.9, 116.4),
        ("Lhasa", 29.7, 91.1),
        ("Delhi", 28.6, 77.2),
        ("Nairobi", -1.3, 36.8),
        ("Kinshasa", -4.3, 15.3),
        ("Lagos", 6.5, 3.4),
        ("Sahel Niamey", 13.5, 2.1),
        ("Lima", -12.0, -77.0),
        ("Perth", -31.9, 115.9),
        ("Cape Town", -33.9, 18.4),
        ("Darwin", -12.5, 130.8),
        ("Seattle", 47.6, -122.3),
        ("Boston", 42.4, -71.1),
    ] {
        println!("{name:16} {:.3}", c.wetness(lat, lon));
    }
}

#[test]
#[ignore]
fn regimes_at_named_places() {
    let g = Ground::of(&mask_source());
    for (name, lat, lon) in ARID.iter().chain(WET.iter()) {
        let a = moisture(&g, *lat, *lon, prevailing_wind);
        let b = moisture(&g, *lat, *lon, monsoon_wind);
        println!(
            "{name:22} prevailing q {a:.3} eff {:.3}  monsoon q {b:.3} eff {:.3}",
            efficiency_prevailing(*lat),
            efficiency_monsoon(*lat)
        );
    }
}

/// Places the model gets wrong, and why (docs/look.md, "The climate"): its monsoon blows
/// from the south-south-east everywhere, so the south-west monsoon of the Arabian Sea, which
/// runs along Arabia's coast, instead blows onshore over Arabia (the Rub al Khali's real
/// dryness is the subsidence the Asian monsoon drives west of it); Patagonia's steppe lies
/// behind Andes that the 0.5° grid lowers to about a kilometre, and the storm tracks' long
/// reach leaves it semi-arid rather than a desert.
const KNOWN_MISSES: [&str; 2] = ["Rub al Khali", "Patagonian steppe"];

#[test]
fn deserts_are_arid_and_monsoon_and_humid_coasts_are_wet() {
    let c = climate();
    let (wrong, table) = misplaced(c);
    println!("{table}");
    let unexpected: Vec<&String> = wrong
        .iter()
        .filter(|w| !KNOWN_MISSES.iter().any(|k| w.starts_with(k)))
        .collect();
    assert!(
        unexpected.is_empty(),
        "{} of 24 on the wrong side, {unexpected:?} not among the known misses\n{table}",
        wrong.len()
    );
    assert!(wrong.len() <= KNOWN_MISSES.len(), "{wrong:?}");
}

#[test]
fn the_field_is_continuous_across_the_antimeridian_and_at_the_poles() {
    let c = climate();
    for lat in [-60.0, -16.5, 0.25, 52.0, 66.0] {
        let (a, b) = (c.wetness(lat, 179.999_999), c.wetness(lat, -180.0));
        assert!((a - b).abs() < 1e-5, "{lat}: {a} {b}");
    }
    for pole in [-90.0, 90.0] {
        let v: Vec<f64> = (0..12)
            .map(|k| c.wetness(pole, -180.0 + 30.0 * k as f64))
            .collect();
        assert!(v.iter().all(|&x| (x - v[0]).abs() < 1e-6), "{pole}: {v:?}");
    }
    assert!(c.wet.iter().all(|v| (0.0..=1.0).contains(v)));
}

#[test]
fn without_a_water_mask_the_field_still_finds_the_sea() {
    // The fallback (water = ETOPO below the datum) must give the same broad picture.
    let src = Source::open(&etopo_path(None), Body::EARTH).expect("ETOPO5");
    assert!(!src.has_water_mask());
    let c = Climate::of(&src);
    for (name, lat, lon) in [("Sahara", 23.0, 10.0), ("Gobi", 43.0, 105.0)] {
        assert!(c.wetness(lat, lon) < ARID_BELOW, "{name}");
    }
    for (name, lat, lon) in [
        ("Kolkata", 22.5, 88.3),
        ("Paris", 48.9, 2.3),
        ("Brisbane", -27.5, 153.0),
    ] {
        assert!(c.wetness(lat, lon) > WET_ABOVE, "{name}");
    }
}

#[test]
fn the_latitude_belt_is_the_old_climate() {
    let c = Climate::latitude_belt();
    for lat in [0.0f64, 28.0, 47.0, 89.5] {
        let want = wet_belt(lat.to_radians().sin().powi(2));
        assert!((c.wetness(lat, 33.3) - want).abs() < 0.01, "{lat}");
    }
}

#[test]
fn the_field_is_kept_in_the_data_directory_and_a_bad_file_is_made_again() {
    let src = Source::open(&etopo_path(None), Body::EARTH).expect("ETOPO5");
    let dir = std::env::temp_dir().join(format!("pf-climate-{}", std::process::id()));
    let path = dir.join(format!("climate-v{CLIMATE_VERSION}.f32"));
    let made = Climate::cached(&src, Some(&dir));
    let bytes = std::fs::read(&path).expect("written");
    assert_eq!(bytes.len(), 16 + 8 * CLIMATE_NLON * CLIMATE_NLAT + 4);
    let read = Climate::cached(&src, Some(&dir));
    assert_eq!(read.wet, made.wet);
    assert_eq!(read.region_h, made.region_h);
    // One value flipped: the CRC refuses the file, the field is made again and rewritten.
    let mut bad = bytes.clone();
    bad[16 + 4 * 1000] ^= 0x40;
    assert!(Climate::decode(&bad).is_none());
    std::fs::write(&path, &bad).unwrap();
    assert_eq!(Climate::cached(&src, Some(&dir)).wet, made.wet);
    assert_eq!(std::fs::read(&path).unwrap(), bytes);
    // A file of the old layout (the wetness alone) is refused likewise.
    let mut old = bytes[..16 + 4 * CLIMATE_NLON * CLIMATE_NLAT].to_vec();
    old.extend_from_slice(&crc32fast::hash(&old[16..]).to_le_bytes());
    assert!(Climate::decode(&old).is_none());
    let _ = std::fs::remove_dir_all(&dir);
}

/// Observed snow lines (the climatic snow line or glaciers' equilibrium-line altitude, m), from
/// regional glaciology: the Andes of Ecuador (Chimborazo, Cotopaxi), the Khumbu (Everest's
/// south side), the Tibetan plateau's interior (Tanggula, Nyainqêntanglha), its west (Ngari,
/// the highest of the northern hemisphere), the Karakoram, the Pamir, the Alps (Mont Blanc),
/// the Caucasus, the dry Andes of the Altiplano.
const SNOW_LINES: [(&str, f64, f64, f64, f64); 9] = [
    ("the Andes of Ecuador", -0.5, -78.5, 4_700.0, 5_100.0),
    ("the Khumbu", 27.95, 86.8, 5_200.0, 5_800.0),
    ("Tibet's interior", 31.5, 92.0, 5_500.0, 6_000.0),
    ("western Tibet", 33.5, 82.0, 5_600.0, 6_300.0),
    ("the Karakoram", 35.9, 76.5, 4_900.0, 5_600.0),
    ("the Pamir", 38.5, 73.0, 4_400.0, 5_300.0),
    ("the Alps", 45.83, 6.86, 2_600.0, 3_100.0),
    ("the Caucasus", 43.1, 42.5, 3_000.0, 3_600.0),
    ("the Altiplano", -18.0, -68.0, 5_600.0, 6_500.0),
];

/// The shading's snow line (`snow_line_m` over this field) lies within the observed range at
/// each of the named places; without the region's warming (a peak alone at the same place) it
/// lies below Tibet's and the Khumbu's by over 500 m: the plateau would be a snowfield.
#[test]
fn the_snow_line_lies_where_it_is_observed() {
    let c = climate();
    let mut table = String::new();
    let mut wrong = Vec::new();
    for (name, lat, lon, lo, hi) in SNOW_LINES {
        let (w, rh) = (c.wetness(lat, lon), c.region_height(lat, lon));
        let line = snow_line_m(lat, w, rh);
        let alone = snow_line_m(lat, w, 0.0);
        table += &format!(
            "{name:22} wet {w:.2} region {rh:5.0} m: snow line {line:5.0} m (observed {lo:.0}–{hi:.0}; without the region {alone:5.0})\n"
        );
        if !(lo..=hi).contains(&line) {
            wrong.push(name);
        }
        if name.starts_with("Tibet") || name == "the Khumbu" {
            assert!(line - alone > 500.0, "{name}: {line} vs {alone}\n{table}");
        }
    }
    // Maritime mountains, where snowfall rather than temperature sets the line: not fitted,
    // printed for docs/look.md (New Zealand's Southern Alps, the Patagonian icefields,
    // Jostedalsbreen).
    for (name, lat, lon, lo, hi) in [
        ("the Southern Alps", -43.5, 170.3, 1_600.0, 2_000.0),
        ("Patagonia", -49.0, -73.3, 1_000.0, 1_500.0),
        ("western Norway", 61.7, 7.0, 1_200.0, 1_600.0),
    ] {
        let line = snow_line_m(lat, c.wetness(lat, lon), c.region_height(lat, lon));
        table +=
            &format!("{name:22} snow line {line:5.0} m (observed {lo:.0}–{hi:.0}; not fitted)\n");
    }
    println!("{table}");
    assert!(wrong.is_empty(), "{wrong:?}\n{table}");
    // The ice sheets are snow down to their margins: poleward of the polar regime neither
    // aridity nor the region's height lifts the line (Greenland's ice meets the land at a few
    // hundred metres, Antarctica's the sea).
    for (name, lat, lon, margin) in [
        ("Greenland", 72.0, -40.0, 300.0),
        ("Antarctica", -80.0, 0.0, 0.0),
    ] {
        let line = snow_line_m(lat, c.wetness(lat, lon), c.region_height(lat, lon));
        assert!(line < margin, "{name}: snow line {line} m");
    }
}
