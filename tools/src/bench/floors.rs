//! Each node's floor: the least it can cost on this device. Sweeps over memory (the CBT pool,
//! per-pixel buffers) are floored by bytes ÷ the measured device copy bandwidth; uploads by
//! bytes ÷ the measured host→device bandwidth; `raster.hardware` by the time of a full-screen
//! grid of the same triangle count (limits.rs). The byte counts are estimates from the data
//! layouts, stated per node in [`basis`] and docs/bench.md; texel reads of the tile atlas are
//! not counted (a small, cached working set).

use super::report::Limits;
use std::mem::size_of;

/// What the estimates need from the frame.
#[derive(Clone, Copy, Debug, Default)]
pub struct FrameShape {
    pub pixels: u64,
    pub high_water: u64,
    pub drawn: u64,
    pub resident_tiles: u64,
    pub uploaded_tiles: u64,
}

/// Bytes of one bisector (the CBT pool entry).
const BISECTOR: u64 = size_of::<engine::cbt::Bisector>() as u64;
/// Slot record (TERRAIN.md §2) and tile page (520² u16) bytes.
const SLOT_RECORD: u64 = size_of::<engine::atlas::slots::SlotRecord>() as u64;
const PAGE: u64 = engine::atlas::PAGE_BYTES;

/// How a node's floor is estimated.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Basis {
    /// Device-memory bytes read + written per run: (per pool entry over the high-water mark,
    /// per pixel, fixed).
    Device {
        per_entry: u64,
        per_pixel: u64,
        per_drawn: u64,
    },
    /// Bytes over the host→device path: per resident tile, per uploaded tile; per pool entry,
    /// per drawn leaf (the interim CPU mesh).
    Upload {
        per_resident: u64,
        per_upload: u64,
        per_entry: u64,
        per_drawn: u64,
    },
    /// The raster grid of the view's triangle count.
    Raster,
    /// One-thread argument kernels and the like: no meaningful floor.
    None,
}

/// The estimate for `node` (by name; unknown names have none).
pub fn basis(node: &str) -> (Basis, &'static str) {
    use Basis::*;
    // Per-entry CBT sweeps read each live bisector once (160 B) and write the fields the
    // stage owns (docs/cbt.md; shaders/common/bisector.glsl offsets).
    let sweep = |w: u64| Device {
        per_entry: BISECTOR + w,
        per_pixel: 0,
        per_drawn: 0,
    };
    match node {
        "cbt.eval" | "cbt.finish" => (
            sweep(48),
            "160 B bisector read + 48 B (positions, residuals, flags) written per entry",
        ),
        "cbt.decide" => (sweep(8), "160 B read + 8 B (wish, pushed) per entry"),
        "cbt.resolve" | "cbt.reserve" => (
            sweep(8),
            "160 B read + 8 B (fate/child, request bit) per entry",
        ),
        "cbt.neighbours" | "cbt.commit" => (
            sweep(44),
            "160 B read + 44 B (next path, corners, neighbours) per entry",
        ),
        "cbt.reduce" | "cbt.reserve.reduce" | "cbt.finish.reduce" => (
            Device {
                per_entry: 1,
                per_pixel: 0,
                per_drawn: 0,
            },
            "bit words (1 bit/entry) read + sum tree (≈ 1 B/entry) written",
        ),
        "cbt.finish.compact" => (
            Device {
                per_entry: 1,
                per_pixel: 0,
                per_drawn: 4,
            },
            "draw bits read + 4 B per drawn leaf written",
        ),
        "cbt.upload" => (
            Upload {
                per_resident: 0,
                per_upload: 0,
                per_entry: BISECTOR,
                per_drawn: 4,
            },
            "interim CPU mesh: 160 B per pool entry + 4 B per drawn leaf, host → device",
        ),
        "stream.upload" => (
            Upload {
                per_resident: 0,
                per_upload: PAGE,
                per_entry: 0,
                per_drawn: 0,
            },
            "540,800 B per uploaded page, host → device (landing buffer)",
        ),
        "stream.records" => (
            Upload {
                per_resident: SLOT_RECORD + 32,
                per_upload: 0,
                per_entry: 0,
                per_drawn: 0,
            },
            "448 B slot record + ~32 B lookup per resident tile, host → device",
        ),
        "publish.clear" => (
            Device {
                per_entry: 0,
                per_pixel: 8,
                per_drawn: 0,
            },
            "8 B visibility word written per pixel",
        ),
        "publish.resolve" | "publish.resolve.handover" | "publish.resolve.search" => (
            Device {
                per_entry: 0,
                per_pixel: 24,
                per_drawn: 36,
            },
            "8 B visibility read + 16 B hit written per pixel, 36 B corners per drawn leaf",
        ),
        "shade.terrain" => (
            Device {
                per_entry: 0,
                per_pixel: 20,
                per_drawn: 0,
            },
            "16 B hit read + 4 B colour written per pixel",
        ),
        "shade.aov" => (
            Device {
                per_entry: 0,
                per_pixel: 64,
                per_drawn: 0,
            },
            "16 B hit read + 48 B AOV written per pixel",
        ),
        "raster.hardware" => (
            Raster,
            "full-screen grid of the same triangle count (bench.grid)",
        ),
        _ => (None, ""),
    }
}

