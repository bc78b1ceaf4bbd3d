//! The SWF reader on real archive lines (`tests/data/nasa-ipsc-1993-excerpt.swf`: the header
//! and first 30 jobs of the Parallel Workloads Archive's NASA-iPSC-1993-3.1-cln.swf, see the
//! file's first comment), every malformed-field case, and fuzzing: random bytes and mutated
//! lines never panic, and every error names a line.

use numaplace_model::jobs::swf::{parse, to_stream, AppMap, StreamOptions, FIELD_NAMES, MAX_JOB_CPUS};
use numaplace_model::units::MAX_TIME_PS;
use proptest::prelude::*;

const NASA: &str = include_str!("data/nasa-ipsc-1993-excerpt.swf");

#[test]
fn real_archive_lines_load_with_their_values() {
    let log = parse(NASA).unwrap();
    let h = &log.header;
    assert_eq!(h.version.as_deref(), Some("2.2"));
    assert_eq!(h.computer.as_deref(), Some("Intel iPSC/860"));
    assert_eq!(h.installation.as_deref(), Some("NASA Ames Research Center"));
    assert_eq!((h.max_jobs, h.max_records, h.max_nodes, h.max_procs), (Some(42264), Some(42264), Some(128), Some(128)));
    assert_eq!((h.unix_start_time, h.time_zone), (Some(749458803), Some(-28800)));
    assert!(h.other.iter().any(|(k, v)| k == "TimeZoneString" && v == "US/Pacific"));
    assert_eq!(log.records.len(), 30);
    // "    1        0     -1   1451  128     -1    -1   -1     -1    -1 -1   1   1  -1 -1 -1 -1 -1"
    let r = &log.records[0];
    assert_eq!((r.job, r.submit, r.wait, r.run, r.allocated, r.requested), (1, 0, -1, 1451, 128, -1));
    assert_eq!((r.avg_cpu, r.used_memory, r.status, r.user, r.group, r.executable), (-1.0, -1.0, -1, 1, 1, -1));
    assert_eq!(r.cpus(), Some(128));
    // "   59    26613     -1    716   32     -1    -1   -1     -1    -1 -1   4   1   3 -1 -1 -1 -1"
    let r = log.records.iter().find(|r| r.job == 59).unwrap();
    assert_eq!((r.submit, r.run, r.allocated, r.user, r.executable), (26613, 716, 32, 4, 3));
    let last = log.records.last().unwrap();
    assert_eq!((last.job, last.submit, last.run, last.allocated, last.user, last.executable), (102, 32702, 14, 1, 9, 9));
    assert_eq!(last.line, NASA.lines().count());
}

#[test]
fn real_lines_become_a_stream() {
    let log = parse(NASA).unwrap();
    let s = to_stream(&log, &StreamOptions::default()).unwrap();
    assert!(s.skipped.is_empty());
    let jobs = &s.stream.jobs;
    assert_eq!(jobs.len(), 30);
    // Requests are unknown in this log: the allocation stands in.
    assert_eq!((jobs[0].arrival, jobs[0].cpus), (0, 128));
    assert_eq!((jobs[5].arrival, jobs[5].cpus), (25574 * 1_000_000_000_000, 1));
    // Executable 3 (job 59) runs the default map's third application; unknown (-1) the first.
    assert_eq!(jobs[6].workload, "hydro2d");
    assert_eq!(jobs[0].workload, "swim");
    // A window, with its own origin, and a table map.
    let opts = StreamOptions { first: 5, limit: Some(3), apps: AppMap::parse("3=apsi;*=nas-bt:class=W").unwrap(), max_cpus: None };
    let w = to_stream(&log, &opts).unwrap().stream.jobs;
    let got: Vec<(u32, u64, u32, &str)> = w.iter().map(|j| (j.id, j.arrival / 1_000_000_000_000, j.cpus, j.workload.as_str())).collect();
    assert_eq!(got, vec![(0, 0, 1, "nas-bt:class=W"), (1, 26613 - 25574, 32, "apsi"), (2, 27331 - 25574, 1, "nas-bt:class=W")]);
}

