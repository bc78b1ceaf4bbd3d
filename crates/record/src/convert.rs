//! Raw stream → numaplace trace (docs/trace-format.md) and a JSON summary (docs/record.md).
//!
//! Pass 1 reads every chunk: the header, the tracked allocations, each epoch's boundaries and
//! the offsets of its record chunks, the pages touched, the counters and the end. From these it
//! fixes the regions (one per allocation call, then one per kind of untracked memory), the
//! epochs kept (whole, with records), their phase names and iterations. Pass 2 reads each
//! kept epoch's record chunks and writes the trace, one epoch at a time.

mod iterations;
mod pass1;
mod pass2;
mod regions;
mod symbols;

use crate::raw;
use iterations::{iterations, marker_iterations};
use pass1::{pass1, Pass1, Site};
use pass2::pass2;
use numaplace_sim::trace::TraceHeader;
use regions::{regions, Regions};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use symbols::Symbols;

pub struct Options {
    pub raw: PathBuf,
    pub out: PathBuf,
    pub summary: Option<PathBuf>,
    pub iteration_marker: Option<String>,
    /// How the program ended, as `numaplace record` saw it (`exit 0`, `signal 11`, ...).
    pub status: String,
    /// The command recorded, for the trace's `source` metadata.
    pub command: String,
    /// Also write every page's transactions per thread, summed over the epochs, as JSON
    /// (`{"threads", "counts": [[trace page, thread, reads, writes], ...], "first_touch_shared":
    /// [[trace page, threads], ...]}`, the latter the pages more than one thread touched in the
    /// epoch of their first touch, whose first toucher was a race): the sampled mode's
    /// error is measured on these (python/numaplace/record.py `page_counts`).
    pub page_counts: Option<PathBuf>,
}

/// The error's words when whole epochs hold no access (`numaplace record` recognises them).
pub const NO_ACCESS_COUNTED: &str = "no memory access was counted in the recording's whole epochs";

fn err(o: &Options, m: impl std::fmt::Display) -> String {
    pass1::err(&o.raw, m)
}

/// The epochs kept, as pass 1 found them.
struct Kept {
    /// Their ids, in order.
    ids: Vec<u32>,
    /// Epochs with records dropped at the end (not whole).
    dropped_tail: usize,
    /// Kept epochs without records.
    empty: usize,
}

/// Epochs kept: whole (thread 0 and every thread with records reached the end), empty or not
/// (an empty phase still marks the program's structure).
/// After a crash, the stream is read up to the first epoch that is not whole.
fn kept_epochs(p: &Pass1) -> Kept {
    let mut kept: Vec<u32> = Vec::new();
    let mut dropped_tail = 0usize;
    let mut empty = 0usize;
    let mut stop = false;
    for (&id, e) in &p.epochs {
        let whole = e.ended.contains(&0) && e.threads.iter().all(|t| e.ended.contains(t));
        if stop || !whole {
            stop = true;
            dropped_tail += usize::from(!e.chunks.is_empty());
            continue;
        }
        empty += usize::from(e.chunks.is_empty());
        kept.push(id);
    }
    Kept { ids: kept, dropped_tail, empty }
}

/// Symbols: allocation sites and epoch ends.
fn resolve_symbols(p: &mut Pass1, kept: &[u32]) -> Symbols {
    // dladdr names the main program as it was started (maybe a relative path): use its path.
    let exe = p.exe.clone();
    for s in p.allocs.iter_mut().map(|a| &mut a.site).chain(p.epochs.values_mut().map(|e| &mut e.site)) {
        if !s.module.is_empty() && !s.module.starts_with('/') {
            s.module = exe.clone();
        }
    }
    let mut sites: Vec<&Site> = p.allocs.iter().map(|a| &a.site).collect();
    sites.extend(kept.iter().map(|id| &p.epochs[id].site));
    Symbols::resolve(&sites)
}

