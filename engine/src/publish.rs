//! The publish (TERRAIN.md §4): the CBT's leaves into a 64-bit visibility buffer (depth | leaf,
//! by atomicMin), then one hit record per pixel. `publish.clear` → `raster.args` (splits the
//! draw list) → `raster.compute` (compute rasteriser: small leaves) → the leaves it hands over
//! (near-plane crossers, big footprints; same buffer, same key), either
//! - [`PublishMode::Hardware`]: `raster.hardware` (an indirect draw), or
//! - [`PublishMode::Compute`]: `raster.big.args` → `raster.compute.big` (clipped at the near
//!   plane in compute, one workgroup per screen tile of each leaf),
//!
//! → `publish.resolve` (surface-following hit, or the ocean surface at the datum). The shading
//! that reads the hits is `crate::shade`. With occlusion stamps (`PublishOptions::occlusion`)
//! `raster.compute` is `raster.compute.stamped` (and after the resolve, `raster.hiz` →
//! `raster.unseen`), or two phases around `raster.hiz` that cull ([`OcclusionBindings`]).

mod options;

pub use options::*;

use crate::atlas::SurfaceBindings;
use ash::vk;
use framegraph::{
    graph::ComputeNode, BufferDesc, BufferRef, Graph, ImageDesc, ImageRef, LoadOp, RasterState,
};

/// What the publish needs from the mesh.
#[derive(Clone, Copy, Debug)]
pub struct MeshBindings {
    /// The bisector pool (camera-relative corner positions).
    pub pool: BufferRef,
    /// Pool indices of the drawn leaves.
    pub draw_list: BufferRef,
    /// The CBT control block: a `VkDrawIndirectCommand` of the drawn leaves at
    /// `draw_args_offset` (`shaders/common/bisector.glsl` `CbtControl`).
    pub draw_args: BufferRef,
    pub draw_args_offset: u64,
    /// Pool capacity (bounds the draw list).
    pub capacity: u32,
    /// Occlusion culling's leaf stamps (None: every leaf drawn, no stamps kept).
    pub occlusion: Option<OcclusionBindings>,
}

/// The stamps occlusion culling keeps across frames: per pool entry, the last frame whose
/// visibility buffer the leaf won a pixel of (`publish.resolve` writes them; the next frame's
/// `raster.compute.early` draws those leaves, `raster.compute.late` tests the rest against the
/// depth they left). Persistent, zeroed with the pool.
#[derive(Clone, Copy, Debug)]
pub struct OcclusionBindings {
    pub seen: BufferRef,
    /// This frame's stamp: ≥ 2, one more than the last frame's.
    pub frame_stamp: u32,
}

/// What the publish leaves for later passes.
#[derive(Clone, Copy, Debug)]
pub struct Published {
    /// Hit records (`shaders/common/hit.glsl`).
    pub hits: ImageRef,
    /// The raster's depth (reverse-Z, chords), for overlays that must be depth-tested: the
    /// hardware raster's attachment, or in compute mode `publish.depth` made from the
    /// visibility buffer, only when asked for (`want_depth`).
    pub depth: Option<ImageRef>,
    /// `raster.big`, whose header counts the leaves the two raster phases drew and culled, or
    /// with stamps alone those `raster.unseen` found hidden ([`RasterCounts`]).
    pub big: BufferRef,
}

/// The raster's counts, the start of `raster.big` (`shaders/common/raster_big.glsl`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct RasterCounts {
    pub draw_args: [u32; 4],
    pub big_tally: u64,
    /// Leaves `raster.compute.early` drew (won a pixel in the last frame).
    pub early: u32,
    /// Leaves `raster.compute.late` culled as hidden behind what the early phase drew, or with
    /// stamps alone ([`Occlusion::Stamp`]) the unseen leaves `raster.unseen` restamped hidden.
    pub occluded: u32,
}

