//! The running viewer: GPU objects, flight state and one frame at a time. Window-system events
//! arrive through `app.rs`; this file knows winit only for the window handle and key codes.

use super::flight::{lateral_speed, Controls, Flight};
use super::frame::{self, Output};
use super::ground::{level_for, GroundProbe};
use super::hud::Overlay;
use super::path::CameraPath;
use super::planet::SharedSource;
use super::renderdoc::RenderDocCapture;
use super::script::{Command, Script};
use super::{hud_text, profiler, startup, DebugView, FrameInput, SceneRenderer};
use crate::bookmarks::{self, Bookmark};
use crate::camera::render_line;
use anyhow::{Context as _, Result};
use engine::stream::envelope::Envelope;
use framegraph::{Context, Executor, FrameOutput, Graph, Swapchain};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};
use winit::window::Window;

/// The first frame's scale-down on each axis (`--preview`): a quarter of the pixels. On the
/// 2-core llvmpipe machine at 640×360 the first frame's resolve and shading took 2.2 s of its
/// 4.5 s GPU time at full size, 0.47 s at half (`planetfall render --stats`).
pub const PREVIEW_SCALE: u32 = 2;

/// What `view` reports at exit (and the tests read).
#[derive(Debug, Default)]
pub struct Summary {
    pub presented: u64,
    pub swapchains: u64,
    pub sizes: Vec<[u32; 2]>,
}

pub struct Viewer {
    pub window: Arc<Window>,
    pub ctx: Context,
    exec: Executor,
    swapchain: Option<Swapchain>,
    renderer: Box<dyn SceneRenderer>,
    pub flight: Flight,
    probe: GroundProbe,
    pub bookmarks: Vec<Bookmark>,
    pub bookmark_file: PathBuf,
    bookmark_index: usize,
    pub view_name: String,
    pub debug: DebugView,
    pub show_help: bool,
    pub show_hud: bool,
    /// Held movement keys and accumulated mouse-look, set by `app.rs`.
    pub controls: Controls,
    script: Option<Script>,
    recording: Option<(f64, CameraPath)>,
    playback: Option<(f64, CameraPath)>,
    pub last_path: Option<PathBuf>,
    renderdoc: Option<RenderDocCapture>,
    pub capture_next: bool,
    capture_frame: Option<u64>,
    pub screenshot_next: Option<PathBuf>,
    /// Set by --screenshot: written from the last frame before exit.
    screenshot_at_exit: Option<PathBuf>,
    frame: u64,
    last: Instant,
    frame_ms: f64,
    cpu_ms: f64,
    gpu_ms: f64,
    pub exit: bool,
    /// This frame is the last (the --screenshot frame after an exit request).
    last_frame: bool,
    summary: Summary,
    /// The feed envelope at the last frame's camera (None: the scene has no tile feed).
    envelope: Option<Envelope>,
    /// Speed over the ground of the last frame, m/s.
    lateral_mps: f64,
    /// The last drawn camera: the drawn ground under the next pose is read at its LOD.
    last_cam: Option<engine::camera::ViewCamera>,
    /// Things to say on the HUD for a few seconds (bookmark jumps, files written).
    note: Option<(String, Instant)>,
    /// The sun, local to the point under the camera: it keeps its place in the sky as the
    /// camera flies, as a sun set by `--sun-az`/`--sun-el` does in `render`.
    sun: crate::camera::SunArgs,
    /// The first frame's scale-down per axis (1: none; [`PREVIEW_SCALE`]).
    preview: u32,
}

/// Everything the viewer is built from besides the window and context.
pub struct Parts {
    /// Scene name (`view::scene::make`), made once the context exists.
    pub scene: String,
    /// Its tile source, opening on another thread (None: the scene has no terrain).
    pub source: Option<SharedSource>,
    pub flight: Flight,
    pub probe: GroundProbe,
    pub bookmarks: Vec<Bookmark>,
    pub bookmark_file: PathBuf,
    pub view_name: String,
    pub script: Option<Script>,
    pub playback: Option<CameraPath>,
    pub renderdoc: Option<RenderDocCapture>,
    pub capture_frame: Option<u64>,
    pub screenshot_at_exit: Option<PathBuf>,
    pub frames_in_flight: usize,
    /// The sun, local to the point under the camera (keys move it).
    pub sun: crate::camera::SunArgs,
    /// The first frame's scale-down per axis (1: a full first frame).
    pub preview: u32,
}

