//! The one camera path every command takes: a view (a bookmark, overridden field by field by
//! `--lat`, `--agl`, …) → a [`Pose`] (a height above ground stands on the scene source's
//! finest tiles, `engine::ground::ground_height`) → the view camera over the source's body.
//! `view`, `render`, `capture`, `graph` and `bench` all place their views here.

use crate::bookmarks::{self, Bookmark, Height};
use anyhow::{bail, Result};
use engine::camera::{Pose, ViewCamera};
use engine::planet::{latlon_to_dir, Body};
use engine::source::TileSource;
use glam::DVec3;
use std::path::PathBuf;

/// The view when no camera option is given: descending over the Himalaya from the south-west.
pub const DEFAULT_VIEW: Bookmark = Bookmark {
    name: String::new(),
    lat: 26.5,
    lon: 85.5,
    height: Height::Datum(180_000.0),
    heading: 30.0,
    pitch: -35.0,
    fov: 60.0,
    tags: Vec::new(),
};

#[derive(clap::Args, Clone, Debug, Default)]
pub struct CameraArgs {
    /// Start at a bookmark (orbit, everest, grand-canyon, alps, hawaii, gibraltar, …).
    #[arg(long)]
    pub bookmark: Option<String>,
    /// Bookmark file [env: PLANETFALL_BOOKMARKS; default captures/bookmarks.txt].
    #[arg(long)]
    pub bookmarks: Option<PathBuf>,
    /// Latitude, degrees north (geocentric).
    #[arg(long, allow_negative_numbers = true)]
    pub lat: Option<f64>,
    /// Longitude, degrees east.
    #[arg(long, allow_negative_numbers = true)]
    pub lon: Option<f64>,
    /// Height above the datum (sea level), metres.
    #[arg(long, allow_negative_numbers = true, conflicts_with = "agl")]
    pub alt: Option<f64>,
    /// Height above the ground, metres.
    #[arg(long)]
    pub agl: Option<f64>,
    /// Heading, degrees clockwise from north.
    #[arg(long, allow_negative_numbers = true)]
    pub heading: Option<f64>,
    /// Pitch, degrees (0 = horizon, −90 = straight down).
    #[arg(long, allow_negative_numbers = true)]
    pub pitch: Option<f64>,
    /// Vertical field of view, degrees.
    #[arg(long)]
    pub fov: Option<f64>,
    #[command(flatten)]
    pub sun: SunArgs,
}

/// Where the sun stands: seen from the point under the camera, or at a date.
#[derive(clap::Args, Clone, Copy, Debug, Default, PartialEq)]
pub struct SunArgs {
    /// The sun at this UTC time, YYYY-MM-DDTHH:MM[:SS][Z] (the subsolar point from the
    /// almanac's solar coordinates, `engine::sun`).
    #[arg(long, value_parser = engine::sun::parse_utc, conflicts_with_all = ["sun_az", "sun_el"])]
    pub time: Option<f64>,
    /// Sun azimuth, degrees clockwise from north, at the point under the camera
    /// [default: 135 when --sun-el is given; else the renderer's own sun].
    #[arg(long, allow_negative_numbers = true)]
    pub sun_az: Option<f64>,
    /// Sun elevation above that point's horizon, degrees (negative: below it)
    /// [default: 30 when --sun-az is given].
    #[arg(long, allow_negative_numbers = true)]
    pub sun_el: Option<f64>,
}

impl SunArgs {
    /// A sun at `az`, `el` degrees.
    pub fn at(az: f64, el: f64) -> SunArgs {
        SunArgs {
            time: None,
            sun_az: Some(az),
            sun_el: Some(el),
        }
    }

    pub fn check(&self) -> Result<()> {
        let el = self.sun_el.unwrap_or(0.0);
        if !self.sun_az.unwrap_or(0.0).is_finite() || !(-90.0..=90.0).contains(&el) {
            bail!("sun: want a finite --sun-az and --sun-el in [-90, 90] (got {self:?})");
        }
        Ok(())
    }

