//! The SpMV benchmark's writers without a GPU: the CSV, the SVG plots, the table and the geomeans,
//! on made-up results; the reference check against `verify::check_spmv`; the default set.

use loops_bench as bench;
#[path = "common/nvrtc.rs"]
mod nvrtc;

use bench::corpus;
use bench::csv;
use bench::plot;
use bench::report;
use bench::world;
use bench::{geomean, Kind, MatrixResult, Measurement, Reference, Timing, ALG1, ALG2, COPY};

fn timed(kernel: &str, kind: Kind, ms: f64) -> Measurement {
    Measurement {
        kernel: kernel.to_string(),
        kind,
        median_ms: Some(ms),
        per_launch_ms: Some(ms * 1.1),
        timing: Timing::PerLaunch { samples: 100 },
        failure: None,
    }
}

/// A matrix with the copy, two schedules, ALG1 and ALG2.
fn result(name: &str, rows: usize, nnz: usize, ms: [f64; 5]) -> MatrixResult {
    let mut r = MatrixResult::new::<f32>(name, rows, rows, nnz);
    r.kernels = vec![
        timed(COPY, Kind::Copy, ms[0]),
        timed("warp", Kind::Schedule, ms[1]),
        timed("merge_path", Kind::Schedule, ms[2]),
        timed(ALG1, Kind::Cusparse, ms[3]),
        timed(ALG2, Kind::Cusparse, ms[4]),
    ];
    r
}

fn sample() -> Vec<MatrixResult> {
    let mut small = result(
        "small, \"quoted\" <&>",
        20_000,
        160_000,
        [0.002, 0.009, 0.008, 0.010, 0.012],
    );
    small.kernels[2].timing = Timing::Batch {
        launches: 20,
        samples: 100,
    };
    small.kernels[3].timing = Timing::Graph {
        launches: 20,
        samples: 100,
    };
    let big = result(
        "banded",
        8_400_000,
        134_400_000,
        [0.30, 0.50, 0.40, 0.45, 0.60],
    );
    let mut broken = result(
        "broken",
        1_000_000,
        3_000_000,
        [0.01, 0.02, 0.03, 0.04, 0.05],
    );
    broken.kernels[1] = Measurement::failed(
        "warp",
        Kind::Schedule,
        "3 of 1000000 rows outside their error bound",
    );
    vec![small, big, broken]
}

#[test]
fn model_bytes_speedup_and_copy_share() {
    let r = &sample()[1];
    assert_eq!(r.bytes, 8 * 134_400_000 + 12 * 8_400_000);
    assert_eq!(r.best_schedule(), Some(("merge_path", 0.40)));
    assert!((r.speedup(0.40).unwrap() - 0.45 / 0.40).abs() < 1e-12);
    assert!((r.pct_of_copy(0.40).unwrap() - 75.0).abs() < 1e-9);
    let gbs = r.gb_per_s(0.40);
    assert!((gbs - r.bytes as f64 / 0.40e-3 / 1e9).abs() < 1e-6);
    // A failed kernel is not a candidate for best.
    assert_eq!(sample()[2].best_schedule(), Some(("merge_path", 0.03)));
}

#[test]
fn geomeans() {
    assert!((geomean([2.0, 8.0]).unwrap() - 4.0).abs() < 1e-12);
    assert_eq!(geomean([0.0, f64::NAN, -1.0]), None);
    assert_eq!(geomean(std::iter::empty()), None);
    let results = sample();
    // Best per matrix: 0.010/0.008, 0.45/0.40, 0.04/0.03.
    let all = report::best_speedups(&results, 0);
    assert_eq!(all.len(), 3);
    let large = report::best_speedups(&results, report::LARGE_NNZ);
    assert_eq!(large.len(), 2);
    let text = report::summary(&results);
    assert!(text.contains("over 3 matrices"), "{text}");
    assert!(
        text.contains("over 2 matrices with >= 1e6 nonzeros"),
        "{text}"
    );
    assert!(text.contains("cusparse_alg2"), "{text}");
}

