//! A renderer's numbers after a frame ([`super::SceneRenderer::stats`]): typed, so
//! `render --stats` writes them as JSON with the same names and types for every scene and the
//! HUD formats them for people.

use serde::Serialize;
use std::collections::BTreeMap;

/// What a renderer reports. A renderer without a mesh or tiles leaves them `None`; their keys
/// are then absent from the JSON (never written with another type).
#[derive(Clone, Debug, Default, Serialize)]
pub struct SceneStats {
    /// The CBT's counters, written at the top level (`leaves`, `drawn`, …) as the cbt scene's
    /// own writer does.
    #[serde(flatten)]
    pub mesh: Option<MeshStats>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tiles: Option<TileStats>,
    /// Numbers only this renderer has (the test scene's colour), written at the top level.
    #[serde(flatten)]
    pub extra: BTreeMap<&'static str, f64>,
    /// Remarks for the HUD only: not numbers, not written.
    #[serde(skip)]
    pub notes: Vec<&'static str>,
    /// Faults to show until they clear (the tile store's, failed tiles), HUD only.
    #[serde(skip)]
    pub alerts: Vec<String>,
}

pub use engine::cbt::MeshStats;

/// Tile residency after the frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct TileStats {
    /// Slots holding a tile.
    pub resident: usize,
    /// Slots assigned, their tile still loading.
    pub pending: usize,
    /// Tiles the view wants.
    pub wanted: usize,
    /// Resident tiles still drawn from their provisional stand-in.
    pub provisional: usize,
    /// Same-slot replacements cross-fading.
    pub crossfading: usize,
    /// Tiles whose production failed, waiting for a retry.
    pub failed: usize,
    /// The frame blocked on tile production.
    pub waited: bool,
}

impl From<&engine::stream::ResidencyReport> for TileStats {
    fn from(r: &engine::stream::ResidencyReport) -> TileStats {
        TileStats {
            resident: r.resident,
            pending: r.pending,
            wanted: r.wanted,
            provisional: r.provisional,
            crossfading: r.crossfading,
            failed: r.failed,
            waited: r.waited,
        }
    }
}

impl SceneStats {
    /// HUD lines, one per group.
    pub fn lines(&self) -> Vec<String> {
        let mut v = Vec::new();
        if let Some(m) = &self.mesh {
            v.push(format!(
                "leaves {} ({} drawn, hw {})",
                m.leaves, m.drawn, m.high_water
            ));
            v.push(format!(
                "cbt {} it{}{}",
                m.iterations,
                if m.quiet { ", quiet" } else { "" },
                if m.saturated > 0 { ", SATURATED" } else { "" }
            ));
            // The gain only falls; "attenuating" while the frame read had L15+ split wishes.
            v.push(format!(
                "fine-detail gain {:.2}{}",
                m.fine_detail_gain,
                if m.fine_split_wishes > 0 {
                    format!(" (attenuating: {} L15+ splits)", m.fine_split_wishes)
                } else {
                    String::new()
                }
            ));
        }
        if let Some(t) = &self.tiles {
            v.push(format!(
                "tiles {} resident, {} pending, {} wanted",
                t.resident, t.pending, t.wanted
            ));
            if t.provisional + t.crossfading + t.failed > 0 || t.waited {
                v.push(format!(
                    "  {} stand-ins, {} cross-fading{}{}",
                    t.provisional,
                    t.crossfading,
                    if t.failed > 0 {
                        format!(", {} FAILED", t.failed)
                    } else {
                        String::new()
                    },
                    if t.waited { ", WAITED" } else { "" }
                ));
            }
        }
        v.extend(self.extra.iter().map(|(k, x)| {
            if x.fract() == 0.0 {
                format!("{k} {x}")
            } else {
                format!("{k} {x:.2}")
            }
        }));
        v.extend(self.notes.iter().map(|n| n.to_string()));
        v.extend(self.alerts.iter().cloned());
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absent_groups_write_no_keys_and_present_ones_write_numbers() {
        let none = serde_json::to_value(SceneStats::default()).unwrap();
        assert_eq!(none, serde_json::json!({}));
        let s = SceneStats {
            mesh: Some(MeshStats {
                leaves: 10,
                drawn: 7,
                high_water: 12,
                iterations: 1,
                quiet: true,
                saturated: 0,
                fine_split_wishes: 3,
                occluded: 2,
                early: 4,
                hidden_kept: 1,
                fine_detail_gain: 0.5,
            }),
            tiles: Some(TileStats {
                resident: 6,
                pending: 0,
                wanted: 6,
                ..Default::default()
            }),
            extra: [("blue", 0.5)].into(),
            notes: vec!["not written"],
            alerts: vec![],
        };
        let v = serde_json::to_value(&s).unwrap();
        assert_eq!(
            v,
            serde_json::json!({
                "leaves": 10, "drawn": 7, "high_water": 12, "iterations": 1, "quiet": true,
                "saturated": 0, "fine_split_wishes": 3, "occluded": 2, "early": 4, "hidden_kept": 1, "fine_detail_gain": 0.5, "tiles": {"resident": 6, "pending": 0, "wanted": 6, "provisional": 0,
                "crossfading": 0, "failed": 0, "waited": false}, "blue": 0.5
            })
        );
        assert_eq!(s.lines().len(), 6);
        assert_eq!(
            s.lines()[2],
            "fine-detail gain 0.50 (attenuating: 3 L15+ splits)"
        );
    }
}
