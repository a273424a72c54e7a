//! `planetfall`: the viewer, headless render, benchmark, reference scorer, tile bake and
//! capture tools, one subcommand each.

mod bench;
mod bookmarks;
mod camera;
mod cmd_bake;
mod cmd_bench;
mod cmd_capture;
mod cmd_graph;
mod cmd_height;
mod cmd_render;
mod cmd_supply;
mod cmd_view;
mod device;
mod headless;
mod image_out;
mod lines;
mod pipeline_stats;
mod test_scene;
mod view;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "planetfall",
    version = concat!(env!("CARGO_PKG_VERSION"), " (", env!("PLANETFALL_BUILD_COMMIT"), ")"),
    about = "A compute-first planet renderer on Vulkan"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Fly the viewer: window, flight, HUD, puffin (--puffin), RenderDoc (--renderdoc).
    View(cmd_view::Args),
    /// Pre-fill the tile pyramid (levels, region) with every core; prints feed counters.
    Bake(cmd_bake::Args),
    /// Print the ground height and water flag the tiles hold at a latitude/longitude.
    Height(cmd_height::Args),
    /// Dump a compiled frame graph (nodes, queues, barriers) as text or Graphviz dot.
    Graph(cmd_graph::Args),
    /// Render one frame headless and write a PNG.
    Render(cmd_render::Args),
    /// Write a RenderDoc capture of one headless frame into captures/.
    Capture(cmd_capture::Args),
    /// Benchmark and score the renderer over captures/views.txt (JSON, Markdown, contact sheet).
    Bench(cmd_bench::Args),
    /// Measure how fast the GPU makes tiles (derived and amplified levels), tiles per second.
    Supply(cmd_supply::Args),
}

fn main() {
    view::startup::begin();
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("info"))
        .format_timestamp(None)
        .init();
    let cli = Cli::parse();
    let result = match cli.cmd {
        Command::View(a) => cmd_view::run(a),
        Command::Bake(a) => cmd_bake::run(a),
        Command::Height(a) => cmd_height::run(a),
        Command::Graph(a) => cmd_graph::run(a),
        Command::Render(a) => cmd_render::run(a),
        Command::Capture(a) => cmd_capture::run(a),
        Command::Bench(a) => cmd_bench::run(a),
        Command::Supply(a) => cmd_supply::run(a),
    };
    if let Err(e) = result {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}
