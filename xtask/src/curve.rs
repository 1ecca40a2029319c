//! `cargo xtask curve CSV SVG`: the learning curve that `cli-ascii train`
//! writes, drawn as an SVG: reach rates of 2048 to 32768 (left axis) and the
//! mean score (right axis) against training hours.

use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use crate::util::Result;

/// One row of the curve: training hours, mean score, reach rates.
#[derive(Debug, Clone, PartialEq)]
struct Row {
    episodes: u64,
    hours: f64,
    mean_score: f64,
    reach: Vec<f64>,
}

const MILESTONES: [&str; 5] = ["2048", "4096", "8192", "16384", "32768"];
const COLORS: [&str; 5] = ["#9ecae1", "#6baed6", "#3182bd", "#08519c", "#e6550d"];
const W: f64 = 760.0;
const H: f64 = 400.0;
const LEFT: f64 = 60.0;
const RIGHT: f64 = 80.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 50.0;

pub(crate) fn run(args: &[String]) -> Result<()> {
    let [csv, svg] = args else {
        return Err("usage: cargo xtask curve <curve.csv> <out.svg>".into());
    };
    let text = fs::read_to_string(csv).map_err(|e| format!("cannot read {csv}: {e}"))?;
    let rows = parse(&text).map_err(|e| format!("{csv}: {e}"))?;
    fs::write(Path::new(svg), render(&rows)).map_err(|e| format!("cannot write {svg}: {e}"))?;
    let last = rows.last().ok_or("the curve has no rows")?;
    println!(
        "{svg}: {} rows, last at {} episodes ({:.2} h): mean score {:.0}",
        rows.len(),
        last.episodes,
        last.hours,
        last.mean_score
    );
    Ok(())
}

fn parse(text: &str) -> Result<Vec<Row>, String> {
    let mut lines = text.lines();
    let header = lines.next().ok_or("empty file")?;
    if !header.starts_with("episodes,moves,seconds,mean_score,reach_2048") {
        return Err(format!("unexpected header `{header}`"));
    }
    lines
        .enumerate()
        .map(|(i, line)| {
            let fields: Vec<&str> = line.split(',').collect();
            let bad = || format!("line {}: `{line}`", i + 2);
            if fields.len() != 4 + MILESTONES.len() {
                return Err(bad());
            }
            let num = |k: usize| fields[k].parse::<f64>().map_err(|_| bad());
            Ok(Row {
                episodes: fields[0].parse().map_err(|_| bad())?,
                hours: num(2)? / 3600.0,
                mean_score: num(3)?,
                reach: (4..fields.len()).map(num).collect::<Result<_, _>>()?,
            })
        })
        .collect()
}

/// A round step giving about five ticks up to `max`.
fn tick_step(max: f64) -> f64 {
    let raw = (max / 5.0).max(1e-9);
    let magnitude = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0].into_iter().map(|m| m * magnitude).find(|&s| s >= raw).unwrap_or(raw)
}

