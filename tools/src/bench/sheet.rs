//! The contact sheet: every view's settled frame as a thumbnail about 320 px wide, four to a
//! row (the four pitches of one altitude), each under its name in the HUD's 5×7 font.

use crate::view::font;

const THUMB_W: u32 = 320;
const COLUMNS: u32 = 4;
const LABEL_H: u32 = 11;
const GAP: u32 = 4;

/// RGBA8 image of `w`×`h` from labelled `(name, rgba)` frames of `fw`×`fh`.
pub fn contact_sheet(frames: &[(String, Vec<u8>)], fw: u32, fh: u32) -> (u32, u32, Vec<u8>) {
    let th = (THUMB_W as u64 * fh as u64 / fw.max(1) as u64).max(1) as u32;
    let cols = COLUMNS.min(frames.len().max(1) as u32);
    let rows = (frames.len() as u32).div_ceil(cols).max(1);
    let (cw, ch) = (THUMB_W + GAP, th + LABEL_H + GAP);
    let (w, h) = (cols * cw + GAP, rows * ch + GAP);
    let mut img = vec![0u8; (w * h * 4) as usize];
    for px in img.chunks_exact_mut(4) {
        px.copy_from_slice(&[24, 24, 28, 255]);
    }
    let glyphs = font::packed();
    for (k, (name, rgba)) in frames.iter().enumerate() {
        let (x0, y0) = (GAP + (k as u32 % cols) * cw, GAP + (k as u32 / cols) * ch);
        // Label: 5×7 glyphs, 6 px apart, clipped to the thumbnail's width.
        for (ci, c) in name.chars().enumerate() {
            let g = font::index(c) as usize;
            let bits = glyphs[2 * g] as u64 | (glyphs[2 * g + 1] as u64) << 32;
            for r in 0..7 {
                for col in 0..font::GLYPH_W {
                    let x = x0 + ci as u32 * 6 + col;
                    if bits >> (r * font::GLYPH_W + col) & 1 == 1 && x < x0 + THUMB_W {
                        let i = (((y0 + 2 + r) * w + x) * 4) as usize;
                        img[i..i + 4].copy_from_slice(&[230, 230, 230, 255]);
                    }
                }
            }
        }
        if rgba.len() != (fw * fh * 4) as usize {
            continue;
        }
        // Box filter (or nearest when enlarging) from the frame to the thumbnail.
        for ty in 0..th {
            for tx in 0..THUMB_W {
                let (sx0, sx1) = (
                    tx * fw / THUMB_W,
                    ((tx + 1) * fw / THUMB_W).max(tx * fw / THUMB_W + 1),
                );
                let (sy0, sy1) = (ty * fh / th, ((ty + 1) * fh / th).max(ty * fh / th + 1));
                let mut acc = [0u32; 4];
                let mut n = 0;
                for sy in sy0..sy1.min(fh) {
                    for sx in sx0..sx1.min(fw) {
                        let i = ((sy * fw + sx) * 4) as usize;
                        for c in 0..4 {
                            acc[c] += rgba[i + c] as u32;
                        }
                        n += 1;
                    }
                }
                let i = (((y0 + LABEL_H + ty) * w + x0 + tx) * 4) as usize;
                for c in 0..3 {
                    img[i + c] = (acc[c] / n.max(1)) as u8;
                }
                img[i + 3] = 255;
            }
        }
    }
    (w, h, img)
}

#[cfg(test)]
mod tests {
    #[test]
    fn sheet_places_thumbnails_in_rows_of_four() {
        let frame = vec![200u8; 96 * 64 * 4];
        let frames: Vec<(String, Vec<u8>)> = (0..5)
            .map(|i| (format!("view-{i}"), frame.clone()))
            .collect();
        let (w, h, img) = super::contact_sheet(&frames, 96, 64);
        assert_eq!((w, h), (4 * 324 + 4, 2 * (213 + 11 + 4) + 4));
        assert_eq!(img.len(), (w * h * 4) as usize);
        // A thumbnail pixel of the fifth frame (second row, first column) is the frame's grey.
        let (x, y) = (4 + 10, 4 + 228 + 11 + 10);
        assert_eq!(img[((y * w + x) * 4) as usize], 200);
    }
}
