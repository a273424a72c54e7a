//! Tests of `residency/` (`TileStream`): waiting and non-waiting frames, stand-ins, replacement, priority
//! order after a turn, fades, failures.
use super::*;
use crate::params::STREAM_CUT_WINDOW_MAX_S;
use crate::planet::cube::Face;
use crate::source::Completion;
use parking_lot::Mutex;

/// Empty payloads; counts fetches.
struct Fake {
    fetched: Mutex<Vec<TileId>>,
}
impl TileSource for Fake {
    fn body(&self) -> Body {
        Body::EARTH
    }
    fn finest_level(&self) -> u8 {
        12
    }
    fn tile(&self, id: TileId) -> Arc<Tile> {
        self.fetched.lock().push(id);
        Arc::new(Tile::empty(id))
    }
    fn max_relief(&self) -> f64 {
        9_000.0
    }
}

fn fake() -> Fake {
    Fake {
        fetched: Mutex::new(vec![]),
    }
}

fn cam(alt: f64, heading: f64) -> ViewCamera {
    geo(46.5, 8.0, alt, heading)
}

fn priorities(f: &FrameResidency) -> Vec<f64> {
    f.uploads
        .iter()
        .map(|u| f.wanted.get(u.tile).expect("wanted").priority)
        .collect()
}

#[test]
fn synchronous_frames_have_their_tiles() {
    let src = fake();
    let mut r = TileStream::for_source(&src, 64, true);
    assert_eq!(r.params.finest_level, 12);
    assert_eq!(r.params.heights.max_m, 9_000.0);
    let f = r.update(&cam(50_000.0, 0.0), 0.0, &src);
    let rep = f.report;
    assert!(rep.wanted > 6 && rep.wanted <= 48, "{rep:?}");
    assert_eq!((rep.resident, rep.pending, rep.missing), (rep.wanted, 0, 0));
    assert_eq!(rep.loaded_this_frame, rep.wanted);
    for u in &f.uploads {
        assert_eq!(u.data.id, u.tile);
        assert_eq!(
            u.parent_slot,
            u.tile.parent().and_then(|p| r.table().slot_of(p))
        );
        assert_eq!(r.table().slot(u.slot).page, u.page);
    }
    // Uploads come in priority order.
    assert!(priorities(&f).windows(2).all(|w| w[0] >= w[1]));
    // The same view again: nothing to do.
    let g = r.update(&cam(50_000.0, 0.0), 1.0, &src);
    assert_eq!((g.report.loaded_this_frame, g.report.evicted), (0, 0));
    // Turn around: what is no longer wanted makes room, every wanted tile lands.
    let h = r.update(&cam(50_000.0, 180.0), 2.0, &src);
    assert!(h.report.evicted > 0);
    assert_eq!((h.report.pending, h.report.missing), (0, 0));
    assert_eq!(h.report.resident, r.resident().len());
    r.table().validate().expect("invariants");
    // Each payload was fetched once per load.
    let loads = f.uploads.len() + h.uploads.len();
    assert_eq!(src.fetched.lock().len(), loads);
}

#[test]
fn frames_that_do_not_wait_fetch_a_budget_parents_first_by_priority() {
    let src = fake();
    let mut r = TileStream::for_source(&src, 64, false);
    r.fetch_per_frame = 5;
    let c = cam(20_000.0, 90.0);
    let mut frames = 0;
    loop {
        let f = r.update(&c, frames as f64 * 0.016, &src);
        r.table().validate().expect("invariants");
        // A source without workers or stand-ins blocks, within the budget (the six roots
        // always land: every lookup ends at one).
        assert!(f.uploads.iter().filter(|u| u.tile.level > 0).count() <= 5);
        assert_eq!(f.report.waited, !f.uploads.is_empty());
        assert!(priorities(&f).windows(2).all(|w| w[0] >= w[1]));
        frames += 1;
        if f.report.pending == 0 && f.report.missing == 0 && f.report.loaded_this_frame == 0 {
            assert_eq!(f.report.resident, f.report.wanted);
            break;
        }
        assert!(frames < 100, "{:?}", f.report);
    }
    assert!(frames > 3, "arrivals were spread over frames");
}

