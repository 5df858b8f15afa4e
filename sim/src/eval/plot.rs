//! Plots of a sweep in the style of the paper (HPCA 2003): Fig. 9 (theoretical false-positive bound),
//! Fig. 10–12 (error split NP/NN/FP/FN as stacked bars per table count and C/R option), Fig. 13
//! (error of every interval, best single hash vs best multi-hash), and a peer comparison.
//!
//! Every figure is written as SVG and PNG. Text is drawn with DejaVu Sans Mono, bundled
//! (`sim/assets/`, Bitstream Vera / DejaVu licence beside it) so that PNGs render the same on a
//! machine without any system fonts.

use crate::eval::metric::Split;
use crate::eval::sweep::{rows_by_point, Row};
use plotters::coord::ranged1d::ValueFormatter;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::{Path, PathBuf};

const FONT: &str = "sans-serif";

/// Every figure's legend: upper right, on a translucent white box.
fn legend<'a, DB: DrawingBackend + 'a, CT: plotters::coord::CoordTranslate>(
    chart: &mut ChartContext<'a, DB, CT>,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .label_font((FONT, 13))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
}

/// The frame of the line and scatter charts: title, margin and room for the axis labels.
fn xy_frame<'a, 'b, DB: DrawingBackend>(
    root: &'a DrawingArea<DB, Shift>,
    title: &'b str,
) -> ChartBuilder<'a, 'b, DB> {
    let mut builder = ChartBuilder::on(root);
    builder
        .caption(title, (FONT, 20))
        .margin(12)
        .x_label_area_size(44)
        .y_label_area_size(72);
    builder
}

/// The mesh and axis descriptions of the line and scatter charts, on linear or log axes alike.
fn xy_mesh<DB, X, Y>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<X, Y>>,
    x_desc: &str,
    y_desc: &str,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>>
where
    DB: DrawingBackend,
    X: Ranged + ValueFormatter<X::ValueType>,
    Y: Ranged + ValueFormatter<Y::ValueType>,
{
    chart
        .configure_mesh()
        .x_desc(x_desc)
        .y_desc(y_desc)
        .label_style((FONT, 14))
        .axis_desc_style((FONT, 15))
        .draw()
}
static FONT_BYTES: &[u8] = include_bytes!("../../assets/DejaVuSansMono.ttf");

fn register_font() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // The bundled file is a valid TrueType font; a failure here is a build defect.
        plotters::style::register_font(FONT, FontStyle::Normal, FONT_BYTES)
            .unwrap_or_else(|_| panic!("bundled font sim/assets/DejaVuSansMono.ttf is invalid"));
    });
}

const SIZE: (u32, u32) = (960, 540);
/// Colours of NP, NN, FP, FN.
const SPLIT_COLOURS: [RGBColor; 4] = [
    RGBColor(66, 133, 244),
    RGBColor(52, 168, 83),
    RGBColor(234, 67, 53),
    RGBColor(251, 188, 5),
];
const SPLIT_NAMES: [&str; 4] = [
    "neutral positive",
    "neutral negative",
    "false positive",
    "false negative",
];

type DrawResult = Result<(), String>;

/// Draws `f` into `<stem>.svg` and `<stem>.png`; returns both paths.
fn both(stem: &Path, f: &impl Figure) -> Result<Vec<PathBuf>, String> {
    register_font();
    if let Some(dir) = stem.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let svg = stem.with_extension("svg");
    let png = stem.with_extension("png");
    {
        let root = SVGBackend::new(&svg, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        f.draw(&root)?;
        root.present()
            .map_err(|e| format!("{}: {e}", svg.display()))?;
    }
    {
        let root = BitMapBackend::new(&png, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        f.draw(&root)?;
        root.present()
            .map_err(|e| format!("{}: {e}", png.display()))?;
    }
    Ok(vec![svg, png])
}

/// A figure that draws on any backend (plotters' error types differ per backend).
trait Figure {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static;
}

macro_rules! any_backend {
    ($name:ident, |$root:ident, $($arg:ident : $ty:ty),*| $body:block) => {
        struct $name<'a> { $($arg: &'a $ty),* }
        impl Figure for $name<'_> {
            fn draw<DB: DrawingBackend>(&self, $root: &DrawingArea<DB, Shift>) -> DrawResult
            where DB::ErrorType: 'static {
                let $name { $($arg),* } = self;
                $(let $arg: &$ty = $arg;)*
                $body
            }
        }
    };
}

