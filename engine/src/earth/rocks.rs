//! Rocks (TERRAIN.md §6, `docs/earth.md`): hashed candidates on a 3-D lattice of the datum
//! sphere, accepted once from the L9 surface under their centre, shaped as faceted blocks and
//! pre-filtered to each level's lattice from L13. Part of the amplified height (`amplify.rs`);
//! `shaders/common/amplify_detail.glsl` mirrors it operation for operation.

use super::amplify::L9Samples;
use super::bands::{hash3, mix};
use crate::params::{LAST_STORED_LEVEL, TILE_SAMPLES};
use crate::planet::{Body, Face};
use glam::DVec3;
use std::f64::consts::FRAC_PI_4;

/// Candidates per cell, each occupied at ROCK_OCCUPANCY, and their radius range. A cell keeps a
/// candidate only if its centre lies in the cell on the datum sphere (`rock_in_cell`), which
/// leaves about one layer of cells around the sphere: two candidates per 6 m cell cover ~9 %
/// of bare ground, as the 8 m cells did when the layers above and below counted too (and cut
/// their rocks off at cell boundaries). A rock's filtered footprint must stay under a cell
/// (L13: long semi-axis √(2.5·2² + 4.77²) = 5.72 m) so that the 27 cells around a point find it.
pub const ROCKS_PER_CELL: u64 = 2;
const ROCK_MIN_RADIUS_M: f64 = 0.64;
pub(crate) const ROCK_MAX_RADIUS_M: f64 = 2.0;
/// Rocks: cell size on the datum sphere, the share of cells holding one (§6: 35 %), and the
/// lowest L9 ground (metres) and steepest L9 slope a rock is accepted on.
pub const ROCK_CELL_M: f64 = 6.0;
const ROCK_OCCUPANCY: f64 = 0.35;
const ROCK_MIN_GROUND_M: f64 = 2.0;
const ROCK_MAX_SLOPE: f64 = 1.0;
/// Boulders come from bare rock: weathered slopes, moraines, talus. Flat sedimentary ground —
/// salt flats, playas, plains, deltas — has none, so the share of candidates accepted ramps
/// linearly with the L9 slope from none at ROCK_BARE_SLOPE to all at ROCK_FULL_SLOPE.
/// Measured L9 slopes (`planetfall height --level 9`, 111 m apart): Salar de Uyuni and
/// Bonneville 0.003–0.004, German and Saharan lowlands 0.004–0.006, Kansas 0.008; Khumbu's
/// valley floor 0.035–0.08, the Grand Canyon's rim 0.12.
pub(crate) const ROCK_BARE_SLOPE: f64 = 0.005;
pub(crate) const ROCK_FULL_SLOPE: f64 = 0.025;
/// A rock sampled on a level's lattice is pre-filtered to that lattice: each semi-axis widens
/// to √(a² + (ROCK_FILTER_TEXELS·texel)²), its height falls so its volume holds, its sides
/// rise over no less than that width, and the lattice draws only the share of its sharp shape
/// (facets, flat top, steep sides) that the short semi-axis carries against that width (see
/// `Filtered`). A rock of 0.64–2 m on the 2.4 m lattice of L13 would otherwise be a spike or
/// nothing depending on where the lattice falls, and change shape from level to level as finer
/// levels blend in (the descent's pops were all on rock outlines). Position and the rock's own
/// size, aspect and height stay those of the rock at every level; L18 shows it nearly
/// unfiltered (the narrowest rocks 7 % wider). Two texels keep the volume a lattice sums within
/// 7.1 % on every level from L13 (one texel: 37 %; none: a spike of 5× or nothing).
const ROCK_FILTER_TEXELS: f64 = 2.0;
/// A rock's footprint is an ellipse up to this long over short semi-axis, cut by this many
/// hashed planes (boulders are blocks and slabs, not domes).
const ROCK_MAX_ASPECT: f64 = 2.5;
pub const ROCK_FACETS: usize = 4;

