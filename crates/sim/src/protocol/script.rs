//! A line-level program given as explicit per-thread operation lists (tests, the benchmark,
//! replaying a recorded program). It satisfies the [`LineProgram`] contract when its lists do.

use super::program::{LineOp, LineProgram, LineRegion, CHUNK};

/// Per-thread operation lists over fixed regions.
#[derive(Clone, Debug)]
pub struct Script {
    name: String,
    regions: Vec<LineRegion>,
    threads: Vec<Vec<LineOp>>,
    pos: Vec<usize>,
}

impl Script {
    /// A program named `name` whose thread `t` runs `threads[t]`. A thread list that does not
    /// state `EndInit` gets one in front (no initialisation).
    pub fn new(name: &str, regions: Vec<LineRegion>, mut threads: Vec<Vec<LineOp>>) -> Script {
        for t in &mut threads {
            if !t.contains(&LineOp::EndInit) {
                t.insert(0, LineOp::EndInit);
            }
        }
        let pos = vec![0; threads.len()];
        Script { name: name.to_string(), regions, threads, pos }
    }

    /// One region `data` of `bytes` bytes at address 0, marked for proxying as given.
    pub fn one_region(bytes: u64, proxy: bool) -> Vec<LineRegion> {
        vec![LineRegion { name: "data".into(), base: 0, bytes, proxy }]
    }
}

impl LineProgram for Script {
    fn name(&self) -> &str {
        &self.name
    }

    fn threads(&self) -> usize {
        self.threads.len()
    }

    fn regions(&self) -> &[LineRegion] {
        &self.regions
    }

    fn fill(&mut self, thread: usize, out: &mut Vec<LineOp>) -> bool {
        let ops = &self.threads[thread];
        let p = self.pos[thread];
        if p >= ops.len() {
            return false;
        }
        let end = (p + CHUNK).min(ops.len());
        out.extend_from_slice(&ops[p..end]);
        self.pos[thread] = end;
        true
    }
}
