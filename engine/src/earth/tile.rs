//! A tile's payload in memory (f32 heights + water bits, 520×520 with apron) and its
//! quantised on-disk encoding (`docs/earth.md`, "Quantisation").

use crate::params::{HEIGHT_Q_MIN_M, HEIGHT_Q_STEP_M, TILE_STRIDE};
use crate::planet::TileId;

/// Samples stored per tile (520²).
pub const TILE_LEN: usize = (TILE_STRIDE * TILE_STRIDE) as usize;
/// 64-bit words of the water bitset.
pub const WATER_WORDS: usize = TILE_LEN.div_ceil(64);
/// Bytes of one encoded tile: u16 codes (LE) then the water bitset (LE u64 words).
pub const TILE_DISK_BYTES: usize = TILE_LEN * 2 + WATER_WORDS * 8;
/// Code of 0 m (sea level): 11,250 m / 0.3125 m. HEIGHT_Q_MIN_M is a multiple of the step so
/// sea level is exactly representable and quantisation never moves a height across it.
pub const SEA_LEVEL_CODE: u16 = (-HEIGHT_Q_MIN_M / HEIGHT_Q_STEP_M) as u16;

/// Quantises a height (metres) to its 16-bit code: round to the nearest 0.3125 m step, clamp
/// to the code range, and keep the side of sea level given by `water` (water codes ≤ −0.3125 m,
/// land codes ≥ 0 m), so a tile's water bit and the sign of its height always agree.
pub fn quantise(h: f64, water: bool) -> u16 {
    let c = ((h - HEIGHT_Q_MIN_M) / HEIGHT_Q_STEP_M)
        .round()
        .clamp(0.0, 65535.0) as u16;
    if water {
        c.min(SEA_LEVEL_CODE - 1)
    } else {
        c.max(SEA_LEVEL_CODE)
    }
}

/// The height (metres) of a code; exact in f32 (codes are multiples of 5/16 m under 2^15 m).
pub fn dequantise(code: u16) -> f32 {
    (HEIGHT_Q_MIN_M + code as f64 * HEIGHT_Q_STEP_M) as f32
}

/// One tile: 520×520 samples (512² interior + 4-sample apron), row-major, v rows of u samples.
#[derive(Clone, PartialEq)]
pub struct Tile {
    pub id: TileId,
    /// Heights above the datum, metres. Up to L9 every value is a quantisation code's height
    /// (the disk store's); amplified levels hold full f32 heights (never stored).
    pub heights: Vec<f32>,
    /// Water bits (1 = water), bit k of word k/64 for stored index k.
    pub water: Vec<u64>,
}

impl std::fmt::Debug for Tile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Tile({})", self.id)
    }
}

impl Tile {
    pub fn empty(id: TileId) -> Tile {
        Tile {
            id,
            heights: vec![0.0; TILE_LEN],
            water: vec![0; WATER_WORDS],
        }
    }

    /// Heap bytes held by a decoded tile.
    pub const MEMORY_BYTES: usize = TILE_LEN * 4 + WATER_WORDS * 8;

    /// Stores sample `k` (stored index) from its code.
    #[inline]
    pub fn set(&mut self, k: usize, code: u16) {
        self.heights[k] = dequantise(code);
        if code < SEA_LEVEL_CODE {
            self.water[k / 64] |= 1 << (k % 64);
        } else {
            self.water[k / 64] &= !(1 << (k % 64));
        }
    }

    /// Stores sample `k` as a height (metres); water where it is below the datum.
    #[inline]
    pub fn set_height(&mut self, k: usize, h: f32) {
        self.heights[k] = h;
        if h < 0.0 {
            self.water[k / 64] |= 1 << (k % 64);
        } else {
            self.water[k / 64] &= !(1 << (k % 64));
        }
    }

    /// Height of local sample (i, j), −4 ≤ i, j < 516, metres.
    #[inline]
    pub fn height(&self, i: i64, j: i64) -> f32 {
        self.heights[TileId::stored_index(i, j)]
    }

    #[inline]
    pub fn is_water(&self, i: i64, j: i64) -> bool {
        let k = TileId::stored_index(i, j);
        self.water[k / 64] >> (k % 64) & 1 == 1
    }

    /// The 16-bit code of stored sample k.
    #[inline]
    pub fn code(&self, k: usize) -> u16 {
        ((self.heights[k] as f64 - HEIGHT_Q_MIN_M) / HEIGHT_Q_STEP_M).round() as u16
    }

    /// Writes the disk encoding into `out` (TILE_DISK_BYTES long).
    pub fn encode(&self, out: &mut [u8]) {
        let (codes, bits) = out.split_at_mut(TILE_LEN * 2);
        for (k, c) in codes.chunks_exact_mut(2).enumerate() {
            c.copy_from_slice(&self.code(k).to_le_bytes());
        }
        for (w, b) in self.water.iter().zip(bits.chunks_exact_mut(8)) {
            b.copy_from_slice(&w.to_le_bytes());
        }
    }

    /// Decodes a tile; `None` when the water bits disagree with the heights' sign (a
    /// corruption the checksum missed can still not produce a wrong water flag).
    pub fn decode(id: TileId, bytes: &[u8]) -> Option<Tile> {
        if bytes.len() != TILE_DISK_BYTES {
            return None;
        }
        let mut t = Tile::empty(id);
        let (codes, bits) = bytes.split_at(TILE_LEN * 2);
        for (k, c) in codes.chunks_exact(2).enumerate() {
            t.set(k, u16::from_le_bytes([c[0], c[1]]));
        }
        for (w, b) in t.water.iter().zip(bits.chunks_exact(8)) {
            let mut a = [0u8; 8];
            a.copy_from_slice(b);
            if *w != u64::from_le_bytes(a) {
                return None;
            }
        }
        Some(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::planet::Face;

    #[test]
    fn quantisation_is_exact_and_keeps_the_shoreline() {
        assert_eq!(dequantise(SEA_LEVEL_CODE), 0.0);
        assert_eq!(quantise(-0.01, true), SEA_LEVEL_CODE - 1);
        assert_eq!(quantise(0.0, false), SEA_LEVEL_CODE);
        for h in [-10_376.0, -4_000.3, 0.2, 8_848.1] {
            let c = quantise(h, h < 0.0);
            assert!((dequantise(c) as f64 - h).abs() <= HEIGHT_Q_STEP_M / 2.0);
            assert_eq!(quantise(dequantise(c) as f64, h < 0.0), c);
        }
    }

    #[test]
    fn encode_decode_round_trips() {
        let id = TileId::new(3, Face(2), 1, 5);
        let mut t = Tile::empty(id);
        for k in 0..TILE_LEN {
            t.set(k, ((k * 7919) % 65536) as u16);
        }
        let mut buf = vec![0u8; TILE_DISK_BYTES];
        t.encode(&mut buf);
        assert_eq!(Tile::decode(id, &buf), Some(t));
        buf[TILE_LEN * 2] ^= 1;
        assert_eq!(Tile::decode(id, &buf), None);
    }
}
