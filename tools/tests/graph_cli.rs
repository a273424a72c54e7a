//! `planetfall graph --dot` names every node exactly as the executed frame reports it (the
//! GPU timing/puffin names, which are also the debug-label strings). The render reports its
//! last frame, a still one (no mesh update, and no `stream.records`: nothing to restage), so
//! the graph compared is frame 5 (frame 0 adds `cbt.init`, frame 1 restages the records of
//! tiles that finished fading).
//! The same Earth render writes `--stats`: numeric mesh counters and resident tiles.

mod common;

use std::collections::BTreeSet;
use std::process::Command;

fn planetfall(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_planetfall"))
        .args(args)
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "planetfall {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

#[test]
fn dot_node_names_equal_timed_node_names() {
    let dot = planetfall(&["graph", "--dot", "--frame", "5"]);
    let dot_nodes: BTreeSet<String> = dot
        .lines()
        .filter(|l| l.contains("shape=box") && !l.contains("culled"))
        .filter_map(|l| {
            l.trim()
                .strip_prefix('"')
                .and_then(|r| r.split('"').next())
                .map(str::to_string)
        })
        .collect();
    let dir = std::env::temp_dir().join(format!("pf-graph-cli-{}", std::process::id()));
    let png = dir.join("r.png");
    let stats = dir.join("stats.json");
    let render = planetfall(&[
        "render",
        "--validation",
        "--width",
        "64",
        "--height",
        "64",
        "--out",
        png.to_str().unwrap(),
        "--stats",
        stats.to_str().unwrap(),
    ]);
    let timed: BTreeSet<String> = render
        .lines()
        .filter_map(|l| l.strip_prefix("node "))
        .map(|l| l.split_whitespace().next().unwrap().to_string())
        .collect();
    assert!(dot_nodes.len() >= 5, "{dot_nodes:?}");
    assert_eq!(dot_nodes, timed);
    assert!(png.exists());
    let st = common::render_stats::read(&stats, "earth", [64, 64]);
    assert!(st["leaves"].as_u64().unwrap() > 0, "{st}");
    assert!(st["tiles"]["resident"].as_u64().unwrap() > 0, "{st}");
    assert_eq!(
        st["nodes"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<BTreeSet<_>>(),
        timed.iter().collect::<BTreeSet<_>>(),
        "the stats time every node the render printed"
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// A still frame of the planet frame (frame 5 of a static view: the frames before it are
/// declared, not run, so they read back as frames that changed nothing, and nothing the update
/// reads has changed) records no CBT update at all, only the counters' copy; frame 0 records
/// all four iterations. (A quiet frame whose view moves within the quiet thresholds records
/// one iteration, 13 nodes: `cbt_gpu_mesh` tests it on the GPU.)
#[test]
fn a_still_frame_records_no_update_and_at_most_30_nodes() {
    let count = |frame: &str, name: &str| {
        common::graph_nodes(&["--frame", frame])
            .iter()
            .filter(|(n, _)| n == name)
            .count()
    };
    let still = common::graph_nodes(&["--frame", "5"]);
    let update: Vec<_> = still
        .iter()
        .filter(|(n, _)| n.starts_with("cbt.") && !n.starts_with("cbt.counters"))
        .collect();
    assert!(still.len() <= 30, "{} nodes: {still:?}", still.len());
    assert!(update.is_empty(), "{update:?}");
    assert!(
        still.iter().any(|(n, _)| n == "raster.compute"),
        "the still frame still draws: {still:?}"
    );
    assert_eq!(
        count("0", "cbt.eval"),
        4,
        "the first frame records every iteration"
    );
}

/// `--publish` picks who rasterises the leaves `raster.compute` hands over: compute mode has no
/// hardware raster and makes `publish.depth` only for the wireframe overlay that reads it.
#[test]
fn publish_compute_has_no_hardware_raster() {
    let names = |args: &[&str]| -> Vec<String> {
        common::graph_nodes(args)
            .into_iter()
            .map(|(n, _)| n)
            .collect()
    };
    let has = |v: &[String], n: &str| v.iter().any(|x| x == n);
    let compute = names(&["--frame", "5", "--publish", "compute"]);
    assert!(!has(&compute, "raster.hardware"), "{compute:?}");
    assert!(!has(&compute, "publish.depth"), "{compute:?}");
    for n in [
        "raster.compute",
        "raster.big.args",
        "raster.compute.big",
        "publish.resolve",
    ] {
        assert!(has(&compute, n), "{n}: {compute:?}");
    }
    let hw = names(&["--frame", "5", "--publish", "hw"]);
    assert!(has(&hw, "raster.hardware"), "{hw:?}");
    assert!(!has(&hw, "raster.compute.big"), "{hw:?}");
    // Without occlusion culling one pass draws every small leaf.
    let all = names(&["--frame", "5", "--occlusion", "off"]);
    assert!(has(&all, "raster.compute"), "{all:?}");
    assert!(
        !has(&all, "raster.hiz") && !has(&all, "raster.compute.late"),
        "{all:?}"
    );
    let wire = names(&["--publish", "compute", "--debug", "wireframe"]);
    assert!(
        has(&wire, "publish.depth") && has(&wire, "raster.cbt_debug"),
        "{wire:?}"
    );
    assert!(!has(&wire, "raster.hardware"), "{wire:?}");
    assert_eq!(
        names(&["--frame", "5"]),
        compute,
        "auto is compute until the H200 says otherwise"
    );
}
