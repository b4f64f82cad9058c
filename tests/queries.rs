//! Scene queries: all of a ray's hits, the shapes in a box, the shapes a solid shape overlaps,
//! and a solid shape swept along a line, against every kind of shape, with filters, limits,
//! moving bodies and bad input.

use tenon::*;

mod support;
use support::{beside_cell_edges, flat_height_field};

const ALL: CollisionFilter = CollisionFilter {
    group: 1,
    mask: u32::MAX,
};

fn ball(radius: f64) -> Geometry {
    Geometry::Sphere { radius }
}

fn cube(half: f64) -> Geometry {
    Geometry::Box {
        half_extents: Vec3::new(half, half, half),
    }
}

/// The first shape `g` at (`at`, `q`) meets swept along `dir` up to `max`, any filter.
fn sweep(
    world: &mut World,
    g: &Geometry,
    at: Vec3,
    q: Quat,
    dir: Vec3,
    max: f64,
) -> Option<ShapeCastHit> {
    world.cast_shape(g, at, q, dir, max, ALL).unwrap()
}

/// As [`sweep`], for a sweep that must meet a shape.
fn meets(world: &mut World, g: &Geometry, at: Vec3, q: Quat, dir: Vec3, max: f64) -> ShapeCastHit {
    sweep(world, g, at, q, dir, max)
        .unwrap_or_else(|| panic!("{g:?} from {at:?} along {dir:?}: no hit"))
}

/// A static body with one shape; its shape's handle.
fn fixed(world: &mut World, at: Vec3, rotation: Quat, g: Geometry) -> ShapeHandle {
    let b = world
        .create_body(&BodyDesc {
            kind: BodyKind::Static,
            position: at,
            rotation,
            ..Default::default()
        })
        .unwrap();
    world.create_shape(b, &ShapeDesc::new(g)).unwrap()
}

/// A static ground: the half-space below z; its shape's handle.
fn ground(world: &mut World, z: f64) -> ShapeHandle {
    let up = Geometry::HalfSpace { normal: Vec3::z() };
    fixed(world, Vec3::new(0.0, 0.0, z), Quat::identity(), up)
}

/// A flat mesh square of side 2 at the origin of its body (z = 0).
fn square_mesh() -> Geometry {
    Geometry::TriMesh {
        vertices: vec![
            Vec3::new(-1.0, -1.0, 0.0),
            Vec3::new(1.0, -1.0, 0.0),
            Vec3::new(1.0, 1.0, 0.0),
            Vec3::new(-1.0, 1.0, 0.0),
        ],
        indices: vec![[0, 1, 2], [0, 2, 3]],
    }
}

/// A flat height field of 4 x 4 m at z = 0 of its body.
fn flat_field() -> Geometry {
    Geometry::HeightField {
        rows: 3,
        cols: 3,
        heights: vec![0.0; 9],
        scale: Vec3::new(4.0, 4.0, 1.0),
    }
}

/// A ray along +x through a row of shapes of every kind meets each once, nearest first, where
/// `cast_ray` would meet it; the limit and the filter cut the list; the hits' vector is reused.
#[test]
fn a_ray_lists_every_shape_it_meets_nearest_first() {
    let mut world = World::default();
    let ground = fixed(
        &mut world,
        Vec3::new(0.0, 0.0, -1.0),
        Quat::identity(),
        Geometry::HalfSpace {
            normal: Vec3::new(1.0, 0.0, 1.0),
        },
    );
    let q = Quat::identity();
    // (centre x, shape, where the ray along +x at y = 0.1, z = 0.2 meets it)
    let rows = [
        (2.0, cube(0.5), 1.5),
        (5.0, ball(0.5), 5.0 - (0.25f64 - 0.05).sqrt()),
        (
            8.0,
            Geometry::Capsule {
                half_height: 0.5,
                radius: 0.25,
            },
            8.0 - (0.0625f64 - 0.01).sqrt(),
        ),
        (
            11.0,
            Geometry::Cylinder {
                half_height: 0.5,
                radius: 0.25,
            },
            11.0 - (0.0625f64 - 0.01).sqrt(),
        ),
    ];
    let mut shapes = Vec::new();
    for (x, g, _) in &rows {
        shapes.push(fixed(&mut world, Vec3::new(*x, 0.0, 0.0), q, g.clone()));
    }
    // a mesh standing across the ray at x = 14 (turned to face -x)
    let upright = Quat::from_axis_angle(&Vec3::y_axis(), std::f64::consts::FRAC_PI_2);
    let mesh = fixed(
        &mut world,
        Vec3::new(14.0, 0.0, 0.0),
        upright,
        square_mesh(),
    );
    let origin = Vec3::new(0.0, 0.1, 0.2);
    let mut hits = Vec::new();
    world
        .cast_ray_all(origin, 2.0 * Vec3::x(), f64::INFINITY, ALL, &mut hits)
        .unwrap();
    // the tilted half-space x + z <= -1 is behind: the ray starts outside it going away
    let want: Vec<(ShapeHandle, f64)> = (shapes.iter().zip(&rows))
        .map(|(s, r)| (*s, r.2))
        .chain([(mesh, 14.0)])
        .collect();
    assert_eq!(hits.len(), want.len(), "{hits:?}");
    for (h, (s, d)) in hits.iter().zip(&want) {
        assert_eq!(h.shape, *s);
        assert!((h.distance - d).abs() < 1e-9, "{} against {d}", h.distance);
        assert!((h.point - (origin + *d * Vec3::x())).norm() < 1e-9);
        assert!(h.normal.x < 0.0 && (h.normal.norm() - 1.0).abs() < 1e-12);
        assert_eq!(world.shape_body(h.shape).unwrap(), h.body);
    }
    let first = world
        .cast_ray(origin, Vec3::x(), f64::INFINITY, ALL)
        .unwrap()
        .unwrap();
    assert_eq!(first, hits[0]);
    // back along -x from x = 20: the same shapes in the reverse order, then the half-space
    world
        .cast_ray_all(
            Vec3::new(20.0, 0.1, 0.2),
            -Vec3::x(),
            f64::INFINITY,
            ALL,
            &mut hits,
        )
        .unwrap();
    let order: Vec<ShapeHandle> = hits.iter().map(|h| h.shape).collect();
    let mut back: Vec<ShapeHandle> = want.iter().rev().map(|w| w.0).collect();
    back.push(ground);
    assert_eq!(order, back);
    let last = hits.last().unwrap();
    assert!((last.distance - 21.2).abs() < 1e-9, "{}", last.distance);
    // a limit at the box's face (exactly) keeps it, a nanometre short of the ball drops the
    // ball, a nanometre past keeps it; a filter its group fails drops it
    for (max, n) in [(1.5, 1), (rows[1].2 - 1e-9, 1), (rows[1].2 + 1e-9, 2)] {
        world
            .cast_ray_all(origin, Vec3::x(), max, ALL, &mut hits)
            .unwrap();
        assert_eq!(hits.len(), n, "{max}");
    }
    world
        .set_shape_filter(
            shapes[1],
            CollisionFilter {
                group: 2,
                mask: u32::MAX,
            },
        )
        .unwrap();
    let no_two = CollisionFilter { group: 1, mask: !2 };
    world
        .cast_ray_all(origin, Vec3::x(), 100.0, no_two, &mut hits)
        .unwrap();
    assert_eq!(hits.len(), 4);
    assert!(hits.iter().all(|h| h.shape != shapes[1]));
    // a ray starting inside the box meets it at 0, its normal the ray's reverse
    world
        .cast_ray_all(Vec3::new(2.0, 0.0, 0.0), Vec3::x(), 2.4, ALL, &mut hits)
        .unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!((hits[0].shape, hits[0].distance), (shapes[0], 0.0));
    assert_eq!(hits[0].normal, -Vec3::x());
    // bad rays change nothing
    let before = hits.clone();
    for (o, d, max, kind) in [
        (
            Vec3::new(f64::NAN, 0.0, 0.0),
            Vec3::x(),
            1.0,
            ErrorKind::NonFinite,
        ),
        (origin, Vec3::zeros(), 1.0, ErrorKind::InvalidArgument),
        (origin, Vec3::x(), -1.0, ErrorKind::InvalidArgument),
        (origin, Vec3::x(), f64::NAN, ErrorKind::NonFinite),
    ] {
        let e = world.cast_ray_all(o, d, max, ALL, &mut hits).unwrap_err();
        assert_eq!(e.kind, kind, "{e}");
        assert_eq!(hits, before);
    }
}

