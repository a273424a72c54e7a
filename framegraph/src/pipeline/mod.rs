//! Pipelines built from reflected shaders: one push-descriptor set layout (set 0) per pipeline,
//! push constants from the reflected block, cached by shader identity and raster state.
//!
//! Holds [`Pipeline`] and the cache [`Pipelines`]; [`stats`] reads what the driver says of
//! each pipeline it built.

pub mod stats;

use crate::context::Context;
use crate::error::{Error, Result, VkCheck};
use crate::graph::RasterState;
use crate::shader::{Binding, BindingKind, Shader, ShaderStage};
use ash::vk;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::ffi::CString;

pub struct Pipeline {
    pub raw: vk::Pipeline,
    pub layout: vk::PipelineLayout,
    pub set_layout: vk::DescriptorSetLayout,
    /// Bindings of set 0 (merged over stages).
    pub bindings: Vec<Binding>,
    pub push_stages: vk::ShaderStageFlags,
    pub push_size: u32,
    pub bind_point: vk::PipelineBindPoint,
    /// The driver's statistics, where the context captures them (`ContextOptions::pipeline_statistics`).
    pub stats: Option<stats::PipelineStats>,
}

/// A pipeline layout made from reflection: set 0's push-descriptor layout and the push range.
struct Layout {
    set_layout: vk::DescriptorSetLayout,
    layout: vk::PipelineLayout,
    bindings: Vec<Binding>,
    push_stages: vk::ShaderStageFlags,
    push_size: u32,
}

#[derive(Clone, PartialEq, Eq, Hash)]
enum Key {
    Compute(usize),
    Raster {
        vs: usize,
        fs: usize,
        state: RasterState,
        colors: Vec<vk::Format>,
        depth: Option<vk::Format>,
    },
}

#[derive(Default)]
pub struct Pipelines {
    map: Mutex<HashMap<Key, std::sync::Arc<Pipeline>>>,
    sampler: Mutex<Option<vk::Sampler>>,
}

/// A list of compute pipelines to build, shared by the threads that build it: each takes the
/// next shader nobody has taken, so each pipeline is built once however many threads, started
/// whenever, take part (`Executor::prebuild_in_background` starts some early; the first frame's
/// recording joins in). Largest shaders first: they take longest to build (lavapipe: 0.1–0.6 s
/// for the largest, a few ms for the smallest), and one started last would finish alone.
pub struct Prebuild {
    todo: Vec<&'static Shader>,
    next: std::sync::atomic::AtomicUsize,
    builder: Builder,
}

impl Prebuild {
    /// The shaders of `shaders` that `pipelines` has not cached, each once.
    pub fn new(pipelines: &Pipelines, builder: Builder, shaders: &[&'static Shader]) -> Prebuild {
        let mut todo: Vec<&'static Shader> = Vec::new();
        {
            let map = pipelines.map.lock();
            for s in shaders {
                let cached = map.contains_key(&Key::Compute(s.id()));
                if !cached && !todo.iter().any(|t| t.id() == s.id()) {
                    todo.push(s);
                }
            }
        }
        todo.sort_by_key(|s| std::cmp::Reverse(s.spirv_len()));
        Prebuild {
            todo,
            next: Default::default(),
            builder,
        }
    }

    /// Shaders on the list.
    pub fn len(&self) -> usize {
        self.todo.len()
    }

    pub fn is_empty(&self) -> bool {
        self.todo.is_empty()
    }

    /// Leave what nobody has taken unbuilt: threads finish the pipeline they are building.
    pub fn cancel(&self) {
        self.next
            .store(self.todo.len(), std::sync::atomic::Ordering::Relaxed);
    }

    /// Build the shaders nobody has taken yet into `pipelines` (the cache the list was made
    /// against), one after another, until none is left or one fails.
    pub fn work(&self, pipelines: &Pipelines) -> Result<()> {
        loop {
            let i = self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let Some(s) = self.todo.get(i) else {
                return Ok(());
            };
            pipelines.build_compute(&self.builder, s)?;
        }
    }
}

/// What building a pipeline needs of the [`Context`], owned: a thread can build pipelines
/// with it while the context's owner goes on (`Executor::prebuild_in_background`). Creating
/// pipelines from several threads is legal, and the pipeline cache is internally synchronised
/// (created without `EXTERNALLY_SYNCHRONIZED`).
#[derive(Clone)]
pub struct Builder {
    device: ash::Device,
    cache: vk::PipelineCache,
    debug_utils: Option<ash::ext::debug_utils::Device>,
    executable: Option<ash::khr::pipeline_executable_properties::Device>,
}

impl Builder {
    pub fn of(ctx: &Context) -> Builder {
        Builder {
            device: ctx.device.clone(),
            cache: ctx.pipeline_cache,
            debug_utils: ctx.debug_utils.clone(),
            executable: ctx.pipeline_executable.clone(),
        }
    }

