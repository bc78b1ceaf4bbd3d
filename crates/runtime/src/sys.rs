//! The system-call layer: everything the runtime asks of the kernel, behind one trait, so that
//! the policy glue, the page mover and the C API can be unit-tested on any machine against
//! [`FakeSys`], and run for real through [`LinuxSys`].
//!
//! Node numbers here are *dense* indices `0..nodes` (the model's numbering); [`Topology`] maps
//! them to Linux node ids (which may be sparse) at this boundary only.

use numaplace_model::topology::{parse_cpulist, parse_meminfo_total_kb, sysfs_node_ids};
use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;

/// A failed system call: the call's name and `errno`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SysError {
    pub call: &'static str,
    pub errno: i32,
}

impl std::fmt::Display for SysError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} failed: {} (errno {})", self.call, std::io::Error::from_raw_os_error(self.errno), self.errno)
    }
}

/// The host's NUMA layout as the runtime uses it.
#[derive(Clone, Debug, PartialEq)]
pub struct Topology {
    /// Linux node id of each dense node index.
    pub linux_ids: Vec<i32>,
    /// CPUs of each node.
    pub cpus: Vec<Vec<usize>>,
    /// Memory of each node, bytes.
    pub mem_bytes: Vec<u64>,
    /// SLIT distances, `[i][j]`, 10 = local.
    pub distance: Vec<Vec<u32>>,
    /// The kernel's memory tier of each node (`/sys/devices/virtual/memory_tiering/
    /// memory_tierN/nodelist`: N, the lower the faster), `None` where it lists none (a node
    /// without memory, or a kernel without memory tiers): empty when nothing was read.
    pub tiers: Vec<Option<u32>>,
}

impl Topology {
    /// One node holding every CPU: a kernel without NUMA support.
    pub fn single(cpus: usize, mem_bytes: u64) -> Self {
        Topology { linux_ids: vec![0], cpus: vec![(0..cpus.max(1)).collect()], mem_bytes: vec![mem_bytes], distance: vec![vec![10]], tiers: Vec::new() }
    }

    /// One node holding every CPU and all the physical memory: a kernel without NUMA support
    /// (no sysfs node directory). The memory is counted because a machine needs some.
    fn whole_host() -> Self {
        let cpus = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
        // SAFETY: sysconf only reads system configuration; -1 (unknown) is handled below.
        let (pages, size) = unsafe { (libc::sysconf(libc::_SC_PHYS_PAGES), libc::sysconf(libc::_SC_PAGESIZE)) };
        // Unknown (sysconf failed): any positive size serves, since the runtime tracks no
        // capacity (the mover falls back when a node is full); only a node with none is refused.
        let bytes = if pages > 0 && size > 0 { pages as u64 * size as u64 } else { 1 << 30 };
        Topology::single(cpus, bytes)
    }

    pub fn nodes(&self) -> usize {
        self.linux_ids.len()
    }

    /// Dense node index of each CPU number (`None` for CPUs no node lists).
    pub fn cpu_nodes(&self) -> Vec<Option<u8>> {
        let max = self.cpus.iter().flatten().copied().max().unwrap_or(0);
        let mut out = vec![None; max + 1];
        for (n, cpus) in self.cpus.iter().enumerate() {
            for &c in cpus {
                out[c] = Some(n as u8);
            }
        }
        out
    }

    /// Dense index of a Linux node id.
    pub fn dense(&self, linux: i32) -> Option<usize> {
        self.linux_ids.iter().position(|&id| id == linux)
    }

