//! The pipeline cache on disk: building a frame's few dozen compute pipelines is most of a cold
//! start's fixed cost (2.2 s of the viewer's first frame on llvmpipe, 1.8 s on the H200), and
//! a `VkPipelineCache` saved at exit lets the next process skip the compiles.
//!
//! The file is the driver's cache data behind a header of ours: magic, format version, length
//! and an FNV-1a hash of the data. A file that fails any check — short, another format,
//! corrupt, or made by another device or driver (the Vulkan header's vendor, device and
//! pipeline-cache UUID) — is ignored with one log line, and the process starts with an empty
//! cache; it never reaches the driver. Saving writes a temporary file and renames it, so a
//! reader never sees half a file; a failed save (read-only or full disk) is logged, not fatal.

use ash::vk;
use std::path::Path;

const MAGIC: &[u8; 4] = b"PFPC";
const FORMAT: u32 = 1;
/// Our header: magic, format, data length (u64), FNV-1a of the data (u64).
const HEADER: usize = 4 + 4 + 8 + 8;
/// `VkPipelineCacheHeaderVersionOne`: length, version, vendor, device, UUID.
const VK_HEADER: usize = 16 + vk::UUID_SIZE;

fn fnv1a(data: &[u8]) -> u64 {
    data.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The cache data in `path` if it is whole and this device's, else why not.
pub fn load(path: &Path, props: &vk::PhysicalDeviceProperties) -> Result<Vec<u8>, String> {
    let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
    if bytes.len() < HEADER || &bytes[..4] != MAGIC {
        return Err("not a pipeline cache file".into());
    }
    let u32_at = |o: usize| u32::from_le_bytes(bytes[o..o + 4].try_into().unwrap());
    let u64_at = |o: usize| u64::from_le_bytes(bytes[o..o + 8].try_into().unwrap());
    if u32_at(4) != FORMAT {
        return Err(format!("format {} (want {FORMAT})", u32_at(4)));
    }
    let data = &bytes[HEADER..];
    if u64_at(8) != data.len() as u64 {
        return Err(format!(
            "{} bytes of data, the header says {} (truncated?)",
            data.len(),
            u64_at(8)
        ));
    }
    if u64_at(16) != fnv1a(data) {
        return Err("checksum mismatch (corrupt)".into());
    }
    if data.len() < VK_HEADER {
        return Err("no Vulkan cache header".into());
    }
    let d32 = |o: usize| u32::from_le_bytes(data[o..o + 4].try_into().unwrap());
    let ours = (
        props.vendor_id,
        props.device_id,
        &props.pipeline_cache_uuid[..],
    );
    let theirs = (d32(8), d32(12), &data[16..16 + vk::UUID_SIZE]);
    if d32(4) != vk::PipelineCacheHeaderVersion::ONE.as_raw() as u32 || ours != theirs {
        return Err("made by another device or driver".into());
    }
    Ok(data.to_vec())
}

/// Write `data` (the driver's cache data) to `path`, atomically.
pub fn save(path: &Path, data: &[u8]) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut bytes = Vec::with_capacity(HEADER + data.len());
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&FORMAT.to_le_bytes());
    bytes.extend_from_slice(&(data.len() as u64).to_le_bytes());
    bytes.extend_from_slice(&fnv1a(data).to_le_bytes());
    bytes.extend_from_slice(data);
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&tmp, &bytes)?;
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn props() -> vk::PhysicalDeviceProperties {
        vk::PhysicalDeviceProperties {
            vendor_id: 0x10de,
            device_id: 0x2335,
            pipeline_cache_uuid: [7; vk::UUID_SIZE],
            ..Default::default()
        }
    }

    /// Driver-like data: the Vulkan header for `p`, then a body.
    fn data(p: &vk::PhysicalDeviceProperties) -> Vec<u8> {
        let mut d = Vec::new();
        d.extend_from_slice(&(VK_HEADER as u32).to_le_bytes());
        d.extend_from_slice(&(vk::PipelineCacheHeaderVersion::ONE.as_raw() as u32).to_le_bytes());
        d.extend_from_slice(&p.vendor_id.to_le_bytes());
        d.extend_from_slice(&p.device_id.to_le_bytes());
        d.extend_from_slice(&p.pipeline_cache_uuid);
        d.extend((0..500u32).map(|k| (k * 31) as u8));
        d
    }

    #[test]
    fn a_saved_cache_loads_and_every_bad_file_is_refused() {
        let dir = std::env::temp_dir().join(format!("pf-pcache-{}", std::process::id()));
        let path = dir.join("pipelines.bin");
        let p = props();
        let d = data(&p);
        save(&path, &d).expect("saved");
        assert_eq!(load(&path, &p).expect("loads"), d);
        // Another device, another driver build (UUID).
        let mut q = p;
        q.device_id += 1;
        assert!(load(&path, &q).unwrap_err().contains("another device"));
        q = p;
        q.pipeline_cache_uuid[3] ^= 1;
        assert!(load(&path, &q).unwrap_err().contains("another device"));
        // A flipped byte, a truncated file, a foreign file, a missing one.
        let good = std::fs::read(&path).unwrap();
        let mut bad = good.clone();
        bad[HEADER + 300] ^= 0x40;
        std::fs::write(&path, &bad).unwrap();
        assert!(load(&path, &p).unwrap_err().contains("corrupt"));
        std::fs::write(&path, &good[..good.len() - 10]).unwrap();
        assert!(load(&path, &p).unwrap_err().contains("truncated"));
        std::fs::write(&path, b"hello").unwrap();
        assert!(load(&path, &p).is_err());
        std::fs::remove_file(&path).unwrap();
        assert!(load(&path, &p).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
