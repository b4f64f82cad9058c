//! No allocation per step in the contact phases once the contact set is steady (counting global
//! allocator): registered contacts hold a box and a jointed pendulum bob. Detection is not in
//! this count: parry allocates inside some of its manifold algorithms.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use tenon::*;

struct Counting;
static ALLOCS: AtomicUsize = AtomicUsize::new(0);
// Counted on the stepping thread only: the test harness's threads may allocate meanwhile.
thread_local! { static COUNT_HERE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) }; }

fn count() {
    if COUNT_HERE.with(|c| c.get()) {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
    }
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        count();
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        count();
        unsafe { System.realloc(p, l, n) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn contact_phases_allocate_nothing_once_the_contact_set_is_steady() {
    let mut world = World::default();
    let free = world
        .create_body(&BodyDesc {
            position: Vec3::new(0.0, 0.0, 0.5),
            ..Default::default()
        })
        .unwrap();
    let bob = world
        .create_body(&BodyDesc {
            position: Vec3::new(3.0, 0.0, 0.5),
            ..Default::default()
        })
        .unwrap();
    let mut j = JointDesc::new(JointKind::Ball, None, bob);
    world
        .set_joint_frames_world(&mut j, Vec3::new(3.0, 1.0, 0.5), Vec3::x())
        .unwrap();
    world.create_joint(&j).unwrap();
    let step = |world: &mut World| {
        for b in [free, bob] {
            let body = world.body(b).unwrap();
            let (x, q) = (body.position(), body.rotation());
            for cx in [-0.5, 0.5] {
                for cy in [-0.5, 0.5] {
                    let c = x + q * Vec3::new(cx, cy, -0.5);
                    world
                        .register_contact(&ContactDesc {
                            body_a: None,
                            body_b: b,
                            point: Vec3::new(c.x, c.y, 0.5 * c.z),
                            normal: Vec3::z(),
                            depth: -c.z,
                            material: Material::default(),
                        })
                        .unwrap();
                }
            }
        }
        world.step(1.0 / 60.0).unwrap();
    };
    for _ in 0..60 {
        step(&mut world);
    }
    let before = ALLOCS.load(Ordering::Relaxed);
    COUNT_HERE.with(|c| c.set(true));
    for _ in 0..120 {
        step(&mut world);
    }
    COUNT_HERE.with(|c| c.set(false));
    let n = ALLOCS.load(Ordering::Relaxed) - before;
    assert_eq!(world.contacts().len(), 8);
    assert!(world.last_report().max_violation < 1e-9);
    assert_eq!(n, 0, "{n} allocations in 120 steps");
}
