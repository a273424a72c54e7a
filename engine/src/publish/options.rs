//! The publish's options: the raster's mode, the resolve's searches and hand-overs, and the
//! constants that set them by default.

use framegraph::shader::Shader;

/// Who rasterises the leaves `raster.compute` hands over (near-plane crossers, big footprints).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PublishMode {
    /// The hardware raster, `raster.hardware` (an indirect draw).
    Hardware,
    /// Compute only, `raster.compute.big`: no hardware raster in the frame.
    Compute,
    /// Chosen per device by [`PublishMode::resolve`].
    #[default]
    Auto,
}

impl PublishMode {
    pub const NAMES: [&'static str; 3] = ["hw", "compute", "auto"];

    /// `hw`, `compute` or `auto` (the CLI's `--publish`).
    pub fn parse(s: &str) -> Option<PublishMode> {
        match s {
            "hw" | "hardware" => Some(PublishMode::Hardware),
            "compute" => Some(PublishMode::Compute),
            "auto" => Some(PublishMode::Auto),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            PublishMode::Hardware => "hw",
            PublishMode::Compute => "compute",
            PublishMode::Auto => "auto",
        }
    }

    /// The mode a frame on `device` runs. The rule: `Auto` is `Compute` on every device.
    /// On the H200 the compute path's frame is 0.15–0.26 ms faster in all five views compared
    /// (docs/bench.md, "Hardware or compute publish": 0.134 against 0.286 ms with no leaf
    /// drawn, 0.568 against 0.715 ms at 501k leaves), because `raster.hardware` costs a
    /// near-constant ~0.15 ms whatever it draws and `raster.compute.big` took 0.002–0.022 ms
    /// for the same hand-overs. On lavapipe both paths give the same pixels and the compute
    /// one needs no graphics pipeline. A device kind, size or threshold where the hardware
    /// path measures faster belongs here.
    pub fn resolve(self, _device: &framegraph::context::DeviceInfo) -> PublishMode {
        match self {
            PublishMode::Auto => PublishMode::Compute,
            m => m,
        }
    }
}

/// Side of `raster.hiz`'s depth tiles, px (`RASTER_HIZ_TILE` in `shaders/common/raster.glsl`).
pub const RASTER_HIZ_TILE: u32 = 8;

/// The largest pixel box `raster.compute` rasterises in one thread; bigger leaves are handed
/// over. One thread loops over its leaf's rows, so this bounds the longest loop in a warp:
/// where few leaves cover the screen (views from 400 km: 5–8 thousand leaves of ~500 px)
/// the raster is a few warps each looping over a thousand pixels. On the H200 at 1080p
/// (docs/bench.md "raster.compute's box"), 256 against 1,024 took 0.09 ms off
/// pacific-400km-p90 and 0.06–0.07 off alps-400km-p30 and gibraltar-10km-p60; 128 or 64 gain
/// at most 0.01 ms more there but cost hawaii-1km-p30 (184k leaves of mid size, handed over
/// en masse) 0.04–0.12 ms.
pub const RASTER_MAX_BOX_PX: u32 = 256;

/// The prism `raster.unseen` tests an unseen leaf by (`shaders/raster/unseen.comp`): its chord
/// raised and lowered by this many times its largest edge-midpoint residual, at least a pixel.
/// A quadratic surface rises at most 4/3 of its largest midpoint residual over the chord
/// (common/raster_shell.glsl); the rest is margin for the finer detail the midpoints miss.
pub const UNSEEN_RAISE: f32 = 4.0;

/// The root search step from which a point within [`RESOLVE_LATE_SCALE`] times the
/// correction's trigger is close enough. A pixel left uncorrected keeps |f| under the trigger
/// (0.1 px at 1080p and 60°); a search that has not met it after its first step is mostly regula
/// falsi narrowing a bracket across the surface's kinks (texel edges, rocks' facets), a few
/// scattered pixels over rough near ground, one in most warps, and each warp waits on its
/// slowest pixel. Those stop within 0.4 px instead. On the H200 at 1080p (docs/bench.md "A
/// looser trigger for the root search's late steps"): `publish.resolve` −0.066 ms at
/// gibraltar-100m-p30 (warp walks 4.41 → 3.52), −0.037 at grand-canyon-100m-p0, −0.024 at
/// hawaii-1km-p30; see-through, silhouettes and the descent's pops unchanged, the lateral
/// flight's worst pop 4.79 → 1.77 px; depth rel p95 at gibraltar-100m-p30 (lavapipe, 480×270)
/// 4.2e-4 → 6.4e-4.
pub const RESOLVE_LATE_AFTER: u32 = 2;
/// See [`RESOLVE_LATE_AFTER`].
pub const RESOLVE_LATE_SCALE: f32 = 4.0;

/// Steps in all a root search still unaccepted after its sixth takes while its root is
/// bracketed, bisecting where a step does not halve the bracket (`root_rescuing` in
/// `shaders/common/resolve.glsl`; 6 or less: none). Such a search used to leave the chord,
/// centimetres off the surface at walking height, where the next frame's search from another
/// chord reached the root: on lavapipe the descent's low end (480×270, from 2.6 m) popped
/// 2.56 px at one such point, the search bracketed with its best point 0.4 px off
/// (docs/bench.md "Searches that give up bracketed").
pub const RESOLVE_RESCUE_STEPS: u32 = 14;

/// Publish options.
#[derive(Clone, Copy, Debug)]
pub struct PublishOptions {
    /// Keep the chord (no surface-following correction) — for comparisons.
    pub no_correction: bool,
    /// Who rasterises the handed-over leaves; resolved (never `Auto`) by the renderer.
    pub mode: PublishMode,
    /// The largest pixel box one `raster.compute` thread takes ([`RASTER_MAX_BOX_PX`]).
    pub max_box_px: u32,
    /// From this root search step on (0: never), a point within `late_scale` times the
    /// correction's trigger is close enough: the long searches stop sooner, at a looser bound
    /// ([`RESOLVE_LATE_AFTER`], [`RESOLVE_LATE_SCALE`]). Not with `root_bisect`, which is there
    /// to reach the roots at step edges.
    pub late_after: u32,
    /// See `late_after`.
    pub late_scale: f32,
    /// Steps in all a search unaccepted after its sixth takes while bracketed
    /// ([`RESOLVE_RESCUE_STEPS`]; 6 or less: none).
    pub rescue_steps: u32,
    /// What the raster does with the occlusion stamps when the mesh keeps them
    /// ([`OcclusionBindings`]): nothing, stamps in one pass, or a cull in two (the visibility
    /// buffer is the same bits in every case). Off by default.
    pub occlusion: Occlusion,
    /// With [`Occlusion::Stamp`], the half-height of the prism `raster.unseen` tests an
    /// unseen leaf by, over its largest edge-midpoint residual ([`UNSEEN_RAISE`]).
    pub unseen_raise: f32,
    /// With [`Occlusion::Stamp`], `raster.unseen` tests only the unseen leaves the view grazes
    /// closer than this |cos| of incidence (the renderer sets `CbtParams::silhouette_cos`
    /// where `cbt.decide` keeps the others unseen or not; 2: every one).
    pub unseen_cos: f32,
    /// Samples `publish.resolve.search` takes back along a grazing ray, within the surface search's
    /// reach, for detail that rises above the ray before the chord it hit (0: none, the
    /// default; [`RESOLVE_MARCH_SAMPLES`] to turn it on). Bit 16 makes it a reference for
    /// comparisons: the low bits' samples over the whole reach under every leaf, whatever the
    /// spacing.
    pub march_samples: u32,
    /// Samples `publish.resolve.search`'s outline search takes at most along a ray that passed over
    /// a surface drawn beside it in front of its chord (0: none, the default;
    /// [`RESOLVE_OUTLINE_SAMPLES`] to turn it on).
    pub outline_samples: u32,
    /// The resolve's root search bisects where regula falsi creeps, up to 14 steps once
    /// bracketed, and takes a bracket as narrow as its tolerance (off by default).
    pub root_bisect: bool,
    /// Pieces of `publish.resolve.search`'s first-crossing search at most (0: none, the default; at
    /// most 63): the ray's first crossing of the surface within the root search's reach,
    /// widened to the chord's sag at the ray's slope, piece by piece of the selected level's
    /// half-texel grid, before the search beside the chord ([`RESOLVE_CROSSING_PIECES`] to turn
    /// it on).
    pub crossing_pieces: u32,
    /// The conservative shell (`shaders/common/raster_shell.glsl`): each leaf whose chord may
    /// lie a pixel or more under the surface is also drawn as a prism raised this many times
    /// its largest edge-midpoint residual, and `publish.resolve.search` searches each ray from the
    /// nearest prism face for its first crossing, up to [`SHELL_PIECES`] pieces (0: none).
    /// With no other search on, `publish.resolve` hands those rays to `publish.resolve.shell`
    /// and resolves the rest itself ([`PublishOptions::shell_handed_over`]).
    pub shell_k: f32,
    /// The shell's rays searched in `publish.resolve.search` with every other pixel, as they
    /// were before the hand-over (for comparisons; the hits are the same bits).
    pub shell_inline: bool,
    /// A sky pixel next to a terrain pixel has its ray searched near its neighbours' chords
    /// for a crossing, by `publish.resolve.skyline` (`shaders/common/resolve_skyline.glsl`): a
    /// ridge's crest stands over its chord by up to the leaf's residual, and rays just over
    /// the chord would show sky.
    pub skyline: bool,
    /// With `skyline`: terrain pixels behind an outline (a 4-neighbour's chord nearer by more
    /// than 6 %, within this view depth, m) are searched there too, near the nearer chords, for
    /// a crest in front of their hit that their own chord's search cannot see, and
    /// `publish.resolve.skyline.walk` walks up each crest it meets, row by row (a crest may
    /// stand pixels over its chord). 0: none.
    pub skyline_outline_m: f32,
    /// With the outlines: each crest met walked up row by row (`publish.resolve.skyline.walk`);
    /// false searches the handed-over pixels alone (the plain `publish.resolve.skyline`), for
    /// comparisons.
    pub skyline_walk: bool,
}

/// Pieces of the first-crossing search from the conservative shell's face at most (as
/// [`RESOLVE_CROSSING_PIECES`]: a longer window keeps the hit found without it).
pub const SHELL_PIECES: u32 = 16;

/// Samples of the march back along a grazing ray at most (`march_back` in
/// `shaders/common/resolve_search.glsl`, run by `publish.resolve.search`), about every 0.5 m of
/// ground: the count to turn it on with. On the H200 in the
/// Khumbu descent at 1080p (the dome rocks), 16 samples cut the pixels that see past a rock
/// from 31,276 to 11,744 and the descent's worst pop from 45.8 to 24.3 px. It is off by
/// default because over the rough bare ground it costs 2.5–2.9 ms a frame in the grazing
/// 100 m views (gibraltar-100m-p30 0.96 → 3.85 ms), where the ray dips under metre-scale
/// relief near almost every hit; docs/bench.md "The faceted rocks and the march on the H200".
pub const RESOLVE_MARCH_SAMPLES: u32 = 16;

/// Samples of the outline search at most (`march_outline` in `shaders/common/resolve_search.glsl`,
/// run by `publish.resolve.search`): from the depth of the surface seen beside the pixel, four a
/// texel apart, then doubling toward the chord's hit, then four steps of a dip search between them.
/// Off by default: with the root search's bisection it draws the crests of an analytic ridge field
/// where the reference does (`hidden_detail`), but in the lavapipe descent it popped more, not
/// less, at 2.2× the surface walks (docs/bench.md "The outline search").
pub const RESOLVE_OUTLINE_SAMPLES: u32 = 8;

/// Pieces of the first-crossing search at most (`first_crossing` in
/// `shaders/common/resolve_search.glsl`, run by `publish.resolve.search`), the count to turn it on
/// with: a window that crosses more of the selected level's grid (pieces of up to four texels)
/// keeps the root search beside the chord. Off by default: in the lavapipe descent at 1080p it cuts
/// p99 at 2–3 m from 38–50 px to 0.8–1.0 px and the points over 1 px by 3–5×, but raises the worst
/// pop from 75 to 168 px and p99 at 3.4–3.9 m from 1.6–4.1 to 44–66 px, where the mesh's chords lie
/// farther off the surface than the window and rays switch between the two searches from frame to
/// frame (docs/bench.md "The first-crossing search").
pub const RESOLVE_CROSSING_PIECES: u32 = 16;

impl PublishOptions {
    /// Whether any of the resolve's searches beyond the root beside the chord is on (the
    /// frame then runs `publish.resolve.search` in place of `publish.resolve`).
    pub fn searches(&self) -> bool {
        self.march_samples > 0
            || self.outline_samples > 0
            || self.root_bisect
            || self.crossing_pieces > 0
            || self.shell_k > 0.0
    }

