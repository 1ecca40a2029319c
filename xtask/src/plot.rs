//! A hand-written SVG plot of score distributions: one histogram outline per
//! series over a log-scale score axis, with a box plot per series under it.
//!
//! [`score_distribution_svg`] lays the page out ([`Geometry`]) and draws it
//! part by part: the score axis, the share axis, the histograms, the box
//! plots, then the frame and the legend.

use std::fmt::Write;

use crate::svg::{self, Page, escape};
use records::summary::{median, percentile};

/// One distribution to draw, e.g. the scores of one preset's tournament.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Series {
    pub(crate) name: String,
    pub(crate) scores: Vec<u64>,
}

/// Colours that stay distinct for the colour-blind (Okabe–Ito), in order.
const COLORS: [&str; 7] =
    ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000"];

/// The page: the histogram's top edge is `top`; the box plots and the score
/// labels (`bottom`) come under it.
const PAGE: Page = Page {
    width: 820.0,
    left: 110.0,
    right: 30.0,
    top: 50.0,
    bottom: 56.0,
    title_y: 26.0,
    title_size: 16,
};
const HIST_HEIGHT: f64 = 260.0;
const BOX_GAP: f64 = 16.0;
const BOX_ROW: f64 = 30.0;
/// Histogram bins per doubling of the score.
const BINS_PER_OCTAVE: u32 = 4;

fn color(idx: usize) -> &'static str {
    COLORS[idx % COLORS.len()]
}

/// The log-scale score axis: powers of two from `2^lo` to `2^hi`.
#[derive(Debug, Clone, Copy, PartialEq)]
struct ScoreAxis {
    lo: u32,
    hi: u32,
    left: f64,
    width: f64,
}

impl ScoreAxis {
    /// The smallest range of whole octaves that holds every score (scores
    /// below 1, i.e. 0, are drawn at the left edge).
    fn fit(series: &[Series], left: f64, width: f64) -> ScoreAxis {
        let all = series.iter().flat_map(|s| s.scores.iter().copied());
        let (min, max) = all.fold((u64::MAX, 0), |(lo, hi), s| (lo.min(s), hi.max(s)));
        let (lo, hi) = if max == 0 {
            (0, 16)
        } else {
            let lo = min.max(1).ilog2();
            let hi = if max.is_power_of_two() { max.ilog2() } else { max.ilog2() + 1 };
            (lo, hi.max(lo + 1))
        };
        ScoreAxis { lo, hi, left, width }
    }

    fn octaves(&self) -> f64 {
        f64::from(self.hi - self.lo)
    }

    /// Position in octaves from the left edge, clamped to the axis.
    fn octave_of(&self, score: u64) -> f64 {
        let log = (score.max(1) as f64).log2();
        (log - f64::from(self.lo)).clamp(0.0, self.octaves())
    }

    fn x(&self, score: u64) -> f64 {
        self.left + self.octave_of(score) / self.octaves() * self.width
    }

    fn n_bins(&self) -> usize {
        ((self.hi - self.lo) * BINS_PER_OCTAVE) as usize
    }

    fn bin_of(&self, score: u64) -> usize {
        let bin = (self.octave_of(score) * f64::from(BINS_PER_OCTAVE)) as usize;
        bin.min(self.n_bins() - 1)
    }

    fn bin_x(&self, bin: usize) -> f64 {
        self.left + bin as f64 / self.n_bins() as f64 * self.width
    }
}

/// Where everything goes.
#[derive(Debug, Clone, PartialEq)]
struct Geometry {
    axis: ScoreAxis,
    hist_bottom: f64,
    box_top: f64,
    box_bottom: f64,
    height: f64,
    /// The share axis: its top and its tick step.
    share_top: f64,
    share_step: f64,
}