    /// Creation flags: statistics captured where the context asks for them.
    fn flags(&self) -> vk::PipelineCreateFlags {
        if self.executable.is_some() {
            vk::PipelineCreateFlags::CAPTURE_STATISTICS_KHR
        } else {
            vk::PipelineCreateFlags::empty()
        }
    }

    fn stats(&self, raw: vk::Pipeline, name: &str) -> Option<stats::PipelineStats> {
        self.executable
            .as_ref()
            .map(|ext| stats::query(ext, raw, name))
    }

    fn name_object<H: vk::Handle>(&self, handle: H, name: &str) {
        if let (Some(du), Ok(c)) = (&self.debug_utils, CString::new(name)) {
            let info = vk::DebugUtilsObjectNameInfoEXT::default()
                .object_handle(handle)
                .object_name(&c);
            // Naming is a debugging aid: a failure changes nothing the frame does.
            let _ = unsafe { du.set_debug_utils_object_name(&info) };
        }
    }
}

fn descriptor_type(k: BindingKind) -> vk::DescriptorType {
    match k {
        BindingKind::StorageBuffer => vk::DescriptorType::STORAGE_BUFFER,
        BindingKind::UniformBuffer => vk::DescriptorType::UNIFORM_BUFFER,
        BindingKind::StorageImage => vk::DescriptorType::STORAGE_IMAGE,
        BindingKind::SampledImage => vk::DescriptorType::SAMPLED_IMAGE,
        BindingKind::CombinedImageSampler => vk::DescriptorType::COMBINED_IMAGE_SAMPLER,
    }
}

fn stage_flags(s: ShaderStage) -> vk::ShaderStageFlags {
    match s {
        ShaderStage::Compute => vk::ShaderStageFlags::COMPUTE,
        ShaderStage::Vertex => vk::ShaderStageFlags::VERTEX,
        ShaderStage::Fragment => vk::ShaderStageFlags::FRAGMENT,
    }
}

impl Pipelines {
    /// Nearest, clamp-to-edge sampler for combined image samplers: our shaders fetch texels
    /// explicitly and filter in full precision; NEAREST is also valid for integer formats.
    fn sampler(&self, b: &Builder) -> Result<vk::Sampler> {
        let mut s = self.sampler.lock();
        if let Some(s) = *s {
            return Ok(s);
        }
        let info = vk::SamplerCreateInfo::default()
            .mag_filter(vk::Filter::NEAREST)
            .min_filter(vk::Filter::NEAREST)
            .address_mode_u(vk::SamplerAddressMode::CLAMP_TO_EDGE)
            .address_mode_v(vk::SamplerAddressMode::CLAMP_TO_EDGE)
            .address_mode_w(vk::SamplerAddressMode::CLAMP_TO_EDGE);
        let raw = unsafe { b.device.create_sampler(&info, None) }.vk("vkCreateSampler")?;
        *s = Some(raw);
        Ok(raw)
    }

