//! The topics and subscribers sweeps' SVG plots: p99.9 latency and the node processes' own CPU
//! against the topic count or the subscriber count, one line per mode, each point the median of
//! its rounds; a mode's lossy cases are drawn hollow.

use std::path::Path;

use anyhow::Context;
use plotters::prelude::*;

use super::super::plan::Mode;
use super::super::plot::COLORS;
use super::super::spread::Spread;
use super::report::{Axis, TopicsResult};

/// Writes `<axis>_p50.svg`, `<axis>_p999.svg` and `<axis>_cpu.svg`.
pub fn write_all(dir: &Path, axis: Axis, results: &[TopicsResult]) -> anyhow::Result<()> {
    let (name, x_label) = match axis {
        Axis::Topics => ("topics", "topics (T)"),
        Axis::Subscribers => ("subscribers", "subscribers per topic (S)"),
    };
    let workload = match axis {
        Axis::Topics => "10 nodes, 2 subscribers per topic, 100 Hz, + 2 MiB at 10 Hz",
        Axis::Subscribers => "T = 10 at 100 Hz + 2 MiB at 10 Hz",
    };
    plot(
        &dir.join(format!("{name}_p50.svg")),
        results,
        &format!("p50 latency vs {name} ({workload})"),
        x_label,
        "p50 latency (µs)",
        true,
        |r| r.latency_us.map(|l| l.p50),
    )?;
    plot(
        &dir.join(format!("{name}_p999.svg")),
        results,
        &format!("p99.9 latency vs {name} ({workload})"),
        x_label,
        "p99.9 latency (µs)",
        true,
        |r| r.latency_us.map(|l| l.p999),
    )?;
    plot(
        &dir.join(format!("{name}_cpu.svg")),
        results,
        &format!("the nodes' own CPU vs {name} (cores)"),
        x_label,
        "node processes' CPU (cores)",
        false,
        |r| Some(r.nodes_cpu_cores),
    )
}

fn plot(
    path: &Path,
    results: &[TopicsResult],
    title: &str,
    x_label: &str,
    y_label: &str,
    log_y: bool,
    y_of: fn(&TopicsResult) -> Option<f64>,
) -> anyhow::Result<()> {
    // (mode, point, median over rounds, held without loss in every round)
    let mut points: Vec<(Mode, f64, f64, bool)> = Vec::new();
    let mut keys: Vec<(Mode, usize)> = results.iter().map(|r| (r.case.mode, r.case.x())).collect();
    keys.sort();
    keys.dedup();
    for (mode, x) in keys {
        let runs: Vec<&TopicsResult> = results
            .iter()
            .filter(|r| r.case.mode == mode && r.case.x() == x && r.error.is_none())
            .collect();
        if let Some(median) = Spread::of(runs.iter().filter_map(|r| y_of(r))) {
            let lossless = runs.iter().all(|r| r.lossless());
            points.push((mode, x as f64, median.median.max(0.01), lossless));
        }
    }
    let root = SVGBackend::new(path, (900, 560)).into_drawing_area();
    root.fill(&WHITE).context("cannot draw the plot")?;
    if points.is_empty() {
        return root.present().context("cannot draw the plot");
    }
    let fold = |f: fn(f64, f64) -> f64, init, of: fn(&(Mode, f64, f64, bool)) -> f64| {
        points.iter().map(of).fold(init, f)
    };
    let (x_min, x_max) = (
        fold(f64::min, f64::MAX, |p| p.1),
        fold(f64::max, f64::MIN, |p| p.1),
    );
    let (y_min, y_max) = (
        fold(f64::min, f64::MAX, |p| p.2),
        fold(f64::max, f64::MIN, |p| p.2),
    );
    let mut builder = ChartBuilder::on(&root);
    builder
        .caption(title, ("sans-serif", 22))
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(70);
    let x_range = (x_min * 0.8..x_max * 1.25).log_scale();
    let series = |mode: Mode| -> Vec<(f64, f64, bool)> {
        points
            .iter()
            .filter(|p| p.0 == mode)
            .map(|p| (p.1, p.2, p.3))
            .collect()
    };
    let mut modes: Vec<Mode> = points.iter().map(|p| p.0).collect();
    modes.dedup();
    macro_rules! draw_chart {
        ($chart:expr) => {{
            let mut chart = $chart.context("cannot draw the plot")?;
            chart
                .configure_mesh()
                .x_desc(x_label)
                .y_desc(y_label)
                .draw()
                .context("cannot draw the plot")?;
            for (index, &mode) in modes.iter().enumerate() {
                let color = COLORS[index % COLORS.len()];
                let line = series(mode);
                chart
                    .draw_series(LineSeries::new(
                        line.iter().map(|p| (p.0, p.1)),
                        color.stroke_width(2),
                    ))
                    .context("cannot draw the plot")?
                    .label(mode.name())
                    .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2)));
                chart
                    .draw_series(line.iter().map(|p| {
                        let style = if p.2 {
                            color.filled()
                        } else {
                            color.stroke_width(2)
                        };
                        Circle::new((p.0, p.1), 4, style)
                    }))
                    .context("cannot draw the plot")?;
            }
            chart
                .configure_series_labels()
                .background_style(WHITE.mix(0.8))
                .border_style(BLACK)
                .position(SeriesLabelPosition::UpperLeft)
                .draw()
                .context("cannot draw the plot")?;
        }};
    }
    if log_y {
        draw_chart!(builder.build_cartesian_2d(x_range, (y_min * 0.8..y_max * 1.25).log_scale()));
    } else {
        draw_chart!(builder.build_cartesian_2d(x_range, 0.0..(y_max * 1.1).max(1.0)));
    }
    root.present()
        .context("cannot draw the plot")
        .with_context(|| format!("cannot write {}", path.display()))
}
