//! Camera paths: recorded at ≤ 10 samples per second to a small text file under `captures/`
//! (`t lat lon alt heading pitch fov` per line, seconds/degrees/metres above the datum) and
//! played back by linear interpolation (heading the short way round).

use super::flight::Pose;
use anyhow::{bail, Context as _, Result};
use std::path::Path;

/// Seconds between recorded samples.
const SAMPLE_S: f64 = 0.1;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct CameraPath {
    /// (seconds from the start, pose), increasing in time.
    pub samples: Vec<(f64, Pose)>,
}

impl CameraPath {
    /// Add a sample at time `t` unless the last one is younger than the sampling period.
    pub fn record(&mut self, t: f64, pose: Pose) {
        if self.samples.last().is_none_or(|(t0, _)| t - t0 >= SAMPLE_S) {
            self.samples.push((t, pose));
        }
    }

    pub fn duration(&self) -> f64 {
        self.samples.last().map(|s| s.0).unwrap_or(0.0)
    }

    /// The pose at time `t` (clamped to the path's ends).
    pub fn at(&self, t: f64) -> Option<Pose> {
        let s = &self.samples;
        let i = s.partition_point(|(ti, _)| *ti <= t);
        if i == 0 {
            return s.first().map(|x| x.1);
        }
        if i == s.len() {
            return s.last().map(|x| x.1);
        }
        let ((t0, a), (t1, b)) = (s[i - 1], s[i]);
        let f = ((t - t0) / (t1 - t0).max(1e-9)).clamp(0.0, 1.0);
        let lerp = |x: f64, y: f64| x + (y - x) * f;
        let dh = (b.heading - a.heading + 540.0).rem_euclid(360.0) - 180.0;
        let dlon = (b.lon - a.lon + 540.0).rem_euclid(360.0) - 180.0;
        Some(Pose {
            lat: lerp(a.lat, b.lat),
            lon: a.lon + dlon * f,
            alt: lerp(a.alt, b.alt),
            heading: (a.heading + dh * f).rem_euclid(360.0),
            pitch: lerp(a.pitch, b.pitch),
            fov: lerp(a.fov, b.fov),
        })
    }

    pub fn to_text(&self) -> String {
        let mut s = String::from(
            "# planetfall camera path: t lat lon alt heading pitch fov (s, deg, m above datum)\n",
        );
        for (t, p) in &self.samples {
            s += &format!(
                "{t:.3} {:.7} {:.7} {:.2} {:.3} {:.3} {:.2}\n",
                p.lat, p.lon, p.alt, p.heading, p.pitch, p.fov
            );
        }
        s
    }

    pub fn parse(text: &str, file: &Path) -> Result<CameraPath> {
        let mut out = CameraPath::default();
        for (at, raw, fields) in super::data_lines(text, file) {
            let want = "want seven numbers `t lat lon alt heading pitch fov`";
            let v: Vec<f64> = fields
                .iter()
                .map(|t| t.parse::<f64>())
                .collect::<Result<_, _>>()
                .ok()
                .filter(|v: &Vec<f64>| v.iter().all(|x| x.is_finite()))
                .with_context(|| format!("{at}: {want}: {raw:?}"))?;
            let [t, lat, lon, alt, heading, pitch, fov] = v[..] else {
                bail!("{at}: {want}, found {}", v.len());
            };
            // The bookmarks' ranges, and a clock from 0 to ~4 months: a finite but absurd
            // value would still break the camera (fov 0, latitude 1000°) or the playback.
            for (what, v, lo, hi) in [
                ("time", t, 0.0, 1e7),
                ("latitude", lat, -90.0, 90.0),
                ("longitude", lon, -180.0, 360.0),
                ("altitude", alt, -12_000.0, 1e9),
                ("heading", heading, -360.0, 360.0),
                ("pitch", pitch, -90.0, 90.0),
                ("fov", fov, 1.0, 170.0),
            ] {
                if !(lo..=hi).contains(&v) {
                    bail!("{at}: {what} {v} is outside [{lo}, {hi}]");
                }
            }
            if out.samples.last().is_some_and(|(t0, _)| t < *t0) {
                bail!("{at}: time {t} goes backwards");
            }
            out.samples.push((
                t,
                Pose {
                    lat,
                    lon,
                    alt,
                    heading,
                    pitch,
                    fov,
                },
            ));
        }
        if out.samples.is_empty() {
            bail!("{}: no samples", file.display());
        }
        Ok(out)
    }

    pub fn load(path: &Path) -> Result<CameraPath> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("reading camera path {}", path.display()))?;
        CameraPath::parse(&text, path)
    }

    pub fn save(&self, path: &Path) -> Result<()> {
        if let Some(d) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(d).with_context(|| format!("creating {}", d.display()))?;
        }
        std::fs::write(path, self.to_text())
            .with_context(|| format!("writing camera path {}", path.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(lon: f64, heading: f64) -> Pose {
        Pose {
            lat: 10.0,
            lon,
            alt: 1000.0,
            heading,
            pitch: -5.0,
            fov: 60.0,
        }
    }

    #[test]
    fn record_round_trip_and_interpolate() {
        let mut path = CameraPath::default();
        path.record(0.0, p(179.0, 350.0));
        path.record(0.05, p(0.0, 0.0)); // too soon: dropped
        path.record(1.0, p(-179.0, 10.0));
        assert_eq!(path.samples.len(), 2);
        let mid = path.at(0.5).unwrap();
        assert!(
            (mid.heading.rem_euclid(360.0)).min(360.0 - mid.heading) < 1e-9,
            "{}",
            mid.heading
        );
        assert!(
            (mid.lon.abs() - 180.0).abs() < 1e-9,
            "across the antimeridian: {}",
            mid.lon
        );
        let f = Path::new("p.txt");
        let back = CameraPath::parse(&path.to_text(), f).unwrap();
        assert_eq!(back.samples.len(), 2);
        assert_eq!(path.at(5.0), Some(path.samples[1].1));
        let e = CameraPath::parse("0 1 2 3\n", f).unwrap_err().to_string();
        assert!(e.contains("p.txt:1"), "{e}");
    }
}
