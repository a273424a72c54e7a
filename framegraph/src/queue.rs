//! Queues as the graph sees them: [`QueueKind`] (which queue a node asks for) and
//! [`QueueSetup`] (the device's families, which `compile` maps kinds onto).
//!
//! Pure: the context builds a `QueueSetup` from its queues, and tests build one by hand.

/// Which queue a node runs on. Where the device has no such family, the node runs on the
/// universal queue — same graph, same code path, no ownership transfers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum QueueKind {
    Universal,
    AsyncTransfer,
}

/// The device's queue families as the graph needs them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueueSetup {
    pub universal: u32,
    /// A dedicated transfer family, where the device has one.
    pub transfer: Option<u32>,
}

impl QueueSetup {
    pub fn single(family: u32) -> Self {
        QueueSetup {
            universal: family,
            transfer: None,
        }
    }
    pub fn family(&self, q: QueueKind) -> u32 {
        match q {
            QueueKind::Universal => self.universal,
            QueueKind::AsyncTransfer => self.transfer.unwrap_or(self.universal),
        }
    }
    /// The queue a node actually runs on.
    pub fn effective(&self, q: QueueKind) -> QueueKind {
        if self.family(q) == self.universal {
            QueueKind::Universal
        } else {
            q
        }
    }
}
