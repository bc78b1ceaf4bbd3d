//! The simulator's integration tests, one binary (one link of the crate instead of one per
//! file: the test build is most of `make test`'s Rust time). Each module is what was a file of
//! `tests/`; `cargo test --release -p numaplace-sim --test it <module>::` runs one.

mod claims;
mod detect_hmat;
mod detect_sysfs;
mod dynamic;
mod hostile_machines;
mod hostile_protocol;
mod hostile_specs;
mod hostile_swf;
mod kernels_nas;
mod kernels_spec95;
mod kernels_splash;
mod memtis;
mod nomad;
mod oracle;
mod protocol_flows;
mod protocol_layout;
mod protocol_props;
mod system;
mod system_bench;
mod tiering;
mod trace_hostile;
mod trace_text_props;
mod trigger_policy;