fn e<E: std::fmt::Display>(x: E) -> String {
    x.to_string()
}

/// A group of stacked bars: (group label, [(bar label, split)]).
pub type BarGroup = (String, Vec<(String, Split)>);

any_backend!(StackedBars, |root, title: str, groups: [BarGroup]| {
    let per = groups.iter().map(|g| g.1.len()).max().unwrap_or(1).max(1) as i32;
    let width = per * 10 + 10;
    let top = groups
        .iter()
        .flat_map(|g| g.1.iter().map(|b| b.1.total()))
        .fold(0.0f64, f64::max)
        * 100.0;
    let ymax = if top <= 0.0 { 1.0 } else { top * 1.4 };
    let n = groups.len() as i32;
    let mut chart = ChartBuilder::on(root)
        .caption(title, (FONT, 20))
        .margin(12)
        .x_label_area_size(84)
        .y_label_area_size(64)
        .build_cartesian_2d(0..(n * width).max(1), 0.0..ymax)
        .map_err(e)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .disable_x_axis()
        .y_desc("error (% of the perfect profile)")
        .label_style((FONT, 14))
        .axis_desc_style((FONT, 15))
        .draw()
        .map_err(e)?;
    for (gi, (glabel, bars)) in groups.iter().enumerate() {
        let x0 = gi as i32 * width + 5;
        for (bi, (blabel, s)) in bars.iter().enumerate() {
            let (l, r) = (x0 + bi as i32 * 10 + 1, x0 + bi as i32 * 10 + 9);
            let mut y = 0.0;
            for (k, v) in [s.np, s.nn, s.fp, s.fn_].into_iter().enumerate() {
                let h = v * 100.0;
                if h > 0.0 {
                    chart
                        .draw_series(std::iter::once(Rectangle::new(
                            [(l, y), (r, y + h)],
                            SPLIT_COLOURS[k].filled(),
                        )))
                        .map_err(e)?;
                }
                y += h;
            }
            // Labels below the axis, in pixels (chart coordinates are clamped to the plot area).
            let (px, py) = chart.backend_coord(&(l, 0.0));
            root.draw(&Text::new(
                blabel.clone(),
                (px + 2, py + 6),
                (FONT, 11).into_font().transform(FontTransform::Rotate90),
            ))
            .map_err(e)?;
        }
        let (gx, gy) = chart.backend_coord(&(x0 + bars.len() as i32 * 5, 0.0));
        root.draw(&Text::new(
            glabel.clone(),
            (gx - 4 * glabel.len() as i32, gy + 50),
            (FONT, 14),
        ))
        .map_err(e)?;
    }
    for k in 0..4 {
        let c = SPLIT_COLOURS[k];
        chart
            .draw_series(std::iter::once(Rectangle::new(
                [(0, 0.0), (0, 0.0)],
                c.filled(),
            )))
            .map_err(e)?
            .label(SPLIT_NAMES[k])
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], c.filled()));
    }
    legend(&mut chart).map_err(e)?;
    Ok(())
});

/// Writes a stacked-bar chart (SVG and PNG).
pub fn stacked_bars(stem: &Path, title: &str, groups: &[BarGroup]) -> Result<Vec<PathBuf>, String> {
    let d = StackedBars { title, groups };
    both(stem, &d)
}

