//! Deterministic fuzzing for the readers' tests (engine and tools): a splitmix64 generator,
//! byte and token mutations, and a case runner that turns a panic, a failed check or a slow
//! case into a test failure naming the reader, seed and case, so any failure replays alone.
//! Public (hidden) because the tools crate's tests share it; no crate is added for a page of
//! code.

use std::fmt::Debug;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

/// splitmix64 (Steele, Lea, Flood 2014): tiny, fast, and every seed (0 included) is usable.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The generator of case `case` of a run seeded `seed`: cases do not depend on each other,
    /// so a failing case replays from (seed, case) alone.
    pub fn for_case(seed: u64, case: usize) -> Rng {
        let mut r = Rng(seed ^ (case as u64).wrapping_mul(0xD134_2543_DE82_EF95));
        r.next_u64();
        r
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in 0..n (0 when n is 0); the modulo bias is irrelevant here.
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next_u64() % n as u64) as usize
        }
    }

    /// Uniform in [lo, hi).
    pub fn range_f64(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// True with probability 1/n.
    pub fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }

    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }

    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next_u64() as u8).collect()
    }
}

/// Words that no reader may take for a finite number in range: non-finite spellings, values
/// that overflow to infinity, lone signs, the empty field, other radixes and locales, and
/// magnitudes beyond every range the readers accept.
pub const BAD_NUMBERS: &[&str] = &[
    "nan",
    "NaN",
    "-nan",
    "inf",
    "-inf",
    "+infinity",
    "1e400",
    "-1e400",
    "-",
    "+",
    "",
    "1e",
    ".",
    "0x10",
    "1,5",
    "--1",
    "1e30",
    "-1e30",
    "99999999999999999999999999",
    "-99999999999999999999999999",
    "\u{0661}",
];

/// 32-bit values that make a length or count field absurd (big-endian or little-endian).
pub const HUGE_U32: &[u32] = &[
    0x8000_0000,
    0xFFFF_FFFF,
    0x7FFF_FFFF,
    0x4000_0000,
    0x0100_0000,
];

/// One to eight random edits of `valid`: bit flips, random bytes, inserted and deleted runs,
/// a huge 32-bit value written over four bytes, a duplicated chunk. At most `max_len` bytes
/// come back, so no case can grow without bound.
pub fn mutate_bytes(rng: &mut Rng, valid: &[u8], max_len: usize) -> Vec<u8> {
    let mut b = valid.to_vec();
    for _ in 0..1 + rng.below(8) {
        let at = rng.below(b.len() + 1);
        match rng.below(6) {
            0 if at < b.len() => b[at] ^= 1 << rng.below(8),
            1 if at < b.len() => b[at] = rng.next_u64() as u8,
            2 => {
                let n = 1 + rng.below(8);
                let run = rng.bytes(n);
                b.splice(at..at, run);
            }
            3 => {
                let end = (at + 1 + rng.below(8)).min(b.len());
                b.drain(at..end);
            }
            4 if at + 4 <= b.len() => {
                let v = *rng.pick(HUGE_U32);
                let bytes = if rng.one_in(2) {
                    v.to_be_bytes()
                } else {
                    v.to_le_bytes()
                };
                b[at..at + 4].copy_from_slice(&bytes);
            }
            5 if at < b.len() => {
                let end = (at + 1 + rng.below(64)).min(b.len());
                let chunk = b[at..end].to_vec();
                let to = rng.below(b.len() + 1);
                b.splice(to..to, chunk);
            }
            _ => {}
        }
    }
    b.truncate(max_len);
    b
}

/// Case counts and timing of one run.
#[derive(Clone, Debug)]
pub struct Report {
    pub cases: usize,
    pub total: Duration,
    pub slowest: Duration,
}

/// Runs `cases` cases of reader `name`: `make` builds case k's input from its own generator
/// ([`Rng::for_case`]), `check` runs the reader on it and says what is wrong, if anything.
/// A panic in `check`, an `Err` from it, or a case slower than `per_case` fails the run with
/// the seed, the case number and a preview of the input (up to three failures are listed).
pub fn run<T: Debug>(
    name: &str,
    seed: u64,
    cases: usize,
    per_case: Duration,
    mut make: impl FnMut(&mut Rng) -> T,
    check: impl Fn(&T) -> Result<(), String>,
) -> Report {
    let mut failures = Vec::new();
    let (mut total, mut slowest) = (Duration::ZERO, Duration::ZERO);
    for case in 0..cases {
        let input = make(&mut Rng::for_case(seed, case));
        let t0 = Instant::now();
        let outcome = catch_unwind(AssertUnwindSafe(|| check(&input)));
        let dt = t0.elapsed();
        total += dt;
        slowest = slowest.max(dt);
        let problem = match outcome {
            Ok(Ok(())) if dt <= per_case => continue,
            Ok(Ok(())) => format!("took {dt:?} (limit {per_case:?})"),
            Ok(Err(why)) => why,
            Err(payload) => format!(
                "panicked: {}",
                crate::store::faults::panic_message(payload.as_ref())
            ),
        };
        let mut shown = format!("{input:?}");
        if shown.len() > 400 {
            let cut = (0..=400)
                .rev()
                .find(|&i| shown.is_char_boundary(i))
                .unwrap_or(0);
            shown.truncate(cut);
            shown.push('…');
        }
        failures.push(format!(
            "{name}: case {case} of seed {seed:#x}: {problem}\n  input: {shown}"
        ));
        if failures.len() == 3 {
            break;
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    let report = Report {
        cases,
        total,
        slowest,
    };
    println!("{name}: {cases} cases in {total:?} (slowest {slowest:?})");
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_generator_is_deterministic_and_spread() {
        let a: Vec<u64> = (0..4).map(|k| Rng::for_case(7, k).next_u64()).collect();
        let b: Vec<u64> = (0..4).map(|k| Rng::for_case(7, k).next_u64()).collect();
        assert_eq!(a, b);
        assert!(a.windows(2).all(|w| w[0] != w[1]));
        let mut r = Rng::new(1);
        let mut seen = [0usize; 10];
        for _ in 0..10_000 {
            seen[r.below(10)] += 1;
        }
        assert!(seen.iter().all(|&n| (900..1100).contains(&n)), "{seen:?}");
        assert!((0..1000).all(|_| (2.0..3.0).contains(&r.range_f64(2.0, 3.0))));
    }

    #[test]
    fn the_runner_reports_panics_errors_and_slow_cases() {
        let quiet = Duration::from_secs(1);
        let small = |&x: &usize| {
            assert!(x < 4);
            Ok(())
        };
        let r = catch_unwind(|| run("p", 1, 10, quiet, |r| r.below(5), small));
        let msg = crate::store::faults::panic_message(r.unwrap_err().as_ref());
        assert!(msg.contains("p: case") && msg.contains("panicked"), "{msg}");
        let r = catch_unwind(|| run("e", 2, 5, quiet, |_| (), |_| Err("nope".into())));
        assert!(crate::store::faults::panic_message(r.unwrap_err().as_ref())
            .contains("e: case 0 of seed 0x2: nope"));
        let slow = |_: &()| {
            std::thread::sleep(Duration::from_millis(5));
            Ok(())
        };
        let r = catch_unwind(|| run("s", 3, 1, Duration::from_millis(1), |_| (), slow));
        assert!(crate::store::faults::panic_message(r.unwrap_err().as_ref()).contains("took"));
        assert_eq!(run("ok", 4, 3, quiet, |_| (), |_| Ok(())).cases, 3);
    }
}
