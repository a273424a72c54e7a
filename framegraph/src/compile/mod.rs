//! Compilation: a pure function of the declarations (no device needed).
//!
//! 1. check declarations (stale reads, bindings against reflection, push constants, queues);
//! 2. dependencies from versions (RAW, WAR, WAW);
//! 3. cull nodes whose outputs reach no sink;
//! 4. order (topological; async-transfer nodes hoisted as early as their inputs allow);
//! 5. map queues to families, add the queue hand-off nodes and cut the order into per-queue
//!    batches with timeline waits;
//! 6. plan transient memory aliasing (before barriers: a transient's first use must wait for
//!    the previous occupant of its memory);
//! 7. plan one batched synchronization2 barrier per node (+ queue-ownership release/acquire;
//!    `barriers.rs`), then add the waits that put each acquire after its release.
//!
//! Holds the plan's types ([`CompiledGraph`], [`CompiledNode`], [`Batch`], [`BarrierBatch`],
//! [`BufferBarrier`], [`ImageBarrier`]), [`CompileError`] and `Graph::compile`. Imports only
//! pure modules (`access`, `desc`, `graph`, `queue`, `shader`); `tests/module_layers.rs`
//! checks that. [`QueueSetup`] is re-exported from `queue`.

use crate::access::Usage;
use crate::desc::{Memory, TrackedState};
use crate::graph::{
    Graph, GraphError, NodeDecl, NodeKind, Origin, ResourceDecl, ResourceDesc, Work,
};
use crate::queue::QueueKind;
use crate::shader::{BindingKind, Shader};
use ash::vk;
use std::collections::{BTreeSet, HashMap};

mod barriers;
use barriers::plan_barriers;

pub use crate::queue::QueueSetup;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BufferBarrier {
    pub res: u32,
    pub src_stage: vk::PipelineStageFlags2,
    pub src_access: vk::AccessFlags2,
    pub dst_stage: vk::PipelineStageFlags2,
    pub dst_access: vk::AccessFlags2,
    pub src_family: u32,
    pub dst_family: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageBarrier {
    pub res: u32,
    pub src_stage: vk::PipelineStageFlags2,
    pub src_access: vk::AccessFlags2,
    pub dst_stage: vk::PipelineStageFlags2,
    pub dst_access: vk::AccessFlags2,
    pub old_layout: vk::ImageLayout,
    pub new_layout: vk::ImageLayout,
    pub src_family: u32,
    pub dst_family: u32,
}

/// One `vkCmdPipelineBarrier2`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BarrierBatch {
    /// Global memory barriers (memory handed from one aliased transient to the next).
    pub memory: Vec<(
        vk::PipelineStageFlags2,
        vk::AccessFlags2,
        vk::PipelineStageFlags2,
        vk::AccessFlags2,
    )>,
    pub buffers: Vec<BufferBarrier>,
    pub images: Vec<ImageBarrier>,
}

impl BarrierBatch {
    pub fn is_empty(&self) -> bool {
        self.memory.is_empty() && self.buffers.is_empty() && self.images.is_empty()
    }
    pub fn len(&self) -> usize {
        self.memory.len() + self.buffers.len() + self.images.len()
    }
}

#[derive(Debug)]
pub struct CompiledNode {
    pub name: String,
    pub kind: NodeKind,
    /// Index in declaration order.
    pub decl: usize,
    pub queue: QueueKind,
    pub family: u32,
    pub batch: usize,
    /// Recorded before the node's commands (acquires included).
    pub barriers: BarrierBatch,
    /// Ownership releases recorded after the node's commands.
    pub releases: BarrierBatch,
    /// Merged usage per resource.
    pub uses: Vec<(u32, Usage)>,
    /// Descriptor bindings: shader binding name → resource.
    pub bindings: Vec<(String, u32)>,
}

/// A run of consecutive nodes on one queue, submitted together.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Batch {
    pub queue: QueueKind,
    pub family: u32,
    pub nodes: std::ops::Range<usize>,
    /// Earlier batches (on other queues) this one waits for.
    pub waits: BTreeSet<usize>,
}

#[derive(Debug)]
pub struct CompiledGraph<'a> {
    pub resources: Vec<ResourceDecl>,
    /// Surviving nodes in execution order.
    pub nodes: Vec<CompiledNode>,
    /// Work, indexed like `nodes`.
    pub work: Vec<Work<'a>>,
    pub culled: Vec<String>,
    pub batches: Vec<Batch>,
    /// Alias slot of each transient (None = own memory or not a transient).
    pub alias: Vec<Option<usize>>,
    /// State of each imported resource after the frame.
    pub final_states: Vec<(u32, TrackedState)>,
    pub readbacks: Vec<(String, u32)>,
    pub queues: QueueSetup,
}

