//! The Markdown report: the tables docs/bench.md holds, from a [`Report`].

use super::report::{Readiness, Report, Timed, ViewResult};
use std::fmt::Write as _;

/// The SM clock of a view's timed frames: "median (min–max) MHz, x % < 90 %", or why not.
pub fn clock_cell(t: &Timed) -> String {
    match (&t.clock, t.clock_exposed) {
        (Some(c), _) => format!(
            "{:.0} ({:.0}–{:.0}) MHz, {:.0} % < {:.0} % of {:.0}",
            c.median_mhz,
            c.min_mhz,
            c.max_mhz,
            100.0 * c.below_full,
            100.0 * super::clock::FULL_CLOCK,
            c.rated_max_mhz
        ),
        (None, true) => "no sample".into(),
        (None, false) => "not exposed".into(),
    }
}

/// A view's frame time as published: the median (p95), or marked flagged with the reasons.
fn frame_cell(t: &Timed) -> String {
    if t.flags.is_empty() {
        format!("{:.3} ({:.3})", t.gpu_median_ms, t.gpu_p95_ms)
    } else {
        format!(
            "**flagged** ({}): {:.3} ({:.3})",
            t.flags.join("; "),
            t.gpu_median_ms,
            t.gpu_p95_ms
        )
    }
}

/// Leaves culled as occluded, and with the cull on, of how many that won no pixel in the frame
/// before (in a still view: the hidden leaves, all an exact cull could leave out); with
/// stamps alone, the unseen leaves `raster.unseen` found hidden behind the image; and the
/// split wishes of leaves that showed nothing refused.
pub fn occlusion_cell(m: &engine::cbt::MeshStats) -> String {
    let kept = if m.hidden_kept > 0 {
        format!("; {} kept from splitting", m.hidden_kept)
    } else {
        String::new()
    };
    if m.early == 0 {
        // Nothing drawn early: no cull ran, or stamps alone, whose hidden leaves are drawn.
        return if m.occluded > 0 {
            format!("{} unseen found hidden{kept}", m.occluded)
        } else {
            format!("0{kept}")
        };
    }
    let hidden = m.drawn.saturating_sub(m.early);
    format!(
        "{} of the {hidden} that won no pixel, {:.1} %{kept}",
        m.occluded,
        100.0 * m.occluded as f64 / hidden.max(1) as f64
    )
}

fn pct(x: f64) -> String {
    format!("{:.3}", 100.0 * x)
}

/// Node names in first-seen order over all views.
fn node_names(views: &[ViewResult]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for n in views.iter().flat_map(|v| &v.nodes) {
        if !names.contains(&n.name) {
            names.push(n.name.clone());
        }
    }
    names
}

