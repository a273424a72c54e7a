//! Where there is water (`docs/earth.md`, "Water"): a global mask rasterised from GSHHG's
//! full-resolution shorelines and lakes by GMT's `grdlandmask`, cached in the data directory,
//! and a surface level for every lake. Without `gmt` or the GSHHG data the map falls back to
//! the old rule, water where the reconstructed ground is below the datum (warned once). This
//! file finds, builds and opens the mask; the mask itself, its lakes and its coastline are in
//! `water_mask.rs`.

use super::etopo::Etopo;
use super::water_mask::N_VALUES;
use crate::params::WATER_MASK_MINUTES;
use std::path::{Path, PathBuf};
use std::process::Command;

pub use super::coast::Shore;
pub use super::water_mask::{shore_level, Lake, WaterMask};

/// Environment variable naming the mask file (default `DATA/water/…`; see [`mask_path`]).
pub const WATER_ENV: &str = "PLANETFALL_WATER";
/// Environment variable naming the `gmt` program (default `gmt` on the PATH).
pub const GMT_ENV: &str = "PLANETFALL_GMT";

/// What the surface is at a point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Water {
    Land,
    /// The open sea and everything GSHHG joins to it (its level is the datum).
    Ocean,
    /// An inland water body with its own surface level (metres above the datum).
    Lake {
        level_m: f64,
    },
}

impl Water {
    pub fn is_water(self) -> bool {
        self != Water::Land
    }
}

#[derive(Debug, thiserror::Error)]
pub enum WaterError {
    #[error(
        "could not run `{gmt}` ({err}); install GMT and the GSHHG shorelines with \
         `apt-get install gmt gmt-gshhg-full` (Debian packages), or point {GMT_ENV} at gmt"
    )]
    NoGmt { gmt: String, err: std::io::Error },
    #[error("`{gmt} grdlandmask` failed ({status}): {stderr}")]
    Gmt {
        gmt: String,
        status: std::process::ExitStatus,
        stderr: String,
    },
    #[error("water mask {path}: {err}")]
    Io { path: PathBuf, err: std::io::Error },
    #[error("water mask {path}: {what}")]
    Format { path: PathBuf, what: String },
}

/// The mask file to use: `explicit`, else `PLANETFALL_WATER`, else
/// `DATA/water/gshhg-f-{m}m-v1.bb` (m = `WATER_MASK_MINUTES`). The version names the cell
/// values and registration; another mask size is another file.
pub fn mask_path(explicit: Option<&Path>, data_dir: &Path) -> PathBuf {
    explicit
        .map(Path::to_path_buf)
        .or_else(|| std::env::var_os(WATER_ENV).map(PathBuf::from))
        .unwrap_or_else(|| {
            data_dir
                .join("water")
                .join(format!("gshhg-f-{WATER_MASK_MINUTES}m-v1.bb"))
        })
}

/// Give the calling thread, and the `gmt` it starts (a child inherits its nice value), the
/// lowest CPU priority (nice 19): a mask built for the next start must not take one of two
/// cores from the viewer's first frames (measured: the build is a minute of one core).
/// Best effort; nothing to do off Linux.
fn idle_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: plain syscalls on the calling thread; on Linux PRIO_PROCESS with a thread id
    // sets that one thread's nice value.
    unsafe {
        let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
        libc::setpriority(libc::PRIO_PROCESS, tid, 19);
    }
}

/// Rasterises GSHHG's full-resolution shorelines into `out` (pixel registration, cells of
/// `minutes` arc minutes, the whole globe), through a temporary file renamed into place, so
/// that a process reading `out` never sees half a grid (two processes may both build it; the
/// last rename wins with identical bytes).
pub fn build_mask(gmt: &str, minutes: u32, out: &Path) -> Result<(), WaterError> {
    let io = |err| WaterError::Io {
        path: out.to_path_buf(),
        err,
    };
    let dir = out.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(io)?;
    // GMT writes a `gmt.history` into its working directory: give it one of its own.
    let work = dir.join(format!(".water-{}", std::process::id()));
    std::fs::create_dir_all(&work).map_err(io)?;
    let tmp = work.join("mask.bb");
    log::info!(
        "water mask: rasterising GSHHG at {minutes}′ into {}",
        out.display()
    );
    let res = Command::new(gmt)
        .current_dir(&work)
        .args([
            "grdlandmask",
            "-Rd",
            &format!("-I{minutes}m"),
            "-r",
            "-Df",
            // Lakes only, not GSHHG's riverlakes (the Amazon, the St. Lawrence): a river
            // falls along its course, so one level per water body does not fit it.
            "-A0/0/4+l",
            &format!("-N{N_VALUES}"),
        ])
        .arg(format!("-G{}=bb", tmp.display()))
        .output();
    let done = match res {
        Err(err) => Err(WaterError::NoGmt {
            gmt: gmt.to_string(),
            err,
        }),
        Ok(res) if !res.status.success() => Err(WaterError::Gmt {
            gmt: gmt.to_string(),
            status: res.status,
            stderr: String::from_utf8_lossy(&res.stderr).trim().to_string(),
        }),
        Ok(_) => std::fs::rename(&tmp, out).map_err(io),
    };
    let _ = std::fs::remove_dir_all(&work);
    done
}

