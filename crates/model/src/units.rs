//! Units as types: a node number is never confused with a CPU or page number.
//!
//! Time inside the model is integer picoseconds ([`Ps`]) so that simulated clocks add exactly and
//! results are byte-identical across runs; reports convert to nanoseconds at the edge.

use std::fmt;

/// A NUMA node (a memory controller with its local memory and, usually, CPUs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NodeId(pub u8);

/// A logical CPU, numbered across the whole machine in node order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CpuId(pub u16);

/// A virtual page number within a simulated address space (all regions of a workload).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PageNo(pub u32);

/// Simulated time in picoseconds.
pub type Ps = u64;

/// The bound on a run's simulated time: 2^62 ps, about 53 simulated days. Every clock of a
/// run stays below `2^62` plus one quantum (at most 10^15 ps) plus one record's cost (at most
/// `2^40` ps a line times 65535 lines), so no sum of picoseconds in the engine can wrap a
/// `u64` (2^64 ps, 213 days), and a run that would pass the bound stops there and says so.
pub const MAX_TIME_PS: Ps = 1 << 62;

/// Picoseconds per nanosecond.
pub const PS_PER_NS: Ps = 1000;

/// The largest number of nodes a machine may have (node ids fit in a byte, one value reserved).
pub const MAX_NODES: usize = 254;

impl NodeId {
    /// The node number as an index into per-node tables.
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for NodeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "node {}", self.0)
    }
}

impl fmt::Display for CpuId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cpu {}", self.0)
    }
}

/// Converts nanoseconds (possibly fractional) to picoseconds, rounding to nearest.
#[inline]
pub fn ns_to_ps(ns: f64) -> Ps {
    (ns * PS_PER_NS as f64).round().max(0.0) as Ps
}