/// Declare the publish, `publish.clear` … `publish.resolve`; `opts.mode` must be resolved.
pub fn declare_publish(
    g: &mut Graph<'_>,
    extent: [u32; 2],
    mesh: MeshBindings,
    surface: SurfaceBindings,
    opts: PublishOptions,
    want_depth: bool,
) -> Published {
    let [w, h] = extent;
    let r = declare_raster(g, extent, mesh, surface.frame, opts, want_depth);
    let mut hits = g.create_image(
        "publish.hits",
        ImageDesc::d2(w, h, vk::Format::R32G32B32A32_UINT),
    );
    // Stamp 0 writes none: without occlusion culling nothing reads them (the scratch buffer
    // only satisfies the binding when the mesh keeps no stamps).
    let (mut seen, stamp) = match mesh.occlusion {
        Some(o) => (
            r.seen.unwrap_or(o.seen),
            if opts.occlusion.stamps() {
                o.frame_stamp
            } else {
                0
            },
        ),
        None => (
            g.create_buffer(
                "publish.seen",
                BufferDesc::gpu(4 * mesh.capacity.max(1) as u64),
            ),
            0,
        ),
    };
    let shader = opts.resolve_shader();
    let resolve = g.compute(shader.name, shader);
    let resolve = read_surface(resolve, surface)
        .read("pool", mesh.pool)
        .read("vis", r.vis)
        .write("hits", &mut hits)
        .write("seen", &mut seen);
    // Every resolve variant but the plain one reads the shell (any search on: the searching
    // resolve, or the shell's hand-over).
    let resolve = if opts.searches() {
        resolve.read("shell", r.shell)
    } else {
        resolve
    };
    let mut shelled = r.shelled;
    let push = [
        opts.no_correction as u32
            | (!opts.skyline as u32) << 1
            | (opts.skyline_outlines() as u32) << 2
            | (opts.march_samples & 0x1_ffff) << 8
            | (opts.root_bisect as u32) << 25
            | opts.crossing_pieces.min(63) << 26,
        stamp,
        opts.outline_samples,
        if opts.shell_k > 0.0 { SHELL_PIECES } else { 0 },
        opts.late_after,
        opts.late_scale.max(1.0).to_bits(),
        opts.rescue_steps.min(64),
        opts.skyline_outline_m.max(0.0).to_bits(),
    ];
    let mut skylined = r.skylined;
    let resolve = resolve.write("skylined", &mut skylined);
    if opts.shell_handed_over() {
        resolve
            .write("shelled", &mut shelled)
            .push(&push)
            .dispatch_threads([w, h, 1]);
    } else {
        resolve.push(&push).dispatch_threads([w, h, 1]);
    }
    if opts.shell_handed_over() {
        let node = g.compute("publish.resolve.shell", &shaders::PUBLISH_RESOLVE_SHELL);
        read_surface(node, surface)
            .read("pool", mesh.pool)
            .read("vis", r.vis)
            .read("shell", r.shell)
            .read("shelled", shelled)
            .write("hits", &mut hits)
            .write("seen", &mut seen)
            .write("skylined", &mut skylined)
            .push(&push)
            .dispatch_indirect(shelled, 0);
    }
    if let Some(shader) = opts.skyline_shader() {
        let node = g.compute(shader.name, shader);
        read_surface(node, surface)
            .read("pool", mesh.pool)
            .read("vis", r.vis)
            .read("skylined", skylined)
            .write("hits", &mut hits)
            .push(&push)
            .dispatch_indirect(skylined, 0);
    }
    let big = match mesh.occlusion {
        Some(_) if opts.occlusion == Occlusion::Stamp => {
            declare_unseen(g, extent, surface.frame, &mesh, &r, &mut seen, &opts)
        }
        _ => r.big,
    };
    Published {
        hits,
        depth: r.depth,
        big,
    }
}

/// A resolve node's reads of the surface a ray point's walk needs.
fn read_surface<'g, 'a>(
    node: ComputeNode<'g, 'a>,
    surface: SurfaceBindings,
) -> ComputeNode<'g, 'a> {
    node.read("frame", surface.frame)
        .read("slots", surface.slots)
        .read("tile_lookup", surface.lookup)
        .read("tile_heights", surface.heights)
}