/// The benchmark's targets (TERRAIN.md §7b) and whether this run meets them.
fn targets(r: &Report) -> String {
    let mut s = String::from("| target | measured | met |\n|---|---|---|\n");
    let yes = |b: bool| if b { "yes" } else { "**no**" };
    let worst = |f: &dyn Fn(&ViewResult) -> f64| r.views.iter().map(f).fold(0.0, f64::max);
    let frame = worst(&|v| v.timed.gpu_median_ms);
    let flagged = r.views.iter().filter(|v| !v.timed.flags.is_empty()).count();
    let met = if (r.width, r.height) != (1920, 1080) {
        "n/a (size)"
    } else if flagged > 0 {
        "flagged"
    } else {
        yes(frame <= 1.0)
    };
    let _ = writeln!(s, "| frame ≤ 1.0 ms GPU at 1920×1080 in every view | worst median {frame:.3} ms at {}×{}{} | {met} |", r.width, r.height, if flagged > 0 { format!("; {flagged} view(s) flagged") } else { String::new() });
    // The CBT's time over its floor, per view (uploads of the interim CPU mesh included).
    let cbt: Vec<(&str, f64, f64)> = r
        .views
        .iter()
        .filter_map(|v| {
            let cbt = v.nodes.iter().filter(|n| n.name.starts_with("cbt."));
            let (ms, floor) = cbt.fold((0.0, 0.0), |a, n| {
                (a.0 + n.median_ms, a.1 + n.floor_ms.unwrap_or(0.0))
            });
            (floor > 0.0).then_some((v.name.as_str(), v.mesh.high_water as f64, ms / floor))
        })
        .collect();
    // Judged where bandwidth matters: the view with the largest pool (small pools are all
    // dispatch overhead, thousands of times their microsecond floors).
    let largest = cbt.iter().max_by(|a, b| a.1.total_cmp(&b.1));
    let cbt_worst = cbt.iter().map(|c| c.2).fold(0.0, f64::max);
    let _ = match largest {
        Some((name, hw, q)) => writeln!(s, "| CBT update ≤ 2× its bandwidth floor | {q:.1}× at the largest pool ({name}, {hw:.0} entries); worst view {cbt_worst:.0}× | {} |", yes(*q <= 2.0)),
        None => writeln!(s, "| CBT update ≤ 2× its bandwidth floor | no CBT node with a floor | n/a |"),
    };
    let see = worst(&|v| v.score.see_through.max(v.score.covers_sky));
    let _ = writeln!(
        s,
        "| see-through and covers-sky ≤ 0.1 % | worst {} % | {} |",
        pct(see),
        yes(see <= 0.001)
    );
    let sil = worst(&|v| v.score.silhouette_px_p95);
    let _ = writeln!(
        s,
        "| p95 silhouette error ≤ 1 px | worst {sil:.2} px | {} |",
        yes(sil <= 1.0)
    );
    if let Some(v) = r.views.iter().find(|v| v.name == RING_VIEW) {
        let g = &v.rings;
        let _ = writeln!(s, "| HORIZ-01: largest step across a level ring ≤ the surface's own largest step between neighbouring pixels ({RING_VIEW}) | depth {:.2}×, normal {:.2}× over {} rings | {} |", g.worst_depth_ratio, g.worst_normal_ratio, g.rings.len(), yes(g.continuous()));
    }
    if let Some(d) = r.flights.iter().find(|f| f.name == "descent") {
        let _ = writeln!(s, "| pop max ≤ 1 px per frame during the descent | max {:.2} px ({} of {} frames over 1 px) | {} |", d.max_px, d.frames_over_1px, d.frames, yes(d.max_px <= 1.0));
    }
    if let Some(t) = &r.teleport {
        let _ = writeln!(
            s,
            "| settle ≤ 1 s after a teleport | {:.2} s to settled, {:.2} s to a still image | {} |",
            t.seconds_to_settled,
            t.seconds_to_still,
            yes(t.settled && t.seconds_to_settled.max(t.seconds_to_still) <= 1.0)
        );
    }
    s
}

