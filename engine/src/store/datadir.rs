//! Where the tile pyramid lives: `--data DIR`, else `PLANETFALL_DATA`, else
//! `$XDG_CACHE_HOME/planetfall`, else `~/.cache/planetfall`.

use std::path::{Path, PathBuf};

pub const DATA_ENV: &str = "PLANETFALL_DATA";

/// The data directory to use (not yet checked for writability).
pub fn data_dir(explicit: Option<&Path>) -> PathBuf {
    if let Some(p) = explicit {
        return p.to_path_buf();
    }
    if let Some(p) = std::env::var_os(DATA_ENV).filter(|v| !v.is_empty()) {
        return PathBuf::from(p);
    }
    if let Some(p) = std::env::var_os("XDG_CACHE_HOME").filter(|v| !v.is_empty()) {
        return PathBuf::from(p).join("planetfall");
    }
    match std::env::var_os("HOME").filter(|v| !v.is_empty()) {
        Some(h) => PathBuf::from(h).join(".cache").join("planetfall"),
        None => std::env::temp_dir().join("planetfall"),
    }
}

/// Checks that `dir` can hold the pyramid: creates it and writes/removes a probe file.
pub fn check_writable(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let probe = dir.join(format!(".probe-{}", std::process::id()));
    std::fs::write(&probe, b"planetfall")?;
    std::fs::remove_file(&probe)
}
