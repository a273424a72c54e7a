//! The frame graph on a real device (lavapipe on CI) under validation with synchronization
//! validation: fill → compute writes indirect arguments → indirect dispatch → raster from a
//! GPU-written vertex buffer with an indirect draw → readback, checked value by value against
//! a CPU computation; the same through the (async) transfer path; timestamps (per node, or
//! only the frame's span with frames in flight) and puffin scopes.

use ash::vk;
use framegraph::exec::timing::TimingMode;
use framegraph::graph::QueueKind;
use framegraph::FrameSync;
use framegraph::{BufferDesc, GpuBuffer, Graph, ImageDesc, LoadOp, RasterState};
use planetfall_tests::Gpu;

const COUNT: u32 = 200;
const SIZE: u32 = 64;

fn build(g: &mut Graph<'_>) {
    let mut params = g.create_buffer("test.params", BufferDesc::gpu(16));
    let mut args = g.create_buffer("test.args", BufferDesc::indirect(2));
    let mut values = g.create_buffer("test.values", BufferDesc::gpu(4 * 256));
    let mut verts = g.create_buffer("test.verts", BufferDesc::gpu(16 * 3 * 16));
    let mut color = g.create_image(
        "test.color",
        ImageDesc::d2(SIZE, SIZE, vk::Format::R8G8B8A8_UNORM),
    );
    g.transfer("test.fill")
        .fill(&mut params, 0, vk::WHOLE_SIZE, COUNT);
    g.compute("test.args", &shaders::TEST_ARGS)
        .read("params", params)
        .write("args", &mut args)
        .dispatch([1, 1, 1]);
    g.compute("test.sweep", &shaders::TEST_SWEEP)
        .read("params", params)
        .write("out_values", &mut values)
        .write("out_verts", &mut verts)
        .dispatch_indirect(args, 0);
    g.raster(
        "raster.test",
        &shaders::TEST_TRI_VERT,
        &shaders::TEST_TRI_FRAG,
    )
    .read("in_verts", verts)
    .push(&[0.0f32, 0.0, 0.5, 0.0])
    .state(RasterState::default())
    .color(&mut color, LoadOp::Clear([0.0, 0.0, 0.0, 1.0]))
    .draw_indirect(args, 16, 1, 16);
    g.readback("values", values);
    g.readback_image("color", color);
    // A node whose output nobody reads: culled.
    let mut unused = g.create_buffer("test.unused", BufferDesc::gpu(16));
    g.transfer("test.dead")
        .fill(&mut unused, 0, vk::WHOLE_SIZE, 1);
}

/// CPU expectation for pixel (x, y): triangle k of cell (k % 4, k / 4) drawn for k < COUNT % 16.
fn expected_pixel(x: u32, y: u32) -> [u8; 4] {
    let (cx, cy) = (x / 16, y / 16);
    let k = cy * 4 + cx;
    let (px, py) = (
        x as f32 + 0.5 - cx as f32 * 16.0,
        y as f32 + 0.5 - cy as f32 * 16.0,
    );
    // Triangle (1.3,1.3), (14.8,1.3), (1.3,14.8) in cell coordinates; NDC y maps to +y rows.
    let inside = px > 1.3 && py > 1.3 && px + py < 16.1;
    if k < COUNT % 16 && inside {
        let b = (0.5f32 * 255.0).round() as u8;
        [(k * 16) as u8, (255 - k * 16) as u8, b, 255]
    } else {
        [0, 0, 0, 255]
    }
}