    /// Whether `publish.resolve` hands the rays that enter a prism in front of their chord to
    /// `publish.resolve.shell`: the shell on and no other search (the lean resolve has none of
    /// their code), unless `shell_inline`.
    pub fn shell_handed_over(&self) -> bool {
        self.shell_k > 0.0
            && !self.shell_inline
            && self.march_samples == 0
            && self.outline_samples == 0
            && !self.root_bisect
            && self.crossing_pieces == 0
    }

    /// Whether the resolve passes hand their sky pixels beside terrain to
    /// `publish.resolve.skyline` (`skyline`, and the surface correction on).
    pub fn skyline_searched(&self) -> bool {
        self.skyline && !self.no_correction
    }

    /// Outlines handed to the skyline search.
    pub fn skyline_outlines(&self) -> bool {
        self.skyline_searched() && self.skyline_outline_m > 0.0
    }

    /// The skyline search walks up the crests it meets (`publish.resolve.skyline.walk`).
    pub fn skyline_walks(&self) -> bool {
        self.skyline_outlines() && self.skyline_walk
    }

    /// Whether `publish.resolve.search` runs in place of `publish.resolve`.
    pub(super) fn searching_resolve(&self) -> bool {
        self.searches() && !self.shell_handed_over()
    }

    /// The resolve's shader, its node's name. The searches for crossings the chord's root
    /// misses are a shader of their own, so the default resolve carries none of their code
    /// (registers; lavapipe's compile time); likewise the shell's hand-over
    /// (`publish.resolve.handover`), whose code costs the plain resolve even when it hands
    /// nothing over (docs/bench.md, "every view again").
    pub fn resolve_shader(&self) -> &'static Shader {
        if self.searching_resolve() {
            &shaders::PUBLISH_RESOLVE_SEARCH
        } else if self.shell_handed_over() {
            &shaders::PUBLISH_RESOLVE_HANDOVER
        } else {
            &shaders::PUBLISH_RESOLVE
        }
    }