/// An asynchronous source the test drives by hand: it records requests and completes
/// exactly what the test says, when it says; stand-ins are marked by their first code.
struct Manual {
    requested: Mutex<Vec<(TileId, f32)>>,
    done: Mutex<Vec<Completion>>,
    cancelled: Mutex<Vec<TileId>>,
}
const STAND_IN: u16 = 7;
const EXACT: u16 = 9;
fn marked(id: TileId, code: u16) -> Arc<Tile> {
    let mut t = Tile::empty(id);
    t.set(0, code);
    Arc::new(t)
}
impl TileSource for Manual {
    fn body(&self) -> Body {
        Body::EARTH
    }
    fn finest_level(&self) -> u8 {
        12
    }
    fn tile(&self, id: TileId) -> Arc<Tile> {
        panic!("a non-waiting frame fetched {id} in the render thread");
    }
    fn max_relief(&self) -> f64 {
        9_000.0
    }
    fn is_async(&self) -> bool {
        true
    }
    fn request(&self, tiles: &[(TileId, f32)]) {
        self.requested.lock().extend_from_slice(tiles);
    }
    fn cancel(&self, tiles: &[TileId]) {
        self.cancelled.lock().extend_from_slice(tiles);
    }
    fn poll(&self) -> Vec<Completion> {
        std::mem::take(&mut *self.done.lock())
    }
    fn provisional(&self, id: TileId) -> Option<Arc<Tile>> {
        Some(marked(id, STAND_IN))
    }
}
fn manual() -> Manual {
    Manual {
        requested: Mutex::new(vec![]),
        done: Mutex::new(vec![]),
        cancelled: Mutex::new(vec![]),
    }
}
impl Manual {
    /// Completes every tile requested so far, in the order given by `order`.
    fn complete_all(&self, mut order: impl FnMut(&mut Vec<TileId>)) {
        let mut ids: Vec<TileId> = self.requested.lock().drain(..).map(|r| r.0).collect();
        ids.sort();
        ids.dedup();
        order(&mut ids);
        let mut done = self.done.lock();
        done.extend(ids.into_iter().map(|id| (id, Ok(marked(id, EXACT)))));
    }
}

#[test]
fn the_first_frame_draws_coarse_stand_ins_and_exact_tiles_replace_them_in_place() {
    let src = manual();
    let mut r = TileStream::for_source(&src, 256, false);
    let c = cam(2_000_000.0, 0.0);
    let f = r.update(&c, 0.0, &src);
    r.table().validate().expect("invariants");
    assert!(!f.report.waited);
    // Every wanted coarse tile is there at once, as a stand-in; finer ones are requested.
    let coarse = f.wanted.tiles.iter().filter(|t| t.id.level <= 2).count();
    assert!(coarse >= 6);
    assert_eq!(f.uploads.len(), coarse);
    assert!(f
        .uploads
        .iter()
        .all(|u| u.provisional && u.data.code(0) == STAND_IN));
    assert_eq!(f.report.provisional, coarse);
    let asked: HashSet<TileId> = src.requested.lock().iter().map(|r| r.0).collect();
    assert!(
        f.wanted.tiles.iter().all(|t| asked.contains(&t.id)),
        "all wanted requested"
    );
    let slots: HashMap<TileId, (u32, u32)> = f
        .uploads
        .iter()
        .map(|u| (u.tile, (u.slot, u.page)))
        .collect();
    // The exact tiles come back: stand-ins are replaced in their own slot, on a new page.
    src.complete_all(|_| {});
    let g = r.update(&c, 0.1, &src);
    r.table().validate().expect("invariants");
    let repl: Vec<&Upload> = g.uploads.iter().filter(|u| u.replaces).collect();
    assert!(!repl.is_empty(), "{:?}", g.report);
    assert!(g.uploads.len() <= DEFAULT_MAX_UPLOADS);
    assert!(repl.iter().all(|u| slots.contains_key(&u.tile)));
    for u in &repl {
        let (slot, page) = slots[&u.tile];
        assert_eq!(u.slot, slot);
        assert_ne!(u.page, page);
        assert_eq!(u.data.code(0), EXACT);
        assert_eq!(r.table().slot(slot).from, Some((page, 0.1)));
    }
    // The cross-fade weight rises monotonically and the old pages free after 1.5 s.
    let s0 = repl[0].slot;
    let mut last = -1.0;
    for k in 0..=16 {
        let w = r.table().xfade(s0, 0.1 + k as f64 * 0.1);
        assert!(w >= last && (0.0..=1.0).contains(&w));
        last = w;
    }
    assert_eq!(last, 1.0);
    let free_before = r.table().free_pages();
    let mut now = 0.2;
    while r.table().crossfading() > 0 || r.stream_has_stand_ins() {
        src.complete_all(|_| {});
        r.update(&c, now, &src);
        r.table().validate().expect("invariants");
        now += 0.25;
        assert!(now < 30.0);
    }
    assert!(r.table().free_pages() >= free_before);
}