/// The visibility buffer the raster leaves (and its depth, see [`Published::depth`]).
#[derive(Clone, Copy, Debug)]
pub struct Rasterised {
    /// `publish.vis`: per pixel (bits of 1 / z_ndc) << 32 | leaf, `u64::MAX` where nothing was
    /// drawn (`shaders/common/raster.glsl`).
    pub vis: BufferRef,
    /// `publish.shell`: the nearest prism face per pixel, keyed as `vis` (8 bytes, unwritten,
    /// without the shell).
    pub shell: BufferRef,
    pub depth: Option<ImageRef>,
    /// The hand-over list and the raster's counts ([`RasterCounts`]).
    pub big: BufferRef,
    /// `raster.dispatch`: the small raster's indirect dispatch over the draw list.
    pub dispatch: BufferRef,
    /// With stamps alone, `raster.hiz`'s buffer, its coarse levels zeroed for
    /// [`declare_unseen`].
    pub hiz: Option<BufferRef>,
    /// `publish.shelled`: the pixels `publish.resolve` hands to `publish.resolve.shell` (a
    /// 16-byte header, cleared by `publish.clear`, then room for every pixel; the header alone
    /// where the options hand none over).
    pub shelled: BufferRef,
    /// `publish.skylined`: the sky pixels beside terrain the resolve passes hand to
    /// `publish.resolve.skyline` (a 16-byte header, cleared by `publish.clear`, then room for
    /// every pixel; the header alone where the skyline search is off).
    pub skylined: BufferRef,
    /// The occlusion stamps after the raster stamped the leaves it drew on screen and the
    /// late phase those it culled (None: no stamps written).
    pub seen: Option<BufferRef>,
}

/// What every node of the `raster.compute` family reads and writes
/// (`shaders/common/raster_small.glsl`): the leaves, the hand-over, the visibility buffer and
/// the shell; push: mode, largest box, this frame's stamp, shell raise.
struct SmallRaster<'a> {
    frame: BufferRef,
    mesh: &'a MeshBindings,
    dispatch: BufferRef,
    push: [u32; 4],
    big: &'a mut BufferRef,
    vis: &'a mut BufferRef,
    shell: &'a mut BufferRef,
}

impl SmallRaster<'_> {
    /// One variant: the stamping ones write `seen`, the late phase reads `hiz`.
    fn declare(
        &mut self,
        g: &mut Graph<'_>,
        name: &'static str,
        shader: &'static framegraph::shader::Shader,
        seen: Option<&mut BufferRef>,
        hiz: Option<BufferRef>,
    ) {
        let node = g
            .compute(name, shader)
            .read("frame", self.frame)
            .read("pool", self.mesh.pool)
            .read("draw_list", self.mesh.draw_list)
            .read("dispatch", self.dispatch);
        let node = match seen {
            Some(s) => node.write("seen", s),
            None => node,
        };
        let node = match hiz {
            Some(h) => node.read("hiz", h),
            None => node,
        };
        node.write("big", self.big)
            .write("vis", self.vis)
            .write("shell", self.shell)
            .push(&self.push)
            .dispatch_indirect(self.dispatch, 0);
    }
}