    /// The skyline pass's shader where it runs: with the outlines, the variant that walks up
    /// the crests (its shared state and registers cost the plain pass 30 % on an H100).
    pub fn skyline_shader(&self) -> Option<&'static Shader> {
        if self.skyline_walks() {
            Some(&shaders::PUBLISH_RESOLVE_SKYLINE_WALK)
        } else if self.skyline_searched() {
            Some(&shaders::PUBLISH_RESOLVE_SKYLINE)
        } else {
            None
        }
    }
}

impl Default for PublishOptions {
    fn default() -> Self {
        PublishOptions {
            no_correction: false,
            mode: PublishMode::default(),
            max_box_px: RASTER_MAX_BOX_PX,
            late_after: RESOLVE_LATE_AFTER,
            late_scale: RESOLVE_LATE_SCALE,
            rescue_steps: RESOLVE_RESCUE_STEPS,
            occlusion: Occlusion::Off,
            unseen_raise: UNSEEN_RAISE,
            unseen_cos: 2.0,
            march_samples: 0,
            outline_samples: 0,
            root_bisect: false,
            crossing_pieces: 0,
            shell_k: 0.0,
            shell_inline: false,
            skyline: true,
            skyline_outline_m: 0.0,
            skyline_walk: true,
        }
    }
}

