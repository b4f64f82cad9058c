use tenon::*;
fn main() {
    let mut world = World::default();
    let s = scenes::heavy_chain(&mut world, 20, 1000.0);
    for k in 0..12 {
        eprintln!("step {k}");
        world.step(1.0 / 60.0).unwrap();
        eprintln!(
            "{:?}",
            world.body(*s.bodies.last().unwrap()).unwrap().position()
        );
    }
}
