//! `cargo run --release -p numaplace-sim --example bench`: the speed benchmark without Python
//! (the same code `numaplace bench` runs), printing JSON.

fn main() {
    match numaplace_sim::bench::speed(64 * 1024 * 1024, 256 * 1024, 3) {
        Ok(r) => println!("{}", serde_json::to_string_pretty(&r).expect("serialise")),
        Err(e) => {
            eprintln!("bench: error: {e}");
            std::process::exit(2);
        }
    }
}