/// Phases and iterations: each kept epoch's phase name and iteration.
fn phases(o: &Options, p: &Pass1, kept: &[u32], syms: &Symbols) -> Result<(Vec<String>, Vec<u32>), String> {
    let phase_names: Vec<String> = kept
        .iter()
        .map(|id| {
            let e = &p.epochs[id];
            let mut s = format!("{} {}", raw::kind_name(e.kind), syms.name(&e.site));
            s.truncate(255);
            while !s.is_char_boundary(s.len()) {
                s.pop();
            }
            s
        })
        .collect();
    let iters = match &o.iteration_marker {
        Some(f) => {
            // The first barrier (or fork) reached inside F marks the start of each iteration:
            // F's first phase ends there each time F runs.
            let inside: Vec<bool> = kept.iter().map(|id| syms.in_function(&p.epochs[id].site, f)).collect();
            let Some(first) = inside.iter().position(|&m| m) else {
                return Err(format!("--iteration-marker {f}: no epoch ends in function {f}"));
            };
            let marks: Vec<bool> = (0..kept.len()).map(|k| inside[k] && phase_names[k] == phase_names[first]).collect();
            marker_iterations(&marks)
        }
        None => iterations(&phase_names.iter().map(String::as_str).collect::<Vec<_>>()),
    };
    Ok((phase_names, iters))
}

/// The trace's metadata (docs/trace-format.md).
fn meta(o: &Options, p: &Pass1, timed: u32, truncated: &Option<String>) -> Vec<(String, String)> {
    let mut meta = vec![
        ("source".to_string(), format!("record:{}", o.command)),
        ("writer".to_string(), format!("numaplace record {}", env!("CARGO_PKG_VERSION"))),
        ("iterations".to_string(), timed.to_string()),
        ("init".to_string(), "recorded".to_string()),
        ("status".to_string(), o.status.clone()),
    ];
    if p.sampling.is_none() {
        meta.insert(4, ("cache".to_string(), format!("{},{}", p.cache_bytes, p.ways)));
    }
    if let Some((k, lines)) = p.sampling {
        // docs/record.md, "Sampled mode": what a count means.
        meta.push(("counts".to_string(), "sampled".to_string()));
        meta.push(("sampling_rate".to_string(), format!("1/{k}")));
        meta.push((
            "sample_weight".to_string(),
            format!("first touch {lines} lines, window sample {} lines", lines as u64 * k as u64),
        ));
    }
    if let Some(t) = truncated {
        meta.push(("truncated".to_string(), t.clone()));
    }
    for (k, v) in &p.counters {
        meta.push((format!("count.{k}"), v.to_string()));
    }
    meta
}

/// First touches as runs of consecutive pages with the same thread and epoch.
fn first_touch_runs(mut ft: Vec<(u32, u32, usize)>) -> Vec<[u64; 4]> {
    ft.sort_unstable();
    let mut runs: Vec<[u64; 4]> = Vec::new();
    for (page, thread, k) in ft {
        match runs.last_mut() {
            Some(last) if last[0] + last[1] == page as u64 && last[2] == thread as u64 && last[3] == k as u64 => last[1] += 1,
            _ => runs.push([page as u64, 1, thread as u64, k as u64]),
        }
    }
    runs
}

fn write_text(path: &Path, text: &str) -> Result<(), String> {
    numaplace_sim::output::write_with(path, |f| {
        use std::io::Write;
        f.write_all(text.as_bytes()).map_err(|e| numaplace_sim::SimError::io(path, e))
    })
    .map_err(|e| e.to_string())
}

