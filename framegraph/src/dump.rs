//! Text and Graphviz dumps of a compiled graph: nodes in order, queues, batches, barriers and
//! resources. Node names are the same strings used for debug labels and puffin scopes.
//!
//! Holds `CompiledGraph::dump_text`, `CompiledGraph::dump_dot` and [`family_color`] (shared
//! with the executor's debug labels).

use crate::compile::{BarrierBatch, CompiledGraph};
use crate::graph::{Origin, ResourceDesc};
use std::fmt::Write;

/// Stable colour per node family (`cbt.*`, `raster.*`, `resolve.*`, `stream.*`, ...), RGBA.
pub fn family_color(name: &str) -> [f32; 4] {
    let family = name.split('.').next().unwrap_or(name);
    match family {
        "cbt" => [0.95, 0.55, 0.15, 1.0],
        "raster" => [0.25, 0.65, 0.95, 1.0],
        "publish" => [0.35, 0.45, 0.95, 1.0],
        "resolve" => [0.35, 0.85, 0.45, 1.0],
        "stream" => [0.85, 0.35, 0.85, 1.0],
        "hud" => [0.9, 0.9, 0.9, 1.0],
        "readback" | "queue" => [0.6, 0.6, 0.6, 1.0],
        _ => {
            // Hash the family into a hue so unknown families are still stable.
            let h = family
                .bytes()
                .fold(2166136261u32, |h, b| (h ^ b as u32).wrapping_mul(16777619));
            let hue = (h % 360) as f32 / 60.0;
            let x = 1.0 - (hue % 2.0 - 1.0).abs();
            let (r, g, b) = match hue as u32 {
                0 => (1.0, x, 0.0),
                1 => (x, 1.0, 0.0),
                2 => (0.0, 1.0, x),
                3 => (0.0, x, 1.0),
                4 => (x, 0.0, 1.0),
                _ => (1.0, 0.0, x),
            };
            [0.3 + 0.6 * r, 0.3 + 0.6 * g, 0.3 + 0.6 * b, 1.0]
        }
    }
}

fn describe_barriers(g: &CompiledGraph, b: &BarrierBatch, out: &mut String, indent: &str) {
    for (ss, sa, ds, da) in &b.memory {
        let _ = writeln!(out, "{indent}memory: {ss:?}/{sa:?} -> {ds:?}/{da:?}");
    }
    for x in &b.buffers {
        let name = &g.resources[x.res as usize].name;
        let own = if x.src_family != x.dst_family {
            format!(" family {}->{}", x.src_family, x.dst_family)
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "{indent}buffer {name}: {:?}/{:?} -> {:?}/{:?}{own}",
            x.src_stage, x.src_access, x.dst_stage, x.dst_access
        );
    }
    for x in &b.images {
        let name = &g.resources[x.res as usize].name;
        let own = if x.src_family != x.dst_family {
            format!(" family {}->{}", x.src_family, x.dst_family)
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "{indent}image {name}: {:?}/{:?} -> {:?}/{:?} layout {:?} -> {:?}{own}",
            x.src_stage, x.src_access, x.dst_stage, x.dst_access, x.old_layout, x.new_layout
        );
    }
}

