//! Compilation tests: no GPU. Expected masks are written out from the Vulkan spec's
//! synchronization rules, not copied from the table under test.

use super::*;
use crate::access::Access;
use crate::desc::{BufferDesc, ImageDesc, TrackedState};
use crate::graph::{Graph, QueueKind};
use ash::vk::{AccessFlags2 as A, ImageLayout as L, PipelineStageFlags2 as S};
use parking_lot::Mutex;
use std::sync::Arc;

const ONE: QueueSetup = QueueSetup {
    universal: 0,
    transfer: None,
};
const TWO: QueueSetup = QueueSetup {
    universal: 0,
    transfer: Some(1),
};

fn imported(g: &mut Graph, name: &str) -> crate::graph::BufferRef {
    g.import_buffer_raw(
        name,
        BufferDesc::gpu(256),
        vk::Buffer::null(),
        Arc::new(Mutex::new(TrackedState::default())),
    )
}

/// producer writes `buf` with `w`, consumer reads with `r`; returns the consumer's barriers.
fn pair(w: Access, r: Access) -> BarrierBatch {
    let mut g = Graph::new();
    let mut b = g.create_buffer("b", BufferDesc::gpu(64));
    g.custom("producer").write(&mut b, w, false).declare_only();
    g.custom("consumer").read(b, r).side_effect().declare_only();
    let c = g.compile(ONE).expect("compiles");
    assert_eq!(c.order(), ["producer", "consumer"]);
    assert!(
        c.node("producer").unwrap().barriers.is_empty(),
        "first use of a transient needs no barrier"
    );
    c.node("consumer").unwrap().barriers.clone()
}

fn one_buffer(batch: &BarrierBatch) -> BufferBarrier {
    assert!(batch.images.is_empty() && batch.memory.is_empty());
    assert_eq!(batch.buffers.len(), 1, "{batch:?}");
    batch.buffers[0]
}

#[test]
fn compute_write_to_compute_read() {
    let b = one_buffer(&pair(Access::ComputeWrite, Access::ComputeRead));
    assert_eq!(
        (b.src_stage, b.src_access),
        (S::COMPUTE_SHADER, A::SHADER_STORAGE_WRITE)
    );
    assert_eq!(
        (b.dst_stage, b.dst_access),
        (S::COMPUTE_SHADER, A::SHADER_STORAGE_READ)
    );
    assert_eq!(b.src_family, b.dst_family);
}

#[test]
fn compute_write_to_indirect_dispatch() {
    let b = one_buffer(&pair(Access::ComputeWrite, Access::IndirectRead));
    assert_eq!(
        (b.src_stage, b.src_access),
        (S::COMPUTE_SHADER, A::SHADER_STORAGE_WRITE)
    );
    assert_eq!(
        (b.dst_stage, b.dst_access),
        (S::DRAW_INDIRECT, A::INDIRECT_COMMAND_READ)
    );
}

#[test]
fn compute_write_to_vertex_and_index_reads() {
    let v = one_buffer(&pair(Access::ComputeWrite, Access::VertexBuffer));
    assert_eq!(
        (v.dst_stage, v.dst_access),
        (S::VERTEX_ATTRIBUTE_INPUT, A::VERTEX_ATTRIBUTE_READ)
    );
    let i = one_buffer(&pair(Access::ComputeWrite, Access::IndexBuffer));
    assert_eq!((i.dst_stage, i.dst_access), (S::INDEX_INPUT, A::INDEX_READ));
    let s = one_buffer(&pair(Access::ComputeWrite, Access::VertexShaderRead));
    assert_eq!(
        (s.dst_stage, s.dst_access),
        (S::VERTEX_SHADER, A::SHADER_STORAGE_READ)
    );
    assert_eq!(
        (s.src_stage, s.src_access),
        (S::COMPUTE_SHADER, A::SHADER_STORAGE_WRITE)
    );
}

#[test]
fn transfer_write_to_compute_read() {
    let b = one_buffer(&pair(Access::TransferWrite, Access::ComputeRead));
    assert_eq!(
        (b.src_stage, b.src_access),
        (S::ALL_TRANSFER, A::TRANSFER_WRITE)
    );
    assert_eq!(
        (b.dst_stage, b.dst_access),
        (S::COMPUTE_SHADER, A::SHADER_STORAGE_READ)
    );
}