any_backend!(
    Lines,
    |root,
     title: str,
     x_desc: str,
     y_desc: str,
     log_y: bool,
     series: [(String, Vec<(f64, f64)>)]| {
        let pts = series.iter().flat_map(|s| s.1.iter());
        let xmax = pts.clone().map(|p| p.0).fold(1.0f64, f64::max);
        let ymax = pts.clone().map(|p| p.1).fold(0.0f64, f64::max).max(1e-9);
        let ymin = pts
            .map(|p| p.1)
            .filter(|&y| y > 0.0)
            .fold(f64::MAX, f64::min)
            .min(ymax);
        let colours = [
            RGBColor(219, 68, 55),
            RGBColor(66, 133, 244),
            RGBColor(15, 157, 88),
            RGBColor(120, 120, 120),
        ];
        let mut builder = xy_frame(root, title);
        macro_rules! body {
            ($chart:ident) => {{
                xy_mesh(&mut $chart, x_desc, y_desc).map_err(e)?;
                for (i, (name, p)) in series.iter().enumerate() {
                    let c = colours[i % colours.len()];
                    $chart
                        .draw_series(LineSeries::new(p.iter().copied(), c.stroke_width(2)))
                        .map_err(e)?
                        .label(name.clone())
                        .legend(move |(x, y)| {
                            PathElement::new(vec![(x, y), (x + 16, y)], c.stroke_width(2))
                        });
                    $chart
                        .draw_series(p.iter().map(|&q| Circle::new(q, 3, c.filled())))
                        .map_err(e)?;
                }
                legend(&mut $chart).map_err(e)?;
            }};
        }
        if *log_y {
            let mut chart = builder
                .build_cartesian_2d(0.0..xmax * 1.02, (ymin * 0.5..ymax * 2.0).log_scale())
                .map_err(e)?;
            body!(chart);
        } else {
            let mut chart = builder
                .build_cartesian_2d(0.0..xmax * 1.02, 0.0..ymax * 1.1)
                .map_err(e)?;
            body!(chart);
        }
        Ok(())
    }
);

/// Writes a line chart (SVG and PNG).
pub fn lines(
    stem: &Path,
    title: &str,
    x_desc: &str,
    y_desc: &str,
    log_y: bool,
    series: &[(String, Vec<(f64, f64)>)],
) -> Result<Vec<PathBuf>, String> {
    let d = Lines {
        title,
        x_desc,
        y_desc,
        log_y: &log_y,
        series,
    };
    both(stem, &d)
}

/// The paper's Fig. 9: probability that a tuple becomes a false positive, (100·n / (t·Z))^n, for a
/// threshold of t = 1 % and Z ∈ {500, 1000, 2000} counters split over n = 1..=8 tables.
pub fn false_positive_bound(n: u32, z: f64, t_percent: f64) -> f64 {
    (100.0 * n as f64 / (t_percent * z)).powi(n as i32)
}

pub fn fig9(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let series: Vec<(String, Vec<(f64, f64)>)> = [500.0, 1000.0, 2000.0]
        .iter()
        .map(|&z| {
            (
                format!("{z} entries"),
                (1..=8)
                    .map(|n| (n as f64, false_positive_bound(n, z, 1.0)))
                    .collect(),
            )
        })
        .collect();
    lines(
        &dir.join("fig9-fp-bound"),
        "Fig. 9: false-positive bound (100n/(tZ))^n, t = 1%",
        "hash tables n",
        "P(false positive)",
        true,
        &series,
    )
}

fn split_of(r: &Row) -> Split {
    Split {
        np: r.np,
        nn: r.nn,
        fp: r.fp,
        fn_: r.fn_,
    }
}

fn point_name(interval: u64, threshold: u64) -> String {
    let l = if interval.is_multiple_of(1_000_000) {
        format!("{}M", interval / 1_000_000)
    } else if interval.is_multiple_of(1000) {
        format!("{}K", interval / 1000)
    } else {
        interval.to_string()
    };
    format!("{l}-T{threshold}")
}