    fn layout(&self, b: &Builder, shaders: &[&Shader]) -> Result<Layout> {
        let mut bindings: Vec<(Binding, vk::ShaderStageFlags)> = Vec::new();
        let mut push_size = 0;
        let mut push_stages = vk::ShaderStageFlags::empty();
        for s in shaders {
            let r = s.reflect().map_err(|message| Error::Pipeline {
                shader: format!("{}: {message}", s.name),
                result: vk::Result::ERROR_UNKNOWN,
            })?;
            for b in &r.bindings {
                if b.set != 0 {
                    return Err(Error::Pipeline {
                        shader: format!(
                            "{} (binding `{}` is in set {}; only set 0 is supported)",
                            s.name, b.name, b.set
                        ),
                        result: vk::Result::ERROR_UNKNOWN,
                    });
                }
                match bindings.iter_mut().find(|(x, _)| x.binding == b.binding) {
                    Some((_, st)) => *st |= stage_flags(s.stage),
                    None => bindings.push((b.clone(), stage_flags(s.stage))),
                }
            }
            if r.push_constant_size > 0 {
                push_size = push_size.max(r.push_constant_size);
                push_stages |= stage_flags(s.stage);
            }
        }
        let sampler = if bindings
            .iter()
            .any(|(b, _)| b.kind == BindingKind::CombinedImageSampler)
        {
            Some([self.sampler(b)?])
        } else {
            None
        };
        let vk_bindings: Vec<vk::DescriptorSetLayoutBinding> = bindings
            .iter()
            .map(|(b, st)| {
                let mut x = vk::DescriptorSetLayoutBinding::default()
                    .binding(b.binding)
                    .descriptor_type(descriptor_type(b.kind))
                    .descriptor_count(b.count.max(1))
                    .stage_flags(*st);
                if b.kind == BindingKind::CombinedImageSampler {
                    if let Some(s) = &sampler {
                        x = x.immutable_samplers(s);
                    }
                }
                x
            })
            .collect();
        let info = vk::DescriptorSetLayoutCreateInfo::default()
            .flags(vk::DescriptorSetLayoutCreateFlags::PUSH_DESCRIPTOR_KHR)
            .bindings(&vk_bindings);
        let set_layout = unsafe { b.device.create_descriptor_set_layout(&info, None) }
            .vk("vkCreateDescriptorSetLayout")?;
        let ranges = [vk::PushConstantRange {
            stage_flags: push_stages,
            offset: 0,
            size: push_size,
        }];
        let set_layouts = [set_layout];
        let mut pl = vk::PipelineLayoutCreateInfo::default().set_layouts(&set_layouts);
        if push_size > 0 {
            pl = pl.push_constant_ranges(&ranges);
        }
        let layout =
            unsafe { b.device.create_pipeline_layout(&pl, None) }.vk("vkCreatePipelineLayout")?;
        Ok(Layout {
            set_layout,
            layout,
            bindings: bindings.into_iter().map(|(b, _)| b).collect(),
            push_stages,
            push_size,
        })
    }

    /// Name the new pipeline `raw`, keep it with its layout (and the driver's statistics where
    /// the context captures them) under `key`.
    fn keep(
        &self,
        b: &Builder,
        key: Key,
        raw: vk::Pipeline,
        name: &str,
        l: Layout,
        bind_point: vk::PipelineBindPoint,
    ) -> std::sync::Arc<Pipeline> {
        b.name_object(raw, name);
        let p = std::sync::Arc::new(Pipeline {
            raw,
            layout: l.layout,
            set_layout: l.set_layout,
            bindings: l.bindings,
            push_stages: l.push_stages,
            push_size: l.push_size,
            bind_point,
            stats: b.stats(raw, name),
        });
        self.map.lock().insert(key, p.clone());
        p
    }

    fn module(b: &Builder, s: &Shader) -> Result<vk::ShaderModule> {
        let words = s.words();
        let info = vk::ShaderModuleCreateInfo::default().code(&words);
        let m = unsafe { b.device.create_shader_module(&info, None) }.vk("vkCreateShaderModule")?;
        b.name_object(m, s.name);
        Ok(m)
    }

    pub fn compute(
        &self,
        ctx: &Context,
        shader: &'static Shader,
    ) -> Result<std::sync::Arc<Pipeline>> {
        if let Some(p) = self.map.lock().get(&Key::Compute(shader.id())) {
            return Ok(p.clone());
        }
        self.build_compute(&Builder::of(ctx), shader)
    }

