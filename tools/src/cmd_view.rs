//! `planetfall view`: the interactive viewer (winit window, swapchain, flight, HUD, puffin,
//! RenderDoc). See `view/` for the pieces and README.md for keys and flags.

use crate::bookmarks;
use crate::camera::CameraArgs;
use crate::device::GpuArgs;
use crate::view::app::{self, Setup};
use crate::view::flight::Flight;
use crate::view::ground::{place, GroundConfig, GroundProbe};
use crate::view::path::CameraPath;
use crate::view::planet::{EarthPaths, SharedSource};
use crate::view::renderdoc::RenderDocCapture;
use crate::view::script::{self, Script};
use crate::view::viewer::Parts;
use crate::view::{profiler, scene};
use anyhow::{ensure, Result};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    gpu: GpuArgs,
    #[command(flatten)]
    camera: CameraArgs,
    /// What to draw.
    #[arg(long, default_value = scene::SCENES[0])]
    scene: String,
    /// Initial window size, px.
    #[arg(long, default_value_t = 1280)]
    width: u32,
    #[arg(long, default_value_t = 720)]
    height: u32,
    /// Scripted flight (frames, resize, bookmark, debug, screenshot, …; see view/script.rs).
    #[arg(long)]
    script: Option<PathBuf>,
    /// Play a recorded camera path from the start.
    #[arg(long)]
    play: Option<PathBuf>,
    /// Serve puffin profiles (default 127.0.0.1:8585; a bare port binds loopback).
    #[arg(long, num_args = 0..=1, default_missing_value = profiler::DEFAULT_ADDR, value_name = "ADDR")]
    puffin: Option<String>,
    /// Load RenderDoc's in-app library before Vulkan starts; F12 writes a capture to captures/.
    #[arg(long)]
    renderdoc: bool,
    /// Capture frame N with RenderDoc (implies --renderdoc).
    #[arg(long, value_name = "N")]
    capture_frame: Option<u64>,
    /// Save the last presented frame (with the HUD) as PNG when the viewer exits.
    #[arg(long, value_name = "FILE")]
    screenshot: Option<PathBuf>,
    /// Present without waiting for vertical blank (MAILBOX/IMMEDIATE where offered).
    #[arg(long)]
    no_vsync: bool,
    /// Frames the CPU may run ahead of the GPU.
    #[arg(long, default_value_t = 2)]
    frames_in_flight: usize,
    /// Skip the CPU ground query (fly over the datum sphere).
    #[arg(long)]
    no_ground: bool,
    /// ETOPO netCDF file of the Earth (renderer and ground query) [env: PLANETFALL_ETOPO].
    #[arg(long)]
    etopo: Option<PathBuf>,
    /// Data directory of the tile pyramid (renderer and ground query) [env: PLANETFALL_DATA].
    #[arg(long)]
    data: Option<PathBuf>,
    /// Hold manual speed within 75 % of the lateral speed the tile feed sustains (F toggles).
    #[arg(long)]
    bounded_flight: bool,
    /// The first frame is a preview at 1/N of the window's size on each axis, scaled up, with
    /// the work that can wait left to the next frame (the atmosphere's LUTs at half size, no
    /// sea-level sky LUT), so that a cold start shows the planet sooner; 1: a full first frame.
    #[arg(long, default_value_t = crate::view::viewer::PREVIEW_SCALE, value_name = "N")]
    preview: u32,
}

pub fn run(a: Args) -> Result<()> {
    ensure!(
        (16..=16384).contains(&a.width) && (16..=16384).contains(&a.height),
        "--width/--height must be 16..=16384"
    );
    ensure!(
        (1..=4).contains(&a.frames_in_flight),
        "--frames-in-flight must be 1..=4"
    );
    ensure!((1..=8).contains(&a.preview), "--preview must be 1..=8");
    // Inputs first: a bad file is reported before any window opens.
    let script = a
        .script
        .as_deref()
        .map(script::load)
        .transpose()?
        .map(Script::new);
    let playback = a.play.as_deref().map(CameraPath::load).transpose()?;
    let (view_name, start) = a.camera.resolve()?;
    let bookmark_file = a.camera.bookmark_file();
    let marks = match bookmarks::load(&bookmark_file) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("bookmarks: {e:#}; the B key has nothing to cycle through");
            Vec::new()
        }
    };
    // RenderDoc must be in the process before the Vulkan instance exists.
    let renderdoc = if a.renderdoc || a.capture_frame.is_some() {
        match RenderDocCapture::load(std::path::Path::new("captures")) {
            Ok(r) => Some(r),
            Err(e) => {
                eprintln!("renderdoc: {e:#}. The viewer runs without captures.");
                None
            }
        }
    } else {
        None
    };
    let _puffin = a.puffin.as_deref().and_then(profiler::start);
    // Unknown scene names fail before the window opens.
    scene::check(&a.scene)?;
    // The scene's source loads (ETOPO, relief, oracle) while the window and the Vulkan
    // context are made; the renderer and the ground probe share it. (The test scene's says
    // it has no terrain, which the probe reports.)
    let paths = EarthPaths {
        etopo: a.etopo.clone(),
        data: a.data.clone(),
        mask_in_background: true,
    };
    let source = SharedSource::open(&a.scene, paths);
    let probe = GroundProbe::start(GroundConfig {
        source: (!a.no_ground).then(|| source.clone()),
    });
    let (pose, ground) = place(&probe, &start);
    // The scene's own body replaces this once the renderer exists (`Viewer::new`).
    let mut flight = Flight::new(pose, engine::planet::Body::EARTH);
    flight.ground = ground;
    flight.bounded = a.bounded_flight;
    flight.clamp_to_ground();
    let parts = Parts {
        scene: a.scene.clone(),
        source: (a.scene != "test").then_some(source),
        flight,
        probe,
        bookmarks: marks,
        bookmark_file,
        view_name,
        script,
        playback,
        renderdoc,
        capture_frame: a.capture_frame,
        screenshot_at_exit: a.screenshot.clone(),
        frames_in_flight: a.frames_in_flight,
        sun: a.camera.sun,
        preview: a.preview,
    };
    let setup = Setup {
        size: [a.width, a.height],
        validation: a.gpu.validation,
        device: a.gpu.device.clone(),
        vsync: !a.no_vsync,
        frames_in_flight: a.frames_in_flight,
    };
    let s = app::run(setup, parts)?;
    let sizes: Vec<String> = s
        .sizes
        .iter()
        .map(|e| format!("{}x{}", e[0], e[1]))
        .collect();
    println!(
        "view: {} frames presented; swapchain sizes {}; no GPU memory leaked",
        s.presented,
        sizes.join(" ")
    );
    Ok(())
}
