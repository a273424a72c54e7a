//! Medians, percentiles and per-node aggregation of GPU timestamps over timed frames.

use super::frame::is_frame_node;
use framegraph::exec::timing::NodeTime;

/// The `p` quantile (0–1) by nearest rank of a copy of `v`; 0 for an empty slice.
pub fn quantile(v: &[f64], p: f64) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    let mut s = v.to_vec();
    let k = ((s.len() - 1) as f64 * p).round() as usize;
    *s.select_nth_unstable_by(k, |a, b| a.total_cmp(b)).1
}

pub fn median(v: &[f64]) -> f64 {
    quantile(v, 0.5)
}

/// One frame's GPU time per node name (a node recorded several times — the CBT's
/// iterations — is summed) in first-execution order, the renderer's nodes only.
pub fn per_node(times: &[NodeTime]) -> Vec<(String, f64, u32)> {
    let mut out: Vec<(String, f64, u32)> = Vec::new();
    for t in times.iter().filter(|t| is_frame_node(&t.name)) {
        match out.iter_mut().find(|(n, _, _)| *n == t.name) {
            Some(e) => {
                e.1 += t.duration_ms;
                e.2 += 1;
            }
            None => out.push((t.name.clone(), t.duration_ms, 1)),
        }
    }
    out
}

/// GPU time of a frame: from the first renderer node's start to the last one's end (ms), and
/// the sum of the renderer's node durations (equal when nothing overlaps).
pub fn frame_span(times: &[NodeTime]) -> (f64, f64) {
    let nodes: Vec<&NodeTime> = times.iter().filter(|t| is_frame_node(&t.name)).collect();
    let start = nodes
        .iter()
        .map(|t| t.start_ms)
        .fold(f64::INFINITY, f64::min);
    let end = nodes
        .iter()
        .map(|t| t.start_ms + t.duration_ms)
        .fold(f64::NEG_INFINITY, f64::max);
    let sum = nodes.iter().map(|t| t.duration_ms).sum();
    if nodes.is_empty() {
        (0.0, 0.0)
    } else {
        (end - start, sum)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(name: &str, start_ms: f64, duration_ms: f64) -> NodeTime {
        NodeTime {
            name: name.into(),
            start_ms,
            duration_ms,
        }
    }

    #[test]
    fn quantiles_and_node_sums() {
        let v = [5.0, 1.0, 3.0, 2.0, 4.0];
        assert_eq!(
            (median(&v), quantile(&v, 0.0), quantile(&v, 1.0)),
            (3.0, 1.0, 5.0)
        );
        assert_eq!(quantile(&[], 0.95), 0.0);
        let times = [
            t("cbt.eval", 0.0, 1.0),
            t("raster.hardware", 1.0, 2.0),
            t("cbt.eval", 3.0, 0.5),
            t("readback.bench.aov", 3.5, 9.0),
        ];
        let n = per_node(&times);
        assert_eq!(
            n,
            vec![
                ("cbt.eval".to_string(), 1.5, 2),
                ("raster.hardware".to_string(), 2.0, 1)
            ]
        );
        assert_eq!(frame_span(&times), (3.5, 3.5));
    }
}
