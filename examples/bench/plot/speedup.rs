//! The speedup plot: each matrix's speedup over cuSPARSE ALG1 (the paper's Figure 4).

use super::*;

/// Each matrix's speedup over cuSPARSE ALG1, one row per matrix (by nonzeros, smallest at the top),
/// one marker per kernel, the best schedule ringed, a line at 1x, and a closing row of geomeans.
pub fn speedup(results: &[MatrixResult], title: &str) -> String {
    let with_alg1: Vec<&MatrixResult> = results.iter().filter(|r| r.alg1_ms().is_some()).collect();
    if with_alg1.is_empty() {
        return no_data(title, "no cuSPARSE ALG1 result: nothing to compare with");
    }
    let kernels: Vec<String> = kernel_order(results)
        .into_iter()
        .map(|(k, _)| k)
        .filter(|k| k != ALG1)
        .collect();
    let mut rows: Vec<&MatrixResult> = results.iter().collect();
    rows.sort_by(|a, b| a.nnz.cmp(&b.nnz).then(a.name.cmp(&b.name)));
    let labels: Vec<String> = rows
        .iter()
        .map(|r| format!("{} ({})", r.name, count_label_exact(r.nnz)))
        .collect();
    let layout = SpeedupLayout::new(&rows, &kernels, &labels);

    let mut svg = Svg::new(layout.width, layout.height);
    let f = layout.frame;
    svg.text(
        (f.x + f.w) / 2.0,
        24.0,
        16.0,
        "middle",
        r#"font-weight="bold""#,
        title,
    );
    svg.rect(f.x, f.y, f.w, f.h, r##"fill="#fbfbfb" stroke="none""##);
    layout.draw_row_labels(&mut svg, &rows, &labels);
    layout.draw_axis(&mut svg);
    for (i, r) in rows.iter().enumerate() {
        layout.draw_matrix_speedups(&mut svg, i, r, &kernels);
    }
    layout.draw_geomean_row(&mut svg, rows.len(), &with_alg1, &kernels);
    svg.rect(f.x, f.y, f.w, f.h, r##"fill="none" stroke="#333333""##);
    svg.text(
        f.x + f.w / 2.0,
        f.y + f.h + 40.0,
        12.0,
        "middle",
        "",
        "speedup over cuSPARSE CSR ALG1 (log scale; right of the line is faster)",
    );
    layout.draw_legend(&mut svg, &kernels);
    svg.finish()
}

/// A kernel's speedup over cuSPARSE ALG1 on one matrix; `None` if either was not timed.
fn speedup_over_alg1(r: &MatrixResult, kernel: &str) -> Option<f64> {
    r.ms(kernel).and_then(|t| r.speedup(t))
}

/// Where the speedup plot's parts go: one row per matrix in `frame`, the speedups on a log-2 axis
/// across it, the legend to its right.
struct SpeedupLayout {
    frame: Frame,
    axis: LogAxis,
    row_h: f64,
    legend_x: f64,
    width: f64,
    height: f64,
}

impl SpeedupLayout {
    /// The frame wide enough for the longest row label and tall enough for every matrix and the
    /// geomean row; the axis spans every speedup and 1x.
    fn new(rows: &[&MatrixResult], kernels: &[String], labels: &[String]) -> SpeedupLayout {
        let values = rows
            .iter()
            .flat_map(|r| kernels.iter().filter_map(|k| speedup_over_alg1(r, k)))
            .chain([1.0]);
        let (lo, hi) = LogAxis::range(2.0, values).unwrap_or((-1, 1));
        let label_w = labels
            .iter()
            .map(|l| l.chars().count())
            .max()
            .unwrap_or(10)
            .clamp(12, 60) as f64
            * 7.4
            + 16.0;
        let row_h = 20.0;
        let frame = Frame {
            x: label_w,
            y: 64.0,
            w: 560.0,
            h: (rows.len() + 1) as f64 * row_h + 12.0,
        };
        let legend_x = frame.x + frame.w + 28.0;
        let height = frame.y + frame.h + 70.0;
        SpeedupLayout {
            frame,
            axis: LogAxis {
                base: 2.0,
                lo,
                hi,
                a: frame.x,
                b: frame.x + frame.w,
            },
            row_h,
            legend_x,
            width: legend_x + 190.0,
            // The legend may run below the last row.
            height: height.max(frame.y + kernels.len() as f64 * 19.0 + 120.0),
        }
    }

    /// The centre line of row `i` (the geomean row is `rows.len()`, moved down by 6 px).
    fn row_y(&self, i: usize) -> f64 {
        self.frame.y + 6.0 + (i as f64 + 0.5) * self.row_h
    }

    /// Every other row shaded, each row's matrix name left of the frame (bold when large).
    fn draw_row_labels(&self, svg: &mut Svg, rows: &[&MatrixResult], labels: &[String]) {
        let f = self.frame;
        for (i, r) in rows.iter().enumerate() {
            let y = self.row_y(i);
            if i % 2 == 0 {
                svg.rect(
                    f.x,
                    y - self.row_h / 2.0,
                    f.w,
                    self.row_h,
                    r##"fill="#f0f0f0" stroke="none""##,
                );
            }
            let large = r.nnz >= LARGE_NNZ;
            let attrs = if large { r#"font-weight="bold""# } else { "" };
            svg.text(f.x - 8.0, y + 4.0, 11.0, "end", attrs, &labels[i]);
        }
    }

    /// The speedup ticks below the frame and the line at 1x (ALG1 itself).
    fn draw_axis(&self, svg: &mut Svg) {
        let f = self.frame;
        for v in self.axis.major(10) {
            let x = self.axis.px(v);
            svg.line((x, f.y), (x, f.y + f.h), "#d0d0d0", 0.8);
            svg.line((x, f.y + f.h), (x, f.y + f.h + 4.0), "#333333", 1.0);
            svg.text(x, f.y + f.h + 18.0, 11.0, "middle", "", &speedup_label(v));
        }
        let one = self.axis.px(1.0);
        svg.line((one, f.y - 6.0), (one, f.y + f.h), "#000000", 1.5);
        svg.text(one, f.y - 10.0, 11.0, "middle", "", "cuSPARSE ALG1");
    }

    /// Row `i`: a marker per kernel at its speedup, the best schedule ringed; a note instead when
    /// the matrix has no ALG1 time.
    fn draw_matrix_speedups(&self, svg: &mut Svg, i: usize, r: &MatrixResult, kernels: &[String]) {
        let y = self.row_y(i);
        let Some(alg1) = r.alg1_ms() else {
            svg.text(
                self.axis.px(1.0) + 8.0,
                y + 4.0,
                10.0,
                "start",
                r##"fill="#888888""##,
                "no cuSPARSE ALG1 result",
            );
            return;
        };
        // The copy and ALG2 first, then the schedules on top; the best schedule ringed.
        for k in kernels.iter().rev() {
            if let Some(s) = speedup_over_alg1(r, k) {
                let t = alg1 / s;
                let title = format!("{}: {} {:.3}x ({:.4} ms)", r.name, label(k), s, t);
                svg.marker(style(k), self.axis.px(s), y, 4.5, &title);
            }
        }
        if let Some((_, t)) = r.best_schedule() {
            let x = self.axis.px(alg1 / t);
            let _ = writeln!(
                svg.out,
                r##"<circle cx="{x:.1}" cy="{y:.1}" r="7.5" fill="none" stroke="#000000" stroke-width="1.2"/>"##
            );
        }
    }

    /// Below a rule after the `n_rows` matrices: each kernel's geomean speedup over the matrices
    /// with an ALG1 time.
    fn draw_geomean_row(
        &self,
        svg: &mut Svg,
        n_rows: usize,
        with_alg1: &[&MatrixResult],
        kernels: &[String],
    ) {
        let f = self.frame;
        let gy = self.row_y(n_rows) + 6.0;
        svg.line(
            (f.x, gy - self.row_h / 2.0 - 2.0),
            (f.x + f.w, gy - self.row_h / 2.0 - 2.0),
            "#333333",
            0.8,
        );
        svg.text(
            f.x - 8.0,
            gy + 4.0,
            11.0,
            "end",
            r#"font-weight="bold""#,
            &format!("geomean ({} matrices)", with_alg1.len()),
        );
        for k in kernels.iter().rev() {
            if let Some(g) = geomean(with_alg1.iter().filter_map(|r| speedup_over_alg1(r, k))) {
                svg.marker(
                    style(k),
                    self.axis.px(g),
                    gy,
                    4.5,
                    &format!("geomean: {} {:.3}x", label(k), g),
                );
            }
        }
    }

    /// Every kernel's style, the ring of the best schedule, and what bold names mean.
    fn draw_legend(&self, svg: &mut Svg, kernels: &[String]) {
        let mut legend: Vec<(String, Style)> =
            kernels.iter().map(|k| (label(k), style(k))).collect();
        legend.push((
            "best schedule (ringed)".to_string(),
            Style {
                colour: "#000000",
                marker: Marker::Circle,
                hollow: true,
            },
        ));
        let y = self.frame.y + 10.0;
        svg.legend(self.legend_x, y, &legend);
        svg.text(
            self.legend_x,
            y + legend.len() as f64 * 19.0 + 10.0,
            11.0,
            "start",
            r##"fill="#555555""##,
            "bold names: >= 1e6 nonzeros",
        );
    }
}

/// A nonzero count for a row label: 1.2M, 160K, 950.
fn count_label_exact(n: usize) -> String {
    let v = n as f64;
    if v >= 1e9 {
        format!("{:.1}G", v / 1e9)
    } else if v >= 1e6 {
        format!("{:.1}M", v / 1e6)
    } else if v >= 1e4 {
        format!("{:.0}K", v / 1e3)
    } else {
        n.to_string()
    }
}