const CHANGED: u16 = 11;

/// A resident exact tile whose content changed at the source (`refresh`) is asked for again and
/// replaced in its own slot, on a new page, cross-fading over 1.5 s with a weight that rises
/// monotonically; the old content is drawn meanwhile; a tile not resident is ignored.
#[test]
fn a_refreshed_tile_is_replaced_in_its_slot_with_a_rising_cross_fade() {
    let src = manual();
    let mut r = TileStream::for_source(&src, 256, false);
    let c = cam(2_000_000.0, 0.0);
    let mut now = 0.0;
    // Settle on exact tiles, every cross-fade done.
    while now == 0.0 || r.table().crossfading() > 0 || r.stream_has_stand_ins() {
        src.complete_all(|_| {});
        r.update(&c, now, &src);
        now += 0.25;
        assert!(now < 30.0);
    }
    let resident = r.resident();
    let target = *resident
        .iter()
        .find(|e| e.tile.level == 1)
        .expect("an L1 tile");
    let absent = TileId::new(12, Face(0), 5, 5);
    src.requested.lock().clear();
    assert_eq!(r.refresh(&[target.tile, absent]), 1);
    assert_eq!(r.stale(), 1);
    // Asked for again, drawn as it is until the new content arrives.
    let f = r.update(&c, now, &src);
    assert_eq!(f.report.stale, 1);
    assert!(f.uploads.iter().all(|u| u.tile != target.tile));
    assert!(src.requested.lock().iter().any(|q| q.0 == target.tile));
    src.requested.lock().clear();
    src.done
        .lock()
        .push((target.tile, Ok(marked(target.tile, CHANGED))));
    now += 0.1;
    let g = r.update(&c, now, &src);
    r.table().validate().expect("invariants");
    let u = g
        .uploads
        .iter()
        .find(|u| u.tile == target.tile)
        .expect("replaced");
    assert!(u.replaces && !u.provisional);
    assert_eq!(u.slot, target.slot);
    assert_ne!(u.page, target.page);
    assert_eq!(u.data.code(0), CHANGED);
    assert_eq!(r.table().slot(u.slot).from, Some((target.page, now)));
    assert_eq!((g.report.stale, g.report.replaced_this_frame), (0, 1));
    let mut last = -1.0;
    for k in 0..=15 {
        let w = r.table().xfade(u.slot, now + k as f64 * 0.1);
        assert!(w > last && (0.0..=1.0).contains(&w), "step {k}: {w}");
        last = w;
    }
    assert!((last - 1.0).abs() < 1e-12);
    // The old page is freed once the cross-fade ends.
    r.update(&c, now + 1.6, &src);
    assert_eq!(r.table().slot(u.slot).from, None);
}

#[test]
fn completions_land_in_the_current_priority_order_not_arrival_order() {
    let src = manual();
    let mut r = TileStream::for_source(&src, 1024, false);
    r.max_uploads = 8;
    // Look east, then turn fast to look west before anything fine has arrived.
    let east = cam(30_000.0, 90.0);
    let west = cam(30_000.0, 270.0);
    r.update(&east, 0.0, &src);
    r.update(&west, 0.016, &src);
    // Everything completes at once, in the reverse of the order a queue would give.
    src.complete_all(|ids| ids.reverse());
    let f = r.update(&west, 0.032, &src);
    let new: Vec<&Upload> = f.uploads.iter().filter(|u| !u.replaces).collect();
    assert_eq!(new.len(), 8, "{:?}", f.report);
    // They land by the priority of the view looked at now.
    let p: Vec<f64> = new
        .iter()
        .map(|u| {
            f.wanted
                .get(u.tile)
                .map_or(f64::NEG_INFINITY, |w| w.priority)
        })
        .collect();
    assert!(p.windows(2).all(|w| w[0] >= w[1]), "{p:?}");
    let best_pending = r
        .pending_by_priority(&f.wanted)
        .first()
        .map_or(f64::NEG_INFINITY, |x| x.0);
    assert!(
        p.last().copied().unwrap_or(0.0) >= best_pending,
        "a higher priority waits"
    );
    // And what lands first is what the turned view looks at: wanted by the west view.
    assert!(new.iter().all(|u| f.wanted.contains(u.tile)));
}