fn render(rows: &[Row]) -> String {
    let max_hours = rows.iter().map(|r| r.hours).fold(0.0, f64::max).max(1e-6);
    let max_score = rows.iter().map(|r| r.mean_score).fold(0.0, f64::max).max(1.0);
    let score_step = tick_step(max_score);
    let score_top = (max_score / score_step).ceil() * score_step;
    let hour_step = tick_step(max_hours);
    let (pw, ph) = (W - LEFT - RIGHT, H - TOP - BOTTOM);
    let x = |h: f64| LEFT + pw * h / max_hours;
    let y_share = |s: f64| TOP + ph * (1.0 - s);
    let y_score = |s: f64| TOP + ph * (1.0 - s / score_top);

    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(svg, r#"<rect width="{W}" height="{H}" fill="white"/>"#);
    let _ = writeln!(
        svg,
        r#"<text x="{}" y="20" text-anchor="middle" font-size="14">Learning curve: reach rates and mean score of self-play episodes</text>"#,
        W / 2.0
    );
    axes(&mut svg, pw, ph, hour_step, max_hours, score_step, score_top, &x, &y_share, &y_score);
    for (k, color) in COLORS.iter().enumerate() {
        let points: Vec<String> =
            rows.iter().map(|r| format!("{:.1},{:.1}", x(r.hours), y_share(r.reach[k]))).collect();
        let _ = writeln!(
            svg,
            r#"<polyline fill="none" stroke="{color}" stroke-width="2" points="{}"/>"#,
            points.join(" ")
        );
    }
    let points: Vec<String> =
        rows.iter().map(|r| format!("{:.1},{:.1}", x(r.hours), y_score(r.mean_score))).collect();
    let _ = writeln!(
        svg,
        r#"<polyline fill="none" stroke="black" stroke-width="1.5" stroke-dasharray="5,3" points="{}"/>"#,
        points.join(" ")
    );
    legend(&mut svg);
    svg.push_str("</svg>\n");
    svg
}

#[allow(clippy::too_many_arguments, reason = "the plot's geometry, computed once in render")]
fn axes(
    svg: &mut String,
    pw: f64,
    ph: f64,
    hour_step: f64,
    max_hours: f64,
    score_step: f64,
    score_top: f64,
    x: &impl Fn(f64) -> f64,
    y_share: &impl Fn(f64) -> f64,
    y_score: &impl Fn(f64) -> f64,
) {
    let _ = writeln!(
        svg,
        r##"<rect x="{LEFT}" y="{TOP}" width="{pw}" height="{ph}" fill="none" stroke="#888"/>"##
    );
    for k in 0..=5 {
        let share = f64::from(k) / 5.0;
        let yy = y_share(share);
        let _ = writeln!(
            svg,
            r##"<line x1="{LEFT}" x2="{}" y1="{yy:.1}" y2="{yy:.1}" stroke="#eee"/><text x="{}" y="{:.1}" text-anchor="end">{}%</text>"##,
            LEFT + pw,
            LEFT - 6.0,
            yy + 4.0,
            (share * 100.0).round()
        );
    }
    let mut s = 0.0;
    while s <= score_top + 1e-9 {
        let _ = writeln!(
            svg,
            r#"<text x="{}" y="{:.1}">{}</text>"#,
            LEFT + pw + 6.0,
            y_score(s) + 4.0,
            format_thousands(s)
        );
        s += score_step;
    }
    let mut h = 0.0;
    while h <= max_hours + 1e-9 {
        let _ = writeln!(
            svg,
            r#"<text x="{:.1}" y="{}" text-anchor="middle">{}</text>"#,
            x(h),
            TOP + ph + 18.0,
            format!("{h:.2}").trim_end_matches('0').trim_end_matches('.')
        );
        h += hour_step;
    }
    let _ = writeln!(
        svg,
        r#"<text x="{}" y="{}" text-anchor="middle">training hours (2 threads)</text>"#,
        LEFT + pw / 2.0,
        H - 10.0
    );
    let _ = writeln!(
        svg,
        r#"<text x="{}" y="{}" text-anchor="middle" transform="rotate(90 {} {})">mean score (dashed)</text>"#,
        W - 14.0,
        TOP + ph / 2.0,
        W - 14.0,
        TOP + ph / 2.0
    );
}

fn legend(svg: &mut String) {
    for (k, (name, color)) in MILESTONES.iter().zip(COLORS).enumerate() {
        let lx = LEFT + 10.0 + 70.0 * k as f64;
        let _ = writeln!(
            svg,
            r#"<line x1="{lx}" x2="{}" y1="{}" y2="{}" stroke="{color}" stroke-width="3"/><text x="{}" y="{}">{name}</text>"#,
            lx + 16.0,
            TOP + 14.0,
            TOP + 14.0,
            lx + 20.0,
            TOP + 18.0
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
        assert_eq!(svg.matches("<polyline").count(), 6);
        assert!(parse("nope\n").is_err());
        assert!(parse(&csv.replace("0.9", "x")).unwrap_err().contains("line 3"));
    }

    #[test]
    fn thousands_are_grouped() {
        assert_eq!(format_thousands(1_234_567.0), "1,234,567");
        assert_eq!(format_thousands(999.0), "999");
    }
}
