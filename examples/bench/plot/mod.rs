//! SVG plots of a run, written by hand (no plotting dependency): runtime against nonzeros, log-log,
//! all kernels in one plot and one panel per schedule (the paper's Figures 2-3), and each matrix's
//! speedup over cuSPARSE ALG1 (Figure 4). Every marker has a `<title>` (matrix, kernel, time), which
//! a browser shows on hover.

use std::fmt::Write as _;

use super::report::LARGE_NNZ;
use super::{geomean, kernel_order, Kind, MatrixResult, ALG1, ALG2, COPY};

/// A marker shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Marker {
    Circle,
    Square,
    Diamond,
    Triangle,
    /// A short vertical bar (the copy ceiling).
    Bar,
}

/// How a kernel is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Style {
    pub colour: &'static str,
    pub marker: Marker,
    /// Hollow markers (ALG2) are outlined only.
    pub hollow: bool,
}

/// Colours of the schedules (Tableau 10), fixed by name so that every plot and every run agrees.
const SCHEDULE_COLOURS: &[(&str, &str)] = &[
    ("thread", "#4e79a7"),
    ("group2", "#f28e2b"),
    ("warp", "#e15759"),
    ("group64", "#76b7b2"),
    ("block", "#59a14f"),
    ("work_oriented", "#b8860b"),
    ("merge_path", "#b07aa1"),
];
/// For schedules added later.
const SPARE_COLOURS: &[&str] = &["#ff9da7", "#9c755f", "#17becf", "#bcbd22", "#8c564b"];

/// The style of a kernel.
pub fn style(kernel: &str) -> Style {
    let s = |colour, marker, hollow| Style {
        colour,
        marker,
        hollow,
    };
    match kernel {
        ALG1 => s("#000000", Marker::Square, false),
        ALG2 => s("#000000", Marker::Square, true),
        COPY => s("#9a9a9a", Marker::Bar, false),
        k => match SCHEDULE_COLOURS.iter().find(|(n, _)| *n == k) {
            Some((_, c)) => s(c, Marker::Circle, false),
            None => {
                // A stable pick from the name, so a new schedule keeps its colour between runs.
                let h = k
                    .bytes()
                    .fold(0usize, |h, b| h.wrapping_mul(31).wrapping_add(b as usize));
                s(
                    SPARE_COLOURS[h % SPARE_COLOURS.len()],
                    Marker::Diamond,
                    false,
                )
            }
        },
    }
}

/// A legend label for a kernel.
pub fn label(kernel: &str) -> String {
    match kernel {
        ALG1 => "cuSPARSE CSR ALG1".to_string(),
        ALG2 => "cuSPARSE CSR ALG2".to_string(),
        COPY => "copy (ceiling)".to_string(),
        k => k.to_string(),
    }
}

/// Escapes text for SVG.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if (c as u32) < 0x20 && c != '\t' && c != '\n' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// A number of nonzeros as an axis label: 1, 10, 100, 1K, ..., 1M, ..., 1G.
pub fn count_label(v: f64) -> String {
    let (scaled, unit) = if v >= 1e9 {
        (v / 1e9, "G")
    } else if v >= 1e6 {
        (v / 1e6, "M")
    } else if v >= 1e3 {
        (v / 1e3, "K")
    } else {
        (v, "")
    };
    format!("{}{unit}", trim_number(scaled))
}

/// Milliseconds as an axis label, shortest exact decimal form: 0.001, 0.01, 0.1, 1, 10.
pub fn ms_label(v: f64) -> String {
    trim_number(v)
}

/// A speedup as an axis label: 0.25x, 0.5x, 1x, 2x; 1/8x, 1/16x below 1/4.
pub fn speedup_label(v: f64) -> String {
    if v < 0.24 {
        format!("1/{}x", (1.0 / v).round())
    } else {
        format!("{}x", trim_number(v))
    }
}

fn trim_number(v: f64) -> String {
    let s = format!("{v:.6}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s.is_empty() || s == "-0" {
        "0".to_string()
    } else {
        s.to_string()
    }
}

/// A logarithmic axis from `base^lo` to `base^hi` over the pixels `a..b`.
#[derive(Clone, Copy, Debug)]
struct LogAxis {
    base: f64,
    lo: i32,
    hi: i32,
    a: f64,
    b: f64,
}

impl LogAxis {
    /// The smallest whole-power range holding `values` (positive, finite ones); `None` if none.
    fn range(base: f64, values: impl IntoIterator<Item = f64>) -> Option<(i32, i32)> {
        let mut lo = f64::INFINITY;
        let mut hi = f64::NEG_INFINITY;
        for v in values {
            if v.is_finite() && v > 0.0 {
                let e = v.ln() / base.ln();
                lo = lo.min(e);
                hi = hi.max(e);
            }
        }
        if !lo.is_finite() {
            return None;
        }
        // A hair of slack so that a value on a power does not sit on the frame.
        let (mut l, mut h) = ((lo - 1e-9).floor() as i32, (hi + 1e-9).ceil() as i32);
        if l == h {
            l -= 1;
            h += 1;
        }
        Some((l, h))
    }