const SEED_ROCK: u64 = 0xa5a5_0004;
const SEED_ROCK_SHAPE: u64 = 0xa5a5_0005;
/// And `SEED_ROCK_FACET + 1`.
const SEED_ROCK_FACET: u64 = 0xa5a5_0006;

/// One rock (metres): where it stands, its footprint and height, and the hashed shape that
/// makes it read as a rock rather than a dome.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rock {
    pub centre: DVec3,
    /// Radius of the circle of the footprint's area: the ellipse's semi-axes are radius·√aspect
    /// along `long` and radius/√aspect along `short`.
    pub radius: f64,
    pub height: f64,
    /// The cell's occupancy draw, uniform in [0, ROCK_OCCUPANCY) among occupied cells: ranks
    /// the rock against the slope ramp (a rock appears as the slope rises, never vanishes).
    pub draw: f64,
    /// Footprint's long over short semi-axis, 1–2.5.
    pub aspect: f64,
    /// Unit axes of the footprint in the tangent plane at the centre.
    pub long: DVec3,
    pub short: DVec3,
    /// Share of the rock's rounded body below the ground, 0.15–0.7: deep ones show a cap.
    pub burial: f64,
    /// Cutting planes in the footprint's unit frame: height ≤ c − g·(u·dx + v·dy), as
    /// [dx, dy, c, g].
    pub facets: [[f64; 4]; ROCK_FACETS],
}

/// Uniform in [0, 1) from bits k·10.. of a hash.
#[inline]
fn bits10(h: u64, k: u32) -> f64 {
    ((h >> (k * 10)) & 0x3ff) as f64 / 1024.0
}

/// Unit vector at the angle whose half-angle tangent is t (rational: no trigonometry, so the
/// GPU's doubles agree bit for bit).
#[inline]
fn rational_dir(t: f64) -> (f64, f64) {
    let d = 1.0 + t * t;
    ((1.0 - t * t) / d, (2.0 * t) / d)
}

/// Candidate `k` (< ROCKS_PER_CELL) of cell (x, y, z) of the datum sphere's 3-D lattice, if
/// the cell holds it (before acceptance). The cell holds it only if the rock's centre, on the datum sphere,
/// lies in the cell itself: then every point of its footprint (under one cell wide on every
/// level) finds it among the 27 cells around, so no rock is cut by a cell boundary.
pub fn rock_in_cell(body: Body, x: i64, y: i64, z: i64, k: u64) -> Option<Rock> {
    let salt = k << 32;
    let h = hash3(x, y, z, SEED_ROCK ^ salt);
    let u = |k: u32| ((h >> (k * 12)) & 0xfff) as f64 / 4096.0;
    if u(0) >= ROCK_OCCUPANCY {
        return None;
    }
    let c = (DVec3::new(x as f64, y as f64, z as f64) + DVec3::new(u(1), u(2), u(3))) * ROCK_CELL_M;
    let n = c.normalize();
    let home = (n * body.radius / ROCK_CELL_M).floor();
    if home != DVec3::new(x as f64, y as f64, z as f64) {
        return None;
    }
    let radius = ROCK_MIN_RADIUS_M + (ROCK_MAX_RADIUS_M - ROCK_MIN_RADIUS_M) * u(4);
    let s = hash3(x, y, z, SEED_ROCK_SHAPE ^ salt);
    let f = hash3(x, y, z, SEED_ROCK_FACET ^ salt);
    let aspect = 1.0 + (ROCK_MAX_ASPECT - 1.0) * bits10(s, 0);
    let b = bits10(s, 2);
    let burial = 0.15 + 0.55 * (b * b * b);
    // A tangent frame at the centre (any fixed rule: the hashed angle turns it).
    let reference = if n.z.abs() < 0.9 { DVec3::Z } else { DVec3::X };
    let e1 = reference.cross(n).normalize();
    let e2 = n.cross(e1);
    let (ca, sa) = rational_dir(2.0 * bits10(s, 1) - 1.0);
    let long = ca * e1 + sa * e2;
    let short = ca * e2 - sa * e1;
    // Facets on the four sides of the footprint, each turned up to ±44°, tilted 0.4–0.8 and
    // offset 0.75–1.25 (heights over semi-axes): they cut a shoulder or the top, never the
    // footprint inside 0.94 of its semi-axis; the highest ones cut nothing (2–4 facets show).
    let stream = [s, f, hash3(x, y, z, (SEED_ROCK_FACET + 1) ^ salt)];
    let field = |m: usize| bits10(stream[m / 6], (m % 6) as u32);
    let side = [(1.0, 0.0), (0.0, 1.0), (-1.0, 0.0), (0.0, -1.0)];
    let mut facets = [[0.0; 4]; ROCK_FACETS];
    for (k, facet) in facets.iter_mut().enumerate() {
        let (tc, ts) = rational_dir(0.8 * field(3 + 3 * k) - 0.4);
        let (sx, sy) = side[k];
        *facet = [
            sx * tc - sy * ts,
            sx * ts + sy * tc,
            0.75 + 0.5 * field(4 + 3 * k),
            0.4 + 0.4 * field(5 + 3 * k),
        ];
    }
    Some(Rock {
        centre: n,
        radius,
        // Deeply buried rocks show a low cap.
        height: radius * (0.4 + 0.5 * ((h >> 60) as f64 / 16.0)) * (1.15 - burial),
        draw: u(0),
        aspect,
        long,
        short,
        burial,
        facets,
    })
}

