//! `cargo xtask versus SVG NAME=CSV... [--points NAME=CSV]`: learning
//! curves of several training runs on one plot, against training minutes
//! (left panel) and episodes (right panel), both on log scales: the
//! 16384 reach rate of self-play episodes, the figure a recipe is judged by.
//! A points file adds single measured figures (a public trainer's, say) as
//! markers.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use crate::curve::{self, Row};
use crate::svg::{self, Page};
use crate::util::Result;

/// Line colours, one per curve, in the order given.
const COLORS: [&str; 6] = ["#08519c", "#e6550d", "#31a354", "#756bb1", "#636363", "#d6616b"];
/// The points' colour.
const POINT_COLOR: &str = "#000000";
const PAGE: Page = Page {
    width: 900.0,
    left: 60.0,
    right: 20.0,
    top: 40.0,
    bottom: 70.0,
    title_y: 20.0,
    title_size: 14,
};
const HEIGHT: f64 = 420.0;
/// The gap between the two panels.
const GAP: f64 = 50.0;
/// The distance between two rows of the legend.
const LEGEND_ROW: f64 = 18.0;
const TITLE: &str = "Learning curves: self-play episodes reaching 16384";
/// The index of 16384 among the curve's reach rates.
const REACH_16384: usize = 3;

/// A named series: a curve's rows, or the measured points.
#[derive(Debug, Clone, PartialEq)]
struct Series {
    name: String,
    rows: Vec<Row>,
}

/// `NAME=PATH`, as given on the command line.
pub(crate) fn parse_named(text: &str) -> std::result::Result<(String, PathBuf), String> {
    match text.split_once('=') {
        Some((name, path)) if !name.is_empty() && !path.is_empty() => {
            Ok((name.to_owned(), PathBuf::from(path)))
        }
        _ => Err(format!("expected NAME=FILE, not `{text}`")),
    }
}

pub(crate) fn run(
    svg_path: &Path,
    curves: &[(String, PathBuf)],
    points: Option<&(String, PathBuf)>,
) -> Result<()> {
    if curves.is_empty() {
        return Err("give at least one NAME=CSV curve".into());
    }
    if curves.len() > COLORS.len() {
        return Err(format!("at most {} curves on one plot", COLORS.len()).into());
    }
    let read = |(name, path): &(String, PathBuf)| -> Result<Series> {
        let shown = path.display();
        let text = fs::read_to_string(path).map_err(|e| format!("cannot read {shown}: {e}"))?;
        let rows = curve::parse(&text).map_err(|e| format!("{shown}: {e}"))?;
        if rows.is_empty() {
            return Err(format!("{shown} has no rows").into());
        }
        Ok(Series { name: name.clone(), rows })
    };
    let curves = curves.iter().map(read).collect::<Result<Vec<_>>>()?;
    let points = points.map(read).transpose()?;
    let out = render(&curves, points.as_ref());
    let shown = svg_path.display();
    fs::write(svg_path, out).map_err(|e| format!("cannot write {shown}: {e}"))?;
    println!(
        "{shown}: {} curves{}",
        curves.len(),
        if points.is_some() { " and points" } else { "" }
    );
    for s in &curves {
        let last = s.rows.last().expect("checked non-empty");
        println!(
            "  {}: {} rows, last at {} episodes ({:.1} min): 16384 in {:.1}%",
            s.name,
            s.rows.len(),
            last.episodes,
            last.hours * 60.0,
            100.0 * last.reach[REACH_16384]
        );
    }
    Ok(())
}

/// A log-scaled axis from `lo` to `hi` (powers of ten, rounded out) over a
/// span of the page.
#[derive(Debug, Clone, Copy, PartialEq)]
struct LogAxis {
    lo: f64,
    hi: f64,
    start: f64,
    width: f64,
}

