//! The reconstructed shoreline's heights (docs/earth.md, "The coastline"): how the ground
//! meets the water the mask draws — the sea floor where ETOPO5 reads land, the bank of land
//! beside the sea or a lake — and the Catmull-Rom weights the coastline is interpolated with
//! (`WaterMask::water_cubic`, and the amplified levels' lake indicator).

use super::water::Water;

/// Under the mask the sea floor lies at least this far below the datum (m), so the ocean
/// surface is drawn over every sample the mask calls sea ([`sea_floor`]).
pub const SEA_FLOOR_MIN_M: f64 = 1.0;

/// The floor under a sample the mask calls sea, from the reconstructed ground `r` (m).
/// ETOPO5's 9 km cells put the zero contour kilometres off the surveyed coast, so the
/// reconstruction can read land there: it is mirrored below the datum (the further inland
/// ETOPO5 places the point, the further out to sea it really is, so the deeper), and never
/// shallower than [`SEA_FLOOR_MIN_M`]. Continuous; a floor already that deep is untouched.
pub fn sea_floor(r: f64) -> f64 {
    -r.abs().max(SEA_FLOOR_MIN_M)
}
/// Land at the sea's edge stands at least this high (m), so the coast is a bank rising out of
/// the sea, never a pit below the sea beside it.
pub const COAST_LAND_MIN_M: f64 = 1.0;

/// The reconstructed coastline at a point ([`WaterMask::water_cubic`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Shore {
    pub water: Water,
    /// The interpolated ocean indicator, clamped to [0, 1]: 0 two cells or more from the sea,
    /// ½ on a sea coast.
    pub sea: f64,
    /// The same for lakes.
    pub lake: f64,
    /// The level of the nearest lake cell of the 16, if any.
    pub lake_level: Option<f64>,
}

/// Lift of land toward a shore's bank as the shore's indicator rises to ½ (smoothstep).
fn bank(r: f64, indicator: f64, bank_m: f64) -> f64 {
    let x = (indicator / 0.5).clamp(0.0, 1.0);
    let s = x * x * (3.0 - 2.0 * x);
    r + s * (r.max(bank_m) - r)
}

/// The reconstructed ground `r` (m) of a land sample at `shore`: lifted toward
/// [`COAST_LAND_MIN_M`] above the sea, and as far above the nearest lake's level, as that
/// water nears (fully where its indicator reaches ½, at the shoreline), untouched two cells
/// or more from it. So a shore is a bank rising out of the water, never a pit beside it below
/// its surface. Continuous, so no step appears where the lift ends; land below the datum away
/// from the sea (Qattara, Amsterdam, the Caspian's shores) keeps its height.
pub fn coastal_land(r: f64, shore: &Shore) -> f64 {
    let r = bank(r, shore.sea, COAST_LAND_MIN_M);
    match shore.lake_level {
        Some(level) => bank(r, shore.lake, level + COAST_LAND_MIN_M),
        None => r,
    }
}

/// Catmull-Rom weights of the four samples at −1, 0, 1, 2 for a point at t ∈ [0, 1) between
/// samples 0 and 1 (they sum to 1 and reproduce linear functions).
pub(crate) fn catmull_rom(t: f64) -> [f64; 4] {
    let (t2, t3) = (t * t, t * t * t);
    [
        0.5 * (-t3 + 2.0 * t2 - t),
        0.5 * (3.0 * t3 - 5.0 * t2 + 2.0),
        0.5 * (-3.0 * t3 + 4.0 * t2 + t),
        0.5 * (t3 - t2),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sea_floor_is_below_the_datum_and_continuous() {
        assert_eq!(sea_floor(-4_000.0), -4_000.0, "a real floor is untouched");
        assert_eq!(sea_floor(-0.2), -SEA_FLOOR_MIN_M);
        assert_eq!(sea_floor(0.0), -SEA_FLOOR_MIN_M);
        assert_eq!(
            sea_floor(35.0),
            -35.0,
            "land by ETOPO5, sea by the survey: mirrored"
        );
        for k in -300..300 {
            let (a, b) = (k as f64 * 0.01, (k + 1) as f64 * 0.01);
            assert!(sea_floor(a) <= -SEA_FLOOR_MIN_M);
            assert!((sea_floor(b) - sea_floor(a)).abs() <= 0.01 + 1e-12);
        }
    }

    #[test]
    fn shore_land_rises_out_of_the_water_and_is_untouched_away_from_it() {
        let shore = |sea: f64, lake: f64, lake_level: Option<f64>| Shore {
            water: Water::Land,
            sea,
            lake,
            lake_level,
        };
        // Two cells or more from water (indicators 0): as measured, below the datum too.
        assert_eq!(coastal_land(-45.0, &shore(0.0, 0.0, None)), -45.0);
        assert_eq!(coastal_land(-45.0, &shore(0.0, 0.0, Some(-20.0))), -45.0);
        assert_eq!(coastal_land(120.0, &shore(0.3, 0.0, None)), 120.0);
        // At the coastline (½): at least the bank's height, over the sea or over the lake.
        assert_eq!(coastal_land(-3.0, &shore(0.5, 0.0, None)), COAST_LAND_MIN_M);
        assert_eq!(
            coastal_land(4_700.0, &shore(0.0, 0.5, Some(4_718.0))),
            4_718.0 + COAST_LAND_MIN_M
        );
        // Between, continuous and monotone in the indicator.
        for lake in [false, true] {
            let at = |x: f64| {
                if lake {
                    coastal_land(-10.0, &shore(0.0, x, Some(0.0)))
                } else {
                    coastal_land(-10.0, &shore(x, 0.0, None))
                }
            };
            let mut last = at(0.0);
            for k in 1..=100 {
                let v = at(k as f64 * 0.005);
                assert!(v >= last && v - last < 0.5, "{k}: {last} → {v}");
                last = v;
            }
        }
    }
}