/// Face-coordinate of a direction along one face axis, extended beyond the face edge.
#[inline]
pub fn face_coord(dir: DVec3, face: Face, axis: DVec3) -> f64 {
    super::fmath::atan2(dir.dot(axis), dir.dot(face.axis())) / FRAC_PI_4
}

/// Whether a rock is accepted against the L9 surface at its centre (bilinear from the
/// stencil's samples, which always cover the centre: rocks are metres, L9 texels 38 m): on
/// ground, not too steep to hold it, and steep enough for its rank (`ROCK_BARE_SLOPE`). The
/// ramp is compared without a division, so the GPU's double arithmetic matches bit for bit.
fn rock_accepted(src: &impl L9Samples, body: Body, face: Face, rock: &Rock) -> bool {
    let n9 = (TILE_SAMPLES as i64) << LAST_STORED_LEVEL;
    let to_l9 = |s: f64| ((s + 1.0) * n9 as f64 - 1.0) * 0.5;
    let x = to_l9(face_coord(rock.centre, face, face.u_axis()));
    let y = to_l9(face_coord(rock.centre, face, face.v_axis()));
    let (ci, cj) = (x.floor(), y.floor());
    let (fx, fy) = (x - ci, y - cj);
    let (ci, cj) = (ci as i64, cj as i64);
    let q = [
        src.l9(face, ci, cj),
        src.l9(face, ci + 1, cj),
        src.l9(face, ci, cj + 1),
        src.l9(face, ci + 1, cj + 1),
    ];
    if q.iter().any(|&v| v < ROCK_MIN_GROUND_M) {
        return false;
    }
    let lo = q[0] + (q[1] - q[0]) * fx;
    let hi = q[2] + (q[3] - q[2]) * fx;
    let gx = (q[1] - q[0]) + ((q[3] - q[2]) - (q[1] - q[0])) * fy;
    let gy = hi - lo;
    let slope = (gx * gx + gy * gy).sqrt();
    let texel = body.texel(LAST_STORED_LEVEL);
    let ramp = (ROCK_FULL_SLOPE - ROCK_BARE_SLOPE) * texel;
    (lo + gy * fy) >= ROCK_MIN_GROUND_M
        && slope < ROCK_MAX_SLOPE * texel
        && (slope - ROCK_BARE_SLOPE * texel) * ROCK_OCCUPANCY > rock.draw * ramp
}

/// A rock as level `level`'s lattice shows it (see `ROCK_FILTER_TEXELS`): semi-axes widened by
/// the lattice's texel, height lowered so the volume of the shape holds, and how much of its
/// sharp shape the lattice carries.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Filtered {
    pub long: f64,
    pub short: f64,
    pub height: f64,
    /// 0: the smooth dome; 1: the faceted block. The short semi-axis's share of the filtered
    /// one (squared): a facet or a steep side is drawn only on a lattice fine enough for the
    /// rock, and comes in level by level as the lattice refines.
    pub sharp: f64,
    /// The sharp shape's sides rise over at least the filter's width (two texels): its
    /// height ≤ (1 − q)·rim, rim = short semi-axis / width.
    pub rim: f64,
}