#[test]
fn fill_indirect_dispatch_indirect_draw_readback() {
    let mut gpu = Gpu::new();
    let mut g = Graph::new();
    build(&mut g);
    let compiled = g.compile(gpu.ctx.queue_setup()).expect("compiles");
    assert_eq!(compiled.culled, vec!["test.dead".to_string()]);
    let names: Vec<String> = compiled.nodes.iter().map(|n| n.name.clone()).collect();
    let out = gpu.exec.run(&gpu.ctx, compiled).expect("runs");

    let values: &[u32] = bytemuck::cast_slice(out.readback("values").unwrap());
    for (i, v) in values.iter().enumerate().take(COUNT as usize) {
        assert_eq!(*v, (i * i * 3 + 7) as u32, "value {i}");
    }
    let color = out.readback("color").unwrap();
    assert_eq!(color.len(), (SIZE * SIZE * 4) as usize);
    let mut drawn = 0;
    for y in 0..SIZE {
        for x in 0..SIZE {
            let i = ((y * SIZE + x) * 4) as usize;
            let want = expected_pixel(x, y);
            let got = [color[i], color[i + 1], color[i + 2], color[i + 3]];
            assert!(
                got.iter().zip(&want).all(|(a, b)| a.abs_diff(*b) <= 1),
                "pixel ({x},{y}): got {got:?}, want {want:?}"
            );
            drawn += (want != [0, 0, 0, 255]) as u32;
        }
    }
    assert!(drawn > 500, "the test must draw something ({drawn} px)");

    // Timestamps: every node, begin ≤ end, in order.
    assert_eq!(
        out.times.iter().map(|t| t.name.clone()).collect::<Vec<_>>(),
        names
    );
    let mut prev_end = 0.0;
    for t in &out.times {
        assert!(
            t.duration_ms >= 0.0 && t.start_ms + 1e-9 >= prev_end,
            "{t:?}"
        );
        prev_end = t.start_ms + t.duration_ms;
    }
    assert!(out.total_ms() > 0.0, "GPU timestamps advance");
    gpu.assert_clean();
}

/// Check the test graph's values readback (independent of timing).
fn assert_values(out: &framegraph::FrameOutput) {
    let values: &[u32] = bytemuck::cast_slice(out.readback("values").unwrap());
    for (i, v) in values.iter().enumerate().take(COUNT as usize) {
        assert_eq!(*v, (i * i * 3 + 7) as u32, "value {i}");
    }
}

#[test]
fn frame_timing_gives_the_span_without_node_times() {
    let mut gpu = Gpu::new();
    // Per node: every node timed, and the frame's span encloses all of them.
    let mut g = Graph::new();
    build(&mut g);
    let c = g.compile(gpu.ctx.queue_setup()).unwrap();
    let nodes = c.nodes.len();
    let out = gpu.exec.run(&gpu.ctx, c).unwrap();
    assert_values(&out);
    assert!(nodes >= 5);
    assert_eq!(out.times.len(), nodes, "{:?}", out.times);
    let extent = out
        .times
        .iter()
        .map(|t| t.start_ms + t.duration_ms)
        .fold(0.0, f64::max);
    let span = out.span_ms.expect("per-node frames carry the span too");
    assert!(
        span > 0.0 && span + 1e-6 >= extent,
        "span {span} ms, nodes end at {extent} ms"
    );

    // Frame mode, two frames in flight (no wait between submissions): a span each, no
    // node times, the same values.
    gpu.exec.set_timing(TimingMode::Frame);
    let mut outs = Vec::new();
    for _ in 0..4 {
        let (_, retired) = gpu.exec.begin_frame(&gpu.ctx).unwrap();
        outs.extend(retired);
        let mut g = Graph::new();
        build(&mut g);
        let c = g.compile(gpu.ctx.queue_setup()).unwrap();
        gpu.exec.execute(&gpu.ctx, c, FrameSync::default()).unwrap();
    }
    outs.extend(gpu.exec.drain(&gpu.ctx).unwrap());
    let frames: Vec<u64> = outs.iter().map(|o| o.frame).collect();
    assert_eq!(frames, [1, 2, 3, 4], "every frame retired once, in order");
    for o in &outs {
        assert_values(o);
        assert!(o.times.is_empty(), "frame {}: {:?}", o.frame, o.times);
        assert!(o.span_ms.is_some_and(|s| s > 0.0), "frame {}", o.frame);
    }
    gpu.exec.set_timing(TimingMode::PerNode);
}

#[test]
fn upload_through_the_transfer_path() {
    let mut gpu = Gpu::new();
    let n = 300u32;
    let data: Vec<u32> = (0..n).map(|i| i * 7 + 3).collect();
    let mut staging =
        GpuBuffer::new(&gpu.ctx, "test.staging", BufferDesc::upload(4 * n as u64)).unwrap();
    staging.write(0, bytemuck::cast_slice(&data)).unwrap();
    let dst = GpuBuffer::new(&gpu.ctx, "test.uploaded", BufferDesc::gpu(4 * n as u64)).unwrap();
    for frame in 0..3 {
        let mut g = Graph::new();
        let s = g.import_buffer(&staging);
        let mut d = g.import_buffer(&dst);
        let mut result = g.create_buffer("test.result", BufferDesc::gpu(4 * n as u64));
        g.transfer("stream.upload")
            .queue(QueueKind::AsyncTransfer)
            .copy_buffer(s, &mut d, 0, 0, 4 * n as u64);
        g.compute("test.upload", &shaders::TEST_UPLOAD)
            .read("uploaded", d)
            .write("result", &mut result)
            .push(&n)
            .dispatch_threads([n, 1, 1]);
        g.readback("result", result);
        let c = g.compile(gpu.ctx.queue_setup()).unwrap();
        let two_queues = gpu.ctx.transfer.is_some();
        assert_eq!(c.batches.len() > 1, two_queues, "frame {frame}");
        let out = gpu.exec.run(&gpu.ctx, c).unwrap();
        let r: &[u32] = bytemuck::cast_slice(out.readback("result").unwrap());
        for (i, (got, sent)) in r.iter().zip(&data).enumerate() {
            assert_eq!(*got, sent * 2 + 1, "frame {frame} value {i}");
        }
    }
    // Also force the two-family plan through compile on this device's families (pure).
    staging.destroy(&gpu.ctx);
    dst.destroy(&gpu.ctx);
    gpu.assert_clean();
}