fn color_then(read: Access) -> ImageBarrier {
    let mut g = Graph::new();
    let mut img = g.create_image("colour", ImageDesc::d2(8, 8, vk::Format::R8G8B8A8_UNORM));
    g.custom("draw")
        .write(&mut img, Access::ColorAttachment, false)
        .declare_only();
    g.custom("sample")
        .read(img, read)
        .side_effect()
        .declare_only();
    let c = g.compile(ONE).unwrap();
    // The draw's own barrier is the UNDEFINED -> COLOR_ATTACHMENT_OPTIMAL transition.
    let first = &c.node("draw").unwrap().barriers.images;
    assert_eq!(first.len(), 1);
    assert_eq!(
        (first[0].old_layout, first[0].new_layout),
        (L::UNDEFINED, L::COLOR_ATTACHMENT_OPTIMAL)
    );
    assert_eq!(first[0].dst_stage, S::COLOR_ATTACHMENT_OUTPUT);
    let b = &c.node("sample").unwrap().barriers;
    assert_eq!(b.images.len(), 1);
    b.images[0]
}

#[test]
fn colour_attachment_to_sampled_and_storage_reads() {
    let s = color_then(Access::FragmentSampled);
    assert_eq!(
        (s.src_stage, s.src_access),
        (S::COLOR_ATTACHMENT_OUTPUT, A::COLOR_ATTACHMENT_WRITE)
    );
    assert_eq!(
        (s.dst_stage, s.dst_access),
        (S::FRAGMENT_SHADER, A::SHADER_SAMPLED_READ)
    );
    assert_eq!(
        (s.old_layout, s.new_layout),
        (L::COLOR_ATTACHMENT_OPTIMAL, L::SHADER_READ_ONLY_OPTIMAL)
    );
    let c = color_then(Access::ComputeRead);
    assert_eq!(
        (c.dst_stage, c.dst_access),
        (S::COMPUTE_SHADER, A::SHADER_STORAGE_READ)
    );
    assert_eq!(
        (c.old_layout, c.new_layout),
        (L::COLOR_ATTACHMENT_OPTIMAL, L::GENERAL)
    );
}

#[test]
fn async_transfer_write_to_graphics_read_pairs_release_and_acquire() {
    let build = |q: QueueSetup| {
        let mut g = Graph::new();
        let staging = g.create_buffer("staging", BufferDesc::upload(64));
        let mut dst = g.create_buffer("dst", BufferDesc::gpu(64));
        g.transfer("stream.upload")
            .queue(QueueKind::AsyncTransfer)
            .copy_buffer(staging, &mut dst, 0, 0, 64);
        g.custom("consume")
            .read(dst, Access::ComputeRead)
            .side_effect()
            .declare_only();
        g.compile(q).unwrap()
    };
    let c = build(TWO);
    let dst = c.resource_id("dst").unwrap();
    let up = c.node("stream.upload").unwrap();
    assert_eq!(up.queue, QueueKind::AsyncTransfer);
    assert_eq!(up.family, 1);
    let rel = one_buffer(&up.releases);
    assert_eq!(rel.res, dst);
    assert_eq!(
        (rel.src_stage, rel.src_access),
        (S::ALL_TRANSFER, A::TRANSFER_WRITE)
    );
    assert_eq!((rel.dst_stage, rel.dst_access), (S::NONE, A::NONE));
    assert_eq!((rel.src_family, rel.dst_family), (1, 0));
    let consume = c.node("consume").unwrap();
    let acq = one_buffer(&consume.barriers);
    assert_eq!((acq.src_stage, acq.src_access), (S::NONE, A::NONE));
    assert_eq!(
        (acq.dst_stage, acq.dst_access),
        (S::COMPUTE_SHADER, A::SHADER_STORAGE_READ)
    );
    assert_eq!((acq.src_family, acq.dst_family), (1, 0));
    assert_eq!(c.batches.len(), 2);
    assert_eq!(
        c.batches[1].waits.iter().copied().collect::<Vec<_>>(),
        vec![0]
    );

    // Same graph on a single-family device: one batch, a plain barrier, no ownership.
    let c = build(ONE);
    assert_eq!(c.batches.len(), 1);
    assert!(c.node("stream.upload").unwrap().releases.is_empty());
    let b = one_buffer(&c.node("consume").unwrap().barriers);
    assert_eq!(
        (b.src_stage, b.src_access),
        (S::ALL_TRANSFER, A::TRANSFER_WRITE)
    );
    assert_eq!((b.src_family, b.dst_family), (0, 0));
}