#[test]
fn summary_without_cusparse_says_so() {
    let mut results = sample();
    for r in &mut results {
        r.kernels.retain(|m| m.kind != Kind::Cusparse);
    }
    assert!(report::summary(&results).contains("no cuSPARSE ALG1 results"));
    assert!(report::table_row(&results[1]).contains(" - "));
}

#[test]
fn table_rows() {
    let results = sample();
    let head = report::table_header();
    assert!(head.starts_with("matrix"));
    let row = report::table_row(&results[1]);
    assert!(row.starts_with("banded"), "{row}");
    assert!(
        row.contains("merge_path") && row.contains("1.12x") && row.contains("75%"),
        "{row}"
    );
    let row = report::table_row(&results[2]);
    assert!(row.contains("warp: 3 of 1000000 rows"), "{row}");
}

#[test]
fn csv_has_a_header_and_a_line_per_kernel() {
    let results = sample();
    let mut buf = Vec::new();
    csv::write(&mut buf, &results).unwrap();
    let text = String::from_utf8(buf).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 1 + 3 * 5);
    assert_eq!(csv::split_line(lines[0]), csv::HEADER);
    let col = |name: &str| csv::HEADER.iter().position(|h| *h == name).unwrap();
    for line in &lines[1..] {
        assert_eq!(csv::split_line(line).len(), csv::HEADER.len(), "{line}");
    }
    // The quoted name survives a round trip.
    let first = csv::split_line(lines[1]);
    assert_eq!(first[col("matrix")], "small, \"quoted\" <&>");
    assert_eq!(first[col("kernel")], COPY);
    // banded, merge_path: 0.4 ms, speedup 1.125, 75% of the copy.
    let mp = lines
        .iter()
        .map(|l| csv::split_line(l))
        .find(|f| f[0] == "banded" && f[col("kernel")] == "merge_path")
        .unwrap();
    assert_eq!(mp[col("median_ms")], "0.400000");
    assert_eq!(mp[col("speedup_vs_cusparse_alg1")], "1.1250");
    assert_eq!(mp[col("pct_of_copy_bandwidth")], "75.0");
    assert_eq!(mp[col("effective_gb_s")], "2940.0");
    assert_eq!(mp[col("timing")], "per-launch");
    assert_eq!(mp[col("status")], "ok");
    // Batch and graph timing are labelled; a failed kernel has empty numbers and its reason.
    assert!(text.contains(",batch-of-20,100,"));
    assert!(text.contains(",graph-of-20,100,"));
    let failed = lines
        .iter()
        .map(|l| csv::split_line(l))
        .find(|f| f[0] == "broken" && f[col("kernel")] == "warp")
        .unwrap();
    assert_eq!(failed[col("median_ms")], "");
    assert_eq!(failed[col("timing")], "-");
    assert!(failed[col("status")].contains("outside their error bound"));
}

#[test]
fn csv_fields_quote_what_needs_it() {
    assert_eq!(csv::field("plain"), "plain");
    assert_eq!(csv::field("a,b"), "\"a,b\"");
    assert_eq!(csv::field("say \"hi\""), "\"say \"\"hi\"\"\"");
    assert_eq!(
        csv::split_line("a,\"b,c\",\"d\"\"e\","),
        ["a", "b,c", "d\"e", ""]
    );
}

