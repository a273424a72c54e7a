//! `planetfall graph`: compile a frame's graph without running it and print it — the headless
//! frame of `render`/`capture` by default, the windowed frame of `view` with `--viewer`.

use crate::headless::FrameArgs;
use crate::view::frame::{self, Output};
use crate::view::hud::Overlay;
use crate::view::{scene, FrameInput};
use anyhow::Result;
use ash::vk;
use framegraph::{Graph, ImageDesc, QueueSetup};

#[derive(clap::Args)]
pub struct Args {
    /// Print Graphviz dot instead of text.
    #[arg(long, conflicts_with_all = ["text", "names"])]
    dot: bool,
    /// Print text (the default).
    #[arg(long)]
    text: bool,
    /// Print only the executed nodes, one `name kind` per line (tests read this).
    #[arg(long)]
    names: bool,
    /// Plan for a device with a dedicated transfer queue family (as on a discrete GPU).
    #[arg(long)]
    async_transfer: bool,
    /// The viewer's frame (HUD, copy to a swapchain image, present) instead of the headless one.
    #[arg(long)]
    viewer: bool,
    /// Print frame N of a fresh renderer (frame 0 holds one-time nodes such as `cbt.init`).
    #[arg(long = "frame", value_name = "N", default_value_t = 0)]
    frame_index: u64,
    /// Who rasterises the leaves the compute rasteriser hands over: hw, compute or auto
    /// (as `render --publish`).
    #[arg(long, env = "PLANETFALL_PUBLISH", default_value = "auto", value_parser = crate::device::parse_publish)]
    publish: engine::publish::PublishMode,
    /// Occlusion stamps in the compute raster: off, stamp or on (as `render --occlusion`).
    #[arg(long, env = "PLANETFALL_OCCLUSION", default_value = "off")]
    occlusion: engine::publish::Occlusion,
    #[command(flatten)]
    frame: FrameArgs,
}

pub fn run(a: Args) -> Result<()> {
    a.frame.check()?;
    let queues = if a.async_transfer {
        QueueSetup {
            universal: 0,
            transfer: Some(1),
        }
    } else {
        QueueSetup::single(0)
    };
    // A context of this machine's device holds the renderer's persistent objects; the graph is
    // compiled for `queues`, whatever that device has.
    let gpu = crate::device::GpuArgs {
        publish: a.publish,
        occlusion: a.occlusion,
        ..Default::default()
    };
    let ctx = gpu.context()?;
    let mut renderer = scene::make(&ctx, &a.frame.scene, scene::Purpose::Inspect)?;
    let (_, cam) = a.frame.camera(renderer.as_ref())?;
    let result = print_frames(&a, &ctx, renderer.as_mut(), &cam, queues);
    renderer.destroy(&ctx);
    result
}

fn print_frames(
    a: &Args,
    ctx: &framegraph::Context,
    renderer: &mut dyn crate::view::SceneRenderer,
    cam: &engine::camera::ViewCamera,
    queues: QueueSetup,
) -> Result<()> {
    // Frames before N are declared and dropped: they carry the renderer's one-time nodes.
    for i in 0..=a.frame_index {
        let c = if a.viewer {
            let extent = [a.frame.width, a.frame.height];
            let input = FrameInput {
                cam,
                extent,
                frame_slot: 0,
                frame: i,
                dt: 0.0,
                debug: a.frame.debug,
                sun: a.frame.camera.sun.direction(cam.eye),
                gpu_times: &[],
            };
            renderer.prepare(ctx, &input)?;
            let mut g = Graph::new();
            // A stand-in swapchain image: the graph's shape does not depend on the real one.
            let desc = ImageDesc::d2(extent[0], extent[1], vk::Format::B8G8R8A8_UNORM);
            let image = g.import_image_raw(
                "swapchain0",
                desc,
                vk::Image::null(),
                vk::ImageView::null(),
                Default::default(),
                true,
            );
            let mut hud = Overlay::new(extent[1]);
            hud.text(1, 1, "HUD", crate::view::hud::WHITE);
            frame::declare(
                &mut g,
                &*renderer,
                &input,
                Some(&hud),
                Output::Present {
                    image,
                    extent,
                    srgb: false,
                    screenshot: false,
                },
            )?;
            g.compile(queues)?
        } else {
            crate::headless::compile(renderer, ctx, queues, cam, &a.frame)?
        };
        if i < a.frame_index {
            continue;
        }
        if a.dot {
            print!("{}", c.dump_dot());
        } else if a.names {
            for n in &c.nodes {
                println!("{} {:?}", n.name, n.kind);
            }
        } else {
            print!("{}", c.dump_text());
        }
    }
    Ok(())
}
