//! Contact events per pair of shapes (`World::shape_contact_events`): a body with several shapes
//! has an event for each shape that touches, destroyed shapes end their pairs with the handles
//! they had, and over a heap falling asleep the events follow the touching pairs exactly.

mod support;

use std::collections::BTreeSet;
use tenon::*;

const H: f64 = 1.0 / 60.0;

fn cube(half: f64) -> Geometry {
    Geometry::Box {
        half_extents: Vec3::new(half, half, half),
    }
}

/// A body with two 0.2 m feet 1 m apart, `gap` above a half-space (mass from its shapes).
fn two_feet(world: &mut World, gap: f64) -> (BodyHandle, [ShapeHandle; 2], ShapeHandle) {
    let (_, ground) = support::fixed(
        world,
        Vec3::zeros(),
        Geometry::HalfSpace { normal: Vec3::z() },
    );
    let b = world
        .create_body(&BodyDesc {
            position: Vec3::new(0.0, 0.0, 0.1 + gap),
            ..Default::default()
        })
        .unwrap();
    let foot = |world: &mut World, x: f64| {
        let mut d = ShapeDesc::new(cube(0.1));
        d.position = Vec3::new(x, 0.0, 0.0);
        world.create_shape(b, &d).unwrap()
    };
    let feet = [foot(world, -0.5), foot(world, 0.5)];
    world.set_body_mass_from_shapes(b).unwrap();
    (b, feet, ground)
}

/// The pair as the events give it: the shape of the lower slot first.
fn pair(a: ShapeHandle, b: ShapeHandle) -> (ShapeHandle, ShapeHandle) {
    if a.index < b.index { (a, b) } else { (b, a) }
}

#[test]
fn a_body_with_two_shapes_has_an_event_per_shape() {
    let mut world = World::default();
    let (b, feet, ground) = two_feet(&mut world, 0.05);
    let mut landed = false;
    for _ in 0..30 {
        world.step(H).unwrap();
        let ev = world.shape_contact_events();
        if ev.is_empty() {
            continue;
        }
        // both feet land flat in the same step; the body's pair begins once
        assert!(!landed, "{ev:?}");
        landed = true;
        let mut got: Vec<_> = ev
            .iter()
            .map(|e| (e.begin, (e.shape_a, e.shape_b), (e.body_a, e.body_b)))
            .collect();
        got.sort_by_key(|g| (g.1.0.index, g.1.1.index));
        let ground_body = world.shape_body(ground).unwrap();
        let want: Vec<_> = feet
            .iter()
            .map(|&f| {
                let (sa, sb) = pair(f, ground);
                let owner = |s: ShapeHandle| if s == ground { ground_body } else { b };
                (true, (sa, sb), (owner(sa), owner(sb)))
            })
            .collect();
        assert_eq!(got, want);
        assert_eq!(world.contact_events().len(), 1);
        assert!(world.contact_events()[0].begin);
    }
    assert!(landed, "the feet landed");
    // lifted off: both pairs end, the body's once
    world
        .set_body_pose(b, Vec3::new(0.0, 0.0, 3.0), Quat::identity())
        .unwrap();
    world.step(H).unwrap();
    let ev = world.shape_contact_events();
    assert_eq!(ev.len(), 2, "{ev:?}");
    assert!(ev.iter().all(|e| !e.begin));
    assert_eq!(world.contact_events().len(), 1);
    assert!(!world.contact_events()[0].begin);
}

/// A shape destroyed while it touches ends its pair in the next step, listed first, with the
/// handle it had, even when a new shape has taken its slot; destroying the body ends the pairs
/// of every shape on it.
#[test]
fn destroyed_shapes_end_their_pairs_with_the_handles_they_had() {
    let mut world = World::default();
    let (b, feet, ground) = two_feet(&mut world, 0.0);
    for _ in 0..10 {
        world.step(H).unwrap();
    }
    assert!(world.shape_contact_events().is_empty());
    assert_eq!(world.contacts().len(), 8);
    world.destroy_shape(feet[0]).unwrap();
    // a new foot in the freed slot, where the old one was: it touches at once
    let mut d = ShapeDesc::new(cube(0.1));
    d.position = Vec3::new(-0.5, 0.0, 0.0);
    let new_foot = world.create_shape(b, &d).unwrap();
    assert_eq!(new_foot.index, feet[0].index);
    assert_ne!(new_foot.generation, feet[0].generation);
    world.step(H).unwrap();
    let ev = world.shape_contact_events().to_vec();
    assert_eq!(ev.len(), 2, "{ev:?}");
    assert!(!ev[0].begin && (ev[0].shape_a == feet[0] || ev[0].shape_b == feet[0]));
    assert!(ev[1].begin && (ev[1].shape_a == new_foot || ev[1].shape_b == new_foot));
    assert!(!world.is_shape_valid(feet[0]));
    // the body touched throughout: no event of its own
    assert!(world.contact_events().is_empty());
    // the body destroyed: both its feet's pairs end, the body's pair once
    world.destroy_body(b).unwrap();
    world.step(H).unwrap();
    let ev = world.shape_contact_events();
    let mut ended: Vec<_> = ev
        .iter()
        .map(|e| {
            assert!(!e.begin && e.body_a.index != e.body_b.index);
            if e.shape_a == ground {
                e.shape_b
            } else {
                e.shape_a
            }
        })
        .collect();
    ended.sort_by_key(|s| s.index);
    let mut want = vec![new_foot, feet[1]];
    want.sort_by_key(|s| s.index);
    assert_eq!(ended, want);
    assert_eq!(world.contact_events().len(), 1);
}