    /// Reads `/sys/devices/system/node`-style directory `root`; a missing directory means a
    /// kernel without NUMA: one node.
    ///
    /// # Errors
    /// A node directory whose files cannot be read or parsed (message names the file).
    pub fn from_sysfs(root: &Path) -> Result<Topology, String> {
        let Ok(entries) = std::fs::read_dir(root) else {
            return Ok(Topology::whole_host());
        };
        let ids: Vec<i32> = sysfs_node_ids(entries.filter_map(|e| e.ok()?.file_name().into_string().ok())).into_iter().map(|i| i as i32).collect();
        if ids.is_empty() {
            return Ok(Topology::whole_host());
        }
        let read = |p: &Path| std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()));
        let mut t = Topology { linux_ids: ids.clone(), cpus: Vec::new(), mem_bytes: Vec::new(), distance: Vec::new(), tiers: Vec::new() };
        for id in &ids {
            let dir = root.join(format!("node{id}"));
            let p = dir.join("cpulist");
            let cpus = parse_cpulist(&read(&p)?).ok_or_else(|| format!("{}: not a CPU list", p.display()))?;
            t.cpus.push(cpus);
            let p = dir.join("meminfo");
            let kb = parse_meminfo_total_kb(&read(&p)?)
                .ok_or_else(|| format!("{}: no MemTotal line", p.display()))?;
            t.mem_bytes.push(kb * 1024);
            let p = dir.join("distance");
            let row: Option<Vec<u32>> = read(&p)?.split_whitespace().map(|v| v.parse().ok()).collect();
            let row = row.filter(|r| r.len() == ids.len()).ok_or_else(|| format!("{}: expected {} distances", p.display(), ids.len()))?;
            t.distance.push(row);
        }
        // /sys/devices/system/node -> /sys/devices/virtual/memory_tiering (Linux 6.1+).
        if let Some(dir) = root.parent().and_then(Path::parent).map(|d| d.join("virtual/memory_tiering")) {
            t.tiers = crate::lowmem::read_memory_tiers(&dir, &ids)?;
        }
        Ok(t)
    }
}

/// A memory policy for [`Sys::mbind`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MemPolicy {
    /// `MPOL_DEFAULT`: allocate on the faulting CPU's node (first touch).
    Default,
    /// `MPOL_BIND` to one dense node, moving pages already there (`MPOL_MF_MOVE`).
    Bind(usize),
}

/// What the runtime asks of the kernel. Addresses are page-aligned.
pub trait Sys: Send + Sync {
    fn page_size(&self) -> usize;
    fn topology(&self) -> &Topology;
    /// `move_pages(2)` on the calling process. `targets` = `None` queries. `status[i]` receives
    /// the page's dense node, or a negative errno (`-ENOENT`: not present; `-EBUSY`; `-ENOMEM`:
    /// target full; ...).
    ///
    /// # Errors
    /// The call as a whole failed (e.g. `EPERM`, `ENODEV`, `EINVAL`).
    fn move_pages(&self, pages: &[usize], targets: Option<&[usize]>, status: &mut [i32]) -> Result<(), SysError>;
    /// `mbind(2)` over `[addr, addr+len)`.
    ///
    /// # Errors
    /// The call failed.
    fn mbind(&self, addr: usize, len: usize, policy: &MemPolicy) -> Result<(), SysError>;
    /// Makes every page of `[addr, addr+len)` present (without changing its contents), so that
    /// it can be moved.
    fn touch(&self, addr: usize, len: usize);
    /// Dense node of the CPU the caller runs on.
    fn current_node(&self) -> usize;
    /// Asks for base pages in `[addr, addr+len)` (`MADV_NOHUGEPAGE`): placement is decided
    /// page by page, and a transparent huge page would move 512 of them as one.
    fn base_pages(&self, _addr: usize, _len: usize) {}
    /// Free memory of each node now, pages (`nodeN/meminfo`'s `MemFree`); `None` where the
    /// kernel does not say.
    fn free_pages(&self) -> Option<Vec<u64>> {
        None
    }
    /// Each node's free-memory watermarks, pages (`/proc/zoneinfo`'s min/low/high, summed
    /// over the node's zones); `None` where the kernel does not say.
    fn watermarks(&self) -> Option<Vec<numaplace_model::watermarks::Watermarks>> {
        None
    }
}

/// The real kernel.
pub struct LinuxSys {
    page_size: usize,
    topo: Topology,
    cpu_nodes: Vec<Option<u8>>,
}

impl LinuxSys {
    /// Reads the topology from sysfs.
    ///
    /// # Errors
    /// Unreadable node files.
    pub fn new() -> Result<Self, String> {
        let topo = Topology::from_sysfs(Path::new("/sys/devices/system/node"))?;
        // SAFETY: sysconf has no preconditions.
        let ps = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        let cpu_nodes = topo.cpu_nodes();
        Ok(LinuxSys { page_size: if ps > 0 { ps as usize } else { 4096 }, topo, cpu_nodes })
    }
}