#[test]
fn an_arrival_fades_in_monotonically_over_half_a_second() {
    let src = manual();
    let mut r = TileStream::for_source(&src, 256, false);
    let c = cam(30_000.0, 0.0);
    r.update(&c, 0.0, &src);
    src.complete_all(|_| {});
    let f = r.update(&c, 3.0, &src);
    let u = f
        .uploads
        .iter()
        .find(|u| !u.replaces)
        .expect("an arrival mid-flight");
    let w: Vec<f64> = (0..=12)
        .map(|k| r.table().fade(u.slot, 3.0 + k as f64 * 0.05))
        .collect();
    assert_eq!(w[0], 0.0);
    assert!(w.windows(2).all(|p| p[1] > p[0] || p[1] == 1.0), "{w:?}");
    assert!((w[5] - 0.5).abs() < 1e-9);
    assert_eq!(w[10], 1.0);
}

#[test]
fn a_failed_tile_is_reported_once_and_retried_with_growing_waits() {
    let src = manual();
    let mut r = TileStream::for_source(&src, 256, false);
    let c = cam(30_000.0, 0.0);
    r.update(&c, 0.0, &src);
    let victim = src
        .requested
        .lock()
        .iter()
        .map(|r| r.0)
        .find(|t| t.level > 2)
        .unwrap();
    src.requested.lock().clear();
    let fail = |src: &Manual| src.done.lock().push((victim, Err("disk on fire".into())));
    fail(&src);
    let f = r.update(&c, 0.1, &src);
    assert_eq!(f.failures.len(), 1);
    assert!(f.failures[0].contains("disk on fire"));
    assert_eq!(f.report.failed, 1);
    // Not re-requested before its wait is over; then requested again.
    r.update(&c, 0.5, &src);
    assert!(!src.requested.lock().iter().any(|r| r.0 == victim));
    r.update(&c, 1.2, &src);
    assert!(src.requested.lock().iter().any(|r| r.0 == victim));
    // A second failure is not reported again, and waits longer (2 s).
    src.requested.lock().clear();
    fail(&src);
    let g = r.update(&c, 1.3, &src);
    assert!(g.failures.is_empty());
    r.update(&c, 2.5, &src);
    assert!(!src.requested.lock().iter().any(|r| r.0 == victim));
    r.update(&c, 3.4, &src);
    assert!(src.requested.lock().iter().any(|r| r.0 == victim));
}

#[test]
fn amplified_tiles_are_measured_from_their_l9_ancestors_ground() {
    // Flat ground at the datum (empty payloads): once the L9 tiles under a 200 m camera land,
    // their amplified descendants lie within ±(the most detail adds), not ±9 km, so fewer fine
    // tiles are wanted than while every tile was measured from the planet-wide shell.
    let src = fake();
    let mut r = TileStream::for_source(&src, 1024, true);
    let c = cam(200.0, 0.0);
    let count = |f: &FrameResidency, level: u8| {
        f.wanted
            .tiles
            .iter()
            .filter(|t| t.id.level == level)
            .count()
    };
    let first = r.update(&c, 0.0, &src);
    let under = crate::ground::locate(c.eye.normalize(), 11).0;
    let l9 = TileId::new(9, under.face, under.x >> 2, under.y >> 2);
    assert!(
        first.wanted.contains(l9),
        "the L9 tile under the camera is wanted"
    );
    let m = max_detail_m(Body::EARTH);
    assert!(m > 15.0 && m < 25.0, "{m}");
    let b = r.height_bound(under);
    assert_eq!((b.min_m, b.max_m), (-m, m));
    assert_eq!(
        r.height_bound(l9),
        r.params.heights,
        "L9 itself keeps the shell"
    );
    let mut last = first;
    for k in 1..4 {
        last = r.update(&c, k as f64, &src);
    }
    let (before, after) = (
        count_fine(&count, &last),
        count_fine(&count, &r.update(&c, 9.0, &src)),
    );
    assert_eq!(before, after, "settled");
    // A frame that does not wait wants before any L9 tile has landed: from the shell.
    let shell = {
        let mut fresh = TileStream::for_source(&src, 1024, false);
        let f = fresh.update(&c, 0.0, &src);
        count_fine(&count, &f)
    };
    assert!(
        after < shell,
        "fine tiles wanted: {after} measured from the ground, {shell} from the shell"
    );
}

