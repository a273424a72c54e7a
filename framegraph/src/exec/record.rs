//! Recording one node: its barrier batch, its commands, its ownership releases.
//!
//! Holds `Physical` (the frame's Vulkan objects by resource id), `barriers` (one
//! `vkCmdPipelineBarrier2` from a planned batch), `Rec` and `work` (a node's commands).

use crate::compile::{BarrierBatch, CompiledGraph, CompiledNode};
use crate::context::Context;
use crate::error::Result;
use crate::graph::{CopyOp, Dispatch, Draw, LoadOp, RawResource, RecordCtx, ResourceDesc, Work};
use crate::pipeline::{Pipeline, Pipelines};
use crate::shader::BindingKind;
use ash::vk;

/// The frame's Vulkan objects, indexed by resource id: imported handles and realized
/// transients alike.
pub(crate) struct Physical {
    pub raw: Vec<RawResource>,
}

impl Physical {
    pub fn buffer(&self, id: u32) -> vk::Buffer {
        match self.raw[id as usize] {
            RawResource::Buffer(b) => b,
            RawResource::Image { .. } => vk::Buffer::null(),
        }
    }
    pub fn image(&self, id: u32) -> (vk::Image, vk::ImageView) {
        match self.raw[id as usize] {
            RawResource::Image { image, view } => (image, view),
            RawResource::Buffer(_) => (vk::Image::null(), vk::ImageView::null()),
        }
    }
}

pub(crate) fn barriers(
    ctx: &Context,
    cmd: vk::CommandBuffer,
    g: &CompiledGraph,
    phys: &Physical,
    b: &BarrierBatch,
) {
    if b.is_empty() {
        return;
    }
    let mem: Vec<vk::MemoryBarrier2> = b
        .memory
        .iter()
        .map(|&(ss, sa, ds, da)| {
            vk::MemoryBarrier2::default()
                .src_stage_mask(ss)
                .src_access_mask(sa)
                .dst_stage_mask(ds)
                .dst_access_mask(da)
        })
        .collect();
    let bufs: Vec<vk::BufferMemoryBarrier2> = b
        .buffers
        .iter()
        .map(|x| {
            let (sf, df) = if x.src_family == x.dst_family {
                (vk::QUEUE_FAMILY_IGNORED, vk::QUEUE_FAMILY_IGNORED)
            } else {
                (x.src_family, x.dst_family)
            };
            vk::BufferMemoryBarrier2::default()
                .src_stage_mask(x.src_stage)
                .src_access_mask(x.src_access)
                .dst_stage_mask(x.dst_stage)
                .dst_access_mask(x.dst_access)
                .src_queue_family_index(sf)
                .dst_queue_family_index(df)
                .buffer(phys.buffer(x.res))
                .offset(0)
                .size(vk::WHOLE_SIZE)
        })
        .collect();
    let imgs: Vec<vk::ImageMemoryBarrier2> = b
        .images
        .iter()
        .map(|x| {
            let (sf, df) = if x.src_family == x.dst_family {
                (vk::QUEUE_FAMILY_IGNORED, vk::QUEUE_FAMILY_IGNORED)
            } else {
                (x.src_family, x.dst_family)
            };
            let range = match &g.resources[x.res as usize].desc {
                ResourceDesc::Image(d) => d.range(),
                ResourceDesc::Buffer(_) => vk::ImageSubresourceRange::default(),
            };
            vk::ImageMemoryBarrier2::default()
                .src_stage_mask(x.src_stage)
                .src_access_mask(x.src_access)
                .dst_stage_mask(x.dst_stage)
                .dst_access_mask(x.dst_access)
                .old_layout(x.old_layout)
                .new_layout(x.new_layout)
                .src_queue_family_index(sf)
                .dst_queue_family_index(df)
                .image(phys.image(x.res).0)
                .subresource_range(range)
        })
        .collect();
    let dep = vk::DependencyInfo::default()
        .memory_barriers(&mem)
        .buffer_memory_barriers(&bufs)
        .image_memory_barriers(&imgs);
    unsafe { ctx.device.cmd_pipeline_barrier2(cmd, &dep) };
}

