//! What a run counts as it goes (the result is made of these). A leaf of the engine's parts.

use super::result::Hist;

#[derive(Default)]
pub(super) struct Stats {
    pub msgs: [u64; 20],
    pub hist: Hist,
    pub node_reads: Vec<u64>,
    pub node_read_cycles: Vec<u64>,
    pub queued: u64,
    pub queue_cycles: u64,
    pub queue_len_sum: u64,
    pub queue_len_max: u64,
    pub bounces: u64,
    pub proxy_reads: u64,
    pub reactive_proxy_reads: u64,
    pub proxy_hits: u64,
    pub combined: u64,
    pub line_accesses: u64,
    pub flc_accesses: u64,
    pub flc_misses: u64,
    pub slc_accesses: u64,
    pub slc_misses: u64,
    pub loads_checked: u64,
    pub events: u64,
}

impl Stats {
    /// A message taken into a queue that then holds `len` (with the one in service).
    #[inline]
    pub(super) fn queued(&mut self, len: u64) {
        self.queued += 1;
        self.queue_len_sum += len;
        self.queue_len_max = self.queue_len_max.max(len);
    }
}
