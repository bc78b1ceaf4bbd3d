//! What a protocol run reports: one flat record (loads into pandas as one row), messages by
//! type flattened into `msg_<type>` fields.

use serde::Serialize;
use std::collections::BTreeMap;

/// The result of one run of the engine (`engine::run`; the engine imports this module, so it
/// names it without a link).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ProtocolResult {
    pub program: String,
    pub placement: String,
    /// `none`, `basic` or `reactive`.
    pub proxies: String,
    /// `infinite` or `finite`.
    pub buffers: String,
    /// The read-request limit in force (0 for infinite buffers).
    pub buffer_limit: u32,
    pub nodes: usize,
    /// Execution time of the timed part (after `EndInit`), cycles: the last thread's finish.
    pub cycles: u64,
    /// The same in ns.
    pub total_time_ns: f64,
    /// Network messages sent (node to itself excluded), all types.
    pub messages: u64,
    /// Network messages by type: `msg_read_req`, `msg_data`, ... (see docs/protocol.md).
    #[serde(flatten)]
    pub messages_by_type: BTreeMap<String, u64>,
    /// Reads that left the node (to a remote home or a proxy) and their response time, from
    /// the first request sent to the data's arrival, cycles.
    pub remote_reads: u64,
    pub remote_read_mean_cycles: f64,
    pub remote_read_p50_cycles: u64,
    pub remote_read_p90_cycles: u64,
    pub remote_read_p99_cycles: u64,
    pub remote_read_max_cycles: u64,
    /// Histogram of the remote read response time: `[upper bound (cycles, inclusive), count]`
    /// per non-empty bucket (exact below 64 cycles, then 8 buckets per power of two).
    pub remote_read_hist: Vec<[u64; 2]>,
    /// Per node: remote reads and the sum of their response times, cycles.
    pub node_remote_reads: Vec<u64>,
    pub node_remote_read_cycles: Vec<u64>,
    /// Messages taken into input queues (accepted, not bounced) and the cycles they waited
    /// there before the controller took them.
    pub queued_messages: u64,
    pub queue_cycles_mean: f64,
    /// Input queue length seen by each accepted message (itself included): mean and maximum.
    pub queue_len_mean: f64,
    pub queue_len_max: u64,
    /// Read requests bounced by a full input buffer.
    pub bounces: u64,
    /// Read requests sent to a proxy (basic: marked lines; reactive: after a bounce).
    pub proxy_reads: u64,
    /// Of those, sent after a bounce (reactive proxies).
    pub reactive_proxy_reads: u64,
    /// Proxy reads answered from the proxy's own cache.
    pub proxy_hits: u64,
    /// Proxy reads that joined a pending chain (combined with an outstanding fetch).
    pub requests_combined: u64,
    /// Loads, stores, lock acquires and releases of the timed part (line accesses before the
    /// FLC).
    pub line_accesses: u64,
    /// Loads (the FLC is write-through and does not allocate on a store, so only loads look
    /// it up) and the loads it missed.
    pub flc_accesses: u64,
    pub flc_misses: u64,
    pub flc_miss_rate: f64,
    /// Accesses that reached the SLC (FLC read misses and every write: write-through).
    pub slc_accesses: u64,
    pub slc_misses: u64,
    pub slc_miss_rate: f64,
    /// Distinct lines accessed in the timed part.
    pub lines_accessed: u64,
    /// Pages homed at each node by the end of the run (the placement's choices; the same field
    /// as a page-level run's).
    pub per_node_pages: Vec<u64>,
    /// Busy cycles / execution cycles per node controller.
    pub ctrl_util: Vec<f64>,
    pub ctrl_util_mean: f64,
    pub ctrl_util_max: f64,
    /// Loads whose value the checker compared with the latest store (all of them).
    pub loads_checked: u64,
    /// Events the engine processed.
    pub events: u64,
}

/// A response-time histogram: exact below 64, then 8 sub-buckets per power of two.
#[derive(Clone, Debug, Default)]
pub(crate) struct Hist {
    counts: Vec<u64>,
    pub n: u64,
    pub sum: u64,
    pub max: u64,
}

fn bucket(v: u64) -> usize {
    if v < 64 {
        v as usize
    } else {
        let p = 63 - v.leading_zeros() as usize; // >= 6
        64 + (p - 6) * 8 + ((v >> (p - 3)) & 7) as usize
    }
}

fn upper(b: usize) -> u64 {
    if b < 64 {
        b as u64
    } else {
        let p = (b - 64) / 8 + 6;
        let sub = ((b - 64) % 8) as u64;
        ((8 + sub + 1) << (p - 3)) - 1
    }
}

impl Hist {
    pub fn add(&mut self, v: u64) {
        let b = bucket(v);
        if self.counts.len() <= b {
            self.counts.resize(b + 1, 0);
        }
        self.counts[b] += 1;
        self.n += 1;
        self.sum += v;
        self.max = self.max.max(v);
    }

    /// The bucket upper bound at quantile `q` (capped at the maximum seen).
    pub fn quantile(&self, q: f64) -> u64 {
        if self.n == 0 {
            return 0;
        }
        let target = ((q * self.n as f64).ceil() as u64).max(1);
        let mut acc = 0;
        for (b, &c) in self.counts.iter().enumerate() {
            acc += c;
            if acc >= target {
                return upper(b).min(self.max);
            }
        }
        self.max
    }

    pub fn buckets(&self) -> Vec<[u64; 2]> {
        self.counts.iter().enumerate().filter(|(_, &c)| c > 0).map(|(b, &c)| [upper(b), c]).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_cover_values_in_order() {
        let mut last = 0;
        for v in [0u64, 1, 63, 64, 65, 71, 72, 127, 128, 1000, 1 << 20] {
            let b = bucket(v);
            assert!(upper(b) >= v, "{v} above its bucket's bound {}", upper(b));
            if b > 0 {
                assert!(upper(b - 1) < v, "{v} belongs to an earlier bucket");
            }
            assert!(b >= last);
            last = b;
        }
        let mut h = Hist::default();
        for v in 1..=100 {
            h.add(v);
        }
        assert_eq!(h.quantile(0.5), 50);
        assert!(h.quantile(0.99) >= 99 && h.quantile(0.99) <= 100);
        assert_eq!(h.quantile(1.0), 100);
    }
}
