//! Fuzzing the text readers: bookmarks (`captures/bookmarks.txt`), the benchmark's view list
//! (`captures/views.txt`, same parser), view scripts and camera paths. Inputs: random bytes,
//! soups of the format's own words, the shipped files and generated valid files truncated at
//! every length, mutated byte-wise, and with one number swapped for a non-number. A valid file
//! reads back exactly; a number swapped for `nan`, `1e400`, `-` … is an error naming the file
//! and line; whatever is accepted is in range and saves and reads back.

use super::flight::Pose;
use super::path::CameraPath;
use super::script::{self, Command};
use super::DebugView;
use crate::bookmarks::{self, Bookmark, Height};
use engine::testing::{mutate_bytes, run, Rng, BAD_NUMBERS};
use std::fmt::Debug;
use std::path::Path;
use std::time::Duration;

const SEED: u64 = 0x7E47_F11E;
const CASES: usize = 12_000;
/// Far above any real case (tens of µs), far below a hang; generous so a loaded machine
/// does not fail the run.
const PER_CASE: Duration = Duration::from_millis(500);
/// Inputs never exceed this, so a case cannot run long on size alone.
const MAX_TEXT: usize = 16 << 10;

/// One text reader under test.
struct Reader<T> {
    name: &'static str,
    file: &'static str,
    parse: fn(&str, &Path) -> anyhow::Result<Vec<T>>,
    /// What every accepted record must satisfy.
    sound: fn(&T) -> Result<(), String>,
    /// Fields of a data line that must be numbers.
    numeric: fn(&[&str]) -> Vec<usize>,
    /// One more field on this data line must be refused.
    extra_refused: fn(&[&str]) -> bool,
    /// A field holding a number with an optional unit suffix (`agl`, `alt`).
    suffixed: Option<usize>,
    /// An input without data lines is valid (an empty list).
    empty_ok: bool,
    words: &'static [&'static str],
    /// Valid files with their records: shipped ones first, then `generate`.
    shipped: Vec<(String, Vec<T>)>,
    generate: fn(&mut Rng) -> (String, Vec<T>),
}

#[derive(Debug)]
enum Want<T> {
    Exact(Vec<T>),
    /// All records but the last (which a cut may have changed) as in the list, none beyond.
    Prefix(Vec<T>),
    /// An error at this line.
    RefusedAt(usize),
    Sound,
}

#[derive(Debug)]
struct Case<T> {
    text: String,
    want: Want<T>,
}

impl<T: Clone + Debug + PartialEq> Reader<T> {
    fn valid(&self, r: &mut Rng) -> (String, Vec<T>) {
        if !self.shipped.is_empty() && r.one_in(2) {
            self.shipped[r.below(self.shipped.len())].clone()
        } else {
            (self.generate)(r)
        }
    }

    fn data_lines(&self, text: &str) -> Vec<(usize, Vec<String>)> {
        super::data_lines(text, Path::new(self.file))
            .map(|(place, _, f)| {
                let line = place.rsplit(':').next().unwrap().parse().unwrap();
                (line, f.iter().map(|s| s.to_string()).collect())
            })
            .collect()
    }

