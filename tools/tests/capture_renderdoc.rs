//! RenderDoc captures open in RenderDoc's own replay library (Debian's python3-renderdoc under
//! the system python), and their action tree holds a labelled region for every node of the
//! frame — the list `planetfall graph --names` prints, so the check follows the frame as the
//! planet lands — with a draw inside every raster node and a dispatch inside every compute node.

mod common;
use common::*;
use std::process::Command;

/// The action tree of a capture as (depth, flags, name) rows, from RenderDoc's replay.
fn actions(rdc: &str) -> (String, Vec<(usize, String, String)>) {
    let script = root().join("tools/tests/rdc_actions.py");
    let o = Command::new("/usr/bin/python3")
        .arg(&script)
        .arg(rdc)
        .output()
        .expect("system python runs");
    let (tree, err) = text(&o);
    assert!(
        o.status.success(),
        "RenderDoc's replay could not open {rdc}:\n{err}\n(apt-get install python3-renderdoc)"
    );
    // depth \t flags \t name; a node's commands are the deeper lines after its marker.
    let rows = tree
        .lines()
        .filter_map(|l| {
            let mut p = l.splitn(3, '\t');
            Some((
                p.next()?.parse().ok()?,
                p.next()?.to_string(),
                p.next()?.to_string(),
            ))
        })
        .collect();
    (tree, rows)
}

/// Every node has its labelled region; raster nodes hold a draw, compute nodes a dispatch.
fn check_regions(nodes: &[(String, String)], tree: &str, rows: &[(usize, String, String)]) {
    for (node, kind) in nodes {
        let at = rows
            .iter()
            .position(|(_, f, n)| f.contains("marker") && n == node);
        let Some(at) = at else {
            panic!("no region labelled {node} in the capture:\n{tree}")
        };
        let depth = rows[at].0;
        let inside: Vec<&(usize, String, String)> =
            rows[at + 1..].iter().take_while(|r| r.0 > depth).collect();
        let want = match kind.as_str() {
            "Raster" => Some("draw"),
            "Compute" => Some("dispatch"),
            _ => None,
        };
        if let Some(w) = want {
            assert!(
                inside.iter().any(|r| r.1.split(',').any(|f| f == w)),
                "no {w} inside {node}:\n{tree}"
            );
        }
    }
}

/// `planetfall capture`: headless, no window.
#[test]
fn capture_opens_in_renderdoc_with_every_node_label() {
    // The default scene's frame (test scene: raster.test, test.sweep; the planet: raster.hardware,
    // cbt.decide, …): at least one raster and one compute node to look inside. The publish in
    // compute mode has no raster node: the hardware path is asked for.
    let nodes = graph_nodes(&["--frame", "1", "--publish", "hw"]);
    assert!(nodes.iter().any(|(_, k)| k == "Raster"), "{nodes:?}");
    assert!(nodes.iter().any(|(_, k)| k == "Compute"), "{nodes:?}");
    let dir = scratch("capture");
    let mut c = Command::new(BIN);
    c.args([
        "capture",
        "--frame",
        "1",
        "--publish",
        "hw",
        "--width",
        "64",
        "--height",
        "64",
        "--dir",
    ])
    .arg(&dir)
    .current_dir(root());
    let out = ok(c);
    let rdc = out
        .lines()
        .find_map(|l| l.strip_prefix("wrote "))
        .expect("capture prints the file")
        .to_string();
    let name = std::path::Path::new(&rdc)
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    assert!(
        name.contains("_lat26.500_lon85.500_180000_frame1_") && name.ends_with(".rdc"),
        "descriptive name: {name}"
    );
    let (tree, rows) = actions(&rdc);
    check_regions(&nodes, &tree, &rows);
    let _ = std::fs::remove_dir_all(dir);
}

/// `view --capture-frame N` under Xvfb: the viewer's frame (HUD, copy, present) in RenderDoc.
#[test]
fn viewer_capture_frame_holds_the_viewer_frame() {
    let nodes = graph_nodes(&["--viewer", "--frame", "2"]);
    let x = Xvfb::start();
    let dir = scratch("viewcapture");
    let script = write(&dir, "s.txt", "frames 4\n");
    let mut c = x.command(&[
        "view",
        "--no-ground",
        "--width",
        "128",
        "--height",
        "96",
        "--capture-frame",
        "2",
    ]);
    c.arg("--script").arg(&script).current_dir(&dir);
    let out = ok(c);
    let rdc = out
        .lines()
        .find_map(|l| l.strip_prefix("renderdoc: wrote "))
        .expect("the viewer reports the capture");
    assert!(rdc.contains("_frame2_"), "{rdc}");
    let (tree, rows) = actions(&dir.join(rdc).to_string_lossy());
    check_regions(&nodes, &tree, &rows);
    let _ = std::fs::remove_dir_all(dir);
}