#[derive(Debug, thiserror::Error)]
pub enum CompileError {
    #[error("{}", .0.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("\n"))]
    Declarations(Vec<GraphError>),
}

impl<'a> Graph<'a> {
    pub fn compile(self, queues: QueueSetup) -> Result<CompiledGraph<'a>, CompileError> {
        compile(self, queues)
    }
}

fn compile<'a>(g: Graph<'a>, queues: QueueSetup) -> Result<CompiledGraph<'a>, CompileError> {
    let Graph {
        resources,
        nodes,
        mut errors,
        readbacks,
        ..
    } = g;
    check_nodes(&nodes, &resources, &mut errors);
    if !errors.is_empty() {
        return Err(CompileError::Declarations(errors));
    }

    let deps = dependencies(&nodes, resources.len());
    let needed = cull(&nodes, &resources, &deps);
    let order = schedule(&nodes, &deps, &needed, &queues);

    let mut compiled: Vec<CompiledNode> = Vec::with_capacity(order.len());
    let mut work = Vec::with_capacity(order.len());
    let mut slots: Vec<Option<NodeDecl<'a>>> = nodes.into_iter().map(Some).collect();
    let culled: Vec<String> = slots
        .iter()
        .enumerate()
        .filter(|(i, _)| !needed[*i])
        .filter_map(|(_, n)| n.as_ref().map(|n| n.name.clone()))
        .collect();
    for &i in &order {
        let n = slots[i].take().expect("each node scheduled once");
        let queue = queues.effective(n.queue);
        let mut uses: Vec<(u32, Usage)> = Vec::new();
        for u in &n.uses {
            let usage = Usage::of(u.access);
            match uses.iter_mut().find(|(r, _)| *r == u.res) {
                Some((_, prev)) => {
                    let image = resources[u.res as usize].is_image();
                    *prev = prev.merge(usage, image).expect("checked in check_nodes")
                }
                None => uses.push((u.res, usage)),
            }
        }
        let bindings = n
            .uses
            .iter()
            .filter_map(|u| u.binding.clone().map(|b| (b, u.res)))
            .collect();
        compiled.push(CompiledNode {
            bindings,
            name: n.name,
            kind: n.kind,
            decl: i,
            queue,
            family: queues.family(queue),
            batch: 0,
            barriers: BarrierBatch::default(),
            releases: BarrierBatch::default(),
            uses,
        });
        work.push(n.work);
    }

    add_handoff_nodes(&mut compiled, &mut work, &resources, &queues);
    let order: Vec<usize> = compiled.iter().map(|n| n.decl).collect();
    let batches = cut_batches(&mut compiled, &deps, &order);
    let alias = plan_aliasing(&compiled, &resources);
    let final_states = plan_barriers(&mut compiled, &resources, &alias, &queues);
    // Queue hand-offs add waits too: an acquire must follow its release.
    let batches = add_handoff_waits(batches, &compiled);

    Ok(CompiledGraph {
        resources,
        nodes: compiled,
        work,
        culled,
        batches,
        alias,
        final_states,
        readbacks,
        queues,
    })
}

