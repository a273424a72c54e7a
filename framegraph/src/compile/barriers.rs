//! Step 7 of compilation (`plan_barriers`): walk the execution order tracking each resource's
//! state and plan one batched synchronization2 barrier per node, with queue-ownership
//! release/acquire pairs and image layouts.

use super::*;

/// Walk the execution order tracking each resource's state; emit the barriers each node needs.
/// Returns the final state of imported resources.
pub(super) fn plan_barriers(
    nodes: &mut [CompiledNode],
    resources: &[ResourceDecl],
    alias: &[Option<usize>],
    queues: &QueueSetup,
) -> Vec<(u32, TrackedState)> {
    use vk::AccessFlags2 as A;
    use vk::PipelineStageFlags2 as S;
    let mut state: Vec<TrackedState> = resources
        .iter()
        .map(|r| match &r.origin {
            Origin::Imported { state, .. } => {
                let mut s = *state.lock();
                // Imported resources start each frame owned by the universal family.
                if s.family.is_none() && s.layout != vk::ImageLayout::UNDEFINED {
                    s.family = Some(queues.universal);
                }
                s
            }
            Origin::Transient => TrackedState::default(),
        })
        .collect();
    // Last accesses of each alias slot's previous occupant (stages, accesses).
    let mut slot_last: HashMap<usize, (S, A)> = HashMap::new();
    let mut started = vec![false; resources.len()];
    // Last node (position) that touched each resource, for ownership releases.
    let mut last_node: Vec<Option<usize>> = vec![None; resources.len()];
    if nodes.first().map(|n| n.name.as_str()) == Some(PROLOGUE) {
        for (r, st) in state.iter().enumerate() {
            if st.family.is_some() {
                last_node[r] = Some(0);
            }
        }
    }

    for p in 0..nodes.len() {
        let family = nodes[p].family;
        let uses = nodes[p].uses.clone();
        for (res, usage) in uses {
            let r = res as usize;
            let is_image = resources[r].is_image();
            let st = &mut state[r];
            let mut barrier: Option<(S, A, vk::ImageLayout, u32)> = None; // src stage, access, old layout, src family

            // First use of an aliased transient: wait for the slot's previous occupant.
            if !started[r] {
                started[r] = true;
                if let Some(slot) = alias[r] {
                    if let Some(&(s, a)) = slot_last.get(&slot) {
                        nodes[p]
                            .barriers
                            .memory
                            .push((s, a, usage.stage, usage.access));
                    }
                }
            }

            let owner = st.family;
            let ownership = matches!(owner, Some(f) if f != family);
            if ownership {
                // Release on the old family after the last node that touched it (the prologue
                // node for resources owned since an earlier frame); acquire here.
                let src_family = owner.unwrap_or(family);
                let (src_stage, src_access) = pending_src(st);
                let layout = if is_image {
                    usage.layout
                } else {
                    vk::ImageLayout::UNDEFINED
                };
                let q = last_node[r].expect("a prologue node exists for resources owned elsewhere");
                push_barrier(
                    &mut nodes[q].releases,
                    res,
                    is_image,
                    src_stage,
                    src_access,
                    S::NONE,
                    A::NONE,
                    st.layout,
                    layout,
                    src_family,
                    family,
                );
                barrier = Some((S::NONE, A::NONE, st.layout, src_family));
            } else {
                let layout_change = is_image && st.layout != usage.layout;
                let need = if usage.writes {
                    st.write.is_some() || !st.read_stages.is_empty() || layout_change
                } else {
                    layout_change
                        || (st.write.is_some()
                            && !(st.visible_stages.contains(usage.stage)
                                && st.visible_access.contains(usage.access)))
                };
                if need {
                    let (s, a) = pending_src(st);
                    // Discarding writes and first uses start from UNDEFINED.
                    barrier = Some((s, a, st.layout, family));
                }
            }

            if let Some((src_stage, src_access, mut old_layout, src_family)) = barrier {
                if is_image && (st.layout == vk::ImageLayout::UNDEFINED || st.family.is_none()) {
                    old_layout = vk::ImageLayout::UNDEFINED;
                }
                let new_layout = if is_image {
                    usage.layout
                } else {
                    vk::ImageLayout::UNDEFINED
                };
                let src_stage = if src_stage.is_empty() && src_family == family {
                    S::NONE
                } else {
                    src_stage
                };
                push_barrier(
                    &mut nodes[p].barriers,
                    res,
                    is_image,
                    src_stage,
                    src_access,
                    usage.stage,
                    usage.access,
                    old_layout,
                    new_layout,
                    src_family,
                    family,
                );
                if usage.writes {
                    // The node's own writes are visible to nobody yet.
                    st.write = Some((usage.stage, writes_of(usage.access)));
                    st.read_stages = S::NONE;
                    st.visible_stages = S::NONE;
                    st.visible_access = A::NONE;
                } else if is_image && old_layout != new_layout {
                    // A layout transition is a write that completes before this read's scope.
                    st.write = Some((usage.stage, A::NONE));
                    st.read_stages = usage.stage;
                    st.visible_stages = usage.stage;
                    st.visible_access = usage.access;
                } else {
                    // The barrier made the write available; later barriers only need to
                    // order execution after it and make it visible to their own scope.
                    st.write = st.write.map(|(ws, _)| (ws, A::NONE));
                    st.visible_stages |= usage.stage;
                    st.visible_access |= usage.access;
                    st.read_stages |= usage.stage;
                }
            } else if usage.writes {
                st.write = Some((usage.stage, writes_of(usage.access)));
                st.read_stages = S::NONE;
                st.visible_stages = S::NONE;
                st.visible_access = A::NONE;
            } else {
                st.read_stages |= usage.stage;
            }
            if usage.writes {
                // A write that is also a read (storage read-write) keeps read stages clear:
                // later writers order against the write itself.
                st.read_stages = S::NONE;
            }
            st.layout = if is_image {
                usage.layout
            } else {
                vk::ImageLayout::UNDEFINED
            };
            st.family = Some(family);
            last_node[r] = Some(p);
            if let Some(slot) = alias[r] {
                let e = slot_last.entry(slot).or_insert((S::NONE, A::NONE));
                e.0 |= usage.stage;
                e.1 |= writes_of(usage.access);
            }
        }
    }

    // Imported resources end the frame owned by the universal family: release after their
    // last node, acquire in the epilogue node.
    let epilogue = nodes
        .len()
        .checked_sub(1)
        .filter(|&e| nodes[e].name == EPILOGUE);
    let mut finals = Vec::new();
    for (r, res) in resources.iter().enumerate() {
        if let Origin::Imported { .. } = res.origin {
            let mut st = state[r];
            if let (Some(f), Some(q), Some(e)) = (st.family, last_node[r], epilogue) {
                if f != queues.universal {
                    let (s, a) = pending_src(&st);
                    let img = res.is_image();
                    let (l, u) = (st.layout, queues.universal);
                    push_barrier(
                        &mut nodes[q].releases,
                        r as u32,
                        img,
                        s,
                        a,
                        S::NONE,
                        A::NONE,
                        l,
                        l,
                        f,
                        u,
                    );
                    let (ds, da) = (S::ALL_COMMANDS, A::MEMORY_READ | A::MEMORY_WRITE);
                    push_barrier(
                        &mut nodes[e].barriers,
                        r as u32,
                        img,
                        S::NONE,
                        A::NONE,
                        ds,
                        da,
                        l,
                        l,
                        f,
                        u,
                    );
                    st.family = Some(u);
                    st.write = Some((S::ALL_COMMANDS, A::NONE));
                    st.read_stages = S::NONE;
                    st.visible_stages = S::NONE;
                    st.visible_access = A::NONE;
                }
            }
            finals.push((r as u32, st));
        }
    }
    finals
}

