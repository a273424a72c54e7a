//! The sun's place from a date: the subsolar point (where the sun stands at the zenith) from
//! the low-precision solar coordinates of the Astronomical Almanac (Meeus, "Astronomical
//! Algorithms", ch. 25; about 0.01° from 1950 to 2050), and the UTC timestamps `--time` reads.

use glam::DVec3;

/// Julian date of the Unix epoch (1970-01-01 00:00 UTC).
const JD_UNIX_EPOCH: f64 = 2_440_587.5;
/// Julian date of J2000.0 (2000-01-01 12:00 TT; UTC differs by about a minute, 0.004°).
const JD_J2000: f64 = 2_451_545.0;

/// Latitude and longitude (degrees; geocentric, as `planet::latlon_to_dir` takes them) of the
/// point with the sun at its zenith `unix_s` seconds after the Unix epoch.
pub fn subsolar_point(unix_s: f64) -> (f64, f64) {
    let n = unix_s / 86_400.0 + JD_UNIX_EPOCH - JD_J2000;
    let l = 280.460 + 0.985_647_4 * n; // mean longitude, degrees
    let g = (357.528 + 0.985_600_3 * n).to_radians(); // mean anomaly
    let lambda = (l + 1.915 * g.sin() + 0.020 * (2.0 * g).sin()).to_radians(); // ecliptic longitude
    let eps = (23.439 - 0.000_000_4 * n).to_radians(); // obliquity of the ecliptic
    let ra = (eps.cos() * lambda.sin()).atan2(lambda.cos()).to_degrees();
    let dec = (eps.sin() * lambda.sin()).asin().to_degrees();
    // Greenwich mean sidereal time, degrees (Meeus 12.4, first-order terms).
    let gmst = 280.460_618_37 + 360.985_647_366_29 * n;
    let lon = (ra - gmst + 180.0).rem_euclid(360.0) - 180.0;
    (dec, lon)
}

/// The direction to the sun (planet-fixed, unit) at `unix_s`: the sun is far enough that it
/// is the same from every point of the planet (8.8″ of parallax).
pub fn sun_direction(unix_s: f64) -> DVec3 {
    let (lat, lon) = subsolar_point(unix_s);
    crate::planet::latlon_to_dir(lat, lon)
}

/// Seconds since the Unix epoch of a UTC timestamp `YYYY-MM-DDTHH:MM[:SS][Z]` (a space may
/// stand for the `T`).
pub fn parse_utc(s: &str) -> Result<f64, String> {
    let bad = || format!("{s:?} is not a UTC time YYYY-MM-DDTHH:MM[:SS][Z]");
    let t = s.trim().trim_end_matches(['Z', 'z']);
    let (date, time) = t.split_once(['T', 't', ' ']).ok_or_else(bad)?;
    let num = |x: &str| x.parse::<i64>().map_err(|_| bad());
    let d: Vec<&str> = date.split('-').collect();
    let h: Vec<&str> = time.split(':').collect();
    if d.len() != 3 || !(2..=3).contains(&h.len()) {
        return Err(bad());
    }
    let (y, mo, da) = (num(d[0])?, num(d[1])?, num(d[2])?);
    let (hh, mm) = (num(h[0])?, num(h[1])?);
    let ss: f64 = match h.get(2) {
        Some(x) => x.parse().map_err(|_| bad())?,
        None => 0.0,
    };
    if !(1..=12).contains(&mo)
        || !(1..=31).contains(&da)
        || !(0..24).contains(&hh)
        || !(0..60).contains(&mm)
        || !(0.0..61.0).contains(&ss)
    {
        return Err(bad());
    }
    let days = days_from_civil(y, mo, da);
    Ok(days as f64 * 86_400.0 + (hh * 3600 + mm * 60) as f64 + ss)
}

/// Days from 1970-01-01 to a proleptic Gregorian date (Hinnant's `days_from_civil`).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_parse_to_unix_seconds() {
        assert_eq!(parse_utc("1970-01-01T00:00Z"), Ok(0.0));
        // 2000-01-01 12:00 UTC is 946,728,000 s (date -d @946728000 -u).
        assert_eq!(parse_utc("2000-01-01 12:00:00"), Ok(946_728_000.0));
        assert_eq!(parse_utc("2024-02-29T23:59:30Z"), Ok(1_709_251_170.0));
        for bad in ["2024-13-01T00:00", "2024-01-01", "noon", "2024-01-01T25:00"] {
            assert!(parse_utc(bad).is_err(), "{bad}");
        }
    }

    /// Against the almanac: the equinox and the solstice of 2024 (USNO: March 20 03:06 UTC,
    /// June 20 20:51 UTC), and the equation of time on November 3 (+16.4 min: at 12:00 UTC
    /// the sun stands 4.1° west of Greenwich).
    #[test]
    fn the_subsolar_point_follows_the_almanac() {
        let at = |s: &str| subsolar_point(parse_utc(s).unwrap());
        let (lat, _) = at("2024-03-20T03:06Z");
        assert!(lat.abs() < 0.02, "equinox declination {lat}");
        let (lat, _) = at("2024-06-20T20:51Z");
        assert!((lat - 23.44).abs() < 0.02, "solstice declination {lat}");
        let (_, lon) = at("2024-11-03T12:00Z");
        assert!((lon + 4.1).abs() < 0.1, "subsolar longitude {lon}");
        // The sun crosses a meridian 15° west of the last each hour.
        let (_, a) = at("2024-11-03T13:00Z");
        assert!((a - lon + 15.0).abs() < 0.05, "{a} after {lon}");
    }
}
