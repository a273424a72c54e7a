//! `planetfall view --puffin`: a puffin_http client receives frames with a scope for every
//! node of the viewer's frame graph, on the recording (CPU) thread and on the "GPU" thread.
//! The nodes are those of a steady frame (`--frame 5`): one-time nodes (`cbt.init`, the
//! atmosphere's LUTs) run in frames the client may connect after.

mod common;
use common::*;
use std::collections::BTreeSet;
use std::time::{Duration, Instant};

#[test]
fn puffin_client_sees_every_node_on_cpu_and_gpu() {
    let nodes: BTreeSet<String> = graph_nodes(&["--viewer", "--frame", "5"])
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    assert!(
        nodes.contains("hud.overlay") && nodes.contains("present.blit"),
        "{nodes:?}"
    );
    let x = Xvfb::start();
    let dir = scratch("puffin");
    // Frames keep coming while the script sleeps: time for the client to connect.
    let script = write(&dir, "p.txt", "frames 5\nsleep 5000\nframes 20\n");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let addr = format!("127.0.0.1:{port}");
    let mut c = x.command(&[
        "view",
        "--no-ground",
        "--width",
        "128",
        "--height",
        "96",
        "--puffin",
        &addr,
    ]);
    c.arg("--script").arg(&script).current_dir(root());
    let child = c
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let client = puffin_http::Client::new(addr.clone());
    let deadline = Instant::now() + Duration::from_secs(60);
    let (mut cpu, mut gpu) = (BTreeSet::new(), BTreeSet::new());
    while Instant::now() < deadline && !(nodes.is_subset(&cpu) && nodes.is_subset(&gpu)) {
        std::thread::sleep(Duration::from_millis(300));
        let view = client.frame_view();
        for f in view.recent_frames() {
            let Ok(unpacked) = f.unpacked() else { continue };
            for (thread, stream) in &unpacked.thread_streams {
                let mut stack = puffin::Reader::from_start(&stream.stream)
                    .read_top_scopes()
                    .unwrap_or_default();
                while let Some(s) = stack.pop() {
                    if let Some(d) = view.scope_collection().fetch_by_id(&s.id) {
                        let set = if thread.name == "GPU" {
                            &mut gpu
                        } else {
                            &mut cpu
                        };
                        set.insert(d.name().to_string());
                    }
                    if let Ok(children) =
                        puffin::Reader::with_offset(&stream.stream, s.child_begin_position)
                            .and_then(|r| r.read_top_scopes())
                    {
                        stack.extend(children);
                    }
                }
            }
        }
    }
    let out = child.wait_with_output().unwrap();
    let (o, e) = text(&out);
    assert!(out.status.success(), "viewer failed:\n{o}\n{e}");
    assert!(o.contains(&format!("puffin: serving on {addr}")), "{o}");
    for n in &nodes {
        assert!(cpu.contains(n), "no CPU scope for {n}; CPU scopes: {cpu:?}");
        assert!(gpu.contains(n), "no GPU scope for {n}; GPU scopes: {gpu:?}");
    }
    let _ = std::fs::remove_dir_all(dir);
}
