//! Pass 2 of the conversion: each kept epoch's record chunks read again and written to the
//! trace, one epoch at a time, counting each epoch's, region's and page's accesses on the way.

use super::pass1::{err, Pass1};
use crate::raw::{self, Mapped};
use numaplace_sim::trace::{TraceHeader, TraceWriter};
use numaplace_sim::workload::{Epoch, Op, ThreadWork, Txn};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

/// What pass 2 counted.
pub(super) struct Counts {
    /// Each kept epoch's lines read and written per thread (`threads` per epoch, in order).
    pub(super) epoch_reads: Vec<u64>,
    pub(super) epoch_writes: Vec<u64>,
    /// First touches: (trace page, thread, kept epoch index).
    pub(super) ft: Vec<(u32, u32, usize)>,
    /// Per region and thread: [initialisation (iteration 0), timed iterations].
    pub(super) region_reads: Vec<[Vec<u64>; 2]>,
    pub(super) region_writes: Vec<[Vec<u64>; 2]>,
    /// Per (trace page, thread): (reads, writes), summed over the epochs; only when
    /// `page_counts` was asked for.
    pub(super) per_page: BTreeMap<(u32, u32), (u64, u64)>,
    /// Pages touched by more than one thread in the epoch of their first touch, with how many
    /// threads touched them then: which of them touched first was a race, not the program's
    /// order (only when `page_counts` was asked for).
    pub(super) first_touch_shared: Vec<(u32, u32)>,
}

/// Writes the trace `trace_path` of `header` from the raw stream `raw` read in pass 1 as `p`:
/// the epochs `kept`, the `k`th named `phase_names[k]` in iteration `iters[k]`, each raw page
/// `v` as trace page `page_of[v]`.
#[allow(clippy::too_many_arguments)]
pub(super) fn pass2(
    raw_path: &Path,
    trace_path: &Path,
    page_counts: bool,
    p: &Pass1,
    header: &TraceHeader,
    kept: &[u32],
    phase_names: &[String],
    iters: &[u32],
    page_of: &HashMap<u64, u32>,
) -> Result<Counts, String> {
    let threads = header.threads;
    let r = Mapped::open(raw_path).map_err(|e| err(raw_path, e))?;
    let mut epoch_reads = Vec::with_capacity(kept.len() * threads);
    let mut epoch_writes = Vec::with_capacity(kept.len() * threads);
    let mut ft: Vec<(u32, u32, usize)> = Vec::new(); // (trace page, thread, kept epoch index)
    let region_of = |page: u32| header.regions.partition_point(|rg| rg.first_page + rg.pages <= page);
    // Per region and thread: [initialisation (iteration 0), timed iterations].
    let mut region_reads = vec![[vec![0u64; threads], vec![0u64; threads]]; header.regions.len()];
    let mut region_writes = region_reads.clone();
    let mut per_page: BTreeMap<(u32, u32), (u64, u64)> = BTreeMap::new();
    let mut first_touch_shared: Vec<(u32, u32)> = Vec::new();
    let mut touched: Vec<(u32, u32)> = Vec::new(); // this epoch's (trace page, thread), with page_counts
    let leaked: Vec<&'static str> = phase_names.iter().map(|s| &*Box::leak(s.clone().into_boxed_str())).collect();
    numaplace_sim::output::write_with(trace_path, |f| {
        let mut w = TraceWriter::new(std::io::BufWriter::new(f), header, trace_path)?;
        let mut ep = Epoch { iteration: 0, phase: "", threads: Vec::new() };
        for (k, id) in kept.iter().enumerate() {
            ep.reset(threads, iters[k], leaked[k]);
            let mut reads = vec![0u64; threads];
            let mut writes = vec![0u64; threads];
            let ft_before = ft.len();
            touched.clear();
            for &(off, len) in &p.epochs[id].chunks {
                let buf = r.at(off, len).map_err(|e| numaplace_sim::SimError::io(raw_path, e))?;
                let thread = u32::from_le_bytes(buf[0..4].try_into().unwrap()) as usize;
                let work: &mut ThreadWork = &mut ep.threads[thread];
                for rec in buf[8..].chunks_exact(raw::RECORD_BYTES) {
                    let v = u64::from_le_bytes(rec[0..8].try_into().unwrap());
                    let rd = u64::from_le_bytes(rec[8..16].try_into().unwrap());
                    let wr = u64::from_le_bytes(rec[16..24].try_into().unwrap());
                    let page = page_of[&(v & !raw::FT_BIT)];
                    if v & raw::FT_BIT != 0 {
                        ft.push((page, thread as u32, k));
                    }
                    for (mut n, op) in [(rd, Op::Read), (wr, Op::Write)] {
                        while n > 0 {
                            let c = n.min(u16::MAX as u64);
                            work.txns.push(Txn { page, count: c as u16, op });
                            n -= c;
                        }
                    }
                    reads[thread] += rd;
                    writes[thread] += wr;
                    if page_counts {
                        let c = per_page.entry((page, thread as u32)).or_default();
                        c.0 += rd;
                        c.1 += wr;
                        touched.push((page, thread as u32));
                    }
                    let rg = region_of(page);
                    let timed = usize::from(iters[k] > 0);
                    region_reads[rg][timed][thread] += rd;
                    region_writes[rg][timed][thread] += wr;
                }
            }
            w.epoch(&ep, trace_path)?;
            if page_counts && ft.len() > ft_before {
                touched.sort_unstable();
                touched.dedup();
                for &(page, _, _) in &ft[ft_before..] {
                    let lo = touched.partition_point(|&(p, _)| p < page);
                    let n = touched[lo..].iter().take_while(|&&(p, _)| p == page).count() as u32;
                    if n > 1 {
                        first_touch_shared.push((page, n));
                    }
                }
            }
            epoch_reads.extend_from_slice(&reads);
            epoch_writes.extend_from_slice(&writes);
        }
        w.finish(trace_path)
    })
    .map_err(|e| e.to_string())?;
    first_touch_shared.sort_unstable();
    Ok(Counts { epoch_reads, epoch_writes, ft, region_reads, region_writes, per_page, first_touch_shared })
}
