//! What the HUD says: the status block and the help block.

use super::flight::Flight;
use super::hud::{ACCENT, DIM, WARN, WHITE};
use super::DebugView;
use engine::earth::gpu_budget::{BudgetLimit, BudgetState};
use engine::stream::envelope::{Envelope, FeedClass, Supply};

type Line = (String, [u8; 4]);

/// Everything the status block shows.
pub struct Status<'s> {
    pub scene: &'s str,
    pub view: &'s str,
    pub flight: &'s Flight,
    pub debug: DebugView,
    pub frame_ms: f64,
    pub cpu_ms: f64,
    pub gpu_ms: f64,
    pub stats: super::stats::SceneStats,
    pub ground_problem: Option<String>,
    pub recording: bool,
    pub playing: bool,
    /// The feed envelope (None: the scene has no tile feed).
    pub feed: Option<Feed>,
}

/// The feed envelope as the HUD shows it (TERRAIN.md §5).
#[derive(Clone, Copy, Debug)]
pub struct Feed {
    pub envelope: Envelope,
    /// The camera's speed over the ground, m/s.
    pub lateral_mps: f64,
    pub bounded: bool,
    /// The GPU tile budget (None: the CPU workers make the tiles).
    pub budget: Option<BudgetState>,
}

impl Feed {
    /// Supply per class (tiles/s), demand per class (tiles per km of lateral travel), the
    /// sustainable lateral speed and its binding class, and the OUTRUNNING TERRAIN lamp. Classes
    /// without a producer say so once and show no demand.
    pub fn lines(&self) -> Vec<Line> {
        let e = &self.envelope;
        let mut supply = String::from("feed");
        let mut demand = String::from("demand");
        for c in FeedClass::ALL {
            let s = match e.supply[c] {
                Supply::Absent => "absent".to_string(),
                Supply::Unknown => "? tiles/s".to_string(),
                Supply::TilesPerS(r) => format!("{r:.1} tiles/s"),
            };
            supply += &format!("  {} {s}", c.name());
            if e.supply[c] != Supply::Absent {
                demand += &format!("  {} {:.3} tiles/km", c.name(), e.demand_per_m[c] * 1e3);
            }
        }
        if let Some(b) = &self.budget {
            supply += &format!(
                "  GPU budget {:.1} ms (base {:.1}, cap {:.1}{})",
                b.ms,
                b.base_ms,
                b.cap_ms,
                match b.limit {
                    BudgetLimit::Tiles => "; tile cap binds",
                    BudgetLimit::Budget => "",
                }
            );
        }
        let sustainable = match e.sustainable {
            Some(s) => format!("{:.0} m/s ({} binds)", s.speed, s.binding.name()),
            None => "unknown".to_string(),
        };
        let mut v = vec![
            (supply, DIM),
            (demand, DIM),
            (
                format!(
                    "sustainable {sustainable}  lateral {:.0} m/s  bounded {} [F]",
                    self.lateral_mps,
                    if self.bounded { "on" } else { "off" }
                ),
                WHITE,
            ),
        ];
        if e.outrunning(self.lateral_mps) {
            v.push(("OUTRUNNING TERRAIN".to_string(), WARN));
        }
        v
    }
}

/// Metres, with km above 10 km.
pub fn metres(m: f64) -> String {
    if m.abs() >= 10_000.0 {
        format!("{:.1} km", m / 1000.0)
    } else {
        format!("{m:.1} m")
    }
}

impl Status<'_> {
    pub fn lines(&self) -> Vec<Line> {
        let f = self.flight;
        let p = f.pose;
        let mut v: Vec<Line> = vec![
            (
                format!(
                    "PLANETFALL  scene {}  view {}   [H] help",
                    self.scene, self.view
                ),
                ACCENT,
            ),
            (
                format!("agl {}   alt {} (datum)", metres(f.agl()), metres(p.alt)),
                WHITE,
            ),
            (
                format!("speed {}/s   x{:.2}", metres(f.speed), f.speed_factor),
                WHITE,
            ),
            (
                format!(
                    "lat {:.4} lon {:.4} hdg {:.1} pitch {:.1} fov {:.0}",
                    p.lat, p.lon, p.heading, p.pitch, p.fov
                ),
                DIM,
            ),
            (
                format!(
                    "frame {:.1} ms   cpu {:.1} ms   gpu {:.2} ms",
                    self.frame_ms, self.cpu_ms, self.gpu_ms
                ),
                WHITE,
            ),
            (format!("debug {}", self.debug.name()), DIM),
        ];
        v.extend(self.stats.lines().into_iter().map(|l| (l, DIM)));
        if let Some(f) = &self.feed {
            v.extend(f.lines());
        }
        if let Some(why) = &self.ground_problem {
            // The full reason went to the log; the HUD keeps it short.
            let short = if why.contains("ETOPO") {
                "no ETOPO: flying over the datum"
            } else {
                "no ground: datum"
            };
            v.push((short.to_string(), WARN));
        }
        if self.recording {
            v.push(("REC camera path (R stops)".into(), WARN));
        }
        if self.playing {
            v.push(("PLAY camera path".into(), ACCENT));
        }
        v
    }
}

