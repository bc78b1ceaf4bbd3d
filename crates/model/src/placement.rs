//! The `Placement` plug-in point: which node a page's home is at its first touch.
//!
//! Each placement is a type implementing [`Placement`], a `const` parameter table, and one line in
//! [`REGISTRY`] keyed by the name users type. [`build`] resolves a `NAME:key=value` spec against
//! the registry; an unknown name is answered with the known ones.
//!
//! The schemes are those compared in seed 000 §2.1 (first-touch, round-robin, random,
//! worst-case) plus two explicit distributions (`bind`, `block`) that stand for a
//! programmer's data-distribution directives (seed 001 §3), and `oracle`, the best static
//! placement for locality: an offline bound computed from a profile of the run itself
//! ([`Oracle`], [`oracle_homes`]), which only a driver that can play the workload before timing
//! it (the simulator) can build ([`PlacementCaps::needs_profile`]).

use crate::dynamic::Driver;
use crate::error::ModelError;
use crate::pagetable::UNTOUCHED;
use crate::registry::{Info, Registry};
use crate::rng::{derive, mix64};
use crate::spec::{ParamDecl, ParamKind, Resolved, Spec};
use crate::topology::Machine;
use crate::units::{NodeId, PageNo};

/// A named, contiguous range of pages of a workload (an array).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Region {
    pub name: String,
    /// First page number of the region in the workload's address space.
    pub first_page: u32,
    /// Length in pages.
    pub pages: u32,
}

/// What a placement knows when a page is first touched.
#[derive(Clone, Copy, Debug)]
pub struct PlaceRequest<'a> {
    pub page: PageNo,
    /// The region containing `page`.
    pub region: &'a Region,
    /// The node of the CPU whose access is the first touch.
    pub toucher: NodeId,
}

/// Decides the home node of a page at its first touch.
///
/// # Contract
/// * `place` is a pure function of the request and of what the policy was built with (machine,
///   parameters, seed): the engine may also call it to *predict* where an untouched page will
///   go, so asking must not change the answer.
/// * It returns a node of the machine it was built for.
/// * It need not check capacity: a full (or memory-less) node is replaced by the nearest node
///   with free memory by the page table.
pub trait Placement: Send {
    fn place(&self, req: &PlaceRequest<'_>) -> NodeId;
}

/// What a driver must know of a placement that it cannot learn by calling it: how the Linux
/// runtime, which does not see first touches, realises it on real pages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlacementCaps {
    /// The kernel's own default (first touch): a driver on real processes leaves pages where
    /// the kernel put them.
    pub kernel_default: bool,
    /// Every page on the one node named by the `node` parameter: a driver on real processes
    /// binds the range (`mbind`) instead of moving pages one by one.
    pub one_node: bool,
    /// The placement is computed from a *profile* of the whole run — how many lines of each
    /// page the threads of each node fetch — so a driver must play the workload once before the
    /// run to gather it, then build the placement from the counts ([`Oracle::from_counts`])
    /// rather than through the entry's `build`, which refuses. Only the simulator can (it
    /// replays the workload untimed); the Linux runtime cannot see a program's accesses before
    /// they happen, so it refuses such a placement ([`check_driver`]).
    pub needs_profile: bool,
}

impl PlacementCaps {
    /// Whether `driver` can realise a placement with these capabilities.
    pub fn runs_on(self, driver: Driver) -> bool {
        !(self.needs_profile && driver == Driver::Runtime)
    }
}

const MOVES: PlacementCaps = PlacementCaps { kernel_default: false, one_node: false, needs_profile: false };

/// A placement's constructor: resolved parameters, the machine and the run seed.
pub type Build = fn(&Resolved, &Machine, u64) -> Result<Box<dyn Placement>, ModelError>;

/// One registry entry.
pub type PlacementInfo = Info<Build, PlacementCaps>;

/// Every placement, keyed by the name users type.
pub const REGISTRY: Registry<Build, PlacementCaps> = Registry { kind: "placement", groups: &[PLACEMENTS] };