    fn build_compute(
        &self,
        b: &Builder,
        shader: &'static Shader,
    ) -> Result<std::sync::Arc<Pipeline>> {
        let key = Key::Compute(shader.id());
        if let Some(p) = self.map.lock().get(&key) {
            return Ok(p.clone());
        }
        let started = std::time::Instant::now();
        let l = self.layout(b, &[shader])?;
        let module = Self::module(b, shader)?;
        let entry = CString::new(
            shader
                .reflect()
                .map(|r| r.entry_point.clone())
                .unwrap_or_else(|_| "main".into()),
        )
        .unwrap_or_default();
        let stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(module)
            .name(&entry);
        let info = vk::ComputePipelineCreateInfo::default()
            .flags(b.flags())
            .stage(stage)
            .layout(l.layout);
        let raw = unsafe { b.device.create_compute_pipelines(b.cache, &[info], None) };
        unsafe { b.device.destroy_shader_module(module, None) };
        let raw = raw.map_err(|(_, result)| Error::Pipeline {
            shader: shader.name.into(),
            result,
        })?[0];
        log::debug!(
            "compute pipeline {} ({} KiB of SPIR-V) built in {:.0} ms",
            shader.name,
            shader.spirv_len() / 1024,
            started.elapsed().as_secs_f64() * 1e3
        );
        Ok(self.keep(b, key, raw, shader.name, l, vk::PipelineBindPoint::COMPUTE))
    }