pub fn rock_filtered(rock: &Rock, body: Body, level: u8) -> Filtered {
    let w = ROCK_FILTER_TEXELS * body.texel(level);
    let w2 = w * w;
    let ra = rock.aspect.sqrt();
    let (a, b) = (rock.radius * ra, rock.radius / ra);
    let (fa2, fb2) = (a * a + w2, b * b + w2);
    let (fa, fb) = (fa2.sqrt(), fb2.sqrt());
    Filtered {
        long: fa,
        short: fb,
        height: rock.height * ((a * b) / (fa * fb)),
        sharp: (b * b) / fb2,
        rim: fb / w,
    }
}

/// A rock's shape, 0–1 of its filtered height, at (x, y) metres along its long and short axes
/// from its centre. The sharp shape is a rounded block (a superellipsoid, (1 − s⁴)^¼, whose
/// lower `burial` share is underground: flat top, steep sides) cut by its facets, its sides
/// rising over no less than two of the lattice's texels; the smooth one the dome 1 − q⁴ (q the elliptic distance;
/// volume ⅔·π·a·b per unit height), which a coarse lattice samples without aliasing.
pub fn rock_shape(rock: &Rock, f: &Filtered, x: f64, y: f64) -> f64 {
    let (u, v) = (x / f.long, y / f.short);
    let q2 = u * u + v * v;
    if q2 >= 1.0 {
        return 0.0;
    }
    let q4 = q2 * q2;
    let dome = 1.0 - q4;
    let b = rock.burial;
    let b2 = b * b;
    let mut cut = ((1.0 - q4 * (1.0 - b2 * b2)).sqrt().sqrt() - b) / (1.0 - b);
    cut = cut.min((1.0 - q2.sqrt()) * f.rim);
    for [dx, dy, c, g] in rock.facets {
        cut = cut.min(c - g * (u * dx + v * dy));
    }
    dome + f.sharp * (cut.max(0.0) - dome)
}

/// The height one rock adds at `dir` on `level`'s lattice (whether or not it is accepted).
pub fn rock_bump(rock: &Rock, body: Body, level: u8, dir: DVec3) -> f64 {
    let f = rock_filtered(rock, body, level);
    let o = (dir - rock.centre) * body.radius;
    if o.length() >= f.long {
        return 0.0;
    }
    f.height * rock_shape(rock, &f, o.dot(rock.long), o.dot(rock.short))
}

/// Every accepted rock of the 27 cells around cell `c` of the rock lattice, read against
/// `face`'s L9 surface, in a fixed order (the cells' and then the candidates').
pub(crate) fn accepted_around(
    src: &impl L9Samples,
    body: Body,
    face: Face,
    c: [i64; 3],
    out: &mut Vec<Rock>,
) {
    for cell in cells_around(c) {
        accepted_in_cell(src, body, face, cell, out);
    }
}

/// The 27 cells around cell `c`, `c` among them, in a fixed order.
fn cells_around(c: [i64; 3]) -> impl Iterator<Item = [i64; 3]> {
    (-1..=1).flat_map(move |dz| {
        (-1..=1).flat_map(move |dy| (-1..=1).map(move |dx| [c[0] + dx, c[1] + dy, c[2] + dz]))
    })
}

/// The accepted rocks of one cell, pushed onto `out`.
fn accepted_in_cell(
    src: &impl L9Samples,
    body: Body,
    face: Face,
    [x, y, z]: [i64; 3],
    out: &mut Vec<Rock>,
) {
    for k in 0..ROCKS_PER_CELL {
        if let Some(rock) = rock_in_cell(body, x, y, z, k) {
            if rock_accepted(src, body, face, &rock) {
                out.push(rock);
            }
        }
    }
}