/// Tags open and close in order (a small well-formedness check; no XML parser needed).
fn assert_well_formed(svg: &str) {
    assert!(
        svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""),
        "{svg}"
    );
    assert!(svg.trim_end().ends_with("</svg>"));
    assert!(
        !svg.contains("NaN") && !svg.contains("inf"),
        "non-finite coordinate"
    );
    let mut stack: Vec<String> = Vec::new();
    let mut rest = svg;
    while let Some(start) = rest.find('<') {
        let end = rest[start..].find('>').expect("unclosed tag") + start;
        let tag = &rest[start + 1..end];
        assert!(!tag.contains('<'), "a '<' inside a tag: {tag}");
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(
                stack.pop().as_deref(),
                Some(name.trim()),
                "mismatched </{name}>"
            );
        } else if !tag.ends_with('/') {
            let name = tag.split_whitespace().next().unwrap().to_string();
            stack.push(name);
        }
        rest = &rest[end + 1..];
    }
    assert!(stack.is_empty(), "unclosed: {stack:?}");
    // Text between tags has no raw '&' that is not an entity.
    for (i, _) in svg.match_indices('&') {
        let ent = &svg[i..svg.len().min(i + 7)];
        assert!(
            ["&amp;", "&lt;", "&gt;", "&quot;", "&apos;"]
                .iter()
                .any(|e| ent.starts_with(e)),
            "raw & at {ent}"
        );
    }
}

