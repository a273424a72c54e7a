//! The `render --stats` file: one JSON object with the same keys and types for every scene —
//! the run (`scene`, `width`, `height`, `frames`, `settled`), the renderer's
//! [`SceneStats`] at the top level (`leaves`, `drawn`, `high_water`, `iterations`, `quiet`,
//! `saturated`, `tiles`; absent where a scene has no mesh or tiles), and the written frame's GPU
//! time (`gpu_ms`, `nodes`). A scene with more to say adds its own keys beside these.

use crate::view::stats::SceneStats;
use anyhow::{Context as _, Result};
use framegraph::FrameOutput;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;

#[derive(Serialize)]
pub struct StatsFile<'a> {
    pub scene: &'a str,
    pub width: u32,
    pub height: u32,
    /// Frames run, the written one included.
    pub frames: u32,
    /// The renderer had nothing left to refine or load when the frame was written.
    pub settled: bool,
    #[serde(flatten)]
    pub stats: SceneStats,
    /// Sum of the written frame's node times, ms.
    pub gpu_ms: f64,
    /// GPU ms per node of the written frame; a node that ran more than once (the CBT's
    /// iterations, reduction passes) is summed.
    pub nodes: BTreeMap<String, f64>,
    /// A scene's own keys (a JSON object), written after the shared ones.
    #[serde(flatten)]
    pub extra: Option<serde_json::Value>,
}

/// Milliseconds to 0.1 µs, finer than the timestamps resolve, so the file reads `0.0375`
/// rather than `0.037516999999999995`.
fn ms(x: f64) -> f64 {
    (x * 1e4).round() / 1e4
}

impl<'a> StatsFile<'a> {
    pub fn new(
        scene: &'a str,
        size: [u32; 2],
        frames: u32,
        settled: bool,
        stats: SceneStats,
        out: &FrameOutput,
    ) -> StatsFile<'a> {
        let mut nodes = BTreeMap::new();
        for t in &out.times {
            *nodes.entry(t.name.clone()).or_insert(0.0) += t.duration_ms;
        }
        nodes.values_mut().for_each(|x| *x = ms(*x));
        StatsFile {
            scene,
            width: size[0],
            height: size[1],
            frames,
            settled,
            stats,
            gpu_ms: ms(out.total_ms()),
            nodes,
            extra: None,
        }
    }

    /// Add a scene's own keys (`extra` is a JSON object).
    pub fn with_extra(self, extra: serde_json::Value) -> StatsFile<'a> {
        debug_assert!(extra.is_object());
        StatsFile {
            extra: Some(extra),
            ..self
        }
    }

    pub fn write(&self, path: &Path) -> Result<()> {
        let text = serde_json::to_string_pretty(self).context("encoding the stats")?;
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        }
        std::fs::write(path, text + "\n").with_context(|| format!("writing {}", path.display()))
    }
}
