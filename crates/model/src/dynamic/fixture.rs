//! A policy's view for unit tests: a machine, counters, homes and free pages to build
//! [`View`]s from, and the policies of a spec built on it.

use super::*;
use crate::topology::tests::TWO_NODES;

pub struct Fixture {
    pub machine: Machine,
    pub counters: PageCounters,
    pub homes: Vec<u8>,
    pub free: Vec<u64>,
    pub regions: Vec<Region>,
    pub now: Ps,
    /// Lines fetched so far (`View::done`).
    pub done: u64,
    /// `View::bursts`: the simulator's bus sampler (false: the runtime's samplers).
    pub bursts: bool,
    /// The policy's cost so far (`View::overhead`).
    pub overhead: Ps,
    /// `View::remaining`.
    pub remaining: Option<Ps>,
    /// Lines served per node so far (`View::served`; empty unless a test sets it).
    pub served: Vec<u64>,
    /// Each page's earliest store (`View::written`; empty unless a test sets it).
    pub written: Vec<Ps>,
}

impl Fixture {
    pub fn new(pages: u32) -> Self {
        let machine = Machine::from_toml_str(TWO_NODES, "t2.toml").unwrap();
        Fixture {
            counters: PageCounters::new(pages as usize, machine.nodes(), 16),
            homes: vec![0; pages as usize],
            free: vec![10; machine.nodes()],
            regions: vec![Region { name: "a".into(), first_page: 0, pages }],
            machine,
            now: 0,
            done: 0,
            bursts: false,
            overhead: 0,
            remaining: None,
            served: Vec::new(),
            written: Vec::new(),
        }
    }

    /// The fixture with its CPU-less node 1 made CXL (a fast node 0 of 256 pages, a slow
    /// node 1 of 512), its pages at `homes` and `free` pages free on each node.
    pub fn tiered(homes: Vec<u8>, free: Vec<u64>) -> Self {
        let mut f = Fixture::new(homes.len() as u32);
        let text = TWO_NODES.replace("memory_mib = 2\n", "memory_mib = 2\nmemory = \"cxl\"\n");
        f.machine = Machine::from_toml_str(&text, "t2c.toml").unwrap();
        f.homes = homes;
        f.free = free;
        f
    }

    /// The policy named by `spec`, for a run of two threads on the fixture's machine.
    pub fn policy(&self, spec: &str) -> Box<dyn DynamicPolicy> {
        build(&Spec::parse(spec).unwrap(), &self.machine, 2).unwrap().0
    }

    pub fn view(&self) -> View<'_> {
        View {
            machine: &self.machine,
            counters: &self.counters,
            replicas: &[],
            replica_writes: &[],
            homes: &self.homes,
            free: &self.free,
            regions: &self.regions,
            now: self.now,
            started: 0,
            queue: &[],
            done: self.done,
            bursts: self.bursts,
            served: &self.served,
            overhead: self.overhead,
            remaining: self.remaining,
            referenced: &[],
            samples: &[],
            written: &self.written,
        }
    }
}