/// Balls on a grid of 2 m: a box query lists the balls whose boxes it overlaps (touching
/// counts), the ground half-space when it reaches below it; a sphere query lists the balls it
/// truly overlaps, to a micrometre.
#[test]
fn box_and_shape_overlaps_list_the_shapes_they_reach() {
    let mut world = World::default();
    let ground = ground(&mut world, 0.0);
    let mut grid = Vec::new();
    for i in 0..10 {
        for j in 0..10 {
            let at = Vec3::new(2.0 * f64::from(i), 2.0 * f64::from(j), 1.0);
            grid.push(fixed(&mut world, at, Quat::identity(), ball(0.5)));
        }
    }
    let at = |i: usize, j: usize| grid[10 * i + j];
    let mut found = Vec::new();
    // a box from (1.5, 1.5, 1) to (4.5, 2.5, 3): the boxes of balls (1, 1) (x and y from 1.5
    // to 2.5: touching counts) and (2, 1) (x from 3.5 to 4.5)
    world
        .overlap_aabb(
            Vec3::new(1.5, 1.5, 1.0),
            Vec3::new(4.5, 2.5, 3.0),
            ALL,
            &mut found,
        )
        .unwrap();
    assert_eq!(found, vec![at(1, 1), at(2, 1)]);
    // down to z = 0: the ground too; to z = 0.0 exactly the box touches its surface
    world
        .overlap_aabb(
            Vec3::new(-0.1, -0.1, 0.0),
            Vec3::new(0.1, 0.1, 0.4),
            ALL,
            &mut found,
        )
        .unwrap();
    assert_eq!(found, vec![ground]);
    world
        .overlap_aabb(
            Vec3::new(-0.1, -0.1, 0.01),
            Vec3::new(0.1, 0.1, 0.6),
            ALL,
            &mut found,
        )
        .unwrap();
    assert_eq!(found, vec![at(0, 0)]);
    // a box query at the corner gap between four balls lists all four (their boxes reach it),
    // a box shape there overlaps none of them
    let (lo, hi) = (Vec3::new(0.6, 0.6, 1.4), Vec3::new(1.4, 1.4, 1.45));
    world.overlap_aabb(lo, hi, ALL, &mut found).unwrap();
    assert_eq!(found.len(), 0, "{found:?}");
    let (lo, hi) = (Vec3::new(0.4, 0.4, 1.4), Vec3::new(1.6, 1.6, 1.45));
    world.overlap_aabb(lo, hi, ALL, &mut found).unwrap();
    assert_eq!(found, vec![at(0, 0), at(0, 1), at(1, 0), at(1, 1)]);
    let slab = Geometry::Box {
        half_extents: (hi - lo) / 2.0,
    };
    world
        .overlap_shape(&slab, (hi + lo) / 2.0, Quat::identity(), ALL, &mut found)
        .unwrap();
    assert_eq!(found, vec![]);
    // a sphere of radius 3.4 at ball (4, 4)'s centre: the 9 balls within 3.9 m of it, and the
    // ground (it reaches z = -2.4)
    let centre = Vec3::new(8.0, 8.0, 1.0);
    let within = |r: f64| -> Vec<ShapeHandle> {
        let mut v: Vec<ShapeHandle> = (0..100)
            .filter(|k| {
                let p = Vec3::new(2.0 * (k / 10) as f64, 2.0 * (k % 10) as f64, 1.0);
                (p - centre).norm() <= r + 0.5
            })
            .map(|k| grid[k])
            .collect();
        v.push(ground);
        v.sort();
        v
    };
    world
        .overlap_shape(&ball(3.4), centre, Quat::identity(), ALL, &mut found)
        .unwrap();
    assert_eq!(found, within(3.4));
    assert_eq!(found.len(), 1 + 9, "{}", found.len());
    // ball (6, 4) is 4 m away: touched by a radius of 3.5 + 1e-6, not by 3.5 - 1e-6
    for (r, touches) in [(3.5 - 1e-6, false), (3.5 + 1e-6, true)] {
        world
            .overlap_shape(
                &ball(r),
                Vec3::new(4.0, 8.0, 1.0),
                Quat::identity(),
                ALL,
                &mut found,
            )
            .unwrap();
        assert_eq!(found.contains(&at(4, 4)), touches, "radius {r}");
    }
    // a filter drops the ground
    let no_ground = CollisionFilter { group: 1, mask: 1 };
    world
        .set_shape_filter(
            ground,
            CollisionFilter {
                group: 4,
                mask: u32::MAX,
            },
        )
        .unwrap();
    world
        .overlap_shape(&ball(3.4), centre, Quat::identity(), no_ground, &mut found)
        .unwrap();
    assert_eq!(found.len(), 9);
    assert!(!found.contains(&ground));
}