impl Geometry {
    /// The layout for `n_series` box plots and histograms of `shares`.
    fn new(axis: ScoreAxis, n_series: usize, shares: &[Vec<f64>]) -> Geometry {
        let hist_bottom = PAGE.top + HIST_HEIGHT;
        let box_top = hist_bottom + BOX_GAP;
        let box_bottom = box_top + BOX_ROW * n_series.max(1) as f64;
        let max_share = shares.iter().flatten().copied().fold(0.0, f64::max);
        let (share_step, share_top) = share_ticks(max_share);
        Geometry {
            axis,
            hist_bottom,
            box_top,
            box_bottom,
            height: box_bottom + PAGE.bottom,
            share_top,
            share_step,
        }
    }

    /// The height of a share of games in the histogram.
    fn y(&self, share: f64) -> f64 {
        self.hist_bottom - share / self.share_top * HIST_HEIGHT
    }
}

/// Writes the plot. Empty series are listed in the legend as having no games.
pub(crate) fn score_distribution_svg(title: &str, series: &[Series]) -> String {
    let axis = ScoreAxis::fit(series, PAGE.left, PAGE.plot_width());
    let shares = bin_shares(series, &axis);
    let geo = Geometry::new(axis, series.len(), &shares);
    let mut svg = String::new();
    PAGE.open(&mut svg, geo.height, title);
    score_axis(&mut svg, &geo);
    share_axis(&mut svg, &geo);
    histograms(&mut svg, series, &shares, &geo);
    box_plots(&mut svg, series, &geo);
    frame_and_legend(&mut svg, series, &geo);
    svg::close(&mut svg);
    svg
}

/// Each series' share of its games in each bin of `axis`.
fn bin_shares(series: &[Series], axis: &ScoreAxis) -> Vec<Vec<f64>> {
    series
        .iter()
        .map(|s| {
            let mut counts = vec![0usize; axis.n_bins()];
            for &score in &s.scores {
                counts[axis.bin_of(score)] += 1;
            }
            let n = s.scores.len().max(1) as f64;
            counts.into_iter().map(|c| c as f64 / n).collect()
        })
        .collect()
}

/// Vertical grid lines and the score labels, one per octave (every other
/// octave when they would crowd), and the axis name.
fn score_axis(svg: &mut String, geo: &Geometry) {
    let (axis, top, box_bottom) = (&geo.axis, PAGE.top, geo.box_bottom);
    let label_every = if axis.hi - axis.lo > 12 { 2 } else { 1 };
    for exp in axis.lo..=axis.hi {
        let x = axis.x(1u64 << exp);
        let _ = writeln!(
            svg,
            r##"<line x1="{x:.1}" y1="{top}" x2="{x:.1}" y2="{box_bottom}" stroke="#e4e4e4"/>"##
        );
        if (exp - axis.lo).is_multiple_of(label_every) {
            let _ = writeln!(
                svg,
                r#"<text x="{x:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
                box_bottom + 18.0,
                1u64 << exp
            );
        }
    }
    let _ = writeln!(
        svg,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">score (log scale)</text>"#,
        PAGE.centre_x(),
        box_bottom + 42.0
    );
}

/// The histogram's share axis: grid lines, percentages and its name.
fn share_axis(svg: &mut String, geo: &Geometry) {
    let left = PAGE.left;
    let mut tick = 0.0;
    while tick <= geo.share_top + 1e-9 {
        let ty = geo.y(tick);
        let _ = writeln!(
            svg,
            r##"<line x1="{left}" y1="{ty:.1}" x2="{:.1}" y2="{ty:.1}" stroke="#e4e4e4"/>"##,
            left + PAGE.plot_width()
        );
        let _ = writeln!(
            svg,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{}%</text>"#,
            left - 6.0,
            ty + 4.0,
            format_percent(tick)
        );
        tick += geo.share_step;
    }
    let mid = PAGE.top + HIST_HEIGHT / 2.0;
    let _ = writeln!(
        svg,
        r#"<text x="{:.1}" y="{mid:.1}" text-anchor="middle" transform="rotate(-90 {:.1} {mid:.1})">share of games</text>"#,
        left - 52.0,
        left - 52.0
    );
}