impl LogAxis {
    fn over(values: impl Iterator<Item = f64>, start: f64, width: f64) -> LogAxis {
        let (min, max) = values
            .filter(|v| *v > 0.0)
            .fold((f64::INFINITY, 0f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
        let (min, max) = if min.is_finite() { (min, max) } else { (1.0, 10.0) };
        let lo = 10f64.powf(min.log10().floor());
        let hi = 10f64.powf(max.log10().ceil()).max(lo * 10.0);
        LogAxis { lo, hi, start, width }
    }

    fn x(&self, v: f64) -> f64 {
        let t = (v.max(self.lo).log10() - self.lo.log10()) / (self.hi.log10() - self.lo.log10());
        self.start + self.width * t
    }

    /// The powers of ten from `lo` to `hi`.
    fn decades(&self) -> Vec<f64> {
        let (a, b) = (self.lo.log10().round() as i32, self.hi.log10().round() as i32);
        (a..=b).map(|e| 10f64.powi(e)).collect()
    }
}

fn minutes(r: &Row) -> f64 {
    r.hours * 60.0
}

fn episodes(r: &Row) -> f64 {
    r.episodes as f64
}

fn render(curves: &[Series], points: Option<&Series>) -> String {
    let all = || curves.iter().chain(points).flat_map(|s| s.rows.iter());
    let panel = (PAGE.plot_width() - GAP) / 2.0;
    let height = HEIGHT - PAGE.top - PAGE.bottom;
    let panels = [
        (
            "training minutes (2 threads)",
            LogAxis::over(all().map(minutes), PAGE.left, panel),
            minutes as fn(&Row) -> f64,
        ),
        ("episodes", LogAxis::over(all().map(episodes), PAGE.left + panel + GAP, panel), episodes),
    ];
    // The share axis up to the next 10% above the highest rate.
    let top = all().map(|r| r.reach[REACH_16384]).filter(|r| r.is_finite()).fold(0.0, f64::max);
    let top = ((top * 10.0).floor() + 1.0).min(10.0) / 10.0;
    let y = |share: f64| PAGE.top + height * (1.0 - share / top);
    let mut out = String::new();
    PAGE.open(&mut out, HEIGHT + legend_extra_height(curves, points), TITLE);
    for (label, axis, of) in &panels {
        frame(&mut out, axis, height, top, label, &y);
        for (s, color) in curves.iter().zip(COLORS) {
            let pts: Vec<String> = s
                .rows
                .iter()
                .filter(|r| r.reach[REACH_16384].is_finite())
                .map(|r| format!("{:.1},{:.1}", axis.x(of(r)), y(r.reach[REACH_16384])))
                .collect();
            let _ = writeln!(
                out,
                r#"<polyline fill="none" stroke="{color}" stroke-width="2" points="{}"/>"#,
                pts.join(" ")
            );
        }
        for r in points.iter().flat_map(|p| &p.rows).filter(|r| r.reach[REACH_16384].is_finite()) {
            let _ = writeln!(
                out,
                r#"<circle cx="{:.1}" cy="{:.1}" r="4.5" fill="none" stroke="{POINT_COLOR}" stroke-width="2"/>"#,
                axis.x(of(r)),
                y(r.reach[REACH_16384])
            );
        }
    }
    legend(&mut out, curves, points);
    svg::close(&mut out);
    out
}

/// A panel's frame, its share grid and labels, its decades and its name.
fn frame(
    out: &mut String,
    axis: &LogAxis,
    height: f64,
    top_share: f64,
    label: &str,
    y: &dyn Fn(f64) -> f64,
) {
    let (left, top, w) = (axis.start, PAGE.top, axis.width);
    let _ = writeln!(
        out,
        r##"<rect x="{left}" y="{top}" width="{w}" height="{height}" fill="none" stroke="#888"/>"##
    );
    let tenths = (top_share * 10.0).round() as u32;
    for k in 0..=tenths {
        let share = f64::from(k) / 10.0;
        svg::share_gridline(out, left, w, y(share), share);
    }
    for d in axis.decades() {
        let xx = axis.x(d);
        let _ = writeln!(
            out,
            r##"<line x1="{xx:.1}" x2="{xx:.1}" y1="{top}" y2="{}" stroke="#eee"/><text x="{xx:.1}" y="{}" text-anchor="middle">{}</text>"##,
            top + height,
            top + height + 16.0,
            format_decade(d)
        );
    }
    let _ = writeln!(
        out,
        r#"<text x="{:.1}" y="{}" text-anchor="middle">{} (log scale)</text>"#,
        left + w / 2.0,
        top + height + 34.0,
        svg::escape(label)
    );
}

/// The legend's entries (a curve's colour, or `None` for the points'
/// marker, and the name) with their places, in rows that wrap at the
/// page's right edge: the first row's baseline at `HEIGHT - 12`, each
/// further row `LEGEND_ROW` below it.
fn legend_layout<'a>(
    curves: &'a [Series],
    points: Option<&'a Series>,
) -> Vec<(Option<&'static str>, &'a str, f64, f64)> {
    let entries = curves
        .iter()
        .zip(COLORS)
        .map(|(s, color)| (Some(color), s.name.as_str()))
        .chain(points.map(|p| (None, p.name.as_str())));
    let right = PAGE.width - PAGE.right;
    let (mut x, mut y) = (PAGE.left, HEIGHT - 12.0);
    let mut placed = Vec::new();
    for (color, name) in entries {
        // About 6.5 px a character at 12 px, and the swatch before it.
        let width = 30.0 + 6.5 * name.chars().count() as f64;
        if x > PAGE.left && x + width > right {
            (x, y) = (PAGE.left, y + LEGEND_ROW);
        }
        placed.push((color, name, x, y));
        x += width;
    }
    placed
}

/// The legend's height past the first row.
fn legend_extra_height(curves: &[Series], points: Option<&Series>) -> f64 {
    legend_layout(curves, points).last().map_or(0.0, |&(.., y)| y - (HEIGHT - 12.0))
}

fn legend(out: &mut String, curves: &[Series], points: Option<&Series>) {
    for (color, name, x, y) in legend_layout(curves, points) {
        let swatch = match color {
            Some(color) => format!(
                r#"<line x1="{x}" x2="{}" y1="{}" y2="{}" stroke="{color}" stroke-width="3"/>"#,
                x + 16.0,
                y - 4.0,
                y - 4.0
            ),
            None => format!(
                r#"<circle cx="{}" cy="{}" r="4.5" fill="none" stroke="{POINT_COLOR}" stroke-width="2"/>"#,
                x + 8.0,
                y - 4.0
            ),
        };
        let _ =
            writeln!(out, r#"{swatch}<text x="{}" y="{y}">{}</text>"#, x + 20.0, svg::escape(name));
    }
}

/// 1, 10, 100, 1k, 10k, 100k, 1M, ...; below 1 as a decimal.
fn format_decade(v: f64) -> String {
    match v {
        v if v >= 1e6 => format!("{}M", v / 1e6),
        v if v >= 1e3 => format!("{}k", v / 1e3),
        v => format!("{v}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CSV: &str = "episodes,moves,seconds,mean_score,reach_2048,reach_4096,reach_8192,reach_16384,reach_32768\n\
                       10000,100,60.0,20000.5,0.5,0.1,0,0.05,0\n20000,300,600.0,40000,0.9,0.5,0.1,0.3,0\n";

    #[test]
    fn draws_a_line_per_curve_in_both_panels_and_a_marker_per_point() {
        let rows = curve::parse(CSV).expect("valid");
        let curves = vec![
            Series { name: "new".into(), rows: rows.clone() },
            Series { name: "old & slow".into(), rows: rows.clone() },
        ];
        let points = Series { name: "public".into(), rows };
        let out = render(&curves, Some(&points));
        svg::assert_well_formed(&out);
        assert_eq!(out.matches("<polyline").count(), 4);
        assert_eq!(out.matches("<circle").count(), 5, "2 points x 2 panels + the legend's");
        assert!(out.contains("old &amp; slow"));
    }

    /// Long names wrap onto further rows inside the page, which grows to
    /// hold them; short ones share one row.
    #[test]
    fn the_legend_wraps_at_the_page_edge() {
        let rows = curve::parse(CSV).expect("valid");
        let named = |name: &str| Series { name: name.into(), rows: rows.clone() };
        let short = [named("a"), named("b")];
        assert_eq!(legend_extra_height(&short, None), 0.0);
        let long: Vec<Series> =
            (0..4).map(|i| named(&format!("a rather long curve name, number {i}"))).collect();
        let points = named("published figures of another trainer");
        let placed = legend_layout(&long, Some(&points));
        assert!(placed.iter().any(|&(.., y)| y > HEIGHT - 12.0), "wrapped");
        for &(_, name, x, _) in &placed {
            assert!(x + 30.0 + 6.5 * name.chars().count() as f64 <= PAGE.width - PAGE.right);
        }
        let out = render(&long, Some(&points));
        svg::assert_well_formed(&out);
        let height = HEIGHT + legend_extra_height(&long, Some(&points));
        assert!(out.contains(&format!(r#"height="{height}""#)), "the page holds the rows");
    }

    #[test]
    fn a_log_axis_spans_whole_decades() {
        let a = LogAxis::over([1.5, 340.0].into_iter(), 0.0, 300.0);
        assert_eq!((a.lo, a.hi), (1.0, 1000.0));
        assert_eq!(a.decades(), [1.0, 10.0, 100.0, 1000.0]);
        assert_eq!(a.x(10.0), 100.0);
        assert_eq!(a.x(0.0), 0.0, "clamped at the low end");
        assert_eq!(format_decade(1e5), "100k");
        assert_eq!(format_decade(2e6), "2M");
        assert_eq!(format_decade(0.1), "0.1");
    }

    #[test]
    fn names_need_a_file() {
        assert_eq!(parse_named("a=b.csv"), Ok(("a".into(), PathBuf::from("b.csv"))));
        assert!(parse_named("a.csv").is_err());
        assert!(parse_named("=a.csv").is_err());
    }
}