/// Declare the raster half of the publish, `publish.clear` … `raster.hardware` or
/// `raster.compute.big` (and `publish.depth` when asked for in compute mode); `frame` holds
/// the frame constants (`shaders/common/frame.glsl`). `opts.mode` must be resolved.
pub fn declare_raster(
    g: &mut Graph<'_>,
    extent: [u32; 2],
    mesh: MeshBindings,
    frame: BufferRef,
    opts: PublishOptions,
    want_depth: bool,
) -> Rasterised {
    let mode = opts.mode;
    debug_assert_ne!(mode, PublishMode::Auto, "resolve the publish mode first");
    let compute = mode != PublishMode::Hardware;
    let [w, h] = extent;
    let mut vis = g.create_buffer("publish.vis", BufferDesc::gpu(8 * w as u64 * h as u64));
    let shell_on = opts.shell_k > 0.0;
    let shell_bytes = if shell_on { 8 * w as u64 * h as u64 } else { 8 };
    let mut shell = g.create_buffer("publish.shell", BufferDesc::gpu(shell_bytes));
    let handover = opts.shell_handed_over();
    let shelled_bytes = 16 + if handover { 4 * w as u64 * h as u64 } else { 0 };
    let mut shelled = g.create_buffer("publish.shelled", BufferDesc::gpu(shelled_bytes));
    let skyline = opts.skyline_searched();
    // The list, then a bit a pixel: those handed over (common/resolve_skyline.glsl).
    let pixels = w as u64 * h as u64;
    let mask_bytes = if opts.skyline_outlines() {
        4 * pixels.div_ceil(32)
    } else {
        0
    };
    let skylined_bytes = 16 + if skyline { 4 * pixels + mask_bytes } else { 0 };
    let mut skylined = g.create_buffer("publish.skylined", BufferDesc::gpu(skylined_bytes));
    // With stamps alone, the depth pyramid of the finished image for `raster.unseen`; its
    // coarse levels gather the tiles by atomicMax from zero.
    let unseen = mesh.occlusion.is_some() && opts.occlusion == Occlusion::Stamp;
    let (hiz_bytes, coarse_offset) = hiz_desc(extent, HIZ_COARSE_LEVELS);
    let mut hiz = unseen.then(|| g.create_buffer("raster.hiz", hiz_bytes));
    let mut clear = g
        .transfer("publish.clear")
        .fill(&mut vis, 0, vk::WHOLE_SIZE, u32::MAX)
        .fill(&mut shell, 0, vk::WHOLE_SIZE, u32::MAX);
    // Header: publish.resolve.shell's groups, 1, 1, and the pixels handed over (a resolve
    // that hands none over never reads it); publish.resolve.skyline's likewise.
    let header = bytemuck::cast_slice(&[0u32, 1, 1, 0]);
    if handover {
        clear = clear.update(&mut shelled, 0, header);
    }
    if let Some(hiz) = &mut hiz {
        clear = clear.fill(hiz, coarse_offset, vk::WHOLE_SIZE, 0);
    }
    if skyline {
        let clear = clear.update(&mut skylined, 0, header);
        if mask_bytes > 0 {
            clear.fill(&mut skylined, 16 + 4 * pixels, mask_bytes, 0);
        }
    }
    // Compute rasteriser first; what it cannot take (near-plane crossers, big footprints) goes
    // through `raster.big` (`shaders/common/raster_big.glsl`: a 32-byte header, then a
    // (leaf, first tile) pair per leaf) to the hardware raster or to `raster.compute.big`.
    let mut dispatch = g.create_buffer("raster.dispatch", BufferDesc::indirect(1));
    // A leaf's chord and its prism may both be handed over.
    let entries = if shell_on { 2 } else { 1 } * mesh.capacity as u64;
    let mut big = g.create_buffer("raster.big", BufferDesc::gpu(32 + 8 * entries));
    g.compute("raster.args", &shaders::RASTER_ARGS)
        .read("control", mesh.draw_args)
        .write("dispatch", &mut dispatch)
        .write("big", &mut big)
        .dispatch([1, 1, 1]);
    let max_box = (opts.max_box_px as f32).to_bits();
    let shell_k = opts.shell_k.max(0.0).to_bits();
    let mut stamps = None;
    let mut small = SmallRaster {
        frame,
        mesh: &mesh,
        dispatch,
        push: [compute as u32, max_box, 0, shell_k],
        big: &mut big,
        vis: &mut vis,
        shell: &mut shell,
    };
    match mesh.occlusion.filter(|_| opts.occlusion.stamps()) {
        None => small.declare(g, "raster.compute", &shaders::RASTER_COMPUTE, None, None),
        Some(o) if opts.occlusion == Occlusion::Stamp => {
            // One pass that stamps each leaf it draws on screen as unseen; the resolve
            // restamps the winners.
            let mut seen = o.seen;
            small.push[2] = o.frame_stamp;
            small.declare(
                g,
                "raster.compute.stamped",
                &shaders::RASTER_COMPUTE_STAMPED,
                Some(&mut seen),
                None,
            );
            stamps = Some(seen);
        }
        Some(o) => {
            // Two phases: last frame's visible leaves, the depth they leave per tile, then
            // the rest against it (`shaders/common/raster_small.glsl`).
            let mut seen = o.seen;
            small.push[2] = o.frame_stamp;
            small.declare(
                g,
                "raster.compute.early",
                &shaders::RASTER_COMPUTE_EARLY,
                Some(&mut seen),
                None,
            );
            let mut hiz = g.create_buffer("raster.hiz", hiz_desc(extent, 0).0);
            declare_hiz(g, extent, frame, *small.vis, &mut hiz, 0);
            small.declare(
                g,
                "raster.compute.late",
                &shaders::RASTER_COMPUTE_LATE,
                Some(&mut seen),
                Some(hiz),
            );
            stamps = Some(seen);
        }
    }
    let depth = if compute {
        declare_big_compute(g, mesh, frame, big, &mut vis, &mut shell, shell_k);
        want_depth.then(|| declare_depth(g, extent, frame, vis))
    } else {
        Some(declare_big_hardware(g, extent, mesh, frame, big, &mut vis))
    };
    Rasterised {
        vis,
        shell,
        depth,
        big,
        dispatch,
        hiz,
        shelled,
        skylined,
        seen: stamps,
    }
}

