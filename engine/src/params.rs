//! Constants that more than one module (or the GPU) must agree on, in one place, with units.
//! See `docs/conventions.md` and `docs/earth.md` for where each comes from.

/// Earth's mean radius, metres (the datum sphere; TERRAIN.md §1).
pub const EARTH_RADIUS_M: f64 = 6_371_000.0;

/// Samples per tile edge (texel centres), TERRAIN.md §1.
pub const TILE_SAMPLES: u32 = 512;
/// Apron samples on every side of a tile.
pub const TILE_APRON: u32 = 4;
/// Stored samples per tile edge: 512 + 2·4 = 520.
pub const TILE_STRIDE: u32 = TILE_SAMPLES + 2 * TILE_APRON;
/// Finest level the engine addresses (L18 ≈ 7.5 cm texels on Earth).
pub const MAX_LEVEL: u8 = 18;

/// Levels L0..L1 are 2×2 reductions of L2; L2..=L9 are derived from the source and stored.
pub const FIRST_DERIVED_LEVEL: u8 = 2;
/// Finest stored level (L9 ≈ 38 m texels); finer levels amplify their L9 ancestor (§6).
pub const LAST_STORED_LEVEL: u8 = 9;

/// From this level up the GPU chart is the fitted cubic; below it the exact (atan) chart,
/// whose f32 error there is ≤ 1e-3 texel (measured by `planet::chart` tests).
pub const CUBIC_CHART_MIN_LEVEL: u8 = 5;

/// Height quantisation on disk and in memory: h = HEIGHT_Q_MIN_M + code·HEIGHT_Q_STEP_M,
/// code ∈ [0, 65535]. The step is a dyadic fraction (5/16 m) so every code is exact in f32,
/// and the minimum is a whole number of steps so 0 m (sea level) is a code. The range
/// −11,250 … +9,229.7 m covers ETOPO5 (−10,376 … +7,833 m) plus band detail. A global (not
/// per-tile) step keeps shared apron samples bit-identical between tiles.
pub const HEIGHT_Q_STEP_M: f64 = 0.3125;
/// Height of code 0, metres.
pub const HEIGHT_Q_MIN_M: f64 = -11_250.0;

/// Version of the derivation (source reconstruction + bands); part of every block header so
/// a changed derivation never reads stale tiles. 2: tan, asin and atan2 from `earth::fmath`
/// (the kernels the GPU derivation shares), no longer std's. 3: under a water mask, the cubic
/// coastline, the sea floor at least 1 m below the datum and coastal land at least 1 m above.
pub const DERIVATION_VERSION: u32 = 3;

/// Cell size of the water mask, arc minutes (`earth::water`, docs/earth.md "Water"). 2′
/// (3.7 km, 10,800 × 5,400 cells, 58 MB) is 2.5 × finer than ETOPO5, enough to keep lakes and
/// straits a few km wide; `grdlandmask` makes it in 41 s once (2 cores). 1′ costs 233 MB in
/// every process and 172 s (1 GB) to build; 5′ (11 s, 9 MB) loses lakes under ~10 km.
pub const WATER_MASK_MINUTES: u32 = 2;

// The sun when none is set: 30° high in the south-east of the point under the camera — with
// no time of day, this keeps relief readable everywhere (`renderer::local_sun`).

/// Sun azimuth, degrees clockwise from north.
pub const SUN_AZIMUTH_DEG: f64 = 135.0;
/// Sun elevation above the horizon, degrees.
pub const SUN_ELEVATION_DEG: f64 = 30.0;

// Streaming (TERRAIN.md §5, `engine::stream`, `docs/streaming.md`).