/// A waiting frame over ground not yet measured fetches only what the measured ground wants:
/// its L9 ancestors first, then the amplified tiles chosen against their heights, not the
/// shell's (which wants several times as many fine tiles at 200 m).
#[test]
fn a_cold_waiting_frame_fetches_only_what_the_measured_ground_wants() {
    let src = fake();
    let c = cam(200.0, 0.0);
    let mut r = TileStream::for_source(&src, 1024, true);
    let first = r.update(&c, 0.0, &src);
    let fetched = src.fetched.lock().clone();
    let settled = r.update(&c, 1.0, &src);
    let ids = |f: &FrameResidency| {
        let mut v: Vec<TileId> = f.wanted.tiles.iter().map(|t| t.id).collect();
        v.sort();
        v
    };
    assert!(
        ids(&first) == ids(&settled),
        "the first frame wants what the settled one does: {} vs {} tiles",
        first.wanted.len(),
        settled.wanted.len()
    );
    assert!(
        fetched.iter().all(|&id| first.wanted.contains(id)),
        "{} fetched, {} of them not wanted",
        fetched.len(),
        fetched
            .iter()
            .filter(|&&id| !first.wanted.contains(id))
            .count()
    );
    assert_eq!(
        fetched.len(),
        first.wanted.len(),
        "each wanted tile fetched once"
    );
    let shell = TileStream::for_source(&fake(), 1024, false).update(&c, 0.0, &fake());
    let fine = |f: &FrameResidency| f.wanted.tiles.iter().filter(|t| t.id.level > 9).count();
    assert!(
        fine(&shell) > 2 * fine(&first),
        "fine tiles: {} from the shell, {} measured",
        fine(&shell),
        fine(&first)
    );
}

fn count_fine(count: &dyn Fn(&FrameResidency, u8) -> usize, f: &FrameResidency) -> usize {
    (10..=12).map(|l| count(f, l)).sum()
}

fn geo(lat: f64, lon: f64, alt: f64, heading: f64) -> ViewCamera {
    ViewCamera::geo(
        lat,
        lon,
        Body::EARTH.radius + alt,
        heading,
        -30.0,
        60.0,
        640,
        360,
    )
}

/// Frames at `cam` every 0.1 s from `*now`, completing every request, until the view is
/// complete and nothing fades; asserts no frame is in a cut's window.
fn settle_without_cuts(r: &mut TileStream, src: &Manual, cam: &ViewCamera, now: &mut f64) {
    loop {
        src.complete_all(|_| {});
        let f = r.update(cam, *now, src);
        assert!(!f.report.cut_window, "no cut at {now}: {:?}", f.report);
        *now += 0.1;
        if f.report.pending == 0 && f.report.provisional == 0 && f.report.crossfading == 0 {
            return;
        }
        assert!(*now < 60.0, "never settled: {:?}", f.report);
    }
}