/// Nodes recorded once per CBT iteration (or per sum-tree pass of one): of the recorded
/// iterations only those the frame needed do work.
pub fn per_iteration(node: &str) -> bool {
    matches!(
        node,
        "cbt.eval"
            | "cbt.decide"
            | "cbt.resolve"
            | "cbt.reserve"
            | "cbt.reserve.reduce"
            | "cbt.neighbours"
            | "cbt.commit"
            | "cbt.reduce"
    )
}

/// Bytes the node moves per run and its floor (ms) for `instances` runs in a frame.
pub fn floor(
    node: &str,
    instances: u32,
    f: &FrameShape,
    limits: &Limits,
    grid_ms: f64,
) -> (Option<u64>, Option<f64>, &'static str) {
    let (b, why) = basis(node);
    let n = instances.max(1) as u64;
    let ms = |bytes: u64, gbps: f64| (gbps > 0.0).then(|| bytes as f64 / (gbps * 1e6));
    match b {
        Basis::Device {
            per_entry,
            per_pixel,
            per_drawn,
        } => {
            let bytes = n * (per_entry * f.high_water + per_pixel * f.pixels + per_drawn * f.drawn);
            (Some(bytes), ms(bytes, limits.device_gbps), why)
        }
        Basis::Upload {
            per_resident,
            per_upload,
            per_entry,
            per_drawn,
        } => {
            let bytes = n
                * (per_resident * f.resident_tiles
                    + per_upload * f.uploaded_tiles
                    + per_entry * f.high_water
                    + per_drawn * f.drawn);
            (Some(bytes), ms(bytes, limits.upload_gbps), why)
        }
        Basis::Raster => (None, (grid_ms > 0.0).then_some(grid_ms), why),
        Basis::None => (None, None, why),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floors_scale_with_what_is_swept() {
        let limits = Limits {
            device_gbps: 1000.0,
            upload_gbps: 10.0,
            ..Default::default()
        };
        let f = FrameShape {
            pixels: 1_000_000,
            high_water: 100_000,
            drawn: 40_000,
            resident_tiles: 100,
            uploaded_tiles: 0,
        };
        let (bytes, ms, _) = floor("cbt.eval", 2, &f, &limits, 0.0);
        assert_eq!(bytes, Some(2 * 208 * 100_000));
        assert!((ms.unwrap() - 2.0 * 208e5 / 1e9).abs() < 1e-12, "{ms:?}");
        let (bytes, _, _) = floor("shade.terrain", 1, &f, &limits, 0.0);
        assert_eq!(bytes, Some(20_000_000));
        assert_eq!(floor("raster.hardware", 1, &f, &limits, 0.25).1, Some(0.25));
        assert_eq!(floor("cbt.reserve.args", 4, &f, &limits, 0.25).1, None);
        // Uploads are floored by the host→device path.
        let (bytes, ms, _) = floor("stream.records", 1, &f, &limits, 0.0);
        assert_eq!(bytes, Some(100 * 480));
        assert!((ms.unwrap() - 48_000.0 / 1e7).abs() < 1e-12);
    }

    #[test]
    fn stated_bases_quote_the_struct_sizes() {
        for node in ["cbt.eval", "cbt.decide", "cbt.upload"] {
            let (_, why) = basis(node);
            assert!(why.contains(&format!("{BISECTOR} B")), "{node}: {why}");
        }
        let (_, why) = basis("stream.records");
        assert!(why.starts_with(&format!("{SLOT_RECORD} B")), "{why}");
    }
}
