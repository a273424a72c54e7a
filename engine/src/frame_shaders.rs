//! The compute shaders a planet frame binds, known before its first frame is declared, so that
//! their pipelines can be built while the host work before that frame runs
//! (`framegraph::Executor::prebuild_in_background`). The graph stays the truth: whatever this
//! list misses is built when the frame is recorded, and `tests/tests/frame_shaders.rs` checks
//! the list against compiled frames.

use crate::publish::{Occlusion, PublishMode};
use crate::renderer::RendererOptions;
use framegraph::context::DeviceInfo;
use framegraph::shader::Shader;

/// Every compute shader of a shaded frame of a renderer with `opts` on `device`: the mesh's
/// update, the publish, the atmosphere's LUTs, exposure and shading, and the GPU tile feed's
/// when a flying renderer makes tiles on the GPU (only an Earth has that feed; another planet's
/// renderer builds those four pipelines for nothing).
pub fn compute(opts: &RendererOptions, device: &DeviceInfo) -> Vec<&'static Shader> {
    let mut list: Vec<&'static Shader> = vec![
        &shaders::CBT_FRAME_ARGS,
        &shaders::CBT_EVAL,
        &shaders::CBT_DECIDE,
        &shaders::CBT_RESOLVE,
        &shaders::CBT_RESERVE_REDUCE,
        &shaders::CBT_RESERVE,
        &shaders::CBT_RESERVE_ARGS,
        &shaders::CBT_NEIGHBOURS,
        &shaders::CBT_COMMIT,
        &shaders::CBT_REDUCE,
        &shaders::CBT_FINISH,
        &shaders::CBT_FINISH_REDUCE,
        &shaders::CBT_FINISH_COMPACT,
        &shaders::RASTER_ARGS,
    ];
    match opts.publish.occlusion {
        Occlusion::Off => list.push(&shaders::RASTER_COMPUTE),
        Occlusion::Stamp => list.push(&shaders::RASTER_COMPUTE_STAMPED),
        Occlusion::Cull => list.extend([
            &shaders::RASTER_COMPUTE_EARLY,
            &shaders::RASTER_HIZ,
            &shaders::RASTER_COMPUTE_LATE,
        ]),
    }
    if opts.publish.mode.resolve(device) != PublishMode::Hardware {
        list.extend([&shaders::RASTER_BIG_ARGS, &shaders::RASTER_COMPUTE_BIG]);
    }
    list.push(opts.publish.resolve_shader());
    if opts.publish.shell_handed_over() {
        list.push(&shaders::PUBLISH_RESOLVE_SHELL);
    }
    list.extend(opts.publish.skyline_shader());
    if opts.publish.occlusion == Occlusion::Stamp {
        list.extend([&shaders::RASTER_HIZ, &shaders::RASTER_UNSEEN]);
    }
    list.extend([
        &shaders::ATMOS_TRANSMITTANCE,
        &shaders::ATMOS_MULTISCATTER,
        &shaders::ATMOS_SEALEVEL,
        &shaders::ATMOS_SKYVIEW,
        &shaders::ATMOS_AERIAL,
        &shaders::EXPOSURE_ADAPT,
        &shaders::SHADE_TERRAIN,
    ]);
    if !opts.wait_for_tiles && opts.gpu_tiles_per_frame > 0 {
        list.extend([
            &shaders::TILES_DERIVE,
            &shaders::TILES_AMPLIFY_PATCH,
            &shaders::TILES_AMPLIFY,
            &shaders::TILES_AMPLIFY_FALLBACK,
        ]);
    }
    list
}
