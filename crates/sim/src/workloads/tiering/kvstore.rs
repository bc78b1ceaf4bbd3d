//! `kvstore`: a key-value store under YCSB's core workloads A, B and C.
//!
//! Sources: YCSB (brianfrankcooper/YCSB) `workloads/workloada` (read 0.5, update 0.5),
//! `workloadb` (0.95 / 0.05), `workloadc` (read 1.0), all with `requestdistribution=zipfian`;
//! `CoreWorkload.java`: `fieldcount` 10, `fieldlength` 100 (1 KB records), `readallfields`
//! true, `writeallfields` false (an update writes one random field); keys from
//! `ScrambledZipfianGenerator` ([`super::zipf`]).
//!
//! The store (an assumption: YCSB measures a store, it is not one) is a hash index of one
//! 8-byte slot per record, at a hash of the key, and a value region of the records back to
//! back in key order (the order YCSB's load phase inserts them). A read reads the key's index
//! line, then every line of its record; an update reads the index line, then reads and writes
//! the lines of one field drawn uniformly (or of every field, `write_fields=all`). Each thread
//! is one YCSB client thread drawing keys from its own stream. Initialisation (YCSB's load
//! phase) writes the index and the values, each thread a block of both (`init=parallel`).
//! With `page_cache_mib`, a `page_cache` region comes first and is written in the same way
//! before them, then never touched: the file pages that, in TPP's cover letter ("[PATCH 0/5]
//! Transparent Page Placement for Tiered-Memory", 2021-11-24), fill the fast tier before the
//! application's anonymous memory, so that default Linux leaves most of it on the slow tier.
//! Lookups of different operations are independent, so the machine's `mlp` applies.

use super::zipf::ScrambledZipf;
use super::{first_iteration, init_in_blocks, pages_for, push_line, Array};
use crate::workload::{layout, push_lines, Epoch, Op, Workload, WorkloadCtx, WorkloadInfo};
use numaplace_model::rng::{mix64, SplitMix64};
use numaplace_model::spec::{ParamDecl, ParamKind, Resolved, MAX_EPOCH_RECORDS};
use numaplace_model::{ModelError, Region};

const MIXES: &[&str] = &["a", "b", "c"];

const PARAMS: &[ParamDecl] = &[
    ParamDecl {
        name: "mix",
        kind: ParamKind::Choice(MIXES),
        default: "a",
        doc: "YCSB core workload: a = 50 % read / 50 % update, b = 95/5, c = 100 % read (YCSB workloads/workloada-c)",
    },
    ParamDecl {
        name: "records",
        kind: ParamKind::UInt { min: 1, max: 1 << 32 },
        default: "100000",
        doc: "records (keys) in the store (assumption: 100 MB of 1 KB records)",
    },
    ParamDecl {
        name: "fields",
        kind: ParamKind::UInt { min: 1, max: 1024 },
        default: "10",
        doc: "fields per record (YCSB CoreWorkload fieldcount = 10)",
    },
    ParamDecl {
        name: "field_bytes",
        kind: ParamKind::UInt { min: 1, max: 1 << 20 },
        default: "100",
        doc: "bytes per field (YCSB CoreWorkload fieldlength = 100)",
    },
    ParamDecl {
        name: "write_fields",
        kind: ParamKind::Choice(&["one", "all"]),
        default: "one",
        doc: "fields an update writes (YCSB CoreWorkload writeallfields = false: one)",
    },
    ParamDecl {
        name: "page_cache_mib",
        kind: ParamKind::Float { min: 0.0, max: 1e9 },
        default: "0",
        doc: "file pages read before the load phase and never touched again, MiB (the page cache that fills the fast tier first in TPP's cover letter; 0: none)",
    },
    ParamDecl {
        name: "operations",
        kind: ParamKind::UInt { min: 0, max: MAX_EPOCH_RECORDS / 64 },
        default: "16384",
        doc: "operations per thread per iteration (assumption)",
    },
    ParamDecl { name: "iterations", kind: ParamKind::ITERATIONS, default: "10", doc: "timed iterations (assumption)" },
    ParamDecl {
        name: "think_ns",
        kind: ParamKind::Float { min: 0.0, max: 1e9 },
        default: "20",
        doc: "CPU time per line outside memory, ns (assumption: hashing, compares and copies)",
    },
];

pub const INFO: WorkloadInfo = WorkloadInfo {
    name: "kvstore",
    doc: "key-value store under YCSB A/B/C: scrambled Zipfian keys over a hash index and 1 KB records",
    params: PARAMS,
    caps: (),
    build,
};

/// Bytes of one index slot (assumption: a pointer).
const SLOT_BYTES: u64 = 8;