#[test]
fn plots_are_well_formed_and_name_every_kernel() {
    let results = sample();
    let runtime = plot::runtime_vs_nnz(&results, "Runtime vs nonzeros (test)");
    let panels = plot::runtime_panels(&results, "Panels (test)");
    let speedup = plot::speedup(&results, "Speedup (test)");
    for svg in [&runtime, &panels, &speedup] {
        assert_well_formed(svg);
    }
    for name in ["warp", "merge_path", "cuSPARSE CSR ALG1", "copy (ceiling)"] {
        assert!(
            runtime.contains(&format!(">{name}</text>")),
            "legend lacks {name}"
        );
    }
    assert!(runtime.contains(">cuSPARSE CSR ALG2</text>"));
    // Hover titles carry the numbers; the quoted name is escaped.
    assert!(runtime.contains("banded: merge_path 0.4000 ms"));
    assert!(runtime.contains("small, &quot;quoted&quot; &lt;&amp;&gt;"));
    // Decade ticks of both axes.
    assert!(runtime.contains(">100K</text>") && runtime.contains(">100M</text>"));
    assert!(runtime.contains(">0.001</text>") && runtime.contains(">1</text>"));
    // One panel per schedule.
    assert!(panels.contains(">warp</text>") && panels.contains(">merge_path</text>"));
    // The speedup plot: every matrix, the 1x line, the geomean row, the best ringed.
    for name in [
        "banded (134.4M)",
        "broken (3.0M)",
        "geomean (3 matrices)",
        "cuSPARSE ALG1",
    ] {
        assert!(speedup.contains(name), "speedup plot lacks {name}");
    }
    assert!(speedup.contains(">1x</text>"));
    assert!(speedup.contains("banded: merge_path 1.125x"));
    assert_eq!(speedup.matches(r#"r="7.5""#).count(), 3);
}

#[test]
fn plots_without_data_say_so() {
    for svg in [
        plot::runtime_vs_nnz(&[], "t"),
        plot::runtime_panels(&[], "t"),
        plot::speedup(&[], "t"),
    ] {
        assert_well_formed(&svg);
        assert!(svg.contains("no "), "{svg}");
    }
    let mut results = sample();
    for r in &mut results {
        r.kernels.retain(|m| m.kernel != ALG1);
    }
    let svg = plot::speedup(&results, "t");
    assert_well_formed(&svg);
    assert!(svg.contains("no cuSPARSE ALG1 result"));
}

#[test]
fn axis_labels() {
    assert_eq!(plot::count_label(1e3), "1K");
    assert_eq!(plot::count_label(1e8), "100M");
    assert_eq!(plot::count_label(10.0), "10");
    assert_eq!(plot::ms_label(0.001), "0.001");
    assert_eq!(plot::ms_label(10.0), "10");
    assert_eq!(plot::speedup_label(0.25), "0.25x");
    assert_eq!(plot::speedup_label(4.0), "4x");
    assert_eq!(plot::speedup_label(1.0 / 16.0), "1/16x");
    assert_eq!(plot::speedup_label(0.125), "1/8x");
}

#[test]
fn every_kernel_has_a_distinct_style() {
    let names = [
        "thread",
        "group2",
        "warp",
        "group64",
        "block",
        "work_oriented",
        "merge_path",
        ALG1,
        ALG2,
        COPY,
    ];
    let styles: Vec<_> = names.iter().map(|n| plot::style(n)).collect();
    for i in 0..styles.len() {
        for j in i + 1..styles.len() {
            assert_ne!(styles[i], styles[j], "{} and {}", names[i], names[j]);
        }
    }
    assert_eq!(plot::style("a_new_schedule"), plot::style("a_new_schedule"));
}

#[test]
fn reference_judges_like_check_spmv() {
    let a: sprs::CsMat<f32> = loops::io::generate::power_law(500, 400, 6.0, 2.0, false, 3);
    let x: Vec<f32> = loops::io::generate::random_vector(a.cols(), 4);
    let reference = Reference::new(&a, &x);
    let mut y = vec![0f32; a.rows()];
    for (r, row) in a.outer_iterator().enumerate() {
        y[r] = row.iter().map(|(c, v)| v * x[c]).sum();
    }
    let same = loops::check::check_spmv(&a, &x, &y);
    assert!(same.passed());
    assert_eq!(reference.check(&y), same);
    y[7] = f32::NAN;
    y[100] += 1.0;
    let bad = reference.check(&y);
    // Debug text, since the NaN row makes `==` false.
    assert_eq!(
        format!("{bad:?}"),
        format!("{:?}", loops::check::check_spmv(&a, &x, &y))
    );
    assert_eq!(bad.bad_rows, 2);
}

#[test]
fn default_set_is_the_issue_s_shapes() {
    let set = corpus::default_set();
    let names: Vec<&str> = set.iter().map(|e| e.name.as_str()).collect();
    assert!(names.contains(&"banded_8.4M_16"));
    assert!(set.iter().any(|e| e.spec
        == corpus::Spec::Banded {
            rows: 8_400_000,
            bandwidth: 16
        }));
    assert!(set.iter().any(|e| matches!(
        e.spec,
        corpus::Spec::PowerLaw {
            contiguous: true,
            ..
        }
    )));
    assert!(set
        .iter()
        .any(|e| matches!(e.spec, corpus::Spec::Rmat { scale: 20..=22, .. })));
    assert!(set.iter().any(|e| e.spec
        == corpus::Spec::Uniform {
            rows: 20_000,
            cols: 20_000,
            per_row: 8
        }));
    let mut unique = names.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), names.len(), "names must be unique");
    // The small one builds quickly and as specified.
    let small = set.iter().find(|e| e.name == "uniform_20K_8").unwrap();
    let a = small.load::<f32>(1).unwrap();
    assert_eq!((a.rows(), a.nnz()), (20_000, 160_000));
}

