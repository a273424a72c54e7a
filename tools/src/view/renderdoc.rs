//! RenderDoc captures without the RenderDoc UI. The `renderdoc` crate only attaches to a
//! library that is already loaded (RTLD_NOLOAD), and RenderDoc's Vulkan layer must see the
//! instance being created: so [`RenderDocCapture::load`] dlopens librenderdoc.so itself
//! (RTLD_NOW | RTLD_GLOBAL) and must run **before** the Vulkan context exists.
//! Captures are renamed to say what they hold: `captures/<scene>_<view>_frame<N>_<UTC>.rdc`.

use anyhow::{bail, Context as _, Result};
use ash::vk::{self, Handle as _};
use renderdoc::{OverlayBits, RenderDoc, V141};
use std::path::{Path, PathBuf};

/// The library to load: `PLANETFALL_RENDERDOC_LIB` (tests point it at a missing file), else
/// the soname the Debian package installs.
pub fn library_path() -> PathBuf {
    std::env::var_os("PLANETFALL_RENDERDOC_LIB")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("librenderdoc.so"))
}

pub struct RenderDocCapture {
    api: RenderDoc<V141>,
    /// Kept loaded for the process's life (RenderDoc's hooks live in it).
    _lib: libloading::os::unix::Library,
    dir: PathBuf,
}

impl RenderDocCapture {
    /// Load RenderDoc's in-app library. Call before creating the Vulkan context.
    pub fn load(dir: &Path) -> Result<RenderDocCapture> {
        let path = library_path();
        let flags = libloading::os::unix::RTLD_NOW | libloading::os::unix::RTLD_GLOBAL;
        // SAFETY: loading RenderDoc runs its initialisers, which install its hooks; that is
        // the point. Nothing else in the process has started Vulkan yet.
        let lib = unsafe { libloading::os::unix::Library::open(Some(&path), flags) }.map_err(|e| {
            anyhow::anyhow!(
                "RenderDoc's in-app library {} could not be loaded ({e}). Install RenderDoc (`apt-get install renderdoc`) or point PLANETFALL_RENDERDOC_LIB at librenderdoc.so",
                path.display()
            )
        })?;
        // RenderDoc's implicit Vulkan layer is enabled by this variable; RenderDoc sets it when
        // loaded in-process, setting it again makes the dependency explicit.
        std::env::set_var("ENABLE_VULKAN_RENDERDOC_CAPTURE", "1");
        let mut api: RenderDoc<V141> = RenderDoc::new().map_err(|e| {
            anyhow::anyhow!(
                "RenderDoc API unavailable after loading {}: {e}",
                path.display()
            )
        })?;
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        api.set_capture_file_path_template(dir.join("planetfall").to_string_lossy().into_owned());
        // No overlay in our images, and no capture keys of its own: F12 is ours.
        api.mask_overlay_bits(OverlayBits::NONE, OverlayBits::NONE);
        let no_keys: [renderdoc::InputButton; 0] = [];
        api.set_capture_keys(&no_keys);
        let (a, b, c) = api.get_api_version();
        log::info!(
            "RenderDoc {a}.{b}.{c} loaded from {}; captures go to {}",
            path.display(),
            dir.display()
        );
        Ok(RenderDocCapture {
            api,
            _lib: lib,
            dir: dir.to_path_buf(),
        })
    }

    /// RenderDoc's device pointer for a Vulkan instance: the dispatch table pointer the
    /// instance handle points to (RENDERDOC_DEVICEPOINTER_FROM_VKINSTANCE).
    fn device_pointer(instance: vk::Instance) -> *const std::ffi::c_void {
        // SAFETY: a dispatchable Vulkan handle is a pointer whose first word is the loader's
        // dispatch table; the instance is alive for the duration of the capture.
        unsafe { *(instance.as_raw() as usize as *const *const std::ffi::c_void) }
    }

    /// Start capturing everything submitted on this instance's devices (any window).
    pub fn start(&mut self, instance: vk::Instance) {
        self.api
            .start_frame_capture(Self::device_pointer(instance), std::ptr::null());
    }

    /// Finish the capture begun by [`start`](Self::start) and move it to
    /// `<dir>/<scene>_<view>_frame<frame>_<UTC>.rdc`.
    pub fn end(
        &mut self,
        instance: vk::Instance,
        scene: &str,
        view: &str,
        frame: u64,
    ) -> Result<PathBuf> {
        let before = self.api.get_num_captures();
        self.api
            .end_frame_capture(Self::device_pointer(instance), std::ptr::null());
        let n = self.api.get_num_captures();
        if n <= before {
            bail!("RenderDoc wrote no capture (is the Vulkan layer active? ENABLE_VULKAN_RENDERDOC_CAPTURE=1)");
        }
        let (written, _) = self
            .api
            .get_capture(n - 1)
            .context("RenderDoc lists no capture file")?;
        let name = format!(
            "{}_{}_frame{frame}_{}.rdc",
            sanitize(scene),
            sanitize(view),
            utc_stamp()
        );
        let dest = self.dir.join(name);
        std::fs::rename(&written, &dest)
            .with_context(|| format!("moving {} to {}", written.display(), dest.display()))?;
        Ok(dest)
    }
}

fn sanitize(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// `YYYYMMDD-HHMMSS` in UTC (civil-from-days, no time-zone database needed).
pub fn utc_stamp() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0) as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + (m <= 2) as i64;
    format!(
        "{y:04}{m:02}{d:02}-{:02}{:02}{:02}",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn stamp_and_names() {
        let s = super::utc_stamp();
        assert_eq!(s.len(), 15, "{s}");
        assert!(s.starts_with("20"), "{s}");
        assert_eq!(
            super::sanitize("lat27.880_lon86.860_3000agl"),
            "lat27.880_lon86.860_3000agl"
        );
        assert_eq!(super::sanitize("a b/c"), "a_b_c");
    }
}