/// Push the node's descriptors (set 0) from its binding-name → resource map.
fn push_descriptors(
    ctx: &Context,
    cmd: vk::CommandBuffer,
    g: &CompiledGraph,
    decl_uses: &[(String, u32)],
    node: &CompiledNode,
    p: &Pipeline,
    phys: &Physical,
) {
    let max_range = ctx.info.max_storage_buffer_range;
    let mut buffer_infos: Vec<[vk::DescriptorBufferInfo; 1]> = Vec::with_capacity(p.bindings.len());
    let mut image_infos: Vec<[vk::DescriptorImageInfo; 1]> = Vec::with_capacity(p.bindings.len());
    let mut plan: Vec<(u32, vk::DescriptorType, bool, usize)> = Vec::new();
    for b in &p.bindings {
        let Some((_, res)) = decl_uses.iter().find(|(n, _)| *n == b.name) else {
            continue;
        };
        let layout = node
            .uses
            .iter()
            .find(|(r, _)| r == res)
            .map(|(_, u)| u.layout)
            .unwrap_or(vk::ImageLayout::GENERAL);
        match b.kind {
            BindingKind::StorageBuffer | BindingKind::UniformBuffer => {
                let size = match &g.resources[*res as usize].desc {
                    ResourceDesc::Buffer(d) => d.size,
                    ResourceDesc::Image(_) => 0,
                };
                let range = if b.kind == BindingKind::StorageBuffer && size > max_range {
                    max_range
                } else {
                    vk::WHOLE_SIZE
                };
                buffer_infos.push([vk::DescriptorBufferInfo {
                    buffer: phys.buffer(*res),
                    offset: 0,
                    range,
                }]);
                let ty = if b.kind == BindingKind::StorageBuffer {
                    vk::DescriptorType::STORAGE_BUFFER
                } else {
                    vk::DescriptorType::UNIFORM_BUFFER
                };
                plan.push((b.binding, ty, true, buffer_infos.len() - 1));
            }
            kind => {
                image_infos.push([vk::DescriptorImageInfo {
                    sampler: vk::Sampler::null(),
                    image_view: phys.image(*res).1,
                    image_layout: layout,
                }]);
                let ty = match kind {
                    BindingKind::StorageImage => vk::DescriptorType::STORAGE_IMAGE,
                    BindingKind::SampledImage => vk::DescriptorType::SAMPLED_IMAGE,
                    _ => vk::DescriptorType::COMBINED_IMAGE_SAMPLER,
                };
                plan.push((b.binding, ty, false, image_infos.len() - 1));
            }
        }
    }
    let writes: Vec<vk::WriteDescriptorSet> = plan
        .iter()
        .map(|&(binding, ty, is_buf, i)| {
            let w = vk::WriteDescriptorSet::default()
                .dst_binding(binding)
                .descriptor_type(ty);
            if is_buf {
                w.buffer_info(&buffer_infos[i])
            } else {
                w.image_info(&image_infos[i])
            }
        })
        .collect();
    if !writes.is_empty() {
        unsafe {
            ctx.push_descriptor
                .cmd_push_descriptor_set(cmd, p.bind_point, p.layout, 0, &writes)
        };
    }
}

fn push_constants(ctx: &Context, cmd: vk::CommandBuffer, p: &Pipeline, data: &[u8]) {
    if p.push_size > 0 && !data.is_empty() {
        unsafe {
            ctx.device
                .cmd_push_constants(cmd, p.layout, p.push_stages, 0, data)
        };
    }
}