#[test]
fn requests_win_over_allocations_and_jobs_without_processors_are_skipped() {
    let text = "1 0 -1 10 4 -1 -1 16 -1 -1 1 1 1 2 -1 -1 -1 -1\n\
                2 5 -1 10 -1 -1 -1 -1 -1 -1 5 1 1 2 -1 -1 -1 -1\n\
                3 3 -1 10 8 -1 -1 -1 -1 -1 1 1 1 2 -1 -1 -1 -1\n";
    let s = to_stream(&parse(text).unwrap(), &StreamOptions::default()).unwrap();
    assert_eq!(s.skipped, vec![2]);
    let got: Vec<(u64, u32)> = s.stream.jobs.iter().map(|j| (j.arrival / 1_000_000_000_000, j.cpus)).collect();
    // Sorted by arrival: job 1 (at 0), then job 3 (at 3); job 2 has no processor count.
    assert_eq!(got, vec![(0, 16), (3, 8)]);
}

/// A valid line with field `i` (from 0) replaced by `value`.
fn with_field(i: usize, value: &str) -> String {
    let mut f: Vec<String> = "7 100 5 60 4 12.5 1024 4 3600 2048 1 3 1 2 1 1 -1 -1".split(' ').map(String::from).collect();
    f[i] = value.to_string();
    f.join(" ")
}

#[test]
fn every_malformed_field_is_a_one_line_error_naming_line_and_field() {
    for (i, name) in FIELD_NAMES.iter().enumerate() {
        let text = format!("; a header\n\n{}\n", with_field(i, "x"));
        let e = parse(&text).unwrap_err();
        let kind = if i == 5 || i == 6 { "a number" } else { "an integer" };
        assert_eq!(e.to_string(), format!("swf line 3: field {} ({name}) is 'x', not {kind}", i + 1));
    }
    // The brief's example.
    let e = parse(&format!("{}\n", with_field(4, "x"))).unwrap_err();
    assert_eq!(e.to_string(), "swf line 1: field 5 (allocated processors) is 'x', not an integer");
    for (text, want) in [
        ("1 2 3\n".to_string(), "swf line 1: 3 fields, expected 18"),
        (format!("{} 9\n", with_field(0, "1")), "swf line 1: 19 fields, expected 18"),
        (with_field(1, "1.5"), "swf line 1: field 2 (submit time) is '1.5', not an integer"),
        (with_field(5, "inf"), "swf line 1: field 6 (average CPU time used) is 'inf', not a number"),
        (with_field(1, "99999999999999999999"), "swf line 1: field 2 (submit time) is '99999999999999999999', not an integer"),
        (with_field(7, &(MAX_JOB_CPUS + 1).to_string()), "swf line 1: field 8 (requested processors) is 1048577, more than the bound of 1048576 processors"),
        (with_field(13, "a\tb"), "swf line 1: 19 fields, expected 18"),
        (with_field(13, "\u{1b}[2J"), "swf line 1: field 14 (executable number) is '\\x1b[2J', not an integer"),
        (format!("{}\n; MaxProcs: 1e3\n", with_field(0, "1")), "swf line 2: header MaxProcs is '1e3', not an integer"),
    ] {
        let e = parse(&text).unwrap_err().to_string();
        assert_eq!(e, want);
        assert!(!e.contains('\n'));
    }
    // A long field is cut in the message.
    let e = parse(&with_field(3, &"9".repeat(100))).unwrap_err().to_string();
    assert!(e.len() < 120 && e.contains("…(60 more characters)'"), "{e}");
}

#[test]
fn stream_errors_name_the_line() {
    let unknown = format!("{}\n", with_field(1, "-1"));
    let e = to_stream(&parse(&unknown).unwrap(), &StreamOptions::default()).unwrap_err().to_string();
    assert_eq!(e, "swf line 1: field 2 (submit time) is -1: unknown, so the job has no arrival");
    let max_s = MAX_TIME_PS / 1_000_000_000_000;
    let late = format!("{}\n{}\n", with_field(1, "0"), with_field(1, &(max_s + 1).to_string()));
    let e = to_stream(&parse(&late).unwrap(), &StreamOptions::default()).unwrap_err().to_string();
    assert!(e.starts_with("swf line 2: field 2 (submit time) is 4611687 s after the window's first job, beyond"), "{e}");
    // The window that leaves the early job out starts its clock at the late one.
    let opts = StreamOptions { first: 1, ..StreamOptions::default() };
    assert_eq!(to_stream(&parse(&late).unwrap(), &opts).unwrap().stream.jobs[0].arrival, 0);
}