/// Cubes, a compound and two-footed bodies dropped in a heap with sleep on: after every step,
/// the pairs the shape events have begun and not ended are exactly the pairs of shapes the
/// contacts touch, and the pairs of their bodies are the ones the body events say touch.
#[test]
fn shape_events_follow_the_touching_pairs_through_a_heap_falling_asleep() {
    let mut world = support::sleeping_world();
    let (_, _, _) = two_feet(&mut world, 0.6);
    for k in 0..12 {
        let x = Vec3::new(
            (k % 3) as f64 * 0.55 - 0.5,
            (k / 3 % 2) as f64 * 0.55,
            1.0 + k as f64 * 0.45,
        );
        support::shaped(&mut world, x, cube(0.2));
    }
    let compound = Geometry::Compound {
        parts: vec![
            (Vec3::new(-0.3, 0.0, 0.0), Quat::identity(), cube(0.15)),
            (
                Vec3::new(0.3, 0.0, 0.0),
                Quat::identity(),
                Geometry::Sphere { radius: 0.15 },
            ),
        ],
    };
    support::shaped(&mut world, Vec3::new(0.2, 0.3, 7.0), compound);
    let mut shapes_touching = BTreeSet::new();
    let mut bodies_touching = BTreeSet::new();
    let (mut events, mut asleep) = (0, 0);
    for step in 0..400 {
        world.step(H).unwrap();
        for e in world.shape_contact_events() {
            let key = (e.shape_a, e.shape_b);
            assert!(e.shape_a.index < e.shape_b.index, "{e:?}");
            assert_eq!(world.shape_body(e.shape_a).unwrap(), e.body_a);
            assert_eq!(world.shape_body(e.shape_b).unwrap(), e.body_b);
            if e.begin {
                assert!(
                    shapes_touching.insert(key),
                    "step {step}: {e:?} began twice"
                );
            } else {
                assert!(
                    shapes_touching.remove(&key),
                    "step {step}: {e:?} ended untouched"
                );
            }
            events += 1;
        }
        for e in world.contact_events() {
            let key = (e.body_a, e.body_b);
            if e.begin {
                assert!(bodies_touching.insert(key));
            } else {
                assert!(bodies_touching.remove(&key));
            }
        }
        // (a sleeping body's pairs stay touching, without contacts: compared where a body of
        // the pair is awake and dynamic)
        let awake = |b: &BodyHandle| {
            let body = world.body(*b).unwrap();
            body.kind() == BodyKind::Dynamic && body.is_awake()
        };
        let mut pairs = BTreeSet::new();
        let mut body_pairs = BTreeSet::new();
        for c in world.contacts() {
            pairs.insert(pair(c.shape_a.unwrap(), c.shape_b.unwrap()));
            body_pairs.insert((c.body_a, c.body_b));
        }
        let shape_awake = |&(a, b): &(ShapeHandle, ShapeHandle)| {
            awake(&world.shape_body(a).unwrap()) || awake(&world.shape_body(b).unwrap())
        };
        let seen: BTreeSet<_> = shapes_touching
            .iter()
            .copied()
            .filter(shape_awake)
            .collect();
        let pairs: BTreeSet<_> = pairs.into_iter().filter(shape_awake).collect();
        assert_eq!(seen, pairs, "step {step}");
        let body_awake =
            |(a, b): &(Option<BodyHandle>, BodyHandle)| a.as_ref().is_some_and(awake) || awake(b);
        let seen: BTreeSet<_> = bodies_touching.iter().copied().filter(body_awake).collect();
        let body_pairs: BTreeSet<_> = body_pairs.into_iter().filter(body_awake).collect();
        assert_eq!(seen, body_pairs, "step {step}");
        // and the sleeping ones' pairs are where they were: both touching sets hold them alike
        for &(a, b) in &shapes_touching {
            let (ba, bb) = (world.shape_body(a).unwrap(), world.shape_body(b).unwrap());
            assert!(
                bodies_touching.contains(&(Some(ba), bb))
                    || bodies_touching.contains(&(Some(bb), ba)),
                "step {step}: shapes {a:?} {b:?} touch, their bodies not"
            );
        }
        asleep = world.sleeping_body_count();
    }
    // (measured: 34 events)
    assert!(asleep >= 12, "{asleep} bodies asleep");
    assert!(events >= 25, "{events} events");
    assert!(shapes_touching.len() > bodies_touching.len());
}