    fn make(&self, r: &mut Rng) -> Case<T> {
        let (text, want) = match r.below(11) {
            0 => {
                let n = r.below(400);
                let b = r.bytes(n);
                (String::from_utf8_lossy(&b).into_owned(), Want::Sound)
            }
            1 => {
                let mut s = String::new();
                for _ in 0..r.below(60) {
                    s += match r.below(4) {
                        0 => *r.pick(self.words),
                        1 => *r.pick(BAD_NUMBERS),
                        _ => *r.pick(&[" ", " ", "\t", "\n", "\r\n", "#"]),
                    };
                }
                (s, Want::Sound)
            }
            2 | 3 => {
                let (text, recs) = self.valid(r);
                let cut = (0..=r.below(text.len() + 1))
                    .rev()
                    .find(|&i| text.is_char_boundary(i))
                    .unwrap();
                let cut = text[..cut].to_string();
                let whole_lines = cut.is_empty() || cut.ends_with('\n');
                let n = self.data_lines(&cut).len();
                let want = match (whole_lines, n) {
                    (true, 0) if !self.empty_ok => Want::RefusedAt(0),
                    (true, _) => Want::Exact(recs[..n].to_vec()),
                    (false, _) => Want::Prefix(recs),
                };
                (cut, want)
            }
            4 | 5 => {
                let (text, _) = self.valid(r);
                let b = mutate_bytes(r, text.as_bytes(), MAX_TEXT);
                (String::from_utf8_lossy(&b).into_owned(), Want::Sound)
            }
            6 | 7 => {
                let (text, _) = self.valid(r);
                let targets: Vec<(usize, Vec<String>, usize)> = self
                    .data_lines(&text)
                    .into_iter()
                    .flat_map(|(line, f)| {
                        let refs: Vec<&str> = f.iter().map(|s| s.as_str()).collect();
                        let idx = (self.numeric)(&refs);
                        idx.into_iter().map(move |k| (line, f.clone(), k))
                    })
                    .collect();
                if targets.is_empty() {
                    (text, Want::Sound)
                } else {
                    let (line, mut fields, k) = targets[r.below(targets.len())].clone();
                    fields[k] = r.pick(BAD_NUMBERS).to_string();
                    if self.suffixed == Some(k) {
                        fields[k] += *r.pick(&["", "agl", "alt"]);
                    }
                    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
                    lines[line - 1] = fields.join(" ");
                    (lines.join("\n"), Want::RefusedAt(line))
                }
            }
            8 => {
                let (text, _) = self.valid(r);
                let lines = self.data_lines(&text);
                let targets: Vec<&(usize, Vec<String>)> = lines
                    .iter()
                    .filter(|(_, f)| {
                        let refs: Vec<&str> = f.iter().map(|s| s.as_str()).collect();
                        (self.extra_refused)(&refs)
                    })
                    .collect();
                if targets.is_empty() {
                    (text, Want::Sound)
                } else {
                    let (line, fields) = targets[r.below(targets.len())];
                    let extra = *r.pick(&["1", "0.5", "x", "quick", "-0"]);
                    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
                    lines[line - 1] = format!("{} {extra}", fields.join(" "));
                    (lines.join("\n"), Want::RefusedAt(*line))
                }
            }
            _ => {
                let (text, recs) = (self.generate)(r);
                (text, Want::Exact(recs))
            }
        };
        Case { text, want }
    }

    fn check(&self, c: &Case<T>) -> Result<(), String> {
        let got = (self.parse)(&c.text, Path::new(self.file));
        match (got, &c.want) {
            (Err(e), want) => {
                let msg = format!("{e:#}");
                if !msg.contains(self.file) {
                    return Err(format!("error does not name the file: {msg}"));
                }
                match want {
                    Want::Exact(_) => Err(format!("valid input refused: {msg}")),
                    Want::RefusedAt(l)
                        if *l > 0 && !msg.contains(&format!("{}:{l}:", self.file)) =>
                    {
                        Err(format!("error not at line {l}: {msg}"))
                    }
                    _ => Ok(()),
                }
            }
            (Ok(got), Want::Exact(want)) if got != *want => {
                Err(format!("read {got:?}\n  wrote {want:?}"))
            }
            (Ok(got), Want::Prefix(want))
                if got.len() > want.len()
                    || got.len() > 1 && got[..got.len() - 1] != want[..got.len() - 1] =>
            {
                Err(format!("a cut file read {got:?}"))
            }
            (Ok(_), Want::RefusedAt(l)) => Err(format!("line {l} accepted")),
            (Ok(got), _) => got.iter().try_for_each(self.sound),
        }
    }

    fn fuzz(&self) {
        let r = run(
            self.name,
            SEED,
            CASES,
            PER_CASE,
            |r| self.make(r),
            |c| self.check(c),
        );
        assert_eq!(r.cases, CASES);
    }

