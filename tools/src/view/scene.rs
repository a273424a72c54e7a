//! Renderers the viewer can show, by name.

use super::stats::SceneStats;
use super::{FrameInput, SceneRenderer};
use anyhow::{bail, Result};
use engine::source::TileSource;
use framegraph::shader::Shader;
use framegraph::{Context, Graph, ImageRef};
use std::sync::Arc;

/// Scene names `--scene` accepts, default first.
pub const SCENES: &[&str] = &["earth", "analytic", "test"];

/// How a scene's frames are used.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Purpose {
    /// Frames that are read back once settled (`render`, `capture`, the bench's views): each
    /// waits for the tiles it wants, so it draws exactly them.
    #[default]
    Render,
    /// Frames that are flown through (the viewer, the bench's flights): never wait for a
    /// tile; what is resident is drawn, coarse stand-ins first, finer tiles as they arrive.
    Fly,
    /// Frames that are only compiled and printed (`planetfall graph`): load no tiles, since the
    /// graph's shape does not depend on which are resident.
    Inspect,
}

/// Fails on a name `make` does not know (before a window opens).
pub fn check(name: &str) -> Result<()> {
    if !SCENES.contains(&name) {
        bail!(
            "--scene {name:?}: unknown scene; known: {}",
            SCENES.join(", ")
        );
    }
    Ok(())
}

/// The renderer called `name`, its persistent GPU objects made on `ctx`.
pub fn make(ctx: &Context, name: &str, purpose: Purpose) -> Result<Box<dyn SceneRenderer>> {
    make_over(ctx, name, purpose, None)
}

/// [`make`] over a tile source opened elsewhere (the viewer shares one with its ground
/// probe); `None` opens the scene's own.
pub fn make_over(
    ctx: &Context,
    name: &str,
    purpose: Purpose,
    source: Option<Arc<dyn TileSource>>,
) -> Result<Box<dyn SceneRenderer>> {
    check(name)?;
    Ok(match name {
        "test" => Box::new(TestScene::default()),
        planet => Box::new(super::planet::PlanetScene::new(
            ctx, planet, purpose, source,
        )?),
    })
}

/// The compute shaders the frames of scene `name` bind, known before its renderer exists
/// (`engine::frame_shaders`); empty for the test scene, which binds none.
pub fn compute_shaders(ctx: &Context, name: &str, purpose: Purpose) -> Vec<&'static Shader> {
    match name {
        "test" => Vec::new(),
        _ => engine::frame_shaders::compute(&super::planet::options(ctx, purpose), &ctx.info),
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

    fn prepare(&mut self, _ctx: &Context, input: &FrameInput<'_>) -> Result<()> {
        let f = input.cam.forward;
        // Heading-like angle of the view direction around the planet axis, 0–1.
        self.blue = ((f.y.atan2(f.x) / std::f64::consts::TAU).rem_euclid(1.0)) as f32;
        self.debug = input.debug;
        self.frames += 1;
        Ok(())
    }

    fn declare<'a>(
        &'a self,
        g: &mut Graph<'a>,
        _input: &FrameInput<'_>,
        target: &mut ImageRef,
    ) -> Result<()> {
        crate::test_scene::declare(g, target, self.blue);
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