fn extent_of(g: &CompiledGraph, id: u32) -> (vk::Extent2D, vk::Format) {
    match &g.resources[id as usize].desc {
        ResourceDesc::Image(d) => (
            vk::Extent2D {
                width: d.extent[0],
                height: d.extent[1],
            },
            d.format,
        ),
        ResourceDesc::Buffer(_) => (vk::Extent2D::default(), vk::Format::UNDEFINED),
    }
}

fn clear_value(load: LoadOp, depth: bool) -> (vk::AttachmentLoadOp, vk::ClearValue) {
    match load {
        LoadOp::Load => (vk::AttachmentLoadOp::LOAD, vk::ClearValue::default()),
        LoadOp::DontCare => (vk::AttachmentLoadOp::DONT_CARE, vk::ClearValue::default()),
        LoadOp::Clear(c) if depth => (
            vk::AttachmentLoadOp::CLEAR,
            vk::ClearValue {
                depth_stencil: vk::ClearDepthStencilValue {
                    depth: c[0],
                    stencil: 0,
                },
            },
        ),
        LoadOp::Clear(c) => (
            vk::AttachmentLoadOp::CLEAR,
            vk::ClearValue {
                color: vk::ClearColorValue { float32: c },
            },
        ),
        LoadOp::ClearUint(c) => (
            vk::AttachmentLoadOp::CLEAR,
            vk::ClearValue {
                color: vk::ClearColorValue { uint32: c },
            },
        ),
    }
}

/// What recording a node needs besides the node: the device, the pipeline cache, the command
/// buffer, the compiled graph and its physical resources.
pub(crate) struct Rec<'r> {
    pub ctx: &'r Context,
    pub pipelines: &'r Pipelines,
    pub cmd: vk::CommandBuffer,
    pub g: &'r CompiledGraph<'r>,
    pub phys: &'r Physical,
}