#[test]
fn bindings_are_checked_against_the_shader() {
    let mut g = Graph::new();
    let params = g.create_buffer("p", BufferDesc::gpu(16));
    let mut args = g.create_buffer("a", BufferDesc::gpu(32));
    g.compute("test.args", &shaders::TEST_ARGS)
        .read("parms", params)
        .write("args", &mut args)
        .dispatch([1, 1, 1]);
    g.keep_last();
    let e = g
        .compile(framegraph::QueueSetup::single(0))
        .unwrap_err()
        .to_string();
    assert!(e.contains("test.args") && e.contains("parms"), "{e}");
    assert!(e.contains("does not bind `params`"), "{e}");

    let mut g = Graph::new();
    let mut params = g.create_buffer("p", BufferDesc::gpu(16));
    let mut args = g.create_buffer("a", BufferDesc::gpu(32));
    g.compute("test.args", &shaders::TEST_ARGS)
        .write("params", &mut params)
        .write("args", &mut args)
        .dispatch([1, 1, 1]);
    g.keep_last();
    let e = g
        .compile(framegraph::QueueSetup::single(0))
        .unwrap_err()
        .to_string();
    assert!(e.contains("`params`") && e.contains("readonly"), "{e}");
}

/// The harness can fail: a node that touches a buffer it did not declare gets no barrier,
/// and synchronization validation must report the hazard.
#[test]
fn undeclared_access_is_caught_by_sync_validation() {
    let mut gpu = Gpu::new();
    let buf = GpuBuffer::new(&gpu.ctx, "test.hazard", BufferDesc::gpu(256)).unwrap();
    let mut g = Graph::new();
    let mut b = g.import_buffer(&buf);
    g.transfer("test.first").fill(&mut b, 0, vk::WHOLE_SIZE, 1);
    let raw = buf.raw;
    g.custom("test.sneaky")
        .side_effect()
        .record(move |rc| unsafe {
            rc.device.cmd_fill_buffer(rc.cmd, raw, 0, vk::WHOLE_SIZE, 2);
        });
    let c = g.compile(gpu.ctx.queue_setup()).unwrap();
    gpu.exec.run(&gpu.ctx, c).unwrap();
    let msgs = gpu.ctx.messages.take();
    assert!(
        msgs.iter()
            .any(|m| m.contains("SYNC-HAZARD-WRITE-AFTER-WRITE")),
        "expected a WAW hazard, got {msgs:?}"
    );
    buf.destroy(&gpu.ctx);
}

#[test]
fn compute_pipelines_built_together_are_the_cached_ones() {
    let mut gpu = Gpu::new();
    let pipes = &gpu.exec.pipelines;
    assert!(pipes.is_empty());
    // A duplicate in the list is built once.
    let list = [
        &shaders::TEST_ARGS,
        &shaders::TEST_SWEEP,
        &shaders::TEST_ARGS,
    ];
    pipes.prebuild_compute(&gpu.ctx, &list).expect("builds");
    assert_eq!(pipes.len(), 2);
    let args = pipes
        .compute(&gpu.ctx, &shaders::TEST_ARGS)
        .expect("cached");
    let again = pipes
        .compute(&gpu.ctx, &shaders::TEST_ARGS)
        .expect("cached");
    assert!(std::sync::Arc::ptr_eq(&args, &again));
    assert_eq!(pipes.len(), 2, "compute() found the prebuilt pipeline");
    // Prebuilding what is cached builds nothing; the frame then adds only its raster pipeline.
    pipes.prebuild_compute(&gpu.ctx, &list[..2]).expect("no-op");
    assert_eq!(pipes.len(), 2);
    let mut g = Graph::new();
    build(&mut g);
    let compiled = g.compile(gpu.ctx.queue_setup()).expect("compiles");
    let out = gpu.exec.run(&gpu.ctx, compiled).expect("runs");
    assert_eq!(gpu.exec.pipelines.len(), 3);
    let values: &[u32] = bytemuck::cast_slice(out.readback("values").unwrap());
    for (i, v) in values.iter().enumerate().take(COUNT as usize) {
        assert_eq!(*v, (i * i * 3 + 7) as u32, "value {i}");
    }
    gpu.assert_clean();
}

