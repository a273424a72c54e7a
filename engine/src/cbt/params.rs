//! The CBT's tunable constants, one documented place. Sources: TERRAIN.md §3 (the production
//! renderer's published targets) unless a line says otherwise.

/// Refinement criterion and culling parameters (the CLI may override them).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CbtParams {
    /// Split when the interpolation residual (surface vs chord at the hypotenuse or a leg
    /// midpoint) exceeds this many pixels. TERRAIN.md §3: 0.5 px.
    pub residual_px: f64,
    /// … but only while the longest screen edge is over this many pixels: a smaller triangle's
    /// residual is the shape of detail within about a pixel, which the resolve's per-pixel
    /// surface hit and normals draw, so splitting it buys sub-pixel leaves (ours; 0: off).
    pub split_min_px: f64,
    /// Split when the longest screen edge exceeds this, px (24 px near the camera).
    pub edge_px_near: f64,
    /// … growing linearly to this, px (48 px) …
    pub edge_px_far: f64,
    /// … between these nearest-corner distances, metres (5 km → 20 km).
    pub edge_grow_start_m: f64,
    pub edge_grow_end_m: f64,
    /// Merge when the parent would measure under this fraction of both targets (0.6).
    pub merge_hysteresis: f64,
    /// Grazing triangles get targets up to this much tighter (25 %) …
    pub grazing_tighten: f64,
    /// … blended in with nearest-corner distance between these, metres (2 km → 5 km) …
    pub grazing_blend_start_m: f64,
    pub grazing_blend_end_m: f64,
    /// … and with incidence: no tightening while |cos(view, chord normal)| ≥ `grazing_cos_start`
    /// (15° above the plane), full at `grazing_cos_full` (5°). Ours: TERRAIN.md gives no ramp.
    pub grazing_cos_start: f64,
    pub grazing_cos_full: f64,
    /// The residual target of a far leaf the view grazes within `grazing_cos_full` (5°) is a
    /// further up to this much tighter (2/3: 0.125 px), in full at `outline_cos_full` (2°). Such
    /// a leaf draws an outline, and its chord's sag is how far inside the surface's outline the
    /// drawn one lies: at 0.375 px a band of the limb's pixels from orbit showed sky where the
    /// reference sees ground (docs/bench.md "Outlines' sag"). Only near-tangent leaves: applied
    /// to every grazing leaf (≤ 15°) it cost alps-1km-p0 2.5× the leaves. Ours: TERRAIN.md §3
    /// gives one residual target.
    pub outline_tighten: f64,
    /// The |cos| of incidence where the outlines' tightening is full (0.035: 2°).
    pub outline_cos_full: f64,
    /// Children never finer than this fraction of the finest available texel at the nearest
    /// corner (a quarter).
    pub depth_cap_texel_fraction: f64,
    /// Levels finer than this carry fine detail (TERRAIN.md §6: the gain acts on L15+). A leaf
    /// the cap of this level would stop is `FLAG_FINE`; its split wishes are counted.
    pub fine_detail_level: u8,
    /// The fine-detail gain g ∈ [0, 1] (`cbt::gain`): where the finest available level L is
    /// finer than `fine_detail_level` (F), the depth cap is that of level F + g·(L − F)
    /// (log-linear in texel size): g = 1 is L's own cap, g = 0 is F's (docs/earth.md).
    pub fine_detail_gain: f64,
    /// A leaf seen within this |cos| of grazing (`criterion::incidence_cos`) keeps its own
    /// level's depth cap whatever the gain, and its split wishes are not fine ones: the chords
    /// there draw the outlines, which the resolve's root search cannot move (a crest the chord
    /// passes under is not seen), and outlines are lines, so their leaves grow with their
    /// length, not with the ground's area (docs/cbt.md "Outlines and the gain"). 0: off; 0.3
    /// (17.5°): the H200 descent's points over 1 px 8,528 → 2,480 for 35 % more leaves, the
    /// still frame's time unchanged (docs/bench.md "Outlines keep the finest cap").
    pub silhouette_cos: f64,
    /// Drop triangles below the datum horizon before they refine.
    pub horizon_cull: bool,
    /// Frustum test: bounding sphere of the corners around their centroid, radius times this.
    /// 1.5 covers the surface bulging past the chord (a root triangle's sagitta is ≈ 0.3× its
    /// corner radius). Ours.
    pub frustum_inflate: f64,
    /// Most update iterations per frame (4, TERRAIN.md §3); `bisector::MAX_ITERATIONS` bounds it.
    pub max_iterations: usize,
    /// The GPU mesh records one iteration instead of `max_iterations` after a quiet frame
    /// (`gpu::record`) unless the view has since turned by more than this many centre pixels …
    /// (ours: half a pixel, so a leaf at the frustum edge moves into view by less than the
    /// frustum test's margin).
    pub quiet_turn_px: f64,
    /// … or the eye moved by more than this fraction of its height above the datum (ours: 0.1 %,
    /// a 0.1 % change of the screen measures of ground at least that far away).
    pub quiet_move_fraction: f64,
    /// Updates over which a new vertex moves from the chord of the edge it split onto the
    /// surface (docs/cbt.md "Morph"); 0: at once. Off by default: at 30
    /// (`bisector::MORPH_UPDATES`) the lavapipe descent popped more, not less (docs/bench.md
    /// "Descent pops"); `bench --morph-updates` sets it for the flights.
    pub morph_updates: u32,
    /// `cbt.eval` keeps what each leaf's surface points read that does not depend on the eye
    /// (finest slot, plane point, the level chain) and re-blends from it while the slots it read
    /// are unchanged (docs/cbt.md "The surface memo"); false walks every point every time. The
    /// same points either way; GPU only (the model always walks).
    pub surface_memo: bool,
    /// With occlusion stamps (`publish::PublishOptions::occlusion`: stamps alone or the cull),
    /// which leaves of the last frame keep their level instead of splitting (GPU only: the
    /// model draws nothing).
    pub hidden_leaves: HiddenLeaves,
}

