//! Scripted flight (`planetfall view --script FILE`), so CI can drive the viewer under Xvfb.
//! One command per line, `#` comments:
//!
//! | command | effect |
//! |---|---|
//! | `frames N` | present N frames (with a fixed 1/60 s step, so runs are reproducible) |
//! | `fly F R U N` | hold the flight controls (forward, right, up in −1..1) for N frames |
//! | `speed X` | set the speed factor (as the scroll wheel does; 1 = height above ground per second) |
//! | `resize W H` | ask the window for a new inner size, then wait for the new swapchain |
//! | `bookmark NAME` | jump to a bookmark |
//! | `debug VIEW` | request a debug view (shaded, levels, slots, wireframe, normals) |
//! | `help` | toggle the help overlay |
//! | `hud` | toggle the HUD (as the G key does) |
//! | `screenshot FILE` | save the next presented frame as PNG |
//! | `capture` | RenderDoc capture of the next frame (needs `--renderdoc`) |
//! | `print` | print the `planetfall render` line of the current view |
//! | `sleep MS` | wait (frames keep being presented) |
//! | `exit` | stop (also implied at the end) |

use super::flight::Controls;
use super::DebugView;
use anyhow::{bail, Context as _, Result};
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Frames a `resize` waits for the new swapchain before going on regardless.
const RESIZE_WAIT_FRAMES: u32 = 120;

#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    Frames(u32),
    Fly {
        forward: f64,
        right: f64,
        up: f64,
        frames: u32,
    },
    Speed(f64),
    Resize(u32, u32),
    Bookmark(String),
    Debug(DebugView),
    Help,
    Hud,
    Screenshot(PathBuf),
    Capture,
    Print,
    Sleep(u64),
    Exit,
}

pub fn parse(text: &str, file: &Path) -> Result<Vec<Command>> {
    let mut out = Vec::new();
    for (place, _, t) in super::data_lines(text, file) {
        let at = || place.clone();
        let int = |k: usize, lo: u64, hi: u64| -> Result<u64> {
            match t.get(k).map(|s| s.parse::<u64>()) {
                Some(Ok(v)) if (lo..=hi).contains(&v) => Ok(v),
                _ => bail!(
                    "{}: `{}` wants an integer in [{lo}, {hi}] as argument {k}",
                    at(),
                    t[0]
                ),
            }
        };
        let num = |k: usize| -> Result<f64> {
            match t.get(k).map(|s| s.parse::<f64>()) {
                Some(Ok(v)) if (-1.0..=1.0).contains(&v) => Ok(v),
                _ => bail!(
                    "{}: `fly` wants three numbers in [-1, 1] and a frame count",
                    at()
                ),
            }
        };
        let want = |n: usize| -> Result<()> {
            if t.len() != n + 1 {
                bail!(
                    "{}: `{}` takes {n} argument(s), found {}",
                    at(),
                    t[0],
                    t.len() - 1
                );
            }
            Ok(())
        };
        let cmd = match t[0] {
            "frames" => {
                want(1)?;
                Command::Frames(int(1, 1, 100_000)? as u32)
            }
            "fly" => {
                want(4)?;
                Command::Fly { forward: num(1)?, right: num(2)?, up: num(3)?, frames: int(4, 1, 100_000)? as u32 }
            }
            "speed" => {
                want(1)?;
                match t[1].parse::<f64>() {
                    Ok(v) if (1e-3..=1e3).contains(&v) => Command::Speed(v),
                    _ => bail!("{}: `speed` wants a factor in [0.001, 1000]", at()),
                }
            }
            "resize" => {
                want(2)?;
                Command::Resize(int(1, 1, 16384)? as u32, int(2, 1, 16384)? as u32)
            }
            "bookmark" => {
                want(1)?;
                Command::Bookmark(t[1].to_string())
            }
            "debug" => {
                want(1)?;
                let names: Vec<&str> = DebugView::ALL.iter().map(|d| d.name()).collect();
                Command::Debug(DebugView::parse(t[1]).with_context(|| format!("{}: unknown debug view {:?}; known: {}", at(), t[1], names.join(", ")))?)
            }
            "help" => {
                want(0)?;
                Command::Help
            }
            "hud" => {
                want(0)?;
                Command::Hud
            }
            "screenshot" => {
                want(1)?;
                Command::Screenshot(PathBuf::from(t[1]))
            }
            "capture" => {
                want(0)?;
                Command::Capture
            }
            "print" => {
                want(0)?;
                Command::Print
            }
            "sleep" => {
                want(1)?;
                Command::Sleep(int(1, 0, 600_000)?)
            }
            "exit" => {
                want(0)?;
                Command::Exit
            }
            other => bail!("{}: unknown command {other:?} (frames, fly, speed, resize, bookmark, debug, help, screenshot, capture, print, sleep, exit)", at()),
        };
        out.push(cmd);
    }
    Ok(out)
}

