//! Checks of a `planetfall render --stats` file, shared by the tests that write one.

use serde_json::Value;
use std::path::Path;

/// The mesh counters every scene with a mesh writes at the top level.
pub const MESH_COUNTS: [&str; 5] = ["leaves", "drawn", "high_water", "iterations", "saturated"];

/// Read a `render --stats` file and check what every scene writes: the run's keys, GPU ms per
/// node, and — where the scene has a mesh — numeric counters with drawn ≤ leaves ≤ high water
/// (every leaf holds a pool entry below the high-water mark; only leaves are drawn).
pub fn read(path: &Path, scene: &str, size: [u64; 2]) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let v: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}:\n{text}"));
    assert_eq!(v["scene"], scene, "{text}");
    assert_eq!([v["width"].as_u64(), v["height"].as_u64()], size.map(Some));
    assert!(v["frames"].as_u64().is_some_and(|f| f >= 1), "{text}");
    assert!(v["settled"].is_boolean(), "{text}");
    let nodes = v["nodes"].as_object().expect("nodes is an object");
    assert!(!nodes.is_empty(), "{text}");
    assert!(
        nodes
            .values()
            .all(|ms| ms.as_f64().is_some_and(|ms| ms >= 0.0)),
        "node times are numbers: {text}"
    );
    let sum: f64 = nodes.values().filter_map(Value::as_f64).sum();
    let total = v["gpu_ms"].as_f64().expect("gpu_ms");
    // Both are rounded to 0.1 µs.
    let slack = 1e-4 * (nodes.len() + 1) as f64;
    assert!(
        (sum - total).abs() <= slack,
        "node times sum to {sum}, gpu_ms {total}"
    );
    if v.get("leaves").is_some() {
        let n = |k: &str| {
            v[k].as_u64()
                .unwrap_or_else(|| panic!("{k} is not a count: {text}"))
        };
        for k in MESH_COUNTS {
            n(k);
        }
        assert!(v["quiet"].is_boolean(), "{text}");
        assert!(n("leaves") > 0, "{text}");
        assert!(
            n("drawn") <= n("leaves") && n("leaves") <= n("high_water"),
            "{text}"
        );
        assert!(n("iterations") >= 1, "{text}");
        // A frame runs the mesh update, or is a still frame after a quiet one, which records
        // none and only copies the counters.
        assert!(
            nodes.contains_key("cbt.eval")
                || (v["quiet"] == true && nodes.contains_key("cbt.counters")),
            "{text}"
        );
    }
    if let Some(t) = v.get("tiles") {
        for k in ["resident", "pending", "wanted"] {
            assert!(t[k].is_u64(), "tiles.{k}: {text}");
        }
    }
    v
}
