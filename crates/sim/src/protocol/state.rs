//! The engine's state: [`Eng`] owns one typed part per component (caches, directory, node
//! controllers, network, proxies, CPUs, statistics, the event queue and the messages in
//! flight) plus the address map, and offers what every handler uses: scheduling, the address
//! map (a line's home, first touch) and failing the run. The handlers are `impl Eng` blocks in
//! `exec` (CPUs), `serve` (controllers and sends), `home` (directory side), `remote` (cache
//! side), `proxy` and `invariants`; `engine` builds an `Eng` and runs it.

use super::caches::Caches;
use super::cpu::Cpu;
use super::ctrl::Node;
use super::dir::{Directory, LineMap};
use super::msg::{Msg, MsgSlab, EV_ARRIVE, EV_CPU, EV_DONE, INV};
use super::net::Network;
use super::params::{InterfaceModel, ProtocolParams};
use super::proxies::Proxies;
use super::queue::EventQueue;
use super::stats::Stats;
use crate::error::SimError;
use numaplace_model::pagetable::UNTOUCHED;
use numaplace_model::{Machine, ModelError, PageNo, PageTable, PlaceRequest, Placement, Region};
use std::collections::VecDeque;

/// A configuration error (the run's own error type).
pub(super) fn cfg(msg: String) -> SimError {
    SimError::Model(ModelError::Config(msg))
}

pub(super) struct Eng<'a> {
    pub p: ProtocolParams,
    pub n: usize,
    /// Finite buffers' limit, `None` when infinite.
    pub limit: Option<usize>,
    /// `limit` when the hysteresis applies (`Node::note_len`).
    pub hyst_limit: Option<usize>,
    pub iface: InterfaceModel,
    pub invariants: bool,
    pub stall: u64,
    pub lookahead: u64,
    // The address map.
    pub line_shift: u32,
    /// The end of the address space the regions span (every address below it has a line
    /// number below 2^28).
    pub addr_end: u64,
    pub page_lines_shift: u32,
    pub table: PageTable,
    pub page_region: Vec<u32>,
    pub regions: Vec<Region>,
    pub placement: &'a dyn Placement,
    pub machine: &'a Machine,
    // The parts.
    pub caches: Caches,
    pub dir: Directory,
    pub nodes: Vec<Node>,
    pub cpus: Vec<Cpu>,
    pub net: Network,
    pub prox: Proxies,
    pub events: EventQueue,
    pub slab: MsgSlab,
    pub st: Stats,
    // Synchronisation and progress.
    pub store_seq: u64,
    pub locks: LineMap<(u16, VecDeque<u16>)>,
    pub barrier_count: usize,
    /// Global barriers released so far.
    pub barriers: u64,
    pub now: u64,
    pub last_progress: u64,
    pub err: Option<String>,
    pub program_name: String,
}

impl Eng<'_> {
    /// Schedules CPU `c` to run at `t`.
    #[inline]
    pub(super) fn push_cpu(&mut self, t: u64, c: usize) {
        self.events.push(t, EV_CPU | c as u32);
    }

    /// Schedules controller `d` to serve its queue at `t` (the end of its current service).
    #[inline]
    pub(super) fn push_done(&mut self, t: u64, d: usize) {
        self.events.push(t, EV_DONE | d as u32);
    }

    /// Schedules message `m`'s arrival at its destination at `t`; it waits in the slab.
    #[inline]
    pub(super) fn push_msg(&mut self, t: u64, m: Msg) {
        let i = self.slab.put(m);
        self.events.push(t, EV_ARRIVE | i);
    }

    /// Fails the run (the first failure is reported).
    pub(super) fn fail(&mut self, msg: String) {
        if self.err.is_none() {
            self.err = Some(msg);
        }
    }

    #[inline]
    pub(super) fn line_of(&self, a: u64) -> u32 {
        (a >> self.line_shift) as u32
    }

    #[inline]
    pub(super) fn home_of(&self, line: u32) -> usize {
        self.table.homes()[(line >> self.page_lines_shift) as usize] as usize
    }

    /// `a`'s line, or `None` (the run fails) when `a` lies past the regions' end: the bound
    /// comes first because `line_of` truncates, and an address beyond it could name a line
    /// inside.
    #[inline]
    pub(super) fn bounded_line(&mut self, c: usize, a: u64) -> Option<u32> {
        if a >= self.addr_end {
            self.outside(c, a);
            return None;
        }
        Some(self.line_of(a))
    }

    pub(super) fn outside(&mut self, c: usize, a: u64) {
        self.fail(format!("program {}: thread {c} accessed address {a:#x}, outside every region", self.program_name));
    }

    /// Makes the per-line tables hold `line` ([`Directory::hold`]).
    #[inline]
    pub(super) fn hold(&mut self, line: u32) -> Result<(), String> {
        self.dir.hold(line, &self.program_name, self.line_shift)
    }

    /// Checks that `line` lies in a region and homes its page on first touch by `node`.
    #[inline]
    pub(super) fn touch(&mut self, c: usize, a: u64) -> Option<u32> {
        let line = self.bounded_line(c, a)?;
        let pg = (line >> self.page_lines_shift) as usize;
        if self.page_region[pg] == INV {
            self.outside(c, a);
            return None;
        }
        if self.table.homes()[pg] == UNTOUCHED {
            let region = &self.regions[self.page_region[pg] as usize];
            let req = PlaceRequest { page: PageNo(pg as u32), region, toucher: numaplace_model::NodeId(c as u8) };
            let want = self.placement.place(&req);
            self.table.place(PageNo(pg as u32), want, self.machine);
        }
        if let Err(e) = self.hold(line) {
            self.fail(e);
            return None;
        }
        if !self.dir.lines[line as usize].accessed {
            self.dir.lines[line as usize].accessed = true;
            self.dir.touched.push(line);
        }
        Some(line)
    }
}
