//! No allocation per step once the topology is fixed (counting global allocator).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use tenon::*;

struct Counting;
static ALLOCS: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.realloc(p, l, n) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn steps_allocate_nothing_once_the_topology_is_fixed() {
    let mut world = World::default();
    scenes::heavy_chain(&mut world, 20, 1e4); // substeps and re-linearizations included
    scenes::four_bar(&mut world);
    world.create_body(&BodyDesc::default()).unwrap(); // a free body
    for _ in 0..5 {
        world.step(1.0 / 60.0).unwrap();
    }
    let before = ALLOCS.load(Ordering::Relaxed);
    for _ in 0..120 {
        world.step(1.0 / 60.0).unwrap();
    }
    let n = ALLOCS.load(Ordering::Relaxed) - before;
    assert_eq!(n, 0, "{n} allocations in 120 steps");
}