impl CompiledGraph<'_> {
    /// Human-readable dump.
    pub fn dump_text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "# frame graph: {} nodes, {} batches, {} culled",
            self.nodes.len(),
            self.batches.len(),
            self.culled.len()
        );
        let _ = writeln!(out, "resources:");
        for (i, r) in self.resources.iter().enumerate() {
            let what = match &r.desc {
                ResourceDesc::Buffer(d) => format!("buffer {} bytes {:?}", d.size, d.memory),
                ResourceDesc::Image(d) => format!(
                    "image {}x{}x{} ×{} {:?}",
                    d.extent[0], d.extent[1], d.extent[2], d.layers, d.format
                ),
            };
            let origin = match (&r.origin, self.alias.get(i).copied().flatten()) {
                (Origin::Imported { .. }, _) => "imported".to_string(),
                (Origin::Transient, Some(s)) => format!("transient, alias slot {s}"),
                (Origin::Transient, None) => "transient".to_string(),
            };
            let _ = writeln!(out, "  {} — {what} ({origin})", r.name);
        }
        for (bi, b) in self.batches.iter().enumerate() {
            let waits: Vec<String> = b.waits.iter().map(|w| format!("batch {w}")).collect();
            let _ = writeln!(
                out,
                "batch {bi}: {:?} queue (family {}){}",
                b.queue,
                b.family,
                if waits.is_empty() {
                    String::new()
                } else {
                    format!(", waits for {}", waits.join(", "))
                }
            );
            for n in &self.nodes[b.nodes.clone()] {
                let _ = writeln!(out, "  node {} [{:?}]", n.name, n.kind);
                if !n.barriers.is_empty() {
                    let _ = writeln!(out, "    barrier ({}):", n.barriers.len());
                    describe_barriers(self, &n.barriers, &mut out, "      ");
                }
                for (r, u) in &n.uses {
                    let _ = writeln!(
                        out,
                        "    {} {} {:?}/{:?}",
                        if u.writes { "writes" } else { "reads " },
                        self.resources[*r as usize].name,
                        u.stage,
                        u.access
                    );
                }
                if !n.releases.is_empty() {
                    let _ = writeln!(out, "    release:");
                    describe_barriers(self, &n.releases, &mut out, "      ");
                }
            }
        }
        if !self.culled.is_empty() {
            let _ = writeln!(out, "culled: {}", self.culled.join(", "));
        }
        out
    }

    /// Graphviz: nodes (boxes, coloured by family, clustered by batch) and resources
    /// (ellipses), edges for reads and writes.
    pub fn dump_dot(&self) -> String {
        let mut out =
            String::from("digraph framegraph {\n  rankdir=LR;\n  node [fontname=\"monospace\"];\n");
        for (bi, b) in self.batches.iter().enumerate() {
            let _ = writeln!(
                out,
                "  subgraph cluster_batch{bi} {{\n    label=\"batch {bi}: {:?} queue\";",
                b.queue
            );
            for p in b.nodes.clone() {
                let n = &self.nodes[p];
                let c = family_color(&n.name);
                let hex = format!(
                    "#{:02x}{:02x}{:02x}",
                    (c[0] * 255.0) as u8,
                    (c[1] * 255.0) as u8,
                    (c[2] * 255.0) as u8
                );
                let _ = writeln!(
                    out,
                    "    \"{}\" [shape=box, style=filled, fillcolor=\"{hex}\", label=\"{}\\n{} barriers\"];",
                    n.name,
                    n.name,
                    n.barriers.len()
                );
            }
            let _ = writeln!(out, "  }}");
        }
        for (i, r) in self.resources.iter().enumerate() {
            if self
                .nodes
                .iter()
                .any(|n| n.uses.iter().any(|(x, _)| *x as usize == i))
            {
                let style = if matches!(r.origin, Origin::Imported { .. }) {
                    "bold"
                } else {
                    "dashed"
                };
                let _ = writeln!(
                    out,
                    "  \"res:{}\" [shape=ellipse, style={style}, label=\"{}\"];",
                    r.name, r.name
                );
            }
        }
        for n in &self.nodes {
            for (r, u) in &n.uses {
                let rn = &self.resources[*r as usize].name;
                if u.writes {
                    let _ = writeln!(out, "  \"{}\" -> \"res:{rn}\";", n.name);
                } else {
                    let _ = writeln!(out, "  \"res:{rn}\" -> \"{}\";", n.name);
                }
            }
        }
        for c in &self.culled {
            let _ = writeln!(
                out,
                "  \"{c}\" [shape=box, style=dotted, label=\"{c}\\n(culled)\"];"
            );
        }
        out.push_str("}\n");
        out
    }
}
