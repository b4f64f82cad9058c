//! Scale against the number of constraint rows n_C (Tomcin Fig. 5c, 6c and 6f): the spider
//! (split and unsplit), the scissor lift, the Strandbeest walking on the ground, the octahedron
//! tube and the grid of spheres at growing sizes. For each: n_C, the off-diagonal nonzeros of
//! one half of `A`, the fill-in of `L`, the time per step and the largest joint error of any
//! step, as a table and as PNG plots against n_C.
//!
//! `cargo bench --bench scaling` runs the full sizes and writes `target/scaling.md` and the plots
//! `docs/plots/*.png`. Free arguments keep only the families whose name contains one of them
//! (such a run writes its table and plots under `target/scaling-filtered/`).
//! Without `--bench` (`cargo test --benches`) it is a smoke run of the small sizes that checks
//! the joints and draws the plots under `target/scaling-quick/`.

use plotters::prelude::*;
use std::path::{Path, PathBuf};
use std::time::Instant;
use tenon::{World, scenes};

/// One size of one family, measured.
struct Point {
    size: usize,
    rows: u64,
    /// Off-diagonal nonzeros of the lower triangle of `A` (Tomcin Fig. 6c).
    offdiag_a: u64,
    /// nnz(L) - nnz(lower A).
    fill: u64,
    us_per_step: f64,
    iterations: f64,
    max_error: f64,
    substeps: u32,
    converged: bool,
}

struct Family {
    name: &'static str,
    /// What `size` counts.
    unit: &'static str,
    sizes: &'static [usize],
    quick_sizes: &'static [usize],
    build: fn(&mut World, usize),
    /// Timed steps at `size` (after one step that builds the topology).
    steps: fn(usize) -> usize,
}

fn families() -> Vec<Family> {
    vec![
        Family {
            name: "spider, split",
            unit: "legs",
            sizes: &[10, 30, 100, 300, 1000, 2000],
            quick_sizes: &[10, 100],
            build: |w, k| drop(scenes::spider(w, k)),
            steps: |_| 30,
        },
        Family {
            name: "spider, unsplit",
            unit: "legs",
            sizes: &[10, 30, 100, 300, 600],
            quick_sizes: &[10],
            build: |w, k| {
                let s = scenes::spider(w, k);
                w.set_body_split_parts(s.bodies[0], 1).expect("live hub");
            },
            steps: |k| if k > 300 { 5 } else { 30 },
        },
        Family {
            name: "scissor lift",
            unit: "segments",
            sizes: &[10, 20, 50, 100, 150, 220],
            quick_sizes: &[10],
            build: |w, n| drop(scenes::scissor_lift(w, n)),
            steps: |n| if n > 100 { 10 } else { 30 },
        },
        Family {
            name: "Strandbeest",
            unit: "legs",
            sizes: &[4, 10, 20, 50, 100],
            quick_sizes: &[4],
            build: |w, n| drop(scenes::strandbeest_on_ground(w, n, 0.0)),
            steps: |_| 30,
        },
        Family {
            name: "octahedron tube",
            unit: "rings",
            sizes: &[1, 2, 4, 8, 16, 32, 75, 150],
            quick_sizes: &[1],
            build: |w, n| drop(scenes::octahedron_tube(w, n)),
            steps: |n| (60 / n).clamp(3, 20),
        },
        Family {
            name: "grid",
            unit: "n x n spheres",
            sizes: &[10, 20, 30, 50, 70, 100],
            quick_sizes: &[6],
            build: |w, n| drop(scenes::grid(w, n)),
            steps: |n| if n > 50 { 5 } else { 20 },
        },
    ]
}

