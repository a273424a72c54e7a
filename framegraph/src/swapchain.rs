//! Presenting frames to a window: a `VkSurfaceKHR` from raw window handles (ash-window), a
//! swapchain recreated on resize / out-of-date / suboptimal, per-frame-slot acquire semaphores
//! and per-image present semaphores, and swapchain images imported into the graph as external
//! images. No window-system library is linked here: the caller passes raw handles.
//!
//! Holds [`Swapchain`], [`SwapImage`], [`Acquired`], [`SwapchainError`] and
//! [`required_extensions`].
//!
//! A frame, with `Executor::begin_frame` first (it frees the slot and so its acquire semaphore):
//! ```text
//! let (slot, _) = exec.begin_frame(&ctx)?;
//! let Some(acq) = swapchain.acquire(&ctx, slot, window_extent)? else { skip (minimised) };
//! let mut img = swapchain.import(&mut g, &acq);
//! ... nodes write `img` ...; g.present(img);
//! exec.execute(&ctx, g.compile(..)?, swapchain.sync(&acq))?;
//! swapchain.present(&ctx, &acq)?;
//! ```

use crate::context::Context;
use crate::desc::{ImageDesc, SharedState, TrackedState};
use crate::graph::{Graph, ImageRef};
use ash::vk;
use raw_window_handle::{RawDisplayHandle, RawWindowHandle};
use std::ffi::{c_char, CStr};
use std::sync::Arc;

#[derive(Debug, thiserror::Error)]
pub enum SwapchainError {
    #[error("this window system has no Vulkan surface support here: {0}")]
    WindowSystem(String),
    #[error("the universal queue family {family} of `{device}` cannot present to this window; pick another device with --device")]
    NoPresent { device: String, family: u32 },
    #[error("the surface offers no formats")]
    NoFormat,
    #[error("Vulkan call {call} failed: {result}")]
    Vk {
        call: &'static str,
        result: vk::Result,
    },
}

type Result<T> = std::result::Result<T, SwapchainError>;

trait Check<T> {
    fn vk(self, call: &'static str) -> Result<T>;
}
impl<T> Check<T> for std::result::Result<T, vk::Result> {
    fn vk(self, call: &'static str) -> Result<T> {
        self.map_err(|result| SwapchainError::Vk { call, result })
    }
}

/// The instance extensions a surface for `display` needs (pass them in
/// `ContextOptions::instance_extensions` together with `swapchain: true`).
pub fn required_extensions(display: RawDisplayHandle) -> Result<Vec<&'static CStr>> {
    let names = ash_window::enumerate_required_extensions(display)
        .map_err(|e| SwapchainError::WindowSystem(e.to_string()))?;
    // ash-window returns pointers to ash's static extension-name constants.
    Ok(names
        .iter()
        .map(|&p: &*const c_char| unsafe { CStr::from_ptr(p) })
        .collect())
}

/// One swapchain image as the graph sees it.
pub struct SwapImage {
    pub image: vk::Image,
    pub view: vk::ImageView,
    state: SharedState,
    /// Signalled by the frame that renders into this image, waited on by its present. Per image
    /// (not per slot): the presentation engine may hold it until the image is acquired again.
    present: vk::Semaphore,
}

/// An acquired image: the frame renders into `index` after `wait`, signals `signal`.
#[derive(Clone, Copy, Debug)]
pub struct Acquired {
    pub index: u32,
    pub wait: vk::Semaphore,
    pub signal: vk::Semaphore,
}

pub struct Swapchain {
    surface_fn: ash::khr::surface::Instance,
    swapchain_fn: ash::khr::swapchain::Device,
    surface: vk::SurfaceKHR,
    raw: vk::SwapchainKHR,
    images: Vec<SwapImage>,
    format: vk::SurfaceFormatKHR,
    extent: [u32; 2],
    /// One per frame slot; free again once `Executor::begin_frame` returned that slot.
    acquire: Vec<vk::Semaphore>,
    present_mode: vk::PresentModeKHR,
    /// Recreate before the next acquire (resize, out-of-date, suboptimal).
    stale: bool,
    /// The window size the current swapchain was made for (the surface may clamp it).
    wanted: [u32; 2],
    /// Times the swapchain was (re)created.
    pub generation: u64,
}