fn check_nodes(nodes: &[NodeDecl], resources: &[ResourceDecl], errors: &mut Vec<GraphError>) {
    for n in nodes {
        // One layout per image per node.
        let mut merged: HashMap<u32, Usage> = HashMap::new();
        for u in &n.uses {
            let usage = Usage::of(u.access);
            let m = match merged.get(&u.res) {
                Some(prev) => prev.merge(usage, resources[u.res as usize].is_image()),
                None => Some(usage),
            };
            match m {
                Some(m) => {
                    merged.insert(u.res, m);
                }
                None => errors.push(GraphError::Conflict {
                    node: n.name.clone(),
                    resource: resources[u.res as usize].name.clone(),
                }),
            }
            if n.queue == QueueKind::AsyncTransfer && !u.access.transfer_queue_ok() {
                errors.push(GraphError::QueueAccess {
                    node: n.name.clone(),
                    resource: resources[u.res as usize].name.clone(),
                });
            }
        }
        let shaders: Vec<&Shader> = match &n.work {
            Work::Compute { shader, push, .. } => {
                check_push(n, shader, push.len(), errors);
                vec![shader]
            }
            Work::Raster { vs, fs, push, .. } => {
                check_push(n, vs, push.len(), errors);
                check_push(n, fs, push.len(), errors);
                vec![vs, fs]
            }
            Work::None if matches!(n.kind, NodeKind::Compute | NodeKind::Raster) => {
                errors.push(GraphError::NoWork {
                    node: n.name.clone(),
                });
                continue;
            }
            _ => continue,
        };
        for s in shaders {
            let Ok(refl) = s.reflect() else { continue };
            for b in &refl.bindings {
                let bound: Vec<_> = n
                    .uses
                    .iter()
                    .filter(|u| u.binding.as_deref() == Some(&b.name))
                    .collect();
                let Some(u) = bound.first() else {
                    errors.push(GraphError::MissingBinding {
                        node: n.name.clone(),
                        binding: b.name.clone(),
                        shader: s.name.into(),
                        set: b.set,
                        index: b.binding,
                    });
                    continue;
                };
                let is_image = resources[u.res as usize].is_image();
                let wants_image = !matches!(
                    b.kind,
                    BindingKind::StorageBuffer | BindingKind::UniformBuffer
                );
                let written = bound.iter().any(|u| u.writes.is_some());
                let mismatch = if is_image != wants_image {
                    Some((
                        if is_image { "an image" } else { "a buffer" },
                        format!("{:?}", b.kind),
                    ))
                } else if written && b.read_only {
                    Some(("written", "readonly".to_string()))
                } else if !written
                    && !b.read_only
                    && matches!(
                        b.kind,
                        BindingKind::StorageBuffer | BindingKind::StorageImage
                    )
                {
                    Some((
                        "read-only",
                        "writable (mark it readonly, or declare the write)".to_string(),
                    ))
                } else {
                    None
                };
                if let Some((declared, actual)) = mismatch {
                    errors.push(GraphError::BindingMismatch {
                        node: n.name.clone(),
                        binding: b.name.clone(),
                        shader: s.name.into(),
                        declared: declared.into(),
                        actual,
                    });
                }
            }
        }
    }
}

fn check_push(n: &NodeDecl, s: &Shader, got: usize, errors: &mut Vec<GraphError>) {
    if let Ok(r) = s.reflect() {
        if r.push_constant_size != 0 && r.push_constant_size as usize != got {
            errors.push(GraphError::PushConstants {
                node: n.name.clone(),
                shader: s.name.into(),
                got,
                expected: r.push_constant_size,
            });
        }
    }
}

/// Edges between declared nodes.
#[derive(Debug, Default)]
struct Deps {
    /// All ordering edges (RAW, WAR, WAW): before[n] = nodes that must run before n.
    before: Vec<BTreeSet<usize>>,
    /// Data edges only (RAW): the producers of versions n reads.
    producers: Vec<BTreeSet<usize>>,
}

fn dependencies(nodes: &[NodeDecl], n_res: usize) -> Deps {
    let mut d = Deps {
        before: vec![BTreeSet::new(); nodes.len()],
        producers: vec![BTreeSet::new(); nodes.len()],
    };
    // Per resource: writer of each version, and readers since the last write.
    let mut writer: Vec<HashMap<u32, usize>> = vec![HashMap::new(); n_res];
    let mut last_writer: Vec<Option<usize>> = vec![None; n_res];
    let mut readers: Vec<Vec<usize>> = vec![Vec::new(); n_res];
    for (i, n) in nodes.iter().enumerate() {
        for u in &n.uses {
            let r = u.res as usize;
            if let Some(v) = u.reads {
                if let Some(&w) = writer[r].get(&v) {
                    if w != i {
                        d.before[i].insert(w);
                        d.producers[i].insert(w);
                    }
                }
            }
        }
        for u in &n.uses {
            let r = u.res as usize;
            if let Some(v) = u.writes {
                if let Some(w) = last_writer[r] {
                    if w != i {
                        d.before[i].insert(w);
                    }
                }
                for &rd in &readers[r] {
                    if rd != i {
                        d.before[i].insert(rd);
                    }
                }
                readers[r].clear();
                writer[r].insert(v, i);
                last_writer[r] = Some(i);
            }
        }
        for u in &n.uses {
            if u.writes.is_none() {
                readers[u.res as usize].push(i);
            }
        }
    }
    d
}

