//! Checking a run: the directory invariants (docs/protocol.md, "Invariants") after every
//! event when asked, and the stuck transactions and threads named by a lack of progress.

use super::caches::{ST_I, ST_M, ST_S};
use super::cpu::CpuState;
use super::state::Eng;

impl Eng<'_> {
    /// The stuck transactions and threads, for the lack-of-progress error.
    pub(super) fn stuck(&self) -> String {
        let mut parts = Vec::new();
        let mut busy: Vec<_> = self.dir.busy.iter().collect();
        busy.sort_unstable_by_key(|(line, _)| **line);
        for (line, t) in busy {
            parts.push(format!(
                "home {} line {line:#x}: {:?} for node {} ({} waiting)",
                self.home_of(*line),
                t.kind,
                t.req,
                t.waiting.len()
            ));
        }
        for (i, nd) in self.nodes.iter().enumerate() {
            for p in &nd.pend {
                parts.push(format!("node {i} line {:#x}: {:?} miss outstanding (cpu {}, chain {})", p.line, p.kind, p.cpu, p.chain.len()));
            }
        }
        for (i, c) in self.cpus.iter().enumerate() {
            if c.state == CpuState::Wait {
                let op = c.ops.get(c.pos).map(|o| format!("{o:?}")).unwrap_or_default();
                parts.push(format!("cpu {i} waiting at {op}"));
            }
        }
        if parts.len() > 12 {
            let more = parts.len() - 12;
            parts.truncate(12);
            parts.push(format!("... and {more} more"));
        }
        parts.join("; ")
    }

    /// The directory invariants (docs/protocol.md, "Invariants") for every line accessed.
    pub(super) fn check_invariants(&self) -> Result<(), String> {
        for &line in &self.dir.touched {
            let li = line as usize;
            let mut valid = Vec::new();
            let mut owners = 0;
            for nd in 0..self.n {
                let st = self.caches.valid_at(nd, line);
                if st != ST_I {
                    let v = self.caches.slc_val[self.caches.sidx(nd, line)];
                    if v != self.dir.latest[li] {
                        return Err(format!("line {line:#x}: node {nd} holds store #{v}, the latest is #{}", self.dir.latest[li]));
                    }
                    if st == ST_M {
                        owners += 1;
                    }
                    valid.push(nd);
                }
                let fi = nd * self.caches.flc_frames + (li & (self.caches.flc_frames - 1));
                if self.caches.flc[fi] == line && st == ST_I {
                    return Err(format!("line {line:#x}: in node {nd}'s FLC but not its SLC"));
                }
            }
            if owners > 0 && valid.len() > 1 {
                return Err(format!("line {line:#x}: modified at one node while nodes {valid:?} hold copies"));
            }
            let list: &[u16] = &self.dir.lines[li].list;
            let mut sorted = list.to_vec();
            sorted.sort_unstable();
            sorted.dedup();
            if sorted.len() != list.len() {
                return Err(format!("line {line:#x}: sharing list {list:?} names a node twice"));
            }
            if self.dir.busy.contains_key(&line) {
                continue;
            }
            let linked = |nd: usize| {
                let n = &self.nodes[nd];
                n.leaving.contains(&line) || n.pend.iter().any(|p| p.line == line) || n.wb.iter().any(|&(l, _)| l == line)
            };
            if self.dir.lines[li].modified {
                if list.len() != 1 {
                    return Err(format!("line {line:#x}: modified with list {list:?}"));
                }
                let o = list[0] as usize;
                if !(self.caches.valid_at(o, line) == ST_M || linked(o)) {
                    return Err(format!("line {line:#x}: owner {o} holds no modified copy"));
                }
            } else {
                if owners > 0 {
                    return Err(format!("line {line:#x}: a modified copy exists but the home's state is shared"));
                }
                if self.dir.lines[li].mem_val != self.dir.latest[li] && !self.nodes.iter().any(|n| n.wb.iter().any(|&(l, _)| l == line)) {
                    return Err(format!("line {line:#x}: memory holds store #{}, the latest is #{}", self.dir.lines[li].mem_val, self.dir.latest[li]));
                }
                for &x in list {
                    let x = x as usize;
                    if self.caches.valid_at(x, line) != ST_S && !linked(x) {
                        return Err(format!("line {line:#x}: node {x} is in the sharing list {list:?} without a copy"));
                    }
                }
                for &nd in &valid {
                    if !list.contains(&(nd as u16)) {
                        return Err(format!("line {line:#x}: node {nd} holds a copy but is not in the sharing list {list:?}"));
                    }
                }
            }
        }
        Ok(())
    }
}