/// A shape query meets meshes, height fields and half-spaces at their surfaces; a compound
/// query is the union of its parts; a capsule turned by its rotation reaches along it.
#[test]
fn shape_overlaps_against_every_kind_of_shape() {
    let mut world = World::default();
    let mesh = fixed(&mut world, Vec3::zeros(), Quat::identity(), square_mesh());
    let field = fixed(
        &mut world,
        Vec3::new(10.0, 0.0, 0.0),
        Quat::identity(),
        flat_field(),
    );
    let ground = ground(&mut world, -5.0);
    let hull = fixed(
        &mut world,
        Vec3::new(20.0, 0.0, 0.0),
        Quat::identity(),
        Geometry::ConvexHull {
            points: vec![
                Vec3::new(-0.5, -0.5, 0.0),
                Vec3::new(0.5, -0.5, 0.0),
                Vec3::new(0.0, 0.5, 0.0),
                Vec3::new(0.0, 0.0, 1.0),
            ],
        },
    );
    let id = Quat::identity();
    let mut found = Vec::new();
    let mut check = |world: &mut World, g: &Geometry, at: Vec3, q: Quat, want: &[ShapeHandle]| {
        world.overlap_shape(g, at, q, ALL, &mut found).unwrap();
        assert_eq!(found, want, "{g:?} at {at:?}");
    };
    // a ball 1e-6 above the mesh, the field and the ground, then 1e-6 into them
    for (x, z, s) in [(0.3, 0.0, mesh), (10.5, 0.0, field), (30.0, -5.0, ground)] {
        check(
            &mut world,
            &ball(0.25),
            Vec3::new(x, 0.2, z + 0.25 + 1e-6),
            id,
            &[],
        );
        check(
            &mut world,
            &ball(0.25),
            Vec3::new(x, 0.2, z + 0.25 - 1e-6),
            id,
            &[s],
        );
    }
    // the hull's apex at (20, 0, 1): a cube below it by 1e-6, then touching it
    check(
        &mut world,
        &cube(0.5),
        Vec3::new(20.0, 0.0, 1.5 + 1e-6),
        id,
        &[],
    );
    check(
        &mut world,
        &cube(0.5),
        Vec3::new(20.0, 0.0, 1.5 - 1e-6),
        id,
        &[hull],
    );
    // a compound of two balls 10 m apart, over the mesh and the field
    let pair = Geometry::Compound {
        parts: vec![
            (Vec3::new(-5.0, 0.0, 0.0), id, ball(0.25)),
            (Vec3::new(5.0, 0.0, 0.0), id, ball(0.25)),
        ],
    };
    check(
        &mut world,
        &pair,
        Vec3::new(5.0, 0.0, 0.2),
        id,
        &[mesh, field],
    );
    check(&mut world, &pair, Vec3::new(5.0, 0.0, 0.3), id, &[]);
    // turned a quarter about y, the pair stands along z: its lower ball on the mesh
    let quarter = Quat::from_axis_angle(&Vec3::y_axis(), std::f64::consts::FRAC_PI_2);
    check(
        &mut world,
        &pair,
        Vec3::new(0.0, 0.0, 5.2),
        quarter,
        &[mesh],
    );
    // a capsule of half height 2 along z: standing, its lower end ball reaches 0.05 m into
    // the mesh from z = 2.2; laid along x by the same turn at z = 0.2, its end ball's centre
    // over the mesh's edge x = 1 reaches into it, 0.25 m further out it is 0.32 m from the edge
    let capsule = Geometry::Capsule {
        half_height: 2.0,
        radius: 0.25,
    };
    check(&mut world, &capsule, Vec3::new(0.0, 0.0, 2.2), id, &[mesh]);
    check(&mut world, &capsule, Vec3::new(0.0, 0.0, 2.3), id, &[]);
    check(
        &mut world,
        &capsule,
        Vec3::new(3.0 - 1e-6, 0.0, 0.2),
        quarter,
        &[mesh],
    );
    check(
        &mut world,
        &capsule,
        Vec3::new(3.25, 0.0, 0.2),
        quarter,
        &[],
    );
}