/// Nodes that reach a sink: present/readback/side-effect nodes and writes to imported
/// resources, plus (transitively) the producers of what they read.
fn cull(nodes: &[NodeDecl], resources: &[ResourceDecl], deps: &Deps) -> Vec<bool> {
    let mut needed = vec![false; nodes.len()];
    let mut stack: Vec<usize> = Vec::new();
    for (i, n) in nodes.iter().enumerate() {
        let persistent_write = n.uses.iter().any(|u| {
            u.writes.is_some()
                && matches!(resources[u.res as usize].origin, Origin::Imported { .. })
        });
        if n.sink || persistent_write {
            needed[i] = true;
            stack.push(i);
        }
    }
    while let Some(i) = stack.pop() {
        for &p in &deps.producers[i] {
            if !needed[p] {
                needed[p] = true;
                stack.push(p);
            }
        }
    }
    needed
}

/// Topological order of the needed nodes: async nodes first when ready (their work overlaps
/// the universal queue's), otherwise declaration order.
fn schedule(nodes: &[NodeDecl], deps: &Deps, needed: &[bool], queues: &QueueSetup) -> Vec<usize> {
    let mut indeg: Vec<usize> = (0..nodes.len())
        .map(|i| deps.before[i].iter().filter(|&&p| needed[p]).count())
        .collect();
    let mut after: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    for (i, b) in deps.before.iter().enumerate() {
        for &p in b {
            after[p].push(i);
        }
    }
    let prio = |i: usize| (queues.effective(nodes[i].queue) == QueueKind::Universal, i);
    let mut ready: BTreeSet<(bool, usize)> = (0..nodes.len())
        .filter(|&i| needed[i] && indeg[i] == 0)
        .map(prio)
        .collect();
    let mut order = Vec::new();
    while let Some(&first) = ready.iter().next() {
        ready.remove(&first);
        let i = first.1;
        order.push(i);
        for &s in &after[i] {
            if !needed[s] {
                continue;
            }
            indeg[s] -= 1;
            if indeg[s] == 0 {
                ready.insert(prio(s));
            }
        }
    }
    order
}

/// Name of the synthetic universal-queue node that releases imported resources to another
/// queue family at the start of a frame.
pub const PROLOGUE: &str = "queue.release";
/// Name of the synthetic universal-queue node that takes imported resources back at the end.
pub const EPILOGUE: &str = "queue.acquire";

/// Insert the prologue/epilogue nodes where an imported resource crosses queue families at a
/// frame boundary (never on single-family devices).
fn add_handoff_nodes(
    nodes: &mut Vec<CompiledNode>,
    work: &mut Vec<Work<'_>>,
    resources: &[ResourceDecl],
    q: &QueueSetup,
) {
    let mut first_family: HashMap<u32, u32> = HashMap::new();
    let mut last_family: HashMap<u32, u32> = HashMap::new();
    for n in nodes.iter() {
        for (r, _) in &n.uses {
            first_family.entry(*r).or_insert(n.family);
            last_family.insert(*r, n.family);
        }
    }
    let mut prologue = false;
    let mut epilogue = false;
    for (r, res) in resources.iter().enumerate() {
        if let Origin::Imported { state, .. } = &res.origin {
            let owner = state.lock().family;
            if let (Some(o), Some(&f)) = (owner, first_family.get(&(r as u32))) {
                prologue |= o != f;
            }
            if let Some(&f) = last_family.get(&(r as u32)) {
                epilogue |= f != q.universal;
            }
        }
    }
    let synthetic = |name: &str| CompiledNode {
        name: name.into(),
        kind: NodeKind::Custom,
        decl: usize::MAX,
        queue: QueueKind::Universal,
        family: q.universal,
        batch: 0,
        barriers: BarrierBatch::default(),
        releases: BarrierBatch::default(),
        uses: Vec::new(),
        bindings: Vec::new(),
    };
    if prologue {
        nodes.insert(0, synthetic(PROLOGUE));
        work.insert(0, Work::None);
    }
    if epilogue {
        nodes.push(synthetic(EPILOGUE));
        work.push(Work::None);
    }
}

