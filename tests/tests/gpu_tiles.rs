//! `tiles.derive` (the GPU derivation, `engine::earth::gpu`) against the CPU's
//! `Source::derive_tile`, under validation: a coastal mountain L9 tile (Gibraltar), L9 tiles
//! on both sides of a face edge and an interior sibling, a cube-corner tile, L2, L1 and L0
//! (L0/L1 from their children, as the store derives them). The same batch twice is bit
//! identical, and neighbouring GPU tiles agree on every shared apron sample.

use engine::earth::gpu::{DeriveJob, GpuTiles, JOB_FLOATS};
use engine::earth::{Source, Tile};
use engine::params::TILE_STRIDE;
use engine::planet::tile::{canonical_sample, SampleRef};
use engine::planet::{dir_to_face, latlon_to_dir, Body, Face, TileId};
use framegraph::{BufferDesc, Graph};
use planetfall_tests::Gpu;
use std::sync::{Arc, OnceLock};

fn source() -> &'static Source {
    static S: OnceLock<Source> = OnceLock::new();
    S.get_or_init(|| {
        let path = engine::earth::etopo::etopo_path(None);
        Source::open(&path, Body::EARTH).unwrap_or_else(|e| panic!("{e}"))
    })
}

/// The CPU tile as the store makes it: L0/L1 from their four children.
fn cpu_tile(src: &Source, id: TileId) -> Tile {
    if id.level >= 2 {
        return src.derive_tile(id, None);
    }
    let ch = id.children().map(|c| Arc::new(cpu_tile(src, c)));
    src.derive_tile(id, Some(&ch))
}

/// Runs one batch; returns 520² heights per job and the GPU milliseconds of `nodes`.
fn run_batch(
    gpu: &mut Gpu,
    derive: &mut GpuTiles,
    jobs: &[DeriveJob],
    nodes: &[&str],
) -> (Vec<f32>, f64) {
    let capacity = jobs.len() as u64;
    let mut g = Graph::new();
    let mut out = g.create_buffer(
        "tiles.derive.out",
        BufferDesc::gpu(4 * JOB_FLOATS * capacity),
    );
    derive.declare(&mut g, jobs, &mut out, capacity).unwrap();
    g.readback("heights", out);
    let compiled = g.compile(gpu.ctx.queue_setup()).unwrap();
    let frame = gpu.exec.run(&gpu.ctx, compiled).unwrap();
    let ms = nodes
        .iter()
        .map(|n| frame.time_ms(n).unwrap_or(f64::NAN))
        .sum();
    let h = bytemuck::cast_slice(frame.readback("heights").unwrap()).to_vec();
    derive.release_staging(&gpu.ctx);
    (h, ms)
}

/// One job per tile, output index = position.
fn jobs(tiles: &[TileId]) -> Vec<DeriveJob> {
    let job = |(k, &tile): (usize, &TileId)| DeriveJob {
        tile,
        out_index: k as u32,
    };
    tiles.iter().enumerate().map(job).collect()
}

/// `n` tiles from `base`, four to a row.
fn block(base: TileId, n: u32) -> Vec<TileId> {
    let tile = |k| TileId::new(base.level, base.face, base.x + k % 4, base.y + k / 4);
    (0..n).map(tile).collect()
}