    /// Every prefix of the shipped file, or of a generated one for a format with none shipped.
    fn every_prefix(&self) {
        let (text, recs) = self
            .shipped
            .first()
            .cloned()
            .unwrap_or_else(|| (self.generate)(&mut Rng::new(SEED)));
        let cuts: Vec<usize> = (0..=text.len())
            .filter(|&i| text.is_char_boundary(i))
            .collect();
        let mut k = 0;
        let make = |_: &mut Rng| {
            k += 1;
            let cut = &text[..cuts[k - 1]];
            let n = self.data_lines(cut).len();
            let whole_lines = cut.is_empty() || cut.ends_with('\n') || cut.len() == text.len();
            let want = if whole_lines && n == 0 && !self.empty_ok {
                Want::RefusedAt(0)
            } else if whole_lines {
                Want::Exact(recs[..n].to_vec())
            } else {
                Want::Prefix(recs.clone())
            };
            Case {
                text: cut.to_string(),
                want,
            }
        };
        run(self.name, SEED, cuts.len(), PER_CASE, make, |c| {
            self.check(c)
        });
    }
}

/// A uniform value in [lo, hi) rounded to a multiple of `step`.
fn on_grid(r: &mut Rng, step: f64, lo: f64, hi: f64) -> f64 {
    (r.range_f64(lo, hi) / step).round() * step
}

fn within(what: &str, v: f64, lo: f64, hi: f64) -> Result<(), String> {
    if (lo..=hi).contains(&v) {
        Ok(())
    } else {
        Err(format!("{what} {v} accepted outside [{lo}, {hi}]"))
    }
}

fn shipped_bookmarks(name: &str) -> (String, Vec<Bookmark>) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../captures")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    let recs = bookmarks::parse(&text, &path).unwrap();
    assert!(recs.len() >= 5, "{name}");
    (text, recs)
}

fn bookmark_reader(name: &'static str, file: &'static str) -> Reader<Bookmark> {
    fn sound(b: &Bookmark) -> Result<(), String> {
        within("latitude", b.lat, -90.0, 90.0)?;
        within("longitude", b.lon, -180.0, 360.0)?;
        match b.height {
            Height::Datum(m) => within("height", m, -12_000.0, 1e9)?,
            Height::Ground(m) => within("height agl", m, 0.0, 1e9)?,
        }
        within("heading", b.heading, -360.0, 360.0)?;
        within("pitch", b.pitch, -90.0, 90.0)?;
        within("fov", b.fov, 1.0, 170.0)?;
        // What the viewer saves must read back.
        let back = bookmarks::parse(&b.to_line(), Path::new("saved.txt"))
            .map_err(|e| format!("saved bookmark does not read back: {e:#}"))?;
        match &back[..] {
            [c] if c.name == b.name && c.tags == b.tags && (c.fov - b.fov).abs() <= 0.005 => Ok(()),
            _ => Err(format!("saved bookmark reads back as {back:?}")),
        }
    }
    Reader {
        name,
        file,
        parse: bookmarks::parse,
        sound,
        numeric: |f| {
            if f.len() >= 7 {
                (1..7).collect()
            } else {
                Vec::new()
            }
        },
        extra_refused: |f| f.len() == 8,
        suffixed: Some(3),
        empty_ok: true,
        words: &[
            "orbit",
            "everest-1km",
            "27.988",
            "-112.1",
            "0",
            "-90",
            "60",
            "170",
            "360",
            "12000agl",
            "300alt",
            "2e7",
            "quick",
            "quick,coast",
            "#",
        ],
        shipped: vec![shipped_bookmarks(file.rsplit('/').next().unwrap())],
        generate: |r| {
            let mut text = String::from("# generated\n");
            let recs: Vec<Bookmark> = (0..1 + r.below(6))
                .map(|k| {
                    let b = Bookmark {
                        name: format!("view-{k}"),
                        lat: on_grid(r, 1e-6, -90.0, 90.0),
                        lon: on_grid(r, 1e-6, -180.0, 360.0),
                        height: if r.one_in(2) {
                            Height::Datum(on_grid(r, 1.0, -12_000.0, 1e9))
                        } else {
                            Height::Ground(on_grid(r, 0.5, 0.0, 1e6))
                        },
                        heading: on_grid(r, 1e-3, -360.0, 360.0),
                        pitch: on_grid(r, 1e-3, -90.0, 90.0),
                        fov: on_grid(r, 1e-2, 1.0, 170.0),
                        tags: [
                            vec![],
                            vec!["quick".into()],
                            vec!["quick".into(), "coast".into()],
                        ][r.below(3)]
                        .clone(),
                    };
                    text += &b.to_line();
                    text += ["\n", "  # a note\n", "\n\n# between\n", "\r\n"][r.below(4)];
                    b
                })
                .collect();
            // `to_line` prints fixed decimals: read back the values on that grid.
            let recs = recs
                .into_iter()
                .map(|mut b| {
                    let fix = |v: f64, d: usize| format!("{v:.d$}").parse::<f64>().unwrap();
                    (b.lat, b.lon) = (fix(b.lat, 6), fix(b.lon, 6));
                    (b.heading, b.pitch, b.fov) =
                        (fix(b.heading, 3), fix(b.pitch, 3), fix(b.fov, 2));
                    b
                })
                .collect();
            (text, recs)
        },
    }
}

