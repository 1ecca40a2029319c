//! What the hand-written SVG plots (`plot.rs`, `curve.rs`) share: the page
//! and its margins, the opening element, the title and text escaping.
//!
//! Written by hand so xtask needs no plotting crate; each plot is a single
//! self-contained SVG file that browsers and GitHub render directly.

use std::fmt::Write;

/// A page: its width, and the margins around the plotting area.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Page {
    pub(crate) width: f64,
    pub(crate) left: f64,
    pub(crate) right: f64,
    /// The plotting area's top edge.
    pub(crate) top: f64,
    /// The space under the plotting area (axis labels).
    pub(crate) bottom: f64,
    /// The title's baseline.
    pub(crate) title_y: f64,
    pub(crate) title_size: u32,
}

impl Page {
    /// The plotting area's width.
    pub(crate) fn plot_width(&self) -> f64 {
        self.width - self.left - self.right
    }

    /// The middle of the plotting area, across.
    pub(crate) fn centre_x(&self) -> f64 {
        self.left + self.plot_width() / 2.0
    }

    /// Opens the `<svg>` element of a page `height` high, on a white
    /// background, with its title; the caller closes it with [`close`].
    pub(crate) fn open(&self, svg: &mut String, height: f64, title: &str) {
        let width = self.width;
        let _ = writeln!(
            svg,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="Helvetica, Arial, sans-serif" font-size="12">"#
        );
        let _ = writeln!(svg, r#"<rect width="{width}" height="{height}" fill="white"/>"#);
        let _ = writeln!(
            svg,
            r#"<text x="{}" y="{}" font-size="{}" text-anchor="middle">{}</text>"#,
            self.centre_x(),
            self.title_y,
            self.title_size,
            escape(title)
        );
    }
}

/// A plot's horizontal grid line at `y`, from `left` across `width`,
/// labelled on its left with `share` as a whole percentage.
pub(crate) fn share_gridline(svg: &mut String, left: f64, width: f64, y: f64, share: f64) {
    let _ = writeln!(
        svg,
        r##"<line x1="{left}" x2="{}" y1="{y:.1}" y2="{y:.1}" stroke="#eee"/><text x="{}" y="{:.1}" text-anchor="end">{}%</text>"##,
        left + width,
        left - 6.0,
        y + 4.0,
        (share * 100.0).round()
    );
}

/// Closes what [`Page::open`] opened.
pub(crate) fn close(svg: &mut String) {
    svg.push_str("</svg>\n");
}

/// Escapes text for SVG character data and attribute values.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            _ => out.push(c),
        }
    }
    out
}

/// Checks that every element a plot opens is closed, in order: the plots
/// emit no comments, CDATA or `>` inside attributes, so a tag scan is
/// enough to catch a malformed file.
#[cfg(test)]
pub(crate) fn assert_well_formed(svg: &str) {
    let mut stack: Vec<&str> = Vec::new();
    let mut rest = svg;
    while let Some(start) = rest.find('<') {
        let end = start + rest[start..].find('>').expect("unclosed tag");
        let tag = &rest[start + 1..end];
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(stack.pop(), Some(name), "mismatched </{name}>");
        } else if !tag.ends_with('/') {
            stack.push(tag.split_whitespace().next().unwrap());
        }
        rest = &rest[end + 1..];
    }
    assert!(stack.is_empty(), "unclosed elements: {stack:?}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_opens_with_its_title_and_closes() {
        let page = Page {
            width: 200.0,
            left: 20.0,
            right: 80.0,
            top: 30.0,
            bottom: 10.0,
            title_y: 16.0,
            title_size: 14,
        };
        assert_eq!(page.plot_width(), 100.0);
        assert_eq!(page.centre_x(), 70.0);
        let mut svg = String::new();
        page.open(&mut svg, 90.0, "a < b");
        close(&mut svg);
        assert_well_formed(&svg);
        assert!(svg.contains(r#"width="200" height="90" viewBox="0 0 200 90""#), "{svg}");
        assert!(svg.contains(
            r#"<text x="70" y="16" font-size="14" text-anchor="middle">a &lt; b</text>"#
        ));
        assert_eq!(escape(r#"'&"<>"#), "&apos;&amp;&quot;&lt;&gt;");
    }
}
