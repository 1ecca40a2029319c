//! `cargo xtask curve CSV SVG`: the learning curve that `lab train`
//! writes, drawn as an SVG: reach rates of 2048 to 32768 (left axis) and the
//! mean score (right axis) against training hours.

use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use crate::svg::{self, Page};
use crate::util::Result;

/// One row of the curve: training hours, mean score, reach rates.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Row {
    pub(crate) episodes: u64,
    pub(crate) hours: f64,
    pub(crate) mean_score: f64,
    /// The reach rates of 2048 to 32768.
    pub(crate) reach: Vec<f64>,
}

const COLORS: [&str; 5] = ["#9ecae1", "#6baed6", "#3182bd", "#08519c", "#e6550d"];
/// The page; the right margin holds the score axis.
const PAGE: Page = Page {
    width: 760.0,
    left: 60.0,
    right: 80.0,
    top: 40.0,
    bottom: 50.0,
    title_y: 20.0,
    title_size: 14,
};
const HEIGHT: f64 = 400.0;
const TITLE: &str = "Learning curve: reach rates and mean score of self-play episodes";

pub(crate) fn run(csv: &Path, svg: &Path) -> Result<()> {
    let (csv_name, svg_name) = (csv.display(), svg.display());
    let text = fs::read_to_string(csv).map_err(|e| format!("cannot read {csv_name}: {e}"))?;
    let rows = parse(&text).map_err(|e| format!("{csv_name}: {e}"))?;
    fs::write(svg, render(&rows)).map_err(|e| format!("cannot write {svg_name}: {e}"))?;
    let last = rows.last().ok_or("the curve has no rows")?;
    println!(
        "{svg_name}: {} rows, last at {} episodes ({:.2} h): mean score {:.0}",
        rows.len(),
        last.episodes,
        last.hours,
        last.mean_score
    );
    Ok(())
}

/// The rows of a curve file `lab train` wrote (the format is the
/// records crate's), with the time in hours.
pub(crate) fn parse(text: &str) -> Result<Vec<Row>, String> {
    let rows = records::curve::parse(text).map_err(|e| e.to_string())?;
    Ok(rows
        .into_iter()
        .map(|r| Row {
            episodes: r.episodes,
            hours: r.seconds / 3600.0,
            mean_score: r.mean_score,
            reach: r.reach.to_vec(),
        })
        .collect())
}

/// A round step giving about five ticks up to `max`.
fn tick_step(max: f64) -> f64 {
    let raw = (max / 5.0).max(1e-9);
    let magnitude = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0].into_iter().map(|m| m * magnitude).find(|&s| s >= raw).unwrap_or(raw)
}

/// The plotting area and its three scales: hours across, reach rates on
/// the left, mean scores on the right.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Scales {
    width: f64,
    height: f64,
    max_hours: f64,
    hour_step: f64,
    score_top: f64,
    score_step: f64,
}

impl Scales {
    fn of(rows: &[Row]) -> Scales {
        let max_hours = rows.iter().map(|r| r.hours).fold(0.0, f64::max).max(1e-6);
        let max_score = rows.iter().map(|r| r.mean_score).fold(0.0, f64::max).max(1.0);
        let score_step = tick_step(max_score);
        Scales {
            width: PAGE.plot_width(),
            height: HEIGHT - PAGE.top - PAGE.bottom,
            max_hours,
            hour_step: tick_step(max_hours),
            score_top: (max_score / score_step).ceil() * score_step,
            score_step,
        }
    }

    fn x(&self, hours: f64) -> f64 {
        PAGE.left + self.width * hours / self.max_hours
    }

    fn y_share(&self, share: f64) -> f64 {
        PAGE.top + self.height * (1.0 - share)
    }

    fn y_score(&self, score: f64) -> f64 {
        PAGE.top + self.height * (1.0 - score / self.score_top)
    }
}