fn errno() -> i32 {
    std::io::Error::last_os_error().raw_os_error().unwrap_or(0)
}

/// Dense node of the calling CPU, async-signal-safe (one `getcpu` system call).
pub fn getcpu_node(cpu_nodes: &[Option<u8>]) -> usize {
    let mut cpu: libc::c_uint = 0;
    // SAFETY: getcpu writes one unsigned int; the other arguments may be null.
    let rc = unsafe { libc::syscall(libc::SYS_getcpu, &mut cpu as *mut libc::c_uint, std::ptr::null_mut::<libc::c_uint>(), std::ptr::null_mut::<libc::c_void>()) };
    if rc != 0 {
        return 0;
    }
    cpu_nodes.get(cpu as usize).copied().flatten().unwrap_or(0) as usize
}

const MPOL_DEFAULT: libc::c_int = 0;
const MPOL_BIND: libc::c_int = 2;
const MPOL_MF_MOVE: libc::c_uint = 1 << 1;

impl Sys for LinuxSys {
    fn page_size(&self) -> usize {
        self.page_size
    }

    fn topology(&self) -> &Topology {
        &self.topo
    }

    fn move_pages(&self, pages: &[usize], targets: Option<&[usize]>, status: &mut [i32]) -> Result<(), SysError> {
        assert_eq!(pages.len(), status.len());
        let ptrs: Vec<*mut libc::c_void> = pages.iter().map(|&p| p as *mut libc::c_void).collect();
        let nodes: Option<Vec<libc::c_int>> = targets.map(|t| t.iter().map(|&n| self.topo.linux_ids[n]).collect());
        let flags: libc::c_int = MPOL_MF_MOVE as libc::c_int;
        // SAFETY: pid 0 is the calling process; the arrays have `pages.len()` elements; the
        // kernel only reads `ptrs`/`nodes` and writes `status`.
        let rc = unsafe {
            libc::syscall(
                libc::SYS_move_pages,
                0 as libc::c_int,
                ptrs.len() as libc::c_ulong,
                ptrs.as_ptr(),
                nodes.as_ref().map_or(std::ptr::null(), |n| n.as_ptr()),
                status.as_mut_ptr(),
                flags,
            )
        };
        if rc < 0 {
            return Err(SysError { call: "move_pages", errno: errno() });
        }
        for s in status.iter_mut() {
            if *s >= 0 {
                *s = self.topo.dense(*s).map_or(-libc::EINVAL, |d| d as i32);
            }
        }
        Ok(())
    }

    fn mbind(&self, addr: usize, len: usize, policy: &MemPolicy) -> Result<(), SysError> {
        let (mode, mask, flags): (libc::c_int, u64, libc::c_uint) = match policy {
            MemPolicy::Default => (MPOL_DEFAULT, 0, 0),
            MemPolicy::Bind(n) => (MPOL_BIND, 1u64 << self.topo.linux_ids[*n], MPOL_MF_MOVE),
        };
        let maxnode: libc::c_ulong = if mask == 0 { 0 } else { 65 };
        // SAFETY: mbind reads one word of node mask (maxnode <= 64 bits + 1) and changes only
        // the memory policy of the given range of this process.
        let rc = unsafe {
            libc::syscall(
                libc::SYS_mbind,
                addr as *mut libc::c_void,
                len as libc::c_ulong,
                mode,
                if mask == 0 { std::ptr::null() } else { &mask as *const u64 },
                maxnode,
                flags,
            )
        };
        if rc < 0 {
            return Err(SysError { call: "mbind", errno: errno() });
        }
        Ok(())
    }

    fn touch(&self, addr: usize, len: usize) {
        let mut a = addr;
        while a < addr + len {
            // SAFETY: the caller passes memory of a registered region it owns. An atomic add
            // of zero writes the byte without changing it, also against concurrent writers,
            // which makes an untouched page present.
            unsafe { (*(a as *const std::sync::atomic::AtomicU8)).fetch_add(0, std::sync::atomic::Ordering::Relaxed) };
            a += self.page_size;
        }
    }

