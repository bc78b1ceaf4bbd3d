//! `numaplace-record-convert`: the raw stream of the recording library → a numaplace trace and
//! a JSON summary. Run by `numaplace record` (python/numaplace/record.py); docs/record.md.
//!
//! Usage: numaplace-record-convert RAW TRACE [--summary FILE] [--iteration-marker F]
//!        [--status TEXT] [--command TEXT] [--page-counts FILE]

mod convert;
mod raw;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut pos = Vec::new();
    let mut o = convert::Options {
        raw: Default::default(),
        out: Default::default(),
        summary: None,
        iteration_marker: None,
        status: "exit 0".into(),
        command: String::new(),
        page_counts: None,
    };
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        let val = |i: usize| -> String {
            args.get(i + 1).cloned().unwrap_or_else(|| {
                eprintln!("numaplace-record-convert: {a} needs a value");
                std::process::exit(2)
            })
        };
        match a.as_str() {
            "--summary" => o.summary = Some(val(i).into()),
            "--iteration-marker" => o.iteration_marker = Some(val(i)),
            "--status" => o.status = val(i),
            "--command" => o.command = val(i),
            "--page-counts" => o.page_counts = Some(val(i).into()),
            _ if a.starts_with("--") => {
                eprintln!("numaplace-record-convert: unknown option {a}");
                std::process::exit(2)
            }
            _ => {
                pos.push(a.clone());
                i += 1;
                continue;
            }
        }
        i += 2;
    }
    if pos.len() != 2 {
        eprintln!("usage: numaplace-record-convert RAW TRACE [--summary FILE] [--iteration-marker F] [--status TEXT] [--command TEXT] [--page-counts FILE]");
        std::process::exit(2);
    }
    o.raw = pos[0].clone().into();
    o.out = pos[1].clone().into();
    match convert::convert(&o) {
        Ok(_) => {}
        Err(e) => {
            eprintln!("numaplace-record-convert: {e}");
            std::process::exit(1);
        }
    }
}