/// Converts; returns the summary's JSON text (also written to `o.summary`).
pub fn convert(o: &Options) -> Result<String, String> {
    let p = pass1(&o.raw)?;
    let ps = p.page_size;

    let Kept { ids: kept, dropped_tail, empty } = kept_epochs(&p);
    let truncated = match (p.end, p.cut) {
        (Some((0, _)), false) if dropped_tail == 0 => None,
        (Some((0, _)), _) => Some("the recording stream was cut short (disk full?)".to_string()),
        (Some((sig, _)), _) => Some(format!("the program was stopped by signal {sig}")),
        (None, _) => Some(format!("the recording has no end ({}; killed, _exit, or disk full?)", o.status)),
    };
    let threads = kept.iter().flat_map(|id| p.epochs[id].threads.iter().copied()).max().map_or(0, |t| t as usize + 1);
    if kept.is_empty() {
        return Err(err(o, "no whole epoch with memory accesses was recorded"));
    }
    if threads == 0 {
        // Whole epochs, but not one access counted in them (sampled mode on a program whose
        // data is all static or in small allocations, which it does not sample).
        let forks = kept.iter().filter(|id| raw::kind_name(p.epochs[id].kind) == "fork").count();
        return Err(err(o, &format!("{NO_ACCESS_COUNTED}: {} whole epochs, {forks} parallel regions", kept.len())));
    }
    let mut p = p;
    let syms = resolve_symbols(&mut p, &kept);

    let Regions { page_of, regions, mut region_info, pages: next } = regions(&p, &syms, ps);
    if next > u32::MAX as u64 {
        return Err(err(o, format!("{next} pages: more than a trace holds")));
    }
    let (phase_names, iters) = phases(o, &p, &kept, &syms)?;
    let timed = *iters.last().unwrap_or(&0);
    let header = TraceHeader { page_size: ps, line_size: p.line_size, threads, regions, meta: meta(o, &p, timed, &truncated) };

    let counts = pass2(&o.raw, &o.out, o.page_counts.is_some(), &p, &header, &kept, &phase_names, &iters, &page_of)?;
    let (region_reads, region_writes) = (counts.region_reads, counts.region_writes);
    let runs = first_touch_runs(counts.ft);
    for (i, info) in region_info.iter_mut().enumerate() {
        info["init_reads"] = json!(region_reads[i][0]);
        info["init_writes"] = json!(region_writes[i][0]);
        info["reads"] = json!(region_reads[i][1]);
        info["writes"] = json!(region_writes[i][1]);
    }
    let summary = json!({
        "trace": o.out.display().to_string(),
        "command": o.command,
        "status": o.status,
        "truncated": truncated,
        "page_size": ps,
        "line_size": p.line_size,
        "sampling": p.sampling.map(|(k, lines)| json!({"rate": 1.0 / k as f64, "windows": k, "lines_per_page": lines})),
        "cache_bytes": p.cache_bytes,
        "cache_ways": p.ways,
        "threads": threads,
        "iterations": timed,
        "epochs": [], // written row by row: epochs_text
        "empty_epochs": empty,
        "regions": region_info,
        "first_touch_runs": runs,
        "counters": p.counters.iter().map(|(k, v)| (k.clone(), json!(v))).collect::<serde_json::Map<String, Value>>(),
    });
    if let Some(path) = &o.page_counts {
        let shared: Vec<[u32; 2]> = counts.first_touch_shared.iter().map(|&(pg, n)| [pg, n]).collect();
        let per_page: Vec<[u64; 4]> = counts.per_page.iter().map(|(&(pg, t), &(r, w))| [pg as u64, t as u64, r, w]).collect();
        let text = serde_json::to_string(&json!({"threads": threads, "counts": per_page, "first_touch_shared": shared}))
            .map_err(|e| e.to_string())?;
        write_text(path, &text)?;
    }
    let mut text = serde_json::to_string_pretty(&summary).map_err(|e| e.to_string())?;
    let key = "\n  \"epochs\": []";
    let at = text.find(key).ok_or("the summary has no epochs key")? + key.len() - 2;
    let rows = epochs_text(&kept, &phase_names, &iters, threads, &counts.epoch_reads, &counts.epoch_writes);
    text.replace_range(at..at + 2, &rows);
    if let Some(path) = &o.summary {
        write_text(path, &text)?;
    }
    Ok(text)
}