    fn current_node(&self) -> usize {
        getcpu_node(&self.cpu_nodes)
    }

    fn base_pages(&self, addr: usize, len: usize) {
        // SAFETY: advice only; fails harmlessly on kernels without THP.
        unsafe { libc::madvise(addr as *mut libc::c_void, len, libc::MADV_NOHUGEPAGE) };
    }

    fn free_pages(&self) -> Option<Vec<u64>> {
        let root = Path::new("/sys/devices/system/node");
        self.topo
            .linux_ids
            .iter()
            .map(|id| {
                let text = std::fs::read_to_string(root.join(format!("node{id}/meminfo"))).ok()?;
                Some(crate::lowmem::parse_meminfo_free_kb(&text)? * 1024 / self.page_size as u64)
            })
            .collect()
    }

    fn watermarks(&self) -> Option<Vec<numaplace_model::watermarks::Watermarks>> {
        let text = std::fs::read_to_string("/proc/zoneinfo").ok()?;
        crate::lowmem::parse_zoneinfo(&text, &self.topo.linux_ids)
    }
}

/// An in-memory kernel for unit tests: pages are addresses mapped to nodes, nodes have a
/// capacity in pages, and failures can be injected.
pub struct FakeSys {
    pub topo: Topology,
    pub state: Mutex<FakeState>,
}

#[derive(Default)]
pub struct FakeState {
    /// Present pages and their node.
    pub pages: HashMap<usize, usize>,
    /// Pages each node can still take.
    pub free: Vec<u64>,
    /// Pages that answer `-EBUSY` this many more times.
    pub busy: HashMap<usize, u32>,
    /// If set, every `move_pages` call fails with this errno.
    pub fail_all: Option<i32>,
    /// If set, a call that would put a page on a full node fails as a whole with `ENOMEM`
    /// (what Linux does), instead of answering `-ENOMEM` for the page.
    pub whole_call_enomem: bool,
    /// Node reported by `current_node`.
    pub current: usize,
    /// Every mbind call.
    pub mbinds: Vec<(usize, usize, MemPolicy)>,
    /// What [`Sys::watermarks`] answers (`None`: the kernel does not say).
    pub watermarks: Option<Vec<numaplace_model::watermarks::Watermarks>>,
    pub calls: u64,
}

impl FakeSys {
    pub fn new(nodes: usize, pages_per_node: u64) -> Self {
        let distance = (0..nodes).map(|i| (0..nodes).map(|j| if i == j { 10 } else { 20 + i.abs_diff(j) as u32 }).collect()).collect();
        let topo = Topology {
            linux_ids: (0..nodes as i32).collect(),
            cpus: (0..nodes).map(|n| vec![n]).collect(),
            mem_bytes: vec![pages_per_node * 4096; nodes],
            distance,
            tiers: Vec::new(),
        };
        FakeSys { topo, state: Mutex::new(FakeState { free: vec![pages_per_node; nodes], ..FakeState::default() }) }
    }

    pub fn node_of(&self, page: usize) -> Option<usize> {
        self.state.lock().unwrap().pages.get(&page).copied()
    }
}

impl Sys for FakeSys {
    fn page_size(&self) -> usize {
        4096
    }

    fn free_pages(&self) -> Option<Vec<u64>> {
        Some(self.state.lock().unwrap().free.clone())
    }

    fn watermarks(&self) -> Option<Vec<numaplace_model::watermarks::Watermarks>> {
        self.state.lock().unwrap().watermarks.clone()
    }

    fn topology(&self) -> &Topology {
        &self.topo
    }

