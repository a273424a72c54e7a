//! The frame around a [`SceneRenderer`]: the viewer's target, the renderer's nodes, the HUD,
//! then either the copy to a swapchain image + present (`view`) or a readback (`render`,
//! `capture`, `graph`). One builder for all of them, so `planetfall graph` lists exactly the
//! nodes a headless frame runs.

use super::hud::Overlay;
use super::{FrameInput, SceneRenderer};
use ash::vk;
use framegraph::{Graph, ImageDesc, ImageRef, LoadOp, RasterState};

/// The target's format: display-ready 8-bit values (what PNGs and UNORM swapchains hold).
pub const TARGET_FORMAT: vk::Format = vk::Format::R8G8B8A8_UNORM;
/// Name of the target in the graph (and in RenderDoc).
pub const TARGET_NAME: &str = "view.target";
/// Readback name of the target in headless frames and screenshots.
pub const READBACK: &str = "color";

/// Where the frame goes.
pub enum Output {
    /// Copy into this swapchain image of `extent` px (sRGB format: decode first; a smaller
    /// target is scaled up) and present it; optionally also read the target back
    /// (`--screenshot`).
    Present {
        image: ImageRef,
        extent: [u32; 2],
        srgb: bool,
        screenshot: bool,
    },
    /// Read the target back under [`READBACK`].
    Readback,
}

/// Declare a whole frame around `renderer`'s prepared one. Returns the target's final handle.
pub fn declare<'a>(
    g: &mut Graph<'a>,
    renderer: &'a dyn SceneRenderer,
    input: &FrameInput<'_>,
    hud: Option<&Overlay>,
    output: Output,
) -> anyhow::Result<ImageRef> {
    let [w, h] = input.extent;
    let mut target = g.create_image(TARGET_NAME, ImageDesc::d2(w, h, TARGET_FORMAT));
    renderer.declare(g, input, &mut target)?;
    if let Some(o) = hud {
        o.declare(g, &mut target, input.extent);
    }
    match output {
        Output::Present {
            mut image,
            extent,
            srgb,
            screenshot,
        } => {
            g.raster(
                "present.blit",
                &shaders::PRESENT_BLIT_VERT,
                &shaders::PRESENT_BLIT_FRAG,
            )
            .read("src", target)
            .push(&[srgb as u32, extent[0], extent[1]])
            .state(RasterState::default())
            .color(&mut image, LoadOp::DontCare)
            .draw(3, 1);
            if screenshot {
                g.readback_image(READBACK, target);
            }
            g.present(image);
        }
        Output::Readback => g.readback_image(READBACK, target),
    }
    Ok(target)
}
