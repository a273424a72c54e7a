//! A tile's payload in memory (f32 heights + water bits, 520×520 with apron) and its
//! quantised on-disk encoding (`docs/earth.md`, "Quantisation").

use crate::params::{HEIGHT_Q_MIN_M, HEIGHT_Q_STEP_M, TILE_STRIDE};
use crate::planet::TileId;

/// Samples stored per tile (520²).
pub const TILE_LEN: usize = (TILE_STRIDE * TILE_STRIDE) as usize;
/// 64-bit words of the water bitset.
pub const WATER_WORDS: usize = TILE_LEN.div_ceil(64);
/// Bytes of one encoded tile: u16 codes (LE), the water bitset, then the lake bitset (LE u64
/// words).
pub const TILE_DISK_BYTES: usize = TILE_LEN * 2 + 2 * WATER_WORDS * 8;
/// Code of 0 m (sea level): 11,250 m / 0.3125 m. HEIGHT_Q_MIN_M is a multiple of the step so
/// sea level is exactly representable and quantisation never moves a height across it.
pub const SEA_LEVEL_CODE: u16 = (-HEIGHT_Q_MIN_M / HEIGHT_Q_STEP_M) as u16;

/// What covers a sample: the water mask's answer (`docs/earth.md`, "Water"), carried by every
/// tile sample beside its height. Ocean samples hold the sea floor (the ocean's surface is the
/// datum); lake samples hold the lake's surface level; land samples hold the ground, which may
/// lie below the datum (the Qattara Depression, polders).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cover {
    Land,
    Ocean,
    Lake,
}

impl Cover {
    pub fn is_water(self) -> bool {
        self != Cover::Land
    }

    /// The sign rule of sources without a water mask: ocean below the datum, land above.
    pub fn below_datum(h: f64) -> Cover {
        if h < 0.0 {
            Cover::Ocean
        } else {
            Cover::Land
        }
    }

    /// The two low mantissa bits of a sample's f32 height in the GPU atlas
    /// (`shaders/common/tiles.glsl` `COVER_*`).
    pub fn gpu_bits(self) -> u32 {
        match self {
            Cover::Land => 0,
            Cover::Ocean => 1,
            Cover::Lake => 2,
        }
    }
}

/// Quantises a height (metres) to its 16-bit code: round to the nearest 0.3125 m step, clamp
/// to the code range, and keep the side of sea level given by `water` (water codes ≤ −0.3125 m,
/// land codes ≥ 0 m): the sign rule of sources without a water mask.
pub fn quantise(h: f64, water: bool) -> u16 {
    if water {
        quantise_cover(h, Cover::Ocean)
    } else {
        quantise_cover(h, Cover::Land).max(SEA_LEVEL_CODE)
    }
}