impl Viewer {
    /// Move the sun by `daz`, `del` degrees (keys , . [ ]) in the sky over the camera, from
    /// the default sun if none was set; the elevation stays within ±90°.
    pub fn move_sun(&mut self, daz: f64, del: f64) {
        use engine::params::{SUN_AZIMUTH_DEG, SUN_ELEVATION_DEG};
        let eye = self.flight.pose.camera(self.flight.body, 1, 1).eye;
        let (az, el) = self
            .sun
            .angles(eye)
            .unwrap_or((SUN_AZIMUTH_DEG, SUN_ELEVATION_DEG));
        let (az, el) = ((az + daz).rem_euclid(360.0), (el + del).clamp(-90.0, 90.0));
        self.sun = crate::camera::SunArgs::at(az, el);
        self.say(format!("sun: azimuth {az:.0}°, elevation {el:.0}°"));
    }

    /// Toggle bounded flight (F).
    pub fn toggle_bounded(&mut self) {
        self.flight.bounded = !self.flight.bounded;
        let state = if self.flight.bounded {
            "on: manual speed held to 75 % of the sustainable lateral speed"
        } else {
            "off"
        };
        self.say(format!("bounded flight {state}"));
    }

    /// Restore the fine-detail gain (X): the one way it rises again.
    pub fn reset_fine_detail_gain(&mut self) {
        self.renderer.reset_fine_detail_gain();
        self.say("fine-detail gain reset to 1".to_string());
    }

    /// The envelope for the camera about to be drawn, from the supply the renderer has
    /// metered so far; bounded flight's cap follows it.
    fn update_envelope(&mut self, cam: &engine::camera::ViewCamera) {
        let body = self.flight.body;
        self.envelope = self
            .renderer
            .feed_supply()
            .map(|s| Envelope::new(s, body, self.flight.agl(), cam.pixel_angle()));
        self.flight.sustainable = self.envelope.and_then(|e| e.sustainable).map(|s| s.speed);
    }
}

impl Viewer {
    pub fn new(
        window: Arc<Window>,
        ctx: Context,
        swapchain: Swapchain,
        p: Parts,
    ) -> Result<Viewer> {
        let mut exec = Executor::new(&ctx, p.frames_in_flight)?;
        let purpose = super::scene::Purpose::Fly;
        // The pipelines build while the tile source loads and the first frame is prepared.
        exec.prebuild_in_background(&ctx, super::scene::compute_shaders(&ctx, &p.scene, purpose));
        let t = Instant::now();
        let source = match &p.source {
            Some(s) => Some(s.wait().map_err(anyhow::Error::msg)?),
            None => None,
        };
        startup::step("waiting for the tile source", t);
        let t = Instant::now();
        let renderer = super::scene::make_over(&ctx, &p.scene, purpose, source)?;
        startup::step("scene renderer", t);
        let mut flight = p.flight;
        if let Some(s) = renderer.source() {
            flight.body = s.body();
        }
        Ok(Viewer {
            window,
            ctx,
            exec,
            swapchain: Some(swapchain),
            renderer,
            flight,
            probe: p.probe,
            bookmarks: p.bookmarks,
            bookmark_file: p.bookmark_file,
            bookmark_index: 0,
            view_name: p.view_name,
            debug: DebugView::Shaded,
            show_help: false,
            show_hud: true,
            controls: Controls::default(),
            script: p.script,
            recording: None,
            playback: p.playback.map(|c| (0.0, c)),
            last_path: None,
            renderdoc: p.renderdoc,
            capture_next: false,
            capture_frame: p.capture_frame,
            screenshot_next: None,
            screenshot_at_exit: p.screenshot_at_exit,
            frame: 0,
            last: Instant::now(),
            frame_ms: 0.0,
            cpu_ms: 0.0,
            gpu_ms: 0.0,
            exit: false,
            last_frame: false,
            summary: Summary::default(),
            note: None,
            sun: p.sun,
            preview: p.preview.max(1),
            envelope: None,
            lateral_mps: 0.0,
            last_cam: None,
        })
    }

    pub fn say(&mut self, msg: String) {
        println!("{msg}");
        self.note = Some((msg, Instant::now()));
    }

    /// Jump to bookmark `name` (or the next one with `None`).
    pub fn jump(&mut self, name: Option<&str>) -> Result<()> {
        if self.bookmarks.is_empty() {
            self.bookmarks = bookmarks::load(&self.bookmark_file)?;
        }
        let b = match name {
            Some(n) => bookmarks::find(&self.bookmarks, n, &self.bookmark_file)?.clone(),
            None => {
                self.bookmark_index = (self.bookmark_index + 1) % self.bookmarks.len().max(1);
                self.bookmarks
                    .get(self.bookmark_index)
                    .cloned()
                    .context("no bookmarks")?
            }
        };
        let (pose, ground) = super::ground::place(&self.probe, &b);
        self.flight.pose = pose;
        self.flight.ground = ground;
        self.flight.clamp_to_ground();
        // Nothing on screen to be continuous with: the new view's tiles show at once.
        self.renderer.cut();
        self.view_name = b.name.clone();
        self.say(format!("bookmark {}: {}", b.name, b.to_line()));
        Ok(())
    }

