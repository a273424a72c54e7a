//! Physical transients: created from the compiled plan, bound to shared memory where the plan
//! aliases them, and kept across frames (per frame slot) while the frame's shape is unchanged,
//! so a steady frame allocates nothing.
//!
//! Holds [`Transients`], one per frame slot.

use crate::compile::CompiledGraph;
use crate::context::{alloc_desc, Context};
use crate::desc::{BufferDesc, ImageDesc, Memory, ALL_BUFFER_USAGE};
use crate::error::{Error, Result, VkCheck};
use crate::graph::{Origin, RawResource, ResourceDesc};
use ash::vk;
use gpu_allocator::vulkan::Allocation;
use std::collections::HashMap;

#[derive(Clone, PartialEq, Eq, Hash, Debug)]
enum Key {
    Buffer(String, BufferDesc),
    Image(String, ImageDesc, vk::ImageUsageFlags),
}

enum Object {
    Buffer(vk::Buffer),
    Image(vk::Image, vk::ImageView),
}

/// A memory block and the resources bound to it (one resource unless aliased).
struct Block {
    allocation: Option<Allocation>,
    members: Vec<(Key, Object)>,
}

#[derive(Default)]
pub struct Transients {
    /// Keyed by the sorted member keys of the block.
    blocks: HashMap<Vec<Key>, Block>,
}

impl Transients {
    /// Physical objects for every resource of `g`, indexed by resource id.
    pub fn realize(&mut self, ctx: &Context, g: &CompiledGraph) -> Result<Vec<RawResource>> {
        // Image usage: union over the frame's accesses.
        let mut image_usage: Vec<vk::ImageUsageFlags> =
            vec![vk::ImageUsageFlags::empty(); g.resources.len()];
        for n in &g.nodes {
            for (r, u) in &n.uses {
                image_usage[*r as usize] |= usage_from(u.access);
            }
        }
        // Group resources into blocks.
        let mut groups: HashMap<usize, Vec<u32>> = HashMap::new();
        let mut solo: Vec<u32> = Vec::new();
        for (i, r) in g.resources.iter().enumerate() {
            if !matches!(r.origin, Origin::Transient) {
                continue;
            }
            if !g
                .nodes
                .iter()
                .any(|n| n.uses.iter().any(|(x, _)| *x as usize == i))
            {
                continue;
            }
            match g.alias[i] {
                Some(s) => groups.entry(s).or_default().push(i as u32),
                None => solo.push(i as u32),
            }
        }
        let key_of = |i: u32| -> Key {
            let r = &g.resources[i as usize];
            match &r.desc {
                ResourceDesc::Buffer(d) => Key::Buffer(r.name.clone(), *d),
                ResourceDesc::Image(d) => Key::Image(
                    r.name.clone(),
                    *d,
                    image_usage[i as usize] | vk::ImageUsageFlags::TRANSFER_SRC,
                ),
            }
        };
        let mut wanted: Vec<Vec<u32>> = groups.into_values().collect();
        wanted.extend(solo.into_iter().map(|i| vec![i]));

        let mut keep: HashMap<Vec<Key>, Block> = HashMap::new();
        let mut out: Vec<RawResource> = g
            .resources
            .iter()
            .map(|r| match r.origin {
                Origin::Imported { raw, .. } => raw,
                Origin::Transient => RawResource::Buffer(vk::Buffer::null()),
            })
            .collect();
        for members in wanted {
            let mut keys: Vec<Key> = members.iter().map(|&i| key_of(i)).collect();
            let mut order: Vec<usize> = (0..members.len()).collect();
            order.sort_by_key(|&k| format!("{:?}", keys[k]));
            let members: Vec<u32> = order.iter().map(|&k| members[k]).collect();
            keys = order.iter().map(|&k| keys[k].clone()).collect();
            let block = match self.blocks.remove(&keys) {
                Some(b) => b,
                None => create_block(ctx, &keys)?,
            };
            for (m, (_, obj)) in members.iter().zip(&block.members) {
                out[*m as usize] = match obj {
                    Object::Buffer(b) => RawResource::Buffer(*b),
                    Object::Image(i, v) => RawResource::Image {
                        image: *i,
                        view: *v,
                    },
                };
            }
            keep.insert(keys, block);
        }
        // Whatever this frame did not use is freed (the slot's previous frame has finished).
        for (_, b) in self.blocks.drain() {
            destroy_block(ctx, b);
        }
        self.blocks = keep;
        Ok(out)
    }

    pub fn destroy(&mut self, ctx: &Context) {
        for (_, b) in self.blocks.drain() {
            destroy_block(ctx, b);
        }
    }