fn measure(f: &Family, size: usize, steps: usize) -> Point {
    let mut world = World::default();
    (f.build)(&mut world, size);
    let h = 1.0 / 60.0;
    // the first step builds the topology (ordering, symbolic analysis, splitting)
    let first = world.step(h).expect("valid step").clone();
    let (mut max_error, mut substeps, mut converged) =
        (first.max_violation, first.substeps, first.converged);
    let mut iterations = 0u64;
    let start = Instant::now();
    for _ in 0..steps {
        let r = world.step(h).expect("valid step");
        max_error = max_error.max(r.max_violation);
        substeps = substeps.max(r.substeps);
        converged &= r.converged;
        iterations += u64::from(r.iterations);
    }
    let us_per_step = 1e6 * start.elapsed().as_secs_f64() / steps as f64;
    let r = world.last_report();
    let (rows, nnz_a, nnz_l) = r.islands.iter().fold((0, 0, 0), |(n, a, l), i| {
        (n + u64::from(i.rows), a + i.nnz_a, l + i.nnz_l)
    });
    Point {
        size,
        rows,
        offdiag_a: nnz_a - rows,
        fill: nnz_l - nnz_a,
        us_per_step,
        iterations: iterations as f64 / steps as f64,
        max_error,
        substeps,
        converged,
    }
}

/// Least-squares slope of log(time) against log(size) over the points with size in `range`.
fn exponent(points: &[Point], range: std::ops::RangeInclusive<usize>) -> f64 {
    let xy: Vec<(f64, f64)> = points
        .iter()
        .filter(|p| range.contains(&p.size))
        .map(|p| ((p.size as f64).ln(), p.us_per_step.ln()))
        .collect();
    let n = xy.len() as f64;
    let (sx, sy) = xy.iter().fold((0.0, 0.0), |(a, b), p| (a + p.0, b + p.1));
    let (mx, my) = (sx / n, sy / n);
    let sxy: f64 = xy.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let sxx: f64 = xy.iter().map(|p| (p.0 - mx).powi(2)).sum();
    sxy / sxx
}

type Series = (String, Vec<(f64, f64)>);

/// What a plot shows of a point.
type Metric = fn(&Point) -> f64;

/// Distinct colours that read on white (the "tab10" palette).
const COLORS: [RGBColor; 7] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(23, 190, 207),
];

/// Labels only at the powers of ten (a log axis otherwise crowds its labels).
fn decade(v: &f64) -> String {
    let l = v.log10();
    if (l - l.round()).abs() < 1e-9 {
        format!("1e{}", l.round())
    } else {
        String::new()
    }
}

/// A time in us as us or ms.
fn time(us: f64) -> String {
    if us < 1e3 {
        format!("{us:.0} us")
    } else {
        format!("{:.1} ms", us / 1e3)
    }
}

/// A log-log plot of `series` against n_C.
fn plot(path: &Path, title: &str, y_desc: &str, series: &[Series]) -> Result<(), String> {
    let e = |e: &dyn std::fmt::Display| e.to_string();
    let all = series.iter().flat_map(|s| s.1.iter());
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, 0.0f64, f64::MAX, 0.0f64);
    for &(x, y) in all {
        (x0, x1, y0, y1) = (x0.min(x), x1.max(x), y0.min(y), y1.max(y));
    }
    let root = BitMapBackend::new(path, (960, 640)).into_drawing_area();
    root.fill(&WHITE).map_err(|x| e(&x))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 24))
        .margin(20)
        .x_label_area_size(50)
        .y_label_area_size(90)
        .build_cartesian_2d(
            (0.7 * x0..1.4 * x1).log_scale(),
            (0.5 * y0..2.0 * y1).log_scale(),
        )
        .map_err(|x| e(&x))?;
    chart
        .configure_mesh()
        .x_desc("constraint rows n_C")
        .y_desc(y_desc)
        .label_style(("sans-serif", 16))
        .axis_desc_style(("sans-serif", 18))
        .x_label_formatter(&decade)
        .y_label_formatter(&decade)
        .draw()
        .map_err(|x| e(&x))?;
    for (i, (name, pts)) in series.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        chart
            .draw_series(LineSeries::new(pts.clone(), color.stroke_width(2)))
            .map_err(|x| e(&x))?
            .label(name.as_str())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 24, y)], color.stroke_width(3))
            });
        chart
            .draw_series(pts.iter().map(|&p| Circle::new(p, 4, color.filled())))
            .map_err(|x| e(&x))?;
    }
    chart
        .configure_series_labels()
        .label_font(("sans-serif", 16))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperLeft)
        .draw()
        .map_err(|x| e(&x))?;
    root.present().map_err(|x| e(&x))
}