pub fn render(r: &Report) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# planetfall bench — {}\n", r.device);
    let validation = if r.validation.enabled {
        format!("on, {} messages", r.validation.messages)
    } else {
        "off".into()
    };
    let (warmup, in_flight) = r
        .views
        .first()
        .map_or((0, 0), |v| (v.timed.warmup, v.timed.frames_in_flight));
    let _ = writeln!(s, "- command: `{}`\n- commit: {}\n- validation: {validation}\n- publish: {}{}\n- driver: {}\n- scene: {}, {}×{}, {} timed frames per view after {warmup} warm-up frames, {in_flight} in flight, frame time from one timestamp pair per frame{}\n- run: {:.1} s; tiles prepared on every core before the views: {} in {:.1} s\n", r.command, r.commit, r.publish, if r.skips.is_empty() { String::new() } else { format!("\n- **skipped, to time their cost (the images are wrong by design): {}**", r.skips) }, r.driver, r.scene, r.width, r.height, r.timed_frames, if r.quick { " (--quick)" } else { "" }, r.wall_s, r.prefetch_tiles, r.prefetch_s);
    let l = &r.limits;
    let _ = writeln!(
        s,
        "## Limits\n\n| probe | bytes | GPU ms | rate |\n|---|---|---|---|"
    );
    let _ = writeln!(
        s,
        "| device copy, vkCmdCopyBuffer (read + write) | {} | {:.4} | {:.1} GB/s |",
        l.copy_bytes, l.copy_ms, l.transfer_gbps
    );
    let _ = writeln!(
        s,
        "| device copy, compute uvec4 (read + write) | {} | {:.4} | {:.1} GB/s |",
        l.compute_copy_bytes, l.compute_copy_ms, l.compute_gbps
    );
    let _ = writeln!(
        s,
        "| floors' bandwidth (the faster) | | | {:.1} GB/s |",
        l.device_gbps
    );
    let _ = writeln!(
        s,
        "| host → device copy | {} | {:.4} | {:.1} GB/s |\n",
        l.upload_bytes, l.upload_ms, l.upload_gbps
    );

    let _ = writeln!(s, "## Targets\n\n{}", targets(r));

    let _ = writeln!(s, "## Views: preparation, steady state, mesh\n");
    let _ = writeln!(s, "| view | alt m | setup ms | first frame ms (GPU) | settled: frames / s | still: frames / s | GPU ms median (p95) | wall ms / frame | SM clock | leaves | drawn (occluded) | high water | it | tiles res/wanted |");
    let _ = writeln!(
        s,
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    );
    for v in &r.views {
        let st = &v.settle;
        let _ = writeln!(
            s,
            "| {} | {:.0} | {:.1} | {:.1} ({:.3}) | {}{} / {:.2} | {} / {:.2} | {} | {:.3} | {} | {} | {} ({}) | {} | {} | {}/{} |",
            v.name, v.alt_m, v.setup_ms, v.first_frame_ms, v.first_frame_gpu_ms, st.frames_to_settled, if st.settled { "" } else { " (cap)" }, st.seconds_to_settled,
            st.frames_to_still, st.seconds_to_still, frame_cell(&v.timed), v.timed.wall_per_frame_ms, clock_cell(&v.timed), v.mesh.leaves, v.mesh.drawn, occlusion_cell(&v.mesh), v.mesh.high_water, v.mesh.iterations,
            v.tiles.resident, v.tiles.wanted
        );
    }

    host_stages(&mut s, r);

    let names = node_names(&r.views);
    let _ = writeln!(s, "\n## GPU ms per node (median of the timed frames)\n");
    if names.is_empty() {
        let _ = writeln!(
            s,
            "Not measured: run with `--per-node` (a second timed pass with timestamps around every node).\n"
        );
    } else {
        let _ = writeln!(s, "From the `--per-node` pass: a timestamp pair around every node serialises them, so a node's time includes its boundary and the frame (span of the nodes; sum of the nodes) exceeds the frame-mode time above.\n");
    }
    let _ = writeln!(
        s,
        "| view | frame (frame mode) | per-node span (sum) | {} |",
        names.join(" | ")
    );
    let _ = writeln!(s, "|---|---|---|{}", "---|".repeat(names.len()));
    for v in &r.views {
        let cells: Vec<String> = names
            .iter()
            .map(|n| {
                v.nodes
                    .iter()
                    .find(|x| &x.name == n)
                    .map(|x| format!("{:.4}", x.median_ms))
                    .unwrap_or_else(|| "-".into())
            })
            .collect();
        let pass = v.timed.per_node.as_ref().map_or("-".into(), |p| {
            format!("{:.4} ({:.4})", p.span_median_ms, p.sum_median_ms)
        });
        let _ = writeln!(
            s,
            "| {} | {:.4} | {pass} | {} |",
            v.name,
            v.timed.gpu_median_ms,
            cells.join(" | ")
        );
    }
    if let Some(row) = crate::pipeline_stats::register_row(&r.pipelines, &names) {
        let _ = writeln!(s, "{row}");
    }

    let floored: Vec<&String> = names
        .iter()
        .filter(|n| {
            r.views
                .iter()
                .flat_map(|v| &v.nodes)
                .any(|x| &x.name == *n && x.floor_ms.is_some())
        })
        .collect();
    let _ = writeln!(s, "\n## Floors: node ms / floor ms (ratio)\n");
    let _ = writeln!(
        s,
        "| view | triangles | grid ms (Mtri/s) | {} |",
        floored
            .iter()
            .map(|n| n.as_str())
            .collect::<Vec<_>>()
            .join(" | ")
    );
    let _ = writeln!(s, "|---|---|---|{}", "---|".repeat(floored.len()));
    for v in &r.views {
        let cells: Vec<String> = floored
            .iter()
            .map(|n| match v.nodes.iter().find(|x| &x.name == *n) {
                Some(x) => match (x.floor_ms, x.ratio()) {
                    (Some(f), Some(q)) => format!("{:.4} / {:.4} ({:.1}×)", x.median_ms, f, q),
                    _ => "-".into(),
                },
                None => "-".into(),
            })
            .collect();
        let rf = &v.raster_floor;
        let _ = writeln!(
            s,
            "| {} | {} | {:.4} ({:.1}) | {} |",
            v.name,
            rf.triangles,
            rf.grid_ms,
            rf.tris_per_s * 1e-6,
            cells.join(" | ")
        );
    }
    let _ = writeln!(s, "\nBytes per node (estimates, see docs/bench.md):\n");
    for n in &floored {
        if let Some(x) = r
            .views
            .iter()
            .flat_map(|v| &v.nodes)
            .find(|x| &x.name == *n)
        {
            let _ = writeln!(s, "- `{}`: {}", x.name, x.floor_basis);
        }
    }

    let _ = writeln!(
        s,
        "\n## Accuracy against the CPU reference (settled frame)\n"
    );
    let _ = writeln!(s, "| view | terrain % | see-through % | covers-sky % | depth rel median | depth rel p95 | silhouette px median | silhouette px p95 | isolated % | incoherent % | non-finite | reference ms |");
    let _ = writeln!(s, "|---|---|---|---|---|---|---|---|---|---|---|---|");
    for v in &r.views {
        let a = &v.score;
        let _ = writeln!(
            s,
            "| {} | {:.1}{} | {} | {} | {:.2e} | {:.2e} | {:.2} | {:.2} | {} | {} | {} | {:.0} |",
            v.name,
            100.0 * a.terrain,
            if a.measured_nothing {
                " **measured nothing**"
            } else {
                ""
            },
            pct(a.see_through),
            pct(a.covers_sky),
            a.depth_rel_median,
            a.depth_rel_p95,
            a.silhouette_px_median,
            a.silhouette_px_p95,
            pct(a.isolated),
            pct(a.incoherent),
            a.non_finite,
            v.reference_ms
        );
    }

    s += &walks(r);
    s += &rings(r);

    let _ = writeln!(s, "\n## Pop and settling\n");
    let _ = writeln!(s, "| flight | frames | max px | worst frame | max p99 px | median frame max px | frames > 1 px | most points > 1 px in a frame | coverage changes | wall s |");
    let _ = writeln!(s, "|---|---|---|---|---|---|---|---|---|---|");
    for f in &r.flights {
        let _ = writeln!(
            s,
            "| {} | {} | {:.3} | {} | {:.3} | {:.3} | {} | {} | {} | {:.1} |",
            f.name,
            f.frames,
            f.max_px,
            f.worst_frame,
            f.p99_max_px,
            f.frame_max_median_px,
            f.frames_over_1px,
            f.max_points_over_1px,
            f.coverage_changed,
            f.wall_s
        );
    }
    for f in &r.flights {
        let _ = writeln!(s, "\n- {}: {}", f.name, f.description);
        for (k, p) in f.per_frame.iter().enumerate() {
            if let Some(x) = &p.reference {
                let _ = writeln!(
                    s,
                    "  - frame {}: pop max / p99 {:.3} / {:.3} px; the CPU reference's {:.3} / {:.3}, and on a surface that does not move (the metric's floor) {:.3} / {:.3}; the renderer's over the floor point by point {:.3} / {:.3}",
                    k + 1, p.max_px, p.p99_px, x.max_px, x.p99_px, x.floor_max_px, x.floor_p99_px, x.excess_max_px, x.excess_p99_px
                );
            }
        }
    }
    if let Some(t) = &r.teleport {
        let _ = writeln!(
            s,
            "- teleport{} (fresh renderer, warm store): settled after {} frames / {:.2} s{}, image still after {} frames / {:.2} s",
            r.readiness.as_ref().map_or(String::new(), |rd| format!(" {}", rd.teleport)),
            t.frames_to_settled, t.seconds_to_settled, if t.settled { "" } else { " (cap hit, not settled)" }, t.frames_to_still, t.seconds_to_still
        );
    }
    if let Some(rd) = &r.readiness {
        s += &readiness(rd);
    }
    s += &crate::pipeline_stats::markdown(&r.pipelines, r.pipeline_stats_asked);
    s
}