fn render(rows: &[Row]) -> String {
    let scales = Scales::of(rows);
    let mut svg = String::new();
    PAGE.open(&mut svg, HEIGHT, TITLE);
    axes(&mut svg, &scales);
    for (k, color) in COLORS.iter().enumerate() {
        let points: Vec<String> = rows
            .iter()
            .filter(|r| r.reach[k].is_finite())
            .map(|r| format!("{:.1},{:.1}", scales.x(r.hours), scales.y_share(r.reach[k])))
            .collect();
        let _ = writeln!(
            svg,
            r#"<polyline fill="none" stroke="{color}" stroke-width="2" points="{}"/>"#,
            points.join(" ")
        );
    }
    let points: Vec<String> = rows
        .iter()
        .filter(|r| r.mean_score.is_finite())
        .map(|r| format!("{:.1},{:.1}", scales.x(r.hours), scales.y_score(r.mean_score)))
        .collect();
    let _ = writeln!(
        svg,
        r#"<polyline fill="none" stroke="black" stroke-width="1.5" stroke-dasharray="5,3" points="{}"/>"#,
        points.join(" ")
    );
    legend(&mut svg);
    svg::close(&mut svg);
    svg
}

/// The frame, the share grid and labels (left), the score labels (right),
/// the hour labels (below) and the axes' names.
fn axes(svg: &mut String, scales: &Scales) {
    let (left, top, pw, ph) = (PAGE.left, PAGE.top, scales.width, scales.height);
    let _ = writeln!(
        svg,
        r##"<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="none" stroke="#888"/>"##
    );
    for k in 0..=5 {
        let share = f64::from(k) / 5.0;
        svg::share_gridline(svg, left, pw, scales.y_share(share), share);
    }
    let mut s = 0.0;
    while s <= scales.score_top + 1e-9 {
        let _ = writeln!(
            svg,
            r#"<text x="{}" y="{:.1}">{}</text>"#,
            left + pw + 6.0,
            scales.y_score(s) + 4.0,
            format_thousands(s)
        );
        s += scales.score_step;
    }
    let mut h = 0.0;
    while h <= scales.max_hours + 1e-9 {
        let _ = writeln!(
            svg,
            r#"<text x="{:.1}" y="{}" text-anchor="middle">{}</text>"#,
            scales.x(h),
            top + ph + 18.0,
            format!("{h:.2}").trim_end_matches('0').trim_end_matches('.')
        );
        h += scales.hour_step;
    }
    let _ = writeln!(
        svg,
        r#"<text x="{}" y="{}" text-anchor="middle">training hours (2 threads)</text>"#,
        PAGE.centre_x(),
        HEIGHT - 10.0
    );
    let (rx, ry) = (PAGE.width - 14.0, top + ph / 2.0);
    let _ = writeln!(
        svg,
        r#"<text x="{rx}" y="{ry}" text-anchor="middle" transform="rotate(90 {rx} {ry})">mean score (dashed)</text>"#
    );
}

fn legend(svg: &mut String) {
    for (k, (name, color)) in records::curve::TILES.iter().zip(COLORS).enumerate() {
        let lx = PAGE.left + 10.0 + 70.0 * k as f64;
        let _ = writeln!(
            svg,
            r#"<line x1="{lx}" x2="{}" y1="{}" y2="{}" stroke="{color}" stroke-width="3"/><text x="{}" y="{}">{name}</text>"#,
            lx + 16.0,
            PAGE.top + 14.0,
            PAGE.top + 14.0,
            lx + 20.0,
            PAGE.top + 18.0
        );
    }
}

fn format_thousands(v: f64) -> String {
    let n = v.round() as u64;
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_trainer_csv_and_draws_every_series() {
        let csv = "episodes,moves,seconds,mean_score,reach_2048,reach_4096,reach_8192,reach_16384,reach_32768\n\
                   10000,100,360.0,20000.5,0.5,0.1,0,0,0\n20000,300,720.0,40000,0.9,0.5,0.1,0,0\n";
        let rows = parse(csv).expect("valid");
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[1].hours, 0.2);
        let svg = render(&rows);
        crate::svg::assert_well_formed(&svg);
        assert_eq!(svg.matches("<polyline").count(), 6);
        assert!(parse("nope\n").is_err());
        // An empty field is a figure not measured, left out of the lines.
        let partial = parse(&csv.replace("0.9,0.5", ",0.5")).expect("valid");
        assert!(partial[1].reach[0].is_nan());
        assert!(!render(&partial).contains("NaN"));
        assert!(parse(&csv.replace("0.9", "x")).unwrap_err().contains("line 3"));
    }

    #[test]
    fn thousands_are_grouped() {
        assert_eq!(format_thousands(1_234_567.0), "1,234,567");
        assert_eq!(format_thousands(999.0), "999");
    }
}