/// Leaves that showed nothing in the last frame, refined or kept at their level
/// (`CbtParams::hidden_leaves`; only with occlusion stamps, which say which).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum HiddenLeaves {
    /// Every leaf refines as without the cull: the image is the same bits.
    Refine,
    /// Leaves `raster.compute.late` culled as hidden behind what the early phase drew keep
    /// their level: hidden by the cull's conservative depth test.
    #[default]
    KeepCulled,
    /// Those, and leaves drawn on screen that won no pixel: everything the image did not show.
    KeepUnseen,
}

impl HiddenLeaves {
    /// As `--hidden-leaves` names it.
    pub fn name(self) -> &'static str {
        match self {
            HiddenLeaves::Refine => "refine",
            HiddenLeaves::KeepCulled => "keep-culled",
            HiddenLeaves::KeepUnseen => "keep-unseen",
        }
    }
}

impl std::str::FromStr for HiddenLeaves {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "refine" => Ok(HiddenLeaves::Refine),
            "keep-culled" => Ok(HiddenLeaves::KeepCulled),
            "keep-unseen" => Ok(HiddenLeaves::KeepUnseen),
            _ => Err(format!(
                "expected refine, keep-culled or keep-unseen, got {s:?}"
            )),
        }
    }
}

impl Default for CbtParams {
    fn default() -> Self {
        CbtParams {
            residual_px: 0.5,
            split_min_px: 0.0,
            edge_px_near: 24.0,
            edge_px_far: 48.0,
            edge_grow_start_m: 5_000.0,
            edge_grow_end_m: 20_000.0,
            merge_hysteresis: 0.6,
            grazing_tighten: 0.25,
            grazing_blend_start_m: 2_000.0,
            grazing_blend_end_m: 5_000.0,
            grazing_cos_start: 0.26,
            grazing_cos_full: 0.087,
            outline_tighten: 2.0 / 3.0,
            outline_cos_full: 0.035,
            depth_cap_texel_fraction: 0.25,
            fine_detail_level: crate::params::FINE_DETAIL_LEVEL,
            fine_detail_gain: 1.0,
            silhouette_cos: 0.3,
            horizon_cull: true,
            frustum_inflate: 1.5,
            max_iterations: super::bisector::MAX_ITERATIONS,
            quiet_turn_px: 0.5,
            quiet_move_fraction: 1e-3,
            morph_updates: 0,
            surface_memo: true,
            hidden_leaves: HiddenLeaves::default(),
        }
    }
}
