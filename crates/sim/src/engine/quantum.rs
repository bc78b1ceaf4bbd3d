//! The quantum's per-node bookkeeping: which nodes each thread fetched lines from in its turn,
//! and the bandwidth guard over the nodes that served any. Each visits only the (thread, node)
//! pairs and the nodes that carried lines: with many nodes and a few busy (a system run's
//! quanta of a few records a thread), the passes over every node were most of the quantum's
//! cost.

use numaplace_model::Ps;

/// Holds back every thread that fetched lines from node `h` in the quantum that began at
/// `qstart` until `qstart + lines(h) · S(h)`, the earliest the node could have served them.
/// `q_lines` is `[t * nodes + h]`, `service_ps` has one entry per node; `touched` lists, per
/// thread, the nodes it fetched from (`[t * nodes ..]`, `counts[t]` of them, ascending:
/// [`touched_nodes`]). `node_lines` is scratch of one entry per node, zero but at the nodes
/// `used` lists on entry (the last quantum's); it ends with the quantum's lines per node, and
/// `used` with the nodes that served any, in no particular order. Only those nodes are
/// visited: with many nodes and a few busy, the per-node passes were most of the guard.
#[allow(clippy::too_many_arguments)]
pub(super) fn bandwidth_guard(q_lines: &[u64], touched: &[u32], counts: &[u32], clocks: &mut [Ps], service_ps: &[f64], qstart: Ps, node_lines: &mut [u64], floor: &mut [Ps], used: &mut Vec<u32>) {
    let nn = service_ps.len();
    for &h in used.iter() {
        node_lines[h as usize] = 0;
    }
    used.clear();
    for (t, &k) in counts.iter().enumerate() {
        for &h in &touched[t * nn..t * nn + k as usize] {
            let n = &mut node_lines[h as usize];
            if *n == 0 {
                used.push(h);
            }
            *n += q_lines[t * nn + h as usize];
        }
    }
    for &h in used.iter() {
        let h = h as usize;
        floor[h] = qstart.saturating_add((node_lines[h] as f64 * service_ps[h]).ceil() as Ps);
    }
    // A thread waits for the slowest node it used (the order of the maxima changes nothing).
    for ((t, &k), clock) in counts.iter().enumerate().zip(clocks.iter_mut()) {
        for &h in &touched[t * nn..t * nn + k as usize] {
            *clock = (*clock).max(floor[h as usize]);
        }
    }
}

/// Lists the nodes whose entry of a thread's `row` of `q_lines` is not zero, ascending, into
/// `touched`, and returns their number: after it every per-quantum step visits only the
/// (thread, node) pairs that carried lines.
pub(super) fn touched_nodes(row: &[u64], touched: &mut [u32]) -> u32 {
    // Without a branch: each node is written and kept only when its entry is not zero (which
    // entries those are changes from turn to turn, and a branch on it was mispredicted).
    let touched = &mut touched[..row.len()];
    let mut k = 0usize;
    for (h, &l) in row.iter().enumerate() {
        touched[k] = h as u32;
        k += usize::from(l != 0);
    }
    k as u32
}

/// [`touched_nodes`] for a row whose entries sum to `total`, trying first the nodes of the
/// thread's last list (the first `last` entries of `touched`, ascending): a thread mostly
/// fetches from the nodes it fetched from in its last turn. When those carry all `total`
/// lines, every other entry is zero and the ones among them that carried lines are the list;
/// otherwise the whole row is scanned.
pub(super) fn touched_nodes_from(row: &[u64], touched: &mut [u32], last: u32, total: u64) -> u32 {
    let (mut k, mut sum) = (0usize, 0u64);
    for j in 0..last as usize {
        let h = touched[j];
        let l = row[h as usize];
        sum += l;
        touched[k] = h;
        k += usize::from(l != 0);
    }
    if sum == total {
        k as u32
    } else {
        touched_nodes(row, touched)
    }
}