/// Every figure of a sweep into `dir`: Fig. 9, and per trace and (L, T): the error split by tables
/// × C/R (Fig. 10–12, when the rows hold that grid), per-interval error of the best single vs best
/// multi-hash (Fig. 13), and the peers against the paper preset (when the rows hold peers).
pub fn sweep_figures(rows: &[Row], dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut out = fig9(dir)?;
    for ((trace, l, t), here) in rows_by_point(rows) {
        let prof: Vec<&Row> = here
            .iter()
            .copied()
            .filter(|r| r.scheme.ends_with("-hash"))
            .collect();
        let stem = format!("{}-{}", sanitize(trace), point_name(l, t));
        let pname = format!("L={l}, T={t}");
        // Fig. 10–12: groups by table count, bars C0R0 C1R0 C0R1 C1R1 (first row of each).
        let mut tables: Vec<usize> = prof.iter().map(|r| r.tables).collect();
        tables.sort_unstable();
        tables.dedup();
        let groups: Vec<BarGroup> = tables
            .iter()
            .map(|&n| {
                let bars = ["C0R0", "C1R0", "C0R1", "C1R1"]
                    .iter()
                    .filter_map(|cr| {
                        prof.iter()
                            .find(|r| r.tables == n && r.cr == *cr)
                            .map(|r| (cr.to_string(), split_of(r)))
                    })
                    .collect();
                (format!("n={n}"), bars)
            })
            .filter(|g: &BarGroup| !g.1.is_empty())
            .collect();
        if !groups.is_empty() {
            out.extend(stacked_bars(
                &dir.join(format!("{stem}-split")),
                &format!("{trace}, {pname}: error split by tables and C/R"),
                &groups,
            )?);
        }
        // Fig. 13: the best single hash and the best multi-hash, every interval.
        let best = |single: bool| {
            prof.iter()
                .copied()
                .filter(|r| (r.tables == 1) == single)
                .min_by(|a, b| a.net_error.total_cmp(&b.net_error))
        };
        let series: Vec<(String, Vec<(f64, f64)>)> = [best(true), best(false)]
            .into_iter()
            .flatten()
            .map(|r| {
                (
                    format!("{} ({:.2}%)", short(&r.config), 100.0 * r.net_error),
                    r.per_interval
                        .iter()
                        .enumerate()
                        .map(|(i, &x)| (i as f64, 100.0 * x))
                        .collect(),
                )
            })
            .collect();
        if !series.is_empty() {
            out.extend(lines(
                &dir.join(format!("{stem}-intervals")),
                &format!("{trace}, {pname}: error per interval"),
                "interval",
                "error (%)",
                false,
                &series,
            )?);
        }
        // Peers at the paper preset's memory.
        let peers: Vec<&Row> = here
            .iter()
            .copied()
            .filter(|r| !r.scheme.ends_with("-hash"))
            .collect();
        if !peers.is_empty() {
            let mut bars: Vec<(String, Split)> = Vec::new();
            if let Some(r) = prof
                .iter()
                .find(|r| r.tables == 4 && r.entries == 512 && r.cr == "C1R0")
            {
                bars.push(("paper 4x512".into(), split_of(r)));
            }
            if let Some(r) = prof.iter().find(|r| r.tables == 1 && r.cr == "C0R1") {
                bars.push(("single C0R1".into(), split_of(r)));
            }
            for r in peers {
                let label = match r.scheme.as_str() {
                    "stratified" => format!(
                        "strat Ts={}",
                        r.config
                            .split("Ts=")
                            .nth(1)
                            .and_then(|s| s.split(' ').next())
                            .unwrap_or("?")
                    ),
                    "datasketches" if r.config.contains("lower-bound") => "datasketch lb".into(),
                    "datasketches" => "datasketch est".into(),
                    s => s.to_string(),
                };
                bars.push((label, split_of(r)));
            }
            out.extend(stacked_bars(
                &dir.join(format!("{stem}-peers")),
                &format!("{trace}, {pname}: peers at the same memory"),
                &[(String::new(), bars)],
            )?);
        }
    }
    Ok(out)
}

