//! What the HUD says: the status block and the help block.

use super::flight::Flight;
use super::hud::{ACCENT, DIM, WARN, WHITE};
use super::DebugView;

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
        "G           hide/show HUD",
        "H / F1      this help     Esc  quit",
    ]
    .iter()
    .map(|s| (s.to_string(), WHITE))
    .collect()
}
