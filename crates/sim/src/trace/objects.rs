//! The data objects of a trace, diagnosed for placement: for each region (an allocation site or
//! static symbol, as `numaplace record` names them), who touched it first, where its misses come
//! from, and how local it would be under first touch, interleaving and the best static placement
//! — `numaplace advise`'s diagnosis (docs/advise.md, "The diagnosis").
//!
//! One streaming pass over the trace, with the threads bound to the machine's nodes as a run
//! binds them ([`crate::binding::bind`]). What it counts:
//!
//! * **Timed lines** per page and node: the transactions of iterations 1 and up, by the node of
//!   the thread that made them — the table the `oracle` placement is built from
//!   ([`crate::run::oracle`]), so the **bound** here is the oracle's local share.
//! * **First touch** per page: the first epoch with a record of the page and, within it, the
//!   thread whose record of it comes earliest relative to the length of its work (the replay
//!   interleaves the threads' records; a page two threads reach in the same epoch goes to the
//!   one that reaches it at a smaller share of its work — an estimate of the replay's order,
//!   exact when one thread touches the page in that epoch). Under `first-touch` a page lives on
//!   that thread's node.
//! * **Interleaved**: page `p` of the trace on node `p mod nodes`, as `round-robin` places it.
//! * **Writes** per epoch, to find an object read-only after some phase (a candidate for
//!   replication), and a **heat map** per object: lines per (epoch bucket, page bucket, node).

use crate::binding::{bind, Binding};
use crate::error::SimError;
use crate::trace;
use crate::workload::{Epoch, Op};
use numaplace_model::pagetable::check_state_bytes;
use numaplace_model::{Machine, Region};
use std::path::Path;

/// Page buckets of an object's heat map (fewer when it has fewer pages).
pub const HEAT_PAGES: usize = 32;
/// The heat map's epoch buckets reach at most twice this before adjacent ones merge.
pub const HEAT_EPOCHS: usize = 48;

/// One data object of a trace, diagnosed ([`objects`]).
#[derive(Clone, Debug, serde::Serialize)]
pub struct Object {
    pub name: String,
    pub first_page: u32,
    pub pages: u32,
    /// Transactions of iteration 0 (the initialisation) and of the timed iterations, per thread.
    pub init_lines: Vec<u64>,
    pub timed_lines: Vec<u64>,
    pub timed_writes: u64,
    /// Timed lines that would be local: under first touch, interleaved, and under the bound.
    pub local_first_touch: u64,
    pub local_interleaved: u64,
    pub local_bound: u64,
    /// Pages first touched by each thread (pages never touched: none).
    pub first_touch_pages: Vec<u64>,
    /// The earliest epoch (index in the trace) in which one of its pages was first touched, and
    /// the latest.
    pub first_touch_epochs: Option<(u64, u64)>,
    /// Pages first touched in an epoch that ended at a fork (serial code before a parallel region).
    pub first_touch_serial_pages: u64,
    /// The last epoch that wrote it, and the timed lines read after that epoch.
    pub last_write_epoch: Option<u64>,
    pub reads_after_last_write: u64,
    /// Lines per (epoch bucket, page bucket, node), epoch buckets of `heat_epoch_width` epochs.
    pub heat: Vec<Vec<Vec<u64>>>,
}

impl Object {
    /// Region `r` of a trace of `threads` threads, before the pass counts anything.
    fn of(r: &Region, threads: usize) -> Object {
        Object {
            name: r.name.clone(),
            first_page: r.first_page,
            pages: r.pages,
            init_lines: vec![0; threads],
            timed_lines: vec![0; threads],
            timed_writes: 0,
            local_first_touch: 0,
            local_interleaved: 0,
            local_bound: 0,
            first_touch_pages: vec![0; threads],
            first_touch_epochs: None,
            first_touch_serial_pages: 0,
            last_write_epoch: None,
            reads_after_last_write: 0,
            heat: Vec::new(),
        }
    }
}

/// The epochs of a trace as the diagnosis names them.
#[derive(Clone, Debug, serde::Serialize)]
pub struct EpochName {
    pub iteration: u32,
    pub phase: String,
}

/// The diagnosis of every region of a trace on one machine and binding.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Objects {
    pub threads: usize,
    pub nodes: usize,
    pub page_size: u64,
    /// The node of each thread's CPU.
    pub thread_nodes: Vec<usize>,
    pub epochs: Vec<EpochName>,
    pub heat_epoch_width: u64,
    pub timed_lines: u64,
    pub objects: Vec<Object>,
}

