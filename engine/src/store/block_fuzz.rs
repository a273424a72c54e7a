//! Fuzzing the tile-store reader: block headers (random, truncated, mutated, and re-sealed
//! with impossible fields under a valid checksum), whole block files on disk made by the
//! writer and then damaged, and tile payloads. A damaged header or file length resets the
//! block with a reason, a damaged slot is re-derived, and nothing damaged is ever served.

use super::block::{
    BlockFile, BlockId, Header, SlotProblem, BLOCK_FILE_BYTES, FORMAT_VERSION, HEADER_USED,
};
use crate::earth::tile::{Tile, TILE_DISK_BYTES, TILE_LEN};
use crate::params::MAX_LEVEL;
use crate::planet::{Face, TileId};
use crate::testing::{mutate_bytes, run, Rng, HUGE_U32};
use std::collections::BTreeMap;
use std::fs::OpenOptions;
use std::os::unix::fs::FileExt;
use std::path::PathBuf;
use std::time::Duration;

const SEED: u64 = 0xB10C_F00D;
const RADIUS: f64 = 6_371_000.0;
/// Far above any real case, far below a hang; generous so a loaded machine does not fail.
const PER_CASE: Duration = Duration::from_millis(500);

/// A header whose every field is in range.
fn valid_header(r: &mut Rng) -> Header {
    let level = r.below(MAX_LEVEL as usize + 1) as u8;
    let edge = (1usize << level).div_ceil(4);
    let mut h = Header::new(
        BlockId {
            level,
            face: Face(r.below(6) as u8),
            bx: r.below(edge) as u32,
            by: r.below(edge) as u32,
        },
        r.range_f64(1.0, 1e8),
    );
    h.derivation = r.next_u64() as u32;
    h.present = r.next_u64() as u16;
    h.crc = std::array::from_fn(|_| r.next_u64() as u32);
    h
}

/// The header with one field made impossible; `encode` seals it with a valid checksum.
fn impossible_header(r: &mut Rng) -> Header {
    let mut h = valid_header(r);
    match r.below(4) {
        0 => h.radius = *r.pick(&[f64::NAN, f64::INFINITY, -f64::INFINITY, 0.0, -RADIUS]),
        1 => h.block.face = Face(6 + r.below(250) as u8),
        2 => h.block.level = MAX_LEVEL + 1 + r.below(255 - MAX_LEVEL as usize) as u8,
        _ => {
            let edge = (1u32 << h.block.level).div_ceil(4);
            let far = edge + *r.pick(HUGE_U32) % (u32::MAX - edge);
            if r.one_in(2) {
                h.block.bx = far
            } else {
                h.block.by = far
            }
        }
    }
    h
}

#[derive(Debug)]
enum Expect {
    Header(Header),
    Refused,
}

#[derive(Debug)]
struct HeaderCase {
    expect: Expect,
    bytes: Vec<u8>,
}

fn header_case(r: &mut Rng) -> HeaderCase {
    let h = valid_header(r);
    let mut valid = h.encode();
    let n = r.below(200);
    valid.extend(if r.one_in(2) { vec![0; n] } else { r.bytes(n) });
    let (expect, bytes) = match r.below(8) {
        0 => {
            let n = r.below(200);
            let mut b = if r.one_in(2) {
                b"PFTILES\0".to_vec()
            } else {
                Vec::new()
            };
            b.extend(r.bytes(n));
            (Expect::Refused, b)
        }
        1 => (Expect::Refused, valid[..r.below(HEADER_USED)].to_vec()),
        2 | 3 => {
            let b = mutate_bytes(r, &valid, 4096);
            // Bytes past the used header are not read; any change before them is caught by
            // the checksum (a CRC-32 misses a random change with probability 2^-32).
            if b.len() >= HEADER_USED && b[..HEADER_USED] == valid[..HEADER_USED] {
                (Expect::Header(h), b)
            } else {
                (Expect::Refused, b)
            }
        }
        4 | 5 => (Expect::Refused, impossible_header(r).encode()),
        6 => {
            // Another format version under a valid checksum.
            let mut b = valid[..HEADER_USED].to_vec();
            let other = FORMAT_VERSION + 1 + r.below(1000) as u32;
            b[8..12].copy_from_slice(&other.to_le_bytes());
            let crc = crc32fast::hash(&b[..HEADER_USED - 4]);
            b[HEADER_USED - 4..].copy_from_slice(&crc.to_le_bytes());
            (Expect::Refused, b)
        }
        _ => (Expect::Header(h), valid),
    };
    HeaderCase { expect, bytes }
}

