//! Feed benchmark (not a test): derived and stored tiles/s per core on this machine.
//! `cargo run --release -p engine --example earth_bench [-- TILES [JSON_PATH]]`
//! Prints a table and writes JSON (default target/earth_bench.json).

use engine::earth::{etopo_path, Source};
use engine::planet::{dir_to_face, latlon_to_dir, Body, TileId};
use engine::store::{Oracle, OracleConfig};
use std::sync::Arc;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(16);
    let json_path = args
        .get(2)
        .cloned()
        .unwrap_or_else(|| "target/earth_bench.json".into());
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    let t0 = Instant::now();
    let source = Arc::new(Source::open(&etopo_path(None), Body::EARTH).expect("ETOPO5"));
    let load_s = t0.elapsed().as_secs_f64();
    // A row of L9 tiles across the Himalaya's southern flank (land, steep: every band runs).
    let (face, u, v) = dir_to_face(latlon_to_dir(28.0, 86.0));
    let first = TileId::containing(9, face, u, v);
    let ids: Vec<TileId> = (0..n as u32)
        .map(|k| TileId {
            x: first.x + k,
            ..first
        })
        .collect();
    let dir = std::env::temp_dir().join(format!("planetfall-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let run = |threads: usize, data: bool| {
        let o = Oracle::new(
            source.clone(),
            OracleConfig {
                data_dir: data.then(|| dir.clone()),
                memory_fallback: false,
                threads,
                cache_bytes: 4 << 30,
            },
        )
        .expect("oracle");
        let t = Instant::now();
        o.request(&ids, 1.0);
        o.wait_idle();
        let wall = t.elapsed().as_secs_f64();
        (wall, o.counters())
    };
    let (w1, c1) = run(1, false); // derived, one core
    let (wn, _) = run(cores, true); // derived with every core, written to disk
    let (ws, cs) = run(1, true); // stored, one core (page cache warm)
    assert_eq!(
        cs.stored.tiles as usize, n,
        "all tiles should come from disk"
    );
    let rows = [
        (
            "derived L9, 1 worker",
            n as f64 / w1,
            n as f64 / c1.derived.seconds,
        ),
        (
            "derived L9, all workers",
            n as f64 / wn,
            n as f64 / wn / cores as f64,
        ),
        (
            "stored L9, 1 worker",
            n as f64 / ws,
            n as f64 / cs.stored.seconds,
        ),
    ];
    println!("source load {load_s:.2} s; {n} tiles; {cores} cores");
    println!("{:<26} {:>12} {:>14}", "feed", "tiles/s", "tiles/s/core");
    for (name, rate, per_core) in rows {
        println!("{name:<26} {rate:>12.2} {per_core:>14.2}");
    }
    let json = format!(
        "{{\"tiles\":{n},\"cores\":{cores},\"source_load_s\":{load_s:.3},\
         \"derived_1\":{:.3},\"derived_all\":{:.3},\"derived_all_per_core\":{:.3},\"stored_1\":{:.3}}}\n",
        rows[0].2, rows[1].1, rows[1].2, rows[2].2
    );
    if let Err(e) = std::fs::write(&json_path, json) {
        eprintln!("cannot write {json_path}: {e}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
