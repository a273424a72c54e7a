//! Views kept as data: `captures/bookmarks.txt`, one view per line
//! `name lat lon height heading pitch fov [tags]` (degrees, metres). `height` is metres above
//! the datum (`12000` or `12000alt`) or above the ground (`300agl`); `tags` is an optional
//! comma-separated list (`quick`: in `planetfall bench --quick`). `#` starts a comment. The
//! viewer, `render`, `capture`, the benchmark (`captures/views.txt`) and the tests share the
//! format and this parser.

use anyhow::{bail, Context as _, Result};
use std::path::{Path, PathBuf};

/// Default bookmark file, relative to the working directory (the repository root).
pub const DEFAULT_FILE: &str = "captures/bookmarks.txt";

/// How high the camera is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Height {
    /// Metres above the datum (sea level sphere).
    Datum(f64),
    /// Metres above the ground under the camera (CPU ground query).
    Ground(f64),
}

impl std::fmt::Display for Height {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Height::Datum(m) => write!(f, "{m}"),
            Height::Ground(m) => write!(f, "{m}agl"),
        }
    }
}

/// A geographic view (`docs/conventions.md`, Camera).
#[derive(Clone, Debug, PartialEq)]
pub struct Bookmark {
    pub name: String,
    pub lat: f64,
    pub lon: f64,
    pub height: Height,
    pub heading: f64,
    pub pitch: f64,
    pub fov: f64,
    /// Optional labels (`quick`, …), in file order.
    pub tags: Vec<String>,
}

impl Bookmark {
    /// The line that reads back as this bookmark.
    pub fn to_line(&self) -> String {
        let line = format!(
            "{} {:.6} {:.6} {} {:.3} {:.3} {:.2}",
            self.name, self.lat, self.lon, self.height, self.heading, self.pitch, self.fov
        );
        if self.tags.is_empty() {
            line
        } else {
            format!("{line} {}", self.tags.join(","))
        }
    }

    pub fn has_tag(&self, tag: &str) -> bool {
        self.tags.iter().any(|t| t.eq_ignore_ascii_case(tag))
    }
}

/// Parse `12000`, `12000alt` or `300agl`: metres above the datum in [−12,000, 10⁹] (below
/// the deepest trench to far beyond any orbit view) or above the ground in [0, 10⁹]. Larger
/// magnitudes are typos, and would cost the camera its precision.
pub fn parse_height(s: &str) -> Option<Height> {
    let (num, agl) = if let Some(n) = s.strip_suffix("agl") {
        (n, true)
    } else {
        (s.strip_suffix("alt").unwrap_or(s), false)
    };
    let lo = if agl { 0.0 } else { -12_000.0 };
    let v: f64 = num.parse().ok().filter(|v| (lo..=1e9).contains(v))?;
    Some(if agl {
        Height::Ground(v)
    } else {
        Height::Datum(v)
    })
}