    fn move_pages(&self, pages: &[usize], targets: Option<&[usize]>, status: &mut [i32]) -> Result<(), SysError> {
        let mut st = self.state.lock().unwrap();
        st.calls += 1;
        if let Some(e) = st.fail_all {
            return Err(SysError { call: "move_pages", errno: e });
        }
        for (i, &p) in pages.iter().enumerate() {
            let Some(&cur) = st.pages.get(&p) else {
                status[i] = -libc::ENOENT;
                continue;
            };
            let Some(t) = targets else {
                status[i] = cur as i32;
                continue;
            };
            let to = t[i];
            if to >= self.topo.nodes() {
                return Err(SysError { call: "move_pages", errno: libc::ENODEV });
            }
            if let Some(n) = st.busy.get_mut(&p) {
                if *n > 0 {
                    *n -= 1;
                    status[i] = -libc::EBUSY;
                    continue;
                }
            }
            if to != cur {
                if st.free[to] == 0 {
                    if st.whole_call_enomem {
                        return Err(SysError { call: "move_pages", errno: libc::ENOMEM });
                    }
                    status[i] = -libc::ENOMEM;
                    continue;
                }
                st.free[to] -= 1;
                st.free[cur] += 1;
                st.pages.insert(p, to);
            }
            status[i] = to as i32;
        }
        Ok(())
    }

    fn mbind(&self, addr: usize, len: usize, policy: &MemPolicy) -> Result<(), SysError> {
        let mut st = self.state.lock().unwrap();
        st.mbinds.push((addr, len, policy.clone()));
        if let MemPolicy::Bind(n) = *policy {
            let pages: Vec<usize> = st.pages.keys().copied().filter(|&p| p >= addr && p < addr + len).collect();
            for p in pages {
                let cur = st.pages[&p];
                st.free[cur] += 1;
                st.free[n] -= 1;
                st.pages.insert(p, n);
            }
        }
        Ok(())
    }

    fn touch(&self, addr: usize, len: usize) {
        let mut st = self.state.lock().unwrap();
        let node = st.current;
        let mut a = addr;
        while a < addr + len {
            if let std::collections::hash_map::Entry::Vacant(e) = st.pages.entry(a) {
                e.insert(node);
                st.free[node] = st.free[node].saturating_sub(1);
            }
            a += 4096;
        }
    }

    fn current_node(&self) -> usize {
        self.state.lock().unwrap().current
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sysfs_topology_reads_nodes_and_a_missing_directory_means_one_node() {
        // A private directory, removed when `scratch` is dropped.
        let scratch = numaplace_outfile::TempDir::new("np-rt-sysfs").unwrap();
        let dir = scratch.join("d");
        for (id, cpus, dist) in [(0, "0-1", "10 21"), (2, "2-3", "21 10")] {
            let d = dir.join(format!("node{id}"));
            std::fs::create_dir_all(&d).unwrap();
            std::fs::write(d.join("cpulist"), cpus).unwrap();
            std::fs::write(d.join("meminfo"), format!("Node {id} MemTotal:       262144 kB\n")).unwrap();
            std::fs::write(d.join("distance"), dist).unwrap();
        }
        let t = Topology::from_sysfs(&dir).unwrap();
        assert_eq!(t.linux_ids, vec![0, 2]);
        assert_eq!(t.cpus, vec![vec![0, 1], vec![2, 3]]);
        assert_eq!(t.mem_bytes, vec![256 << 20, 256 << 20]);
        assert_eq!(t.dense(2), Some(1));
        assert_eq!(t.cpu_nodes(), vec![Some(0), Some(0), Some(1), Some(1)]);
        std::fs::write(dir.join("node2/distance"), "21").unwrap();
        assert!(Topology::from_sysfs(&dir).unwrap_err().contains("node2/distance"));
        std::fs::remove_dir_all(&dir).unwrap();
        let single = Topology::from_sysfs(&dir).unwrap();
        assert_eq!(single.nodes(), 1);
        assert!(single.mem_bytes[0] > 0, "a kernel without NUMA: one node with the host's memory");
    }

    #[test]
    fn fake_move_pages_reports_per_page_status() {
        let s = FakeSys::new(2, 1);
        s.touch(0x1000, 0x2000); // two pages on node 0; node 0 was 1 page, saturates
        let mut st = [0; 3];
        s.move_pages(&[0x1000, 0x2000, 0x9000], Some(&[1, 1, 1]), &mut st).unwrap();
        assert_eq!(st, [1, -libc::ENOMEM, -libc::ENOENT]);
        s.state.lock().unwrap().fail_all = Some(libc::EPERM);
        let e = s.move_pages(&[0x1000], None, &mut st[..1]).unwrap_err();
        assert!(e.to_string().starts_with("move_pages failed: Operation not permitted"), "{e}");
    }
}