/// `raster.hiz` over the finished visibility buffer → `raster.unseen`: with stamps alone, the
/// leaves still stamped unseen once the resolve restamped the winners are restamped hidden
/// where their prism, `opts.unseen_raise` times their residual, lies behind the image
/// (`shaders/raster/unseen.comp`). Returns `raster.big`, which counts them ([`RasterCounts`]).
/// `mesh.occlusion` must be set.
pub fn declare_unseen(
    g: &mut Graph<'_>,
    extent: [u32; 2],
    frame: BufferRef,
    mesh: &MeshBindings,
    r: &Rasterised,
    seen: &mut BufferRef,
    opts: &PublishOptions,
) -> BufferRef {
    let stamp = mesh.occlusion.map_or(0, |o| o.frame_stamp);
    let mut hiz = r.hiz.expect("raster.hiz is declared with stamps alone");
    declare_hiz(g, extent, frame, r.vis, &mut hiz, HIZ_COARSE_LEVELS);
    let mut big = r.big;
    g.compute("raster.unseen", &shaders::RASTER_UNSEEN)
        .read("frame", frame)
        .read("pool", mesh.pool)
        .read("draw_list", mesh.draw_list)
        .read("dispatch", r.dispatch)
        .read("hiz", hiz)
        .write("seen", seen)
        .write("big", &mut big)
        .push(&[
            stamp,
            opts.unseen_raise.max(0.0).to_bits(),
            opts.unseen_cos.to_bits(),
        ])
        .dispatch_indirect(r.dispatch, 0);
    big
}

/// Levels of `raster.hiz` above its tiles with stamps alone: cells of 16 to 128 px, so that
/// `raster.unseen` tests any leaf's box over a few cells (`RASTER_HIZ_COARSE` in
/// `shaders/common/raster.glsl`).
pub const HIZ_COARSE_LEVELS: u32 = 4;

/// `raster.hiz`'s buffer for `coarse` levels above the tiles, and where those levels start
/// (`hiz_index` in `shaders/common/raster.glsl`).
fn hiz_desc([w, h]: [u32; 2], coarse: u32) -> (BufferDesc, u64) {
    let tiles = [w.div_ceil(RASTER_HIZ_TILE), h.div_ceil(RASTER_HIZ_TILE)];
    let fine = 5 * tiles[0] as u64 * tiles[1] as u64;
    let coarse_cells: u64 = (1..=coarse)
        .map(|k| tiles[0].div_ceil(1 << k) as u64 * tiles[1].div_ceil(1 << k) as u64)
        .sum();
    (BufferDesc::gpu(4 * (fine + coarse_cells)), 4 * fine)
}

