//! Tests of the benchmarks ([`super`]).

use super::*;

#[test]
fn small_speed_run_counts_every_record() {
    let r = speed(16 * 1000, 1024, 1).unwrap();
    assert_eq!(r.transactions, 16_000);
    assert!(r.seconds > 0.0 && r.limit_seconds > 0.0);
}

#[test]
fn protocol_speed_runs_the_whole_program_deterministically() {
    let r = protocol_speed(1, 1, None).unwrap();
    assert_eq!(ProtocolBenchProgram::accesses_per_sweep(64), 64 + 8192 + 2048 + 256);
    assert_eq!(r.line_accesses, 64 * ProtocolBenchProgram::accesses_per_sweep(64));
    assert!(r.accesses_after_flc > 0 && r.seconds > 0.0 && r.limit_seconds > 0.0);
    let again = protocol_speed(1, 1, Some(0)).unwrap();
    assert_eq!(again.line_accesses, r.line_accesses);
    let again = protocol_speed(1, 1, None).unwrap();
    assert_eq!((again.events, again.messages, again.slc_misses), (r.events, r.messages, r.slc_misses));
}

#[test]
fn a_tiny_tiered_run_reports_speed_and_state() {
    // 2^16 pages (all on the DRAM node: nothing to demote), one epoch a sweep, one timed
    // sweep after the first touch: every page accessed twice.
    let r = tiered(1 << 16, 1, 1).unwrap();
    assert_eq!((r.pages, r.accesses, r.lines), (1 << 16, 2 << 16, 2 * 64 << 16));
    assert_eq!(r.machine_pages, 1 << 28, "a 1 TiB machine");
    assert!(r.seconds > 0.0 && r.accesses_per_second > 0.0 && r.limit_seconds > 0.0 && r.ratio > 0.0);
    // Home, revoked, referenced and the reclaimer's flags; no decisions kept.
    assert_eq!(r.declared_bytes_per_page, 4);
    assert_eq!(r.state_bytes["decisions"], 0);
    for field in ["home", "revoked", "referenced", "reclaim_flags"] {
        assert_eq!(r.state_bytes[field], 1 << 16, "{field}");
    }
    assert_eq!(r.computed_bytes_per_page, 4.0);
    assert!(r.measured_bytes_per_page >= 0.0 && r.peak_rss_bytes >= r.baseline_rss_bytes);
    // Both of issue 35's figures beside their bounds.
    let (speed, state) = (&r.bounds["accesses_per_second"], &r.bounds["bytes_per_page"]);
    assert_eq!((speed.figure, speed.bound, speed.meets), (r.accesses_per_second, 100e6, r.accesses_per_second >= 100e6));
    assert_eq!((state.figure, state.bound), (r.computed_bytes_per_page.max(r.measured_bytes_per_page), 4.0));
    assert_eq!(state.meets, state.figure <= 4.0);
    // Deterministic.
    let again = tiered(1 << 16, 1, 1).unwrap();
    assert_eq!((again.simulated_seconds, again.hinting_faults, again.migrations), (r.simulated_seconds, r.hinting_faults, r.migrations));
}

#[test]
fn rss_is_readable() {
    assert!(peak_rss_bytes().unwrap() > 1 << 20);
}
