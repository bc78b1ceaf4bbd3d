//! Hostile SWF job logs in system runs (issue 37): errors name the file's line and job number,
//! the header's `MaxProcs` is compared with the machine, and a file is read within its bound.

use numaplace_sim::input::{MACHINE_FILE, SWF_FILE};
use numaplace_sim::presets::{load_machine, preset};
use numaplace_sim::run::RunConfig;
use numaplace_sim::run::system::{run_system, SystemRun};
use numaplace_outfile::TempPath;

/// A file holding `text`, in a directory of its own that goes when the value is dropped.
fn file(name: &str, text: &str) -> TempPath {
    let p = TempPath::new("hostile-swf-test", name).unwrap();
    std::fs::write(&p, text).unwrap();
    p
}

fn run(path: &std::path::Path, apps: &str) -> Result<SystemRun, String> {
    let m = preset("origin2000-64").unwrap();
    let cfg = RunConfig { job_stream: Some(path.display().to_string()), apps: Some(apps.into()), ..RunConfig::default() };
    run_system(&m, &cfg, &mut |_| true).map_err(|e| e.to_string())
}

/// A job line: job number `job`, submitted at `submit` s, asking for `cpus`.
fn line(job: i64, submit: i64, cpus: i64) -> String {
    format!("{job} {submit} 0 10 {cpus} -1 -1 {cpus} -1 -1 1 1 1 1 1 1 -1 -1\n")
}

#[test]
fn a_jobs_error_names_its_line_and_job_number_in_the_file() {
    let p = file("bad-app.swf", &format!("; Version: 2.2\n;\n{}\n{}", line(7, 0, 2), line(9, 5, 2)));
    let e = run(&p, "nosuch-workload").unwrap_err();
    assert!(e.starts_with("job 0 (swf line 3, job 7): unknown workload 'nosuch-workload'"), "{e}");
    let e = run(&p, "stream:pages=x").unwrap_err();
    assert!(e.starts_with("job 0 (swf line 3, job 7): workload 'stream': pages=x: "), "{e}");
}

#[test]
fn max_procs_is_compared_with_the_machine() {
    let apps = "stream:pages=4,iterations=1";
    let p = file("maxprocs.swf", &format!("; MaxProcs: 128\n{}", line(1, 0, 2)));
    let r = run(&p, apps).unwrap();
    assert_eq!(r.config.max_procs.as_deref(), Some("the log's machine had 128 processors (MaxProcs), machine 'origin2000-64' has 64"));
    assert!(r.to_json().contains("\"max_procs\": \"the log's machine had 128 processors"));
    for header in ["; MaxProcs: 64\n", "; MaxProcs: -1\n", ""] {
        let p = file("same.swf", &format!("{header}{}", line(1, 0, 2)));
        let r = run(&p, apps).unwrap();
        assert_eq!(r.config.max_procs, None, "{header}");
        assert!(!r.to_json().contains("max_procs"));
    }
}

#[test]
fn input_files_are_read_within_their_bound() {
    // A file just past the bound is refused in one line naming the file and the bound; the
    // bound is checked while reading (/dev/zero: the CLI test, python/tests/test_hostile_rust_inputs.py).
    let p = file("big.toml", &"#".repeat(MACHINE_FILE.max_bytes as usize + 1));
    let e = load_machine(&p.display().to_string()).unwrap_err().to_string();
    assert_eq!(e, format!("{}: more than 16777216 bytes (16 MiB), the bound on machine files", p.display()));
    assert_eq!(SWF_FILE.max_bytes, 256 << 20);
    let p = file("nul.swf", "1 0 0 10 2 -1 -1 2 -1 -1 1 1 1 1 1 1 -1 \u{0}\n");
    let e = run(&p, "stream").unwrap_err();
    assert!(e.contains("nul.swf: swf line 1: field 18 (think time from preceding job) is '\\x00', not an integer"), "{e}");
}
