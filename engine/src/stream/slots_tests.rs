//! Slot-table tests: the eviction rules on a hand-built case, then every invariant along a
//! scripted flight (orbit → ground, a fast turn, back up) with a table smaller than the demand.

use super::*;
use crate::camera::ViewCamera;
use crate::planet::{Body, Face};
use crate::stream::wanted::{wanted_set, WantedParams, WantedTile};

fn want(ids: &[TileId]) -> WantedSet {
    // Priorities fall with level so parents come first, as in a walked set.
    let tiles = ids
        .iter()
        .map(|&id| WantedTile {
            id,
            priority: 100.0 - id.level as f64,
            screen_error: 1.0,
            view_weight: 1.0,
            target_level: id.level,
            target: true,
        })
        .collect();
    WantedSet::from_tiles(tiles, usize::MAX)
}

/// Plans, lands every load (in plan order, parents first) and validates.
fn frame(t: &mut SlotTable, w: &WantedSet, now: f64) -> Plan {
    let plan = t.plan(w);
    for l in &plan.loads {
        assert_eq!(t.mark_resident(l.tile, now), Ok(l.slot));
    }
    t.validate().expect("invariants");
    plan
}

#[test]
fn evicts_least_recently_wanted_leaves_only_as_needed() {
    let a = TileId::new(0, Face(0), 0, 0);
    let [a0, a1, ..] = a.children();
    let g = a0.children()[3];
    let b = TileId::new(0, Face(1), 0, 0);
    let b0 = b.children()[0];
    let mut t = SlotTable::new(5);
    assert_eq!(t.page_count(), 5 + 64);
    let p = frame(&mut t, &want(&[a, a0, a1, g]), 0.0);
    assert_eq!(p.loads.len(), 4);
    assert_eq!(t.parent_slot(g), t.slot_of(a0));
    assert_eq!(t.parent_slot(a), None);
    // Frame 2 still wants a1 only of that tree: b fits in the free slot, nothing evicted.
    let p = frame(&mut t, &want(&[a, a1, b]), 1.0);
    assert_eq!((p.loads.len(), p.evictions.len()), (1, 0));
    // Frame 3 wants b's child too: one eviction. a0 and g were both last wanted in frame 1,
    // a0 has a child in the table, so g (the leaf) goes — not a0, never a (wanted).
    let p = frame(&mut t, &want(&[a, a1, b, b0]), 2.0);
    assert_eq!(p.evictions.len(), 1);
    assert_eq!(p.evictions[0].tile, g);
    assert!(p.evictions[0].was_resident);
    // The freed slot and page are reused by the load.
    assert_eq!(
        (p.loads[0].slot, p.loads[0].page),
        (p.evictions[0].slot, p.evictions[0].page)
    );
    // Frame 4 drops a's tree; a new root's child needs a slot: a0 (least recently wanted,
    // now a leaf) goes before a1 (wanted in frame 3).
    let c = TileId::new(0, Face(2), 0, 0);
    let p = frame(&mut t, &want(&[b, b0, c]), 3.0);
    assert_eq!(
        p.evictions.iter().map(|e| e.tile).collect::<Vec<_>>(),
        vec![a0]
    );
    // A table full of wanted tiles evicts nothing and reports what is missing; the child
    // whose parent found no slot is not loaded either.
    let d = TileId::new(0, Face(3), 0, 0);
    let p = frame(&mut t, &want(&[b, b0, c, a, a1, d, d.children()[0]]), 4.0);
    assert!(p.evictions.is_empty());
    assert_eq!(p.missing, 2);
    assert_eq!(t.state_of(d), SlotState::Empty);
}

#[test]
fn a_requested_tile_no_longer_wanted_gives_its_slot_back_at_once() {
    let a = TileId::new(0, Face(0), 0, 0);
    let [a0, a1, ..] = a.children();
    let g = a0.children()[3];
    let mut t = SlotTable::new(16);
    let p = t.plan(&want(&[a, a0, a1, g]));
    assert_eq!(p.loads.len(), 4);
    assert_eq!(t.mark_resident(a, 0.0), Ok(t.slot_of(a).unwrap()));
    // The next view wants a and a1 only: a0 and its child g are released though the table
    // has room (their payloads never came), finer first; a1 stays requested.
    let p = t.plan(&want(&[a, a1]));
    t.validate().expect("invariants");
    assert_eq!(
        p.evictions.iter().map(|e| e.tile).collect::<Vec<_>>(),
        vec![g, a0]
    );
    assert!(p.evictions.iter().all(|e| !e.was_resident));
    assert_eq!(t.count(SlotState::Requested), 1);
    assert_eq!(t.state_of(a1), SlotState::Requested);
    // A resident tile no longer wanted stays (a cache) while the table has room.
    let p = t.plan(&want(&[TileId::new(0, Face(1), 0, 0)]));
    assert_eq!(
        p.evictions.iter().map(|e| e.tile).collect::<Vec<_>>(),
        vec![a1]
    );
    assert_eq!(t.state_of(a), SlotState::Resident);
}

