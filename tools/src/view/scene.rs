//! Renderers the viewer can show, by name. The planet frame registers here when it lands.

use super::stats::SceneStats;
use super::{FrameInput, SceneRenderer};
use anyhow::{bail, Result};
use framegraph::{Context, Graph, ImageRef};

/// Scene names `--scene` accepts, default first.
pub const SCENES: &[&str] = &["earth", "analytic", "test"];

/// The renderer called `name`. `ctx` is `None` when the frame is only declared
/// (`planetfall graph`, and a name check before the window opens): create no GPU object then
/// (import persistent resources with null handles, or skip them).
pub fn make(ctx: Option<&Context>, name: &str) -> Result<Box<dyn SceneRenderer>> {
    match name {
        "test" => Ok(Box::new(TestScene::default())),
        "earth" => Ok(Box::new(super::planet::PlanetScene::lazy(ctx, "earth")?)),
        "analytic" => Ok(Box::new(super::planet::PlanetScene::lazy(ctx, "analytic")?)),
        other => bail!(
            "--scene {other:?}: unknown scene; known: {}",
            SCENES.join(", ")
        ),
    }
}

/// The foundation's test scene (`crate::test_scene`) behind the renderer interface. Ignores
/// debug views; the triangles' blue follows the camera heading so flight shows on screen.
#[derive(Default)]
pub struct TestScene {
    frames: u64,
    blue: f32,
    debug: super::DebugView,
}

impl SceneRenderer for TestScene {
    fn name(&self) -> &str {
        "test"
    }

    fn declare<'a>(
        &'a mut self,
        g: &mut Graph<'a>,
        input: &FrameInput<'_>,
        target: &mut ImageRef,
    ) -> Result<()> {
        let f = input.cam.forward;
        // Heading-like angle of the view direction around the planet axis, 0–1.
        self.blue = ((f.y.atan2(f.x) / std::f64::consts::TAU).rem_euclid(1.0)) as f32;
        self.debug = input.debug;
        crate::test_scene::declare(g, target, self.blue);
        self.frames += 1;
        Ok(())
    }

    fn stats(&self) -> SceneStats {
        SceneStats {
            extra: [
                ("blue", self.blue as f64),
                ("frames_declared", self.frames as f64),
            ]
            .into(),
            notes: if self.debug == super::DebugView::Shaded {
                Vec::new()
            } else {
                vec!["debug views are not drawn by the test scene"]
            },
            ..Default::default()
        }
    }
}
