//! `planetfall height` reports the water mask (docs/earth.md "Water") at the points:
//! land below the datum is land, lakes carry their own levels, and without `gmt` the command
//! warns and falls back to the below-datum rule; and the climate the shading reads there.

mod common;

use common::{ok, scratch, text, BIN};
use std::process::Command;

/// What `planetfall height` prints at a point (level 2: one small tile).
fn height_at(lat: f64, lon: f64) -> String {
    let mut c = Command::new(BIN);
    c.args(["height", "--level", "2", "--lat", &lat.to_string()])
        .args(["--lon", &lon.to_string()]);
    ok(c)
}

/// The "water mask: …" part of `planetfall height` at a point.
fn mask_at(lat: f64, lon: f64) -> String {
    let out = height_at(lat, lon);
    out.split("water mask: ")
        .nth(1)
        .and_then(|s| s.lines().next())
        .unwrap_or_else(|| panic!("no water mask in {out}"))
        .trim()
        .to_string()
}

#[test]
fn height_reports_land_ocean_and_lakes_at_their_levels() {
    assert_eq!(mask_at(29.5, 27.0), "land", "Qattara Depression");
    assert_eq!(mask_at(36.25, -116.82), "land", "Death Valley");
    assert_eq!(mask_at(52.45, 4.95), "land", "Amsterdam");
    assert_eq!(mask_at(30.0, -40.0), "ocean", "mid-Atlantic");
    assert_eq!(mask_at(42.0, 50.5), "lake at -28.0 m (Caspian Sea)");
    let dead = mask_at(31.5, 35.5);
    let level: f64 = dead
        .strip_prefix("lake at ")
        .and_then(|s| s.split(' ').next())
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("Dead Sea: {dead}"));
    // −430 m in 2016, ≈ −435 m lately.
    assert!((level + 432.0).abs() <= 5.0, "Dead Sea: {dead}");
    // The tiles' own cover agrees with the mask: Qattara's floor is land below the datum, the
    // Caspian's samples hold its level.
    let q = height_at(29.5, 27.0);
    assert!(q.contains(" m land (tile"), "Qattara's tiles: {q}");
    let c = height_at(42.0, 50.5);
    let h: f64 = c
        .split(" m water (tile")
        .next()
        .and_then(|s| s.rsplit(' ').next())
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("the Caspian's tiles: {c}"));
    assert!(
        (h + 28.0).abs() <= 0.2,
        "the Caspian's tiles at its level: {c}"
    );
    // The climate the shading reads: Tibet's interior is arid, high, and its snow line lies
    // where it is observed (5,500–6,000 m on the Tanggula; docs/look.md "Snow lines").
    let t = height_at(31.5, 92.0);
    let num = |key: &str| -> f64 {
        t.split(key)
            .nth(1)
            .and_then(|s| s.trim_start().split([' ', ',']).next())
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("no {key:?} in {t}"))
    };
    let (wet, region, line) = (num("wetness"), num("mean height"), num("snow line"));
    assert!(wet < 0.3, "Tibet is arid: {t}");
    assert!(region > 4_000.0, "Tibet is high: {t}");
    assert!(
        (5_500.0..=6_000.0).contains(&line),
        "Tibet's snow line: {t}"
    );
}

#[test]
fn without_gmt_height_warns_and_uses_the_below_datum_rule() {
    let dir = scratch("height-nogmt");
    let o = Command::new(BIN)
        .args([
            "height", "--level", "2", "--lat", "29.5", "--lon", "27.0", "--water",
        ])
        .arg(dir.join("absent.bb"))
        .env("PLANETFALL_GMT", dir.join("no-gmt"))
        .output()
        .expect("runs");
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}\n{err}");
    assert!(
        out.contains("water mask: ocean (no mask: the below-datum rule)"),
        "Qattara floods by the old rule: {out}"
    );
    assert!(err.contains("apt-get install gmt gmt-gshhg-full"), "{err}");
    assert_eq!(err.matches("water mask unavailable").count(), 1, "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