    pub fn raster(
        &self,
        ctx: &Context,
        vs: &'static Shader,
        fs: &'static Shader,
        state: RasterState,
        colors: &[vk::Format],
        depth: Option<vk::Format>,
    ) -> Result<std::sync::Arc<Pipeline>> {
        let key = Key::Raster {
            vs: vs.id(),
            fs: fs.id(),
            state,
            colors: colors.to_vec(),
            depth,
        };
        if let Some(p) = self.map.lock().get(&key) {
            return Ok(p.clone());
        }
        let b = Builder::of(ctx);
        let name = format!("{} + {}", vs.name, fs.name);
        let l = self.layout(&b, &[vs, fs])?;
        let vm = Self::module(&b, vs)?;
        let fm = Self::module(&b, fs)?;
        let main = c"main";
        let stages = [
            vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::VERTEX)
                .module(vm)
                .name(main),
            vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::FRAGMENT)
                .module(fm)
                .name(main),
        ];
        let vertex_input = vk::PipelineVertexInputStateCreateInfo::default();
        let ia = vk::PipelineInputAssemblyStateCreateInfo::default().topology(state.topology);
        let vp = vk::PipelineViewportStateCreateInfo::default()
            .viewport_count(1)
            .scissor_count(1);
        let wide = ctx.info.wide_lines;
        let polygon = if ctx.info.fill_mode_non_solid {
            state.polygon_mode
        } else {
            vk::PolygonMode::FILL
        };
        let rs = vk::PipelineRasterizationStateCreateInfo::default()
            .polygon_mode(polygon)
            .cull_mode(state.cull_mode)
            .front_face(state.front_face)
            .line_width(if wide {
                state.line_width_x10 as f32 / 10.0
            } else {
                1.0
            });
        let ms = vk::PipelineMultisampleStateCreateInfo::default()
            .rasterization_samples(vk::SampleCountFlags::TYPE_1);
        let ds = vk::PipelineDepthStencilStateCreateInfo::default()
            .depth_test_enable(state.depth_test)
            .depth_write_enable(state.depth_write)
            .depth_compare_op(state.depth_compare);
        let blend: Vec<vk::PipelineColorBlendAttachmentState> = colors
            .iter()
            .map(|_| {
                let b = vk::PipelineColorBlendAttachmentState::default()
                    .color_write_mask(vk::ColorComponentFlags::RGBA);
                if state.alpha_blend {
                    b.blend_enable(true)
                        .src_color_blend_factor(vk::BlendFactor::SRC_ALPHA)
                        .dst_color_blend_factor(vk::BlendFactor::ONE_MINUS_SRC_ALPHA)
                        .color_blend_op(vk::BlendOp::ADD)
                        .src_alpha_blend_factor(vk::BlendFactor::ONE)
                        .dst_alpha_blend_factor(vk::BlendFactor::ONE_MINUS_SRC_ALPHA)
                        .alpha_blend_op(vk::BlendOp::ADD)
                } else {
                    b
                }
            })
            .collect();
        let cb = vk::PipelineColorBlendStateCreateInfo::default().attachments(&blend);
        let dyn_states = [vk::DynamicState::VIEWPORT, vk::DynamicState::SCISSOR];
        let dy = vk::PipelineDynamicStateCreateInfo::default().dynamic_states(&dyn_states);
        let mut rendering = vk::PipelineRenderingCreateInfo::default()
            .color_attachment_formats(colors)
            .depth_attachment_format(depth.unwrap_or(vk::Format::UNDEFINED));
        let info = vk::GraphicsPipelineCreateInfo::default()
            .flags(b.flags())
            .stages(&stages)
            .vertex_input_state(&vertex_input)
            .input_assembly_state(&ia)
            .viewport_state(&vp)
            .rasterization_state(&rs)
            .multisample_state(&ms)
            .depth_stencil_state(&ds)
            .color_blend_state(&cb)
            .dynamic_state(&dy)
            .layout(l.layout)
            .push_next(&mut rendering);
        let raw = unsafe {
            ctx.device
                .create_graphics_pipelines(ctx.pipeline_cache, &[info], None)
        }
        .map_err(|(_, result)| Error::Pipeline {
            shader: name.clone(),
            result,
        })?[0];
        unsafe {
            ctx.device.destroy_shader_module(vm, None);
            ctx.device.destroy_shader_module(fm, None);
        }
        Ok(self.keep(&b, key, raw, &name, l, vk::PipelineBindPoint::GRAPHICS))
    }

    /// Build the compute pipelines of `shaders` that are not cached yet, on up to one thread
    /// per core, and cache them: a first frame names dozens of shaders, and creating each is
    /// a shader compile (seconds in all on a software rasteriser), independent of the others.
    /// Recording then finds every one cached. Duplicates are built once, the largest first
    /// ([`Prebuild`]).
    pub fn prebuild_compute(&self, ctx: &Context, shaders: &[&'static Shader]) -> Result<()> {
        let job = Prebuild::new(self, Builder::of(ctx), shaders);
        let threads = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(job.todo.len());
        if threads <= 1 {
            return job.work(self);
        }
        std::thread::scope(|scope| {
            let workers: Vec<_> = (0..threads)
                .map(|_| scope.spawn(|| job.work(self)))
                .collect();
            // Every worker is joined before the first error is returned.
            let results: Vec<Result<()>> = workers
                .into_iter()
                .map(|w| w.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                .collect();
            results.into_iter().collect()
        })
    }

    /// The driver's statistics of every cached pipeline, by pipeline name (empty unless the
    /// context captures them).
    pub fn statistics(&self) -> Vec<stats::PipelineStats> {
        let mut all: Vec<stats::PipelineStats> = self
            .map
            .lock()
            .values()
            .filter_map(|p| p.stats.clone())
            .collect();
        all.sort_by(|a, b| a.pipeline.cmp(&b.pipeline));
        all
    }

    /// Pipelines cached (compute and raster).
    pub fn len(&self) -> usize {
        self.map.lock().len()
    }

    /// Whether nothing is cached yet.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn destroy(&self, ctx: &Context) {
        for (_, p) in self.map.lock().drain() {
            unsafe {
                ctx.device.destroy_pipeline(p.raw, None);
                ctx.device.destroy_pipeline_layout(p.layout, None);
                ctx.device.destroy_descriptor_set_layout(p.set_layout, None);
            }
        }
        if let Some(s) = self.sampler.lock().take() {
            unsafe { ctx.device.destroy_sampler(s, None) };
        }
    }
}
