use tenon::*;
fn main() {
    let load: f64 = std::env::args()
        .nth(1)
        .map(|s| s.parse().unwrap())
        .unwrap_or(1000.0);
    let mut world = World::default();
    let _s = scenes::heavy_chain(&mut world, 20, load);
    let mut its = vec![];
    for k in 0..120 {
        let r = world.step(1.0 / 60.0).unwrap().clone();
        let i = r.islands[0];
        its.push(i.iterations);
        if k % 10 == 0 {
            print!("{k}:{} ", i.iterations);
        }
        if i.substeps > 1 {
            print!("[{k} sub {}] ", i.substeps);
        }
    }
    println!(
        "\nmean {} max {}",
        its.iter().sum::<u32>() as f64 / its.len() as f64,
        its.iter().max().unwrap()
    );
}