/// The "## Surface walks" section: what `publish.resolve` did per pixel of the settled frame,
/// and per warp, whose lanes run until the slowest is done.
fn walks(r: &Report) -> String {
    let mut s = String::from("\n## Surface walks in `publish.resolve` (settled frame)\n\nWalks (locate + blended chain) per terrain pixel: the chord point's, the root search's steps, the ocean test's. A warp (8×4 px) runs as long as its slowest pixel: \"warp\" is the mean over warps holding terrain of their slowest pixel's walks, and its ratio to the mean is the divergence.\n\n");
    let _ = writeln!(s, "| view | mean | p95 | max | warp | warp / mean |");
    let _ = writeln!(s, "|---|---|---|---|---|---|");
    for v in r.views.iter().filter(|v| v.walks.mean > 0.0) {
        let w = &v.walks;
        let _ = writeln!(
            s,
            "| {} | {:.2} | {} | {} | {:.2} | {:.2} |",
            v.name,
            w.mean,
            w.p95,
            w.max,
            w.warp_max_mean,
            w.warp_max_mean / w.mean
        );
    }
    s
}

fn steps(s: &super::rings::Steps) -> String {
    format!("{:.3} ({:.3}, {:.3})", s.max, s.p95, s.median)
}

/// The view the HORIZ-01 target is judged in: 2 m over a salt flat, looking at the horizon.
pub const RING_VIEW: &str = "uyuni-2m-p0";