/// Cut the order into batches at every queue change; cross-queue data/ordering edges
/// become waits.
fn cut_batches(nodes: &mut [CompiledNode], deps: &Deps, order: &[usize]) -> Vec<Batch> {
    let mut batches: Vec<Batch> = Vec::new();
    for (pos, n) in nodes.iter_mut().enumerate() {
        // The end-of-frame hand-off gets a batch of its own: its acquire waits for the other
        // queue's batch, and that wait must not hold up the universal work before it (the
        // async upload overlaps the frame's rendering only so).
        let own_batch = n.name == EPILOGUE;
        match batches.last_mut() {
            Some(b) if b.queue == n.queue && !own_batch => b.nodes.end = pos + 1,
            _ => batches.push(Batch {
                queue: n.queue,
                family: n.family,
                nodes: pos..pos + 1,
                waits: BTreeSet::new(),
            }),
        }
        n.batch = batches.len() - 1;
    }
    let pos_of: HashMap<usize, usize> = order.iter().enumerate().map(|(p, &d)| (d, p)).collect();
    for p in 0..nodes.len() {
        let b = nodes[p].batch;
        let Some(before) = deps.before.get(nodes[p].decl) else {
            continue;
        };
        for dep in before {
            if let Some(&q) = pos_of.get(dep) {
                let pb = nodes[q].batch;
                if batches[pb].queue != batches[b].queue {
                    batches[b].waits.insert(pb);
                }
            }
        }
    }
    batches
}

fn add_handoff_waits(mut batches: Vec<Batch>, nodes: &[CompiledNode]) -> Vec<Batch> {
    // For every acquire in batch b, the batch holding the matching release must be waited on.
    for n in nodes {
        for acq in n
            .barriers
            .buffers
            .iter()
            .filter(|b| b.src_family != b.dst_family)
        {
            if let Some(r) = release_batch(nodes, n, acq.res) {
                if r != n.batch {
                    batches[n.batch].waits.insert(r);
                }
            }
        }
        for acq in n
            .barriers
            .images
            .iter()
            .filter(|b| b.src_family != b.dst_family)
        {
            if let Some(r) = release_batch(nodes, n, acq.res) {
                if r != n.batch {
                    batches[n.batch].waits.insert(r);
                }
            }
        }
    }
    batches
}

fn release_batch(nodes: &[CompiledNode], acquirer: &CompiledNode, res: u32) -> Option<usize> {
    nodes
        .iter()
        .take_while(|n| !std::ptr::eq(*n, acquirer))
        .filter(|n| {
            n.releases.buffers.iter().any(|b| b.res == res)
                || n.releases.images.iter().any(|b| b.res == res)
        })
        .map(|n| n.batch)
        .last()
}

/// Greedy interval packing of transients used only on the universal queue, device-local,
/// buffers with buffers and images with images. Returns each resource's alias slot, indexed
/// by resource id (None: own memory, or not a transient).
fn plan_aliasing(nodes: &[CompiledNode], resources: &[ResourceDecl]) -> Vec<Option<usize>> {
    let mut first = vec![usize::MAX; resources.len()];
    let mut last = vec![0usize; resources.len()];
    let mut async_use = vec![false; resources.len()];
    for (p, n) in nodes.iter().enumerate() {
        for (r, _) in &n.uses {
            let r = *r as usize;
            first[r] = first[r].min(p);
            last[r] = last[r].max(p);
            async_use[r] |= n.queue != QueueKind::Universal;
        }
    }
    let mut candidates: Vec<usize> = (0..resources.len())
        .filter(|&r| first[r] != usize::MAX && resources[r].is_transient() && !async_use[r])
        .filter(|&r| match &resources[r].desc {
            ResourceDesc::Buffer(d) => d.memory == Memory::Gpu,
            ResourceDesc::Image(_) => true,
        })
        .collect();
    candidates.sort_by_key(|&r| (first[r], r));
    let mut alias = vec![None; resources.len()];
    // Per alias slot: (holds images, last position a member is used at).
    let mut slots: Vec<(bool, usize)> = Vec::new();
    for r in candidates {
        let img = resources[r].is_image();
        let slot = slots
            .iter()
            .position(|&(i, end)| i == img && end < first[r]);
        let s = match slot {
            Some(s) => s,
            None => {
                slots.push((img, 0));
                slots.len() - 1
            }
        };
        slots[s].1 = last[r];
        alias[r] = Some(s);
    }
    alias
}

impl CompiledGraph<'_> {
    pub fn node(&self, name: &str) -> Option<&CompiledNode> {
        self.nodes.iter().find(|n| n.name == name)
    }
    pub fn order(&self) -> Vec<&str> {
        self.nodes.iter().map(|n| n.name.as_str()).collect()
    }
    pub fn resource_id(&self, name: &str) -> Option<u32> {
        self.resources
            .iter()
            .position(|r| r.name == name)
            .map(|i| i as u32)
    }
}

#[cfg(test)]
mod tests;