/// A shape swept along a line stops at the first shape it meets: a ball dropped on the ground,
/// a box slid into a wall, a capsule slid into a mesh wall and over a height field, with the
/// distance, the point and the normal of the contact; a limit and a filter let it pass. A shape
/// it overlaps or touches where it starts is met at 0 if it moves into it, and passed by if it
/// moves away or along it.
#[test]
fn a_swept_shape_stops_at_the_first_shape_it_meets() {
    let mut world = World::default();
    let ground = ground(&mut world, 0.0);
    let wall = fixed(
        &mut world,
        Vec3::new(5.0, 0.0, 2.0),
        Quat::identity(),
        Geometry::Box {
            half_extents: Vec3::new(0.5, 3.0, 2.0),
        },
    );
    let upright = Quat::from_axis_angle(&Vec3::y_axis(), std::f64::consts::FRAC_PI_2);
    let mesh_wall = fixed(
        &mut world,
        Vec3::new(-5.0, 0.0, 1.0),
        upright,
        square_mesh(),
    );
    let field = fixed(
        &mut world,
        Vec3::new(0.0, 20.0, 0.5),
        Quat::identity(),
        flat_field(),
    );
    let id = Quat::identity();
    let tol = 1e-9;
    let close = |a: Vec3, b: Vec3| (a - b).norm() < tol;
    let mut worst: f64 = 0.0;
    let mut err = |d: f64, want: f64| {
        worst = worst.max((d - want).abs());
        (d - want).abs() < tol
    };
    // a ball of 0.5 m dropped from z = 10 lands at 9.5 m, touching at (1, 2, 0)
    let hit = meets(
        &mut world,
        &ball(0.5),
        Vec3::new(1.0, 2.0, 10.0),
        id,
        -Vec3::z(),
        100.0,
    );
    assert_eq!(hit.shape, ground);
    assert!(err(hit.distance, 9.5), "{}", hit.distance);
    assert!(
        close(hit.point, Vec3::new(1.0, 2.0, 0.0)),
        "{:?}",
        hit.point
    );
    assert!(close(hit.normal, Vec3::z()), "{:?}", hit.normal);
    // a cube of 0.5 slid along +x at z = 1 meets the wall's face x = 4.5 after 3 m
    let hit = meets(
        &mut world,
        &cube(0.5),
        Vec3::new(1.0, 0.0, 1.0),
        id,
        Vec3::x(),
        100.0,
    );
    assert_eq!(hit.shape, wall);
    assert!(err(hit.distance, 3.0), "{}", hit.distance);
    assert!((hit.point.x - 4.5).abs() < tol && close(hit.normal, -Vec3::x()));
    // turned 45 degrees about z, its edge leads: it meets the face after 4 - 0.5 sqrt(2) m
    let diagonal = Quat::from_axis_angle(&Vec3::z_axis(), std::f64::consts::FRAC_PI_4);
    let hit = meets(
        &mut world,
        &cube(0.5),
        Vec3::new(0.0, 0.0, 1.0),
        diagonal,
        Vec3::x(),
        100.0,
    );
    let d = 4.5 - 0.5 * 2f64.sqrt();
    assert!(
        (hit.distance - d).abs() < tol,
        "{} against {d}",
        hit.distance
    );
    assert!(
        close(hit.point, Vec3::new(4.5, 0.0, hit.point.z)),
        "{:?}",
        hit.point
    );
    // a standing capsule (radius 0.3) slid along -x meets the mesh wall at x = -5 after 4.7 m
    let capsule = Geometry::Capsule {
        half_height: 0.4,
        radius: 0.3,
    };
    let hit = meets(
        &mut world,
        &capsule,
        Vec3::new(0.0, 0.0, 1.0),
        id,
        -Vec3::x(),
        100.0,
    );
    assert_eq!(hit.shape, mesh_wall);
    assert!(err(hit.distance, 4.7), "{}", hit.distance);
    assert!(close(hit.normal, Vec3::x()), "{:?}", hit.normal);
    // dropped on the height field (surface z = 0.5): lands after 10 - 0.5 - 0.7 m
    let hit = meets(
        &mut world,
        &capsule,
        Vec3::new(0.5, 20.5, 10.0),
        id,
        -Vec3::z(),
        100.0,
    );
    assert_eq!(hit.shape, field);
    assert!(err(hit.distance, 8.8), "{}", hit.distance);
    assert!(close(hit.normal, Vec3::z()), "{:?}", hit.normal);
    // a limit exactly at the wall meets it; short of it, nothing; a filter passes the wall by
    // and the sweep goes on to nothing (along +x at z = 1 there is only the wall)
    let slide = |world: &mut World, max: f64, filter: CollisionFilter| {
        world
            .cast_shape(
                &cube(0.5),
                Vec3::new(1.0, 0.0, 1.0),
                id,
                Vec3::x(),
                max,
                filter,
            )
            .unwrap()
    };
    assert_eq!(slide(&mut world, 3.0 + 1e-9, ALL).unwrap().shape, wall);
    assert_eq!(slide(&mut world, 3.0 - 1e-6, ALL), None);
    world
        .set_shape_filter(
            wall,
            CollisionFilter {
                group: 2,
                mask: u32::MAX,
            },
        )
        .unwrap();
    assert_eq!(
        slide(&mut world, 100.0, CollisionFilter { group: 1, mask: 1 }),
        None
    );
    // a ball starting 0.1 m into the ground meets it at 0 moving down (the ground's normal);
    // moving up or along the ground it leaves it or runs along it: nothing met
    let sunk = Vec3::new(40.0, 0.0, 0.4);
    let hit = meets(&mut world, &ball(0.5), sunk, id, -Vec3::z(), 10.0);
    assert_eq!((hit.shape, hit.distance), (ground, 0.0));
    assert!(close(hit.normal, Vec3::z()), "{:?}", hit.normal);
    for dir in [Vec3::z(), Vec3::x(), Vec3::new(1.0, 1.0, 0.0)] {
        let free = sweep(&mut world, &ball(0.5), sunk, id, dir, 10.0);
        assert_eq!(free, None, "{dir:?}");
    }
    // a cube resting on the ground (touching it) slides along it into the wall after 3 m, and
    // one ten degrees down meets the ground at once
    let resting = Vec3::new(1.0, 0.0, 0.5);
    let hit = meets(&mut world, &cube(0.5), resting, id, Vec3::x(), 100.0);
    assert_eq!(hit.shape, wall);
    assert!(err(hit.distance, 3.0), "{}", hit.distance);
    let down = Vec3::new(1.0, 0.0, -(10f64.to_radians().tan()));
    let hit = meets(&mut world, &cube(0.5), resting, id, down, 100.0);
    assert_eq!((hit.shape, hit.distance), (ground, 0.0));
    // a cube touching the wall meets it at once moving into it, and moving along it or away
    // does not (away, it meets the mesh wall after 8.5 m)
    let touching = Vec3::new(4.0, 0.0, 1.0);
    let hit = meets(&mut world, &cube(0.5), touching, id, Vec3::x(), 100.0);
    assert_eq!((hit.shape, hit.distance), (wall, 0.0));
    assert!(close(hit.normal, -Vec3::x()), "{:?}", hit.normal);
    let along = world.cast_shape(&cube(0.5), touching, id, Vec3::y(), 100.0, ALL);
    assert_eq!(along.unwrap(), None);
    let hit = meets(&mut world, &cube(0.5), touching, id, -Vec3::x(), 100.0);
    assert_eq!(hit.shape, mesh_wall);
    assert!(err(hit.distance, 8.5), "{}", hit.distance);
    // the capsule standing on the height field (touching it) slides along it
    let standing = Vec3::new(0.0, 20.0, 0.5 + 0.7);
    let slide = world.cast_shape(&capsule, standing, id, Vec3::x(), 1.0, ALL);
    assert_eq!(slide.unwrap(), None);
    println!("sweeps: largest distance error {worst:.1e} m");
}