#[test]
fn resident_needs_a_resident_parent_and_fades_in() {
    let a = TileId::new(0, Face(4), 0, 0);
    let c = a.children()[2];
    let mut t = SlotTable::new(4);
    let p = t.plan(&want(&[a, c]));
    assert_eq!(p.loads.len(), 2);
    assert_eq!(t.state_of(c), SlotState::Requested);
    assert_eq!(
        t.mark_resident(c, 1.0),
        Err(SlotError::ParentNotResident(c))
    );
    let s = t.mark_resident(a, 1.0).expect("root");
    assert_eq!(t.mark_resident(a, 1.0), Err(SlotError::NotRequested(a)));
    assert_eq!(t.fade(s, 1.0), 0.0);
    assert_eq!(t.fade(s, 1.25), 0.5); // half of the 0.5 s fade
    assert_eq!(t.fade(s, 9.0), 1.0);
    t.validate()
        .expect("requested child under a resident parent is fine");
    assert_eq!(t.resident().len(), 1);
    assert_eq!(t.entries().len(), 2);
}

/// Orbit → ground over the Alps, a 180° turn in four frames, back up to orbit.
fn flight() -> Vec<ViewCamera> {
    let r = Body::EARTH.radius;
    let (lat, lon, ground) = (46.5, 8.0, 3_000.0);
    let mut out = vec![];
    let n = 20;
    for k in 0..=n {
        let f = k as f64 / n as f64;
        // Altitude above ground, geometric from 20,000 km to 2 m; pitch from nadir to level.
        let agl = 2e7 * (2.0 / 2e7_f64).powf(f);
        out.push(ViewCamera::geo(
            lat,
            lon,
            r + ground + agl,
            0.0,
            -90.0 + 90.0 * f,
            60.0,
            960,
            540,
        ));
    }
    for k in 1..=4 {
        out.push(ViewCamera::geo(
            lat,
            lon,
            r + ground + 2.0,
            45.0 * k as f64,
            0.0,
            60.0,
            960,
            540,
        ));
    }
    for k in 1..=n {
        let f = k as f64 / n as f64;
        let agl = 2.0 * (2e7 / 2.0_f64).powf(f);
        out.push(ViewCamera::geo(
            lat,
            lon,
            r + ground + agl,
            180.0,
            -90.0 * f,
            60.0,
            960,
            540,
        ));
    }
    out
}

#[test]
fn invariants_hold_along_a_flight_with_a_table_smaller_than_the_demand() {
    // The demand is sized for 1,024 slots, the table has 40: exhaustion all the way down.
    let params = WantedParams {
        finest_level: 12,
        ..WantedParams::default()
    };
    let mut t = SlotTable::new(40);
    let mut starved = 0;
    for (k, cam) in flight().iter().enumerate() {
        let w = wanted_set(cam, Body::EARTH, &params);
        let plan = frame(&mut t, &w, k as f64);
        assert!(t.occupied() <= 40 && t.free_pages() >= 64);
        // Evictions: never a wanted tile, never an ancestor of a tile left in the table, and
        // only when no slot was free (each one is taken by a load).
        assert!(plan.evictions.len() <= plan.loads.len());
        for e in &plan.evictions {
            assert!(!w.contains(e.tile));
            for r in t.entries() {
                let mut up = r.tile.parent();
                while let Some(p) = up {
                    assert_ne!(p, e.tile, "frame {k}: evicted an ancestor of {}", r.tile);
                    up = p.parent();
                }
            }
        }
        if !plan.evictions.is_empty() {
            assert_eq!(t.occupied(), 40);
        }
        // Loads follow the wanted order (parents first).
        let order: Vec<usize> = plan
            .loads
            .iter()
            .map(|l| w.tiles.iter().position(|x| x.id == l.tile).expect("wanted"))
            .collect();
        assert!(order.windows(2).all(|p| p[0] < p[1]));
        // Exhaustion degrades to coarser tiles: every wanted tile is resident or has a resident
        // ancestor, and the visible roots always are.
        for wt in &w.tiles {
            let mut up = Some(wt.id);
            while up.is_some_and(|u| t.state_of(u) != SlotState::Resident) {
                up = up.and_then(|u| u.parent());
            }
            assert!(
                up.is_some(),
                "frame {k}: {} has no resident ancestor",
                wt.id
            );
            if wt.id.level == 0 {
                assert_eq!(t.state_of(wt.id), SlotState::Resident);
            }
        }
        starved += (plan.missing > 0) as usize;
    }
    assert!(
        starved > 10,
        "the table should run out on most ground frames ({starved})"
    );
}

#[test]
fn the_flight_fits_a_full_table_and_plans_are_deterministic() {
    let params = WantedParams {
        finest_level: 12,
        slots: 1024,
        ..WantedParams::default()
    };
    let run = || {
        let mut t = SlotTable::new(1024);
        let mut plans = vec![];
        for (k, cam) in flight().iter().enumerate() {
            let w = wanted_set(cam, Body::EARTH, &params);
            let p = frame(&mut t, &w, k as f64);
            // Within 75 % of the table every wanted tile gets its slot.
            assert_eq!(p.missing, 0);
            assert!(t.occupied() <= 1024);
            plans.push(p);
        }
        (plans, t.entries())
    };
    assert_eq!(run(), run());
}