/// The water map a process uses: the mask, or the below-datum rule when it cannot be had.
pub enum WaterMap {
    Mask(WaterMask),
    /// Water where the reconstructed ground is below the datum, all of it ocean.
    BelowDatum,
}

impl WaterMap {
    /// The mask at `path`, built there first if absent (`gmt` from `PLANETFALL_GMT` or the
    /// PATH). Any failure is logged once per process and gives [`WaterMap::BelowDatum`].
    pub fn open(path: &Path, etopo: &Etopo) -> WaterMap {
        let gmt = std::env::var(GMT_ENV).unwrap_or_else(|_| "gmt".to_string());
        match WaterMap::try_open(path, &gmt, etopo) {
            Ok(m) => WaterMap::Mask(m),
            Err(e) => {
                static WARNED: std::sync::Once = std::sync::Once::new();
                WARNED.call_once(|| {
                    log::warn!(
                        "water mask unavailable, so water is ground below the datum \
                         (Qattara and the Netherlands flood, lakes sit at 0 m): {e}"
                    )
                });
                WaterMap::BelowDatum
            }
        }
    }

    /// The mask at `path` if it is already built; otherwise [`WaterMap::BelowDatum`] now, and
    /// the mask built on a thread of its own for the next process (the build takes about a
    /// minute: a viewer's first start must not wait for it). Returns the thread, if one was
    /// started, so a caller may wait for it.
    pub fn open_or_build_later(
        path: &Path,
        etopo: &Etopo,
    ) -> (WaterMap, Option<std::thread::JoinHandle<()>>) {
        let gmt = std::env::var(GMT_ENV).unwrap_or_else(|_| "gmt".to_string());
        WaterMap::open_or_build_later_with(path, &gmt, etopo)
    }

    /// [`WaterMap::open_or_build_later`] with an explicit `gmt` program.
    pub fn open_or_build_later_with(
        path: &Path,
        gmt: &str,
        etopo: &Etopo,
    ) -> (WaterMap, Option<std::thread::JoinHandle<()>>) {
        if path.exists() {
            return (WaterMap::open(path, etopo), None);
        }
        let (gmt, out) = (gmt.to_string(), path.to_path_buf());
        log::info!(
            "water mask: building {} in the background (about a minute); until the next start \
             water is ground below the datum",
            out.display()
        );
        let build = std::thread::Builder::new()
            .name("water-mask".into())
            .spawn(move || {
                idle_priority();
                match build_mask(&gmt, WATER_MASK_MINUTES, &out) {
                    Ok(()) => log::info!(
                        "water mask: built {}; used from the next start",
                        out.display()
                    ),
                    Err(e) => log::warn!(
                        "water mask unavailable, so water is ground below the datum \
                     (Qattara and the Netherlands flood, lakes sit at 0 m): {e}"
                    ),
                }
            })
            .ok();
        (WaterMap::BelowDatum, build)
    }

    /// [`WaterMap::open`] without the fallback, with an explicit `gmt` program.
    pub fn try_open(path: &Path, gmt: &str, etopo: &Etopo) -> Result<WaterMask, WaterError> {
        if !path.exists() {
            build_mask(gmt, WATER_MASK_MINUTES, path)?;
        }
        WaterMask::load(path, etopo)
    }

    /// Land, ocean or lake at (lat, lon), degrees: the reconstructed coastline
    /// ([`WaterMask::water_cubic`]); under the fallback, the sign of the reconstructed ETOPO
    /// height (the rules the tiles use).
    pub fn water_at(&self, etopo: &Etopo, lat: f64, lon: f64) -> Water {
        match self {
            WaterMap::Mask(m) => m.water_cubic(lat, lon).water,
            WaterMap::BelowDatum if etopo.reconstruct(lat, lon) < 0.0 => Water::Ocean,
            WaterMap::BelowDatum => Water::Land,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_gmt_the_map_falls_back_to_the_below_datum_rule() {
        let dir = std::env::temp_dir().join(format!("pf-water-nogmt-{}", std::process::id()));
        let p = dir.join("water.bb");
        let e = WaterMap::try_open(&p, "/nonexistent/gmt", &Etopo::flat(-45.0))
            .err()
            .unwrap();
        assert!(matches!(e, WaterError::NoGmt { .. }), "{e}");
        assert!(e.to_string().contains("gmt-gshhg-full"), "{e}");
        assert!(!p.exists());
        for (h, want) in [(-45.0, Water::Ocean), (12.0, Water::Land)] {
            assert_eq!(
                WaterMap::BelowDatum.water_at(&Etopo::flat(h), 29.5, 27.0),
                want
            );
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_missing_mask_is_built_later_and_the_map_falls_back_at_once() {
        // The viewer's path: no mask yet, so the below-datum rule now and the build on a
        // thread; with no gmt the build fails there, and no file appears.
        let dir = std::env::temp_dir().join(format!("pf-water-later-{}", std::process::id()));
        let p = dir.join("water.bb");
        let t = std::time::Instant::now();
        let (map, build) =
            WaterMap::open_or_build_later_with(&p, "/nonexistent/gmt", &Etopo::flat(-45.0));
        assert!(
            t.elapsed().as_secs_f64() < 1.0,
            "it returned without waiting for the build"
        );
        assert!(matches!(map, WaterMap::BelowDatum));
        build
            .expect("a build thread")
            .join()
            .expect("the build thread ends");
        assert!(!p.exists());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