/// Tile slots on the GPU (TERRAIN.md §2: 1,024). The GPU side may lower it from device limits;
/// everything in `stream` takes the slot count as a parameter and uses this as the default.
pub const STREAM_SLOTS: usize = 1024;
/// Physical pages beyond the slot count, kept for same-slot cross-fade replacement (§5: 64).
/// Pages are handed out from one free list, so at least this many are always free.
pub const STREAM_RESERVED_PAGES: usize = 64;
/// Most tiles in one frame's wanted set, ancestors included (§5: 700). Breadth first, so the
/// cap trims the finest level reached; parents serve there.
pub const STREAM_MAX_WANTED_TILES: usize = 700;
/// The wanted set (with its parent chains) may use at most this fraction of the slots (§5:
/// 75 %); the rest hold tiles in transition and recently left ones for revisits.
pub const STREAM_DEMAND_FRACTION: f64 = 0.75;
/// An arriving tile fades in against its parent over this long, seconds (§5: 0.5 s).
pub const STREAM_FADE_S: f64 = 0.5;
/// A same-slot replacement cross-fades from the old payload to the new over this long,
/// seconds (§5: 1.5 s).
pub const STREAM_XFADE_S: f64 = 1.5;
/// A camera cut (`stream::cut`): successive eyes farther apart than this many times the lower
/// eye's height above the datum. A 60° view straight down at height h covers ±0.58 h by
/// ±1.0 h (16:9), so a jump of 2 h leaves no ground in common; grazing views see farther, so
/// twice that.
pub const STREAM_CUT_JUMP_HEIGHTS: f64 = 4.0;
/// Heights below this count as this in the cut rule, metres: a flight at 2 m over the sea at
/// 1,000 m/s moves 17 m a 60 Hz frame and is no cut; a jump must exceed 400 m.
pub const STREAM_CUT_MIN_HEIGHT_M: f64 = 100.0;
/// After a cut, arrivals and same-slot replacements show at full weight at once until the
/// wanted set is first complete, or for at most this long, seconds on the renderer's clock:
/// four arrival fades, by when the viewer has been looking at the new image long enough for
/// a tile appearing at once to read as a pop, and a camera that keeps moving (its wanted set
/// never complete) does not keep fades off.
pub const STREAM_CUT_WINDOW_MAX_S: f64 = 2.0;
/// Levels the stream draws from a provisional stand-in (sampled straight from the source)
/// while the exact tile is made: L0–L2, 126 tiles in all, so the first frame has the whole
/// globe at coarse levels however cold the store is.
pub const STREAM_PROVISIONAL_MAX_LEVEL: u8 = 2;
/// Height bounds every tile is assumed to lie within when no tighter per-tile bound is known,
/// metres above the datum. The quantised range (HEIGHT_Q_*) is −11,250 … +9,229.7 m, so every
/// stored height lies inside; the 50–70 m margins cover amplified detail above L9 (§6 caps each
/// band at 0.30·λ: < 30 m summed for L11–L15 on Earth). Used by the horizon cull (top) and for
/// tile bounding volumes and distances (both, the ground shell of TERRAIN §7b).
pub const STREAM_MAX_HEIGHT_M: f64 = 9_300.0;
pub const STREAM_MIN_HEIGHT_M: f64 = -11_300.0;

// The fine-detail gain (TERRAIN.md §6, `engine::cbt::gain`, docs/earth.md "Fine-detail gain").

/// Coarsest level whose depth cap the mesh always honours. Splits that only a finer level's
/// cap allows (L15+: legs under a quarter of L14's 1.2 m texel on Earth) are counted, and the
/// gain moves the cap back towards this level's.
pub const FINE_DETAIL_LEVEL: u8 = 14;
/// Each frame with any such split wish multiplies the gain by this (§6: attenuates by 20 %).
pub const FINE_GAIN_DECAY: f64 = 0.8;
/// Below this the gain snaps to 0 (ours: 1 % is 21 attenuations from 1; the cap is then within
/// 0.04 levels of L14's on an L18 tile, and snapping makes the end state exact).
pub const FINE_GAIN_SNAP: f64 = 0.01;
