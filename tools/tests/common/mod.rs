//! Shared by the viewer tests: a private Xvfb display per test, and running `planetfall`;
//! `render_stats` checks `render --stats` files.
#![allow(dead_code)]

pub mod render_stats;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

pub const BIN: &str = env!("CARGO_BIN_EXE_planetfall");

/// An Xvfb server on a display nobody else uses; killed on drop.
pub struct Xvfb {
    child: Child,
    pub display: String,
}

static NEXT: AtomicU32 = AtomicU32::new(0);

impl Xvfb {
    pub fn start() -> Xvfb {
        // Display numbers from the pid so parallel test binaries do not collide; skip taken ones.
        let base = 200 + (std::process::id() % 500) * 8;
        for _ in 0..64 {
            let n = base + NEXT.fetch_add(1, Ordering::SeqCst) % 4000;
            if Path::new(&format!("/tmp/.X{n}-lock")).exists()
                || Path::new(&format!("/tmp/.X11-unix/X{n}")).exists()
            {
                continue;
            }
            // -noreset: by default the server resets when its last client leaves, and a
            // viewer started during the reset cannot connect (seen under load: "Failed to open
            // connection to X server" on a test's third viewer run).
            let child = Command::new("Xvfb")
                .args([
                    format!(":{n}").as_str(),
                    "-screen",
                    "0",
                    "1024x768x24",
                    "-nolisten",
                    "tcp",
                    "-noreset",
                ])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("Xvfb runs (installed by .ci/setup.sh: apt-get install xvfb)");
            let mut x = Xvfb {
                child,
                display: format!(":{n}"),
            };
            let deadline = Instant::now() + Duration::from_secs(10);
            while Instant::now() < deadline {
                if Path::new(&format!("/tmp/.X11-unix/X{n}")).exists() {
                    return x;
                }
                if let Ok(Some(_)) = x.child.try_wait() {
                    break; // lost a race for this number: try the next
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            let _ = x.child.kill();
        }
        panic!("could not start Xvfb");
    }

    /// `planetfall ARGS` on this display (no Wayland), in `cwd`.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(BIN);
        c.args(args)
            .env("DISPLAY", &self.display)
            .env_remove("WAYLAND_DISPLAY")
            .env("RUST_LOG", "warn");
        c
    }
}

impl Drop for Xvfb {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A fresh scratch directory.
pub fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("pf-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

pub fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// Run and require success; returns stdout.
pub fn ok(mut c: Command) -> String {
    let o = c.output().expect("planetfall runs");
    let (out, err) = text(&o);
    assert!(
        o.status.success(),
        "{c:?} failed ({}):\nstdout:\n{out}\nstderr:\n{err}",
        o.status
    );
    out
}

/// The repository root (bookmarks and scripts are resolved from here).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Node names and kinds of a frame, from `planetfall graph --names ARGS`.
pub fn graph_nodes(args: &[&str]) -> Vec<(String, String)> {
    let mut c = Command::new(BIN);
    c.arg("graph").arg("--names").args(args).current_dir(root());
    ok(c)
        .lines()
        .filter_map(|l| {
            l.split_once(' ')
                .map(|(n, k)| (n.to_string(), k.trim().to_string()))
        })
        .collect()
}

pub fn write(dir: &Path, name: &str, body: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, body).expect("write");
    p
}
