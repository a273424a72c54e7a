//! The driver's statistics of every pipeline a run built (`--pipeline-stats`,
//! `framegraph::pipeline::stats`; the bench reports them, `render` and `capture` print them):
//! registers, shared and local memory, instructions, as the driver names them. A node's occupancy, and so its latency hiding, follows from them; the
//! GPU times alone cannot say why a node is slow.

use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

/// One executable of one pipeline (a compute shader, or one stage of a raster pipeline).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct PipelineRow {
    /// The node's shader (`vs + fs` for a raster pipeline).
    pub pipeline: String,
    /// The driver's name of the executable.
    pub executable: String,
    pub subgroup_size: u32,
    /// (statistic, value as text), in the driver's order.
    pub stats: Vec<(String, String)>,
}

/// Rows from the pipelines of every executor, each pipeline once, sorted by name.
pub fn rows(all: &[Vec<framegraph::pipeline::stats::PipelineStats>]) -> Vec<PipelineRow> {
    let mut out: Vec<PipelineRow> = Vec::new();
    for list in all {
        for p in list {
            if out.iter().any(|r| r.pipeline == p.pipeline) {
                continue;
            }
            for e in &p.executables {
                out.push(PipelineRow {
                    pipeline: p.pipeline.clone(),
                    executable: e.name.clone(),
                    subgroup_size: e.subgroup_size,
                    stats: e
                        .stats
                        .iter()
                        .map(|(k, v)| (k.clone(), v.to_string()))
                        .collect(),
                });
            }
        }
    }
    out.sort_by(|a, b| (&a.pipeline, &a.executable).cmp(&(&b.pipeline, &b.executable)));
    out
}

/// The "## Pipelines" section: one row per executable, one column per statistic the driver
/// named (in the order first met); empty when the run captured none.
pub fn markdown(rows: &[PipelineRow], asked: bool) -> String {
    if rows.is_empty() {
        return if asked {
            "\n## Pipelines: the driver's statistics\n\nAsked for (`--pipeline-stats`), but the driver reported none (no VK_KHR_pipeline_executable_properties?).\n".into()
        } else {
            String::new()
        };
    }
    let mut names: Vec<&str> = Vec::new();
    for r in rows {
        for (k, _) in &r.stats {
            if !names.contains(&k.as_str()) {
                names.push(k);
            }
        }
    }
    let mut s = String::from("\n## Pipelines: the driver's statistics\n\n`--pipeline-stats` (VK_KHR_pipeline_executable_properties): what the driver reports of each pipeline the run built, by its own names.\n\n| pipeline | executable | subgroup |");
    for n in &names {
        let _ = write!(s, " {n} |");
    }
    s.push_str("\n|---|---|---|");
    s.push_str(&"---|".repeat(names.len()));
    s.push('\n');
    for r in rows {
        let _ = write!(
            s,
            "| {} | {} | {} |",
            r.pipeline, r.executable, r.subgroup_size
        );
        for n in &names {
            let v = r
                .stats
                .iter()
                .find(|(k, _)| k == n)
                .map_or("", |(_, v)| v.as_str());
            let _ = write!(s, " {v} |");
        }
        s.push('\n');
    }
    s
}

/// A row for the per-node table under its `names` columns: each node's registers a thread, as
/// the driver names them (the first statistic whose name speaks of registers or GPRs); None
/// when the run captured no such statistic. A raster pipeline (`vs + fs`) is listed under its
/// vertex shader's node.
pub fn register_row(rows: &[PipelineRow], names: &[String]) -> Option<String> {
    let is_regs = |k: &str| {
        let k = k.to_ascii_lowercase();
        k.contains("register") || k.contains("gpr")
    };
    let stat = rows
        .iter()
        .flat_map(|r| &r.stats)
        .map(|(k, _)| k)
        .find(|k| is_regs(k))?;
    let cells: Vec<String> = names
        .iter()
        .map(|n| {
            let values: Vec<&str> = rows
                .iter()
                .filter(|r| r.pipeline == *n || r.pipeline.starts_with(&format!("{n} + ")))
                .filter_map(|r| r.stats.iter().find(|(k, _)| k == stat))
                .map(|(_, v)| v.as_str())
                .collect();
            if values.is_empty() {
                "-".into()
            } else {
                values.join(" / ")
            }
        })
        .collect();
    Some(format!(
        "| {stat} (driver, a thread) | | | {} |",
        cells.join(" | ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use framegraph::pipeline::stats::{Executable, PipelineStats, StatValue};

    fn stats(name: &str, regs: u64) -> PipelineStats {
        PipelineStats {
            pipeline: name.into(),
            executables: vec![Executable {
                name: "Compute Shader".into(),
                stages: ash::vk::ShaderStageFlags::COMPUTE,
                subgroup_size: 32,
                stats: vec![
                    ("Register Count".into(), StatValue::Uint(regs)),
                    ("Spills".into(), StatValue::Bool(false)),
                ],
            }],
        }
    }

    #[test]
    fn each_pipeline_is_one_row_under_the_union_of_the_statistics() {
        let a = vec![stats("shade.terrain", 96), stats("cbt.eval", 40)];
        // The second executor built one of the same and one of its own.
        let b = vec![stats("cbt.eval", 40), stats("publish.resolve", 128)];
        let rows = rows(&[a, b]);
        let names: Vec<&str> = rows.iter().map(|r| r.pipeline.as_str()).collect();
        assert_eq!(names, ["cbt.eval", "publish.resolve", "shade.terrain"]);
        let md = markdown(&rows, true);
        assert!(md.contains("| pipeline | executable | subgroup | Register Count | Spills |"));
        assert!(md.contains("| publish.resolve | Compute Shader | 32 | 128 | false |"));
        assert!(markdown(&[], false).is_empty());
        let names = vec!["cbt.eval".to_string(), "raster.hardware".to_string()];
        assert_eq!(
            register_row(&rows, &names).unwrap(),
            "| Register Count (driver, a thread) | | | 40 | - |"
        );
        assert_eq!(register_row(&[], &names), None);
        assert!(markdown(&[], true).contains("reported none"));
    }
}