fn short(config: &str) -> String {
    config.split(" L=").next().unwrap_or(config).to_string()
}

fn sanitize(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bound_matches_the_paper() {
        // 1 table, 1000 entries, 1 %: 0.1; 2 tables: (0.2)^2.
        assert!((false_positive_bound(1, 1000.0, 1.0) - 0.1).abs() < 1e-12);
        assert!((false_positive_bound(2, 1000.0, 1.0) - 0.04).abs() < 1e-12);
    }

    #[test]
    fn writes_svg_and_png() {
        let dir = std::env::temp_dir().join(format!("hwprof-plot-{}", std::process::id()));
        let files = fig9(&dir).unwrap();
        let s = Split {
            np: 0.01,
            nn: 0.0,
            fp: 0.02,
            fn_: 0.005,
        };
        let files2 = stacked_bars(
            &dir.join("bars"),
            "t",
            &[("n=1".into(), vec![("C0R0".into(), s), ("C1R0".into(), s)])],
        )
        .unwrap();
        for f in files.iter().chain(&files2) {
            let b = std::fs::read(f).unwrap();
            if f.extension().unwrap() == "png" {
                assert_eq!(&b[..4], b"\x89PNG");
                assert!(b.len() > 5000, "a PNG with content");
            } else {
                let t = String::from_utf8(b).unwrap();
                assert!(t.contains("<svg") && t.contains("<text"), "SVG has text");
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

const SERIES_COLOURS: [RGBColor; 5] = [
    RGBColor(66, 133, 244),
    RGBColor(219, 68, 55),
    RGBColor(15, 157, 88),
    RGBColor(244, 160, 0),
    RGBColor(120, 120, 120),
];

any_backend!(
    Scatter,
    |root,
     title: str,
     x_desc: str,
     y_desc: str,
     log_x: bool,
     series: [(String, Vec<(f64, f64)>)],
     level: Option<(String, f64)>| {
        let pts = series.iter().flat_map(|s| s.1.iter());
        let xmax = pts.clone().map(|p| p.0).fold(1.0f64, f64::max);
        let xmin = pts.clone().map(|p| p.0).fold(xmax, f64::min).max(1e-9);
        let ymax = pts
            .map(|p| p.1)
            .chain(level.iter().map(|l| l.1))
            .fold(1e-9f64, f64::max);
        // Headroom above the highest point for the legend (upper right), a line per entry, so
        // that it never hides a point.
        let entries = series.len() + usize::from(level.is_some());
        let ytop = ymax * (1.1 + 0.08 * entries as f64);
        let mut builder = xy_frame(root, title);
        macro_rules! body {
            ($chart:ident, $x0:expr, $x1:expr) => {{
                xy_mesh(&mut $chart, x_desc, y_desc).map_err(e)?;
                if let Some((name, y)) = level {
                    let c = BLACK.mix(0.6);
                    $chart
                        .draw_series(LineSeries::new(
                            vec![($x0, *y), ($x1, *y)],
                            c.stroke_width(1),
                        ))
                        .map_err(e)?
                        .label(name.clone())
                        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], c));
                }
                for (i, (name, p)) in series.iter().enumerate() {
                    let c = SERIES_COLOURS[i % SERIES_COLOURS.len()];
                    let r = if i + 1 == series.len() && p.len() == 1 {
                        7
                    } else {
                        3
                    };
                    $chart
                        .draw_series(p.iter().map(|&q| Circle::new(q, r, c.filled())))
                        .map_err(e)?
                        .label(name.clone())
                        .legend(move |(x, y)| Circle::new((x + 8, y), 4, c.filled()));
                }
                legend(&mut $chart).map_err(e)?;
            }};
        }
        if *log_x {
            let (x0, x1) = (xmin * 0.8, xmax * 1.25);
            let mut chart = builder
                .build_cartesian_2d((x0..x1).log_scale(), 0.0..ytop)
                .map_err(e)?;
            body!(chart, x0, x1);
        } else {
            // From 0, unless every point sits in the upper half (then the axis would be mostly
            // empty): from a little below the smallest.
            let x0 = if xmin > 0.5 * xmax {
                xmin - 0.1 * (xmax - xmin).max(0.05 * xmax)
            } else {
                0.0
            };
            let x1 = xmax + 0.05 * (xmax - x0);
            let mut chart = builder.build_cartesian_2d(x0..x1, 0.0..ytop).map_err(e)?;
            body!(chart, x0, x1);
        }
        Ok(())
    }
);

/// Writes a scatter chart (SVG and PNG): one colour a series; a series of a single point (the last
/// one, e.g. a reference) is drawn larger; `level` is a labelled horizontal line.
pub fn scatter(
    stem: &Path,
    title: &str,
    (x_desc, y_desc): (&str, &str),
    log_x: bool,
    series: &[(String, Vec<(f64, f64)>)],
    level: Option<(String, f64)>,
) -> Result<Vec<PathBuf>, String> {
    let d = Scatter {
        title,
        x_desc,
        y_desc,
        log_x: &log_x,
        series,
        level: &level,
    };
    both(stem, &d)
}

/// Colour of a phase id in the similarity figure's strip.
fn phase_colour(p: u32) -> RGBColor {
    const C: [RGBColor; 10] = [
        RGBColor(66, 133, 244),
        RGBColor(219, 68, 55),
        RGBColor(15, 157, 88),
        RGBColor(244, 160, 0),
        RGBColor(171, 71, 188),
        RGBColor(0, 172, 193),
        RGBColor(255, 112, 67),
        RGBColor(158, 157, 36),
        RGBColor(92, 107, 192),
        RGBColor(240, 98, 146),
    ];
    C[p as usize % C.len()]
}

/// Writes the similarity matrix of a run (PNG only: a heatmap of n² cells is a poor SVG): cell
/// (i, j) dark where intervals i and j execute the same code (distance 0), white where they share
/// nothing (distance 2); along the bottom, a strip coloured by the phase each interval was given.
pub fn similarity(
    png: &Path,
    title: &str,
    matrix: &[Vec<f64>],
    phases: &[u32],
) -> Result<PathBuf, String> {
    register_font();
    if let Some(dir) = png.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let n = matrix.len().max(1);
    // With more intervals than cells, a cell is a group of consecutive intervals: the axes still
    // count intervals.
    let m = phases.len().max(n);
    let interval_of = |cell: &usize| (cell * m / n).to_string();
    let root = BitMapBackend::new(png, (760, 800)).into_drawing_area();
    root.fill(&WHITE).map_err(e)?;
    let (top, strip) = root.split_vertically(760);
    let mut chart = ChartBuilder::on(&top)
        .caption(title, (FONT, 18))
        .margin(10)
        .x_label_area_size(36)
        .y_label_area_size(52)
        .build_cartesian_2d(0..n, 0..n)
        .map_err(e)?;
    chart
        .configure_mesh()
        .disable_mesh()
        .x_desc("interval")
        .y_desc("interval")
        .x_label_formatter(&interval_of)
        .y_label_formatter(&interval_of)
        .label_style((FONT, 12))
        .draw()
        .map_err(e)?;
    chart
        .draw_series(matrix.iter().enumerate().flat_map(|(i, row)| {
            row.iter().enumerate().map(move |(j, &d)| {
                let v = (255.0 * (d / 2.0).clamp(0.0, 1.0)) as u8;
                Rectangle::new([(i, j), (i + 1, j + 1)], RGBColor(v, v, v).filled())
            })
        }))
        .map_err(e)?;
    let (x0, _) = chart.backend_coord(&(0, 0));
    let (x1, _) = chart.backend_coord(&(n, 0));
    let m = phases.len().max(1);
    for (k, &p) in phases.iter().enumerate() {
        let l = x0 + ((x1 - x0) as i64 * k as i64 / m as i64) as i32;
        let r = x0 + ((x1 - x0) as i64 * (k + 1) as i64 / m as i64) as i32;
        strip
            .draw(&Rectangle::new(
                [(l, 4), (r.max(l + 1), 30)],
                phase_colour(p).filled(),
            ))
            .map_err(e)?;
    }
    root.present()
        .map_err(|x| format!("{}: {x}", png.display()))?;
    Ok(png.to_path_buf())
}

/// Writes a heat map of tuples (rows, labelled) over intervals (columns): the darker a cell, the
/// larger the tuple's count in that interval. SVG or PNG by the file's extension.
pub fn heat_map(
    path: &Path,
    title: &str,
    labels: &[String],
    intervals: &[u64],
    counts: &[Vec<u64>],
) -> Result<PathBuf, String> {
    let f = HeatMap {
        title,
        labels,
        intervals,
        counts,
    };
    register_font();
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let size = (1100, 160 + 24 * labels.len().max(1) as u32);
    let png = path.extension().is_some_and(|x| x == "png");
    if png {
        let root = BitMapBackend::new(path, size).into_drawing_area();
        root.fill(&WHITE).map_err(e)?;
        f.draw(&root)?;
        root.present()
            .map_err(|x| format!("{}: {x}", path.display()))?;
    } else {
        let root = SVGBackend::new(path, size).into_drawing_area();
        root.fill(&WHITE).map_err(e)?;
        f.draw(&root)?;
        root.present()
            .map_err(|x| format!("{}: {x}", path.display()))?;
    }
    Ok(path.to_path_buf())
}

any_backend!(HeatMap, |root,
                       title: str,
                       labels: [String],
                       intervals: [u64],
                       counts: [Vec<u64>]| {
    let rows = labels.len().max(1);
    let cols = intervals.len().max(1);
    let max = counts.iter().flatten().copied().max().unwrap_or(0).max(1) as f64;
    // Rows are segments, labelled at their centres; the top row is the hottest tuple.
    let label_of = |r: &SegmentValue<usize>| match r {
        SegmentValue::CenterOf(r) if *r < rows => {
            labels.get(rows - 1 - r).cloned().unwrap_or_default()
        }
        _ => String::new(),
    };
    let interval_of = |c: &usize| intervals.get(*c).map(|i| i.to_string()).unwrap_or_default();
    let mut chart = ChartBuilder::on(root)
        .caption(title, (FONT, 18))
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(420)
        .build_cartesian_2d(0..cols, (0..rows).into_segmented())
        .map_err(e)?;
    chart
        .configure_mesh()
        .disable_mesh()
        .x_desc("interval")
        .x_labels(cols.min(12))
        .y_labels(rows)
        .x_label_formatter(&interval_of)
        .y_label_formatter(&label_of)
        .label_style((FONT, 12))
        .draw()
        .map_err(e)?;
    chart
        .draw_series(counts.iter().enumerate().flat_map(|(r, row)| {
            let y = rows - 1 - r;
            row.iter().enumerate().map(move |(c, &n)| {
                let v = 255 - (230.0 * (n as f64 / max)) as u8;
                Rectangle::new(
                    [
                        (c, SegmentValue::Exact(y)),
                        (c + 1, SegmentValue::Exact(y + 1)),
                    ],
                    RGBColor(v, v, 255).filled(),
                )
            })
        }))
        .map_err(e)?;
    Ok(())
});