    pub fn print_render_line(&mut self) {
        let [w, h] = self
            .swapchain
            .as_ref()
            .map(|s| s.extent())
            .unwrap_or([0, 0]);
        let line = render_line(&self.flight.pose, w, h, self.renderer.name());
        self.say(line);
    }

    pub fn toggle_recording(&mut self) -> Result<()> {
        match self.recording.take() {
            None => {
                self.recording = Some((0.0, CameraPath::default()));
                self.say("recording camera path (R again to stop)".into());
            }
            Some((_, path)) => {
                let file = PathBuf::from(format!(
                    "captures/path-{}.txt",
                    super::renderdoc::utc_stamp()
                ));
                path.save(&file)?;
                self.say(format!(
                    "camera path: {} samples, {:.1} s, written to {} (replay: L, or --play FILE)",
                    path.samples.len(),
                    path.duration(),
                    file.display()
                ));
                self.last_path = Some(file);
            }
        }
        Ok(())
    }

    pub fn play(&mut self, file: Option<PathBuf>) -> Result<()> {
        let Some(file) = file.or_else(|| self.last_path.clone()) else {
            self.say("no camera path recorded yet (R records)".into());
            return Ok(());
        };
        let path = CameraPath::load(&file)?;
        self.say(format!(
            "playing {} ({:.1} s)",
            file.display(),
            path.duration()
        ));
        self.playback = Some((0.0, path));
        Ok(())
    }

    /// Script commands due this frame; returns the controls it holds.
    fn run_script(&mut self) -> Result<Controls> {
        let Some(mut s) = self.script.take() else {
            return Ok(Controls::default());
        };
        let extent = self
            .swapchain
            .as_ref()
            .map(|s| s.extent())
            .unwrap_or([0, 0]);
        let mut held = Controls::default();
        while let Some(cmd) = s.next(extent, &mut held) {
            match cmd {
                Command::Resize(w, h) => {
                    let _ = self
                        .window
                        .request_inner_size(winit::dpi::PhysicalSize::new(w, h));
                }
                Command::Bookmark(name) => {
                    if let Err(e) = self.jump(Some(&name)) {
                        self.say(format!("bookmark: {e:#}"));
                    }
                }
                Command::Debug(d) => {
                    self.debug = d;
                    self.say(format!("debug view: {}", d.name()));
                }
                Command::Help => self.show_help = !self.show_help,
                Command::Hud => self.show_hud = !self.show_hud,
                Command::Speed(f) => self.flight.speed_factor = f,
                Command::Screenshot(p) => self.screenshot_next = Some(p),
                Command::Capture => self.capture_next = true,
                Command::Print => self.print_render_line(),
                Command::Exit => self.exit = true,
                Command::Frames(_) | Command::Fly { .. } | Command::Sleep(_) => {}
            }
        }
        if s.finished() {
            self.exit = true;
        }
        self.script = Some(s);
        Ok(held)
    }

    /// Seconds to advance this frame: fixed under a script (reproducible runs), measured otherwise.
    fn step_dt(&mut self, now: Instant) -> f64 {
        let real = (now - self.last).as_secs_f64();
        self.frame_ms = real * 1e3;
        self.last = now;
        if self.frame == 0 {
            0.0
        } else if self.script.is_some() {
            1.0 / 60.0
        } else {
            real.min(0.25)
        }
    }