#[test]
fn bookmarks() {
    let r = bookmark_reader("bookmarks", "captures/bookmarks.txt");
    r.every_prefix();
    r.fuzz();
}

#[test]
fn bench_views() {
    let r = bookmark_reader("views.txt", "captures/views.txt");
    r.every_prefix();
    r.fuzz();
}

fn script_reader() -> Reader<Command> {
    fn sound(c: &Command) -> Result<(), String> {
        match c {
            Command::Frames(n) => within("frames", *n as f64, 1.0, 1e5),
            Command::Fly {
                forward,
                right,
                up,
                frames,
            } => {
                within("forward", *forward, -1.0, 1.0)?;
                within("right", *right, -1.0, 1.0)?;
                within("up", *up, -1.0, 1.0)?;
                within("frames", *frames as f64, 1.0, 1e5)
            }
            Command::Speed(x) => within("speed", *x, 1e-3, 1e3),
            Command::Resize(w, h) => {
                within("width", *w as f64, 1.0, 16384.0)?;
                within("height", *h as f64, 1.0, 16384.0)
            }
            Command::Sleep(ms) => within("sleep", *ms as f64, 0.0, 6e5),
            Command::Bookmark(s) if s.is_empty() => Err("empty bookmark name".into()),
            Command::Screenshot(p) if p.as_os_str().is_empty() => Err("empty file".into()),
            _ => Ok(()),
        }
    }
    Reader {
        name: "script",
        file: "fuzz/flight.script",
        parse: script::parse,
        sound,
        numeric: |f| match f[0] {
            "frames" | "speed" | "sleep" => vec![1],
            "resize" => vec![1, 2],
            "fly" => vec![1, 2, 3, 4],
            _ => Vec::new(),
        },
        extra_refused: |_| true,
        suffixed: None,
        empty_ok: true,
        words: &[
            "frames",
            "fly",
            "speed",
            "resize",
            "bookmark",
            "debug",
            "help",
            "screenshot",
            "capture",
            "print",
            "sleep",
            "exit",
            "levels",
            "wireframe",
            "everest",
            "1",
            "0.5",
            "-1",
            "100000",
            "16384",
            "0",
            "out.png",
        ],
        shipped: Vec::new(),
        generate: |r| {
            let mut text = String::new();
            let mut cmds = Vec::new();
            for _ in 0..1 + r.below(8) {
                let unit = |r: &mut Rng| r.below(201) as f64 / 100.0 - 1.0;
                let (line, cmd) = match r.below(13) {
                    0 => {
                        let n = 1 + r.below(100_000) as u32;
                        (format!("frames {n}"), Command::Frames(n))
                    }
                    1 => {
                        let (f, s, u, n) = (unit(r), unit(r), unit(r), 1 + r.below(500) as u32);
                        let cmd = Command::Fly {
                            forward: f,
                            right: s,
                            up: u,
                            frames: n,
                        };
                        (format!("fly {f} {s} {u} {n}"), cmd)
                    }
                    2 => {
                        let x = 10f64.powf(r.range_f64(-2.9, 2.9));
                        (format!("speed {x}"), Command::Speed(x))
                    }
                    3 => {
                        let (w, h) = (1 + r.below(16384) as u32, 1 + r.below(16384) as u32);
                        (format!("resize {w} {h}"), Command::Resize(w, h))
                    }
                    4 => (
                        "bookmark everest".into(),
                        Command::Bookmark("everest".into()),
                    ),
                    5 => {
                        let d = *r.pick(&DebugView::ALL);
                        (format!("debug {}", d.name()), Command::Debug(d))
                    }
                    6 => ("help".into(), Command::Help),
                    7 => (
                        "screenshot shots/a.png".into(),
                        Command::Screenshot("shots/a.png".into()),
                    ),
                    8 => ("capture".into(), Command::Capture),
                    9 => ("print".into(), Command::Print),
                    10 => {
                        let ms = r.below(600_001) as u64;
                        (format!("sleep {ms}"), Command::Sleep(ms))
                    }
                    11 => ("hud".into(), Command::Hud),
                    _ => ("exit".into(), Command::Exit),
                };
                text += &line;
                text += *r.pick(&["\n", " # note\n", "\n\n"]);
                cmds.push(cmd);
            }
            (text, cmds)
        },
    }
}