/// Diagnoses the regions of the trace at `path` with its threads bound on `machine`.
///
/// # Errors
/// A trace that cannot be read, more threads than CPUs without `oversubscribe`, or a footprint
/// whose per-page table would exceed the state bound.
pub fn objects(path: &Path, machine: &Machine, binding: Binding, oversubscribe: bool) -> Result<Objects, SimError> {
    let mut t = trace::open(path)?;
    let h = t.header().clone();
    let placed = bind(machine, h.threads, binding, oversubscribe)?;
    let nodes = machine.nodes();
    let thread_nodes: Vec<usize> = placed.iter().map(|p| p.node.index()).collect();
    let pages = h.pages() as usize;
    check_state_bytes("the trace's per-page diagnosis table", pages as u64 * (8 * nodes as u64 + 16))?;
    // Per page: timed lines per node; first touch (thread + 1, 0: none) and its epoch.
    let mut per_node = vec![0u64; pages * nodes];
    let mut ft_thread = vec![0u32; pages];
    let mut ft_epoch = vec![0u32; pages];
    // Per region (index into h.regions), by page.
    let region_of: Vec<u32> = {
        let mut v = vec![0u32; pages];
        for (i, r) in h.regions.iter().enumerate() {
            v[r.first_page as usize..(r.first_page + r.pages) as usize].fill(i as u32);
        }
        v
    };
    let mut objs: Vec<Object> = h.regions.iter().map(|r| Object::of(r, h.threads)).collect();
    // Reads after the last write: per object, timed reads since its last written epoch.
    let mut reads_since_write = vec![0u64; objs.len()];
    let mut epochs = Vec::new();
    let mut width = 1u64;
    let mut epoch = Epoch::default();
    // The first-touch candidates of the current epoch: (share of the thread's work, thread).
    let mut cand: Vec<(f32, u32)> = vec![(f32::INFINITY, 0); pages];
    let mut touched: Vec<u32> = Vec::new();
    let mut written = vec![false; objs.len()];
    let mut index = 0u64;
    while t.next_epoch(&mut epoch) {
        let timed = epoch.iteration >= 1;
        let bucket = (index / width) as usize;
        written.fill(false);
        for (th, w) in epoch.threads.iter().enumerate() {
            let node = thread_nodes[th];
            let n = w.txns.len().max(1) as f32;
            for (i, x) in w.txns.iter().enumerate() {
                let p = x.page as usize;
                let o = region_of[p] as usize;
                let obj = &mut objs[o];
                let c = u64::from(x.count);
                if ft_thread[p] == 0 {
                    let share = i as f32 / n;
                    if cand[p].0 == f32::INFINITY {
                        touched.push(x.page);
                    }
                    if share < cand[p].0 {
                        cand[p] = (share, th as u32);
                    }
                }
                if timed {
                    per_node[p * nodes + node] += c;
                    obj.timed_lines[th] += c;
                    if x.op == Op::Write {
                        obj.timed_writes += c;
                    } else {
                        reads_since_write[o] += c;
                    }
                } else {
                    obj.init_lines[th] += c;
                }
                if x.op == Op::Write {
                    written[o] = true;
                }
                let pb = heat_bucket(p as u32 - obj.first_page, obj.pages);
                if obj.heat.len() <= bucket {
                    obj.heat.resize_with(bucket + 1, || vec![vec![0; nodes]; heat_buckets(obj.pages)]);
                }
                obj.heat[bucket][pb][node] += c;
            }
        }
        // `numaplace record` names an epoch that ended at a fork `fork SITE`: serial code.
        let serial = epoch.phase.split_whitespace().next() == Some("fork");
        for &p in &touched {
            let (_, th) = cand[p as usize];
            ft_thread[p as usize] = th + 1;
            ft_epoch[p as usize] = index as u32;
            cand[p as usize] = (f32::INFINITY, 0);
            let obj = &mut objs[region_of[p as usize] as usize];
            obj.first_touch_pages[th as usize] += 1;
            obj.first_touch_serial_pages += u64::from(serial);
            obj.first_touch_epochs = Some(match obj.first_touch_epochs {
                None => (index, index),
                Some((a, b)) => (a.min(index), b.max(index)),
            });
        }
        touched.clear();
        for (o, w) in written.iter().enumerate() {
            if *w {
                objs[o].last_write_epoch = Some(index);
                reads_since_write[o] = 0;
            }
        }
        epochs.push(EpochName { iteration: epoch.iteration, phase: epoch.phase.to_string() });
        index += 1;
        if (index / width) as usize >= 2 * HEAT_EPOCHS {
            width *= 2;
            for obj in &mut objs {
                merge_pairs(&mut obj.heat);
            }
        }
    }
    if let Some(e) = t.take_error() {
        return Err(e);
    }
    let mut timed_total = 0;
    for (o, obj) in objs.iter_mut().enumerate() {
        obj.reads_after_last_write = reads_since_write[o];
        for p in obj.first_page as usize..(obj.first_page + obj.pages) as usize {
            let row = &per_node[p * nodes..(p + 1) * nodes];
            timed_total += row.iter().sum::<u64>();
            obj.local_bound += row.iter().copied().max().unwrap_or(0);
            obj.local_interleaved += row[p % nodes];
            if ft_thread[p] > 0 {
                obj.local_first_touch += row[thread_nodes[ft_thread[p] as usize - 1]];
            }
        }
    }
    Ok(Objects {
        threads: h.threads,
        nodes,
        page_size: h.page_size,
        thread_nodes,
        epochs,
        heat_epoch_width: width,
        timed_lines: timed_total,
        objects: objs,
    })
}

