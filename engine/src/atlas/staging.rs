//! Host-visible staging buffers, one per frame slot, grown on demand. A slot's buffer is only
//! rewritten after `Executor::begin_frame` returned that slot, so the GPU is done with it.

use framegraph::{BufferDesc, Context, GpuBuffer};

pub struct StagingRing {
    name: String,
    bufs: Vec<Option<GpuBuffer>>,
}

impl StagingRing {
    pub fn new(name: &str, frames_in_flight: usize) -> StagingRing {
        StagingRing {
            name: name.into(),
            bufs: (0..frames_in_flight).map(|_| None).collect(),
        }
    }

    /// The slot's buffer, at least `size` bytes (grown to a power of two ≥ 1 MiB).
    pub fn get(
        &mut self,
        ctx: &Context,
        slot: usize,
        size: u64,
    ) -> framegraph::Result<&mut GpuBuffer> {
        let small = self.bufs[slot]
            .as_ref()
            .map(|b| b.desc.size < size)
            .unwrap_or(true);
        if small {
            if let Some(old) = self.bufs[slot].take() {
                old.destroy(ctx);
            }
            let cap = size.next_power_of_two().max(1 << 20);
            self.bufs[slot] = Some(GpuBuffer::new(
                ctx,
                &format!("{}{slot}", self.name),
                BufferDesc::upload(cap),
            )?);
        }
        Ok(self.bufs[slot].as_mut().expect("ensured above"))
    }

    /// The slot's buffer as [`StagingRing::get`] last left it.
    pub fn current(&self, slot: usize) -> Option<&GpuBuffer> {
        self.bufs.get(slot).and_then(|b| b.as_ref())
    }

    pub fn destroy(self, ctx: &Context) {
        for b in self.bufs.into_iter().flatten() {
            b.destroy(ctx);
        }
    }
}