/// The summary's `epochs`: one object a line (docs/record.md), written directly — a program
/// that passes a barrier in a loop has millions (NPB SP at class W: 3 million), and a JSON
/// value per epoch took gigabytes.
fn epochs_text(kept: &[u32], phase_names: &[String], iters: &[u32], threads: usize, reads: &[u64], writes: &[u64]) -> String {
    use std::fmt::Write;
    if kept.is_empty() {
        return "[]".to_string();
    }
    let list = |s: &mut String, v: &[u64]| {
        s.push('[');
        for (i, x) in v.iter().enumerate() {
            if i > 0 {
                s.push(',');
            }
            let _ = write!(s, "{x}");
        }
        s.push(']');
    };
    let mut s = String::from("[");
    for (k, id) in kept.iter().enumerate() {
        let phase = serde_json::to_string(&phase_names[k]).unwrap_or_else(|_| "\"\"".to_string());
        let _ = write!(s, "{}\n    {{\"iteration\": {}, \"phase\": {phase}, \"raw_epoch\": {id}, \"reads\": ", if k > 0 { "," } else { "" }, iters[k]);
        list(&mut s, &reads[k * threads..(k + 1) * threads]);
        s.push_str(", \"writes\": ");
        list(&mut s, &writes[k * threads..(k + 1) * threads]);
        s.push('}');
    }
    s.push_str("\n  ]");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;


    /// A raw stream written as recorder.c writes it.
    struct Raw(Vec<u8>);

    impl Raw {
        fn chunk(&mut self, kind: u8, payload: &[u8]) {
            self.0.extend_from_slice(&(payload.len() as u32).to_le_bytes());
            self.0.push(kind);
            self.0.extend_from_slice(payload);
        }
        fn header(&mut self) {
            let mut p = Vec::new();
            p.extend_from_slice(&4096u32.to_le_bytes());
            p.extend_from_slice(&64u32.to_le_bytes());
            p.extend_from_slice(&32768u64.to_le_bytes());
            p.extend_from_slice(&8u32.to_le_bytes());
            p.extend_from_slice(&[0, 0]);
            self.chunk(raw::HEADER, &p);
        }
        fn alloc(&mut self, addr: u64, size: u64) {
            let mut p = Vec::new();
            for v in [addr, size, 0x1234, 0x1000] {
                p.extend_from_slice(&v.to_le_bytes());
            }
            p.extend_from_slice(&[0, 0, 4, 0]);
            p.extend_from_slice(b"main");
            self.chunk(raw::ALLOC, &p);
        }
        fn records(&mut self, thread: u32, epoch: u32, recs: &[(u64, u64, u64)]) {
            let mut p = Vec::new();
            p.extend_from_slice(&thread.to_le_bytes());
            p.extend_from_slice(&epoch.to_le_bytes());
            for &(v, r, w) in recs {
                for x in [v, r, w] {
                    p.extend_from_slice(&x.to_le_bytes());
                }
            }
            self.chunk(raw::RECORDS, &p);
        }
        fn boundary(&mut self, thread: u32, epoch: u32, kind: u8) {
            let mut p = Vec::new();
            p.extend_from_slice(&thread.to_le_bytes());
            p.extend_from_slice(&epoch.to_le_bytes());
            p.push(kind);
            p.extend_from_slice(&0x2000u64.to_le_bytes());
            p.extend_from_slice(&0x1000u64.to_le_bytes());
            p.extend_from_slice(&[0, 0]);
            p.extend_from_slice(&[2, 0]);
            p.extend_from_slice(format!("k{kind}").as_bytes());
            self.chunk(raw::EPOCH, &p);
        }
        fn end(&mut self, status: u32) {
            let mut p = status.to_le_bytes().to_vec();
            p.extend_from_slice(&3u32.to_le_bytes());
            self.chunk(raw::END, &p);
        }
    }

    /// Serial start (epoch 0, thread 0 first-touches page 16), then a fork and two barrier
    /// epochs of two threads over a 3-page allocation at page 16.
    fn program() -> Raw {
        let mut r = Raw(Vec::new());
        r.header();
        r.alloc(16 * 4096, 3 * 4096);
        r.records(0, 0, &[(16 | raw::FT_BIT, 64, 64)]);
        r.boundary(0, 0, 1);
        r.records(1, 1, &[(17 | raw::FT_BIT, 64, 64), (18 | raw::FT_BIT, 70_000, 0)]);
        r.boundary(1, 1, 2);
        r.records(0, 1, &[(16, 64, 0)]);
        r.boundary(0, 1, 2);
        r.records(0, 2, &[(17, 5, 0)]);
        r.boundary(0, 2, 2);
        r.records(1, 2, &[(16, 7, 1)]);
        r.boundary(1, 2, 2);
        r
    }

    fn run(raw: &Raw, dir: &Path, name: &str) -> Result<(Value, Vec<u8>), String> {
        let rawp = dir.join(format!("{name}.raw"));
        std::fs::write(&rawp, &raw.0).unwrap();
        let out = dir.join(format!("{name}.nptrace"));
        let o = Options { raw: rawp, out: out.clone(), summary: None, iteration_marker: None, status: "exit 0".into(), command: "prog".into(), page_counts: None };
        let v = serde_json::from_str(&convert(&o)?).map_err(|e| e.to_string())?;
        Ok((v, std::fs::read(&out).unwrap()))
    }

    #[test]
    fn a_page_two_threads_touch_in_its_first_epoch_is_a_raced_first_touch() {
        // Page 17: thread 1 first-touches it in epoch 1, where thread 0 touches it too (a race:
        // either could have been first). Pages 16 and 18: one thread in their first epoch.
        let d = tmpdir("raced");
        let mut r = Raw(Vec::new());
        r.header();
        r.alloc(16 * 4096, 3 * 4096);
        r.records(0, 0, &[(16 | raw::FT_BIT, 64, 64)]);
        r.boundary(0, 0, 1);
        r.records(1, 1, &[(17 | raw::FT_BIT, 64, 64), (18 | raw::FT_BIT, 64, 0)]);
        r.boundary(1, 1, 2);
        r.records(0, 1, &[(17, 3, 0), (16, 1, 0)]);
        r.boundary(0, 1, 2);
        r.end(0);
        let rawp = d.join("raced.raw");
        std::fs::write(&rawp, &r.0).unwrap();
        let pc = d.join("raced.json");
        let o = Options { raw: rawp, out: d.join("raced.nptrace"), summary: None, iteration_marker: None, status: "exit 0".into(),
                          command: "prog".into(), page_counts: Some(pc.clone()) };
        convert(&o).unwrap();
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&pc).unwrap()).unwrap();
        let shared = v["first_touch_shared"].as_array().unwrap();
        assert_eq!(shared.len(), 1, "{v}");
        assert_eq!(shared[0][1], json!(2));
        // It is page 17's trace page: the one thread 1 read 64 lines of and thread 0 read 3.
        let page = shared[0][0].as_u64().unwrap();
        let rows: Vec<&Value> = v["counts"].as_array().unwrap().iter().filter(|c| c[0].as_u64() == Some(page)).collect();
        assert_eq!(rows.len(), 2, "{v}");
        assert!(rows.iter().any(|c| c[1] == json!(0) && c[2] == json!(3)) && rows.iter().any(|c| c[1] == json!(1) && c[2] == json!(64)));
    }

    /// A fresh directory per call, removed when dropped.
    fn tmpdir(name: &str) -> numaplace_outfile::TempDir {
        numaplace_outfile::TempDir::new(&format!("record-test-{name}")).unwrap()
    }

    #[test]
    fn a_whole_recording_converts_deterministically() {
        let d = tmpdir("whole");
        let mut r = program();
        r.end(0);
        let (v, bytes) = run(&r, &d, "a").unwrap();
        let (_, again) = run(&r, &d, "b").unwrap();
        assert_eq!(bytes, again, "same raw stream, same trace bytes");
        assert!(v["truncated"].is_null());
        assert_eq!(v["threads"], 2);
        assert_eq!(v["epochs"].as_array().unwrap().len(), 3);
        assert_eq!(v["epochs"][1]["reads"], json!([64, 70_064]));
        assert_eq!(v["regions"][0]["pages"], 3);
        // Pages 16, 17, 18 are trace pages 0, 1, 2: first touched by threads 0 (epoch 0) and 1 (epoch 1).
        assert_eq!(v["first_touch_runs"], json!([[0, 1, 0, 0], [1, 2, 1, 1]]));
        let info = numaplace_sim::trace::info(&d.join("a.nptrace")).unwrap();
        assert_eq!(info.epochs, 3);
        // 70,000 lines are two transactions of at most 65,535 lines.
        assert_eq!(info.transactions, (64 + 64) + (64 + 64) + 70_000 + 64 + 5 + (7 + 1));
        std::fs::remove_dir_all(d).ok();
    }

    #[test]
    fn a_sampled_recording_says_so() {
        let d = tmpdir("sampled");
        let mut r = program();
        r.end(0);
        // The sampling chunk right after the header: 1/4, 64 lines a page.
        let head = 5 + u32::from_le_bytes(r.0[0..4].try_into().unwrap()) as usize;
        let mut s = Raw(Vec::new());
        s.chunk(raw::SAMPLING, &[4u32.to_le_bytes(), 64u32.to_le_bytes()].concat());
        r.0.splice(head..head, s.0);
        let (v, _) = run(&r, &d, "s").unwrap();
        assert_eq!(v["sampling"], json!({"rate": 0.25, "windows": 4, "lines_per_page": 64}));
        let info = numaplace_sim::trace::info(&d.join("s.nptrace")).unwrap();
        let meta = |k: &str| info.meta.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
        assert_eq!(meta("counts").as_deref(), Some("sampled"));
        assert_eq!(meta("sampling_rate").as_deref(), Some("1/4"));
        assert_eq!(meta("cache"), None, "no cache model in sampled mode");
        // Exact mode: no sampling fields, a cache.
        let mut e = program();
        e.end(0);
        let (v, _) = run(&e, &d, "e").unwrap();
        assert!(v["sampling"].is_null());
        let info = numaplace_sim::trace::info(&d.join("e.nptrace")).unwrap();
        assert!(info.meta.iter().any(|(k, _)| k == "cache") && !info.meta.iter().any(|(k, _)| k == "counts"));
        // A malformed sampling chunk is an error naming it.
        let mut bad = program();
        let mut z = Raw(Vec::new());
        z.chunk(raw::SAMPLING, &[0u32.to_le_bytes(), 64u32.to_le_bytes()].concat());
        bad.0.splice(head..head, z.0);
        assert!(run(&bad, &d, "b").unwrap_err().contains("bad sampling chunk"));
        std::fs::remove_dir_all(d).ok();
    }

    #[test]
    fn a_cut_recording_keeps_its_whole_epochs_and_says_so() {
        let d = tmpdir("cut");
        let mut r = program();
        // A crash: thread 1 never ended epoch 3, and the last chunk is cut short.
        r.records(1, 3, &[(18, 1, 1)]);
        r.boundary(0, 3, 2);
        r.records(0, 4, &[(18, 1, 1)]);
        r.0.truncate(r.0.len() - 7);
        let (v, _) = run(&r, &d, "c").unwrap();
        assert_eq!(v["epochs"].as_array().unwrap().len(), 3);
        assert!(v["truncated"].as_str().unwrap().contains("no end"));
        let info = numaplace_sim::trace::info(&d.join("c.nptrace")).unwrap();
        assert!(info.meta.iter().any(|(k, _)| k == "truncated"));
        // A crash signal in the end chunk is named.
        let mut r = program();
        r.end(11);
        let (v, _) = run(&r, &d, "s").unwrap();
        assert!(v["truncated"].as_str().unwrap().contains("signal 11"));
        std::fs::remove_dir_all(d).ok();
    }

    #[test]
    fn bad_streams_are_errors_naming_the_file() {
        let d = tmpdir("bad");
        let e = run(&Raw(Vec::new()), &d, "empty").unwrap_err();
        assert!(e.contains("empty.raw") && e.contains("empty recording"), "{e}");
        let mut r = Raw(Vec::new());
        r.chunk(b'Q', &[1, 2]);
        let e = run(&r, &d, "junk").unwrap_err();
        assert!(e.contains("expected the header chunk"), "{e}");
        let mut r = Raw(Vec::new());
        r.header();
        r.end(0);
        let e = run(&r, &d, "none").unwrap_err();
        assert!(e.contains("no whole epoch"), "{e}");
        // Parallel regions ran, but nothing was counted in them: said so, with the regions.
        let mut r = Raw(Vec::new());
        r.header();
        r.boundary(0, 0, 1);
        r.boundary(0, 1, 2);
        r.end(0);
        let e = run(&r, &d, "nothing").unwrap_err();
        assert!(e.contains(NO_ACCESS_COUNTED) && e.contains("2 whole epochs, 1 parallel regions"), "{e}");
        std::fs::remove_dir_all(d).ok();
    }
}
