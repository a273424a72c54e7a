//! Timing: puffin CPU scopes while recording, GPU timestamps (around the frame always, and
//! around each node's commands in [`TimingMode::PerNode`]), GPU durations reported to puffin on
//! a "GPU" thread, and the crash marker.
//!
//! Holds [`TimingMode`], [`NodeTime`], [`ScopeIds`], [`CpuScope`], [`node_times`],
//! [`span_ms`], [`report_gpu`] and [`crash_marker`].

use puffin::{GlobalProfiler, ScopeDetails, ScopeId, StreamInfo, ThreadInfo};
use std::collections::HashMap;

/// Which GPU timestamps a frame writes. Both modes write one pair around the frame's work on
/// the main queue (the frame span); `PerNode` adds a pair around every node.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TimingMode {
    /// A pair per node (puffin's GPU view, per-node tables, the crash marker). Each timestamp
    /// is taken at ALL_COMMANDS, so a node cannot overlap its neighbours: on an H200 that
    /// cost 4–8 µs per node boundary, 0.26–0.45 ms in a 74-node frame.
    #[default]
    PerNode,
    /// The frame span only: nodes overlap as their barriers allow, as in a frame nobody times.
    Frame,
}

/// One node's GPU time in a finished frame.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeTime {
    pub name: String,
    /// Start relative to the frame's first timestamp, milliseconds.
    pub start_ms: f64,
    pub duration_ms: f64,
}

/// Scope ids registered once per name (registering every frame would leak in puffin).
#[derive(Default)]
pub struct ScopeIds {
    ids: HashMap<String, ScopeId>,
}

impl ScopeIds {
    pub fn get(&mut self, name: &str) -> ScopeId {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let details = ScopeDetails::from_scope_name(name.to_string()).with_file("framegraph");
        let id = GlobalProfiler::lock().register_user_scopes(&[details])[0];
        self.ids.insert(name.to_string(), id);
        id
    }
}

/// A puffin CPU scope on the calling thread for a dynamically named node.
pub struct CpuScope {
    start: Option<usize>,
}

impl CpuScope {
    pub fn begin(ids: &mut ScopeIds, name: &str) -> CpuScope {
        if !puffin::are_scopes_on() {
            return CpuScope { start: None };
        }
        let id = ids.get(name);
        let start = puffin::ThreadProfiler::call(|tp| tp.begin_scope(id, ""));
        CpuScope { start: Some(start) }
    }
}

impl Drop for CpuScope {
    fn drop(&mut self) {
        if let Some(s) = self.start.take() {
            puffin::ThreadProfiler::call(|tp| tp.end_scope(s));
        }
    }
}

/// Turn raw timestamp pairs into node times. `ticks[i] = (begin, end)` with availability;
/// nodes without both timestamps are skipped.
pub fn node_times(
    names: &[String],
    ticks: &[Option<(u64, u64)>],
    period_ns: f64,
    valid_bits: u32,
) -> Vec<NodeTime> {
    let mask = if valid_bits >= 64 {
        u64::MAX
    } else {
        (1u64 << valid_bits) - 1
    };
    let first = ticks
        .iter()
        .flatten()
        .map(|(b, _)| b & mask)
        .min()
        .unwrap_or(0);
    names
        .iter()
        .zip(ticks)
        .filter_map(|(n, t)| {
            let (b, e) = (*t)?;
            let (b, e) = (b & mask, e & mask);
            Some(NodeTime {
                name: n.clone(),
                start_ms: b.wrapping_sub(first) as f64 * period_ns * 1e-6,
                duration_ms: e.wrapping_sub(b) as f64 * period_ns * 1e-6,
            })
        })
        .collect()
}

/// Milliseconds between two raw timestamps, of which `valid_bits` are valid (the counter
/// wraps at 2^valid_bits).
pub fn span_ms(begin: u64, end: u64, period_ns: f64, valid_bits: u32) -> f64 {
    let mask = if valid_bits >= 64 {
        u64::MAX
    } else {
        (1u64 << valid_bits) - 1
    };
    ((end & mask).wrapping_sub(begin & mask) & mask) as f64 * period_ns * 1e-6
}

/// Report a finished frame's GPU node times to puffin on the "GPU" thread, as durations at
/// their offsets from `anchor_ns` (the CPU time the frame was submitted).
pub fn report_gpu(ids: &mut ScopeIds, times: &[NodeTime], anchor_ns: i64, frame: u64) {
    if !puffin::are_scopes_on() || times.is_empty() {
        return;
    }
    let mut stream = puffin::Stream::default();
    let data = format!("frame {frame}");
    let mut range = (i64::MAX, i64::MIN);
    for t in times {
        let id = ids.get(&t.name);
        let start = anchor_ns + (t.start_ms * 1e6) as i64;
        let stop = start + (t.duration_ms * 1e6).max(1.0) as i64;
        let (offset, _) = stream.begin_scope(|| start, id, &data);
        stream.end_scope(offset, stop);
        range = (range.0.min(start), range.1.max(stop));
    }
    let info = StreamInfo {
        stream,
        num_scopes: times.len(),
        depth: 1,
        range_ns: range,
    };
    GlobalProfiler::lock().report_user_scopes(
        ThreadInfo {
            start_time_ns: None,
            name: "GPU".into(),
        },
        &info.as_stream_into_ref(),
    );
}

/// Crash marker: from the timestamps a lost device managed to write, the first node that
/// began and did not end (or, if none, the first that never began), and the last that ended.
pub fn crash_marker(names: &[String], began: &[bool], ended: &[bool]) -> (String, String) {
    let last_completed = (0..names.len())
        .rev()
        .find(|&i| ended[i])
        .map(|i| names[i].clone())
        .unwrap_or_else(|| "(none)".into());
    let culprit = (0..names.len())
        .find(|&i| began[i] && !ended[i])
        .or_else(|| (0..names.len()).find(|&i| !began[i]))
        .map(|i| names[i].clone())
        .unwrap_or_else(|| "(after the last node)".into());
    (culprit, last_completed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_times_are_offsets_from_the_first_timestamp() {
        let names = vec!["a".to_string(), "b".to_string(), "c".to_string()];
        let t = node_times(
            &names,
            &[Some((1000, 1500)), None, Some((2000, 2600))],
            2.0,
            64,
        );
        assert_eq!(t.len(), 2);
        assert_eq!(t[0].start_ms, 0.0);
        assert!((t[0].duration_ms - 0.001).abs() < 1e-12);
        assert!((t[1].start_ms - 0.002).abs() < 1e-12);
    }

    #[test]
    fn spans_wrap_at_the_valid_bits() {
        assert!((span_ms(100, 600, 2.0, 64) - 0.001).abs() < 1e-12);
        // A 36-bit counter that wrapped between the two timestamps: 16 ticks apart.
        let top = (1u64 << 36) - 6;
        assert!((span_ms(top, 10, 1.0, 36) - 16e-6).abs() < 1e-15);
    }

    #[test]
    fn crash_marker_names_the_node_in_flight() {
        let names: Vec<String> = ["cbt.eval", "cbt.decide", "raster.hardware"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let (culprit, done) = crash_marker(&names, &[true, true, false], &[true, false, false]);
        assert_eq!(
            (culprit.as_str(), done.as_str()),
            ("cbt.decide", "cbt.eval")
        );
        let (culprit, done) = crash_marker(&names, &[false, false, false], &[false, false, false]);
        assert_eq!((culprit.as_str(), done.as_str()), ("cbt.eval", "(none)"));
    }
}
