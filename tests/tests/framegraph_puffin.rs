//! Every node of an executed graph shows up in puffin twice: a CPU scope on the recording
//! thread and a GPU scope on the "GPU" thread, both named like the node.

use ash::vk;
use framegraph::{BufferDesc, Graph};
use planetfall_tests::Gpu;
use puffin::{FrameView, GlobalProfiler};
use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

#[test]
fn every_node_has_cpu_and_gpu_scopes() {
    puffin::set_scopes_on(true);
    let frames = Arc::new(Mutex::new(Vec::new()));
    let sink = frames.clone();
    let sink_id = GlobalProfiler::lock().add_sink(Box::new(move |f| sink.lock().unwrap().push(f)));

    let mut gpu = Gpu::new();
    let mut g = Graph::new();
    let mut a = g.create_buffer("test.a", BufferDesc::gpu(1024));
    let mut args = g.create_buffer("test.args", BufferDesc::indirect(2));
    g.transfer("puffin.fill").fill(&mut a, 0, vk::WHOLE_SIZE, 5);
    g.compute("puffin.args", &shaders::TEST_ARGS)
        .read("params", a)
        .write("args", &mut args)
        .dispatch([1, 1, 1]);
    g.readback("args", args);
    let c = g.compile(gpu.ctx.queue_setup()).unwrap();
    let names: BTreeSet<String> = c.nodes.iter().map(|n| n.name.clone()).collect();
    gpu.exec.run(&gpu.ctx, c).unwrap();
    GlobalProfiler::lock().new_frame();
    GlobalProfiler::lock().new_frame();
    GlobalProfiler::lock().remove_sink(sink_id);

    let mut view = FrameView::default();
    let mut cpu = BTreeSet::new();
    let mut gpu_scopes = BTreeSet::new();
    for f in frames.lock().unwrap().iter() {
        view.add_frame(f.clone());
    }
    for f in frames.lock().unwrap().iter() {
        // `unpacked()` is infallible without puffin's "packing" feature and fallible with it (the
        // workspace build enables it through puffin_http): handle both.
        #[allow(unreachable_patterns)]
        let unpacked = match f.unpacked() {
            Ok(u) => u,
            Err(_) => panic!("puffin frame could not be unpacked"),
        };
        for (thread, stream) in &unpacked.thread_streams {
            let mut stack = puffin::Reader::from_start(&stream.stream)
                .read_top_scopes()
                .unwrap();
            while let Some(s) = stack.pop() {
                let name = view
                    .scope_collection()
                    .fetch_by_id(&s.id)
                    .map(|d| d.name().to_string())
                    .unwrap_or_default();
                if thread.name == "GPU" {
                    gpu_scopes.insert(name);
                } else {
                    cpu.insert(name);
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
    for n in &names {
        assert!(cpu.contains(n), "CPU scope for {n} missing; have {cpu:?}");
        assert!(
            gpu_scopes.contains(n),
            "GPU scope for {n} missing; have {gpu_scopes:?}"
        );
    }
    assert_eq!(
        gpu_scopes, names,
        "the GPU thread has exactly one scope name per node"
    );
    gpu.assert_clean();
}
