//! On-disk blocks (`docs/earth.md`, "Disk format"): the 16 sibling tiles of level L under one
//! level-(L−2) tile in one file, a header with magic, versions, body parameters,
//! a presence mask and per-tile CRC-32s, itself covered by a header CRC-32.

use crate::earth::tile::{Tile, TILE_DISK_BYTES};
use crate::params::{DERIVATION_VERSION, MAX_LEVEL};
use crate::planet::{Face, TileId};
use std::fs::{File, OpenOptions};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

pub const MAGIC: [u8; 8] = *b"PFTILES\0";
/// Version of this file layout. 2: a lake bitset follows the water bitset, and a sample's
/// water bit is the water mask's, not its height's sign.
pub const FORMAT_VERSION: u32 = 2;
/// Header bytes; tiles start here (one page, so tile data never shares the header's page).
pub const HEADER_BYTES: usize = 4096;
/// Bytes of the header actually used (see `Header::encode`).
pub const HEADER_USED: usize = 104;
/// Tile slots per block (4×4).
pub const BLOCK_TILES: usize = 16;
/// Size of a block file: 4096 + 16 · 608,400 = 9,738,496 bytes.
pub const BLOCK_FILE_BYTES: u64 = HEADER_BYTES as u64 + (BLOCK_TILES * TILE_DISK_BYTES) as u64;

/// The block holding a tile: its level, face and (x/4, y/4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BlockId {
    pub level: u8,
    pub face: Face,
    pub bx: u32,
    pub by: u32,
}

impl BlockId {
    pub fn of(t: TileId) -> BlockId {
        BlockId {
            level: t.level,
            face: t.face,
            bx: t.x / 4,
            by: t.y / 4,
        }
    }
    /// Slot of a tile in its block: (y mod 4)·4 + (x mod 4).
    pub fn slot(t: TileId) -> usize {
        ((t.y % 4) * 4 + (t.x % 4)) as usize
    }
    /// Path of the block file under the data directory.
    pub fn path(&self, root: &Path) -> PathBuf {
        root.join(format!("tiles-v{FORMAT_VERSION}"))
            .join(format!("L{}", self.level))
            .join(format!("f{}", self.face.0))
            .join(format!("{}_{}.pfb", self.bx, self.by))
    }
}

/// Decoded header.
#[derive(Clone, Debug, PartialEq)]
pub struct Header {
    pub block: BlockId,
    pub radius: f64,
    pub derivation: u32,
    /// Bit k set: slot k holds a written tile.
    pub present: u16,
    pub crc: [u32; BLOCK_TILES],
}

impl Header {
    pub fn new(block: BlockId, radius: f64) -> Header {
        Header {
            block,
            radius,
            derivation: DERIVATION_VERSION,
            present: 0,
            crc: [0; BLOCK_TILES],
        }
    }

    /// Layout (little-endian): magic[8], format u32, derivation u32, radius f64, level u8,
    /// face u8, present u16, bx u32, by u32, crc[16] u32, header CRC-32 u32 (of bytes 0..100):
    /// `HEADER_USED` = 104 bytes; the rest of the 4096-byte header page is zero.
    pub fn encode(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(HEADER_USED);
        b.extend_from_slice(&MAGIC);
        b.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        b.extend_from_slice(&self.derivation.to_le_bytes());
        b.extend_from_slice(&self.radius.to_le_bytes());
        b.push(self.block.level);
        b.push(self.block.face.0);
        b.extend_from_slice(&self.present.to_le_bytes());
        b.extend_from_slice(&self.block.bx.to_le_bytes());
        b.extend_from_slice(&self.block.by.to_le_bytes());
        for c in self.crc {
            b.extend_from_slice(&c.to_le_bytes());
        }
        let h = crc32fast::hash(&b);
        b.extend_from_slice(&h.to_le_bytes());
        b
    }

    /// Parses and validates a header; the reason when it is not one we can use.
    pub fn decode(b: &[u8]) -> Result<Header, String> {
        if b.len() < HEADER_USED {
            return Err("header truncated".into());
        }
        let u32_at = |o: usize| u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]);
        if b[..8] != MAGIC {
            return Err("bad magic".into());
        }
        if crc32fast::hash(&b[..HEADER_USED - 4]) != u32_at(HEADER_USED - 4) {
            return Err("header checksum mismatch".into());
        }
        if u32_at(8) != FORMAT_VERSION {
            return Err(format!(
                "format version {} (want {FORMAT_VERSION})",
                u32_at(8)
            ));
        }
        let mut r = [0u8; 8];
        r.copy_from_slice(&b[16..24]);
        let radius = f64::from_le_bytes(r);
        // A header with a valid checksum but impossible contents was written by something
        // else: refuse it here rather than let it reach a tile id or a length computation.
        if !(radius.is_finite() && radius > 0.0) {
            return Err(format!("radius {radius} m is not a positive finite number"));
        }
        let (level, face, bx, by) = (b[24], b[25], u32_at(28), u32_at(32));
        if level > MAX_LEVEL || face >= 6 {
            return Err(format!("level {level} / face {face} out of range"));
        }
        let edge = (1u32 << level).div_ceil(4);
        if bx >= edge || by >= edge {
            return Err(format!(
                "block ({bx}, {by}) outside level {level}'s {edge}×{edge} blocks"
            ));
        }
        let mut crc = [0u32; BLOCK_TILES];
        for (k, c) in crc.iter_mut().enumerate() {
            *c = u32_at(36 + 4 * k);
        }
        Ok(Header {
            block: BlockId {
                level,
                face: Face(face),
                bx,
                by,
            },
            radius,
            derivation: u32_at(12),
            present: u16::from_le_bytes([b[26], b[27]]),
            crc,
        })
    }
}

