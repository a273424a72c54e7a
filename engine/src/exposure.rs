//! Exposure (docs/atmosphere.md, "Exposure"): the display value per unit of luminance that
//! `shade.terrain` applies before the tonemap, fixed or adapted to the image.
//!
//! Auto exposure measures what the eye would: `shade.terrain` sums log2 luminance over the
//! pixels it tonemaps (black space and the night side left out), and `exposure.adapt`, before
//! the next frame's shading, sets the exposure that puts that geometric mean at the key, within
//! ±`range_ev` stops of the default, approached with a time constant. A fixed exposure is the
//! same node writing the given value. One small buffer persists across frames.

use framegraph::{BufferDesc, BufferRef, Context, GpuBuffer, Graph};

/// The exposure when none is set, and auto exposure's start: display value per unit of the
/// atmosphere's relative luminance (the sun's illuminance is 1).
pub const DEFAULT_EXPOSURE: f64 = 5.0;
/// Auto exposure's key: the display value (before the tonemap) the scene's geometric mean
/// luminance is mapped to. Calibrated so that the open sea from 2 km with the sun 20° high
/// behind the camera, which measures a geometric mean of 2^−5.50
/// (`tests/tests/atmosphere_render.rs`), keeps the default exposure the materials and the
/// ocean were tuned at (0.11 ≈ 5 × 2^−5.5); the photographic middle grey, 0.18, brightened
/// that scene by 0.7 stop and the noon sky by 1.2.
pub const AUTO_KEY: f64 = 0.11;
/// How far auto exposure may move from the default, stops each way: enough to bring a bright
/// desert or snowfield off the tonemap's shoulder, not so far that a sunset turns to noon.
pub const AUTO_RANGE_EV: f64 = 2.0;
/// Auto exposure's time constant, seconds (the eye adapts to daylight changes in about a
/// second; a flight must not pump).
pub const AUTO_TAU_S: f64 = 0.7;

/// How the exposure is chosen.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ExposureMode {
    Fixed(f64),
    /// Adapted to the image.
    Auto,
}

impl Default for ExposureMode {
    fn default() -> Self {
        ExposureMode::Fixed(DEFAULT_EXPOSURE)
    }
}

impl std::str::FromStr for ExposureMode {
    type Err = String;
    /// `auto`, or a positive number.
    fn from_str(s: &str) -> Result<Self, String> {
        if s.eq_ignore_ascii_case("auto") {
            return Ok(ExposureMode::Auto);
        }
        match s.parse::<f64>() {
            Ok(v) if v.is_finite() && v > 0.0 => Ok(ExposureMode::Fixed(v)),
            _ => Err(format!(
                "exposure must be `auto` or a positive number, not `{s}`"
            )),
        }
    }
}

/// `exposure.adapt`'s push constants (`shaders/exposure/adapt.comp`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct AdaptPush {
    pub fixed_value: f32,
    pub key: f32,
    pub min_value: f32,
    pub max_value: f32,
    pub alpha: f32,
    pub mode: u32,
}

impl AdaptPush {
    /// For a frame `dt` seconds after the last (`None`: a still render, which adapts at once),
    /// the first frame of the state when `first`.
    pub fn new(mode: ExposureMode, dt: Option<f64>, first: bool) -> AdaptPush {
        let (fixed, auto) = match mode {
            ExposureMode::Fixed(v) => (v, false),
            ExposureMode::Auto => (DEFAULT_EXPOSURE, true),
        };
        let range = AUTO_RANGE_EV.exp2();
        let alpha = match dt {
            Some(dt) => 1.0 - (-dt.max(0.0) / AUTO_TAU_S).exp(),
            None => 1.0,
        };
        AdaptPush {
            fixed_value: fixed as f32,
            key: AUTO_KEY as f32,
            min_value: (DEFAULT_EXPOSURE / range) as f32,
            max_value: (DEFAULT_EXPOSURE * range) as f32,
            alpha: alpha as f32,
            mode: auto as u32 | (first as u32) << 1,
        }
    }
}

/// The next exposure from the current one and the last frame's measurement (`mean_log2` of
/// its counted pixels, if any): the CPU model of `exposure.adapt`.
pub fn adapt(current: f64, mean_log2: Option<f64>, p: &AdaptPush) -> f64 {
    let auto = p.mode & 1 != 0;
    let first = p.mode & 2 != 0;
    let e = if first { p.fixed_value as f64 } else { current };
    match (auto, first, mean_log2) {
        (false, _, _) => p.fixed_value as f64,
        (true, false, Some(mean)) => {
            let target = (p.key as f64 / mean.exp2()).clamp(p.min_value as f64, p.max_value as f64);
            let a = p.alpha as f64;
            (e.max(1e-6).log2() * (1.0 - a) + target.log2() * a).exp2()
        }
        _ => e,
    }
}

