//! `engine::frame_shaders::compute`, the list of compute shaders whose pipelines a viewer
//! builds in the background before its first frame, against the compute nodes of compiled
//! planet frames: for the default options, with occlusion culling, with the hardware
//! publish, and with the resolve's variants. A shader the list misses would be built late, on the first frame's critical path;
//! one it holds needlessly would cost a cold start CPU time.

use engine::camera::ViewCamera;
use engine::planet::Body;
use engine::publish::{Occlusion, PublishMode};
use engine::renderer::{FrameRequest, PlanetRenderer, RendererOptions};
use engine::source::AnalyticSource;
use framegraph::graph::NodeKind;
use framegraph::{Graph, ImageDesc};
use planetfall_tests::{test_renderer_options, Gpu};
use std::collections::BTreeSet;
use std::sync::Arc;

const R: f64 = 1.0e6;

/// The compute nodes of the first frame of a flying renderer with `opts`.
fn first_frame_compute(gpu: &mut Gpu, opts: RendererOptions) -> BTreeSet<String> {
    let src = Arc::new(AnalyticSource::new(Body { radius: R }, 6, 100.0, |d| {
        50.0 * (3.0 * d.x).sin()
    }));
    let mut r = PlanetRenderer::new(&gpu.ctx, src, opts, 1).expect("renderer");
    let cam = ViewCamera::geo(10.0, 20.0, R + 5_000.0, 0.0, -30.0, 60.0, 64, 48);
    let req = FrameRequest {
        cam,
        frame_slot: 0,
        view: engine::debug_view::DebugView::Shaded,
        aov: false,
    };
    r.prepare(&gpu.ctx, req).expect("prepares");
    let mut g = Graph::new();
    let mut target = g.create_image(
        "target",
        ImageDesc::d2(64, 48, ash::vk::Format::R8G8B8A8_UNORM),
    );
    r.declare(&mut g, &mut target).expect("declares");
    g.readback_image("color", target);
    let compiled = g.compile(gpu.ctx.queue_setup()).expect("compiles");
    let names = compiled
        .nodes
        .iter()
        .filter(|n| n.kind == NodeKind::Compute)
        .map(|n| n.name.clone())
        .collect();
    drop(compiled);
    r.destroy(&gpu.ctx);
    names
}

#[test]
fn the_prebuilt_list_is_the_first_frames_compute_shaders() {
    let mut gpu = Gpu::new();
    let base = {
        let mut o = test_renderer_options(&gpu.ctx);
        o.wait_for_tiles = false;
        o
    };
    let mut occlusion = base;
    occlusion.publish.occlusion = Occlusion::Cull;
    let mut stamp = base;
    stamp.publish.occlusion = Occlusion::Stamp;
    let mut hardware = base;
    hardware.publish.mode = PublishMode::Hardware;
    // The resolve's variants: the searching one, the shell's hand-over and its pass, the
    // skyline pass that walks up the outlines' crests.
    let mut search = base;
    search.publish.outline_samples = 8;
    let mut shell = base;
    shell.publish.shell_k = 2.0;
    let mut walk = base;
    walk.publish.skyline_outline_m = 20.0;
    for (what, opts) in [
        ("default", base),
        ("occlusion", occlusion),
        ("stamp", stamp),
        ("hardware", hardware),
        ("search", search),
        ("shell", shell),
        ("walk", walk),
    ] {
        let listed: BTreeSet<String> = engine::frame_shaders::compute(&opts, &gpu.ctx.info)
            .iter()
            .map(|s| s.name.to_string())
            .collect();
        let drawn = first_frame_compute(&mut gpu, opts);
        // Node names are shader names (FRAMEGRAPH.md), so the two sets compare directly.
        assert!(drawn.len() > 20, "{what}: {drawn:?}");
        assert_eq!(listed, drawn, "{what}");
    }
    gpu.assert_clean();
}
