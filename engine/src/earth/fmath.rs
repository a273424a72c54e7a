//! The f64 trigonometry of the derivation, written out operation by operation so that the
//! GPU (`shaders/common/f64math.glsl`, which has no f64 tan/atan/asin) computes the same IEEE
//! results: only +, −, ×, ÷, sqrt (all correctly rounded in IEEE 754, and Rust never fuses
//! a·b + c), comparisons and sign flips. The GLSL mirror marks every f64 value `precise` so
//! no driver contracts it into an fma. Accuracy against std: tests below (a few ulp).
//!
//! Kernels: Taylor series (their coefficients are the correctly rounded 1/n!, 1/(2k+1)) over
//! ranges small enough that the first omitted term is below 2^-60 of the result.

use std::f64::consts::{FRAC_PI_2, FRAC_PI_6, PI};

/// sin(x) = x + x·z·Σ SIN[k]·z^k, z = x² (terms to x^19: x^21/21! < 1e-21 at |x| ≤ 0.82).
pub const SIN: [f64; 9] = [
    -0.16666666666666666,
    0.008333333333333333,
    -0.0001984126984126984,
    2.7557319223985893e-6,
    -2.505210838544172e-8,
    1.6059043836821613e-10,
    -7.647163731819816e-13,
    2.8114572543455206e-15,
    -8.22063524662433e-18,
];
/// cos(x) = 1 − (z/2 − z²·Σ COS[k]·z^k) (terms to x^20).
pub const COS: [f64; 9] = [
    0.041666666666666664,
    -0.001388888888888889,
    2.48015873015873e-5,
    -2.755731922398589e-7,
    2.08767569878681e-9,
    -1.1470745597729725e-11,
    4.779477332387385e-14,
    -1.5619206968586225e-16,
    4.110317623312165e-19,
];
/// atan(s) = s + s·z·Σ ATAN[k]·z^k for |s| ≤ tan(π/12) (terms to s^33: z ≤ 0.072, so the
/// first omitted term is < 1e-19).
pub const ATAN: [f64; 16] = [
    -0.3333333333333333,
    0.2,
    -0.14285714285714285,
    0.1111111111111111,
    -0.09090909090909091,
    0.07692307692307693,
    -0.06666666666666667,
    0.058823529411764705,
    -0.05263157894736842,
    0.047619047619047616,
    -0.043478260869565216,
    0.04,
    -0.037037037037037035,
    0.034482758620689655,
    -0.03225806451612903,
    0.030303030303030304,
];
/// tan(π/12) = 2 − √3: above it atan is shifted by π/6.
pub const TAN_PI_12: f64 = 0.2679491924311227;
pub const SQRT_3: f64 = 1.7320508075688772;
/// The rounding errors of π/6, π/2 and π as doubles (true value − f64 value), added after the
/// subtraction they correct so the sums keep ~2 ulp.
pub const FRAC_PI_6_LO: f64 = -5.360408832255455e-17;
pub const FRAC_PI_2_LO: f64 = 6.123233995736766e-17;
pub const PI_LO: f64 = 1.2246467991473532e-16;
/// Degrees per radian (the value `f64::to_degrees` multiplies by).
pub const DEG_PER_RAD: f64 = 180.0 / PI;

/// Horner from the highest coefficient: c[n−1]·z^(n−1) + … + c[0], multiply then add.
#[inline]
fn horner(c: &[f64], z: f64) -> f64 {
    let mut p = c[c.len() - 1];
    for &k in c[..c.len() - 1].iter().rev() {
        p = p * z + k;
    }
    p
}

/// tan(x) for |x| ≤ π/4 (also good a little beyond: the cube's apron coordinates), as
/// sin/cos of two short series. Odd: tan(−x) = −tan(x) bit for bit.
pub fn tan(x: f64) -> f64 {
    let z = x * x;
    let s = x + x * z * horner(&SIN, z);
    let c = 1.0 - (0.5 * z - z * z * horner(&COS, z));
    s / c
}

/// atan(t) for 0 ≤ t ≤ 1: above tan(π/12), atan(t) = π/6 + atan((√3·t − 1)/(t + √3)).
fn atan01(t: f64) -> f64 {
    let shift = t > TAN_PI_12;
    let s = if shift {
        (t * SQRT_3 - 1.0) / (t + SQRT_3)
    } else {
        t
    };
    let z = s * s;
    let p = s + s * z * horner(&ATAN, z);
    if shift {
        FRAC_PI_6 + (FRAC_PI_6_LO + p)
    } else {
        p
    }
}

/// atan2(y, x) in (−π, π]: the angle of the smaller over the larger magnitude, then
/// reflected into its octant. (0, 0) gives 0.
pub fn atan2(y: f64, x: f64) -> f64 {
    let (ax, ay) = (x.abs(), y.abs());
    if ax == 0.0 && ay == 0.0 {
        return 0.0;
    }
    let swap = ay > ax;
    let mut r = if swap {
        atan01(ax / ay)
    } else {
        atan01(ay / ax)
    };
    if swap {
        r = (FRAC_PI_2 - r) + FRAC_PI_2_LO;
    }
    if x < 0.0 {
        r = (PI - r) + PI_LO;
    }
    if y < 0.0 {
        -r
    } else {
        r
    }
}