fn build(r: &Resolved, ctx: &WorkloadCtx) -> Result<Box<dyn Workload>, ModelError> {
    let records = r.uint("records");
    let record_bytes = r.uint("fields") * r.uint("field_bytes");
    let index_pages = pages_for(records * SLOT_BYTES, ctx.page_size);
    let value_bytes = records as u128 * record_bytes as u128;
    if value_bytes > (u32::MAX as u128) * ctx.page_size as u128 {
        return Err(ModelError::Spec(format!(
            "workload 'kvstore': records={records} of fields x field_bytes = {record_bytes} bytes exceed 2^32 pages"
        )));
    }
    let cache_pages = (r.float("page_cache_mib") * (1u64 << 20) as f64 / ctx.page_size as f64).round() as u64;
    let mut arrays = vec![("index", index_pages), ("values", pages_for(value_bytes as u64, ctx.page_size))];
    if cache_pages > 0 {
        arrays.insert(0, ("page_cache", cache_pages));
    }
    let regions = layout("kvstore", &arrays)?;
    let store = usize::from(cache_pages > 0);
    let read_share = match r.choice("mix") {
        "a" => 0.5,
        "b" => 0.95,
        _ => 1.0,
    };
    Ok(Box::new(KvStore {
        index: Array::of(&regions[store], SLOT_BYTES),
        values: Array::of(&regions[store + 1], record_bytes),
        regions,
        zipf: ScrambledZipf::new(records),
        records,
        read_share,
        fields: r.uint("fields"),
        field_bytes: r.uint("field_bytes"),
        write_all: r.choice("write_fields") == "all",
        operations: r.uint("operations"),
        iterations: r.uint("iterations") as u32,
        think_ns: r.float("think_ns"),
        rngs: (0..ctx.threads).map(|t| SplitMix64::new(ctx.thread_seed(t))).collect(),
        ctx: *ctx,
        next: first_iteration(ctx.init),
    }))
}

struct KvStore {
    regions: Vec<Region>,
    index: Array,
    values: Array,
    zipf: ScrambledZipf,
    records: u64,
    read_share: f64,
    fields: u64,
    field_bytes: u64,
    write_all: bool,
    operations: u64,
    iterations: u32,
    think_ns: f64,
    rngs: Vec<SplitMix64>,
    ctx: WorkloadCtx,
    next: u32,
}

impl KvStore {
    /// Appends one operation of thread `t` to `out`.
    fn operation(&mut self, t: usize, out: &mut Vec<crate::workload::Txn>) {
        let (ls, lpp) = (self.ctx.line_size, self.ctx.lines_per_page());
        let rng = &mut self.rngs[t];
        let key = self.zipf.key(rng);
        let read = self.read_share >= 1.0 || rng.unit() < self.read_share;
        let slot = mix64(key ^ 0x6b76_7374_6f72_6531) % self.records;
        let line = self.index.line(slot, ls);
        push_line(out, self.index.page(line, lpp), Op::Read);
        let start = key * self.values.elem_bytes;
        let (from, bytes, op) = if read {
            (start, self.values.elem_bytes, Op::Read)
        } else if self.write_all {
            (start, self.values.elem_bytes, Op::Write)
        } else {
            (start + rng.below(self.fields) * self.field_bytes, self.field_bytes, Op::Write)
        };
        push_lines(out, self.values.first_page, lpp, from / ls, (from + bytes - 1) / ls + 1, op);
    }
}

impl Workload for KvStore {
    fn regions(&self) -> &[Region] {
        &self.regions
    }

    fn iterations(&self) -> u32 {
        self.iterations
    }