const PLACEMENTS: &[PlacementInfo] = &[
    PlacementInfo {
        name: "first-touch",
        doc: "the node of the CPU that touches the page first (IRIX and Linux default)",
        params: &[],
        caps: PlacementCaps { kernel_default: true, one_node: false, needs_profile: false },
        build: |_, _, _| Ok(Box::new(FirstTouch)),
    },
    PlacementInfo {
        name: "round-robin",
        doc: "consecutive virtual pages on consecutive memory nodes (IRIX DSM_PLACEMENT=ROUND_ROBIN)",
        params: &[],
        caps: MOVES,
        build: |_, m, _| Ok(Box::new(RoundRobin { nodes: m.memory_nodes() })),
    },
    PlacementInfo {
        name: "random",
        doc: "a memory node drawn uniformly at random per page, from the run seed",
        params: &[],
        caps: MOVES,
        build: |_, m, seed| Ok(Box::new(RandomPlace { nodes: m.memory_nodes(), seed: derive(seed, 0x7ace) })),
    },
    PlacementInfo {
        name: "worst-case",
        doc: "every page on node 0, as when one processor initialises all data (seed 000 §2.1)",
        params: &[],
        caps: MOVES,
        build: |_, _, _| Ok(Box::new(Fixed(NodeId(0)))),
    },
    PlacementInfo {
        name: "bind",
        doc: "every page on one given node",
        params: &[ParamDecl { name: "node", kind: ParamKind::UINT, default: "0", doc: "the node to bind to" }],
        caps: PlacementCaps { kernel_default: false, one_node: true, needs_profile: false },
        build: |r, m, _| {
            let node = r.uint("node");
            if node as usize >= m.nodes() {
                return Err(ModelError::Spec(format!(
                    "placement 'bind': node={node}: machine '{}' has nodes 0..{}",
                    m.name(),
                    m.nodes() - 1
                )));
            }
            if m.capacity_pages[node as usize] == 0 {
                return Err(ModelError::Spec(format!(
                    "placement 'bind': node={node}: node {node} of machine '{}' has no memory",
                    m.name()
                )));
            }
            Ok(Box::new(Fixed(NodeId(node as u8))))
        },
    },
    PlacementInfo {
        name: "block",
        doc: "each region cut into equal contiguous parts, one per memory node in order",
        params: &[],
        caps: MOVES,
        build: |_, m, _| Ok(Box::new(Block { nodes: m.memory_nodes() })),
    },
    PlacementInfo {
        name: ORACLE,
        doc: "the offline bound: each page on the node whose threads fetch the most lines of it in the timed run (ties spread by page number), \
              from a profile of the run; pages the timed run never touches go where first-touch puts them; where that overfills a node \
              (every page wants a tiered machine's fast node), the pages with the most to lose first: the best static tier assignment (simulator only)",
        params: &[],
        caps: PlacementCaps { kernel_default: false, one_node: false, needs_profile: true },
        build: |_, _, _| Err(ModelError::Config(format!("placement '{ORACLE}' {NEEDS_PROFILE}: this driver cannot make one"))),
    },
];

/// The name of the offline-bound placement.
pub const ORACLE: &str = "oracle";

/// Why a placement with [`PlacementCaps::needs_profile`] cannot be built from its parameters
/// alone (one phrase, shared by the refusals).
const NEEDS_PROFILE: &str =
    "is computed from a profile of the whole run (each page's lines fetched per node), which only the simulator makes (numaplace sim --placement oracle)";

/// Finds `spec`'s placement and checks its parameters (names, types, ranges), without a
/// machine: what can be checked before a run.
///
/// # Errors
/// An unknown name (listing the known ones) or a bad parameter.
pub fn resolve(spec: &Spec) -> Result<(&'static PlacementInfo, Resolved), ModelError> {
    REGISTRY.resolve(spec)
}

/// Builds the placement named by `spec` for `machine`, returning it with its resolved spec.
///
/// # Errors
/// An unknown name (listing the known ones) or a bad parameter.
pub fn build(spec: &Spec, machine: &Machine, seed: u64) -> Result<(Box<dyn Placement>, Resolved), ModelError> {
    let (info, resolved) = resolve(spec)?;
    let p = (info.build)(&resolved, machine, seed)?;
    Ok((p, resolved))
}