/// Quantises a height (metres) under the water mask: ocean codes stay ≤ −0.3125 m (the sea
/// floor lies below the ocean's surface, the datum, so the resolve's datum hit always has
/// water under it); land and lakes keep their sign.
pub fn quantise_cover(h: f64, cover: Cover) -> u16 {
    let c = ((h - HEIGHT_Q_MIN_M) / HEIGHT_Q_STEP_M)
        .round()
        .clamp(0.0, 65535.0) as u16;
    match cover {
        Cover::Ocean => c.min(SEA_LEVEL_CODE - 1),
        _ => c,
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
    /// Water bits (1 = water: ocean or lake), bit k of word k/64 for stored index k.
    pub water: Vec<u64>,
    /// Lake bits (1 = lake; a subset of the water bits), laid out like `water`.
    pub lake: Vec<u64>,
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
            lake: vec![0; WATER_WORDS],
        }
    }

    /// Heap bytes held by a decoded tile.
    pub const MEMORY_BYTES: usize = TILE_LEN * 4 + 2 * WATER_WORDS * 8;

    /// Stores sample `k` (stored index) from its code, under the sign rule (ocean below the
    /// datum): for sources without a water mask.
    #[inline]
    pub fn set(&mut self, k: usize, code: u16) {
        let cover = if code < SEA_LEVEL_CODE {
            Cover::Ocean
        } else {
            Cover::Land
        };
        self.set_cover(k, code, cover);
    }

    /// Stores sample `k` from its code and what covers it.
    #[inline]
    pub fn set_cover(&mut self, k: usize, code: u16, cover: Cover) {
        self.heights[k] = dequantise(code);
        self.put_cover(k, cover);
    }

    /// Stores sample `k` as a height (metres); water where it is below the datum.
    #[inline]
    pub fn set_height(&mut self, k: usize, h: f32) {
        self.set_height_cover(k, h, Cover::below_datum(h as f64));
    }

    /// Stores sample `k` as a height (metres) and what covers it.
    #[inline]
    pub fn set_height_cover(&mut self, k: usize, h: f32, cover: Cover) {
        self.heights[k] = h;
        self.put_cover(k, cover);
    }

    #[inline]
    fn put_cover(&mut self, k: usize, cover: Cover) {
        let bit = 1u64 << (k % 64);
        let set = |w: &mut u64, on: bool| if on { *w |= bit } else { *w &= !bit };
        set(&mut self.water[k / 64], cover.is_water());
        set(&mut self.lake[k / 64], cover == Cover::Lake);
    }

    /// What covers stored sample `k`.
    #[inline]
    pub fn cover_at(&self, k: usize) -> Cover {
        match (
            self.water[k / 64] >> (k % 64) & 1,
            self.lake[k / 64] >> (k % 64) & 1,
        ) {
            (0, _) => Cover::Land,
            (_, 0) => Cover::Ocean,
            _ => Cover::Lake,
        }
    }

    /// What covers local sample (i, j), −4 ≤ i, j < 516.
    #[inline]
    pub fn cover(&self, i: i64, j: i64) -> Cover {
        self.cover_at(TileId::stored_index(i, j))
    }

    /// The heights as the GPU atlas holds them (`shaders/common/tiles.glsl` `fetch_quad`): f32
    /// with the two low mantissa bits replaced by the cover ([`Cover::gpu_bits`]). Stored
    /// levels' heights are multiples of 5/16 m below 2^14 m, whose low 8 mantissa bits are
    /// zero, so they are exact; amplified heights move by at most 3 ulp (≤ 3 mm at 9 km).
    pub fn gpu_heights(&self, out: &mut [f32]) {
        for (k, (o, h)) in out.iter_mut().zip(&self.heights).enumerate() {
            *o = f32::from_bits(h.to_bits() & !3 | self.cover_at(k).gpu_bits());
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
        let words = self.water.iter().chain(&self.lake);
        for (w, b) in words.zip(bits.chunks_exact_mut(8)) {
            b.copy_from_slice(&w.to_le_bytes());
        }
    }

    /// Decodes a tile; `None` when a lake bit is set without its water bit, or an ocean sample
    /// lies above the datum (the water mask's tiles hold the sea floor below it), so a
    /// corruption the checksum missed cannot produce a lake on land or a sea above the ground.
    pub fn decode(id: TileId, bytes: &[u8]) -> Option<Tile> {
        if bytes.len() != TILE_DISK_BYTES {
            return None;
        }
        let mut t = Tile::empty(id);
        let (codes, bits) = bytes.split_at(TILE_LEN * 2);
        let word = |b: &[u8]| {
            let mut a = [0u8; 8];
            a.copy_from_slice(b);
            u64::from_le_bytes(a)
        };
        let (water, lake) = bits.split_at(WATER_WORDS * 8);
        for (k, (w, l)) in water.chunks_exact(8).zip(lake.chunks_exact(8)).enumerate() {
            let (w, l) = (word(w), word(l));
            if l & !w != 0 {
                return None;
            }
            t.water[k] = w;
            t.lake[k] = l;
        }
        for (k, c) in codes.chunks_exact(2).enumerate() {
            let code = u16::from_le_bytes([c[0], c[1]]);
            if t.cover_at(k) == Cover::Ocean && code >= SEA_LEVEL_CODE {
                return None;
            }
            t.heights[k] = dequantise(code);
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
        // Land below the datum and a lake above it: the cover is not the height's sign.
        t.set_cover(11, quantise_cover(-45.0, Cover::Land), Cover::Land);
        t.set_cover(12, quantise_cover(-28.0, Cover::Lake), Cover::Lake);
        t.set_cover(13, quantise_cover(3_812.0, Cover::Lake), Cover::Lake);
        let mut buf = vec![0u8; TILE_DISK_BYTES];
        t.encode(&mut buf);
        let back = Tile::decode(id, &buf).expect("decodes");
        assert_eq!(back, t);
        assert_eq!(
            (back.height(-4 + 11, -4), back.cover_at(11)),
            (-45.0, Cover::Land)
        );
        assert_eq!(
            (back.height(-4 + 12, -4), back.cover_at(12)),
            (-28.125, Cover::Lake)
        );
        assert_eq!(back.cover_at(13), Cover::Lake);
        // A water bit set on land above the datum: an ocean sample above the datum.
        let mut bad = buf.clone();
        let k = (0..TILE_LEN)
            .find(|&k| t.cover_at(k) == Cover::Land)
            .unwrap();
        bad[TILE_LEN * 2 + k / 8] |= 1 << (k % 8);
        assert_eq!(Tile::decode(id, &bad), None);
        // A lake bit without its water bit.
        let mut bad = buf.clone();
        bad[TILE_LEN * 2 + WATER_WORDS * 8 + k / 8] |= 1 << (k % 8);
        assert_eq!(Tile::decode(id, &bad), None);
    }

    #[test]
    fn gpu_heights_carry_the_cover_in_the_low_bits() {
        let mut t = Tile::empty(TileId::new(0, Face(0), 0, 0));
        t.set_cover(0, quantise_cover(-45.0, Cover::Land), Cover::Land);
        t.set_cover(1, quantise_cover(-4_000.0, Cover::Ocean), Cover::Ocean);
        t.set_cover(2, quantise_cover(-28.0, Cover::Lake), Cover::Lake);
        let mut g = vec![0.0f32; TILE_LEN];
        t.gpu_heights(&mut g);
        for (k, v) in g.iter().enumerate().take(3) {
            assert_eq!(v.to_bits() & !3, t.heights[k].to_bits(), "sample {k} exact");
            assert_eq!(v.to_bits() & 3, t.cover_at(k).gpu_bits());
        }
    }
}
