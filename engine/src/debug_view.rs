//! The renderer's debug views: one enum for the command line (`--debug`), the viewer's keys
//! 1–8, scripts, the HUD and the shading node's push constant.

/// What the frame shows in place of (or over) the shading.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum DebugView {
    #[default]
    Shaded,
    /// Colour by the level the surface was taken from.
    Levels,
    /// Colour by tile slot.
    Slots,
    /// The shading with the mesh's visible edges drawn over it.
    Wireframe,
    /// World-space normals as colour.
    Normals,
    /// Latitude/longitude as colour (red: latitude, green: longitude).
    LatLon,
    /// Water (blue) and land (brown).
    Water,
    /// The mesh itself: CBT leaves flat-coloured by depth, no shading (`raster.cbt_debug`).
    Cbt,
}

impl DebugView {
    /// In key order (1–8).
    pub const ALL: [DebugView; 8] = [
        DebugView::Shaded,
        DebugView::Levels,
        DebugView::Slots,
        DebugView::Wireframe,
        DebugView::Normals,
        DebugView::LatLon,
        DebugView::Water,
        DebugView::Cbt,
    ];

    /// Name on the command line, in scripts and on the HUD.
    pub fn name(self) -> &'static str {
        match self {
            DebugView::Shaded => "shaded",
            DebugView::Levels => "levels",
            DebugView::Slots => "slots",
            DebugView::Wireframe => "wireframe",
            DebugView::Normals => "normals",
            DebugView::LatLon => "latlon",
            DebugView::Water => "water",
            DebugView::Cbt => "cbt",
        }
    }

    pub fn parse(s: &str) -> Option<DebugView> {
        DebugView::ALL
            .into_iter()
            .find(|d| d.name().eq_ignore_ascii_case(s.trim()))
    }

    /// `shade.terrain`'s push constant (`VIEW_*` in `shaders/shade/terrain.comp`): what it
    /// writes per pixel. The mesh views shade normally; the mesh is drawn by another node.
    pub fn shade_mode(self) -> u32 {
        match self {
            DebugView::Shaded | DebugView::Wireframe | DebugView::Cbt => 0,
            DebugView::Levels => 1,
            DebugView::Slots => 2,
            DebugView::Normals => 3,
            DebugView::LatLon => 4,
            DebugView::Water => 5,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::DebugView;

    #[test]
    fn names_round_trip_and_are_distinct() {
        for d in DebugView::ALL {
            assert_eq!(DebugView::parse(d.name()), Some(d));
            assert_eq!(DebugView::parse(&d.name().to_uppercase()), Some(d));
        }
        let mut names: Vec<_> = DebugView::ALL.iter().map(|d| d.name()).collect();
        names.dedup();
        assert_eq!(names.len(), 8);
        assert_eq!(DebugView::parse("wire"), None);
    }
}