    fn move_camera(&mut self, dt: f64, scripted: Controls) {
        let mut c = self.controls;
        c.forward = (c.forward + scripted.forward).clamp(-1.0, 1.0);
        c.right = (c.right + scripted.right).clamp(-1.0, 1.0);
        c.up = (c.up + scripted.up).clamp(-1.0, 1.0);
        self.controls.look = [0.0, 0.0];
        let body = self.flight.body;
        let before = self.flight.pose.camera(body, 1, 1).eye;
        if let Some((t, path)) = &mut self.playback {
            *t += dt;
            if let Some(p) = path.at(*t) {
                self.flight.pose = p;
            }
            if *t > path.duration() {
                self.playback = None;
                self.say("playback finished".into());
            }
        } else {
            self.flight.step(&c, dt);
        }
        if let Some((t, path)) = &mut self.recording {
            *t += dt;
            path.record(*t, self.flight.pose);
        }
        // Ground: ask for the ground here; use an answer only if it is for (nearly) here.
        let up = self.flight.pose.up();
        self.probe.request(up, level_for(self.flight.agl()));
        if let Some((dir, h)) = self.probe.latest() {
            if dir.angle_between(up) < 2e-4 {
                self.flight.ground = h;
            }
        }
        // Once terrain is drawn the floor is also the drawn surface — the blend of levels,
        // fades and cross-fades the frame shows — so the camera never passes through what the
        // user sees (a replacement lifts it as smoothly as it lifts the ground), nor below the
        // data where a coarse level is drawn lower.
        if let Some(drawn) = self
            .last_cam
            .and_then(|c| self.renderer.drawn_ground(&c, up))
        {
            self.flight.ground = self.flight.ground.max(drawn);
        }
        self.flight.clamp_to_ground();
        let after = self.flight.pose.camera(body, 1, 1).eye;
        self.lateral_mps = lateral_speed(body, before, after, dt);
    }

    fn retired(&mut self, out: FrameOutput) {
        self.gpu_ms = out.total_ms();
        self.renderer.frame_done(&out);
    }

    fn overlay(&self, extent: [u32; 2]) -> Overlay {
        let mut o = Overlay::new(extent[1]);
        if !self.show_hud {
            return o;
        }
        let status = hud_text::Status {
            scene: self.renderer.name(),
            view: &self.view_name,
            flight: &self.flight,
            debug: self.debug,
            frame_ms: self.frame_ms,
            cpu_ms: self.cpu_ms,
            gpu_ms: self.gpu_ms,
            stats: self.renderer.stats(),
            ground_problem: self.probe.problem(),
            recording: self.recording.is_some(),
            playing: self.playback.is_some(),
            feed: self.envelope.map(|envelope| hud_text::Feed {
                envelope,
                lateral_mps: self.lateral_mps,
                bounded: self.flight.bounded,
                budget: self.renderer.gpu_tile_budget(),
            }),
        };
        let lines = status.lines();
        o.block(1, 1, &lines);
        let status_w = lines
            .iter()
            .map(|(l, _)| l.chars().count())
            .max()
            .unwrap_or(0) as u32;
        if let Some((msg, at)) = &self.note {
            if at.elapsed() < Duration::from_secs(4) {
                let row = extent[1] / o.cell()[1];
                o.block(
                    1,
                    row.saturating_sub(2),
                    &[(msg.clone(), super::hud::ACCENT)],
                );
            }
        }
        if self.show_help {
            let help = hud_text::help();
            let width = help
                .iter()
                .map(|(l, _)| l.chars().count())
                .max()
                .unwrap_or(0) as u32;
            let col = (extent[0] / o.cell()[0]).saturating_sub(width + 1);
            // Right of the status block where there is room, else under it.
            if col > status_w + 2 {
                o.block(col, 1, &help);
            } else {
                o.block(1, lines.len() as u32 + 3, &help);
            }
        }
        o
    }