/// asin(z) for |z| ≤ 1 as atan2(z, √((1 − z)(1 + z))): the cosine from the factored form
/// keeps its relative error at ~1 ulp up to the poles, where 1 − z² would cancel.
pub fn asin(z: f64) -> f64 {
    atan2(z, ((1.0 - z) * (1.0 + z)).sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Distance in ulps between two finite doubles of the same sign (or zeros).
    fn ulps(a: f64, b: f64) -> u64 {
        let key = |x: f64| {
            let i = x.to_bits() as i64;
            if i < 0 {
                i64::MIN - i
            } else {
                i
            }
        };
        key(a).abs_diff(key(b))
    }

    /// Max ulp error of `f` against `reference` over n points spread over [lo, hi] (plus a
    /// jitter, so the points are not all dyadic).
    fn max_ulps(f: fn(f64) -> f64, reference: fn(f64) -> f64, lo: f64, hi: f64) -> (u64, f64) {
        let n = 200_000;
        let mut worst = (0, lo);
        for k in 0..=n {
            let x = lo + (hi - lo) * (k as f64 / n as f64) * (1.0 - 1e-9 * (k % 7) as f64);
            let e = ulps(f(x), reference(x));
            if e > worst.0 {
                worst = (e, x);
            }
        }
        worst
    }

    #[test]
    fn tan_is_within_a_few_ulps() {
        // The derivation's range (|x| < π/4) and the aprons' overshoot (1.4 % at L0).
        let lim = std::f64::consts::FRAC_PI_4 * 1.02;
        let (e, x) = max_ulps(tan, f64::tan, -lim, lim);
        eprintln!("tan: max {e} ulp at {x}");
        assert!(e <= 4, "tan: {e} ulp at {x}");
        assert_eq!(tan(0.3).to_bits(), (-tan(-0.3)).to_bits());
        assert_eq!(tan(0.0), 0.0);
    }

    #[test]
    fn asin_is_within_a_few_ulps() {
        let (e, x) = max_ulps(asin, f64::asin, -1.0, 1.0);
        eprintln!("asin: max {e} ulp at {x}");
        assert!(e <= 4, "asin: {e} ulp at {x}");
        // Near the poles, where the cosine is smallest.
        let (e, x) = max_ulps(asin, f64::asin, 0.999_999, 1.0);
        assert!(e <= 4, "asin near 1: {e} ulp at {x}");
        assert_eq!(asin(1.0), FRAC_PI_2);
        assert_eq!(asin(-1.0), -FRAC_PI_2);
        assert_eq!(asin(0.0), 0.0);
    }

    #[test]
    fn atan2_is_within_a_few_ulps_in_every_octant() {
        let mut worst = (0, 0.0);
        let n = 400_000;
        for k in 0..n {
            // A spiral of angles and radii covering all octants and the axes' neighbourhoods.
            let a = -PI + 2.0 * PI * (k as f64 + 0.37) / n as f64;
            let r = 0.5 + (k % 13) as f64;
            let (y, x) = (r * a.sin(), r * a.cos());
            let e = ulps(atan2(y, x), y.atan2(x));
            if e > worst.0 {
                worst = (e, a);
            }
        }
        eprintln!("atan2: max {} ulp", worst.0);
        assert!(worst.0 <= 4, "atan2: {} ulp at angle {}", worst.0, worst.1);
        for (y, x) in [(0.0, 1.0), (1.0, 0.0), (0.0, -1.0), (-1.0, 0.0), (1.0, 1.0)] {
            assert!(ulps(atan2(y, x), f64::atan2(y, x)) <= 1, "({y}, {x})");
        }
    }

    #[test]
    fn degrees_are_what_to_degrees_multiplies_by() {
        for x in [0.1, -1.3, 2.9, 1e-7] {
            assert_eq!((x * DEG_PER_RAD).to_bits(), x.to_degrees().to_bits());
        }
    }

    /// The GLSL mirror spells every constant with the same digits (the literals parse to the
    /// same doubles): `const double NAME…[] = double[](…)` or `const double NAME = …;`.
    #[test]
    fn glsl_constants_are_the_same_doubles() {
        let glsl = include_str!("../../../shaders/common/f64math.glsl");
        let values = |name: &str| -> Vec<f64> {
            let start = [" =", "["]
                .iter()
                .find_map(|end| glsl.find(&format!("const double {name}{end}")))
                .unwrap_or_else(|| panic!("{name} missing in f64math.glsl"));
            let rest = &glsl[start..];
            let rhs = &rest[rest.find('=').expect("=") + 1..rest.find(';').expect(";")];
            let rhs = rhs
                .trim()
                .trim_start_matches("double[](")
                .trim_end_matches(')');
            rhs.split(',')
                .map(|s| {
                    let s = s.trim().trim_end_matches("lf").trim_end_matches("LF");
                    s.parse::<f64>()
                        .unwrap_or_else(|e| panic!("{name}: {s}: {e}"))
                })
                .collect()
        };
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&values("F64_SIN")), bits(&SIN));
        assert_eq!(bits(&values("F64_COS")), bits(&COS));
        assert_eq!(bits(&values("F64_ATAN")), bits(&ATAN));
        for (name, v) in [
            ("F64_TAN_PI_12", TAN_PI_12),
            ("F64_SQRT_3", SQRT_3),
            ("F64_PI_6", FRAC_PI_6),
            ("F64_PI_6_LO", FRAC_PI_6_LO),
            ("F64_PI_2", FRAC_PI_2),
            ("F64_PI_2_LO", FRAC_PI_2_LO),
            ("F64_PI", PI),
            ("F64_PI_LO", PI_LO),
            ("F64_DEG_PER_RAD", DEG_PER_RAD),
        ] {
            assert_eq!(bits(&values(name)), bits(&[v]), "{name}");
        }
    }
}
