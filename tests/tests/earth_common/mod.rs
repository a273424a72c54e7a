//! Shared setup for the earth_* integration tests: one loaded source per test binary.
#![allow(dead_code)]

use engine::earth::{etopo_path, Source};
use engine::planet::Body;
use engine::store::{Oracle, OracleConfig};
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

pub fn source() -> Arc<Source> {
    static SRC: OnceLock<Arc<Source>> = OnceLock::new();
    SRC.get_or_init(|| {
        let path = etopo_path(None);
        Arc::new(
            Source::open(&path, Body::EARTH).expect("ETOPO5 (apt-get install ferret-datasets)"),
        )
    })
    .clone()
}

/// An oracle over the shared source; `dir` None = in memory.
pub fn oracle(dir: Option<PathBuf>, threads: usize, cache_bytes: usize) -> Oracle {
    Oracle::new(
        source(),
        OracleConfig {
            data_dir: dir,
            memory_fallback: false,
            threads,
            cache_bytes,
        },
    )
    .expect("oracle")
}

/// A fresh empty directory under the system temp dir.
pub fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("planetfall-test-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}