impl Swapchain {
    /// A surface for the window and a first swapchain of `extent` (the window's inner size, px).
    /// `vsync` false prefers MAILBOX, then IMMEDIATE; FIFO otherwise (always available).
    pub fn new(
        ctx: &Context,
        display: RawDisplayHandle,
        window: RawWindowHandle,
        extent: [u32; 2],
        frames_in_flight: usize,
        vsync: bool,
    ) -> Result<Swapchain> {
        let surface =
            unsafe { ash_window::create_surface(&ctx.entry, &ctx.instance, display, window, None) }
                .map_err(|e| SwapchainError::WindowSystem(format!("vkCreate*SurfaceKHR: {e}")))?;
        let surface_fn = ash::khr::surface::Instance::new(&ctx.entry, &ctx.instance);
        let family = ctx.universal.family;
        let ok = unsafe {
            surface_fn.get_physical_device_surface_support(ctx.physical, family, surface)
        }
        .unwrap_or(false);
        if !ok {
            unsafe { surface_fn.destroy_surface(surface, None) };
            return Err(SwapchainError::NoPresent {
                device: ctx.info.name.clone(),
                family,
            });
        }
        let formats =
            unsafe { surface_fn.get_physical_device_surface_formats(ctx.physical, surface) }
                .vk("vkGetPhysicalDeviceSurfaceFormatsKHR")?;
        // UNORM first: the viewer's offscreen target holds display-ready values, copied as is.
        let prefer = [
            vk::Format::B8G8R8A8_UNORM,
            vk::Format::R8G8B8A8_UNORM,
            vk::Format::B8G8R8A8_SRGB,
            vk::Format::R8G8B8A8_SRGB,
        ];
        let format = prefer
            .iter()
            .find_map(|&p| {
                formats
                    .iter()
                    .find(|f| f.format == p && f.color_space == vk::ColorSpaceKHR::SRGB_NONLINEAR)
            })
            .or(formats.first())
            .copied()
            .ok_or(SwapchainError::NoFormat)?;
        let modes =
            unsafe { surface_fn.get_physical_device_surface_present_modes(ctx.physical, surface) }
                .vk("vkGetPhysicalDeviceSurfacePresentModesKHR")?;
        let present_mode = if vsync {
            vk::PresentModeKHR::FIFO
        } else {
            [vk::PresentModeKHR::MAILBOX, vk::PresentModeKHR::IMMEDIATE]
                .into_iter()
                .find(|m| modes.contains(m))
                .unwrap_or(vk::PresentModeKHR::FIFO)
        };
        let mut acquire = Vec::new();
        for i in 0..frames_in_flight.max(1) {
            let s = unsafe {
                ctx.device
                    .create_semaphore(&vk::SemaphoreCreateInfo::default(), None)
            }
            .vk("vkCreateSemaphore")?;
            ctx.name_object(s, &format!("swapchain.acquire{i}"));
            acquire.push(s);
        }
        let mut sc = Swapchain {
            surface_fn,
            swapchain_fn: ash::khr::swapchain::Device::new(&ctx.instance, &ctx.device),
            surface,
            raw: vk::SwapchainKHR::null(),
            images: Vec::new(),
            format,
            extent: [0, 0],
            acquire,
            present_mode,
            stale: true,
            wanted: extent,
            generation: 0,
        };
        sc.recreate(ctx, extent)?;
        Ok(sc)
    }

    pub fn format(&self) -> vk::Format {
        self.format.format
    }

    /// Current image size, px (0×0 while minimised).
    pub fn extent(&self) -> [u32; 2] {
        self.extent
    }

    pub fn image_count(&self) -> usize {
        self.images.len()
    }

    /// The window changed size: recreate before the next acquire.
    pub fn invalidate(&mut self) {
        self.stale = true;
    }

