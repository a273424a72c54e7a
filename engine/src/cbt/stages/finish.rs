//! `cbt.finish`: evaluate entries whose geometry changed since the last EVAL, mark drawn
//! leaves, then (`cbt.finish.compact`, after the draw sum tree is built) write each drawn leaf
//! to its rank in the draw list, so the list is in ascending pool order whatever the thread
//! order.
//!
//! finish: reads own entry; writes own positions/measures/flags when dirty. Atomics: own draw
//! bit; control.leaves, culled, offscreen. compact: reads own draw bit, draw tree; writes
//! draw_list[rank].

use super::super::bisector::{Bisector, FLAG_CULLED, FLAG_DIRTY, FLAG_DRAW, FLAG_OFFSCREEN};
use super::super::criterion::View;
use super::super::surface::Surface;
use super::eval::{eval_kernel, EvalOut};

pub struct FinishOut {
    pub eval: Option<EvalOut>,
    pub draw: bool,
    pub culled: bool,
    pub offscreen: bool,
}

/// Only for live entries.
pub fn finish_kernel<S: Surface + ?Sized>(
    b: &Bisector,
    surface: &S,
    view: &View,
    frame: u32,
) -> FinishOut {
    let eval = (b.flags & FLAG_DIRTY != 0).then(|| eval_kernel(b, surface, view, frame));
    let flags = eval.map_or(b.flags, |e| e.flags);
    FinishOut {
        eval,
        draw: flags & FLAG_DRAW != 0,
        culled: flags & FLAG_CULLED != 0,
        offscreen: flags & FLAG_OFFSCREEN != 0,
    }
}