fn env_or(name: &str, default: u32) -> u32 {
    std::env::var(name)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

/// `f` of every tile, in order, on two threads (the machine's cores).
fn on_two_threads<T: Send>(tiles: &[TileId], f: impl Fn(TileId) -> T + Sync) -> Vec<T> {
    std::thread::scope(|s| {
        let (a, b) = tiles.split_at(tiles.len() / 2);
        let f = &f;
        let h = s.spawn(move || a.iter().map(|&t| f(t)).collect::<Vec<_>>());
        let rest: Vec<T> = b.iter().map(|&t| f(t)).collect();
        let mut all = h.join().expect("cpu thread");
        all.extend(rest);
        all
    })
}

const DERIVE: &[&str] = &["tiles.derive"];

/// The tile of `level` holding (lat, lon).
fn tile_at(level: u8, lat: f64, lon: f64) -> TileId {
    let (face, u, v) = dir_to_face(latlon_to_dir(lat, lon));
    TileId::containing(level, face, u, v)
}

/// Samples of `a` whose owning sample `b` also stores (in its interior or its apron): pairs of
/// stored indices (in a, in b).
fn shared_samples(a: TileId, b: TileId) -> Vec<(usize, usize)> {
    let s = TILE_STRIDE as i64;
    let mut out = Vec::new();
    for row in 0..s {
        for col in 0..s {
            let (i, j) = (a.global_i(col - 4), a.global_j(row - 4));
            if let SampleRef::Owned(f, p, q) = canonical_sample(a.level, a.face, i, j) {
                let (bi, bj) = (p - b.global_i(0), q - b.global_j(0));
                let inside = |x: i64| (-4..s - 4).contains(&x);
                if f == b.face && inside(bi) && inside(bj) {
                    out.push((
                        TileId::stored_index(col - 4, row - 4),
                        TileId::stored_index(bi, bj),
                    ));
                }
            }
        }
    }
    out
}

/// One GPU tile `g` against the CPU's: prints and returns (samples bit-identical, max |diff|);
/// asserts water is the same samples on both sides (the sign of the height).
fn compare(g: &[f32], tile: &Tile, id: TileId) -> (usize, f32) {
    let n = JOB_FLOATS as usize;
    let equal = g
        .iter()
        .zip(&tile.heights)
        .filter(|(a, b)| a.to_bits() == b.to_bits())
        .count();
    let max = g
        .iter()
        .zip(&tile.heights)
        .map(|(a, b)| (a - b).abs())
        .fold(0f32, f32::max);
    let water = (0..n)
        .filter(|&i| tile.water[i / 64] >> (i % 64) & 1 == 1)
        .count();
    let land_min = (0..n)
        .filter(|&i| tile.water[i / 64] >> (i % 64) & 1 == 0)
        .map(|i| g[i])
        .fold(f32::MAX, f32::min);
    eprintln!(
        "{id}: {:.6} % of samples bit-identical, max |diff| {max} m, {water} water samples",
        100.0 * equal as f64 / n as f64
    );
    let gpu_water = g.iter().filter(|h| **h < 0.0).count();
    assert_eq!(gpu_water, water, "{id}: water samples");
    assert!(water == n || land_min >= 0.0, "{id}: land below 0");
    (equal, max)
}

/// GPU tiles `pairs` (indices into `tiles` and `heights`) agree bit for bit on every sample
/// both store.
fn neighbours_agree(heights: &[f32], tiles: &[TileId], pairs: &[(usize, usize)]) {
    let n = JOB_FLOATS as usize;
    for &(a, b) in pairs {
        let shared = shared_samples(tiles[a], tiles[b]);
        let (ta, tb) = (tiles[a], tiles[b]);
        assert!(shared.len() >= 512 * 4, "{ta} ↔ {tb}: {}", shared.len());
        let (ga, gb) = (&heights[a * n..(a + 1) * n], &heights[b * n..(b + 1) * n]);
        for (ka, kb) in shared {
            assert_eq!(ga[ka].to_bits(), gb[kb].to_bits(), "{ta} ↔ {tb}");
        }
    }
}

#[test]
fn gpu_tiles_equal_the_cpu_derivation() {
    let src = source();
    let gibraltar = tile_at(9, 36.0, -5.5);
    // An L9 tile on face 0's +u edge, its neighbour across that edge and a sibling above it.
    let edge = TileId::new(9, Face(0), 511, 300);
    let across = edge.neighbour(1, 0).expect("edge neighbour");
    assert_ne!(across.face, edge.face);
    let sibling = edge.neighbour(0, 1).expect("sibling");
    let tiles = [
        gibraltar,
        edge,
        across,
        sibling,
        // The cube corner (1, 1, 1)/√3 (35.3 N 45 E, the Zagros): the 4×4 corner block.
        TileId::new(4, Face(0), 15, 15),
        tile_at(2, 46.0, 10.0),        // the Alps
        TileId::new(1, Face(1), 0, 1), // every L1 tile touches a cube corner
        TileId::new(0, Face(3), 0, 0),
    ];
    let jobs = jobs(&tiles);

    let mut gpu = Gpu::new();
    let mut derive = GpuTiles::new(&gpu.ctx, src).unwrap();
    let (first, ms) = run_batch(&mut gpu, &mut derive, &jobs, DERIVE);
    let (second, _) = run_batch(&mut gpu, &mut derive, &jobs, DERIVE);
    eprintln!("tiles.derive: {} tiles in {ms:.0} ms GPU", jobs.len());
    assert!(
        first
            .iter()
            .zip(&second)
            .all(|(a, b)| a.to_bits() == b.to_bits()),
        "the same batch twice differs"
    );

    // CPU reference.
    let cpu = on_two_threads(&tiles, |t| cpu_tile(src, t));

    let n = JOB_FLOATS as usize;
    let mut worst = 0f32;
    for (k, (tile, id)) in cpu.iter().zip(&tiles).enumerate() {
        let (equal, max) = compare(&first[k * n..(k + 1) * n], tile, *id);
        worst = worst.max(max);
        // Measured on lavapipe: every sample of every tile bit-identical; keep it so.
        assert_eq!(equal, n, "{id}: samples differing from the CPU");
    }
    assert!(worst <= 0.01, "max |GPU − CPU| {worst} m");
    // Neighbouring GPU tiles agree on their shared samples, across the face edge too.
    neighbours_agree(&first, &tiles, &[(1, 2), (2, 1), (1, 3), (3, 1)]);
    derive.destroy(&gpu.ctx);
}

/// GPU throughput on this device (lavapipe here): N L9 tiles across the Himalaya's southern
/// flank (every band active), GPU timestamps of `tiles.derive`.
/// `cargo test -p planetfall-tests --test gpu_tiles -- --ignored --nocapture`
#[test]
#[ignore]
fn derive_throughput() {
    let n = env_or("DERIVE_TILES", 8);
    let base = tile_at(9, 28.0, 86.0);
    let jobs = jobs(&block(base, n));
    let mut gpu = Gpu::new();
    let mut derive = GpuTiles::new(&gpu.ctx, source()).unwrap();
    run_batch(&mut gpu, &mut derive, &jobs[..1], DERIVE); // upload and pipeline build
    let (_, ms) = run_batch(&mut gpu, &mut derive, &jobs, DERIVE);
    println!(
        "{}: {n} L9 tiles in {ms:.1} ms GPU = {:.2} tiles/s",
        gpu.ctx.info.name,
        n as f64 / (ms / 1e3)
    );
    derive.destroy(&gpu.ctx);
}

const AMPLIFY: &[&str] = &[
    "tiles.amplify.patch",
    "tiles.amplify",
    "tiles.amplify.fallback",
];

/// `tiles.amplify` against `amplify_tile` on the CPU's stored L9 tiles (the test oracle): the
/// Khumbu at L10, L13 (rocks), L15 and L18 and its L13 neighbour, the Grand Canyon at L13 and
/// L15, an L13 tile on face 0's +u edge (Yemen's highlands at 45° E) and its neighbour across
/// it, and the L13 tile at the cube corner (1, 1, 1)/√3 (the Zagros).
#[test]
fn gpu_amplified_tiles_match_the_cpu() {
    let (khumbu, canyon) = ((27.90, 86.83), (36.06, -112.14));
    let k13 = tile_at(13, khumbu.0, khumbu.1);
    let edge = tile_at(13, 14.5, 44.9999);
    assert_eq!(
        (edge.face, edge.x),
        (Face(0), 8191),
        "{edge} is not on the edge"
    );
    let across = edge.neighbour(1, 0).expect("edge neighbour");
    assert_ne!(across.face, edge.face);
    let tiles = [
        tile_at(10, khumbu.0, khumbu.1),
        k13,
        tile_at(15, khumbu.0, khumbu.1),
        tile_at(18, khumbu.0, khumbu.1),
        k13.neighbour(1, 0).expect("sibling"),
        tile_at(13, canyon.0, canyon.1),
        tile_at(15, canyon.0, canyon.1),
        edge,
        across,
        TileId::new(13, Face(0), 8191, 8191),
    ];
    let jobs = jobs(&tiles);
    let mut gpu = Gpu::new();
    let mut gt = GpuTiles::new(&gpu.ctx, source()).unwrap();
    let t0 = std::time::Instant::now();
    let (first, ms) = run_batch(&mut gpu, &mut gt, &jobs, AMPLIFY);
    eprintln!(
        "tiles.amplify: {} tiles in {ms:.0} ms GPU ({:.1} s wall with pipeline build)",
        jobs.len(),
        t0.elapsed().as_secs_f64()
    );
    let (second, _) = run_batch(&mut gpu, &mut gt, &jobs, AMPLIFY);
    let same = first.iter().zip(&second);
    assert!(
        same.clone().all(|(a, b)| a.to_bits() == b.to_bits()),
        "the same batch twice differs"
    );

    // CPU reference: the oracle amplifies from its stored L9 tiles, two threads.
    let oracle = &planetfall_tests::earth_source().oracle;
    let cpu = on_two_threads(&tiles, |t| oracle.get(t));
    let n = JOB_FLOATS as usize;
    let (mut equal, mut worst) = (0, 0f32);
    for (k, (tile, id)) in cpu.iter().zip(&tiles).enumerate() {
        let (e, max) = compare(&first[k * n..(k + 1) * n], tile, *id);
        equal += e;
        worst = worst.max(max);
    }
    eprintln!(
        "all: {:.6} % bit-identical, max |diff| {worst} m",
        100.0 * equal as f64 / (n * tiles.len()) as f64
    );
    assert!(worst <= 0.01, "max |GPU − CPU| {worst} m");
    neighbours_agree(&first, &tiles, &[(1, 4), (4, 1), (7, 8), (8, 7)]);
    gt.destroy(&gpu.ctx);
}

/// Amplified throughput on this device: `AMPLIFY_TILES` (default 4) tiles of each level
/// class around the Khumbu (`AMPLIFY_LEVEL` picks one), GPU timestamps of the three passes.
/// `cargo test -p planetfall-tests --test gpu_tiles amplify_throughput -- --ignored --nocapture`
#[test]
#[ignore]
fn amplify_throughput() {
    let n = env_or("AMPLIFY_TILES", 4);
    let mut gpu = Gpu::new();
    let mut gt = GpuTiles::new(&gpu.ctx, source()).unwrap();
    let only = env_or("AMPLIFY_LEVEL", 0);
    for (class, level) in [("L10 (cubic)", 10), ("L13 (bands, rocks)", 13), ("L18", 18)] {
        if only != 0 && only != level as u32 {
            continue;
        }
        let base = tile_at(level, 27.90, 86.83);
        let jobs = jobs(&block(base, n));
        run_batch(&mut gpu, &mut gt, &jobs[..1], AMPLIFY); // upload and pipeline build
        let (_, ms) = run_batch(&mut gpu, &mut gt, &jobs, AMPLIFY);
        println!(
            "{}: {class}: {n} tiles in {ms:.1} ms GPU = {:.2} tiles/s",
            gpu.ctx.info.name,
            n as f64 / (ms / 1e3)
        );
    }
    gt.destroy(&gpu.ctx);
}