    /// Recreate for `wanted` (the window's inner size). Waits for the device to go idle: images
    /// and semaphores of the old swapchain may still be in use by frames in flight. Leaves a
    /// zero extent (and no swapchain) while the surface is minimised.
    fn recreate(&mut self, ctx: &Context, wanted: [u32; 2]) -> Result<()> {
        let caps = unsafe {
            self.surface_fn
                .get_physical_device_surface_capabilities(ctx.physical, self.surface)
        }
        .vk("vkGetPhysicalDeviceSurfaceCapabilitiesKHR")?;
        // u32::MAX: the surface takes its size from the swapchain.
        let extent = if caps.current_extent.width == u32::MAX {
            [
                wanted[0].clamp(caps.min_image_extent.width, caps.max_image_extent.width),
                wanted[1].clamp(caps.min_image_extent.height, caps.max_image_extent.height),
            ]
        } else {
            [caps.current_extent.width, caps.current_extent.height]
        };
        ctx.wait_idle();
        self.wanted = wanted;
        if extent[0] == 0 || extent[1] == 0 || wanted[0] == 0 || wanted[1] == 0 {
            self.extent = [0, 0];
            return Ok(()); // minimised: keep the old swapchain (if any) until a real size returns
        }
        let count = if caps.max_image_count == 0 {
            caps.min_image_count + 1
        } else {
            (caps.min_image_count + 1).min(caps.max_image_count)
        };
        let info = vk::SwapchainCreateInfoKHR::default()
            .surface(self.surface)
            .min_image_count(count)
            .image_format(self.format.format)
            .image_color_space(self.format.color_space)
            .image_extent(vk::Extent2D {
                width: extent[0],
                height: extent[1],
            })
            .image_array_layers(1)
            // COLOR_ATTACHMENT is the one usage every surface must support (lavapipe offers few).
            .image_usage(vk::ImageUsageFlags::COLOR_ATTACHMENT)
            .image_sharing_mode(vk::SharingMode::EXCLUSIVE)
            .pre_transform(caps.current_transform)
            .composite_alpha(pick_alpha(caps.supported_composite_alpha))
            .present_mode(self.present_mode)
            .clipped(true)
            .old_swapchain(self.raw);
        let raw = unsafe { self.swapchain_fn.create_swapchain(&info, None) }
            .vk("vkCreateSwapchainKHR")?;
        self.destroy_images(ctx);
        if self.raw != vk::SwapchainKHR::null() {
            unsafe { self.swapchain_fn.destroy_swapchain(self.raw, None) };
        }
        self.raw = raw;
        self.generation += 1;
        let desc = ImageDesc::d2(extent[0], extent[1], self.format.format);
        for (i, image) in unsafe { self.swapchain_fn.get_swapchain_images(raw) }
            .vk("vkGetSwapchainImagesKHR")?
            .into_iter()
            .enumerate()
        {
            let name = format!("swapchain{i}");
            ctx.name_object(image, &name);
            let view = ctx
                .create_view(image, &desc, &name)
                .map_err(|e| SwapchainError::WindowSystem(e.to_string()))?;
            let present = unsafe {
                ctx.device
                    .create_semaphore(&vk::SemaphoreCreateInfo::default(), None)
            }
            .vk("vkCreateSemaphore")?;
            ctx.name_object(present, &format!("swapchain.present{i}"));
            self.images.push(SwapImage {
                image,
                view,
                state: Arc::default(),
                present,
            });
        }
        self.extent = extent;
        self.stale = false;
        log::info!(
            "swapchain {}×{} {:?} {:?}, {} images",
            extent[0],
            extent[1],
            self.format.format,
            self.present_mode,
            self.images.len()
        );
        Ok(())
    }

    fn destroy_images(&mut self, ctx: &Context) {
        for img in self.images.drain(..) {
            unsafe {
                ctx.device.destroy_image_view(img.view, None);
                ctx.device.destroy_semaphore(img.present, None);
            }
        }
    }

