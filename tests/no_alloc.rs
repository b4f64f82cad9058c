//! No allocation per step once the topology is fixed (counting global allocator).

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
fn steps_allocate_nothing_once_the_topology_is_fixed() {
    let mut world = World::default();
    scenes::heavy_chain(&mut world, 20, 1e4); // substeps and re-linearizations included
    scenes::four_bar(&mut world);
    world.create_body(&BodyDesc::default()).unwrap(); // a free body
    for _ in 0..5 {
        world.step(1.0 / 60.0).unwrap();
    }
    let before = ALLOCS.load(Ordering::Relaxed);
    COUNT_HERE.with(|c| c.set(true));
    for _ in 0..120 {
        world.step(1.0 / 60.0).unwrap();
    }
    COUNT_HERE.with(|c| c.set(false));
    let n = ALLOCS.load(Ordering::Relaxed) - before;
    assert_eq!(n, 0, "{n} allocations in 120 steps");
}