/// Why a stored tile could not be used (it is then re-derived and rewritten).
#[derive(Debug, PartialEq, Eq)]
pub enum SlotProblem {
    Absent,
    Corrupt(String),
}

/// An open block file, read and written with positioned reads and writes. Not memory-mapped:
/// a file truncated under a mapping raises SIGBUS on the next touch of a lost page, which would
/// kill the process mid-flight; a positioned read just comes back short. The header lives with
/// the caller (under the block's lock); this type is immutable and can be shared between
/// threads.
pub struct BlockFile {
    pub path: PathBuf,
    file: File,
}

impl BlockFile {
    /// Opens (or creates) the block file. A file whose header is unusable, whose parameters
    /// differ (radius, derivation version, block id) or whose length is wrong is reset to an
    /// empty block; the reason is returned so the caller can log it.
    pub fn open(
        root: &Path,
        block: BlockId,
        radius: f64,
    ) -> std::io::Result<(BlockFile, Header, Option<String>)> {
        let path = block.path(root);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)?;
        let len = file.metadata()?.len();
        let mut problem = None;
        let mut header = None;
        if len == 0 {
            // A new block: nothing to report.
        } else if len != BLOCK_FILE_BYTES {
            problem = Some(format!(
                "length {len} bytes, want {BLOCK_FILE_BYTES} (truncated?)"
            ));
        } else {
            let mut hb = vec![0u8; HEADER_USED];
            file.read_exact_at(&mut hb, 0)?;
            match Header::decode(&hb) {
                Ok(h) if h.block != block => problem = Some(format!("holds {:?}", h.block)),
                Ok(h) if h.radius != radius || h.derivation != DERIVATION_VERSION => {
                    problem = Some(format!(
                        "made for radius {} m / derivation {} (now {radius} / {DERIVATION_VERSION})",
                        h.radius, h.derivation
                    ))
                }
                Ok(h) => header = Some(h),
                Err(e) => problem = Some(e),
            }
        }
        let header = match header {
            Some(h) => h,
            None => {
                let h = Header::new(block, radius);
                file.set_len(0)?;
                file.set_len(BLOCK_FILE_BYTES)?;
                file.write_all_at(&h.encode(), 0)?;
                h
            }
        };
        Ok((BlockFile { path, file }, header, problem))
    }

    /// The header as it is on disk now: another process (a concurrent `planetfall bake`) may
    /// have written slots since the file was opened. None when unreadable.
    pub fn read_header(&self) -> Option<Header> {
        let mut hb = vec![0u8; HEADER_USED];
        self.file.read_exact_at(&mut hb, 0).ok()?;
        Header::decode(&hb).ok()
    }

    /// Reads and checks the tile in its slot against `header`. A short or failed read (the file
    /// truncated or changed since it was opened, a disk error) is `Corrupt` like a bad checksum:
    /// either way the tile is re-derived.
    pub fn read_tile(&self, header: &Header, id: TileId) -> Result<Tile, SlotProblem> {
        let slot = BlockId::slot(id);
        if header.present >> slot & 1 == 0 {
            return Err(SlotProblem::Absent);
        }
        let start = (HEADER_BYTES + slot * TILE_DISK_BYTES) as u64;
        let mut bytes = vec![0u8; TILE_DISK_BYTES];
        self.file
            .read_exact_at(&mut bytes, start)
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::UnexpectedEof => {
                    // Give the file its length back (zeros fail their checksums), so the block
                    // re-derived and rewritten slot by slot opens again as a whole block.
                    let _ = self.file.set_len(BLOCK_FILE_BYTES);
                    SlotProblem::Corrupt("short read: the block file was truncated".into())
                }
                _ => SlotProblem::Corrupt(format!("read failed: {e}")),
            })?;
        let bytes = &bytes[..];
        if crc32fast::hash(bytes) != header.crc[slot] {
            return Err(SlotProblem::Corrupt("tile checksum mismatch".into()));
        }
        Tile::decode(id, bytes)
            .ok_or_else(|| SlotProblem::Corrupt("water bits disagree with heights".into()))
    }

    /// Writes a tile's bytes into its slot; returns the slot's CRC-32 for the header.
    pub fn write_slot(&self, tile: &Tile) -> std::io::Result<u32> {
        let slot = BlockId::slot(tile.id);
        let mut bytes = vec![0u8; TILE_DISK_BYTES];
        tile.encode(&mut bytes);
        let start = (HEADER_BYTES + slot * TILE_DISK_BYTES) as u64;
        self.file.write_all_at(&bytes, start)?;
        Ok(crc32fast::hash(&bytes))
    }

    /// Writes the header (after the slot it records, so a crash between the two leaves a
    /// slot that fails its check rather than a header that vouches for missing bytes).
    pub fn write_header(&self, header: &Header) -> std::io::Result<()> {
        self.file.write_all_at(&header.encode(), 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_round_trips_and_rejects_damage() {
        let b = BlockId {
            level: 7,
            face: Face(4),
            bx: 31,
            by: 2,
        };
        let mut h = Header::new(b, 6_371_000.0);
        h.present = 0b1010;
        h.crc[3] = 0xdead_beef;
        let mut e = h.encode();
        assert_eq!(Header::decode(&e), Ok(h));
        e[40] ^= 0x10;
        assert!(Header::decode(&e).unwrap_err().contains("checksum"));
        assert_eq!(BlockId::of(TileId::new(7, Face(4), 126, 9)), b);
        assert_eq!(BlockId::slot(TileId::new(7, Face(4), 126, 9)), 6);
    }
}