/// The "## Level rings" section: per view and ring, where it lies and its steps against the
/// surface's own across control crossings without a level change (rings.rs).
fn rings(r: &Report) -> String {
    let mut s = String::from("\n## Level rings (HORIZ-01)\n\nAlong image columns: the depth step (px the surface's image moves) and the normal step (degrees) across each ring, against the same of control pairs (no level change, distance crossing lc = k ± ¼, ½, ¾ within a level of the ring), both over pairs whose distances lie within a quarter level; ratio = ring max / control max, ≤ 1 within the surface's own variation. Large: the share of pairs over a quarter level at the ring and at its control points.\n\n");
    let _ = writeln!(s, "| view | ring (levels) | columns | rows median (min–max) | large ring / control | depth px max (p95, median) | control depth px max (p95, median) | ratio | normal ° max (p95, median) | control normal ° max (p95, median) | ratio |");
    let _ = writeln!(s, "|---|---|---|---|---|---|---|---|---|---|---|");
    for v in r.views.iter().filter(|v| !v.rings.rings.is_empty()) {
        for g in &v.rings.rings {
            let cols = g.rows.iter().filter(|r| r.is_some()).count();
            let _ =
                writeln!(
                s,
                "| {} | {}\\|{} | {} | {:.1} ({:.1}–{:.1}) | {:.2} / {:.2} | {} | {} | {:.2} | {} | {} | {:.2} |",
                v.name, g.coarse, g.fine, cols, g.row_median, g.row_min, g.row_max, g.large_share, g.control_large_share,
                steps(&g.depth_px), steps(&g.control_depth_px), g.depth_ratio,
                steps(&g.normal_deg), steps(&g.control_normal_deg), g.normal_ratio
            );
        }
    }
    s
}

fn opt(x: Option<f64>) -> String {
    x.map_or("-".into(), |v| format!("{v:.1}"))
}

/// The "## Readiness" section (docs/bench.md, "Readiness").
fn readiness(rd: &Readiness) -> String {
    let mut s =
        format!(
        "\n## Readiness\n\nFlights on a {} store, frames that never wait (60 Hz flight clock).\n\n",
        if rd.cold_store { "fresh, cold" } else { "prefetched" }
    );
    let _ = writeln!(s, "| flight | frames | frames waited | frames missing a level | finest level waited: frames / s at 60 Hz / s wall | hold frames | host ms median / p95 / max | GPU tile budget ms median / max (tile cap bound) |");
    let _ = writeln!(s, "|---|---|---|---|---|---|---|---|");
    for f in &rd.flights {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} / {:.2} / {:.2}{} | {} | {:.1} / {:.1} / {:.1} | {} |",
            f.name,
            f.frames,
            f.frames_waited,
            f.missing_level_frames,
            f.finest_wait_frames,
            f.finest_wait_clock_s,
            f.finest_wait_wall_s,
            if f.finest_reached {
                ""
            } else {
                " (not reached)"
            },
            f.hold_frames,
            f.host_ms.median,
            f.host_ms.p95,
            f.host_ms.max,
            match &f.tile_budget {
                Some(b) => format!(
                    "{:.1} / {:.1} ({} frames)",
                    b.ms.median, b.ms.max, b.tile_cap_frames
                ),
                None => "– (CPU workers)".to_string(),
            }
        );
    }
    let h = &rd.host_ms;
    let _ = writeln!(
        s,
        "| **all** | {} | {} | {} | | | {:.1} / {:.1} / {:.1} | |\n",
        rd.flights.iter().map(|f| f.frames).sum::<u32>(),
        rd.frames_waited,
        rd.missing_level_frames,
        h.median,
        h.p95,
        h.max
    );
    let t = &rd.teleport_still_s;
    let _ = writeln!(
        s,
        "- teleport {} to a still image (fresh renderer): cold store {:.2} s ({} frames), warm store {:.2} s ({} frames)",
        rd.teleport,
        t.cold, rd.teleport_cold.frames_to_still, t.warm, rd.teleport_warm.frames_to_still
    );
    let sp = &rd.supply_tiles_per_s;
    let _ = writeln!(
        s,
        "- supply while the feed had a backlog ({}): derived {} tiles/s, stored {} tiles/s, amplified {} tiles/s",
        if rd.feed_maker.is_empty() { "CPU workers" } else { &rd.feed_maker },
        opt(sp.derived),
        opt(sp.stored),
        opt(sp.amplified)
    );
    let g = &rd.tile_gpu_ms;
    let _ = writeln!(
        s,
        "- GPU ms per flight frame making tiles (`tiles.*` nodes): median {:.3}, p95 {:.3}, max {:.3}",
        g.median, g.p95, g.max
    );
    let e = &rd.sustainable;
    let _ = writeln!(
        s,
        "- feed envelope at {} m clearance, {:.3} mrad/px: demand derived {} / stored {} / amplified {} tiles/km; sustainable lateral speed derived {} / stored {} / amplified {} m/s; binding: {}",
        e.clearance_m,
        e.pixel_angle * 1e3,
        opt(e.demand_tiles_per_km.derived),
        opt(e.demand_tiles_per_km.stored),
        opt(e.demand_tiles_per_km.amplified),
        opt(e.speed_m_s.derived),
        opt(e.speed_m_s.stored),
        opt(e.speed_m_s.amplified),
        e.binding.as_deref().unwrap_or("none (no supply figure)")
    );
    s
}