/// `raster.hiz`: the farthest depth of `vis` per tile, then per quarter tile, then per cell of
/// `coarse` coarser levels (`shaders/raster/hiz.comp`; those must be zeroed before).
fn declare_hiz(
    g: &mut Graph<'_>,
    [w, h]: [u32; 2],
    frame: BufferRef,
    vis: BufferRef,
    hiz: &mut BufferRef,
    coarse: u32,
) {
    let tiles = [w.div_ceil(RASTER_HIZ_TILE), h.div_ceil(RASTER_HIZ_TILE)];
    g.compute("raster.hiz", &shaders::RASTER_HIZ)
        .read("frame", frame)
        .read("vis", vis)
        .write("hiz", hiz)
        .push(&[coarse])
        .dispatch([tiles[0], tiles[1], 1]);
}

/// `raster.hardware`: the handed-over leaves as an indirect draw; returns its depth attachment.
fn declare_big_hardware(
    g: &mut Graph<'_>,
    [w, h]: [u32; 2],
    mesh: MeshBindings,
    frame: BufferRef,
    big: BufferRef,
    vis: &mut BufferRef,
) -> ImageRef {
    let mut depth = g.create_image("publish.depth", ImageDesc::d2(w, h, vk::Format::D32_SFLOAT));
    let state = RasterState {
        depth_test: true,
        depth_write: true,
        depth_compare: vk::CompareOp::GREATER,
        ..Default::default()
    };
    g.raster(
        "raster.hardware",
        &shaders::RASTER_HARDWARE_VERT,
        &shaders::RASTER_HARDWARE_FRAG,
    )
    .read("frame", frame)
    .read("pool", mesh.pool)
    .read("big", big)
    .write("vis", vis)
    .state(state)
    .depth(&mut depth, LoadOp::Clear([0.0; 4]))
    .draw_indirect(big, 0, 1, 16);
    depth
}

/// `raster.big.args` → `raster.compute.big`: the handed-over leaves in compute, one workgroup
/// per screen tile of each.
fn declare_big_compute(
    g: &mut Graph<'_>,
    mesh: MeshBindings,
    frame: BufferRef,
    big: BufferRef,
    vis: &mut BufferRef,
    shell: &mut BufferRef,
    shell_k: u32,
) {
    let mut dispatch = g.create_buffer("raster.big.dispatch", BufferDesc::indirect(1));
    g.compute("raster.big.args", &shaders::RASTER_BIG_ARGS)
        .read("big", big)
        .write("dispatch", &mut dispatch)
        .dispatch([1, 1, 1]);
    g.compute("raster.compute.big", &shaders::RASTER_COMPUTE_BIG)
        .read("frame", frame)
        .read("pool", mesh.pool)
        .read("big", big)
        .read("dispatch", dispatch)
        .write("vis", vis)
        .write("shell", shell)
        .push(&[shell_k])
        .dispatch_indirect(dispatch, 0);
}

/// `publish.depth`: the raster depth from the visibility buffer, for an overlay (compute mode
/// draws no depth attachment; normal frames do not declare this).
fn declare_depth(
    g: &mut Graph<'_>,
    [w, h]: [u32; 2],
    frame: BufferRef,
    vis: BufferRef,
) -> ImageRef {
    let mut depth = g.create_image("publish.depth", ImageDesc::d2(w, h, vk::Format::D32_SFLOAT));
    let state = RasterState {
        depth_test: true,
        depth_write: true,
        depth_compare: vk::CompareOp::ALWAYS,
        ..Default::default()
    };
    g.raster(
        "publish.depth",
        &shaders::PUBLISH_DEPTH_VERT,
        &shaders::PUBLISH_DEPTH_FRAG,
    )
    .read("frame", frame)
    .read("vis", vis)
    .state(state)
    .depth(&mut depth, LoadOp::Clear([0.0; 4]))
    .draw(3, 1);
    depth
}