#[test]
fn imported_resource_returns_to_universal_family() {
    let mut g = Graph::new();
    let staging = g.create_buffer("staging", BufferDesc::upload(64));
    let state = Arc::new(Mutex::new(TrackedState {
        family: Some(0),
        ..Default::default()
    }));
    let mut atlas = g.import_buffer_raw("atlas", BufferDesc::gpu(64), vk::Buffer::null(), state);
    g.transfer("stream.upload")
        .queue(QueueKind::AsyncTransfer)
        .copy_buffer(staging, &mut atlas, 0, 0, 64);
    let c = g.compile(TWO).unwrap();
    assert_eq!(c.order(), [PROLOGUE, "stream.upload", EPILOGUE]);
    // Prologue releases 0 -> 1, upload acquires; upload releases 1 -> 0, epilogue acquires.
    assert_eq!(one_buffer(&c.nodes[0].releases).dst_family, 1);
    assert_eq!(one_buffer(&c.nodes[1].barriers).src_family, 0);
    assert_eq!(one_buffer(&c.nodes[1].releases).dst_family, 0);
    assert_eq!(one_buffer(&c.nodes[2].barriers).src_family, 1);
    assert_eq!(c.batches.len(), 3);
    assert!(c.batches[1].waits.contains(&0) && c.batches[2].waits.contains(&1));
    assert_eq!(c.final_states[0].1.family, Some(0));
}

#[test]
fn culls_nodes_that_reach_no_sink() {
    let mut g = Graph::new();
    let mut a = g.create_buffer("a", BufferDesc::gpu(16));
    let mut unused = g.create_buffer("unused", BufferDesc::gpu(16));
    let mut out = imported(&mut g, "out");
    g.custom("make_a")
        .write(&mut a, Access::ComputeWrite, false)
        .declare_only();
    g.custom("dead_end")
        .read(a, Access::ComputeRead)
        .write(&mut unused, Access::ComputeWrite, false)
        .declare_only();
    g.custom("to_out")
        .read(a, Access::ComputeRead)
        .write(&mut out, Access::ComputeWrite, false)
        .declare_only();
    let c = g.compile(ONE).unwrap();
    assert_eq!(c.order(), ["make_a", "to_out"]);
    assert_eq!(c.culled, vec!["dead_end".to_string()]);
}

#[test]
fn orders_from_declarations_and_hoists_async_uploads() {
    let mut g = Graph::new();
    let mut a = g.create_buffer("a", BufferDesc::gpu(16));
    let mut out = imported(&mut g, "out");
    let staging = g.create_buffer("staging", BufferDesc::upload(16));
    let mut tiles = g.create_buffer("tiles", BufferDesc::gpu(16));
    g.custom("first")
        .write(&mut a, Access::ComputeWrite, false)
        .declare_only();
    g.custom("second")
        .read(a, Access::ComputeRead)
        .write(&mut out, Access::ComputeWrite, true)
        .declare_only();
    // Declared late but independent of the compute chain: runs first on the async queue.
    g.transfer("stream.upload")
        .queue(QueueKind::AsyncTransfer)
        .copy_buffer(staging, &mut tiles, 0, 0, 16);
    g.custom("third")
        .read(tiles, Access::ComputeRead)
        .write(&mut out, Access::ComputeWrite, true)
        .declare_only();
    let c = g.compile(TWO).unwrap();
    assert_eq!(c.order(), ["stream.upload", "first", "second", "third"]);
    // On one family the upload is still hoisted (independent), all in one batch.
    let mut g = Graph::new();
    let mut x = g.create_buffer("x", BufferDesc::gpu(16));
    let mut y = imported(&mut g, "y");
    g.custom("w")
        .write(&mut x, Access::ComputeWrite, false)
        .declare_only();
    g.custom("r")
        .read(x, Access::ComputeRead)
        .write(&mut y, Access::ComputeWrite, false)
        .declare_only();
    assert_eq!(g.compile(ONE).unwrap().order(), ["w", "r"]);
}