    /// Acquire the next image for frame slot `slot` (the slot `Executor::begin_frame` returned),
    /// recreating the swapchain first if it is stale or out of date. `None`: nothing to render
    /// into (minimised / zero-size window) — skip this frame.
    pub fn acquire(
        &mut self,
        ctx: &Context,
        slot: usize,
        window_extent: [u32; 2],
    ) -> Result<Option<Acquired>> {
        let wait = self.acquire[slot % self.acquire.len()];
        for _ in 0..2 {
            if self.stale || self.wanted != window_extent {
                self.recreate(ctx, window_extent)?;
            }
            if self.extent[0] == 0 || self.raw == vk::SwapchainKHR::null() {
                return Ok(None);
            }
            match unsafe {
                self.swapchain_fn
                    .acquire_next_image(self.raw, u64::MAX, wait, vk::Fence::null())
            } {
                Ok((index, suboptimal)) => {
                    // Suboptimal still delivers an image (and signals `wait`): use it, recreate next time.
                    self.stale |= suboptimal;
                    let signal = self.images[index as usize].present;
                    return Ok(Some(Acquired {
                        index,
                        wait,
                        signal,
                    }));
                }
                Err(vk::Result::ERROR_OUT_OF_DATE_KHR) => self.stale = true,
                Err(result) => {
                    return Err(SwapchainError::Vk {
                        call: "vkAcquireNextImageKHR",
                        result,
                    })
                }
            }
        }
        Ok(None)
    }

    /// Import the acquired image into `g` as an external image (contents discarded). Its state
    /// is a pending write at ALL_COMMANDS so the first barrier's source scope chains to the
    /// acquire semaphore's wait (which the executor places at ALL_COMMANDS).
    pub fn import(&self, g: &mut Graph<'_>, a: &Acquired) -> ImageRef {
        let img = &self.images[a.index as usize];
        *img.state.lock() = TrackedState {
            write: Some((
                vk::PipelineStageFlags2::ALL_COMMANDS,
                vk::AccessFlags2::NONE,
            )),
            ..TrackedState::default()
        };
        let desc = ImageDesc::d2(self.extent[0], self.extent[1], self.format.format);
        g.import_image_raw(
            &format!("swapchain{}", a.index),
            desc,
            img.image,
            img.view,
            img.state.clone(),
            true,
        )
    }

    /// The semaphores `Executor::execute` must wait on and signal for this image.
    pub fn sync(&self, a: &Acquired) -> crate::exec::FrameSync {
        crate::exec::FrameSync {
            wait: Some(a.wait),
            signal: Some(a.signal),
        }
    }

    /// Queue the image for presentation after the frame's signal semaphore.
    pub fn present(&mut self, ctx: &Context, a: &Acquired) -> Result<()> {
        let waits = [a.signal];
        let swapchains = [self.raw];
        let indices = [a.index];
        let info = vk::PresentInfoKHR::default()
            .wait_semaphores(&waits)
            .swapchains(&swapchains)
            .image_indices(&indices);
        let r = {
            let _lock = ctx.universal.lock.lock();
            unsafe { self.swapchain_fn.queue_present(ctx.universal.raw, &info) }
        };
        match r {
            Ok(suboptimal) => self.stale |= suboptimal,
            Err(vk::Result::ERROR_OUT_OF_DATE_KHR) => self.stale = true,
            Err(result) => {
                return Err(SwapchainError::Vk {
                    call: "vkQueuePresentKHR",
                    result,
                })
            }
        }
        Ok(())
    }

    /// Destroy the swapchain, its semaphores and the surface (waits for the device first).
    pub fn destroy(mut self, ctx: &Context) {
        ctx.wait_idle();
        self.destroy_images(ctx);
        unsafe {
            if self.raw != vk::SwapchainKHR::null() {
                self.swapchain_fn.destroy_swapchain(self.raw, None);
            }
            for s in self.acquire.drain(..) {
                ctx.device.destroy_semaphore(s, None);
            }
            self.surface_fn.destroy_surface(self.surface, None);
        }
    }
}

fn pick_alpha(supported: vk::CompositeAlphaFlagsKHR) -> vk::CompositeAlphaFlagsKHR {
    [
        vk::CompositeAlphaFlagsKHR::OPAQUE,
        vk::CompositeAlphaFlagsKHR::INHERIT,
        vk::CompositeAlphaFlagsKHR::PRE_MULTIPLIED,
        vk::CompositeAlphaFlagsKHR::POST_MULTIPLIED,
    ]
    .into_iter()
    .find(|&a| supported.contains(a))
    .unwrap_or(vk::CompositeAlphaFlagsKHR::OPAQUE)
}