#[test]
fn corpus_from_a_folder() {
    let dir = std::env::temp_dir().join(format!("bench_support_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for f in ["b.mtx", "a.mtx.gz", "notes.txt"] {
        std::fs::write(dir.join(f), "").unwrap();
    }
    let entries = corpus::from_dir(&dir).unwrap();
    let names: Vec<&str> = entries.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["a", "b"]);
    assert_eq!(corpus::set_name(None), "generated");
    assert!(corpus::set_name(Some(&dir)).starts_with("bench_support_"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The hand-written merge-path control compiles with the generated kernels' NVRTC path.
#[test]
fn handwritten_merge_path_compiles() {
    use loops::compile::{compile_ptx, Arch};
    if nvrtc::nvrtc_or_skip().is_none() {
        return;
    }
    let ptx = compile_ptx(
        bench::handwritten::NAME,
        bench::handwritten::SOURCE,
        Arch::SM_90,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    for entry in ["handwritten_merge_path_f32", "handwritten_merge_path_f64"] {
        assert!(ptx.contains(&format!(".entry {entry}(")), "no {entry}");
    }
}

/// A world-set matrix: the copy, two schedules, auto and ALG1 at these times.
fn world_result(name: &str, class: &str, held_out: bool, ms: [f64; 4]) -> MatrixResult {
    let mut r = MatrixResult::new::<f32>(name, 10_000, 10_000, 50_000);
    r.kernels = vec![
        timed(COPY, Kind::Copy, 0.001),
        timed("thread", Kind::Schedule, ms[0]),
        timed("work_oriented", Kind::Schedule, ms[1]),
        timed("auto", Kind::Schedule, ms[2]),
        timed(ALG1, Kind::Cusparse, ms[3]),
    ];
    r.world = Some(world::WorldTag {
        class: class.to_string(),
        held_out,
    });
    r
}

fn world_sample() -> Vec<MatrixResult> {
    vec![
        // auto picks the best: 1.0; ALG1 1.0.
        world_result(
            "snap_a_s0",
            "snap_power_law",
            false,
            [0.030, 0.010, 0.010, 0.010],
        ),
        // auto picks thread, 3x slower than work_oriented which beats ALG1: a missed win.
        world_result(
            "snap_b_s2",
            "snap_power_law",
            false,
            [0.030, 0.010, 0.030, 0.012],
        ),
        // Held out: 0.5 of the best.
        world_result(
            "snap_c_s1",
            "snap_power_law",
            true,
            [0.020, 0.010, 0.020, 0.009],
        ),
        world_result(
            "road_a_s0",
            "road_network",
            false,
            [0.010, 0.020, 0.010, 0.010],
        ),
    ]
}

#[test]
fn world_rows_and_figures() {
    let results = world_sample();
    let rows: Vec<world::WorldRow> = results
        .iter()
        .filter_map(world::WorldRow::from_spmv)
        .collect();
    assert_eq!(rows.len(), 4);
    // auto is never its own best schedule; cuSPARSE and the copy never are.
    assert_eq!(rows[1].best, Some(("work_oriented".to_string(), 0.010)));
    assert!((rows[1].auto_vs_best().unwrap() - 1.0 / 3.0).abs() < 1e-12);
    assert!(!rows[0].auto_misses_a_win());
    assert!(rows[1].auto_misses_a_win());
    // Held out: best 0.010 does not beat ALG1 0.009, so no missed win though auto is slow.
    assert!(!rows[2].auto_misses_a_win());
    let tuning_snap = world::figures(
        rows.iter()
            .filter(|r| r.tag.class == "snap_power_law" && !r.tag.held_out),
    );
    assert_eq!(tuning_snap.cases, 2);
    let g = tuning_snap.geomean_vs_best.unwrap();
    assert!((g - (1.0f64 / 3.0).sqrt()).abs() < 1e-12, "{g}");
    let (min, worst) = tuning_snap.min_vs_best.unwrap();
    assert!((min - 1.0 / 3.0).abs() < 1e-12);
    assert_eq!(worst, "snap_b_s2");
    let alg1 = tuning_snap.geomean_vs_alg1.unwrap();
    assert!((alg1 - (1.0f64 * 0.4).sqrt()).abs() < 1e-12, "{alg1}");
    assert_eq!(tuning_snap.missed_wins, 1);
    // A matrix of another set has no world row.
    assert!(world::WorldRow::from_spmv(&sample()[0]).is_none());
}

#[test]
fn world_summary_per_class_and_half() {
    let text = report::summary(&world_sample());
    assert!(text.contains("world set, auto against the best"), "{text}");
    let line = |class: &str, half: &str| {
        text.lines()
            .find(|l| {
                let f: Vec<&str> = l.split_whitespace().collect();
                f.len() > 2 && f[0] == class && f[1] == half
            })
            .unwrap_or_else(|| panic!("no line for {class} {half}:\n{text}"))
            .split_whitespace()
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    // class half cases geo/best min/best worst geo/alg1 missed
    assert_eq!(
        line("snap_power_law", "tuning"),
        [
            "snap_power_law",
            "tuning",
            "2",
            "0.577",
            "0.333",
            "snap_b_s2",
            "0.632",
            "1"
        ]
    );
    assert_eq!(
        line("snap_power_law", "held_out"),
        [
            "snap_power_law",
            "held_out",
            "1",
            "0.500",
            "0.500",
            "snap_c_s1",
            "0.450",
            "0"
        ]
    );
    // road has no held-out matrix: a line with no figures.
    assert_eq!(
        line("road_network", "held_out"),
        ["road_network", "held_out", "0", "-", "-", "-", "-", "0"]
    );
    assert_eq!(line("all", "tuning")[2], "3");
    assert_eq!(line("all", "tuning")[7], "1");
    assert_eq!(line("all", "held_out")[2], "1");
    // Without cuSPARSE, no ALG1 columns, and the world table still comes.
    let mut no_alg1 = world_sample();
    no_alg1
        .iter_mut()
        .for_each(|r| r.kernels.retain(|m| m.kind != Kind::Cusparse));
    let text = report::summary(&no_alg1);
    assert!(
        text.contains("world set") && !text.contains("geo/alg1"),
        "{text}"
    );
    // Other sets get no world table.
    assert!(!report::summary(&sample()).contains("world set"));
}

#[test]
fn world_csv_has_class_and_half() {
    let mut results = world_sample();
    results.extend(sample());
    let mut buf = Vec::new();
    csv::write(&mut buf, &results).unwrap();
    let text = String::from_utf8(buf).unwrap();
    let col = |name: &str| csv::HEADER.iter().position(|h| *h == name).unwrap();
    let lines: Vec<Vec<String>> = text.lines().skip(1).map(csv::split_line).collect();
    let held = lines.iter().find(|f| f[0] == "snap_c_s1").unwrap();
    assert_eq!(held[col("class")], "snap_power_law");
    assert_eq!(held[col("half")], "held_out");
    let tuning = lines.iter().find(|f| f[0] == "road_a_s0").unwrap();
    assert_eq!(tuning[col("half")], "tuning");
    let other = lines.iter().find(|f| f[0] == "banded").unwrap();
    assert_eq!(
        (other[col("class")].as_str(), other[col("half")].as_str()),
        ("", "")
    );
}

#[test]
fn world_set_entries() {
    let set = corpus::world_set(4);
    assert_eq!(set.len(), loops::io::generate::world_set(4).len());
    let tags: Vec<_> = set.iter().map(|e| e.world_tag().unwrap()).collect();
    assert!(tags.iter().any(|t| t.held_out) && tags.iter().any(|t| !t.held_out));
    assert_eq!(set[0].spec.to_string(), "snap_power_law(10000, seed 0)");
    let m = set[0].load::<f32>(2024).unwrap();
    assert_eq!(m.rows(), 10_000);
    assert!(corpus::default_set()
        .iter()
        .all(|e| e.world_tag().is_none()));
}

#[test]
fn world_row_from_graph_times() {
    let tag = world::WorldTag {
        class: "road_network".to_string(),
        held_out: true,
    };
    let times = [
        ("naive", 1.0),
        ("thread", 4.0),
        ("warp", 2.0),
        ("auto", 3.0),
    ];
    let row = world::WorldRow::from_times("road_1M_s1", tag.clone(), &times, &["naive"]);
    // The naive kernel is a baseline, not a schedule: warp is the best fixed schedule.
    assert_eq!(row.best, Some(("warp".to_string(), 2.0)));
    assert_eq!(row.auto_ms, Some(3.0));
    assert!((row.auto_vs_best().unwrap() - 2.0 / 3.0).abs() < 1e-12);
    assert_eq!(row.alg1_ms, None);
    assert!(!row.auto_misses_a_win());
    // Auto failed (left out by the caller): no ratio, no case.
    let row = world::WorldRow::from_times("road_1M_s1", tag, &times[..3], &["naive"]);
    assert_eq!(row.auto_vs_best(), None);
    let text = world::summary(&[row], "graphs (BFS)");
    assert!(
        text.contains("graphs (BFS)") && !text.contains("geo/alg1"),
        "{text}"
    );
    assert!(
        text.lines().any(|l| l
            .split_whitespace()
            .take(3)
            .eq(["road_network", "held_out", "0"])),
        "{text}"
    );
}

/// The traffic model's columns: a matrix charged twice the minimal model's bytes reaches twice
/// its share of the copy; the summary lists it; matrices without a model print `-`.
#[test]
fn traffic_columns_charge_the_models_dram_bytes() {
    let mut results = sample();
    let big = &mut results[1];
    // The banded matrix (merge_path 0.4 ms, copy 0.3 ms: 75% by the minimal model), charged
    // twice the minimal model's bytes.
    let bytes = big.bytes;
    big.traffic = Some(loops::check::SpmvTraffic {
        stream_bytes: bytes,
        gathered_bytes: 4 * bytes,
        x_touched_bytes: bytes / 2,
        x_dram_bytes: bytes,
        l2_bytes: 50 << 20,
    });
    let pct = big.pct_of_copy_by_traffic(0.4).unwrap();
    assert!((pct - 150.0).abs() < 1e-9, "{pct}");
    let row = report::table_row(&results[1]);
    assert!(row.contains("75%") && row.contains("150%"), "{row}");
    assert!(report::table_row(&results[0]).ends_with(" -"));
    let summary = report::summary(&results);
    assert!(summary.contains("traffic model"), "{summary}");
    let line = summary.lines().find(|l| l.starts_with("banded")).unwrap();
    assert!(
        line.contains("merge_path") && line.contains("150%") && line.contains(" no "),
        "{line}"
    );
    let mut buf = Vec::new();
    csv::write(&mut buf, &results).unwrap();
    let text = String::from_utf8(buf).unwrap();
    let col = |name: &str| csv::HEADER.iter().position(|h| *h == name).unwrap();
    let mp = text
        .lines()
        .map(csv::split_line)
        .find(|f| f[0] == "banded" && f[col("kernel")] == "merge_path")
        .unwrap();
    assert_eq!(mp[col("pct_of_copy_bandwidth_by_traffic")], "150.0");
    assert_eq!(mp[col("traffic_dram_bytes")], (2 * bytes).to_string());
    let small = text.lines().nth(1).map(csv::split_line).unwrap();
    assert_eq!(small[col("traffic_dram_bytes")], "");
}

/// `--relabel`'s summary pairs `<name>@deg` with `<name>`: times, ratios, cost and payback.
#[test]
fn relabel_summary_pairs_each_copy_with_its_original() {
    let mut results = sample();
    let mut rel = result(
        "banded@deg",
        8_400_000,
        134_400_000,
        [0.30, 0.40, 0.20, 0.45, 0.60],
    );
    rel.relabel_ms = Some(1000.0);
    results.push(rel);
    let s = report::summary(&results);
    let line = s
        .lines()
        .find(|l| l.starts_with("banded "))
        .unwrap_or_else(|| panic!("{s}"));
    // merge_path 0.4 ms as is, 0.2 ms relabelled: 2.00x, repaid by 1000 / 0.2 = 5000 products.
    assert!(
        line.contains("2.00x") && line.contains("5000") && line.contains("1.00x"),
        "{line}"
    );
    assert!(
        s.contains("geomean best as is / best relabelled: 2.00"),
        "{s}"
    );
    assert!(!report::summary(&sample()).contains("relabelled by"));
}