/// Parse a bookmark file's text; errors name `file` and the line.
pub fn parse(text: &str, file: &Path) -> Result<Vec<Bookmark>> {
    let mut out: Vec<Bookmark> = Vec::new();
    // Lower-cased names seen: a linear duplicate check, so a long file cannot stall parsing.
    let mut names = std::collections::HashSet::new();
    for (place, raw, t) in crate::lines::data_lines(text, file) {
        let at = || place.clone();
        if t.len() != 7 && t.len() != 8 {
            bail!(
                "{}: want `name lat lon height heading pitch fov [tags]` (7 or 8 fields), found {}: {raw:?}",
                at(),
                t.len()
            );
        }
        let num = |k: usize, what: &str, lo: f64, hi: f64| -> Result<f64> {
            match t[k].parse::<f64>() {
                Ok(v) if v.is_finite() && (lo..=hi).contains(&v) => Ok(v),
                _ => bail!(
                    "{}: {what} {:?} is not a number in [{lo}, {hi}]",
                    at(),
                    t[k]
                ),
            }
        };
        let height = parse_height(t[3]).with_context(|| {
            format!(
                "{}: height {:?}: want metres above the datum (`12000` or `12000alt`, \
                 −12000 to 1e9) or above the ground (`300agl`, 0 to 1e9)",
                at(),
                t[3]
            )
        })?;
        let b = Bookmark {
            name: t[0].to_string(),
            lat: num(1, "latitude", -90.0, 90.0)?,
            lon: num(2, "longitude", -180.0, 360.0)?,
            height,
            heading: num(4, "heading", -360.0, 360.0)?,
            pitch: num(5, "pitch", -90.0, 90.0)?,
            fov: num(6, "fov", 1.0, 170.0)?,
            tags: t
                .get(7)
                .map(|s| {
                    s.split(',')
                        .filter(|s| !s.is_empty())
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default(),
        };
        if !names.insert(b.name.to_ascii_lowercase()) {
            bail!("{}: bookmark {:?} is defined twice", at(), b.name);
        }
        out.push(b);
    }
    Ok(out)
}

/// The bookmark file: `explicit`, else `PLANETFALL_BOOKMARKS`, else [`DEFAULT_FILE`].
pub fn file(explicit: Option<&Path>) -> PathBuf {
    explicit
        .map(Path::to_path_buf)
        .or_else(|| std::env::var_os("PLANETFALL_BOOKMARKS").map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from(DEFAULT_FILE))
}

pub fn load(path: &Path) -> Result<Vec<Bookmark>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("reading bookmarks {}", path.display()))?;
    parse(&text, path)
}

/// The bookmark called `name` (case-insensitive), or an error listing the known ones.
pub fn find<'b>(all: &'b [Bookmark], name: &str, file: &Path) -> Result<&'b Bookmark> {
    all.iter()
        .find(|b| b.name.eq_ignore_ascii_case(name))
        .with_context(|| {
            let known: Vec<&str> = all.iter().map(|b| b.name.as_str()).collect();
            format!(
                "unknown bookmark {name:?}; {} has: {}",
                file.display(),
                known.join(", ")
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_shipped_file() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("..")
            .join(DEFAULT_FILE);
        let all = load(&path).unwrap();
        for want in [
            "orbit",
            "everest",
            "grand-canyon",
            "alps",
            "hawaii",
            "gibraltar",
        ] {
            find(&all, want, &path).unwrap();
        }
        for b in &all {
            assert_eq!(
                parse(&b.to_line(), &path).unwrap()[0],
                *b,
                "round trip of {}",
                b.name
            );
        }
    }

    #[test]
    fn bad_lines_name_file_and_line() {
        let p = Path::new("marks.txt");
        let e = parse("# c\nok 1 2 3 4 5 60\nbad 1 2 3\n", p)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("marks.txt:3:"), "{e}");
        let e = parse("x 95 0 0 0 0 60\n", p).unwrap_err().to_string();
        assert!(e.contains("marks.txt:1") && e.contains("latitude"), "{e}");
        let e = parse("x 0 0 12km 0 0 60\n", p).unwrap_err().to_string();
        assert!(e.contains("height"), "{e}");
        assert_eq!(parse_height("300agl"), Some(Height::Ground(300.0)));
        assert_eq!(parse_height("1e4alt"), Some(Height::Datum(1e4)));
        let e = parse("x 0 0 0 0 0 60 quick extra\n", p)
            .unwrap_err()
            .to_string();
        assert!(e.contains("7 or 8 fields"), "{e}");
        let tagged = parse("t 0 0 2agl 0 -30 60 quick,coast\n", p).unwrap();
        assert!(tagged[0].has_tag("quick") && tagged[0].has_tag("coast"));
        assert_eq!(parse(&tagged[0].to_line(), p).unwrap()[0], tagged[0]);
        let all = parse("a 0 0 0 0 0 60\n", p).unwrap();
        assert!(find(&all, "nowhere", p)
            .unwrap_err()
            .to_string()
            .contains("a"));
    }
}