/// A teleport (found from the eye: the Alps at 30 km → the Khumbu at 30 km) opens a cut's
/// window: every arrival and replacement in it is at full weight on the frame it lands (so in
/// the first frame that draws it). The window closes on the frame the new view is first
/// complete; then an arrival (a turn on the spot wants new tiles) fades in over 0.5 s again.
#[test]
fn after_a_cut_arrivals_show_at_once_until_the_new_view_is_complete() {
    let src = manual();
    let mut r = TileStream::for_source(&src, 512, false);
    let mut now = 0.0;
    settle_without_cuts(&mut r, &src, &geo(46.5, 8.0, 30_000.0, 0.0), &mut now);
    let khumbu = geo(27.9, 86.9, 30_000.0, 0.0);
    let cut_at = now;
    let (mut arrivals, mut replacements) = (0, 0);
    let closed = loop {
        let f = r.update(&khumbu, now, &src);
        r.table().validate().expect("invariants");
        if !f.report.cut_window {
            break f;
        }
        for u in &f.uploads {
            assert_eq!(r.table().fade(u.slot, now), 1.0, "{} at {now}", u.tile);
            assert_eq!(r.table().xfade(u.slot, now), 1.0, "{} at {now}", u.tile);
            arrivals += !u.replaces as usize;
            replacements += u.replaces as usize;
        }
        // The window closes on the frame the view is complete, not later.
        let complete = f.report.pending == 0 && f.report.provisional == 0 && f.report.missing == 0;
        assert_eq!(r.in_cut_window(), !complete, "{:?}", f.report);
        src.complete_all(|_| {});
        now += 0.1;
        assert!(now - cut_at < STREAM_CUT_WINDOW_MAX_S, "{:?}", f.report);
    };
    assert!(
        arrivals > 20 && replacements > 0,
        "{arrivals} {replacements}"
    );
    assert!(closed.uploads.is_empty(), "the view was complete");
    // Fades resume: a turn on the spot (no cut) wants tiles that fade in over 0.5 s.
    let turned = geo(27.9, 86.9, 30_000.0, 180.0);
    r.update(&turned, now, &src);
    src.complete_all(|_| {});
    now += 0.1;
    let f = r.update(&turned, now, &src);
    assert!(!f.report.cut_window);
    let u = f.uploads.iter().find(|u| !u.replaces).expect("an arrival");
    let w: Vec<f64> = (0..=10)
        .map(|k| r.table().fade(u.slot, now + k as f64 * 0.05))
        .collect();
    assert_eq!(w[0], 0.0);
    assert!(w.windows(2).all(|p| p[1] > p[0]), "{w:?}");
    assert_eq!(w[10], 1.0);
}

/// A cut declared by the caller (`cut`) whose view never completes (nothing arrives) closes
/// after `STREAM_CUT_WINDOW_MAX_S`; what lands later fades.
#[test]
fn a_declared_cut_closes_after_its_bound() {
    let src = manual();
    let mut r = TileStream::for_source(&src, 512, false);
    let c = geo(46.5, 8.0, 30_000.0, 0.0);
    r.cut(0.0);
    let mut now = 0.0;
    while now < STREAM_CUT_WINDOW_MAX_S - 0.05 {
        assert!(r.update(&c, now, &src).report.cut_window, "open at {now}");
        now += 0.1;
    }
    now = STREAM_CUT_WINDOW_MAX_S;
    assert!(!r.update(&c, now, &src).report.cut_window);
    assert!(!r.in_cut_window());
    src.complete_all(|_| {});
    now += 0.1;
    let f = r.update(&c, now, &src);
    let u = f.uploads.first().expect("arrivals");
    assert!(r.table().fade(u.slot, now) < 1.0 || r.table().xfade(u.slot, now) < 1.0);
}

/// A flight without cuts never opens the window: the descent from 20,000 km to 2 m in 120
/// frames and a lateral flight at 1,000 m/s at 100 m, at 60 Hz; their arrivals fade.
#[test]
fn flights_never_open_a_cut_window() {
    let src = manual();
    let mut r = TileStream::for_source(&src, 1024, false);
    let mut now = 0.0;
    let mut faded = 0;
    let k = (2.0 / 2.0e7_f64).powf(1.0 / 120.0);
    let descent = (0..=120).map(|i| geo(27.9, 86.9, 2.0e7 * k.powi(i), 0.0));
    let step = (1_000.0 / 60.0 / (Body::EARTH.radius + 100.0)).to_degrees();
    let lateral = (0..120).map(|i| geo(27.9, 86.9 + step * i as f64, 100.0, 90.0));
    for c in descent.chain(lateral) {
        src.complete_all(|_| {});
        let f = r.update(&c, now, &src);
        assert!(!f.report.cut_window, "a cut at {now}");
        faded += f
            .uploads
            .iter()
            .filter(|u| !u.replaces && r.table().fade(u.slot, now) == 0.0)
            .count();
        now += 1.0 / 60.0;
    }
    assert!(faded > 100, "{faded} arrivals faded in");
}