/// A capsule standing on a floor of 200 mesh triangles slides across their inner edges without
/// being stopped (touching the floor, 1 nm above it, 0.1 mm into it; along x and diagonally),
/// as over a height field and from one box onto the next, and stops where its lower ball meets
/// the edge of a step 0.2 m high:
/// 7.3 - sqrt(0.3^2 - 0.1^2) m from where it started (within 1e-8 m, its normal within 1e-5:
/// parry's sweeps of rounded shapes end within about 4e-9 m of the contact).
#[test]
fn a_swept_capsule_slides_over_a_mesh_floor_and_stops_at_a_step() {
    let mut world = World::default();
    let n = 10;
    let mut vertices = Vec::new();
    let mut indices = Vec::new();
    for j in 0..=n {
        for i in 0..=n {
            vertices.push(Vec3::new(f64::from(i) - 5.0, f64::from(j) - 5.0, 0.0));
        }
    }
    let at = |i: u32, j: u32| j * (n + 1) + i;
    for j in 0..n {
        for i in 0..n {
            indices.push([at(i, j), at(i + 1, j), at(i + 1, j + 1)]);
            indices.push([at(i, j), at(i + 1, j + 1), at(i, j + 1)]);
        }
    }
    let id = Quat::identity();
    let floor = fixed(
        &mut world,
        Vec3::zeros(),
        id,
        Geometry::TriMesh { vertices, indices },
    );
    let field = fixed(&mut world, Vec3::new(0.0, 20.0, 0.0), id, flat_field());
    let capsule = Geometry::Capsule {
        half_height: 0.4,
        radius: 0.3,
    };
    let mut stopped = 0;
    for lift in [0.0, 1e-9, -1e-4] {
        let start = Vec3::new(-4.3, 0.2, 0.7 + lift);
        for dir in [Vec3::x(), Vec3::new(1.0, 1.0, 0.0)] {
            let slide = sweep(&mut world, &capsule, start, id, dir, 4.0);
            stopped += slide.is_some() as usize;
            assert_eq!(slide, None, "lift {lift}, {dir:?}");
        }
        let start = Vec3::new(-1.5, 20.3, 0.7 + lift);
        for dir in [Vec3::x(), Vec3::new(1.0, -1.0, 0.0)] {
            let slide = sweep(&mut world, &capsule, start, id, dir, 2.5);
            assert_eq!(slide, None, "field, lift {lift}, {dir:?}");
        }
        // going down into the floor, it meets it at once (or when it has come down the nm)
        let down = Vec3::new(1.0, 0.0, -0.01);
        let hit = world.cast_shape(&capsule, start - 20.0 * Vec3::y(), id, down, 1.0, ALL);
        let hit = hit.unwrap().unwrap();
        assert_eq!(hit.shape, floor);
        let sink = lift.max(0.0) * down.norm() / 0.01;
        assert!(
            (hit.distance - sink).abs() < 1e-10,
            "lift {lift}: {}",
            hit.distance
        );
        let hit = world.cast_shape(&capsule, start, id, down, 1.0, ALL);
        assert_eq!(hit.unwrap().unwrap().shape, field);
    }
    assert_eq!(stopped, 0);
    // a floor of two boxes side by side: standing on the first (touching it), the capsule
    // slides onto the second, whose edge it grazes
    for x in [-1.0, 1.0] {
        let tile = Geometry::Box {
            half_extents: Vec3::new(1.0, 1.0, 0.5),
        };
        fixed(&mut world, Vec3::new(x, 40.0, -0.5), id, tile);
    }
    let start = Vec3::new(-1.5, 40.0, 0.7);
    let slide = world.cast_shape(&capsule, start, id, Vec3::x(), 3.0, ALL);
    assert_eq!(slide.unwrap(), None);
    // a step 0.2 m high from x = 3
    let step = fixed(
        &mut world,
        Vec3::new(3.5, 0.0, 0.1),
        id,
        Geometry::Box {
            half_extents: Vec3::new(0.5, 5.0, 0.1),
        },
    );
    let start = Vec3::new(-4.3, 0.2, 0.7);
    let hit = meets(&mut world, &capsule, start, id, Vec3::x(), 10.0);
    let reach = (0.3f64 * 0.3 - 0.1 * 0.1).sqrt();
    assert_eq!(hit.shape, step);
    assert!(
        (hit.distance - (7.3 - reach)).abs() < 1e-8,
        "{} against {}",
        hit.distance,
        7.3 - reach
    );
    assert!(
        (hit.point - Vec3::new(3.0, 0.2, 0.2)).norm() < 1e-6,
        "{:?}",
        hit.point
    );
    let normal = Vec3::new(-reach, 0.0, 0.1) / 0.3;
    assert!((hit.normal - normal).norm() < 1e-5, "{:?}", hit.normal);
}

