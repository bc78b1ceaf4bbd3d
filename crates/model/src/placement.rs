//! The `Placement` plug-in point: which node a page's home is at its first touch.
//!
//! Each placement is a type implementing [`Placement`], a `const` parameter table, and one line in
//! [`REGISTRY`] keyed by the name users type. [`build`] resolves a `NAME:key=value` spec against
//! the registry; an unknown name is answered with the known ones.
//!
//! The schemes are those compared in seed 000 §2.1 (first-touch, round-robin, random,
//! worst-case) plus two explicit distributions (`bind`, `block`) that stand for a
//! programmer's data-distribution directives (seed 001 §3).

use crate::error::ModelError;
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
}

const MOVES: PlacementCaps = PlacementCaps { kernel_default: false, one_node: false };

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
        caps: PlacementCaps { kernel_default: true, one_node: false },
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
        caps: PlacementCaps { kernel_default: false, one_node: true },
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
];

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
            "unknown placement 'nearest' (known: bind, block, first-touch, random, round-robin, worst-case)"
        );
        let e = build(&Spec::parse("bind:node=5").unwrap(), &m, 0).err().unwrap();
        assert_eq!(e.to_string(), "placement 'bind': node=5: machine 'm' has nodes 0..1");
        let e = build(&Spec::parse("first-touch:x=1").unwrap(), &m, 0).err().unwrap();
        assert!(e.to_string().contains("it takes no parameters"), "{e}");
    }
}