/// Host ms per frame by stage (docs/bench.md "Host time per frame").
fn host_stages(s: &mut String, r: &Report) {
    let Some(stages) = r.views.iter().find(|v| !v.timed.host_stages.is_empty()) else {
        return;
    };
    let names: Vec<&str> = stages
        .timed
        .host_stages
        .iter()
        .map(|x| x.stage.as_str())
        .collect();
    let _ = writeln!(
        s,
        "\n## Host ms per frame by stage (median of the timed frames)\n"
    );
    let _ = writeln!(s, "`busy` is the host's own work, every stage but `wait` (the frame slot's fence: the only wait on the GPU in the loop); with frames in flight the wall per frame is about the larger of `busy` and the GPU frame.\n");
    let _ = writeln!(
        s,
        "| view | wall ms / frame | busy median (p95) | {} |",
        names.join(" | ")
    );
    let _ = writeln!(s, "|---|---|---|{}", "---|".repeat(names.len()));
    for v in &r.views {
        let t = &v.timed;
        let cells: Vec<String> = names
            .iter()
            .map(|n| {
                t.host_stages
                    .iter()
                    .find(|x| x.stage == *n)
                    .map(|x| format!("{:.3}", x.median_ms))
                    .unwrap_or_default()
            })
            .collect();
        let _ = writeln!(
            s,
            "| {} | {:.3} | {:.3} ({:.3}) | {} |",
            v.name,
            t.wall_per_frame_ms,
            t.host_busy_median_ms,
            t.host_busy_p95_ms,
            cells.join(" | ")
        );
    }
}

#[cfg(test)]
mod tests {
    use engine::cbt::MeshStats;

    #[test]
    fn the_occlusion_cell_names_the_cull_against_the_hidden_leaves() {
        let off = MeshStats {
            drawn: 1000,
            ..Default::default()
        };
        assert_eq!(super::occlusion_cell(&off), "0");
        // 1,000 drawn, 600 won a pixel last frame: 400 hidden, 300 of them culled.
        let on = MeshStats {
            drawn: 1000,
            early: 600,
            occluded: 300,
            ..Default::default()
        };
        assert_eq!(
            super::occlusion_cell(&on),
            "300 of the 400 that won no pixel, 75.0 %"
        );
        let kept = MeshStats {
            hidden_kept: 12,
            ..on
        };
        assert_eq!(
            super::occlusion_cell(&kept),
            "300 of the 400 that won no pixel, 75.0 %; 12 kept from splitting"
        );
        // Stamps without the cull: nothing drawn early, nothing culled, wishes refused.
        let stamped = MeshStats {
            hidden_kept: 12,
            ..off
        };
        assert_eq!(super::occlusion_cell(&stamped), "0; 12 kept from splitting");
        let found = MeshStats {
            occluded: 7,
            ..stamped
        };
        assert_eq!(
            super::occlusion_cell(&found),
            "7 unseen found hidden; 12 kept from splitting"
        );
    }
}