fn check_header(c: &HeaderCase) -> Result<(), String> {
    match (Header::decode(&c.bytes), &c.expect) {
        (Ok(got), Expect::Header(want)) if got == *want => Ok(()),
        (Ok(got), Expect::Header(want)) => Err(format!("decoded {got:?}, wrote {want:?}")),
        (Ok(got), Expect::Refused) => Err(format!("damaged header accepted: {got:?}")),
        (Err(why), Expect::Header(_)) => Err(format!("valid header refused: {why}")),
        (Err(why), Expect::Refused) if why.is_empty() => Err("refused without a reason".into()),
        (Err(_), Expect::Refused) => Ok(()),
    }
}

#[test]
fn headers_random_truncated_mutated_and_impossible() {
    let r = run(
        "block header",
        SEED,
        20_000,
        PER_CASE,
        header_case,
        check_header,
    );
    assert_eq!(r.cases, 20_000);
}

/// A tile with a recognisable, id-dependent payload (both sides of sea level).
fn tile(id: TileId) -> Tile {
    let mut t = Tile::empty(id);
    for k in 0..TILE_LEN {
        let mixed = (k as u32).wrapping_mul(2_654_435_761) ^ id.x.wrapping_mul(977);
        t.set(k, (mixed >> 7) as u16);
    }
    t
}

/// Ways to damage a block file, applied to the file on disk.
#[derive(Debug)]
enum Damage {
    None,
    SetLen(u64),
    /// Bits flipped at these offsets of the header page (offset → nonzero mask).
    HeaderBytes(BTreeMap<usize, u8>),
    /// Bits flipped in slot `k` (present or not).
    SlotBytes(usize, BTreeMap<usize, u8>),
    /// A re-sealed header: this one instead of the writer's.
    Header(Header),
}

/// One to four distinct offsets below `len`, each with a nonzero mask of bits to flip.
fn flips(r: &mut Rng, len: usize) -> BTreeMap<usize, u8> {
    (0..1 + r.below(4))
        .map(|_| (r.below(len), 1 << r.below(8)))
        .collect()
}