    /// One frame. Returns false when the viewer should stop.
    pub fn frame(&mut self) -> Result<bool> {
        profiler::new_frame();
        let t0 = Instant::now();
        let dt = self.step_dt(t0);
        let scripted = self.run_script()?;
        self.move_camera(dt, scripted);
        if self.exit && !self.last_frame {
            match self.screenshot_at_exit.take() {
                // One more frame, read back for --screenshot, then stop.
                Some(p) => {
                    self.screenshot_next = Some(p);
                    self.last_frame = true;
                }
                None => return Ok(false),
            }
        }

        let (slot, out) = self.exec.begin_frame(&self.ctx)?;
        let mut gpu_times = Vec::new();
        if let Some(o) = out {
            gpu_times = o.times.clone();
            self.retired(o);
        }
        let size = self.window.inner_size();
        let sc = self.swapchain.as_mut().context("no swapchain")?;
        let gen = sc.generation;
        let Some(acq) = sc.acquire(&self.ctx, slot, [size.width, size.height])? else {
            std::thread::sleep(Duration::from_millis(10)); // minimised: nothing to draw into
            return Ok(true);
        };
        let image_extent = sc.extent();
        if sc.generation != gen || self.summary.sizes.is_empty() {
            self.summary.sizes.push(image_extent);
            self.summary.swapchains += 1;
        }
        // The first frame is a preview: fewer pixels, scaled up by `present.blit`, and the
        // renderer leaves out what can wait a frame.
        let first = self.summary.presented == 0;
        let scale = if first { self.preview } else { 1 };
        let extent = image_extent.map(|n| n.div_ceil(scale));
        if scale > 1 {
            self.renderer.preview_next();
        }
        let srgb = matches!(
            sc.format(),
            ash::vk::Format::B8G8R8A8_SRGB | ash::vk::Format::R8G8B8A8_SRGB
        );
        let hud = self.overlay(extent);
        let capture = self.capture_next || self.capture_frame == Some(self.frame);
        self.capture_next = false;
        let capturing = capture && self.renderdoc.is_some();
        if capture && !capturing {
            self.say("capture: RenderDoc is not loaded (start with --renderdoc)".into());
        }
        if let (true, Some(rd)) = (capturing, self.renderdoc.as_mut()) {
            rd.start(self.ctx.instance.handle());
        }
        let screenshot = self.screenshot_next.take();

        let cam = self
            .flight
            .pose
            .camera(self.flight.body, extent[0], extent[1]);
        self.update_envelope(&cam);
        self.last_cam = Some(cam);
        let sc = self.swapchain.as_mut().context("no swapchain")?;
        let input = FrameInput {
            cam: &cam,
            extent,
            frame_slot: slot,
            frame: self.frame,
            dt,
            debug: self.debug,
            sun: self.sun.direction(cam.eye),
            gpu_times: &gpu_times,
        };
        let t = Instant::now();
        self.renderer.prepare(&self.ctx, &input)?;
        if first {
            startup::step("first prepare", t);
        }
        let t = Instant::now();
        let mut g = Graph::new();
        let image = sc.import(&mut g, &acq);
        let output = Output::Present {
            image,
            extent: image_extent,
            srgb,
            screenshot: screenshot.is_some(),
        };
        // No HUD over the preview: at its size the text would cover much of the planet, and
        // its numbers are not known before a frame has run.
        let hud = (scale == 1).then_some(&hud);
        frame::declare(&mut g, self.renderer.as_ref(), &input, hud, output)?;
        let compiled = g.compile(self.ctx.queue_setup())?;
        let retired = self.exec.execute(&self.ctx, compiled, sc.sync(&acq))?;
        sc.present(&self.ctx, &acq)?;
        self.summary.presented += 1;
        if first {
            startup::step("first graph, record, submit and present", t);
            log::info!(
                "first frame presented in {:.2} s (from process start), drawn at {}x{}",
                startup::seconds(),
                extent[0],
                extent[1]
            );
        }
        if let Some(o) = retired {
            self.retired(o);
        }
        if let (true, Some(rd)) = (capturing, self.renderdoc.as_mut()) {
            let (scene, view) = (self.renderer.name().to_string(), self.view_name.clone());
            match rd.end(self.ctx.instance.handle(), &scene, &view, self.frame) {
                Ok(p) => self.say(format!("renderdoc: wrote {}", p.display())),
                Err(e) => self.say(format!("renderdoc: {e:#}")),
            }
        }
        if let Some(path) = screenshot {
            for o in self.exec.drain(&self.ctx)? {
                if let Ok(px) = o.readback(frame::READBACK) {
                    crate::image_out::write_rgba8(&path, extent[0], extent[1], px)?;
                    self.say(format!("screenshot: wrote {}", path.display()));
                }
                self.retired(o);
            }
        }
        self.cpu_ms = t0.elapsed().as_secs_f64() * 1e3;
        self.frame += 1;
        Ok(!self.last_frame)
    }

    /// Free everything; report leaks and validation messages.
    pub fn shutdown(mut self, validation: bool) -> Result<Summary> {
        for o in self.exec.drain(&self.ctx)? {
            self.renderer.frame_done(&o);
        }
        self.ctx.wait_idle();
        self.renderer.destroy(&self.ctx);
        self.exec.destroy(&self.ctx);
        if let Some(sc) = self.swapchain.take() {
            sc.destroy(&self.ctx);
        }
        let leaked = self.ctx.allocated_bytes();
        let messages = self.ctx.messages.messages();
        let summary = std::mem::take(&mut self.summary);
        drop(self.renderdoc.take());
        drop(self);
        anyhow::ensure!(
            leaked == 0,
            "{leaked} bytes of GPU memory still allocated at shutdown (leak)"
        );
        if validation && !messages.is_empty() {
            anyhow::bail!(
                "validation reported {} message(s); first: {}",
                messages.len(),
                messages[0]
            );
        }
        Ok(summary)
    }
}