/// Checks that `driver` can realise `info`'s placement (after [`resolve`]); the message gives
/// the reason and the placements it can realise.
///
/// # Errors
/// [`ModelError::Config`] for a placement the driver cannot realise.
pub fn check_driver(info: &PlacementInfo, driver: Driver) -> Result<(), ModelError> {
    if info.caps.runs_on(driver) {
        return Ok(());
    }
    let mut can: Vec<&str> = REGISTRY.iter().filter(|i| i.caps.runs_on(driver)).map(|i| i.name).collect();
    can.sort_unstable();
    Err(ModelError::Config(format!(
        "placement '{}' cannot run in the {}: it {NEEDS_PROFILE}; the {} runs: {}",
        info.name,
        driver.name(),
        driver.name(),
        can.join(", ")
    )))
}

/// The oracle's table from a profile: for each page, the memory node whose threads fetched
/// the most lines of it, or [`UNTOUCHED`] for a page no thread on a memory node fetched.
/// A tie goes to one of the tied nodes chosen by page number, round the tied nodes in
/// node order (page `p` with `k` tied nodes: the `p mod k`-th): the same local lines as any
/// other choice, but pages every node uses alike (a vector all threads read) are spread over
/// their nodes as round-robin would, instead of all landing on the lowest one and queueing
/// there.
///
/// `counts` holds `memory.len()` counts per page, page-major (`counts[page * nodes + node]`:
/// lines of `page` fetched by threads running on `node`); `memory[n]` says whether node `n`
/// has memory. A node without memory can be no page's home: its threads' lines are remote
/// wherever the page lives, so they do not vote. Homing each page on its argmax maximises the
/// local lines of the profiled run, page by page, over every static placement (capacity
/// aside: [`Oracle::from_counts`] makes a table that overflows a node fit ([`fit_capacity`])).
///
/// # Panics
/// If `memory` is empty or longer than 255 nodes, or `counts` is not a whole number of pages.
pub fn oracle_homes(counts: &[u64], memory: &[bool]) -> Vec<u8> {
    let nodes = memory.len();
    assert!((1..UNTOUCHED as usize).contains(&nodes), "{nodes} nodes");
    assert_eq!(counts.len() % nodes, 0, "counts are not a whole number of pages");
    counts
        .chunks_exact(nodes)
        .enumerate()
        .map(|(page, row)| {
            let voters = || row.iter().zip(memory).filter(|(_, &m)| m).map(|(&c, _)| c);
            let most = voters().max().unwrap_or(0);
            if most == 0 {
                return UNTOUCHED;
            }
            let tied = voters().filter(|&c| c == most).count();
            let pick = page % tied;
            let (n, _) = row.iter().zip(memory).enumerate().filter(|(_, (&c, &m))| m && c == most).nth(pick).expect("a tied node");
            n as u8
        })
        .collect()
}

