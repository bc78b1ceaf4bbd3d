//! The proxies' state (seed 004 §1.3): the mode, the proxy clusters, which regions are marked
//! for basic proxies, and the chains of clients a proxy serves after its fill. A leaf of the
//! engine's parts; the proxy message handlers are in `proxy`.

use super::params::ProxyMode;

pub(super) struct Proxies {
    pub mode: ProxyMode,
    n: usize,
    clusters: usize,
    /// Per region, marked for basic proxies.
    pub region: Vec<bool>,
    /// Chains of clients (served last first) carried by `ProxyData` messages, by slab index.
    pub chains: Vec<Vec<u16>>,
    pub free_chains: Vec<u32>,
}

impl Proxies {
    pub(super) fn new(mode: ProxyMode, n: usize, clusters: usize, region: Vec<bool>) -> Proxies {
        Proxies { mode, n, clusters, region, chains: Vec::new(), free_chains: Vec::new() }
    }

    /// The proxy of `line` for `node`: a node of `node`'s cluster chosen by the line.
    pub(super) fn proxy_of(&self, line: u32, node: usize) -> usize {
        let (n, k) = (self.n, self.clusters);
        let c = (0..k).find(|&c| node < (c + 1) * n / k).unwrap_or(k - 1);
        let (lo, hi) = (c * n / k, (c + 1) * n / k);
        lo + line as usize % (hi - lo)
    }

    /// Stores a chain of clients, returning its index.
    pub(super) fn new_chain(&mut self, chain: &[u16]) -> u32 {
        match self.free_chains.pop() {
            Some(id) => {
                self.chains[id as usize] = chain.to_vec();
                id
            }
            None => {
                self.chains.push(chain.to_vec());
                (self.chains.len() - 1) as u32
            }
        }
    }
}