    fn px(&self, v: f64) -> f64 {
        let e = v.ln() / self.base.ln();
        self.a + (e - self.lo as f64) / (self.hi - self.lo) as f64 * (self.b - self.a)
    }

    fn contains(&self, v: f64) -> bool {
        v.is_finite() && v > 0.0 && {
            let e = v.ln() / self.base.ln();
            e >= self.lo as f64 - 1e-9 && e <= self.hi as f64 + 1e-9
        }
    }

    /// Every `step`-th power, so that there are at most about `max_ticks` labelled ticks.
    fn major(&self, max_ticks: i32) -> Vec<f64> {
        let step = ((self.hi - self.lo) / max_ticks.max(1)).max(1);
        (self.lo..=self.hi)
            .filter(|e| (e - self.lo) % step == 0)
            .map(|e| self.base.powi(e))
            .collect()
    }

    /// 2..9 times each power of 10 (base 10 only, when there are few decades).
    fn minor(&self) -> Vec<f64> {
        if self.base != 10.0 || self.hi - self.lo > 8 {
            return Vec::new();
        }
        (self.lo..self.hi)
            .flat_map(|e| (2..10).map(move |k| k as f64 * 10f64.powi(e)))
            .collect()
    }
}

/// An SVG document being written.
struct Svg {
    out: String,
}

impl Svg {
    fn new(width: f64, height: f64) -> Svg {
        let mut out = String::new();
        let _ = writeln!(
            out,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" font-family="Helvetica, Arial, sans-serif">"#
        );
        let _ = writeln!(
            out,
            r#"<rect x="0" y="0" width="{width:.0}" height="{height:.0}" fill="white"/>"#
        );
        Svg { out }
    }

    fn text(&mut self, x: f64, y: f64, size: f64, anchor: &str, attrs: &str, content: &str) {
        let _ = writeln!(
            self.out,
            r#"<text x="{x:.1}" y="{y:.1}" font-size="{size:.0}" text-anchor="{anchor}" {attrs}>{}</text>"#,
            escape(content)
        );
    }

    fn line(&mut self, (x1, y1): (f64, f64), (x2, y2): (f64, f64), stroke: &str, width: f64) {
        let _ = writeln!(
            self.out,
            r#"<line x1="{x1:.1}" y1="{y1:.1}" x2="{x2:.1}" y2="{y2:.1}" stroke="{stroke}" stroke-width="{width}"/>"#
        );
    }

    fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, attrs: &str) {
        let _ = writeln!(
            self.out,
            r#"<rect x="{x:.1}" y="{y:.1}" width="{w:.1}" height="{h:.1}" {attrs}/>"#
        );
    }

    /// A marker of radius `r` centred at (x, y), with a hover title when `title` is not empty.
    fn marker(&mut self, style: Style, x: f64, y: f64, r: f64, title: &str) {
        let c = style.colour;
        let paint = if style.hollow {
            format!(r#"fill="white" stroke="{c}" stroke-width="1.3""#)
        } else {
            format!(r#"fill="{c}" fill-opacity="0.85" stroke="white" stroke-width="0.6""#)
        };
        let shape = match style.marker {
            Marker::Circle => format!(r#"<circle cx="{x:.1}" cy="{y:.1}" r="{r:.1}" {paint}"#),
            Marker::Square => {
                let s = r * 0.9;
                format!(
                    r#"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" {paint}"#,
                    x - s,
                    y - s,
                    2.0 * s,
                    2.0 * s
                )
            }
            Marker::Diamond => {
                let s = r * 1.25;
                format!(
                    r#"<polygon points="{:.1},{:.1} {:.1},{:.1} {:.1},{:.1} {:.1},{:.1}" {paint}"#,
                    x,
                    y - s,
                    x + s,
                    y,
                    x,
                    y + s,
                    x - s,
                    y
                )
            }
            Marker::Triangle => {
                let s = r * 1.2;
                format!(
                    r#"<polygon points="{:.1},{:.1} {:.1},{:.1} {:.1},{:.1}" {paint}"#,
                    x,
                    y - s,
                    x + s,
                    y + s * 0.8,
                    x - s,
                    y + s * 0.8
                )
            }
            Marker::Bar => format!(
                r#"<rect x="{:.1}" y="{:.1}" width="3" height="{:.1}" fill="{c}""#,
                x - 1.5,
                y - r * 1.4,
                r * 2.8
            ),
        };
        if title.is_empty() {
            let _ = writeln!(self.out, "{shape}/>");
        } else {
            let _ = writeln!(self.out, "{shape}><title>{}</title></{}>", escape(title), {
                match style.marker {
                    Marker::Circle => "circle",
                    Marker::Square | Marker::Bar => "rect",
                    Marker::Diamond | Marker::Triangle => "polygon",
                }
            });
        }
    }

    /// A legend: one line per (label, style) from (x, y) down.
    fn legend(&mut self, x: f64, y: f64, entries: &[(String, Style)]) {
        for (i, (name, style)) in entries.iter().enumerate() {
            let yy = y + i as f64 * 19.0;
            self.marker(*style, x + 6.0, yy - 4.0, 5.0, "");
            self.text(x + 18.0, yy, 12.0, "start", "", name);
        }
    }

    fn finish(mut self) -> String {
        self.out.push_str("</svg>\n");
        self.out
    }
}

/// The frame of a plot in the document.
#[derive(Clone, Copy, Debug)]
struct Frame {
    x: f64,
    y: f64,
    w: f64,
    h: f64,
}

/// One kernel's points: (nnz, ms, hover title).
struct Series {
    kernel: String,
    points: Vec<(f64, f64, String)>,
}

fn series(results: &[MatrixResult], kernel: &str) -> Series {
    let points = results
        .iter()
        .filter_map(|r| {
            r.ms(kernel).map(|t| {
                let title = format!(
                    "{}: {} {:.4} ms, {:.0} GB/s ({} nnz)",
                    r.name,
                    label(kernel),
                    t,
                    r.gb_per_s(t),
                    r.nnz
                );
                (r.nnz as f64, t, title)
            })
        })
        .collect();
    Series {
        kernel: kernel.to_string(),
        points,
    }
}

/// Draws a log-log frame with ticks, grid and labels; returns the axes.
#[allow(clippy::too_many_arguments)]
fn log_log_frame(
    svg: &mut Svg,
    f: Frame,
    xr: (i32, i32),
    yr: (i32, i32),
    title: &str,
    xlabel: &str,
    ylabel: &str,
    tick_size: f64,
) -> (LogAxis, LogAxis) {
    let xa = LogAxis {
        base: 10.0,
        lo: xr.0,
        hi: xr.1,
        a: f.x,
        b: f.x + f.w,
    };
    let ya = LogAxis {
        base: 10.0,
        lo: yr.0,
        hi: yr.1,
        a: f.y + f.h,
        b: f.y,
    };
    svg.rect(f.x, f.y, f.w, f.h, r##"fill="#fbfbfb" stroke="none""##);
    for v in xa.minor() {
        let x = xa.px(v);
        svg.line((x, f.y), (x, f.y + f.h), "#eeeeee", 0.6);
    }
    for v in ya.minor() {
        let y = ya.px(v);
        svg.line((f.x, y), (f.x + f.w, y), "#eeeeee", 0.6);
    }
    for v in xa.major(8) {
        let x = xa.px(v);
        svg.line((x, f.y), (x, f.y + f.h), "#d0d0d0", 0.8);
        svg.line((x, f.y + f.h), (x, f.y + f.h + 4.0), "#333333", 1.0);
        svg.text(
            x,
            f.y + f.h + 6.0 + tick_size,
            tick_size,
            "middle",
            "",
            &count_label(v),
        );
    }
    for v in ya.major(7) {
        let y = ya.px(v);
        svg.line((f.x, y), (f.x + f.w, y), "#d0d0d0", 0.8);
        svg.line((f.x - 4.0, y), (f.x, y), "#333333", 1.0);
        svg.text(
            f.x - 7.0,
            y + tick_size * 0.35,
            tick_size,
            "end",
            "",
            &ms_label(v),
        );
    }
    svg.rect(f.x, f.y, f.w, f.h, r##"fill="none" stroke="#333333""##);
    svg.text(
        f.x + f.w / 2.0,
        f.y - 8.0,
        tick_size + 2.0,
        "middle",
        r#"font-weight="bold""#,
        title,
    );
    svg.text(
        f.x + f.w / 2.0,
        f.y + f.h + 2.0 * tick_size + 16.0,
        tick_size + 1.0,
        "middle",
        "",
        xlabel,
    );
    let (lx, ly) = (f.x - 3.6 * tick_size - 14.0, f.y + f.h / 2.0);
    svg.text(
        lx,
        ly,
        tick_size + 1.0,
        "middle",
        &format!(r#"transform="rotate(-90 {lx:.1} {ly:.1})""#),
        ylabel,
    );
    (xa, ya)
}

fn draw_series(svg: &mut Svg, s: &Series, xa: &LogAxis, ya: &LogAxis, r: f64) {
    let st = style(&s.kernel);
    for (x, y, title) in &s.points {
        if xa.contains(*x) && ya.contains(*y) {
            svg.marker(st, xa.px(*x), ya.px(*y), r, title);
        }
    }
}

fn no_data(title: &str, why: &str) -> String {
    let mut svg = Svg::new(640.0, 160.0);
    svg.text(320.0, 60.0, 16.0, "middle", r#"font-weight="bold""#, title);
    svg.text(320.0, 95.0, 13.0, "middle", "", why);
    svg.finish()
}

fn ranges(results: &[MatrixResult]) -> Option<((i32, i32), (i32, i32))> {
    let timed: Vec<(f64, f64)> = results
        .iter()
        .flat_map(|r| {
            r.kernels
                .iter()
                .filter_map(|m| m.median_ms.map(|t| (r.nnz as f64, t)))
        })
        .collect();
    let xr = LogAxis::range(10.0, timed.iter().map(|p| p.0))?;
    let yr = LogAxis::range(10.0, timed.iter().map(|p| p.1))?;
    Some((xr, yr))
}

/// Runtime against nonzeros, log-log, every kernel in one plot (one colour per kernel, legend).
pub fn runtime_vs_nnz(results: &[MatrixResult], title: &str) -> String {
    let Some((xr, yr)) = ranges(results) else {
        return no_data(title, "no kernel was timed");
    };
    let kernels = kernel_order(results);
    let (w, h) = (980.0, 620.0);
    let f = Frame {
        x: 80.0,
        y: 44.0,
        w: 680.0,
        h: 500.0,
    };
    let mut svg = Svg::new(w, h);
    let (xa, ya) = log_log_frame(
        &mut svg,
        f,
        xr,
        yr,
        title,
        "nonzeros",
        "median time per SpMV (ms)",
        12.0,
    );
    // cuSPARSE and the copy first, so the schedules' markers sit on top.
    for (k, _) in kernels.iter().rev() {
        draw_series(&mut svg, &series(results, k), &xa, &ya, 4.5);
    }
    let legend: Vec<(String, Style)> = kernels.iter().map(|(k, _)| (label(k), style(k))).collect();
    svg.legend(f.x + f.w + 24.0, f.y + 14.0, &legend);
    svg.text(
        f.x + f.w + 24.0,
        f.y + 14.0 + legend.len() as f64 * 19.0 + 12.0,
        11.0,
        "start",
        r##"fill="#555555""##,
        "lower is faster",
    );
    svg.finish()
}

/// One panel per schedule: the schedule (its colour), cuSPARSE ALG1 (black squares) and the copy
/// ceiling (grey bars) against nonzeros, all panels on the same axes.
pub fn runtime_panels(results: &[MatrixResult], title: &str) -> String {
    let Some((xr, yr)) = ranges(results) else {
        return no_data(title, "no kernel was timed");
    };
    let schedules: Vec<String> = kernel_order(results)
        .into_iter()
        .filter(|(_, kind)| *kind == Kind::Schedule)
        .map(|(k, _)| k)
        .collect();
    if schedules.is_empty() {
        return no_data(title, "no schedule was timed");
    }
    let cols = schedules.len().min(4);
    let rows = schedules.len().div_ceil(cols);
    let (pw, ph) = (250.0, 200.0);
    let (cw, ch) = (pw + 95.0, ph + 90.0);
    let (w, h) = (cols as f64 * cw + 20.0, rows as f64 * ch + 80.0);
    let mut svg = Svg::new(w, h);
    svg.text(
        w / 2.0,
        26.0,
        16.0,
        "middle",
        r#"font-weight="bold""#,
        title,
    );
    let key = [(label(ALG1), style(ALG1)), (label(COPY), style(COPY))];
    svg.legend(w / 2.0 - 150.0, 50.0, &key[..1]);
    svg.legend(w / 2.0 + 30.0, 50.0, &key[1..]);
    let (alg1, copy) = (series(results, ALG1), series(results, COPY));
    for (i, k) in schedules.iter().enumerate() {
        let (c, r) = (i % cols, i / cols);
        let f = Frame {
            x: 20.0 + c as f64 * cw + 62.0,
            y: 80.0 + r as f64 * ch + 24.0,
            w: pw,
            h: ph,
        };
        let (xa, ya) = log_log_frame(&mut svg, f, xr, yr, k, "nonzeros", "ms", 10.0);
        draw_series(&mut svg, &copy, &xa, &ya, 3.5);
        draw_series(&mut svg, &alg1, &xa, &ya, 3.5);
        draw_series(&mut svg, &series(results, k), &xa, &ya, 3.5);
    }
    svg.finish()
}

mod speedup;
pub use speedup::speedup;