/// [`oracle_homes`]' table made to fit the nodes' capacity: returned unchanged when no node is
/// given more pages than it holds (every NUMA preset with the seeds' workloads). Otherwise —
/// a tiered machine, whose CPU-less slow node no thread votes for, so every page wants the fast
/// node — it is the best static tier assignment of issue 36: each profiled page costs
/// `Σ_c counts[page, c] · latency(c → n)` on memory node `n` (the unloaded latency, from the
/// CPU nodes that fetch it), and the pages are given homes in descending order of their
/// *regret* (the cost of their second-cheapest memory node minus their cheapest; ties by page
/// number), each on its cheapest node that still has room (ties spread by page number as in
/// [`oracle_homes`]). With two memory nodes this is the optimal assignment for that cost (an
/// exchange argument: the pages with the largest saving take the fast node), i.e. the hottest
/// pages in the fast tier, the "ideal" the tiering papers compare against; with more it is the
/// greedy regret heuristic (a choice, written down here). Pages the profile never saw fetched
/// (touched only by the initialisation, or never) are homed on the node left with the most room,
/// so that they do not take the fast tier's room at their first touch. Loaded latency
/// (bandwidth) is not part of the cost: the bound is on where the accesses go.
pub fn fit_capacity(mut homes: Vec<u8>, counts: &[u64], machine: &Machine) -> Vec<u8> {
    let nodes = machine.nodes();
    let capacity = &machine.capacity_pages;
    let mut wanted = vec![0u64; nodes];
    for &h in homes.iter().filter(|&&h| h != UNTOUCHED) {
        wanted[h as usize] += 1;
    }
    if wanted.iter().zip(capacity).all(|(w, c)| w <= c) {
        return homes;
    }
    let memory: Vec<usize> = (0..nodes).filter(|&n| capacity[n] > 0).collect();
    // Per profiled page: its cost on each memory node (in memory-node order) and its regret.
    let cost_of = |row: &[u64]| -> Vec<u128> {
        memory
            .iter()
            .map(|&n| row.iter().enumerate().map(|(c, &l)| l as u128 * machine.latency_ps[c * nodes + n] as u128).sum())
            .collect()
    };
    let mut order: Vec<(u128, u32)> = Vec::new();
    for (page, row) in counts.chunks_exact(nodes).enumerate() {
        if row.iter().all(|&l| l == 0) {
            continue;
        }
        let mut c = cost_of(row);
        c.sort_unstable();
        let regret = c.get(1).map_or(0, |second| second - c[0]);
        order.push((regret, page as u32));
    }
    order.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut used = vec![0u64; nodes];
    for &(_, page) in &order {
        let p = page as usize;
        let cost = cost_of(&counts[p * nodes..(p + 1) * nodes]);
        let room = |i: usize| used[memory[i]] < capacity[memory[i]];
        // A page that fits nowhere (the footprint is over the machine's memory) keeps its wish
        // and spills at its first touch, as under any placement.
        let Some(best) = (0..memory.len()).filter(|&i| room(i)).map(|i| cost[i]).min() else { continue };
        let tied: Vec<usize> = (0..memory.len()).filter(|&i| room(i) && cost[i] == best).collect();
        let n = memory[tied[p % tied.len()]];
        homes[p] = n as u8;
        used[n] += 1;
    }
    let roomiest = memory.iter().copied().max_by_key(|&n| (capacity[n].saturating_sub(used[n]), std::cmp::Reverse(n)));
    if let Some(n) = roomiest {
        for h in homes.iter_mut().filter(|h| **h == UNTOUCHED) {
            *h = n as u8;
        }
    }
    homes
}

/// The offline-bound placement: each page's home read from a table computed before the run
/// ([`oracle_homes`]); a page the table leaves [`UNTOUCHED`] (or beyond it) goes where
/// first-touch would put it.
pub struct Oracle {
    homes: Vec<u8>,
}

impl Oracle {
    /// The oracle for `machine` from a profile's per-page, per-node line counts (see
    /// [`oracle_homes`]; `counts` has `machine.nodes()` entries per page).
    ///
    /// # Panics
    /// If `counts` is not a whole number of pages of `machine`.
    pub fn from_counts(counts: &[u64], machine: &Machine) -> Self {
        let memory: Vec<bool> = machine.capacity_pages.iter().map(|&c| c > 0).collect();
        let homes = oracle_homes(counts, &memory);
        Oracle { homes: fit_capacity(homes, counts, machine) }
    }

    /// The table: each page's home node, or [`UNTOUCHED`].
    pub fn homes(&self) -> &[u8] {
        &self.homes
    }
}

impl Placement for Oracle {
    fn place(&self, req: &PlaceRequest<'_>) -> NodeId {
        match self.homes.get(req.page.0 as usize) {
            Some(&h) if h != UNTOUCHED => NodeId(h),
            _ => req.toucher,
        }
    }
}

struct FirstTouch;
impl Placement for FirstTouch {
    fn place(&self, req: &PlaceRequest<'_>) -> NodeId {
        req.toucher
    }
}

struct RoundRobin {
    nodes: Vec<NodeId>,
}
impl Placement for RoundRobin {
    fn place(&self, req: &PlaceRequest<'_>) -> NodeId {
        self.nodes[req.page.0 as usize % self.nodes.len()]
    }
}

/// Random placement hashes (seed, page) rather than drawing from a stream, so a page's node
/// does not depend on the order pages are touched in.
struct RandomPlace {
    nodes: Vec<NodeId>,
    seed: u64,
}
impl Placement for RandomPlace {
    fn place(&self, req: &PlaceRequest<'_>) -> NodeId {
        let h = mix64(self.seed ^ req.page.0 as u64);
        self.nodes[((h as u128 * self.nodes.len() as u128) >> 64) as usize]
    }
}

