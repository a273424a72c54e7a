//! `planetfall render --stats` writes numbers, under the same names and types for every scene:
//! the analytic planet (mesh and tiles), the test scene (neither: the keys are absent, not
//! strings) and the cbt scene (the shared keys plus its own). The Earth's stats are checked
//! where the Earth is rendered already (graph_cli.rs).

mod common;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn render(dir: &Path, scene: &str, extra: &[&str]) -> Value {
    let stats = dir.join(format!("{scene}.json"));
    let png = dir.join(format!("{scene}.png"));
    let out = Command::new(env!("CARGO_BIN_EXE_planetfall"))
        .args(["render", "--validation", "--scene", scene])
        // From orbit, straight down: a few tens of tiles, so the planet settles in seconds.
        .args(["--width", "64", "--height", "48"])
        .args(["--alt", "400000", "--pitch", "-90"])
        .args(extra)
        .arg("--out")
        .arg(&png)
        .arg("--stats")
        .arg(&stats)
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "render --scene {scene}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    common::render_stats::read(&stats, scene, [64, 48])
}

fn temp_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pf-render-stats-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn every_scene_writes_numeric_stats_under_the_same_names() {
    let dir = temp_dir();
    let analytic = render(&dir, "analytic", &[]);
    assert_eq!(analytic["settled"], true, "{analytic}");
    assert_eq!(
        analytic["quiet"], true,
        "a settled mesh is quiet: {analytic}"
    );
    assert!(
        analytic["tiles"]["resident"].as_u64().unwrap() > 0,
        "{analytic}"
    );
    assert_eq!(analytic["tiles"]["pending"], 0, "settled: {analytic}");

    let test = render(&dir, "test", &[]);
    for k in common::render_stats::MESH_COUNTS
        .iter()
        .chain(&["quiet", "tiles"])
    {
        assert!(test.get(k).is_none(), "the test scene has no {k}: {test}");
    }
    assert!(test["blue"].is_f64(), "{test}");

    let cbt = render(&dir, "cbt", &["--max-frames", "40"]);
    assert!(
        cbt["per_iteration"].as_array().unwrap().len() as u64
            == cbt["iterations"].as_u64().unwrap(),
        "{cbt}"
    );
    assert_eq!(cbt["mesh"]["valid"], true, "{cbt}");
    // Keys both mesh scenes write hold values of the same type.
    let kind = |v: &Value| match v {
        Value::Number(n) if n.is_u64() => "count",
        Value::Number(_) => "number",
        Value::Bool(_) => "bool",
        Value::String(_) => "string",
        Value::Object(_) => "object",
        Value::Array(_) => "array",
        Value::Null => "null",
    };
    let a = analytic.as_object().unwrap();
    for (k, x) in cbt.as_object().unwrap() {
        if let Some(y) = a.get(k) {
            assert_eq!(kind(x), kind(y), "{k}: cbt {x}, analytic {y}");
        }
    }
    for k in common::render_stats::MESH_COUNTS
        .iter()
        .chain(&["quiet", "nodes", "gpu_ms"])
    {
        assert!(a.contains_key(*k) && cbt.get(k).is_some(), "both write {k}");
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// Mean of each RGB channel of a PNG written by `render` (RGBA8).
fn mean_rgb(path: &Path) -> [f64; 3] {
    let mut reader = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()))
        .read_info()
        .unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    let px = &buf[..info.buffer_size()];
    let n = (px.len() / 4) as f64;
    let mut m = [0.0; 3];
    for p in px.chunks(4) {
        for c in 0..3 {
            m[c] += p[c] as f64 / n;
        }
    }
    m
}

/// `--skip` leaves parts of the frame out to time what they cost: leaving out the aerial
/// perspective takes the haze off a view from 400 km (the image changes by more than its
/// own run-to-run noise), and an unknown part is named with the known ones.
#[test]
fn skipped_parts_change_the_image_and_an_unknown_one_is_named() {
    let dir = temp_dir().join("skips");
    std::fs::create_dir_all(&dir).unwrap();
    let fixed = ["--exposure", "5"];
    render(&dir, "analytic", &fixed);
    let base = mean_rgb(&dir.join("analytic.png"));
    render(&dir, "analytic", &fixed);
    let again = mean_rgb(&dir.join("analytic.png"));
    render(&dir, "analytic", &[fixed[0], fixed[1], "--skip", "aerial"]);
    let clear = mean_rgb(&dir.join("analytic.png"));
    let diff = |a: [f64; 3], b: [f64; 3]| (0..3).map(|c| (a[c] - b[c]).abs()).fold(0.0, f64::max);
    println!("mean RGB {base:?}, again {again:?}, without aerial {clear:?}");
    assert!(
        diff(base, clear) > 2.0 && diff(base, clear) > 10.0 * diff(base, again),
        "the haze: {base:?} → {clear:?} (run to run {:.3})",
        diff(base, again)
    );
    let out = Command::new(env!("CARGO_BIN_EXE_planetfall"))
        .args(["render", "--scene", "analytic", "--skip", "aerial,fog"])
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("unknown part \"fog\"") && err.contains("root-search"),
        "{err}"
    );
}

/// Bad arguments are one clear error: a missing bookmark before any device is started, and a
/// failure after the frames (an output path that cannot be created) without the allocator's
/// leak reports burying it.
#[test]
fn a_failing_render_says_why_in_one_error() {
    let dir = temp_dir();
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_planetfall"))
            .current_dir(&dir)
            .args([
                "render", "--scene", "analytic", "--width", "32", "--height", "24",
            ])
            .args(args)
            .output()
            .expect("runs")
    };
    let out = run(&["--bookmark", "no-such-view", "--out", "x.png"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("bookmarks"), "{err}");
    assert!(
        !err.contains("vulkan device"),
        "no device for a bad argument: {err}"
    );

    std::fs::write(dir.join("a-file"), b"").unwrap();
    let out = run(&["--alt", "400000", "--pitch", "-90", "--out", "a-file/x.png"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("a-file"), "{err}");
    assert!(
        !err.contains("leak") && !err.contains("still allocated"),
        "the error, not leak reports: {err}"
    );
}
