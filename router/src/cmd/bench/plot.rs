//! The SVG plots of `zshm bench` (plotters): p50 latency against payload per mode on log axes,
//! and p50 latency against subscriber count; with rounds, each point is the median of its
//! rounds.

use std::path::Path;

use anyhow::Context;
use plotters::prelude::*;

use super::plan::{Mode, Sweep};
use super::result::CaseResult;
use super::spread::Spread;

/// One color per mode (there are nine).
pub(super) const COLORS: [RGBColor; 9] = [
    RED,
    BLUE,
    GREEN,
    MAGENTA,
    CYAN,
    BLACK,
    RGBColor(255, 140, 0),
    RGBColor(128, 0, 128),
    RGBColor(128, 128, 0),
];

/// Writes latency_vs_payload.svg and latency_vs_subscribers.svg.
pub(super) fn write_all(dir: &Path, results: &[CaseResult]) -> anyhow::Result<()> {
    plot(
        dir.join("latency_vs_payload.svg").as_path(),
        results,
        Sweep::Payload,
        "p50 latency vs payload",
        "payload (bytes)",
        |r| r.case.payload as f64,
    )?;
    plot(
        dir.join("latency_vs_subscribers.svg").as_path(),
        results,
        Sweep::FanOut,
        "p50 latency vs subscribers of one topic (4 MiB, 30 Hz)",
        "subscribers",
        |r| r.case.subscribers as f64,
    )
}

fn plot(
    path: &Path,
    results: &[CaseResult],
    sweep: Sweep,
    title: &str,
    x_label: &str,
    x_of: fn(&CaseResult) -> f64,
) -> anyhow::Result<()> {
    // One point per mode and x: the median p50 over the rounds.
    let mut rounds: Vec<(Mode, f64, f64)> = results
        .iter()
        .filter(|r| r.case.sweep == sweep)
        .filter_map(|r| r.p50().map(|p50| (r.case.mode, x_of(r), p50.max(0.1))))
        .collect();
    rounds.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
    let mut points: Vec<(Mode, f64, f64)> = Vec::new();
    for chunk in rounds.chunk_by(|a, b| a.0 == b.0 && a.1 == b.1) {
        if let Some(median) = Spread::of(chunk.iter().map(|p| p.2)) {
            points.push((chunk[0].0, chunk[0].1, median.median));
        }
    }
    let root = SVGBackend::new(path, (900, 560)).into_drawing_area();
    root.fill(&WHITE).context("cannot draw the plot")?;
    if points.is_empty() {
        root.present().context("cannot draw the plot")?;
        return Ok(());
    }
    let (x_min, x_max) = bounds(points.iter().map(|p| p.1));
    let (y_min, y_max) = bounds(points.iter().map(|p| p.2));
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 22))
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .build_cartesian_2d(
            (x_min * 0.8..x_max * 1.25).log_scale(),
            (y_min * 0.8..y_max * 1.25).log_scale(),
        )
        .context("cannot draw the plot")?;
    chart
        .configure_mesh()
        .x_desc(x_label)
        .y_desc("p50 latency (µs)")
        .draw()
        .context("cannot draw the plot")?;
    let mut modes: Vec<Mode> = points.iter().map(|p| p.0).collect();
    modes.sort();
    modes.dedup();
    for (index, mode) in modes.into_iter().enumerate() {
        let color = COLORS[index % COLORS.len()];
        let mut series: Vec<(f64, f64)> = points
            .iter()
            .filter(|p| p.0 == mode)
            .map(|p| (p.1, p.2))
            .collect();
        series.sort_by(|a, b| a.0.total_cmp(&b.0));
        chart
            .draw_series(LineSeries::new(series.clone(), color.stroke_width(2)))
            .context("cannot draw the plot")?
            .label(mode.name())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2)));
        chart
            .draw_series(series.into_iter().map(|p| Circle::new(p, 3, color.filled())))
            .context("cannot draw the plot")?;
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperLeft)
        .draw()
        .context("cannot draw the plot")?;
    root.present()
        .context("cannot draw the plot")
        .with_context(|| format!("cannot write {}", path.display()))
}

fn bounds(values: impl Iterator<Item = f64>) -> (f64, f64) {
    values.fold((f64::MAX, f64::MIN), |(lo, hi), v| (lo.min(v), hi.max(v)))
}
