//! `cargo run --release -p numaplace-sim --example protocol_bench`: the protocol engine's speed
//! benchmark without Python (the same code `numaplace bench --protocol` runs), printing JSON.

fn main() {
    match numaplace_sim::bench::protocol_speed(16, 3, None) {
        Ok(r) => println!("{}", serde_json::to_string_pretty(&r).expect("serialise")),
        Err(e) => {
            eprintln!("bench: error: {e}");
            std::process::exit(2);
        }
    }
}