/// How the compute raster uses the occlusion stamps (`PublishOptions::occlusion`): which
/// leaves showed nothing in the last frame, for `cbt.decide` to keep them from splitting
/// (`cbt::HiddenLeaves`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Occlusion {
    /// One pass, no stamps: every leaf drawn, every leaf refines.
    #[default]
    Off,
    /// One pass, `raster.compute.stamped`: each leaf drawn on screen is stamped unseen and
    /// `publish.resolve` restamps the winners, so the mesh knows the leaves that won no
    /// pixel at one write per leaf; then `raster.hiz` over the finished image and
    /// `raster.unseen` restamp as hidden the unseen leaves whose prism
    /// ([`PublishOptions::unseen_raise`]) lies behind it. Nothing is culled.
    Stamp,
    /// Two phases: last frame's visible leaves, then the rest culled where hidden behind
    /// them (`raster.compute.early`, `raster.hiz`, `raster.compute.late`). On the H200 and the
    /// H100 the second phase costs more than the leaves it culls save (docs/bench.md,
    /// "Hidden leaves kept from splitting").
    Cull,
}

impl Occlusion {
    /// Whether the raster stamps the leaves it draws (and the mesh keeps the stamps).
    pub fn stamps(self) -> bool {
        self != Occlusion::Off
    }

    /// As `--occlusion` names it.
    pub fn name(self) -> &'static str {
        match self {
            Occlusion::Off => "off",
            Occlusion::Stamp => "stamp",
            Occlusion::Cull => "on",
        }
    }
}

impl std::str::FromStr for Occlusion {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "off" => Ok(Occlusion::Off),
            "stamp" => Ok(Occlusion::Stamp),
            "on" | "cull" => Ok(Occlusion::Cull),
            _ => Err(format!("expected off, stamp or on, got {s:?}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Occlusion;
    use crate::cbt::HiddenLeaves;

    /// The names the bench reports are the ones the command line takes.
    #[test]
    fn occlusion_and_hidden_leaves_names_parse_back() {
        for o in [Occlusion::Off, Occlusion::Stamp, Occlusion::Cull] {
            assert_eq!(o.name().parse::<Occlusion>(), Ok(o));
        }
        for h in [
            HiddenLeaves::Refine,
            HiddenLeaves::KeepCulled,
            HiddenLeaves::KeepUnseen,
        ] {
            assert_eq!(h.name().parse::<HiddenLeaves>(), Ok(h));
        }
        assert!("maybe".parse::<Occlusion>().is_err());
    }
}
