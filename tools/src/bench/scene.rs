//! What the benchmark draws: the Earth (ETOPO5 through the DEM oracle, the viewer's source) or
//! the analytic test planet, with the ground query that places views given above the ground.

use crate::view::bookmarks::{Bookmark, Height};
use anyhow::{bail, Result};
use engine::cbt::surface::AnalyticSurface;
use engine::planet::latlon_to_dir;
use engine::source::{AnalyticSource, EarthSource, TileSource};
use std::sync::Arc;

pub enum Scene {
    Earth(Arc<EarthSource>),
    Analytic(Arc<AnalyticSource>, AnalyticSurface),
}

impl Scene {
    pub fn open(name: &str) -> Result<Scene> {
        match name {
            "earth" => Ok(Scene::Earth(crate::view::planet::earth()?)),
            "analytic" => {
                let s = AnalyticSurface::earth();
                Ok(Scene::Analytic(
                    Arc::new(AnalyticSource::from_surface(s.clone())),
                    s,
                ))
            }
            other => bail!("--scene {other:?}: the benchmark draws `earth` or `analytic`"),
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            Scene::Earth(_) => "earth",
            Scene::Analytic(..) => "analytic",
        }
    }

    pub fn source(&self) -> Arc<dyn TileSource> {
        match self {
            Scene::Earth(s) => s.clone(),
            Scene::Analytic(s, _) => s.clone(),
        }
    }

    /// Ground height (m above the datum) at a latitude/longitude: the finest level the source
    /// stores (Earth L9, where the renderer draws the ground under the camera), or the analytic
    /// function.
    pub fn ground(&self, lat: f64, lon: f64) -> f64 {
        match self {
            Scene::Earth(s) => {
                engine::ground::height_at_latlon(&s.oracle, lat, lon, s.finest_level()).height_m
            }
            Scene::Analytic(_, surf) => surf.height(latlon_to_dir(lat, lon)),
        }
    }

    /// A view's camera height above the datum, m.
    pub fn altitude(&self, b: &Bookmark) -> f64 {
        match b.height {
            Height::Datum(a) => a,
            Height::Ground(a) => self.ground(b.lat, b.lon) + a,
        }
    }
}