/// Size of the state block (`common/exposure.glsl`): value, mean, the 64-bit sum, count, pad.
const STATE_BYTES: u64 = 24;

/// The exposure's state across frames.
pub struct Exposure {
    pub mode: ExposureMode,
    state: GpuBuffer,
    /// Seconds since the last frame (`None`: a still render, adapted at once).
    dt: Option<f64>,
    /// `exposure.adapt` has been declared: the state holds a value.
    started: std::sync::atomic::AtomicBool,
}

impl Exposure {
    pub fn new(ctx: &Context, mode: ExposureMode) -> framegraph::Result<Exposure> {
        Ok(Exposure {
            mode,
            state: GpuBuffer::new(ctx, "exposure.state", BufferDesc::gpu(STATE_BYTES))?,
            dt: None,
            started: std::sync::atomic::AtomicBool::new(false),
        })
    }

    /// The next frame comes `dt` seconds after the last (`None`: a still render, adapted at
    /// once).
    pub fn prepare(&mut self, dt: Option<f64>) {
        self.dt = dt;
    }

    /// Declare `exposure.adapt` and return the state for `shade.terrain`.
    pub fn declare(&self, g: &mut Graph<'_>) -> BufferRef {
        let mut state = g.import_buffer(&self.state);
        let first = !self
            .started
            .swap(true, std::sync::atomic::Ordering::Relaxed);
        let push = AdaptPush::new(self.mode, self.dt, first);
        g.compute("exposure.adapt", &shaders::EXPOSURE_ADAPT)
            .write("exposure", &mut state)
            .push(&push)
            .dispatch([1, 1, 1]);
        state
    }

    pub fn destroy(self, ctx: &Context) {
        self.state.destroy(ctx);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_exposure_puts_the_mean_at_the_key_within_its_range() {
        let at_once = AdaptPush::new(ExposureMode::Auto, None, false);
        // A scene whose geometric mean is 0.022 keeps the default (0.11 / 0.022 = 5).
        let e = adapt(5.0, Some(0.022f64.log2()), &at_once);
        assert!((e - 5.0).abs() < 1e-4, "{e}");
        // Four times brighter: two stops down; far brighter: clamped at −2 EV.
        let e = adapt(5.0, Some(0.088f64.log2()), &at_once);
        assert!((e - 1.25).abs() < 1e-4, "{e}");
        assert!((adapt(5.0, Some(10.0f64.log2()), &at_once) - 1.25).abs() < 1e-4);
        // Nearly black: clamped at +2 EV.
        assert!((adapt(5.0, Some(-20.0), &at_once) - 20.0).abs() < 1e-3);
        // Nothing measured: unchanged.
        assert_eq!(adapt(3.0, None, &at_once), 3.0);
    }

    #[test]
    fn auto_exposure_moves_with_its_time_constant_and_fixed_is_fixed() {
        // After one time constant at 60 Hz, 1 − 1/e of the way in stops.
        let step = AdaptPush::new(ExposureMode::Auto, Some(1.0 / 60.0), false);
        let frames = (AUTO_TAU_S * 60.0).round() as usize;
        let mut e = 5.0;
        for _ in 0..frames {
            e = adapt(e, Some(0.088f64.log2()), &step);
        }
        let stops = (5.0f64 / e).log2();
        assert!(
            (stops - 2.0 * (1.0 - (-1.0f64).exp())).abs() < 0.05,
            "{stops}"
        );
        // The first frame starts from the default whatever the state held.
        let first = AdaptPush::new(ExposureMode::Auto, Some(0.016), true);
        assert_eq!(adapt(123.0, Some(0.0), &first), DEFAULT_EXPOSURE);
        let fixed = AdaptPush::new(ExposureMode::Fixed(2.5), Some(0.016), false);
        assert_eq!(adapt(7.0, Some(0.0), &fixed), 2.5);
    }

    #[test]
    fn modes_parse() {
        assert_eq!("auto".parse::<ExposureMode>(), Ok(ExposureMode::Auto));
        assert_eq!("2.5".parse::<ExposureMode>(), Ok(ExposureMode::Fixed(2.5)));
        assert!("-1".parse::<ExposureMode>().is_err());
        assert!("nan".parse::<ExposureMode>().is_err());
    }
}
