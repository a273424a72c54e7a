//! `planetfall graph`: compile a frame's graph without running it and print it.

use anyhow::Result;
use framegraph::{Graph, QueueSetup};

#[derive(clap::Args)]
pub struct Args {
    /// Print Graphviz dot instead of text.
    #[arg(long, conflicts_with = "text")]
    dot: bool,
    /// Print text (the default).
    #[arg(long)]
    text: bool,
    /// Plan for a device with a dedicated transfer queue family (as on a discrete GPU).
    #[arg(long)]
    async_transfer: bool,
}

pub fn run(a: Args) -> Result<()> {
    let mut g = Graph::new();
    crate::test_scene::build(&mut g, 256, 256);
    let queues = if a.async_transfer { QueueSetup { universal: 0, transfer: Some(1) } } else { QueueSetup::single(0) };
    let c = g.compile(queues)?;
    if a.dot {
        print!("{}", c.dump_dot());
    } else {
        print!("{}", c.dump_text());
    }
    Ok(())
}