struct Fixed(NodeId);
impl Placement for Fixed {
    fn place(&self, _: &PlaceRequest<'_>) -> NodeId {
        self.0
    }
}

struct Block {
    nodes: Vec<NodeId>,
}
impl Placement for Block {
    fn place(&self, req: &PlaceRequest<'_>) -> NodeId {
        let off = (req.page.0 - req.region.first_page) as u64;
        let part = off * self.nodes.len() as u64 / req.region.pages.max(1) as u64;
        self.nodes[part as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn machine(nodes: usize) -> Machine {
        let lat: Vec<String> = (0..nodes)
            .map(|i| {
                let row: Vec<String> =
                    (0..nodes).map(|j| if i == j { "100.0".into() } else { "200.0".into() }).collect();
                format!("[{}]", row.join(", "))
            })
            .collect();
        let mut t = format!(
            "name = \"m\"\npage_size = 4096\nline_size = 64\nmlp = 1.0\nlatency_ns = [{}]\n",
            lat.join(", ")
        );
        for _ in 0..nodes {
            t.push_str("[[nodes]]\ncpus = 1\nmemory_mib = 64\nbandwidth_gbps = 1.0\n");
        }
        t.push_str("[migration]\nfixed_ns = 0.0\ncopy_gbps = 1.0\ntlb_shootdown_ns_per_cpu = 0.0\n");
        Machine::from_toml_str(&t, "m").unwrap()
    }

    fn place_all(name: &str, m: &Machine, pages: u32) -> Vec<u8> {
        let (p, _) = build(&Spec::parse(name).unwrap(), m, 42).unwrap();
        let region = Region { name: "a".into(), first_page: 0, pages };
        (0..pages)
            .map(|pg| p.place(&PlaceRequest { page: PageNo(pg), region: &region, toucher: NodeId(3) }).0)
            .collect()
    }

    #[test]
    fn schemes_place_as_documented() {
        let m = machine(4);
        assert!(place_all("first-touch", &m, 8).iter().all(|&n| n == 3));
        assert_eq!(place_all("round-robin", &m, 8), vec![0, 1, 2, 3, 0, 1, 2, 3]);
        assert!(place_all("worst-case", &m, 8).iter().all(|&n| n == 0));
        assert!(place_all("bind:node=2", &m, 8).iter().all(|&n| n == 2));
        assert_eq!(place_all("block", &m, 8), vec![0, 0, 1, 1, 2, 2, 3, 3]);
    }

    #[test]
    fn random_is_balanced_and_seeded() {
        let m = machine(4);
        let a = place_all("random", &m, 40_000);
        let mut counts = [0u32; 4];
        for &n in &a {
            counts[n as usize] += 1;
        }
        for c in counts {
            assert!((9_500..10_500).contains(&c), "{counts:?}");
        }
        assert_eq!(a, place_all("random", &m, 40_000));
        let (other, _) = build(&Spec::parse("random").unwrap(), &m, 43).unwrap();
        let region = Region { name: "a".into(), first_page: 0, pages: 64 };
        let b: Vec<u8> = (0..64)
            .map(|pg| other.place(&PlaceRequest { page: PageNo(pg), region: &region, toucher: NodeId(0) }).0)
            .collect();
        assert_ne!(b, a[..64].to_vec(), "a different seed gives a different placement");
    }

    #[test]
    fn unknown_and_bad_names_are_explained() {
        let m = machine(2);
        let e = build(&Spec::parse("nearest").unwrap(), &m, 0).err().unwrap();
        assert_eq!(
            e.to_string(),
            "unknown placement 'nearest' (known: bind, block, first-touch, oracle, random, round-robin, worst-case)"
        );
        let e = build(&Spec::parse("bind:node=5").unwrap(), &m, 0).err().unwrap();
        assert_eq!(e.to_string(), "placement 'bind': node=5: machine 'm' has nodes 0..1");
        let e = build(&Spec::parse("first-touch:x=1").unwrap(), &m, 0).err().unwrap();
        assert!(e.to_string().contains("it takes no parameters"), "{e}");
    }

    #[test]
    fn oracle_homes_each_page_on_the_node_that_fetches_it_most() {
        let memory = [true; 3];
        #[rustfmt::skip]
        let counts = [
            1, 5, 2, // page 0: node 1
            9, 0, 8, // page 1: node 0
            0, 0, 7, // page 2: node 2
        ];
        assert_eq!(oracle_homes(&counts, &memory), vec![1, 0, 2]);
    }

    #[test]
    fn oracle_ties_are_spread_by_page_number_and_untouched_pages_stay_untouched() {
        let memory = [true; 4];
        #[rustfmt::skip]
        let counts = [
            0, 3, 3, 1, // page 0, tie between 1 and 2: the 0th, node 1
            0, 3, 3, 1, // page 1, the same tie: the 1st, node 2
            4, 4, 4, 4, // page 2, all tied: node 2
            4, 4, 4, 4, // page 3: node 3
            4, 4, 4, 4, // page 4: node 0
            0, 0, 0, 0, // never fetched
            0, 0, 0, 2,
        ];
        let homes = oracle_homes(&counts, &memory);
        assert_eq!(homes, vec![1, 2, 2, 3, 0, UNTOUCHED, 3]);
        assert_eq!(oracle_homes(&counts, &memory), homes, "deterministic");
        assert_eq!(oracle_homes(&[], &memory), Vec::<u8>::new());
        // Every node fetching a run of pages alike: the pages spread evenly, round-robin.
        let shared = [7u64; 4 * 8];
        assert_eq!(oracle_homes(&shared, &memory), vec![0, 1, 2, 3, 0, 1, 2, 3]);
    }

    #[test]
    fn oracle_homes_only_on_nodes_with_memory() {
        // Node 0 has CPUs but no memory: its threads' lines are remote wherever the page is, so
        // the page goes to the memory node that fetches it most, or stays untouched.
        let memory = [false, true, true];
        #[rustfmt::skip]
        let counts = [
            9, 1, 2, // node 2
            9, 0, 0, // only the memory-less node: untouched
            0, 3, 3, // page 2, tie between 1 and 2: the 0th (2 mod 2), node 1
            5, 4, 4, // page 3, tie between 1 and 2: the 1st, node 2
        ];
        assert_eq!(oracle_homes(&counts, &memory), vec![2, UNTOUCHED, 1, 2]);
    }

    #[test]
    fn the_oracle_places_by_its_table_and_falls_back_to_first_touch() {
        let m = machine(4);
        #[rustfmt::skip]
        let counts = [
            0, 0, 5, 0,
            0, 0, 0, 0,
        ];
        let o = Oracle::from_counts(&counts, &m);
        assert_eq!(o.homes(), &[2, UNTOUCHED]);
        let region = Region { name: "a".into(), first_page: 0, pages: 3 };
        let at = |page: u32, toucher: u8| o.place(&PlaceRequest { page: PageNo(page), region: &region, toucher: NodeId(toucher) }).0;
        assert_eq!((at(0, 3), at(0, 1)), (2, 2), "a profiled page goes home whoever touches it");
        assert_eq!((at(1, 3), at(1, 1)), (3, 1), "an unprofiled page goes where first-touch puts it");
        assert_eq!(at(2, 0), 0, "a page beyond the table too");
    }

    /// Node 0: one CPU and 1 MiB (256 pages) at 100 ns; node 1: no CPU, 4 MiB at 300 ns.
    fn tiered() -> Machine {
        let t = "name = \"t\"\npage_size = 4096\nline_size = 64\nmlp = 1.0\nlatency_ns = [[100.0, 300.0], [300.0, 300.0]]\n\
                 [[nodes]]\ncpus = 1\nmemory_mib = 1\nbandwidth_gbps = 1.0\n\
                 [[nodes]]\ncpus = 0\nmemory_mib = 4\nbandwidth_gbps = 1.0\n\
                 [migration]\nfixed_ns = 0.0\ncopy_gbps = 1.0\ntlb_shootdown_ns_per_cpu = 0.0\n";
        Machine::from_toml_str(t, "t").unwrap()
    }

    #[test]
    fn the_oracle_fits_a_tiered_machine_hottest_pages_in_the_fast_tier() {
        let m = tiered();
        assert_eq!(m.capacity_pages, vec![256, 1024]);
        // 300 fetched pages (every line from node 0's CPU, counts scrambled), then one the
        // profile never saw.
        let count = |p: u64| (p * 7919) % 1000 + 1;
        let mut counts: Vec<u64> = (0..300).flat_map(|p| [count(p), 0]).collect();
        counts.extend([0, 0]);
        let homes = Oracle::from_counts(&counts, &m).homes().to_vec();
        let mut by_heat: Vec<u64> = (0..300).collect();
        by_heat.sort_by_key(|&p| (std::cmp::Reverse(count(p)), p));
        for (rank, &p) in by_heat.iter().enumerate() {
            assert_eq!(homes[p as usize], u8::from(rank >= 256), "page {p}, {rank}th hottest");
        }
        assert_eq!(homes[300], 1, "an unprofiled page goes where room is left, not into the fast tier");
        // Within capacity the table is the argmax one, untouched pages and all.
        let small: Vec<u64> = (0..10).flat_map(|p| [count(p), 0]).chain([0, 0]).collect();
        let homes = Oracle::from_counts(&small, &m).homes().to_vec();
        assert_eq!(homes, [vec![0u8; 10], vec![UNTOUCHED]].concat());
    }

    #[test]
    fn the_oracle_fits_capacity_by_regret_not_by_heat() {
        // Two nodes of one CPU and 256 pages each. Pages 0-254 are node 0's alone; page 256 is
        // fetched 10 lines from each node (hot, but it costs the same on either: regret 0);
        // page 257 3 lines from node 0 only (cool, regret 3 x 100 ns). The argmax table asks
        // node 0 for 257 pages; by regret page 257 takes node 0's last place and page 256 goes
        // to node 1, where by heat page 256 would have taken it and page 257 spilled.
        let t = "name = \"r\"\npage_size = 4096\nline_size = 64\nmlp = 1.0\nlatency_ns = [[100.0, 200.0], [200.0, 100.0]]\n\
                 [[nodes]]\ncpus = 1\nmemory_mib = 1\nbandwidth_gbps = 1.0\n\
                 [[nodes]]\ncpus = 1\nmemory_mib = 1\nbandwidth_gbps = 1.0\n\
                 [migration]\nfixed_ns = 0.0\ncopy_gbps = 1.0\ntlb_shootdown_ns_per_cpu = 0.0\n";
        let m = Machine::from_toml_str(t, "r").unwrap();
        let mut counts: Vec<u64> = (0..255u64).flat_map(|p| [5 + p % 3, 0]).collect();
        counts.extend([0, 0, 10, 10, 3, 0]);
        let argmax = oracle_homes(&counts, &[true, true]);
        assert_eq!((argmax[256], argmax[257]), (0, 0));
        let homes = Oracle::from_counts(&counts, &m).homes().to_vec();
        assert!(homes[..255].iter().all(|&h| h == 0));
        assert_eq!((homes[256], homes[257]), (1, 0));
        assert_eq!(homes[255], 1, "the unprofiled page goes to the node with room left");
    }

    #[test]
    fn the_oracle_is_built_only_from_a_profile_and_refused_by_the_runtime() {
        let m = machine(2);
        let e = build(&Spec::parse("oracle").unwrap(), &m, 0).err().unwrap().to_string();
        assert!(!e.contains('\n') && e.starts_with("placement 'oracle' is computed from a profile"), "{e}");
        assert!(e.contains("numaplace sim --placement oracle"), "{e}");
        let (info, _) = resolve(&Spec::parse("oracle").unwrap()).unwrap();
        assert!(info.caps.needs_profile && !info.caps.kernel_default && !info.caps.one_node);
        assert!(check_driver(info, Driver::Simulator).is_ok());
        let e = check_driver(info, Driver::Runtime).unwrap_err().to_string();
        assert_eq!(
            e,
            "placement 'oracle' cannot run in the runtime: it is computed from a profile of the whole run (each page's lines fetched per node), \
             which only the simulator makes (numaplace sim --placement oracle); the runtime runs: bind, block, first-touch, random, round-robin, worst-case"
        );
        for other in REGISTRY.iter().filter(|i| i.name != ORACLE) {
            assert!(!other.caps.needs_profile && check_driver(other, Driver::Runtime).is_ok(), "{}", other.name);
        }
    }
}