/// What a new access must wait for: the last write (with its accesses) or, for a write after
/// reads, the readers' stages (execution only).
fn pending_src(st: &TrackedState) -> (vk::PipelineStageFlags2, vk::AccessFlags2) {
    let (mut s, mut a) = (vk::PipelineStageFlags2::NONE, vk::AccessFlags2::NONE);
    if let Some((ws, wa)) = st.write {
        s |= ws;
        a |= wa;
    }
    s |= st.read_stages;
    (s, a)
}

/// The write bits of an access mask (what must be made available).
fn writes_of(a: vk::AccessFlags2) -> vk::AccessFlags2 {
    use vk::AccessFlags2 as A;
    a & (A::SHADER_STORAGE_WRITE
        | A::COLOR_ATTACHMENT_WRITE
        | A::DEPTH_STENCIL_ATTACHMENT_WRITE
        | A::TRANSFER_WRITE
        | A::HOST_WRITE
        | A::MEMORY_WRITE)
}

#[allow(clippy::too_many_arguments)]
fn push_barrier(
    batch: &mut BarrierBatch,
    res: u32,
    is_image: bool,
    src_stage: vk::PipelineStageFlags2,
    src_access: vk::AccessFlags2,
    dst_stage: vk::PipelineStageFlags2,
    dst_access: vk::AccessFlags2,
    old_layout: vk::ImageLayout,
    new_layout: vk::ImageLayout,
    src_family: u32,
    dst_family: u32,
) {
    if is_image {
        batch.images.push(ImageBarrier {
            res,
            src_stage,
            src_access,
            dst_stage,
            dst_access,
            old_layout,
            new_layout,
            src_family,
            dst_family,
        });
    } else {
        batch.buffers.push(BufferBarrier {
            res,
            src_stage,
            src_access,
            dst_stage,
            dst_access,
            src_family,
            dst_family,
        });
    }
}