/// Sweeps do not pass through what they move into: moved to its hit and pushed on, each of five
/// shapes in 30 orientations and 5 angles meets the wall again (its first hit left a gap of
/// less than 1e-5 m); a cube touching the wall
/// turned a little, and a capsule lying against it, meet it at 0 moving into it (the capsule
/// with the wall's normal); a small ball 1 mm from a wall meets it at an angle of 3e-4; a ball
/// moving in the plane of a wall quad meets the quad's open edge; height fields are met from
/// above only.
#[test]
fn sweeps_stop_at_what_they_move_into() {
    let mut world = World::default();
    let id = Quat::identity();
    let wall = fixed(
        &mut world,
        Vec3::new(0.5, 0.0, 0.0),
        id,
        Geometry::Box {
            half_extents: Vec3::new(0.5, 1000.0, 50.0),
        },
    );
    let capsule = Geometry::Capsule {
        half_height: 0.4,
        radius: 0.3,
    };
    let shapes = [
        capsule.clone(),
        ball(0.3),
        Geometry::Cylinder {
            half_height: 0.4,
            radius: 0.3,
        },
        cube(0.5),
        Geometry::ConvexHull {
            points: vec![
                Vec3::new(0.3, 0.1, 0.0),
                Vec3::new(-0.2, 0.4, 0.1),
                Vec3::new(0.0, -0.3, 0.3),
                Vec3::new(0.1, 0.0, -0.4),
                Vec3::new(-0.3, -0.2, -0.1),
            ],
        },
    ];
    let (mut pushes, mut worst) = (0, 0.0f64);
    for g in &shapes {
        for i in 0..30 {
            let axis = Vec3::new(1.0, 0.3 * f64::from(i), 0.7).normalize();
            let q = Quat::from_scaled_axis(axis * (0.21 * f64::from(i)));
            for a in [0.9, 0.5, 0.2, 0.05, 0.01] {
                let dir = Vec3::new(a, (1.0 - a * a).sqrt(), 0.0);
                let start = Vec3::new(-2.0, -500.0, 0.0);
                let first = sweep(&mut world, g, start, q, dir, 1000.0);
                let first = first.unwrap_or_else(|| panic!("{g:?} {i} {a}: no hit"));
                assert_eq!(first.shape, wall);
                let at = start + first.distance * dir;
                let again = sweep(&mut world, g, at, q, dir, 10.0);
                let again = again.unwrap_or_else(|| panic!("{g:?} {i} {a}: pushed through"));
                // (the gap left across the wall: parry's sweeps end a little short of it)
                let gap = again.distance * a;
                assert!(gap < 1e-5, "{g:?} {i} {a}: {}", again.distance);
                worst = worst.max(gap);
                pushes += 1;
            }
        }
    }
    assert_eq!(pushes, 750);
    println!("pushed on from 750 hits: met again, the gap left at most {worst:.1e} m");
    // touching the wall's face x = 0 where they start
    let turned = Quat::from_axis_angle(&Vec3::x_axis(), 0.1);
    let into = Vec3::new(0.5, 0.866, 0.0);
    let touching = Vec3::new(-0.5, -500.0, 0.0);
    let hit = world.cast_shape(&cube(0.5), touching, turned, into, 1.0, ALL);
    assert_eq!(hit.unwrap().unwrap().distance, 0.0);
    let lying = Quat::from_axis_angle(&Vec3::x_axis(), 1.65);
    let hit = world.cast_shape(
        &capsule,
        Vec3::new(-0.3, -500.0, 0.0),
        lying,
        Vec3::x(),
        1.0,
        ALL,
    );
    let hit = hit.unwrap().unwrap();
    assert_eq!(hit.distance, 0.0);
    assert!((hit.normal + Vec3::x()).norm() < 1e-6, "{:?}", hit.normal);
    // a ball of 1 cm, 1 mm from the wall, at 3e-4 into it: it meets it after 3.33 m (short of
    // it by the gap the sweep leaves over the angle)
    let shallow = Vec3::new(3e-4, (1.0f64 - 9e-8).sqrt(), 0.0);
    let hit = world.cast_shape(
        &ball(0.01),
        Vec3::new(-0.011, -500.0, 0.0),
        id,
        shallow,
        900.0,
        ALL,
    );
    let hit = hit.unwrap().unwrap();
    assert!(
        (hit.distance - 1e-3 / 3e-4).abs() < 2e-2,
        "{}",
        hit.distance
    );
    // a wall quad in the plane x = 10 (y from -1 to 1, z from 0 to 2): a ball moving along +y
    // 0.3 m beside its plane meets its open edge y = -1 after 1.6 m, as does a capsule in its
    // plane after 1.7 m
    let quad = fixed(
        &mut world,
        Vec3::new(10.0, 0.0, 0.0),
        id,
        Geometry::TriMesh {
            vertices: vec![
                Vec3::new(0.0, -1.0, 0.0),
                Vec3::new(0.0, 1.0, 0.0),
                Vec3::new(0.0, 1.0, 2.0),
                Vec3::new(0.0, -1.0, 2.0),
            ],
            indices: vec![[0, 1, 2], [0, 2, 3]],
        },
    );
    let hit = world.cast_shape(
        &ball(0.5),
        Vec3::new(10.3, -3.0, 1.0),
        id,
        Vec3::y(),
        5.0,
        ALL,
    );
    let hit = hit.unwrap().unwrap();
    assert_eq!(hit.shape, quad);
    assert!((hit.distance - 1.6).abs() < 1e-8, "{}", hit.distance);
    let hit = world.cast_shape(
        &capsule,
        Vec3::new(10.0, -3.0, 1.0),
        id,
        Vec3::y(),
        5.0,
        ALL,
    );
    let hit = hit.unwrap().unwrap();
    assert!((hit.distance - 1.7).abs() < 1e-8, "{}", hit.distance);
    // a height field (surface z = 0 at y = 30): from below, the sweep passes it; a ray meets it
    fixed(&mut world, Vec3::new(10.0, 30.0, 0.0), id, flat_field());
    let below = Vec3::new(10.0, 30.0, -2.0);
    let up = sweep(&mut world, &ball(0.5), below, id, Vec3::z(), 5.0);
    assert_eq!(up, None);
    let ray = world.cast_ray(below, Vec3::z(), 5.0, ALL).unwrap().unwrap();
    assert_eq!(ray.distance, 2.0);
    let down = world.cast_shape(
        &ball(0.5),
        below + 5.0 * Vec3::z(),
        id,
        -Vec3::z(),
        10.0,
        ALL,
    );
    assert!((down.unwrap().unwrap().distance - 2.5).abs() < 1e-9);
}