/// Pipelines started in the background before a frame: the frame's recording joins in and
/// finds them built, each once (a duplicate in the list too); an executor destroyed while its
/// thread builds waits for it, so the device is never destroyed under it.
#[test]
fn pipelines_built_in_the_background_serve_the_next_frame() {
    let mut gpu = Gpu::new();
    let list = vec![
        &shaders::TEST_SWEEP,
        &shaders::TEST_ARGS,
        &shaders::TEST_SWEEP,
    ];
    gpu.exec.prebuild_in_background(&gpu.ctx, list.clone());
    let mut g = Graph::new();
    build(&mut g);
    let compiled = g.compile(gpu.ctx.queue_setup()).expect("compiles");
    let out = gpu.exec.run(&gpu.ctx, compiled).expect("runs");
    // The two compute pipelines, and the frame's raster one.
    assert_eq!(gpu.exec.pipelines.len(), 3);
    let values: &[u32] = bytemuck::cast_slice(out.readback("values").unwrap());
    for (i, v) in values.iter().enumerate().take(COUNT as usize) {
        assert_eq!(*v, (i * i * 3 + 7) as u32, "value {i}");
    }
    gpu.assert_clean();
    // A second executor, destroyed while its list may still be building: it stops taking
    // shaders, waits for the pipeline under way, and destroys what was built.
    let mut other = framegraph::Executor::new(&gpu.ctx, 1).expect("executor");
    other.prebuild_in_background(&gpu.ctx, list);
    let pipes = other.pipelines.clone();
    other.destroy(&gpu.ctx);
    assert!(pipes.is_empty(), "{} pipelines left", pipes.len());
    gpu.assert_clean();
}

/// The pipeline cache file: a context given a path saves its cache when dropped; the next
/// context loads it (and builds the same pipelines through it, validation clean); a corrupt
/// file is ignored, not handed to the driver, and the context still builds its pipelines.
#[test]
fn the_pipeline_cache_is_saved_reloaded_and_a_corrupt_file_ignored() {
    use framegraph::pipeline::Pipelines;
    use framegraph::{Context, ContextOptions};
    let dir = std::env::temp_dir().join(format!("pf-pcache-gpu-{}", std::process::id()));
    let path = dir.join("pipeline-cache.bin");
    let opts = ContextOptions {
        validation: true,
        device: std::env::var("PLANETFALL_DEVICE").ok(),
        pipeline_cache: Some(path.clone()),
        ..Default::default()
    };
    let list = [&shaders::TEST_ARGS, &shaders::TEST_SWEEP];
    let session = |expect_loaded: bool| {
        let ctx = Context::new(&opts).expect("context");
        assert_eq!(
            ctx.pipeline_cache_loaded,
            expect_loaded,
            "{}",
            path.display()
        );
        let pipes = Pipelines::default();
        pipes.prebuild_compute(&ctx, &list).expect("builds");
        assert_eq!(pipes.len(), 2);
        pipes.destroy(&ctx);
        let msgs = ctx.messages.messages();
        assert!(msgs.is_empty(), "validation: {}", msgs.join("\n"));
        drop(ctx);
        std::fs::read(&path).expect("saved at drop")
    };
    // Our 24-byte header and at least the Vulkan cache header (llvmpipe stores nothing more:
    // Mesa keeps compiled shaders in a cache of its own).
    let first = session(false);
    assert!(first.len() >= 24 + 32, "{} bytes", first.len());
    session(true);
    // A flipped byte in the driver's data: refused by the checksum, rebuilt and saved again.
    let mut bad = first.clone();
    let k = bad.len() - 1;
    bad[k] ^= 0x5a;
    std::fs::write(&path, &bad).unwrap();
    session(false);
    session(true);
    let _ = std::fs::remove_dir_all(&dir);
}