    /// Mapped bytes of a host-visible transient buffer (readbacks).
    pub fn mapped(&self, buffer: vk::Buffer) -> Option<&[u8]> {
        self.blocks.values().find_map(|b| {
            let hit = b
                .members
                .iter()
                .any(|(_, o)| matches!(o, Object::Buffer(x) if *x == buffer));
            if hit {
                b.allocation.as_ref().and_then(|a| a.mapped_slice())
            } else {
                None
            }
        })
    }
}

fn usage_from(access: vk::AccessFlags2) -> vk::ImageUsageFlags {
    use vk::AccessFlags2 as A;
    use vk::ImageUsageFlags as U;
    let mut u = U::empty();
    if access.intersects(A::SHADER_STORAGE_READ | A::SHADER_STORAGE_WRITE) {
        u |= U::STORAGE;
    }
    if access.intersects(A::SHADER_SAMPLED_READ) {
        u |= U::SAMPLED;
    }
    if access.intersects(A::COLOR_ATTACHMENT_WRITE) {
        u |= U::COLOR_ATTACHMENT;
    }
    if access.intersects(A::DEPTH_STENCIL_ATTACHMENT_WRITE) {
        u |= U::DEPTH_STENCIL_ATTACHMENT;
    }
    if access.intersects(A::TRANSFER_WRITE) {
        u |= U::TRANSFER_DST;
    }
    if access.intersects(A::TRANSFER_READ) {
        u |= U::TRANSFER_SRC;
    }
    u
}

fn create_block(ctx: &Context, keys: &[Key]) -> Result<Block> {
    let dev = &ctx.device;
    let mut members = Vec::new();
    let mut reqs = Vec::new();
    let mut memory = Memory::Gpu;
    for k in keys {
        match k {
            Key::Buffer(name, d) => {
                let info = vk::BufferCreateInfo::default()
                    .size(d.size.max(4))
                    .usage(ALL_BUFFER_USAGE);
                let b = unsafe { dev.create_buffer(&info, None) }.vk("vkCreateBuffer")?;
                ctx.name_object(b, name);
                reqs.push(unsafe { dev.get_buffer_memory_requirements(b) });
                memory = d.memory;
                members.push((k.clone(), Object::Buffer(b)));
            }
            Key::Image(name, d, usage) => {
                let i = unsafe { dev.create_image(&Context::image_create_info(d, *usage), None) }
                    .vk("vkCreateImage")?;
                ctx.name_object(i, name);
                reqs.push(unsafe { dev.get_image_memory_requirements(i) });
                members.push((k.clone(), Object::Image(i, vk::ImageView::null())));
            }
        }
    }
    // One allocation serving every member: max size, strictest alignment, common types.
    let req = vk::MemoryRequirements {
        size: reqs.iter().map(|r| r.size).max().unwrap_or(4),
        alignment: reqs.iter().map(|r| r.alignment).max().unwrap_or(1),
        memory_type_bits: reqs.iter().fold(u32::MAX, |m, r| m & r.memory_type_bits),
    };
    let linear = matches!(keys.first(), Some(Key::Buffer(..)));
    let name = match keys.first() {
        Some(Key::Buffer(n, _)) | Some(Key::Image(n, _, _)) => n.clone(),
        None => String::new(),
    };
    let allocation = ctx
        .with_allocator(|a| a.allocate(&alloc_desc(&name, req, memory, linear)))
        .map_err(|e| Error::Alloc {
            name: name.clone(),
            message: e.to_string(),
        })?;
    for (k, obj) in members.iter_mut() {
        match obj {
            Object::Buffer(b) => {
                unsafe { dev.bind_buffer_memory(*b, allocation.memory(), allocation.offset()) }
                    .vk("vkBindBufferMemory")?
            }
            Object::Image(i, v) => {
                unsafe { dev.bind_image_memory(*i, allocation.memory(), allocation.offset()) }
                    .vk("vkBindImageMemory")?;
                if let Key::Image(n, d, _) = k {
                    *v = ctx.create_view(*i, d, n)?;
                }
            }
        }
    }
    Ok(Block {
        allocation: Some(allocation),
        members,
    })
}

fn destroy_block(ctx: &Context, mut b: Block) {
    for (_, o) in b.members.drain(..) {
        unsafe {
            match o {
                Object::Buffer(x) => ctx.device.destroy_buffer(x, None),
                Object::Image(i, v) => {
                    ctx.device.destroy_image_view(v, None);
                    ctx.device.destroy_image(i, None);
                }
            }
        }
    }
    if let Some(a) = b.allocation.take() {
        let _ = ctx.with_allocator(|al| al.free(a));
    }
}