/// Every error names a line of the text, in one line.
fn check_error(text: &str, r: Result<impl Sized, numaplace_model::jobs::swf::SwfError>) {
    if let Err(e) = r {
        let lines = text.lines().count();
        assert!(e.line >= 1 && e.line <= lines.max(1), "line {} of {lines}: {e}", e.line);
        let s = e.to_string();
        assert!(s.starts_with(&format!("swf line {}: ", e.line)) && !s.contains('\n') && !s.contains('\r'), "{s:?}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
        let text = String::from_utf8_lossy(&bytes);
        let r = parse(&text);
        if let Ok(log) = &r {
            let _ = to_stream(log, &StreamOptions::default());
        }
        check_error(&text, r);
    }

    #[test]
    fn mutated_real_lines_never_panic(
        line in 0usize..62,
        pos in 0usize..120,
        mutation in prop_oneof![
            any::<char>().prop_map(|c| c.to_string()),
            Just(String::new()),
            Just(" ".to_string()),
            Just("-".to_string()),
            Just("\n".to_string()),
            Just(";".to_string()),
            Just("99999999999999999999".to_string()),
            Just("1e400".to_string()),
            Just("nan".to_string()),
        ],
        delete in 0usize..4,
    ) {
        let lines: Vec<&str> = NASA.lines().collect();
        let l = line % lines.len();
        let mut target: Vec<char> = lines[l].chars().collect();
        let p = pos.min(target.len());
        let d = delete.min(target.len() - p);
        target.splice(p..p + d, mutation.chars());
        let mut text: Vec<String> = lines.iter().map(|s| s.to_string()).collect();
        text[l] = target.into_iter().collect();
        let text = text.join("\n");
        let r = parse(&text);
        if let Ok(log) = &r {
            let s = to_stream(log, &StreamOptions::default());
            if let Ok(s) = s {
                prop_assert!(s.stream.jobs.windows(2).all(|w| w[0].arrival <= w[1].arrival));
            }
        }
        check_error(&text, r);
    }
}

mod hostile {
    use numaplace_model::jobs::swf::{parse, to_stream, StreamOptions};
    use proptest::prelude::*;

    /// A field: a plain number, a huge one, a fraction, a word, control characters or nothing.
    fn field() -> impl Strategy<Value = String> {
        prop_oneof![
            (-2i64..200).prop_map(|v| v.to_string()),
            "[0-9]{19,300}",
            "-?[0-9]{1,5}\\.[0-9]{1,3}",
            "[a-z;:]{1,8}",
            "[\\x00-\\x1f\\x7f]{1,4}",
            Just(String::new()),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

        /// Whatever a log holds, parsing and streaming it end in a result or in one short line
        /// naming the line (no field is echoed whole).
        #[test]
        fn any_log_is_a_result_or_one_short_line(
            lines in prop::collection::vec(prop::collection::vec(field(), 0..20), 0..6),
            header in prop::option::of("[ -~]{0,60}"),
        ) {
            let mut text = header.map(|h| format!(";{h}\n")).unwrap_or_default();
            for l in &lines {
                text.push_str(&l.join(" "));
                text.push('\n');
            }
            let checked = |e: String| {
                assert!(!e.contains('\n') && !e.contains('\0') && e.chars().count() < 200, "{e:?}");
            };
            match parse(&text) {
                Err(e) => checked(e.to_string()),
                Ok(log) => {
                    if let Err(e) = to_stream(&log, &StreamOptions { max_cpus: Some(64), ..StreamOptions::default() }) {
                        checked(e.to_string());
                    }
                }
            }
        }
    }
}