    fn next_epoch(&mut self, epoch: &mut Epoch) -> bool {
        if self.next > self.iterations {
            return false;
        }
        let it = self.next;
        self.next += 1;
        if it == 0 {
            init_in_blocks(epoch, &self.ctx, &self.regions, self.think_ns);
            return true;
        }
        epoch.reset(self.ctx.threads, it, "operations");
        for t in 0..self.ctx.threads {
            let mut txns = std::mem::take(&mut epoch.threads[t].txns);
            txns.reserve(self.operations as usize * 2);
            for _ in 0..self.operations {
                self.operation(t, &mut txns);
            }
            let work = &mut epoch.threads[t];
            work.txns = txns;
            work.think_ns = self.think_ns;
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{check_determinism, check_error, ctx, epochs, make};
    use super::super::zipf::{ScrambledZipf, ZETAN};
    use crate::workload::Op;

    #[test]
    fn kvstore_is_deterministic_per_seed() {
        check_determinism("kvstore:records=5000,operations=500,iterations=2");
    }

    /// Value records of the timed iterations as (page, op), one per operation (a record of one
    /// page), with the values region's first page.
    fn value_ops(spec: &str) -> (u32, Vec<(u32, Op)>) {
        let mut w = make(spec, &ctx(2, 5));
        let first = w.regions()[1].first_page;
        let all = epochs(w.as_mut());
        let ops = all
            .iter()
            .filter(|(it, _, _)| *it > 0)
            .flat_map(|(_, _, threads)| threads.iter().flatten())
            .filter(|t| t.page >= first)
            .map(|t| (t.page, t.op))
            .collect();
        (first, ops)
    }

    #[test]
    fn the_hottest_key_gets_its_zipfian_share() {
        let records = 1000;
        let spec = format!("kvstore:records={records},fields=1,field_bytes=4096,operations=50000,iterations=2,mix=c");
        let (first, ops) = value_ops(&spec);
        assert_eq!(ops.len(), 200_000);
        let hot = first + ScrambledZipf::new(records).hottest() as u32;
        let share = ops.iter().filter(|(p, _)| *p == hot).count() as f64 / ops.len() as f64;
        // Rank 0's probability 1/zeta, plus the other ranks that hash to the same key (about
        // 1/records of the rest).
        let expected = 1.0 / ZETAN + (1.0 - 1.0 / ZETAN) / records as f64;
        assert!((share - expected).abs() < 0.003, "{share} vs {expected}");
    }

    #[test]
    fn the_mix_sets_the_read_update_split() {
        for (mix, reads) in [("a", 0.5), ("b", 0.95), ("c", 1.0)] {
            let spec = format!("kvstore:records=2000,fields=1,field_bytes=4096,operations=20000,iterations=1,mix={mix}");
            let (_, ops) = value_ops(&spec);
            let share = ops.iter().filter(|(_, op)| *op == Op::Read).count() as f64 / ops.len() as f64;
            assert!((share - reads).abs() < 0.01, "mix {mix}: {share}");
        }
    }

    #[test]
    fn a_read_touches_the_index_line_then_the_whole_record_and_an_update_one_field() {
        let mut w = make("kvstore:records=64,operations=200,iterations=1,mix=a", &ctx(1, 2));
        let first = w.regions()[1].first_page;
        let all = epochs(w.as_mut());
        let txns = &all[1].2[0];
        let mut i = 0;
        while i < txns.len() {
            assert!(txns[i].page < first && txns[i].count == 1 && txns[i].op == Op::Read, "index line first");
            let mut lines = 0;
            let op = txns[i + 1].op;
            i += 1;
            while i < txns.len() && txns[i].page >= first {
                assert_eq!(txns[i].op, op);
                lines += txns[i].count;
                i += 1;
            }
            // 1000 bytes span 16 or 17 lines; 100 bytes 2 or 3.
            let ok = if op == Op::Read { (16..=17).contains(&lines) } else { (2..=3).contains(&lines) };
            assert!(ok, "{op:?} of {lines} lines");
        }
    }

    #[test]
    fn a_page_cache_is_written_first_at_load_and_never_touched_again() {
        let mut w = make("kvstore:records=64,operations=200,iterations=2,page_cache_mib=1", &ctx(2, 3));
        let names: Vec<&str> = w.regions().iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["page_cache", "index", "values"]);
        let cache = w.regions()[0].clone();
        assert_eq!(cache.pages, 256);
        let in_cache = |p: u32| p >= cache.first_page && p < cache.first_page + cache.pages;
        let all = epochs(w.as_mut());
        for (t, txns) in all[0].2.iter().enumerate() {
            // Each loading thread writes its block of the cache before its blocks of the store.
            let cached: Vec<_> = txns.iter().take_while(|x| in_cache(x.page)).collect();
            assert_eq!(cached.iter().map(|x| x.count as u64).sum::<u64>(), 256 * 64 / 2, "thread {t}");
            assert!(cached.iter().all(|x| x.op == Op::Write));
            assert!(txns.iter().skip(cached.len()).all(|x| !in_cache(x.page)));
        }
        assert!(all[1..].iter().flat_map(|(_, _, th)| th.iter().flatten()).all(|x| !in_cache(x.page)), "cold after the load");
    }

    #[test]
    fn bad_kvstore_parameters_are_refused_by_name() {
        check_error("kvstore:mix=d", "kvstore", "mix");
        check_error("kvstore:records=0", "kvstore", "records");
        check_error("kvstore:fields=0", "kvstore", "fields");
        check_error("kvstore:records=4294967296,fields=1024,field_bytes=1048576", "kvstore", "records");
    }
}