/// The rock lattice's cell holding `dir`.
#[inline]
pub(crate) fn rock_cell(body: Body, dir: DVec3) -> [i64; 3] {
    let c = (dir * body.radius / ROCK_CELL_M).floor();
    [c.x as i64, c.y as i64, c.z as i64]
}

/// Height added by rocks at `dir` on `level`'s lattice (the tallest covering it: rocks never
/// stack), among the accepted rocks of the 27 cells around it.
pub fn rock_height(src: &impl L9Samples, body: Body, level: u8, face: Face, dir: DVec3) -> f64 {
    let mut top = 0.0;
    src.rocks_around(body, face, rock_cell(body, dir), &mut |rocks| {
        top = tallest(rocks, body, level, dir);
    });
    top
}

/// The highest bump of `rocks` at `dir` (0 where none covers it). The maximum does not depend
/// on the rocks' order, so a source may keep and hand them out in any order it likes.
fn tallest<'r>(rocks: impl Iterator<Item = &'r Rock>, body: Body, level: u8, dir: DVec3) -> f64 {
    let mut top: f64 = 0.0;
    for rock in rocks {
        let f = rock_filtered(rock, body, level);
        let o = (dir - rock.centre) * body.radius;
        // A rock's shape is at most 1 of its filtered height: one no taller than the
        // tallest so far cannot win.
        if o.length() >= f.long || f.height <= top {
            continue;
        }
        top = top.max(f.height * rock_shape(rock, &f, o.dot(rock.long), o.dot(rock.short)));
    }
    top
}

/// The accepted rocks around each cell a tile's samples fall in, kept while the tile is made:
/// its samples a lattice step apart (2.4 m at L13, 7.5 cm at L18) fall in the same 6 m cell
/// for runs of 2–80 samples, and each cell is one of the 27 around many of them. Without it
/// the hashed candidates of 27 cells, and their acceptance against the L9 surface, were most
/// of an amplified tile's time.
#[derive(Default)]
pub(crate) struct RockMemo {
    /// The cell the last sample fell in, and the accepted rocks around it (indices into
    /// `rocks`).
    last: Option<[i64; 3]>,
    around: Vec<u32>,
    /// Per visited cell, its accepted rocks' range in `rocks`.
    cells: std::collections::HashMap<[i64; 3], (u32, u32), CellHash>,
    rocks: Vec<Rock>,
}

impl RockMemo {
    /// The accepted rocks around cell `c` (of `src` on `face`, as `accepted_around`).
    pub(crate) fn around(
        &mut self,
        src: &impl L9Samples,
        body: Body,
        face: Face,
        c: [i64; 3],
    ) -> impl Iterator<Item = &Rock> {
        if self.last != Some(c) {
            self.around.clear();
            for cell in cells_around(c) {
                let (lo, hi) = *self.cells.entry(cell).or_insert_with(|| {
                    let lo = self.rocks.len() as u32;
                    accepted_in_cell(src, body, face, cell, &mut self.rocks);
                    (lo, self.rocks.len() as u32)
                });
                self.around.extend(lo..hi);
            }
            self.last = Some(c);
        }
        self.around.iter().map(|&k| &self.rocks[k as usize])
    }
}

/// The noise's own finaliser (`bands::mix`) over a cell's three integers: the default SipHash
/// costs more than the lookup saves here, and the keys are not adversarial.
#[derive(Default, Clone, Copy)]
pub(crate) struct CellHash;

impl std::hash::BuildHasher for CellHash {
    type Hasher = CellHasher;
    fn build_hasher(&self) -> CellHasher {
        CellHasher(0)
    }
}

pub(crate) struct CellHasher(u64);

impl std::hash::Hasher for CellHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for c in bytes.chunks(8) {
            let mut b = [0u8; 8];
            b[..c.len()].copy_from_slice(c);
            self.write_u64(u64::from_le_bytes(b));
        }
    }
    fn write_i64(&mut self, v: i64) {
        self.write_u64(v as u64);
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = mix(self.0.rotate_left(23) ^ v);
    }
}