/// Record the node's own commands.
pub(crate) fn work(r: &Rec, node: &CompiledNode, work: Work) -> Result<()> {
    let Rec {
        ctx,
        pipelines,
        cmd,
        g,
        phys,
    } = *r;
    let decl_uses = &node.bindings;
    let dev = &ctx.device;
    match work {
        Work::None => {}
        Work::Compute {
            shader,
            push,
            dispatch,
        } => {
            let p = pipelines.compute(ctx, shader)?;
            unsafe { dev.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::COMPUTE, p.raw) };
            push_descriptors(ctx, cmd, g, decl_uses, node, &p, phys);
            push_constants(ctx, cmd, &p, &push);
            match dispatch {
                Dispatch::Groups([x, y, z]) => {
                    if x > 0 && y > 0 && z > 0 {
                        unsafe { dev.cmd_dispatch(cmd, x, y, z) }
                    }
                }
                Dispatch::Indirect { args, offset } => unsafe {
                    dev.cmd_dispatch_indirect(cmd, phys.buffer(args), offset)
                },
            }
        }
        Work::Raster {
            vs,
            fs,
            state,
            push,
            colors,
            depth,
            draw,
        } => {
            let color_formats: Vec<vk::Format> =
                colors.iter().map(|(id, _)| extent_of(g, *id).1).collect();
            let depth_format = depth.map(|(id, _)| extent_of(g, id).1);
            let p = pipelines.raster(ctx, vs, fs, state, &color_formats, depth_format)?;
            let extent = colors
                .first()
                .or(depth.as_ref())
                .map(|(id, _)| extent_of(g, *id).0)
                .unwrap_or_default();
            let color_att: Vec<vk::RenderingAttachmentInfo> = colors
                .iter()
                .map(|&(id, load)| {
                    let (op, clear) = clear_value(load, false);
                    vk::RenderingAttachmentInfo::default()
                        .image_view(phys.image(id).1)
                        .image_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
                        .load_op(op)
                        .store_op(vk::AttachmentStoreOp::STORE)
                        .clear_value(clear)
                })
                .collect();
            let depth_att = depth.map(|(id, load)| {
                let (op, clear) = clear_value(load, true);
                vk::RenderingAttachmentInfo::default()
                    .image_view(phys.image(id).1)
                    .image_layout(vk::ImageLayout::DEPTH_ATTACHMENT_OPTIMAL)
                    .load_op(op)
                    .store_op(vk::AttachmentStoreOp::STORE)
                    .clear_value(clear)
            });
            let area = vk::Rect2D {
                offset: vk::Offset2D::default(),
                extent,
            };
            let mut ri = vk::RenderingInfo::default()
                .render_area(area)
                .layer_count(1)
                .color_attachments(&color_att);
            if let Some(d) = depth_att.as_ref() {
                ri = ri.depth_attachment(d);
            }
            unsafe {
                dev.cmd_begin_rendering(cmd, &ri);
                dev.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::GRAPHICS, p.raw);
                let vp = vk::Viewport {
                    x: 0.0,
                    y: 0.0,
                    width: extent.width as f32,
                    height: extent.height as f32,
                    min_depth: 0.0,
                    max_depth: 1.0,
                };
                dev.cmd_set_viewport(cmd, 0, &[vp]);
                dev.cmd_set_scissor(cmd, 0, &[area]);
            }
            push_descriptors(ctx, cmd, g, decl_uses, node, &p, phys);
            push_constants(ctx, cmd, &p, &push);
            unsafe {
                match draw {
                    Draw::Direct {
                        vertices,
                        instances,
                    } => dev.cmd_draw(cmd, vertices, instances, 0, 0),
                    Draw::Indirect {
                        args,
                        offset,
                        draw_count,
                        stride,
                    } => dev.cmd_draw_indirect(cmd, phys.buffer(args), offset, draw_count, stride),
                    Draw::IndirectCount {
                        args,
                        offset,
                        count,
                        count_offset,
                        max_draws,
                        stride,
                    } => dev.cmd_draw_indirect_count(
                        cmd,
                        phys.buffer(args),
                        offset,
                        phys.buffer(count),
                        count_offset,
                        max_draws,
                        stride,
                    ),
                }
                dev.cmd_end_rendering(cmd);
            }
        }
        Work::Transfer(ops) => {
            for op in ops {
                unsafe {
                    match op {
                        CopyOp::Buffer { src, dst, regions } => {
                            dev.cmd_copy_buffer(cmd, phys.buffer(src), phys.buffer(dst), &regions)
                        }
                        CopyOp::BufferToImage { src, dst, regions } => dev
                            .cmd_copy_buffer_to_image(
                                cmd,
                                phys.buffer(src),
                                phys.image(dst).0,
                                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                                &regions,
                            ),
                        CopyOp::ImageToBuffer { src, dst, regions } => dev
                            .cmd_copy_image_to_buffer(
                                cmd,
                                phys.image(src).0,
                                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                                phys.buffer(dst),
                                &regions,
                            ),
                        CopyOp::Fill {
                            dst,
                            offset,
                            size,
                            value,
                        } => dev.cmd_fill_buffer(cmd, phys.buffer(dst), offset, size, value),
                        CopyOp::Update { dst, offset, data } => {
                            dev.cmd_update_buffer(cmd, phys.buffer(dst), offset, &data)
                        }
                        CopyOp::ClearColor { dst, value } => {
                            let range = match &g.resources[dst as usize].desc {
                                ResourceDesc::Image(d) => d.range(),
                                ResourceDesc::Buffer(_) => vk::ImageSubresourceRange::default(),
                            };
                            let v = vk::ClearColorValue { uint32: value };
                            dev.cmd_clear_color_image(
                                cmd,
                                phys.image(dst).0,
                                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                                &v,
                                &[range],
                            )
                        }
                    }
                }
            }
        }
        Work::Custom(f) => {
            let buffers = |id: u32| phys.buffer(id);
            let images = |id: u32| phys.image(id);
            let mut rc = RecordCtx {
                device: &ctx.device,
                cmd,
                buffers: &buffers,
                images: &images,
            };
            f(&mut rc);
        }
    }
    Ok(())
}