/// One outlined, lightly filled histogram per non-empty series.
fn histograms(svg: &mut String, series: &[Series], shares: &[Vec<f64>], geo: &Geometry) {
    let (axis, bottom) = (&geo.axis, geo.hist_bottom);
    for (idx, (s, share)) in series.iter().zip(shares).enumerate() {
        if s.scores.is_empty() {
            continue;
        }
        let color = color(idx);
        let mut path = format!("M{:.1},{bottom:.1}", axis.bin_x(0));
        for (bin, &value) in share.iter().enumerate() {
            let _ = write!(
                path,
                " L{:.1},{:.1} L{:.1},{:.1}",
                axis.bin_x(bin),
                geo.y(value),
                axis.bin_x(bin + 1),
                geo.y(value)
            );
        }
        let _ = write!(path, " L{:.1},{bottom:.1} Z", axis.bin_x(share.len()));
        let _ = writeln!(
            svg,
            r#"<path d="{path}" fill="{color}" fill-opacity="0.12" stroke="{color}" stroke-width="1.8"/>"#
        );
    }
}

/// A row per series: its name, then whiskers from the lowest to the highest
/// score, the box from the 25th to the 75th percentile, a bar at the median
/// (or `no games`).
fn box_plots(svg: &mut String, series: &[Series], geo: &Geometry) {
    for (idx, s) in series.iter().enumerate() {
        let color = color(idx);
        let cy = geo.box_top + BOX_ROW * (idx as f64 + 0.5);
        let _ = writeln!(
            svg,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="end" fill="{color}">{}</text>"#,
            PAGE.left - 6.0,
            cy + 4.0,
            escape(&s.name)
        );
        if s.scores.is_empty() {
            let _ = writeln!(
                svg,
                r##"<text x="{:.1}" y="{:.1}" fill="#777">no games</text>"##,
                PAGE.left + 6.0,
                cy + 4.0
            );
            continue;
        }
        let mut sorted = s.scores.clone();
        sorted.sort_unstable();
        let [min, q1, median, q3, max] = [
            sorted[0],
            percentile(&sorted, 25),
            percentile(&sorted, 50),
            percentile(&sorted, 75),
            sorted[sorted.len() - 1],
        ]
        .map(|v| geo.axis.x(v));
        let half = BOX_ROW * 0.3;
        let _ = writeln!(
            svg,
            r#"<line x1="{min:.1}" y1="{cy:.1}" x2="{max:.1}" y2="{cy:.1}" stroke="{color}" stroke-width="1.5"/>"#
        );
        for x in [min, max] {
            let _ = writeln!(
                svg,
                r#"<line x1="{x:.1}" y1="{:.1}" x2="{x:.1}" y2="{:.1}" stroke="{color}" stroke-width="1.5"/>"#,
                cy - half / 2.0,
                cy + half / 2.0
            );
        }
        let _ = writeln!(
            svg,
            r#"<rect x="{q1:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{color}" fill-opacity="0.25" stroke="{color}" stroke-width="1.5"/>"#,
            cy - half,
            (q3 - q1).max(1.0),
            2.0 * half
        );
        let _ = writeln!(
            svg,
            r#"<line x1="{median:.1}" y1="{:.1}" x2="{median:.1}" y2="{:.1}" stroke="{color}" stroke-width="3"/>"#,
            cy - half,
            cy + half
        );
    }
}

/// The histogram's frame, the line under the box plots, and a legend in the
/// histogram's top-left corner (each series' games and median).
fn frame_and_legend(svg: &mut String, series: &[Series], geo: &Geometry) {
    let (left, top, width, box_bottom) = (PAGE.left, PAGE.top, PAGE.plot_width(), geo.box_bottom);
    let _ = writeln!(
        svg,
        r##"<rect x="{left}" y="{top}" width="{width}" height="{HIST_HEIGHT}" fill="none" stroke="#444"/>"##
    );
    let _ = writeln!(
        svg,
        r##"<line x1="{left}" y1="{box_bottom}" x2="{:.1}" y2="{box_bottom}" stroke="#444"/>"##,
        left + width
    );
    for (idx, s) in series.iter().enumerate() {
        let color = color(idx);
        let ly = top + 18.0 + 18.0 * idx as f64;
        let detail = if s.scores.is_empty() {
            "no games".to_owned()
        } else {
            let mut sorted = s.scores.clone();
            sorted.sort_unstable();
            format!("{} games, median {:.0}", sorted.len(), median(&sorted))
        };
        let _ = writeln!(
            svg,
            r#"<rect x="{:.1}" y="{:.1}" width="12" height="12" fill="{color}"/>"#,
            left + 12.0,
            ly - 10.0
        );
        let _ = writeln!(
            svg,
            r#"<text x="{:.1}" y="{ly:.1}">{} ({detail})</text>"#,
            left + 30.0,
            escape(&s.name)
        );
    }
}