fn main() {
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    // `cargo bench` passes `--bench`; without it (`cargo test --benches`) this is a smoke run
    let quick = !std::env::args().any(|a| a == "--bench");
    plotters::style::register_font("sans-serif", FontStyle::Normal, dejavu::sans::regular())
        .map_err(|_| "DejaVu Sans is not a font")
        .unwrap();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    // only a full run of every family redraws the plots in docs/
    let (table_path, plot_dir) = if quick || !filter.is_empty() {
        let d = root.join(if quick {
            "target/scaling-quick"
        } else {
            "target/scaling-filtered"
        });
        (d.join("scaling.md"), d)
    } else {
        (root.join("target/scaling.md"), root.join("docs/plots"))
    };
    std::fs::create_dir_all(&plot_dir).expect("plot directory");
    let mut out = String::from(
        "| Scene | Size | n_C | nnz(A) off-diagonal | fill-in | Time per step | Newton iterations per step | Max joint error | Max substeps |\n|---|---|---|---|---|---|---|---|---|\n",
    );
    print!("{out}");
    let mut measured: Vec<(&'static str, Vec<Point>)> = Vec::new();
    for f in families() {
        if !filter.is_empty() && !filter.iter().any(|x| f.name.contains(x.as_str())) {
            continue;
        }
        let mut points = Vec::new();
        for &size in if quick { f.quick_sizes } else { f.sizes } {
            let steps = if quick { 3 } else { (f.steps)(size) };
            let p = measure(&f, size, steps);
            let line = format!(
                "| {} | {} {} | {} | {} | {} | {} | {:.2} | {:.1e}{} | {} |\n",
                f.name,
                p.size,
                f.unit,
                p.rows,
                p.offdiag_a,
                p.fill,
                time(p.us_per_step),
                p.iterations,
                p.max_error,
                if p.converged { "" } else { " (not converged)" },
                p.substeps,
            );
            print!("{line}");
            out.push_str(&line);
            if quick {
                assert!(
                    p.converged && p.max_error <= 1e-9,
                    "{} {}: joint error {:e}",
                    f.name,
                    size,
                    p.max_error
                );
            }
            points.push(p);
        }
        measured.push((f.name, points));
    }
    if let Some((_, spider)) = measured.iter().find(|(n, _)| *n == "spider, split") {
        if spider.iter().filter(|p| p.size >= 100).count() >= 2 {
            let k = exponent(spider, 100..=2000);
            let line = format!("\nSplit spider: time per step ~ K^{k:.2} over K = 100 ... 2000\n");
            print!("{line}");
            out.push_str(&line);
        }
    }
    let series = |f: Metric| -> Vec<Series> {
        measured
            .iter()
            .map(|(n, pts)| {
                // a log axis cannot show zero (a spider without fill-in)
                let v = pts
                    .iter()
                    .map(|p| (p.rows as f64, f(p)))
                    .filter(|p| p.1 > 0.0)
                    .collect();
                (n.to_string(), v)
            })
            .collect()
    };
    let plots: [(&str, &str, &str, Metric); 4] = [
        (
            "time_per_step.png",
            "Time per step against n_C (h = 1/60 s)",
            "time per step (us)",
            |p| p.us_per_step,
        ),
        (
            "joint_error.png",
            "Largest joint error of any step against n_C (eps_p = 1e-9)",
            "max joint error (m or rad)",
            |p| p.max_error,
        ),
        (
            "nnz_a.png",
            "Off-diagonal nonzeros of one half of A against n_C",
            "nnz(A) off-diagonal",
            |p| p.offdiag_a as f64,
        ),
        (
            "fill_in.png",
            "Fill-in of the Cholesky factor L (AMD) against n_C",
            "nnz(L) - nnz(A)",
            |p| p.fill as f64,
        ),
    ];
    for (file, title, y, f) in plots {
        plot(&plot_dir.join(file), title, y, &series(f)).expect("plot drawn");
    }
    std::fs::write(&table_path, &out).expect("table written");
    println!(
        "\nwrote {} and the plots in {}",
        table_path.display(),
        plot_dir.display()
    );
}