/// Meshes decided as a whole: a box swept into a V-shaped valley stops on its near side
/// (the contact there has a normal along the motion once snapped to the face's); a box, a ball
/// and a capsule of 1 cm sliding on a floor of 200 triangles, one in three flipped, are never
/// stopped; a box sliding from one box tile onto the next is not stopped; a mesh cube of 12
/// triangles stops 500 sweeps where a box shape does.
#[test]
fn meshes_are_swept_as_a_whole() {
    let id = Quat::identity();
    let mut world = World::default();
    // the valley: two quads folded at 90 degrees along y (z = -1 at x = 0)
    let valley = fixed(
        &mut world,
        Vec3::zeros(),
        id,
        Geometry::TriMesh {
            vertices: vec![
                Vec3::new(-1.0, -2.0, 0.0),
                Vec3::new(0.0, -2.0, -1.0),
                Vec3::new(0.0, 2.0, -1.0),
                Vec3::new(-1.0, 2.0, 0.0),
                Vec3::new(1.0, -2.0, 0.0),
                Vec3::new(1.0, 2.0, 0.0),
            ],
            indices: vec![[0, 1, 2], [0, 2, 3], [1, 4, 5], [1, 5, 2]],
        },
    );
    let q = Quat::from_quaternion(nalgebra::Quaternion::new(
        0.3182965105916395,
        0.056045756016736774,
        -0.14048313103510043,
        0.93584758079095,
    ));
    let start = Vec3::new(-1.6250417420128715, 0.2129262567062018, 1.1462555325584503);
    let dir = Vec3::new(
        0.7731028941898257,
        -0.028338235914583534,
        -0.6336472673187856,
    );
    let slab = Geometry::Box {
        half_extents: Vec3::new(0.3, 0.2, 0.45),
    };
    let hit = meets(&mut world, &slab, start, q, dir, 10.0);
    assert_eq!(hit.shape, valley);
    assert!((hit.distance - 1.0955).abs() < 1e-3, "{}", hit.distance);
    // the floor of 10 x 10 quads at y = 20 .. 30, every third triangle flipped
    let (mut vertices, mut indices) = (Vec::new(), Vec::new());
    for j in 0..=10 {
        for i in 0..=10 {
            vertices.push(Vec3::new(f64::from(i) - 5.0, f64::from(j) + 20.0, 0.0));
        }
    }
    let at = |i: u32, j: u32| j * 11 + i;
    for k in 0..100u32 {
        let (i, j) = (k % 10, k / 10);
        let mut a = [at(i, j), at(i + 1, j), at(i + 1, j + 1)];
        let mut b = [at(i, j), at(i + 1, j + 1), at(i, j + 1)];
        if (2 * k) % 3 == 0 {
            a.swap(1, 2);
        }
        if (2 * k + 1) % 3 == 0 {
            b.swap(1, 2);
        }
        indices.push(a);
        indices.push(b);
    }
    fixed(
        &mut world,
        Vec3::zeros(),
        id,
        Geometry::TriMesh { vertices, indices },
    );
    let small = Geometry::Capsule {
        half_height: 0.02,
        radius: 0.01,
    };
    let mut slides = 0;
    for (g, z) in [(cube(0.3), 0.3), (ball(0.3), 0.3), (small, 0.03)] {
        for k in 0..24 {
            let a = f64::from(k) * std::f64::consts::TAU / 24.0 + 0.1;
            let dir = Vec3::new(a.cos(), a.sin(), 0.0);
            let from = Vec3::new(0.0, 25.0, z) - 3.0 * dir;
            let slide = sweep(&mut world, &g, from, id, dir, 6.0);
            assert_eq!(slide, None, "{g:?} along {dir:?}");
            slides += 1;
        }
    }
    assert_eq!(slides, 72);
    // two box tiles side by side at y = 40 (tops at z = 0)
    for x in [-1.0, 1.0] {
        let tile = Geometry::Box {
            half_extents: Vec3::new(1.0, 1.0, 0.5),
        };
        fixed(&mut world, Vec3::new(x, 40.0, -0.5), id, tile);
    }
    let along = Vec3::new(1.0, 0.05, 0.0);
    let slide = world.cast_shape(&cube(0.3), Vec3::new(-1.5, 40.0, 0.3), id, along, 2.5, ALL);
    assert_eq!(slide.unwrap(), None);
    // a mesh cube and a box shape, 500 sweeps of a box, a ball and a capsule at them
    let mut cubes = World::default();
    let mesh = Geometry::TriMesh {
        vertices: (0..8)
            .map(|i| {
                let c = |bit: u32| if i & bit != 0 { 0.5 } else { -0.5 };
                Vec3::new(c(1), c(2), c(4))
            })
            .collect(),
        indices: vec![
            [0, 2, 3],
            [0, 3, 1],
            [4, 5, 7],
            [4, 7, 6],
            [0, 1, 5],
            [0, 5, 4],
            [2, 6, 7],
            [2, 7, 3],
            [0, 4, 6],
            [0, 6, 2],
            [1, 3, 7],
            [1, 7, 5],
        ],
    };
    fixed(&mut cubes, Vec3::zeros(), id, mesh);
    let mut boxes = World::default();
    fixed(&mut boxes, Vec3::zeros(), id, cube(0.5));
    let mut seed = 7u64;
    let mut next = || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    };
    let shapes = [
        cube(0.2),
        ball(0.2),
        Geometry::Capsule {
            half_height: 0.2,
            radius: 0.1,
        },
    ];
    let mut worst: f64 = 0.0;
    for k in 0..500 {
        let from = 2.0 * Vec3::new(next(), next(), next()).normalize();
        // aimed at the cube's corners and edges: a point on its surface, jittered
        let aim = Vec3::new(next(), next(), next()).map(|c| (c * 1.2).clamp(-0.5, 0.5));
        let q = Quat::from_scaled_axis(Vec3::new(next(), next(), next()));
        let g = &shapes[k % 3];
        let sweep = |w: &mut World| w.cast_shape(g, from, q, aim - from, 5.0, ALL).unwrap();
        let (m, b) = (sweep(&mut cubes), sweep(&mut boxes));
        assert_eq!(m.is_some(), b.is_some(), "{k}: {m:?} {b:?}");
        if let (Some(m), Some(b)) = (m, b) {
            worst = worst.max((m.distance - b.distance).abs());
        }
    }
    println!("mesh cube against box: distances within {worst:.1e} m over 500 sweeps");
    assert!(worst < 1e-6, "{worst}");
}

/// A box of any size lists the half-spaces it reaches into.
#[test]
fn huge_boxes_list_the_half_spaces_they_reach() {
    let mut world = World::default();
    let ground = ground(&mut world, 0.0);
    let cube = fixed(
        &mut world,
        Vec3::new(5.0, 0.0, 1.0),
        Quat::identity(),
        cube(0.5),
    );
    let mut found = Vec::new();
    let big = Vec3::new(f64::MAX, f64::MAX, f64::MAX);
    world.overlap_aabb(-big, big, ALL, &mut found).unwrap();
    assert_eq!(found, vec![ground, cube]);
    let (lo, hi) = (Vec3::new(0.0, 0.0, -1.7e308), Vec3::new(1.0, 1.0, -1.6e308));
    world.overlap_aabb(lo, hi, ALL, &mut found).unwrap();
    assert_eq!(found, vec![ground]);
    let (lo, hi) = (Vec3::new(0.0, 0.0, 1.6e308), Vec3::new(1.0, 1.0, 1.7e308));
    world.overlap_aabb(lo, hi, ALL, &mut found).unwrap();
    assert_eq!(found, vec![]);
}

/// The queries see bodies where the last step or a pose left them, and do not change the
/// simulation: a pile stepped with queries between its steps ends bit for bit where it ends
/// without.
#[test]
fn queries_follow_moving_bodies_and_change_nothing() {
    let run = |query: bool| -> (Vec<(Vec3, Quat)>, usize) {
        let mut world = World::default();
        scenes::floor(&mut world, 0.0, Material::default());
        let mut bodies = Vec::new();
        for k in 0..6 {
            let at = Vec3::new(0.3 * f64::from(k % 2), 0.0, 0.6 + 1.1 * f64::from(k));
            bodies.push(scenes::shaped_body(
                &mut world,
                BodyKind::Dynamic,
                at,
                Quat::identity(),
                cube(0.5),
                Material::default(),
            ));
        }
        let mut found = Vec::new();
        let mut hits = Vec::new();
        let mut checks = 0;
        for _ in 0..120 {
            world.step(1.0 / 60.0).unwrap();
            if !query {
                continue;
            }
            // the top box, from above: a ray and a swept ball see its top face where it is
            let top = world.body(bodies[5]).unwrap();
            let (p, q) = (top.position(), top.rotation());
            let from = Vec3::new(p.x, p.y, 20.0);
            world
                .cast_ray_all(from, -Vec3::z(), 100.0, ALL, &mut hits)
                .unwrap();
            assert_eq!(hits[0].body, bodies[5]);
            // (the top face's plane, through p + 0.5 n, met on the vertical through p)
            let face = (q * Vec3::z()).z;
            if face > 0.99 {
                let ztop = p.z + 0.5 / face;
                assert!((hits[0].distance - (20.0 - ztop)).abs() < 1e-9);
                checks += 1;
            }
            let sweep = meets(
                &mut world,
                &ball(0.01),
                from,
                Quat::identity(),
                -Vec3::z(),
                100.0,
            );
            assert!((sweep.distance - (hits[0].distance - 0.01)).abs() < 1e-5);
            world
                .overlap_shape(&cube(0.5), p, q, ALL, &mut found)
                .unwrap();
            assert!(found.contains(&hits[0].shape));
        }
        let end = bodies.iter().map(|&b| {
            let b = world.body(b).unwrap();
            (b.position(), b.rotation())
        });
        (end.collect(), checks)
    };
    let (with, checks) = run(true);
    let (without, _) = run(false);
    assert_eq!(with, without);
    assert!(checks > 60, "{checks}");
}