/// A tick step and axis top for shares up to `max_share`: at most six steps.
fn share_ticks(max_share: f64) -> (f64, f64) {
    const STEPS: [f64; 8] = [0.01, 0.02, 0.05, 0.1, 0.2, 0.25, 0.5, 1.0];
    let max_share = max_share.max(0.01);
    let step = STEPS.into_iter().find(|step| max_share / step <= 6.0).unwrap_or(1.0);
    (step, (max_share / step - 1e-9).ceil() * step)
}

fn format_percent(share: f64) -> String {
    let pct = share * 100.0;
    if (pct - pct.round()).abs() < 1e-6 { format!("{pct:.0}") } else { format!("{pct:.1}") }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::svg::assert_well_formed;

    fn series(name: &str, scores: &[u64]) -> Series {
        Series { name: name.to_owned(), scores: scores.to_vec() }
    }

    #[test]
    fn axis_spans_whole_octaves_around_the_scores() {
        let axis = ScoreAxis::fit(&[series("a", &[3000, 70_000]), series("b", &[])], 100.0, 700.0);
        assert_eq!((axis.lo, axis.hi), (11, 17));
        assert_eq!(axis.x(2048), 100.0);
        assert_eq!(axis.x(131_072), 800.0);
        assert!((axis.x(16_384) - 450.0).abs() < 1e-9, "log scale: 2^14 is halfway");
        assert_eq!(axis.bin_of(2048), 0);
        assert_eq!(axis.bin_of(131_072), axis.n_bins() - 1);
        let exact = ScoreAxis::fit(&[series("a", &[4096])], 0.0, 1.0);
        assert_eq!((exact.lo, exact.hi), (12, 13));
        let zero = ScoreAxis::fit(&[series("a", &[0, 0])], 0.0, 1.0);
        assert_eq!((zero.lo, zero.hi), (0, 16));
    }

    #[test]
    fn share_ticks_are_round() {
        assert_eq!(share_ticks(0.23), (0.05, 0.25));
        assert_eq!(share_ticks(0.5), (0.1, 0.5));
        assert_eq!(share_ticks(0.0), (0.01, 0.01));
        assert_eq!(format_percent(0.25), "25");
        assert_eq!(format_percent(0.025), "2.5");
    }

    #[test]
    fn draws_each_series_with_axes_and_labels() {
        let svg = score_distribution_svg(
            "Scores <by> preset",
            &[
                series("fast", &[1200, 2500, 16_000, 20_000, 36_000]),
                series("default & more", &[30_000, 60_000, 70_000]),
                series("empty", &[]),
            ],
        );
        assert_well_formed(&svg);
        assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
        assert!(svg.contains("Scores &lt;by&gt; preset"));
        assert!(svg.contains("default &amp; more (3 games, median 60000)"));
        assert!(svg.contains("fast (5 games, median 16000)"));
        assert!(svg.contains(">no games<"));
        assert!(svg.contains(">score (log scale)<"));
        assert!(svg.contains(">share of games<"));
        assert_eq!(svg.matches("<path ").count(), 2, "one histogram per non-empty series");
        assert!(svg.contains(">1024<") && svg.contains(">131072<"), "axis from 2^10 to 2^17");
        assert!(svg.contains(COLORS[0]) && svg.contains(COLORS[1]));
    }

    #[test]
    fn draws_an_empty_plot_without_panicking() {
        assert_well_formed(&score_distribution_svg("nothing", &[]));
    }
}