fn heat_buckets(pages: u32) -> usize {
    (pages as usize).clamp(1, HEAT_PAGES)
}

/// The page bucket of page `p` (relative to its object) of an object of `pages` pages.
fn heat_bucket(p: u32, pages: u32) -> usize {
    (p as u64 * heat_buckets(pages) as u64 / pages.max(1) as u64) as usize
}

/// Merges adjacent epoch buckets (the heat map's width doubles).
fn merge_pairs(heat: &mut Vec<Vec<Vec<u64>>>) {
    let merged: Vec<Vec<Vec<u64>>> = heat
        .chunks(2)
        .map(|pair| {
            let mut a = pair[0].clone();
            if let Some(b) = pair.get(1) {
                for (ra, rb) in a.iter_mut().zip(b) {
                    for (x, y) in ra.iter_mut().zip(rb) {
                        *x += y;
                    }
                }
            }
            a
        })
        .collect();
    *heat = merged;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presets::load_machine;

    fn write(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
        std::fs::create_dir_all(dir).unwrap();
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    fn tmp(tag: &str) -> numaplace_outfile::TempDir {
        numaplace_outfile::TempDir::new(&format!("objects-{tag}")).unwrap()
    }

    /// Two threads on two nodes: `a` first touched by thread 0 in serial code, then each
    /// thread reads its half; `b` first touched by each thread on its half.
    const TRACE: &str = "\
numaplace-trace 1
page_size 4096
line_size 64
threads 2
region a 0 4
region b 4 4
epoch 0 fork
0 0 64 64
0 1 64 64
0 2 64 64
0 3 64 64
end
epoch 0 init
0 4 64 64
0 5 64 64
1 6 64 64
1 7 64 64
end
epoch 1 sweep
0 0 10 0
0 1 10 0
0 4 10 0
0 5 10 0
1 2 10 0
1 3 10 0
1 6 10 0
1 7 10 0
end
";

    #[test]
    fn serial_first_touch_and_partitioned_use_are_told_apart() {
        let d = tmp("basic");
        let p = write(&d, "t.txt", TRACE);
        let m = load_machine("modern-2s").unwrap();
        let o = objects(&p, &m, Binding::Spread, false).unwrap();
        assert_eq!(o.thread_nodes, vec![0, 1]);
        let a = &o.objects[0];
        assert_eq!((a.first_touch_pages.clone(), a.first_touch_serial_pages), (vec![4, 0], 4));
        assert_eq!(a.timed_lines, vec![20, 20]);
        assert_eq!(a.init_lines, vec![512, 0]);
        assert_eq!((a.local_first_touch, a.local_bound, a.local_interleaved), (20, 40, 20));
        let b = &o.objects[1];
        assert_eq!((b.first_touch_pages.clone(), b.first_touch_serial_pages), (vec![2, 2], 0));
        assert_eq!((b.local_first_touch, b.local_bound), (40, 40));
        assert_eq!(o.timed_lines, 80);
        // Both are written at initialisation only: read-only after it.
        assert_eq!((a.last_write_epoch, a.reads_after_last_write), (Some(0), 40));
        assert_eq!(b.last_write_epoch, Some(1));
        // Heat: epoch 2's reads of `a` come from node 0 for its first half, node 1 for the rest.
        assert_eq!(a.heat[2].iter().map(|r| r[0]).sum::<u64>(), 20);
        assert_eq!(a.heat[2][0], vec![10, 0]);
        assert_eq!(a.heat[2][3], vec![0, 10]);
        // Compact binding puts both threads on node 0: everything local.
        let o = objects(&p, &m, Binding::Compact, false).unwrap();
        assert_eq!(o.thread_nodes, vec![0, 0]);
        assert_eq!(o.objects[0].local_first_touch, 40);
    }

    #[test]
    fn the_heat_map_keeps_at_most_twice_its_epoch_buckets() {
        let d = tmp("many");
        let mut text = String::from("numaplace-trace 1\npage_size 4096\nline_size 64\nthreads 1\nregion a 0 1\n");
        for e in 0..500 {
            text += &format!("epoch {} step\n0 0 1 0\nend\n", (e > 0) as u32);
        }
        let p = write(&d, "many.txt", &text);
        let o = objects(&p, &load_machine("modern-2s").unwrap(), Binding::Spread, false).unwrap();
        assert_eq!(o.epochs.len(), 500);
        let h = &o.objects[0].heat;
        assert!(h.len() < 2 * HEAT_EPOCHS && o.heat_epoch_width >= 8, "{} buckets of {}", h.len(), o.heat_epoch_width);
        assert_eq!(h.iter().map(|b| b[0][0]).sum::<u64>(), 500, "no line lost in merging");
    }
}