#[test]
fn scripts() {
    let r = script_reader();
    r.every_prefix();
    r.fuzz();
}

fn path_reader() -> Reader<(f64, Pose)> {
    fn sound(&(t, p): &(f64, Pose)) -> Result<(), String> {
        within("time", t, 0.0, 1e7)?;
        within("latitude", p.lat, -90.0, 90.0)?;
        within("longitude", p.lon, -180.0, 360.0)?;
        within("altitude", p.alt, -12_000.0, 1e9)?;
        within("heading", p.heading, -360.0, 360.0)?;
        within("pitch", p.pitch, -90.0, 90.0)?;
        within("fov", p.fov, 1.0, 170.0)
    }
    Reader {
        name: "camera path",
        file: "fuzz/flight.path",
        parse: |text, file| CameraPath::parse(text, file).map(|p| p.samples),
        sound,
        numeric: |f| (0..f.len()).collect(),
        extra_refused: |_| true,
        suffixed: None,
        empty_ok: false,
        words: &[
            "0", "0.1", "1.000", "27.9", "-156.0", "1000.50", "359.999", "-89.5", "60.00", "#",
        ],
        shipped: Vec::new(),
        generate: |r| {
            let mut path = CameraPath::default();
            let mut t = 0.0;
            for _ in 0..1 + r.below(10) {
                let pose = Pose {
                    lat: on_grid(r, 1e-7, -90.0, 90.0),
                    lon: on_grid(r, 1e-7, -180.0, 180.0),
                    alt: on_grid(r, 1e-2, -12_000.0, 1e9),
                    heading: on_grid(r, 1e-3, 0.0, 360.0),
                    pitch: on_grid(r, 1e-3, -89.5, 89.5),
                    fov: on_grid(r, 1e-2, 1.0, 170.0),
                };
                path.record(t, pose);
                t += on_grid(r, 1e-3, 0.1, 5.0);
            }
            // `to_text` prints fixed decimals: the samples on that grid are what reads back.
            let text = path.to_text();
            let fix = |v: f64, d: usize| format!("{v:.d$}").parse::<f64>().unwrap();
            let recs = path
                .samples
                .iter()
                .map(|&(t, p)| {
                    let pose = Pose {
                        lat: fix(p.lat, 7),
                        lon: fix(p.lon, 7),
                        alt: fix(p.alt, 2),
                        heading: fix(p.heading, 3),
                        pitch: fix(p.pitch, 3),
                        fov: fix(p.fov, 2),
                    };
                    (fix(t, 3), pose)
                })
                .collect();
            (text, recs)
        },
    }
}

#[test]
fn camera_paths() {
    let r = path_reader();
    r.every_prefix();
    r.fuzz();
}