#[test]
fn damaged_block_files_reset_or_re_derive_never_serve_bad_tiles() {
    let root = std::env::temp_dir().join(format!("planetfall-block-fuzz-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let block = BlockId::of(TileId::new(3, Face(2), 4, 0));
    let ids = [TileId::new(3, Face(2), 5, 1), TileId::new(3, Face(2), 7, 3)];
    let tiles = ids.map(tile);
    let path: PathBuf = block.path(&root);
    // The writer makes the block; `pristine` restores it after each case.
    let write = || -> Header {
        let (f, mut h, _) = BlockFile::open(&root, block, RADIUS).unwrap();
        for t in &tiles {
            h.crc[BlockId::slot(t.id)] = f.write_slot(t).unwrap();
            h.present |= 1 << BlockId::slot(t.id);
        }
        f.write_header(&h).unwrap();
        h
    };
    let written = write();
    let pristine = || {
        let f = OpenOptions::new().write(true).open(&path).unwrap();
        f.set_len(BLOCK_FILE_BYTES).unwrap();
        drop(f);
        write()
    };
    let slot_of = |k: usize| 4096 + k * TILE_DISK_BYTES;
    let make = |r: &mut Rng| match r.below(7) {
        0 => Damage::None,
        1 => Damage::SetLen(match r.below(3) {
            0 => r.below(BLOCK_FILE_BYTES as usize) as u64,
            1 => BLOCK_FILE_BYTES + 1 + r.below(1 << 20) as u64,
            _ => 1 << 34,
        }),
        2 => {
            let len = if r.one_in(2) { HEADER_USED } else { 4096 };
            Damage::HeaderBytes(flips(r, len))
        }
        3 | 4 => {
            let k = if r.one_in(3) {
                r.below(16)
            } else {
                BlockId::slot(ids[r.below(2)])
            };
            Damage::SlotBytes(k, flips(r, TILE_DISK_BYTES))
        }
        5 => Damage::Header(impossible_header(r)),
        _ => {
            // Claims an unwritten slot, or names another body.
            let mut h = written.clone();
            if r.one_in(2) {
                h.present |= 1 << r.below(16);
            } else {
                h.radius = RADIUS + 1.0;
            }
            Damage::Header(h)
        }
    };
    let check = |d: &Damage| -> Result<(), String> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .open(&path)
            .unwrap();
        let mut header_damaged = false;
        match d {
            Damage::None => {}
            Damage::SetLen(n) => {
                file.set_len(*n).unwrap();
                header_damaged = true;
            }
            Damage::HeaderBytes(at) | Damage::SlotBytes(_, at) => {
                let base = match d {
                    Damage::SlotBytes(k, _) => slot_of(*k),
                    _ => 0,
                };
                for (&o, &bits) in at {
                    let mut b = [0u8];
                    file.read_exact_at(&mut b, (base + o) as u64).unwrap();
                    file.write_all_at(&[b[0] ^ bits], (base + o) as u64)
                        .unwrap();
                    header_damaged |= base == 0 && o < HEADER_USED;
                }
            }
            Damage::Header(h) => {
                file.write_all_at(&h.encode(), 0).unwrap();
                header_damaged = Header::decode(&h.encode()).map_or(true, |got| {
                    got.block != block
                        || got.radius != RADIUS
                        || got.derivation != written.derivation
                });
            }
        }
        drop(file);
        let (f, h, problem) = BlockFile::open(&root, block, RADIUS).map_err(|e| e.to_string())?;
        if header_damaged != problem.is_some() {
            return Err(format!(
                "damage {header_damaged}, problem reported: {problem:?}"
            ));
        }
        if header_damaged && h != Header::new(block, RADIUS) {
            return Err(format!("a damaged block was not reset: {h:?}"));
        }
        for k in 0..16 {
            let id = TileId::new(3, Face(2), 4 + (k % 4) as u32, (k / 4) as u32);
            let want = ids
                .iter()
                .position(|&i| i == id)
                .filter(|_| !header_damaged);
            let hit = matches!(d, Damage::SlotBytes(s, _) if *s == k);
            match (f.read_tile(&h, id), want) {
                (Ok(t), Some(i)) if !hit && t == tiles[i] => {}
                (Err(SlotProblem::Corrupt(_)), Some(_)) if hit => {}
                (Err(SlotProblem::Absent), None) if h.present >> k & 1 == 0 => {}
                (Err(SlotProblem::Corrupt(_)), None) if h.present >> k & 1 == 1 => {}
                (got, _) => return Err(format!("slot {k}: {got:?} (expected tile {want:?})")),
            }
        }
        drop(f);
        if !matches!(d, Damage::None) {
            pristine();
        }
        Ok(())
    };
    let r = run("block file", SEED, 200, Duration::from_secs(2), make, check);
    let _ = std::fs::remove_dir_all(&root);
    assert_eq!(r.cases, 200);
}

#[test]
fn tile_payloads_of_any_length_or_with_flipped_bits() {
    let id = TileId::new(4, Face(1), 3, 9);
    let valid = {
        let mut b = vec![0u8; TILE_DISK_BYTES];
        tile(id).encode(&mut b);
        b
    };
    let make = |r: &mut Rng| match r.below(3) {
        0 => valid[..r.below(valid.len())].to_vec(),
        1 => {
            let mut b = valid.clone();
            let n = 1 + r.below(64);
            b.extend(r.bytes(n));
            b
        }
        _ => {
            let mut b = valid.clone();
            for _ in 0..1 + r.below(4) {
                let k = r.below(b.len());
                b[k] ^= 1 << r.below(8);
            }
            b
        }
    };
    let check = |b: &Vec<u8>| -> Result<(), String> {
        match Tile::decode(id, b) {
            None => Ok(()),
            Some(_) if b.len() != TILE_DISK_BYTES => Err("wrong length accepted".into()),
            Some(t) => {
                // Whatever is accepted has lakes only on water and the ocean's floor below the
                // datum.
                let bad = (0..TILE_LEN).find(|&k| {
                    let (w, l) = (
                        t.water[k / 64] >> (k % 64) & 1,
                        t.lake[k / 64] >> (k % 64) & 1,
                    );
                    (l == 1 && w == 0) || (w == 1 && l == 0 && t.heights[k] >= 0.0)
                });
                bad.map_or(Ok(()), |k| {
                    Err(format!("sample {k}: cover and height disagree"))
                })
            }
        }
    };
    run("tile payload", SEED, 1_000, PER_CASE, make, check);
}