    /// (azimuth, elevation) in degrees seen from the point under `eye` (planet-centred, m),
    /// None when nothing is set.
    pub fn angles(&self, eye: DVec3) -> Option<(f64, f64)> {
        use engine::params::{SUN_AZIMUTH_DEG, SUN_ELEVATION_DEG};
        if let Some(t) = self.time {
            let d = engine::sun::sun_direction(t);
            let up = eye.normalize();
            let (east, north) = engine::planet::east_north(up);
            let el = d.dot(up).clamp(-1.0, 1.0).asin().to_degrees();
            let az = d
                .dot(east)
                .atan2(d.dot(north))
                .to_degrees()
                .rem_euclid(360.0);
            return Some((az, el));
        }
        (self.sun_az.is_some() || self.sun_el.is_some()).then(|| {
            (
                self.sun_az.unwrap_or(SUN_AZIMUTH_DEG),
                self.sun_el.unwrap_or(SUN_ELEVATION_DEG),
            )
        })
    }

    /// The sun's world direction for a camera at `eye` (planet-centred, m); None when nothing
    /// is set: the renderer's default sun.
    pub fn direction(&self, eye: DVec3) -> Option<DVec3> {
        if let Some(t) = self.time {
            return Some(engine::sun::sun_direction(t));
        }
        self.angles(eye)
            .map(|(az, el)| engine::renderer::local_sun(eye, az, el))
    }
}

impl CameraArgs {
    pub fn bookmark_file(&self) -> PathBuf {
        bookmarks::file(self.bookmarks.as_deref())
    }

    /// The requested view and a short name for it (bookmark name or coordinates).
    pub fn resolve(&self) -> Result<(String, Bookmark)> {
        let mut b = match &self.bookmark {
            Some(name) => {
                let file = self.bookmark_file();
                let all = bookmarks::load(&file)?;
                bookmarks::find(&all, name, &file)?.clone()
            }
            None => DEFAULT_VIEW,
        };
        let explicit =
            self.lat.is_some() || self.lon.is_some() || self.alt.is_some() || self.agl.is_some();
        b.lat = self.lat.unwrap_or(b.lat);
        b.lon = self.lon.unwrap_or(b.lon);
        if let Some(a) = self.alt {
            b.height = Height::Datum(a);
        }
        if let Some(a) = self.agl {
            b.height = Height::Ground(a);
        }
        b.heading = self.heading.unwrap_or(b.heading);
        b.pitch = self.pitch.unwrap_or(b.pitch);
        b.fov = self.fov.unwrap_or(b.fov);
        self.sun.check()?;
        if !(-90.0..=90.0).contains(&b.lat)
            || !b.lon.is_finite()
            || !(-90.0..=90.0).contains(&b.pitch)
            || !(1.0..=170.0).contains(&b.fov)
        {
            bail!("camera: want --lat in [-90, 90], --pitch in [-90, 90], --fov in [1, 170] (got {}, {}, {})", b.lat, b.pitch, b.fov);
        }
        let name = match (&self.bookmark, explicit) {
            (Some(n), false) => n.clone(),
            _ => format!("lat{:.3}_lon{:.3}_{}", b.lat, b.lon, b.height),
        };
        Ok((name, b))
    }
}

/// The pose of `b` over `source` (None: no terrain, the datum is the ground).
pub fn place(b: &Bookmark, source: Option<&dyn TileSource>) -> Pose {
    pose_of(b, |dir| {
        source.map_or(0.0, |s| engine::ground::ground_height(s, dir))
    })
}

/// The view camera of `b` over `source` at `width`×`height` px.
pub fn view_camera(
    b: &Bookmark,
    source: Option<&dyn TileSource>,
    width: u32,
    height: u32,
) -> ViewCamera {
    let body = source.map_or(Body::EARTH, |s| s.body());
    place(b, source).camera(body, width, height)
}

/// The pose of a bookmark; `ground(dir)` gives the ground height (m above datum) where the
/// bookmark's height is above ground (the viewer's ground probe answers it off the render
/// thread; everything else calls [`place`]).
pub fn pose_of(b: &Bookmark, ground: impl FnOnce(DVec3) -> f64) -> Pose {
    let alt = match b.height {
        Height::Datum(a) => a,
        Height::Ground(a) => ground(latlon_to_dir(b.lat, b.lon)) + a,
    };
    Pose {
        lat: b.lat,
        lon: b.lon,
        alt,
        heading: b.heading,
        pitch: b.pitch,
        fov: b.fov,
    }
}

/// The `planetfall render` line that reproduces a pose at a size.
pub fn render_line(p: &Pose, width: u32, height: u32, scene: &str) -> String {
    format!(
        "planetfall render --scene {scene} --lat {:.6} --lon {:.6} --alt {:.2} --heading {:.3} --pitch {:.3} --fov {:.2} --width {width} --height {height}",
        p.lat, p.lon, p.alt, p.heading, p.pitch, p.fov
    )
}
