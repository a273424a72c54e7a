//! What the benchmark draws: the Earth (ETOPO5 through the DEM oracle, the viewer's source) or
//! the analytic test planet, with the ground query that places views given above the ground.

use crate::bookmarks::Bookmark;
use anyhow::{bail, Result};
use engine::camera::ViewCamera;
use engine::cbt::surface::AnalyticSurface;
use engine::planet::latlon_to_dir;
use engine::source::{AnalyticSource, EarthSource, TileSource};
use std::sync::Arc;

pub enum Scene {
    Earth(Arc<EarthSource>),
    Analytic(Arc<AnalyticSource>),
}

impl Scene {
    pub fn open(name: &str) -> Result<Scene> {
        match name {
            "earth" => Ok(Scene::Earth(crate::view::planet::earth()?)),
            "analytic" => Ok(Scene::Analytic(Arc::new(AnalyticSource::from_surface(
                AnalyticSurface::earth(),
            )))),
            other => bail!("--scene {other:?}: the benchmark draws `earth` or `analytic`"),
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            Scene::Earth(_) => "earth",
            Scene::Analytic(_) => "analytic",
        }
    }

    pub fn source(&self) -> Arc<dyn TileSource> {
        match self {
            Scene::Earth(s) => s.clone(),
            Scene::Analytic(s) => s.clone(),
        }
    }

    /// Ground height (m above the datum) at a latitude/longitude, as every command places
    /// views above the ground (`engine::ground::ground_height`).
    pub fn ground(&self, lat: f64, lon: f64) -> f64 {
        engine::ground::ground_height(self.source().as_ref(), latlon_to_dir(lat, lon))
    }

    /// A view's camera at `width`×`height` px ([`crate::camera::view_camera`]).
    pub fn camera(&self, b: &Bookmark, width: u32, height: u32) -> ViewCamera {
        crate::camera::view_camera(b, Some(self.source().as_ref()), width, height)
    }
}
