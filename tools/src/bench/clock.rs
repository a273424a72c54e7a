//! The GPU's SM clock during the timed frames, where the platform exposes it, and the rule
//! that flags a view whose timings cannot be published as plain medians.
//!
//! On NVIDIA, `nvidia-smi` runs as a child for the whole benchmark, printing the SM clock and
//! its maximum every 50 ms; a reader thread stamps each line with the host clock as it
//! arrives, and each view takes the samples that fell inside its timed loop. One child for the
//! run rather than one per loop: `nvidia-smi` takes longer to start than a 1 ms-per-frame loop
//! lasts. Without `nvidia-smi` (lavapipe, other vendors) the clock is "not exposed".

use serde::{Deserialize, Serialize};
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Sampling interval, ms: short enough that a 0.3 s loop (300 frames at 1 ms) gets several
/// samples.
const SAMPLE_MS: u32 = 50;
/// A sample below this share of the maximum SM clock is "not at full clock".
pub const FULL_CLOCK: f64 = 0.9;
/// A view is flagged when more than this share of its samples is below full clock…
pub const MIXED_SHARE: f64 = 0.05;
/// …or when its p95 frame exceeds this multiple of its median.
pub const SPREAD: f64 = 1.5;

/// One sample: when it arrived, SM clock and its maximum (MHz).
type Sample = (Instant, f64, f64);

/// The running `nvidia-smi` child and what it has printed so far.
pub struct ClockSampler {
    child: Option<Child>,
    samples: Arc<Mutex<Vec<Sample>>>,
}

/// The SM clock over one view's timed frames.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct ClockStats {
    pub samples: usize,
    pub median_mhz: f64,
    pub min_mhz: f64,
    pub max_mhz: f64,
    /// The device's maximum SM clock as `nvidia-smi` reports it.
    pub rated_max_mhz: f64,
    /// Share of the samples below `FULL_CLOCK` × the rated maximum.
    pub below_full: f64,
}

/// Parse one line of `--query-gpu=clocks.sm,clocks.max.sm --format=csv,noheader,nounits`
/// ("1980, 1980"); the first GPU's line when there are several.
pub fn parse_line(line: &str) -> Option<(f64, f64)> {
    let mut it = line.split(',').map(|f| f.trim().parse::<f64>());
    match (it.next(), it.next()) {
        (Some(Ok(sm)), Some(Ok(max))) if sm > 0.0 && max > 0.0 => Some((sm, max)),
        _ => None,
    }
}

impl ClockSampler {
    /// Start `nvidia-smi` if it is on PATH; otherwise a sampler that reports "not exposed".
    pub fn start() -> ClockSampler {
        let samples = Arc::new(Mutex::new(Vec::new()));
        let child = Command::new("nvidia-smi")
            .args([
                "--query-gpu=clocks.sm,clocks.max.sm",
                "--format=csv,noheader,nounits",
                "-lms",
                &SAMPLE_MS.to_string(),
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn();
        let mut child = match child {
            Ok(c) => c,
            Err(_) => {
                return ClockSampler {
                    child: None,
                    samples,
                }
            }
        };
        if let Some(out) = child.stdout.take() {
            let sink = samples.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(out).lines() {
                    let Ok(line) = line else { break };
                    if let Some((sm, max)) = parse_line(&line) {
                        if let Ok(mut s) = sink.lock() {
                            s.push((Instant::now(), sm, max));
                        }
                    }
                }
            });
        }
        ClockSampler {
            child: Some(child),
            samples,
        }
    }

    /// Whether the platform exposes the clock (the child started).
    pub fn exposed(&self) -> bool {
        self.child.is_some()
    }

    /// Statistics of the samples that arrived between `from` and `to` (None: not exposed, or
    /// no sample in the window).
    pub fn window(&self, from: Instant, to: Instant) -> Option<ClockStats> {
        let s = self.samples.lock().ok()?;
        let w: Vec<(f64, f64)> = s
            .iter()
            .filter(|(t, _, _)| *t >= from && *t <= to)
            .map(|&(_, sm, max)| (sm, max))
            .collect();
        stats(&w)
    }

    /// Stop the child.
    pub fn stop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

impl Drop for ClockSampler {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Median, range and the share below full clock of (SM, max) samples.
pub fn stats(samples: &[(f64, f64)]) -> Option<ClockStats> {
    if samples.is_empty() {
        return None;
    }
    let sm: Vec<f64> = samples.iter().map(|s| s.0).collect();
    let rated = samples.iter().map(|s| s.1).fold(0.0, f64::max);
    let below = sm.iter().filter(|&&c| c < FULL_CLOCK * rated).count();
    Some(ClockStats {
        samples: sm.len(),
        median_mhz: super::stats::median(&sm),
        min_mhz: sm.iter().copied().fold(f64::INFINITY, f64::min),
        max_mhz: sm.iter().copied().fold(0.0, f64::max),
        rated_max_mhz: rated,
        below_full: below as f64 / sm.len() as f64,
    })
}

/// Why a view's timings are not publishable as plain medians (empty: they are): its clock
/// samples mix clock states, or its frames spread too far.
pub fn flags(clock: Option<&ClockStats>, median_ms: f64, p95_ms: f64) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(c) = clock {
        if c.below_full > MIXED_SHARE {
            out.push(format!(
                "mixed clocks: {:.0} % of {} samples below {:.0} % of {:.0} MHz",
                100.0 * c.below_full,
                c.samples,
                100.0 * FULL_CLOCK,
                c.rated_max_mhz
            ));
        }
    }
    if p95_ms > SPREAD * median_ms {
        out.push(format!(
            "spread: p95 {p95_ms:.3} ms > {SPREAD}× median {median_ms:.3} ms"
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_parse_and_junk_does_not() {
        assert_eq!(parse_line("1980, 1980"), Some((1980.0, 1980.0)));
        assert_eq!(parse_line(" 345 , 1980 "), Some((345.0, 1980.0)));
        assert_eq!(parse_line("[N/A], 1980"), None);
        assert_eq!(parse_line(""), None);
    }

    #[test]
    fn a_view_is_flagged_for_mixed_clocks_or_spread() {
        // 20 samples at full clock, then one at idle: 1/21 = 4.8 % below, under 5 %.
        let mut s = vec![(1980.0, 1980.0); 20];
        s.push((345.0, 1980.0));
        let c = stats(&s).unwrap();
        assert_eq!((c.samples, c.min_mhz, c.max_mhz), (21, 345.0, 1980.0));
        assert!((c.below_full - 1.0 / 21.0).abs() < 1e-12);
        assert!(
            flags(Some(&c), 1.0, 1.5).is_empty(),
            "p95 = 1.5× is allowed"
        );
        // A second idle sample: 2/22 = 9 % below full clock.
        s.push((345.0, 1980.0));
        let c = stats(&s).unwrap();
        let f = flags(Some(&c), 1.0, 1.2);
        assert_eq!(f.len(), 1);
        assert!(f[0].starts_with("mixed clocks: 9 %"), "{f:?}");
        // 90 % of 1,980 MHz is 1,782 MHz: 1,800 is at full clock, 1,700 is not.
        let c = stats(&[(1800.0, 1980.0), (1700.0, 1980.0)]).unwrap();
        assert_eq!((c.below_full, c.median_mhz), (0.5, 1800.0));
        // Spread alone, without a clock (not exposed).
        let f = flags(None, 1.0, 1.51);
        assert_eq!(f.len(), 1);
        assert!(f[0].starts_with("spread"), "{f:?}");
        assert!(flags(None, 1.0, 1.0).is_empty());
        assert!(stats(&[]).is_none());
    }
}