pub fn load(path: &Path) -> Result<Vec<Command>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("reading script {}", path.display()))?;
    parse(&text, path)
}

/// A script being run, one frame at a time.
pub struct Script {
    cmds: VecDeque<Command>,
    wait_frames: u32,
    fly: Option<Controls>,
    sleep_until: Option<Instant>,
    resize: Option<([u32; 2], u32)>,
}

impl Script {
    pub fn new(cmds: Vec<Command>) -> Script {
        Script {
            cmds: cmds.into(),
            wait_frames: 0,
            fly: None,
            sleep_until: None,
            resize: None,
        }
    }

    /// The next command to carry out this frame, or `None` once this frame is spoken for
    /// (waiting for frames, a sleep or a resize). `extent` is the current swapchain size;
    /// `held` receives the controls a `fly` holds.
    pub fn next(&mut self, extent: [u32; 2], held: &mut Controls) -> Option<Command> {
        if let Some((want, left)) = &mut self.resize {
            if extent == *want {
                self.resize = None;
            } else if *left == 0 {
                log::warn!(
                    "script: the window did not become {}×{} (still {}×{}); going on",
                    want[0],
                    want[1],
                    extent[0],
                    extent[1]
                );
                self.resize = None;
            } else {
                *left -= 1;
                return None;
            }
        }
        if let Some(t) = self.sleep_until {
            if Instant::now() < t {
                return None;
            }
            self.sleep_until = None;
        }
        if self.wait_frames > 0 {
            self.wait_frames -= 1;
            if let Some(f) = self.fly {
                *held = f;
            }
            return None;
        }
        self.fly = None;
        let cmd = self.cmds.pop_front()?;
        match &cmd {
            Command::Frames(n) => self.wait_frames = *n,
            Command::Fly {
                forward,
                right,
                up,
                frames,
            } => {
                self.wait_frames = *frames;
                self.fly = Some(Controls {
                    forward: *forward,
                    right: *right,
                    up: *up,
                    ..Controls::default()
                });
            }
            Command::Resize(w, h) => self.resize = Some(([*w, *h], RESIZE_WAIT_FRAMES)),
            Command::Sleep(ms) => {
                self.sleep_until = Some(Instant::now() + Duration::from_millis(*ms))
            }
            _ => {}
        }
        Some(cmd)
    }

    /// Nothing left to do.
    pub fn finished(&self) -> bool {
        self.cmds.is_empty()
            && self.wait_frames == 0
            && self.resize.is_none()
            && self.sleep_until.is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_reports_lines() {
        let p = Path::new("s.txt");
        let s = parse("frames 3\nresize 200 100 # smaller\nbookmark everest\ndebug levels\nfly 1 0 -0.5 4\nexit\n", p).unwrap();
        assert_eq!(s[1], Command::Resize(200, 100));
        assert_eq!(s[3], Command::Debug(DebugView::Levels));
        assert_eq!(
            s[4],
            Command::Fly {
                forward: 1.0,
                right: 0.0,
                up: -0.5,
                frames: 4
            }
        );
        let e = parse("frames 1\nfrobnicate\n", p).unwrap_err().to_string();
        assert!(e.starts_with("s.txt:2:"), "{e}");
        assert!(parse("debug plaid\n", p)
            .unwrap_err()
            .to_string()
            .contains("wireframe"));
        assert!(parse("frames 0\n", p).is_err());
    }

    #[test]
    fn frames_count_frames() {
        let mut s = Script::new(vec![Command::Frames(3), Command::Print]);
        let mut held = Controls::default();
        let mut frames = 0;
        loop {
            let mut printed = false;
            while let Some(c) = s.next([1, 1], &mut held) {
                printed |= c == Command::Print;
            }
            if printed {
                break;
            }
            frames += 1;
        }
        assert_eq!(frames, 3);
        assert!(s.finished());
    }
}