#[test]
fn consecutive_reads_need_no_barrier_and_war_is_execution_only() {
    let mut g = Graph::new();
    let mut b = g.create_buffer("b", BufferDesc::gpu(16));
    g.custom("w")
        .write(&mut b, Access::ComputeWrite, false)
        .declare_only();
    g.custom("r1")
        .read(b, Access::ComputeRead)
        .side_effect()
        .declare_only();
    g.custom("r2")
        .read(b, Access::ComputeRead)
        .side_effect()
        .declare_only();
    g.custom("w2")
        .write(&mut b, Access::TransferWrite, false)
        .side_effect()
        .declare_only();
    let c = g.compile(ONE).unwrap();
    assert_eq!(c.node("r1").unwrap().barriers.len(), 1);
    assert!(c.node("r2").unwrap().barriers.is_empty());
    let war = one_buffer(&c.node("w2").unwrap().barriers);
    assert_eq!(
        (war.src_stage, war.src_access),
        (S::COMPUTE_SHADER, A::NONE)
    );
    assert_eq!(
        (war.dst_stage, war.dst_access),
        (S::ALL_TRANSFER, A::TRANSFER_WRITE)
    );
}

#[test]
fn stale_read_is_an_error_naming_node_and_resource() {
    let mut g = Graph::new();
    let mut b = g.create_buffer("cbt.pool", BufferDesc::gpu(16));
    let old = b;
    g.custom("cbt.eval")
        .write(&mut b, Access::ComputeWrite, true)
        .declare_only();
    g.custom("cbt.decide")
        .read(old, Access::ComputeRead)
        .side_effect()
        .declare_only();
    let e = g.compile(ONE).unwrap_err().to_string();
    assert!(
        e.contains("cbt.decide") && e.contains("cbt.pool") && e.contains("version 0"),
        "{e}"
    );
}

#[test]
fn transients_with_disjoint_lifetimes_alias() {
    let mut g = Graph::new();
    let mut out = imported(&mut g, "out");
    let mut a = g.create_buffer("a", BufferDesc::gpu(1024));
    let mut b = g.create_buffer("b", BufferDesc::gpu(1024));
    let mut c2 = g.create_buffer("c", BufferDesc::gpu(1024));
    g.custom("wa")
        .write(&mut a, Access::ComputeWrite, false)
        .declare_only();
    g.custom("ra")
        .read(a, Access::ComputeRead)
        .write(&mut b, Access::ComputeWrite, false)
        .declare_only();
    g.custom("rb")
        .read(b, Access::ComputeRead)
        .write(&mut c2, Access::ComputeWrite, false)
        .declare_only();
    g.custom("rc")
        .read(c2, Access::ComputeRead)
        .write(&mut out, Access::ComputeWrite, false)
        .declare_only();
    let c = g.compile(ONE).unwrap();
    let id = |n: &str| c.resource_id(n).unwrap() as usize;
    // a: [0,1], b: [1,2], c: [2,3] — a and c can share memory, b cannot share with either.
    assert_eq!(c.alias[id("a")], c.alias[id("c")]);
    assert_ne!(c.alias[id("a")], c.alias[id("b")]);
    assert_eq!(c.alias[id("out")], None);
    // The first use of `c` waits for the slot's previous occupant (`a`, read at `rb`? no: `ra`).
    let m = &c.node("rb").unwrap().barriers.memory;
    assert_eq!(m.len(), 1);
    assert_eq!(m[0].0, S::COMPUTE_SHADER);
}

#[test]
fn transfer_queue_nodes_may_only_copy() {
    let mut g = Graph::new();
    let mut b = g.create_buffer("b", BufferDesc::gpu(16));
    g.custom("bad")
        .queue(QueueKind::AsyncTransfer)
        .write(&mut b, Access::ComputeWrite, false)
        .side_effect()
        .declare_only();
    assert!(g.compile(TWO).unwrap_err().to_string().contains("bad"));
}

#[test]
fn dumps_name_every_node() {
    let mut g = Graph::new();
    let mut b = g.create_buffer("b", BufferDesc::gpu(16));
    g.custom("cbt.eval")
        .write(&mut b, Access::ComputeWrite, false)
        .declare_only();
    g.custom("shade.terrain")
        .read(b, Access::ComputeRead)
        .side_effect()
        .declare_only();
    let c = g.compile(ONE).unwrap();
    let dot = c.dump_dot();
    let text = c.dump_text();
    for n in ["cbt.eval", "shade.terrain"] {
        assert!(dot.contains(&format!("\"{n}\"")) && text.contains(n));
    }
}
