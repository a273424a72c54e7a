//! The HUD: text lines laid out into glyph records (see `shaders/hud/overlay.vert`) and the
//! `hud.upload` + `hud.overlay` nodes that draw them over the viewer's target.

use super::font;
use framegraph::{BufferDesc, Graph, ImageRef, LoadOp, RasterState};

/// `vkCmdUpdateBuffer` takes at most 65,536 bytes: header + font + this many records.
pub const MAX_RECORDS: usize = (65536 - HEADER_BYTES) / 16;
const HEADER_BYTES: usize = 16 + 4 * 2 * font::COUNT;
const PANEL: u32 = 0xFF;

pub const WHITE: [u8; 4] = [235, 235, 235, 255];
pub const DIM: [u8; 4] = [170, 180, 190, 255];
pub const ACCENT: [u8; 4] = [255, 200, 90, 255];
pub const WARN: [u8; 4] = [255, 110, 90, 255];
const BACKDROP: [u8; 4] = [0, 0, 0, 150];

/// One frame's overlay, in text cells (6×9 font pixels each, times `scale`).
#[derive(Default)]
pub struct Overlay {
    records: Vec<[u32; 4]>,
    scale: u32,
}

impl Overlay {
    /// Font pixels → screen pixels: 1 below 400 px of height, 2 up to 1440, then 3.
    pub fn new(height: u32) -> Overlay {
        let scale = if height < 400 {
            1
        } else if height <= 1440 {
            2
        } else {
            3
        };
        Overlay {
            records: Vec::new(),
            scale,
        }
    }

    pub fn cell(&self) -> [u32; 2] {
        [6 * self.scale, 9 * self.scale]
    }

    /// A block of lines at cell (col, row) with a translucent backdrop behind it.
    pub fn block(&mut self, col: u32, row: u32, lines: &[(String, [u8; 4])]) {
        let cols = lines
            .iter()
            .map(|(s, _)| s.chars().count())
            .max()
            .unwrap_or(0) as u32;
        if cols == 0 {
            return;
        }
        let [cw, ch] = self.cell();
        // Backdrop: one panel record spanning the block plus a half-cell margin.
        let (x, y) = (
            (col * cw).saturating_sub(cw / 2),
            (row * ch).saturating_sub(ch / 2),
        );
        self.push([
            x,
            y,
            PANEL | (cols + 1).min(255) << 8 | (lines.len() as u32 + 1).min(255) << 16,
            pack(BACKDROP),
        ]);
        for (i, (text, color)) in lines.iter().enumerate() {
            self.text(col, row + i as u32, text, *color);
        }
    }

    pub fn text(&mut self, col: u32, row: u32, text: &str, color: [u8; 4]) {
        let [cw, ch] = self.cell();
        for (i, c) in text.chars().enumerate() {
            if c != ' ' {
                self.push([(col + i as u32) * cw, row * ch, font::index(c), pack(color)]);
            }
        }
    }

    fn push(&mut self, r: [u32; 4]) {
        if self.records.len() < MAX_RECORDS {
            self.records.push(r);
        }
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// Buffer contents: header, font table, records.
    pub fn bytes(&self, extent: [u32; 2]) -> Vec<u8> {
        let mut words: Vec<u32> = vec![extent[0], extent[1], self.scale, self.records.len() as u32];
        words.extend_from_slice(&font::packed());
        for r in &self.records {
            words.extend_from_slice(r);
        }
        bytemuck::cast_slice(&words).to_vec()
    }

    /// Declare `hud.upload` and `hud.overlay`, drawing over `target`.
    pub fn declare(&self, g: &mut Graph<'_>, target: &mut ImageRef, extent: [u32; 2]) {
        if self.records.is_empty() {
            return;
        }
        let bytes = self.bytes(extent);
        let mut buf = g.create_buffer("hud.records", BufferDesc::gpu(bytes.len() as u64));
        g.transfer("hud.upload").update(&mut buf, 0, &bytes);
        let state = RasterState {
            alpha_blend: true,
            ..RasterState::default()
        };
        g.raster(
            "hud.overlay",
            &shaders::HUD_OVERLAY_VERT,
            &shaders::HUD_OVERLAY_FRAG,
        )
        .read("hud", buf)
        .state(state)
        .color(target, LoadOp::Load)
        .draw(6 * self.records.len() as u32, 1);
    }
}

fn pack(c: [u8; 4]) -> u32 {
    u32::from_le_bytes(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_fits_the_update_limit_and_skips_spaces() {
        let mut o = Overlay::new(480);
        o.block(1, 1, &[("AB C".into(), WHITE)]);
        assert_eq!(o.len(), 1 + 3, "one backdrop + three glyphs");
        let b = o.bytes([640, 480]);
        assert_eq!(b.len(), HEADER_BYTES + 16 * 4);
        for _ in 0..20 {
            o.text(0, 0, &"X".repeat(1000), WHITE);
        }
        assert!(o.bytes([640, 480]).len() <= 65536);
    }
}