/// Bad query shapes and boxes are refused and leave the output alone.
#[test]
fn bad_queries_are_refused_and_change_nothing() {
    let mut world = World::default();
    fixed(&mut world, Vec3::zeros(), Quat::identity(), ball(1.0));
    let mut found = Vec::new();
    world
        .overlap_shape(&ball(0.5), Vec3::zeros(), Quat::identity(), ALL, &mut found)
        .unwrap();
    assert_eq!(found.len(), 1);
    let before = found.clone();
    let id = Quat::identity();
    let nan = Vec3::new(f64::NAN, 0.0, 0.0);
    let half = Quat::new_unchecked(nalgebra::Quaternion::new(0.5, 0.0, 0.0, 0.0));
    let cases: [(Geometry, Vec3, Quat, ErrorKind); 9] = [
        // (farther than 1e15 m from the origin: parry's depth panicked on a ball of 1e200 m)
        (ball(1e200), Vec3::zeros(), id, ErrorKind::InvalidArgument),
        (
            ball(0.5),
            Vec3::new(0.0, 0.0, 2e15),
            id,
            ErrorKind::InvalidArgument,
        ),
        (ball(0.5), nan, id, ErrorKind::NonFinite),
        (ball(0.5), Vec3::zeros(), half, ErrorKind::InvalidRotation),
        (ball(0.0), Vec3::zeros(), id, ErrorKind::InvalidArgument),
        (ball(f64::NAN), Vec3::zeros(), id, ErrorKind::NonFinite),
        (square_mesh(), Vec3::zeros(), id, ErrorKind::InvalidArgument),
        (flat_field(), Vec3::zeros(), id, ErrorKind::InvalidArgument),
        (
            Geometry::HalfSpace { normal: Vec3::z() },
            Vec3::zeros(),
            id,
            ErrorKind::InvalidArgument,
        ),
    ];
    for (g, at, q, kind) in cases {
        let e = world.overlap_shape(&g, at, q, ALL, &mut found).unwrap_err();
        assert_eq!(e.kind, kind, "{g:?}: {e}");
        assert_eq!(found, before);
        let e = world
            .cast_shape(&g, at, q, Vec3::x(), 1.0, ALL)
            .unwrap_err();
        assert_eq!(e.kind, kind, "{g:?}: {e}");
    }
    for (d, max, kind) in [
        (Vec3::zeros(), 1.0, ErrorKind::InvalidArgument),
        (Vec3::x(), -1.0, ErrorKind::InvalidArgument),
        (nan, 1.0, ErrorKind::NonFinite),
        (Vec3::x(), f64::NAN, ErrorKind::NonFinite),
    ] {
        let e = world
            .cast_shape(&ball(0.5), Vec3::zeros(), id, d, max, ALL)
            .unwrap_err();
        assert_eq!(e.kind, kind, "{d:?} {max}: {e}");
    }
    for (lo, hi, kind) in [
        (nan, Vec3::zeros(), ErrorKind::NonFinite),
        (
            Vec3::zeros(),
            Vec3::new(0.0, f64::INFINITY, 0.0),
            ErrorKind::NonFinite,
        ),
        (
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::zeros(),
            ErrorKind::InvalidArgument,
        ),
    ] {
        let e = world.overlap_aabb(lo, hi, ALL, &mut found).unwrap_err();
        assert_eq!(e.kind, kind, "{e}");
        assert_eq!(found, before);
    }
}

/// Rays and a swept ball straight down onto a flat height field of 10 x 10 cells of 10 m, a
/// few ulps beside its cell edges, meet it. Parry's ray cast starts its walk over the cells
/// from the cell `floor((x + 0.5) / width)` of the point where the ray enters the field, which
/// there is the neighbour of the cell whose triangles hold the point: a ray straight down met
/// nothing.
#[test]
fn rays_straight_down_beside_a_height_fields_cell_edges_meet_it() {
    let mut world = World::default();
    fixed(
        &mut world,
        Vec3::zeros(),
        Quat::identity(),
        flat_height_field(),
    );
    let mut hits = Vec::new();
    let mut cases = 0;
    for at in beside_cell_edges() {
        for (x, y) in [(at, 3.0), (-3.0, at), (at, at)] {
            let from = Vec3::new(x, y, 2.0);
            let hit = world.cast_ray(from, -Vec3::z(), 5.0, ALL).unwrap();
            let hit = hit.unwrap_or_else(|| panic!("the ray down from {from:?} met nothing"));
            let exact = |d: f64, n: Vec3| (d - 2.0).abs() < 1e-12 && (n - Vec3::z()).norm() < 1e-12;
            assert!(exact(hit.distance, hit.normal), "from {from:?}: {hit:?}");
            world
                .cast_ray_all(from, -Vec3::z(), 5.0, ALL, &mut hits)
                .unwrap();
            assert_eq!(hits.len(), 1, "from {from:?}");
            assert!(exact(hits[0].distance, hits[0].normal), "{:?}", hits[0]);
            let swept = sweep(
                &mut world,
                &ball(0.5),
                from,
                Quat::identity(),
                -Vec3::z(),
                5.0,
            );
            let swept = swept.unwrap_or_else(|| panic!("the ball from {from:?} met nothing"));
            assert!(
                (swept.distance - 1.5).abs() < 1e-9,
                "from {from:?}: {swept:?}"
            );
            cases += 1;
        }
    }
    assert_eq!(cases, 105);
}
