//! Hostile spec parameters (issue 16): every declared parameter of every workload, placement
//! and dynamic policy, set in turn to values a careless script or a hostile user would write,
//! must either be refused in one line that names the plug-in and the parameter, or resolve to a
//! plug-in that builds without a panic and whose first epochs are generated within bounded
//! memory. The registries are walked, so a new plug-in or parameter is covered by adding it.

use numaplace_model::spec::{ParamDecl, Spec};
use numaplace_model::{dynamic, placement};
use numaplace_sim::presets::load_machine;
use numaplace_sim::workload::{Epoch, Init, WorkloadCtx};
use numaplace_sim::workloads;

/// What replaces a parameter's value: zero, negative, tiny, huge, not-a-number, past u64,
/// u32::MAX, a word, and text with separators the spec syntax gives meaning to.
const HOSTILE: &[&str] =
    &["0", "-1", "1e-300", "1e300", "nan", "inf", "18446744073709551616", "4294967295", "zzz", "a=b", "1_0"];

/// A generated epoch may hold at most this many records on a tiny context: enough for any
/// built-in kernel at the sizes its parameters allow on one thread, small beside the memory a
/// test may use (8 bytes a record).
const MAX_RECORDS: usize = 64 << 20;

/// The refusal is one line naming the plug-in and the parameter — or, for a file parameter,
/// the file — or saying the footprint does not fit.
fn one_line_naming(e: &str, kind: &str, name: &str, param: &str) {
    assert!(!e.contains('\n'), "{kind} '{name}' {param}: not one line: {e}");
    let names_it = (e.contains(name) && e.contains(param)) || e.contains("out of memory") || e.contains("no such file");
    assert!(names_it, "{kind} '{name}' {param}: names neither: {e}");
}

fn specs(name: &str, params: &[ParamDecl]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for p in params {
        for v in HOSTILE {
            out.push((p.name.to_string(), format!("{name}:{}={v}", p.name)));
        }
    }
    out
}

#[test]
fn every_workload_parameter_is_refused_in_one_line_or_builds_within_bounds() {
    let machine = load_machine("origin2000").unwrap();
    let ctx = WorkloadCtx { threads: 1, page_size: machine.raw.page_size, line_size: machine.raw.line_size, seed: 0, init: Init::Parallel };
    let mut tried = 0;
    for info in workloads::REGISTRY.iter() {
        for (param, text) in specs(info.name, info.params) {
            tried += 1;
            let spec = match Spec::parse(&text) {
                Ok(s) => s,
                Err(e) => {
                    one_line_naming(&e.to_string(), "workload", info.name, &param);
                    continue;
                }
            };
            match workloads::build(&spec, &ctx) {
                Err(e) => one_line_naming(&e.to_string(), "workload", info.name, &param),
                Ok((mut wl, _)) => {
                    // What a run checks next: the footprint against the machine.
                    if machine.check_footprint(wl.pages()).is_err() {
                        continue;
                    }
                    let mut epoch = Epoch::default();
                    for _ in 0..2 {
                        if !wl.next_epoch(&mut epoch) {
                            break;
                        }
                        let records: usize = epoch.threads.iter().map(|t| t.txns.len()).sum();
                        assert!(records <= MAX_RECORDS, "{text}: an epoch of {records} records");
                    }
                }
            }
        }
    }
    assert!(tried > 100, "only {tried} workload cases");
}

#[test]
fn every_placement_and_policy_parameter_is_refused_in_one_line_or_builds() {
    let machine = load_machine("origin2000").unwrap();
    let mut tried = 0;
    for info in placement::REGISTRY.iter() {
        for (param, text) in specs(info.name, info.params) {
            tried += 1;
            match Spec::parse(&text).and_then(|s| placement::build(&s, &machine, 0)) {
                Ok(_) => {}
                Err(e) => one_line_naming(&e.to_string(), "placement", info.name, &param),
            }
        }
    }
    // Policies on a tiered machine with huge pages, where every one of them builds.
    let tiered = load_machine("cxl-1to4").unwrap();
    for info in dynamic::REGISTRY.iter() {
        for (param, text) in specs(info.name, info.params) {
            tried += 1;
            match Spec::parse(&text).and_then(|s| dynamic::build(&s, &tiered, 16)) {
                Ok((policy, _)) => assert!(info.caps.check(policy.as_ref()).is_ok(), "{text}: disagrees with its capabilities"),
                Err(e) => one_line_naming(&e.to_string(), "dynamic policy", info.name, &param),
            }
        }
    }
    assert!(tried > 100, "only {tried} placement and policy cases");
}
