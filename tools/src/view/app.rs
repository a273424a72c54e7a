//! The winit side of `planetfall view`: the event loop, the window, input → [`Viewer`].

use super::viewer::{Parts, Summary, Viewer};
use super::DebugView;
use anyhow::{anyhow, Context as _, Result};
use framegraph::{Context, ContextOptions, Swapchain};
use raw_window_handle::{HasDisplayHandle, HasWindowHandle};
use std::sync::Arc;
use winit::application::ApplicationHandler;
use winit::event::{ElementState, MouseButton, MouseScrollDelta, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use winit::keyboard::{KeyCode, PhysicalKey};
use winit::window::{Window, WindowId};

/// How to open the window and the GPU.
pub struct Setup {
    pub size: [u32; 2],
    pub validation: bool,
    pub device: Option<String>,
    pub vsync: bool,
    pub frames_in_flight: usize,
}

/// Why `view` cannot open a window, pointing at the headless path.
pub fn no_display(why: &str) -> anyhow::Error {
    anyhow!("cannot open a window: {why}. `planetfall view` needs an X11 or Wayland display (DISPLAY or WAYLAND_DISPLAY); without one, render a frame headless with `planetfall render` (same camera options)")
}

struct App {
    setup: Setup,
    /// Consumed when the window opens.
    parts: Option<Parts>,
    viewer: Option<Viewer>,
    error: Option<anyhow::Error>,
    /// Held movement keys.
    held: std::collections::HashSet<KeyCode>,
    looking: bool,
    cursor: Option<(f64, f64)>,
}

/// Run the viewer until it exits; returns the summary after a clean shutdown.
pub fn run(setup: Setup, parts: Parts) -> Result<Summary> {
    if std::env::var_os("DISPLAY").is_none() && std::env::var_os("WAYLAND_DISPLAY").is_none() {
        return Err(no_display("neither DISPLAY nor WAYLAND_DISPLAY is set"));
    }
    let event_loop = EventLoop::new().map_err(|e| no_display(&e.to_string()))?;
    event_loop.set_control_flow(ControlFlow::Poll);
    let validation = setup.validation;
    let mut app = App {
        setup,
        parts: Some(parts),
        viewer: None,
        error: None,
        held: Default::default(),
        looking: false,
        cursor: None,
    };
    let run = event_loop.run_app(&mut app);
    let result = app.viewer.take().map(|v| v.shutdown(validation));
    if let Some(e) = app.error.take() {
        return Err(e);
    }
    run.map_err(|e| anyhow!("event loop: {e}"))?;
    result.unwrap_or_else(|| Err(no_display("the window never opened")))
}

impl App {
    fn open(&mut self, el: &ActiveEventLoop) -> Result<Viewer> {
        let attrs = Window::default_attributes()
            .with_title("Planetfall")
            .with_inner_size(winit::dpi::PhysicalSize::new(
                self.setup.size[0],
                self.setup.size[1],
            ));
        let window = Arc::new(
            el.create_window(attrs)
                .map_err(|e| no_display(&e.to_string()))?,
        );
        let display = window
            .display_handle()
            .map_err(|e| no_display(&e.to_string()))?
            .as_raw();
        let handle = window
            .window_handle()
            .map_err(|e| no_display(&e.to_string()))?
            .as_raw();
        let opts = ContextOptions {
            validation: self.setup.validation,
            device: self.setup.device.clone(),
            instance_extensions: framegraph::swapchain::required_extensions(display)?,
            swapchain: true,
            pipeline_cache: Some(crate::device::pipeline_cache_path()),
            pipeline_statistics: false,
        };
        let t = std::time::Instant::now();
        let ctx = Context::new(&opts).context("creating the Vulkan context")?;
        super::startup::step("Vulkan context", t);
        let size = window.inner_size();
        let t = std::time::Instant::now();
        let sc = Swapchain::new(
            &ctx,
            display,
            handle,
            [size.width, size.height],
            self.setup.frames_in_flight,
            self.setup.vsync,
        )?;
        super::startup::step("swapchain", t);
        let parts = self.parts.take().context("viewer opened twice")?;
        Viewer::new(window, ctx, sc, parts)
    }

    fn key(
        &mut self,
        v: &mut Viewer,
        code: KeyCode,
        pressed: bool,
        el: &ActiveEventLoop,
    ) -> Result<()> {
        if pressed {
            self.held.insert(code);
        } else {
            self.held.remove(&code);
        }
        let axis = |held: &std::collections::HashSet<KeyCode>, plus: KeyCode, minus: KeyCode| {
            held.contains(&plus) as i32 as f64 - held.contains(&minus) as i32 as f64
        };
        v.controls.forward = axis(&self.held, KeyCode::KeyW, KeyCode::KeyS);
        v.controls.right = axis(&self.held, KeyCode::KeyD, KeyCode::KeyA);
        v.controls.up = axis(&self.held, KeyCode::KeyE, KeyCode::KeyQ);
        v.controls.yaw = axis(&self.held, KeyCode::ArrowRight, KeyCode::ArrowLeft);
        v.controls.pitch = axis(&self.held, KeyCode::ArrowUp, KeyCode::ArrowDown);
        if !pressed {
            return Ok(());
        }
        let debug = |i: usize| DebugView::ALL[i];
        match code {
            KeyCode::Escape => el.exit(),
            KeyCode::KeyH | KeyCode::F1 => v.show_help = !v.show_help,
            KeyCode::KeyF => v.toggle_bounded(),
            KeyCode::KeyX => v.reset_fine_detail_gain(),
            KeyCode::Comma => v.move_sun(-5.0, 0.0),
            KeyCode::Period => v.move_sun(5.0, 0.0),
            KeyCode::BracketLeft => v.move_sun(0.0, -1.0),
            KeyCode::BracketRight => v.move_sun(0.0, 1.0),
            KeyCode::KeyG => v.show_hud = !v.show_hud,
            KeyCode::Digit1 => v.debug = debug(0),
            KeyCode::Digit2 => v.debug = debug(1),
            KeyCode::Digit3 => v.debug = debug(2),
            KeyCode::Digit4 => v.debug = debug(3),
            KeyCode::Digit5 => v.debug = debug(4),
            KeyCode::Digit6 => v.debug = debug(5),
            KeyCode::Digit7 => v.debug = debug(6),
            KeyCode::Digit8 => v.debug = debug(7),
            KeyCode::KeyB => {
                if let Err(e) = v.jump(None) {
                    v.say(format!("bookmarks: {e:#}"));
                }
            }
            KeyCode::KeyP => v.print_render_line(),
            KeyCode::KeyR => v.toggle_recording()?,
            KeyCode::KeyL => {
                if let Err(e) = v.play(None) {
                    v.say(format!("playback: {e:#}"));
                }
            }
            KeyCode::F2 => {
                v.screenshot_next = Some(
                    format!(
                        "captures/out/screenshot-{}.png",
                        super::renderdoc::utc_stamp()
                    )
                    .into(),
                )
            }
            KeyCode::F12 => v.capture_next = true,
            _ => {}
        }
        Ok(())
    }
}

impl ApplicationHandler for App {
    fn resumed(&mut self, el: &ActiveEventLoop) {
        if self.viewer.is_some() || self.parts.is_none() {
            return;
        }
        match self.open(el) {
            Ok(v) => self.viewer = Some(v),
            Err(e) => {
                self.error = Some(e);
                el.exit();
            }
        }
    }

    fn window_event(&mut self, el: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        let Some(mut v) = self.viewer.take() else {
            return;
        };
        let r = match event {
            WindowEvent::CloseRequested => {
                el.exit();
                Ok(())
            }
            WindowEvent::KeyboardInput { event, .. } => match event.physical_key {
                PhysicalKey::Code(code) if !event.repeat => {
                    self.key(&mut v, code, event.state == ElementState::Pressed, el)
                }
                _ => Ok(()),
            },
            WindowEvent::MouseInput {
                state,
                button: MouseButton::Left | MouseButton::Right,
                ..
            } => {
                self.looking = state == ElementState::Pressed;
                Ok(())
            }
            WindowEvent::CursorMoved { position, .. } => {
                if let (true, Some((x, y))) = (self.looking, self.cursor) {
                    v.controls.look[0] += position.x - x;
                    v.controls.look[1] += position.y - y;
                }
                self.cursor = Some((position.x, position.y));
                Ok(())
            }
            WindowEvent::MouseWheel { delta, .. } => {
                let notches = match delta {
                    MouseScrollDelta::LineDelta(_, y) => y as f64,
                    MouseScrollDelta::PixelDelta(p) => p.y / 50.0,
                };
                v.flight.scroll(notches);
                Ok(())
            }
            WindowEvent::Focused(false) => {
                self.held.clear();
                v.controls = Default::default();
                Ok(())
            }
            _ => Ok(()),
        };
        self.viewer = Some(v);
        if let Err(e) = r {
            self.error = Some(e);
            el.exit();
        }
    }

    fn about_to_wait(&mut self, el: &ActiveEventLoop) {
        let Some(v) = self.viewer.as_mut() else {
            return;
        };
        match v.frame() {
            Ok(true) => {}
            Ok(false) => el.exit(),
            Err(e) => {
                self.error = Some(e);
                el.exit();
            }
        }
    }
}