pub fn help() -> Vec<Line> {
    [
        "KEYS",
        "W A S D     fly forward/left/back/right",
        "Q E         down / up",
        "mouse drag  look (hold a button)",
        "arrows      turn",
        "wheel       speed x1.25 per notch",
        "B           next bookmark",
        "1-8         shaded levels slots wire normals latlon water cbt",
        "P           print the render line",
        "R           record camera path (again: save)",
        "L           play the last path",
        "F2          screenshot to captures/out",
        "F12         RenderDoc capture (--renderdoc)",
        "F           bounded flight (75% of sustainable)",
        "X           reset the fine-detail gain to 1",
        ", .         sun azimuth -/+ 5 deg",
        "[ ]         sun elevation -/+ 1 deg",
        "G           hide/show HUD",
        "H / F1      this help     Esc  quit",
    ]
    .iter()
    .map(|s| (s.to_string(), WHITE))
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::planet::Body;
    use engine::stream::envelope::PerClass;

    fn feed(supply: [Supply; 3], lateral: f64) -> Feed {
        // 100 m over the ground, 60° over 720 px.
        let pa = 60f64.to_radians() / 720.0;
        Feed {
            envelope: Envelope::new(PerClass(supply), Body::EARTH, 100.0, pa),
            lateral_mps: lateral,
            bounded: false,
            budget: None,
        }
    }

    fn text(lines: &[Line]) -> String {
        lines
            .iter()
            .map(|(l, _)| l.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn the_hud_shows_the_envelope_and_lights_the_lamp_when_outrunning() {
        let known = [
            Supply::TilesPerS(40.0),
            Supply::TilesPerS(8.0),
            Supply::Absent,
        ];
        let f = feed(known, 10.0);
        let s = f.envelope.sustainable.expect("known supply");
        assert_eq!(s.binding, FeedClass::Stored);
        let t = text(&f.lines());
        assert!(
            t.contains("feed  derived 40.0 tiles/s  stored 8.0 tiles/s  amplified absent"),
            "{t}"
        );
        let d = f.envelope.demand_per_m[FeedClass::Stored] * 1e3;
        assert!(
            t.contains(&format!("stored {d:.3} tiles/km")) && !t.contains("amplified 0"),
            "{t}"
        );
        assert!(
            t.contains(&format!("sustainable {:.0} m/s (stored binds)", s.speed)),
            "{t}"
        );
        assert!(!t.contains("OUTRUNNING"), "{t}");
        // Faster than sustainable over the ground: the lamp, in the warning colour.
        let fast = feed(known, s.speed * 1.1).lines();
        let lamp = fast.last().unwrap();
        assert_eq!((lamp.0.as_str(), lamp.1), ("OUTRUNNING TERRAIN", WARN));
        // Unknown supply: no figure, no lamp however fast.
        let t = text(&feed([Supply::Unknown, Supply::Absent, Supply::Absent], 1e6).lines());
        assert!(
            t.contains("derived ? tiles/s") && t.contains("sustainable unknown"),
            "{t}"
        );
        assert!(!t.contains("OUTRUNNING"), "{t}");
        assert!(!t.contains("GPU budget"), "no GPU feed: {t}");
    }

    /// With tiles made on the GPU, the feed line names the budget, its base and cap, and says
    /// when the tile cap binds.
    #[test]
    fn the_feed_line_shows_the_gpu_tile_budget() {
        let mut f = feed(
            [Supply::TilesPerS(40.0), Supply::Absent, Supply::Absent],
            10.0,
        );
        f.budget = Some(BudgetState {
            ms: 6.31,
            base_ms: 2.0,
            cap_ms: 8.33,
            needed: 12,
            limit: BudgetLimit::Budget,
        });
        let first = &f.lines()[0].0;
        assert!(
            first.starts_with("feed  derived 40.0 tiles/s")
                && first.ends_with("GPU budget 6.3 ms (base 2.0, cap 8.3)"),
            "{first}"
        );
        f.budget = f.budget.map(|b| BudgetState {
            limit: BudgetLimit::Tiles,
            ..b
        });
        assert!(f.lines()[0].0.ends_with("cap 8.3; tile cap binds)"));
    }
}
