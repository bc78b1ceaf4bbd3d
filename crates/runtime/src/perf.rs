//! Samples from the CPU's precise memory sampling, through `perf_event_open(2)`: Intel PEBS
//! load-latency sampling (`cpu/mem-loads/`), the counterpart of seed 003's bus-analyser
//! samples (each names a data address and the CPU that issued the access).
//!
//! One event per CPU for this process (`pid` 0, `inherit`, so threads created later are
//! covered), each with a ring buffer; the runtime's timer thread drains the rings into the
//! same per-page, per-node sample counts the hinting faults fill ([`crate::space`]), so the
//! policies cannot tell the sources apart. No page is protected in this mode.
//!
//! `inherit` also covers processes forked later, and their samples arrive in this process's
//! rings, naming addresses of the child's copy of the memory: a drain counts only records of
//! its own process. A forked child's first drain opens the child's own events in place of
//! the parent's it inherited.
//!
//! AMD IBS op sampling (`ibs_op//`) is the source on AMD processors: it tags one
//! micro-op in [`IBS_PERIOD`], and a tagged load or store reports its data address in the
//! sample's raw IBS registers (`IbsOpData3`'s linear-address-valid bit, then `IbsDcLinAd`;
//! the layout of arch/x86/events/amd/ibs.c: a `u32` of capabilities, then the registers
//! from `IbsOpCtl` on). Kernels that attach IBS only to CPUs, not to processes, get CPU-wide
//! events (which need `perf_event_paranoid` ≤ 0 or `CAP_PERFMON`), and the pid filter keeps
//! this process's samples.

use crate::space::SPACE;
use std::path::Path;

const PERF_SAMPLE_TID: u64 = 1 << 1;
const PERF_SAMPLE_ADDR: u64 = 1 << 3;
const PERF_SAMPLE_CPU: u64 = 1 << 7;
const PERF_SAMPLE_RAW: u64 = 1 << 10;
const PERF_RECORD_SAMPLE: u32 = 9;
/// PEBS: sample one load in this many (of those above the latency threshold).
pub const PERIOD: u64 = 1000;
/// IBS: tag one micro-op in this many (a multiple of 16, as IBS requires; about 10 000
/// samples a second on a core retiring 3·10⁹ ops, a third of them loads or stores).
pub const IBS_PERIOD: u64 = 1 << 18;
/// `IbsOpData3`: load, store, and data linear address valid (AMD PPR, MSRC001_1037).
const IBS_LD_OP: u64 = 1 << 0;
const IBS_ST_OP: u64 = 1 << 1;
const IBS_LIN_ADDR_VALID: u64 = 1 << 17;
/// Registers in the raw record, after its `u32` of capabilities: `IbsOpCtl` (0), `IbsOpRip`,
/// `IbsOpData`, `IbsOpData2`, `IbsOpData3` (4), `IbsDcLinAd` (5), `IbsDcPhysAd`.
const IBS_DATA3: u64 = 4;
const IBS_LINAD: u64 = 5;
/// Data pages per ring (a power of two).
const RING_PAGES: usize = 64;

/// `struct perf_event_attr` up to `PERF_ATTR_SIZE_VER5` (112 bytes).
#[repr(C)]
#[derive(Default)]
struct Attr {
    kind: u32,
    size: u32,
    config: u64,
    sample_period: u64,
    sample_type: u64,
    read_format: u64,
    /// disabled:1, inherit:1, pinned:1, exclusive:1, exclude_user:1, exclude_kernel:1,
    /// exclude_hv:1, exclude_idle:1, mmap:1, comm:1, freq:1, inherit_stat:1,
    /// enable_on_exec:1, task:1, watermark:1, precise_ip:2, ...
    flags: u64,
    wakeup_events: u32,
    bp_type: u32,
    config1: u64,
    config2: u64,
    branch_sample_type: u64,
    sample_regs_user: u64,
    sample_stack_user: u32,
    clockid: i32,
    sample_regs_intr: u64,
    aux_watermark: u32,
    sample_max_stack: u16,
    reserved: u16,
}

const FLAG_INHERIT: u64 = 1 << 1;
const FLAG_EXCLUDE_KERNEL: u64 = 1 << 5;
const FLAG_EXCLUDE_HV: u64 = 1 << 6;
const PRECISE_IP_SHIFT: u32 = 15;

/// The sampling hardware, which decides how a sample's data address is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hardware {
    /// Intel PEBS load sampling: the address is the sample's `addr`.
    Pebs,
    /// AMD IBS op sampling: the address comes from the raw IBS registers.
    Ibs,
}

/// An event to open on every CPU: the PMU's event and how it samples.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventSpec {
    pub hardware: Hardware,
    pub event: PmuEvent,
    pub config2: u64,
    pub period: u64,
    pub sample_type: u64,
    /// `perf_event_attr` flags other than `inherit` (set for per-process events).
    pub flags: u64,
}

/// Intel PEBS: `cpu/mem-loads/`, placed by the PMU's `format/` files.
///
/// # Errors
/// A missing or unparsable sysfs file (the message names it).
pub fn pebs_spec(dir: &Path) -> Result<EventSpec, String> {
    Ok(EventSpec {
        hardware: Hardware::Pebs,
        event: pmu_event(dir, "mem-loads")?,
        config2: 0,
        period: PERIOD,
        sample_type: PERF_SAMPLE_TID | PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU,
        flags: FLAG_EXCLUDE_KERNEL | FLAG_EXCLUDE_HV | (2 << PRECISE_IP_SHIFT),
    })
}

/// AMD IBS op sampling from the `ibs_op` PMU in `dir`: counting dispatched ops where the
/// PMU offers it (`format/cnt_ctl`, else cycles), and excluding the kernel only where the
/// kernel filters IBS samples itself (`format/swfilt`; older kernels refuse `exclude_*` on
/// IBS, and its kernel samples name no managed page anyway).
///
/// # Errors
/// A missing or unparsable sysfs file (the message names it).
pub fn ibs_spec(dir: &Path) -> Result<EventSpec, String> {
    let pmu_type = pmu_type(dir)?;
    let config = optional_bit(dir, "cnt_ctl", "config")?;
    let config2 = optional_bit(dir, "swfilt", "config2")?;
    let flags = if config2 != 0 { FLAG_EXCLUDE_KERNEL | FLAG_EXCLUDE_HV } else { 0 };
    Ok(EventSpec {
        hardware: Hardware::Ibs,
        event: PmuEvent { pmu_type, config, config1: 0, name: "ibs_op//".into() },
        config2,
        period: IBS_PERIOD,
        sample_type: PERF_SAMPLE_TID | PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU | PERF_SAMPLE_RAW,
        flags,
    })
}

/// The mask of a one-bit format term (`format/cnt_ctl` = `config:19`) that must lie in
/// config word `word`; 0 where the PMU does not offer the term.
fn optional_bit(dir: &Path, term: &str, word: &str) -> Result<u64, String> {
    let path = dir.join("format").join(term);
    if !path.exists() {
        return Ok(0);
    }
    let text = sysfs_text(&path)?;
    let (field, bit) = text.split_once(':').ok_or_else(|| format!("{}: '{text}'", path.display()))?;
    let bit: u32 = bit.parse().ok().filter(|&b| b < 64).ok_or_else(|| format!("{}: '{text}' is not one bit", path.display()))?;
    if field != word {
        return Err(format!("{}: field '{field}' not supported", path.display()));
    }
    Ok(1 << bit)
}

/// A sysfs file's text, trimmed; the error names the file.
fn sysfs_text(p: &Path) -> Result<String, String> {
    std::fs::read_to_string(p).map(|s| s.trim().to_string()).map_err(|e| format!("{}: {e}", p.display()))
}

/// The perf type number of the PMU in `dir`.
fn pmu_type(dir: &Path) -> Result<u32, String> {
    sysfs_text(&dir.join("type"))?.parse().map_err(|_| format!("{}/type: not a number", dir.display()))
}

/// A PMU event as sysfs describes it: the PMU's type and the event's config words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PmuEvent {
    pub pmu_type: u32,
    pub config: u64,
    pub config1: u64,
    pub name: String,
}

/// Reads `event=0xcd,umask=0x1,ldlat=3`-style event `event` of the PMU in `dir`
/// (`/sys/bus/event_source/devices/cpu`), placing each term by the PMU's `format/` files
/// (`config:0-7`, `config1:0-15`, ...).
///
/// # Errors
/// A missing or unparsable file (the message names it).
pub fn pmu_event(dir: &Path, event: &str) -> Result<PmuEvent, String> {
    let pmu_type = pmu_type(dir)?;
    let text = sysfs_text(&dir.join("events").join(event))?;
    let (mut config, mut config1) = (0u64, 0u64);
    for term in text.split(',') {
        let (k, v) = term.split_once('=').unwrap_or((term, "1"));
        let v = v.trim();
        let v = if let Some(h) = v.strip_prefix("0x") { u64::from_str_radix(h, 16) } else { v.parse() };
        let v = v.map_err(|_| format!("{}/events/{event}: bad term '{term}'", dir.display()))?;
        let format = sysfs_text(&dir.join("format").join(k.trim()))?;
        let (word, bits) = format.split_once(':').ok_or_else(|| format!("{}/format/{k}: '{format}'", dir.display()))?;
        let lo: u32 = bits.split('-').next().and_then(|b| b.parse().ok()).ok_or_else(|| format!("{}/format/{k}: '{format}'", dir.display()))?;
        match word {
            "config" => config |= v << lo,
            "config1" => config1 |= v << lo,
            _ => return Err(format!("{}/format/{k}: field '{word}' not supported", dir.display())),
        }
    }
    Ok(PmuEvent { pmu_type, config, config1, name: format!("{}/{event}/", dir.file_name().and_then(|n| n.to_str()).unwrap_or("cpu")) })
}

/// One CPU's event and ring.
struct Ring {
    fd: i32,
    base: *mut u8,
    len: usize,
    node: usize,
}

/// Open events on every CPU.
pub struct Perf {
    rings: Vec<Ring>,
    pub event: String,
    hardware: Hardware,
    /// Whether the events are CPU-wide (IBS on kernels that do not attach it to a process).
    cpu_wide: bool,
    period: u64,
    /// The process the events were opened for, and its CPUs (to open them again in a child).
    pid: u32,
    cpus: Vec<(usize, usize)>,
    /// Why a forked child could not open its own events (it then has no samples).
    pub lost: Option<String>,
    /// Each sample that named a managed page, kept for a policy that reads address samples
    /// (`Observes::AddressSamples`) when `Some`: (slot, page in the region, node of the
    /// sampling CPU, whether a store), at most [`MAX_KEPT`] between two takes.
    pub addresses: Option<Vec<Addressed>>,
    /// Samples not kept because [`Perf::addresses`] was full.
    pub addresses_dropped: u64,
}

/// A sample kept for an address-sampling policy: slot, page in the region, node of the
/// sampling CPU, whether a store.
pub type Addressed = (usize, usize, usize, bool);

/// Samples kept between two takes (a policy's ticks), at most: 16 MiB of them.
pub(crate) const MAX_KEPT: usize = 1 << 20;

// SAFETY: the rings are mapped for the process's lifetime and only read under the runtime lock.
unsafe impl Send for Perf {}

impl Drop for Ring {
    fn drop(&mut self) {
        // SAFETY: our own mapping and descriptor (in a forked child, the child's copies).
        unsafe {
            libc::munmap(self.base as *mut libc::c_void, self.len);
            libc::close(self.fd);
        }
    }
}

impl Perf {
    /// Opens memory sampling on each of `cpus` (with their dense nodes) for this process:
    /// PEBS where the CPU has `mem-loads`, else IBS op sampling where there is an `ibs_op` PMU.
    ///
    /// # Errors
    /// Why precise memory sampling is not available (one line).
    pub fn open(cpus: &[(usize, usize)]) -> Result<Perf, String> {
        let devices = Path::new("/sys/bus/event_source/devices");
        let spec = if devices.join("cpu/events/mem-loads").exists() {
            pebs_spec(&devices.join("cpu"))?
        } else if devices.join("ibs_op").exists() {
            ibs_spec(&devices.join("ibs_op"))?
        } else {
            return Err("perf_event: this CPU exposes no precise memory sampling (no PEBS mem-loads event, no AMD IBS op PMU)".into());
        };
        match Perf::open_spec(&spec, cpus, false) {
            // A kernel that attaches IBS only to CPUs refuses a per-process event.
            Err((errno, _)) if spec.hardware == Hardware::Ibs && [libc::EINVAL, libc::EOPNOTSUPP, libc::ENOENT].contains(&errno) => {
                Perf::open_spec(&spec, cpus, true).map_err(|(errno, why)| {
                    if errno == libc::EACCES || errno == libc::EPERM {
                        format!("{why} (this kernel attaches IBS to CPUs only; CPU-wide events need perf_event_paranoid ≤ 0 or CAP_PERFMON)")
                    } else {
                        why
                    }
                })
            }
            r => r.map_err(|(_, why)| why),
        }
    }

    /// Opens `spec` on every CPU, for this process (with `inherit`) or CPU-wide.
    fn open_spec(spec: &EventSpec, cpus: &[(usize, usize)], cpu_wide: bool) -> Result<Perf, (i32, String)> {
        let page = SPACE.page_size.load(std::sync::atomic::Ordering::Relaxed).max(4096);
        let ev = &spec.event;
        let mut rings = Vec::new();
        for &(cpu, node) in cpus {
            let attr = Attr {
                kind: ev.pmu_type,
                size: std::mem::size_of::<Attr>() as u32,
                config: ev.config,
                config1: ev.config1,
                config2: spec.config2,
                sample_period: spec.period,
                sample_type: spec.sample_type,
                flags: spec.flags | if cpu_wide { 0 } else { FLAG_INHERIT },
                ..Attr::default()
            };
            let pid: i32 = if cpu_wide { -1 } else { 0 };
            // SAFETY: a valid attr of the size it declares; pid 0 = this process, -1 = every
            // process on the CPU.
            let fd = unsafe { libc::syscall(libc::SYS_perf_event_open, &attr as *const Attr, pid, cpu as i32, -1, 0u64) } as i32;
            if fd < 0 {
                let e = std::io::Error::last_os_error();
                let scope = if cpu_wide { "CPU-wide " } else { "" };
                return Err((e.raw_os_error().unwrap_or(0), format!("perf_event: opening {} {scope}on CPU {cpu} failed: {e}", ev.name)));
            }
            let len = page * (1 + RING_PAGES);
            // SAFETY: maps the event's ring buffer, as perf_event_open(2) describes.
            let base = unsafe { libc::mmap(std::ptr::null_mut(), len, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_SHARED, fd, 0) };
            if base == libc::MAP_FAILED {
                let e = std::io::Error::last_os_error();
                // SAFETY: our descriptor.
                unsafe { libc::close(fd) };
                return Err((e.raw_os_error().unwrap_or(0), format!("perf_event: mapping the ring of CPU {cpu} failed: {e}")));
            }
            rings.push(Ring { fd, base: base as *mut u8, len, node });
        }
        Ok(Perf {
            rings,
            event: ev.name.clone(),
            hardware: spec.hardware,
            cpu_wide,
            period: spec.period,
            pid: std::process::id(),
            cpus: cpus.to_vec(),
            lost: None,
            addresses: None,
            addresses_dropped: 0,
        })
    }

    /// A source with no events, whose kept samples a test fills itself.
    #[cfg(test)]
    pub(crate) fn without_events() -> Perf {
        Perf { rings: Vec::new(), event: "test".into(), hardware: Hardware::Ibs, cpu_wide: false, period: 1, pid: std::process::id(), cpus: Vec::new(), lost: None, addresses: Some(Vec::new()), addresses_dropped: 0 }
    }

    /// What is sampled, for `--verbose` and the statistics.
    pub fn describe(&self) -> String {
        let what = match self.hardware {
            Hardware::Pebs => "load",
            Hardware::Ibs => "micro-op (its load or store)",
        };
        let scope = if self.cpu_wide { ", CPU-wide events filtered by pid" } else { "" };
        format!("{} on {} CPU(s), one {what} in {}{scope}", self.event, self.rings.len(), self.period)
    }

    /// Moves every pending sample of this process into the sample counts; returns how many
    /// named a managed page. In a forked child, first replaces the parent's events by the
    /// child's own (or, when they cannot be opened, by none, saying why in `lost`).
    pub fn drain(&mut self) -> u64 {
        let pid = std::process::id();
        if pid != self.pid {
            match Perf::open(&self.cpus) {
                Ok(mut own) => {
                    own.addresses = self.addresses.as_ref().map(|_| Vec::new());
                    *self = own;
                }
                Err(e) => {
                    self.rings.clear(); // the inherited copies: the parent's stay open
                    self.pid = pid;
                    self.lost = Some(format!("in forked process {pid}: {e}"));
                }
            }
        }
        let page = SPACE.page_size.load(std::sync::atomic::Ordering::Relaxed).max(4096);
        let mut n = 0;
        for r in &self.rings {
            // SAFETY: the control page holds data_head at 1024 and data_tail at 1032; the
            // data area follows the control page.
            unsafe {
                let head_p = r.base.add(1024) as *const u64;
                let tail_p = r.base.add(1032) as *mut u64;
                let head = std::ptr::read_volatile(head_p);
                std::sync::atomic::fence(std::sync::atomic::Ordering::Acquire);
                let tail = std::ptr::read_volatile(tail_p);
                let data = std::slice::from_raw_parts(r.base.add(page), r.len - page);
                let node = r.node;
                let (kept, dropped) = (&mut self.addresses, &mut self.addresses_dropped);
                parse_ring(data, tail, head, self.hardware, |from, addr, _cpu, write| {
                    if from != pid {
                        return; // a forked child's access, to its own copy of the page
                    }
                    if let Some((slot, p)) = SPACE.find(addr as usize) {
                        SPACE.inject(slot, p, node, 1);
                        n += 1;
                        match kept {
                            Some(k) if k.len() < MAX_KEPT => k.push((slot, p, node, write)),
                            Some(_) => *dropped += 1,
                            None => {}
                        }
                    }
                });
                std::sync::atomic::fence(std::sync::atomic::Ordering::Release);
                std::ptr::write_volatile(tail_p, head);
            }
        }
        n
    }
}

/// Calls `f(pid, addr, cpu, store)` for each sample record in `data` (a ring of power-of-two
/// length) between byte positions `tail` and `head` that names a data address. `store`: IBS
/// tagged a store (`IbsOpData3`'s store bit); PEBS's `mem-loads` samples loads only.
pub fn parse_ring(data: &[u8], tail: u64, head: u64, hardware: Hardware, mut f: impl FnMut(u32, u64, u32, bool)) {
    let size = data.len() as u64;
    let byte = |pos: u64| data[(pos % size) as usize];
    let read = |pos: u64, n: usize| -> u64 { (0..n).fold(0u64, |acc, k| acc | (byte(pos + k as u64) as u64) << (8 * k)) };
    let mut pos = tail;
    while pos + 8 <= head {
        let kind = read(pos, 4) as u32;
        let len = read(pos + 6, 2);
        if len < 8 || pos + len > head {
            break;
        }
        if kind == PERF_RECORD_SAMPLE && len >= 8 + 8 + 8 + 8 {
            // TID (pid, tid), ADDR, CPU (cpu, res), then for IBS RAW (u32 size, data): the
            // order of the sample_type bits.
            let pid = read(pos + 8, 4) as u32;
            let mut addr = read(pos + 16, 8);
            let cpu = read(pos + 24, 4) as u32;
            let mut store = false;
            if hardware == Hardware::Ibs {
                // Kernels since 6.1 also fill ADDR; the raw registers serve every kernel.
                let regs = pos + 32 + 4 + 4; // the raw size, then IBS's u32 of capabilities
                let raw_size = if len >= 36 { read(pos + 32, 4) } else { 0 };
                if raw_size >= 4 + 8 * (IBS_LINAD + 1) && regs + 8 * (IBS_LINAD + 1) <= pos + len {
                    let data3 = read(regs + 8 * IBS_DATA3, 8);
                    let memory = data3 & (IBS_LD_OP | IBS_ST_OP) != 0 && data3 & IBS_LIN_ADDR_VALID != 0;
                    addr = if memory { read(regs + 8 * IBS_LINAD, 8) } else { 0 };
                    store = data3 & IBS_ST_OP != 0;
                }
            }
            if addr != 0 {
                f(pid, addr, cpu, store);
            }
        }
        pos += len;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(pid: u32, addr: u64, cpu: u32) -> Vec<u8> {
        let mut r = Vec::new();
        r.extend(PERF_RECORD_SAMPLE.to_le_bytes());
        r.extend(0u16.to_le_bytes());
        r.extend(32u16.to_le_bytes());
        r.extend(pid.to_le_bytes());
        r.extend(8u32.to_le_bytes()); // tid
        r.extend(addr.to_le_bytes());
        r.extend(cpu.to_le_bytes());
        r.extend(0u32.to_le_bytes());
        r
    }

    #[test]
    fn ring_records_are_parsed_across_the_wrap_and_other_records_skipped() {
        let mut ring = vec![0u8; 128];
        // A 16-byte non-sample record (type 2, PERF_RECORD_LOST) at 100, then samples wrapping.
        let mut stream = Vec::new();
        stream.extend(2u32.to_le_bytes());
        stream.extend(0u16.to_le_bytes());
        stream.extend(16u16.to_le_bytes());
        stream.extend([0u8; 8]);
        stream.extend(sample(7, 0x7f00_1234, 3));
        stream.extend(sample(9, 0xdead_b000, 1));
        let start = 100u64;
        for (k, b) in stream.iter().enumerate() {
            ring[((start + k as u64) % 128) as usize] = *b;
        }
        let mut got = Vec::new();
        parse_ring(&ring, start, start + stream.len() as u64, Hardware::Pebs, |p, a, c, _| got.push((p, a, c)));
        assert_eq!(got, vec![(7, 0x7f00_1234, 3), (9, 0xdead_b000, 1)]);
        // A truncated record at the head is left for the next drain.
        got.clear();
        parse_ring(&ring, start, start + stream.len() as u64 - 4, Hardware::Pebs, |p, a, c, _| got.push((p, a, c)));
        assert_eq!(got, vec![(7, 0x7f00_1234, 3)]);
    }

    /// An IBS op sample as the kernel writes it: TID, ADDR, CPU, then RAW (a u32 size, IBS's
    /// u32 of capabilities and seven registers from IbsOpCtl).
    fn ibs_sample(pid: u32, addr: u64, data3: u64, linad: u64) -> Vec<u8> {
        let mut r = Vec::new();
        r.extend(PERF_RECORD_SAMPLE.to_le_bytes());
        r.extend(0u16.to_le_bytes());
        r.extend(96u16.to_le_bytes());
        r.extend(pid.to_le_bytes());
        r.extend(pid.to_le_bytes());
        r.extend(addr.to_le_bytes());
        r.extend(5u32.to_le_bytes()); // cpu
        r.extend(0u32.to_le_bytes());
        r.extend(60u32.to_le_bytes()); // raw size: caps + 7 registers
        r.extend(0x3ffu32.to_le_bytes()); // caps
        for reg in [0x1234u64, 0x40_1000, 0, 0, data3, linad, 0x9_9000] {
            r.extend(reg.to_le_bytes());
        }
        assert_eq!(r.len(), 96);
        r
    }

    #[test]
    fn ibs_records_give_the_data_address_of_loads_and_stores_only() {
        let mut stream = Vec::new();
        stream.extend(ibs_sample(7, 0, IBS_LD_OP | IBS_LIN_ADDR_VALID, 0x7f00_0040)); // a load, pre-6.1 kernel: no ADDR
        stream.extend(ibs_sample(7, 0x7f00_0080, IBS_ST_OP | IBS_LIN_ADDR_VALID, 0x7f00_0080)); // a store
        stream.extend(ibs_sample(7, 0, 0, 0x7f00_00c0)); // not a memory op
        stream.extend(ibs_sample(7, 0, IBS_LD_OP, 0x7f00_0100)); // a load without a valid address
        stream.extend(sample(9, 0xdead_b000, 1)); // a record without raw data: ADDR is used
        let mut ring = vec![0u8; 512];
        let start = 500u64; // wraps
        for (k, b) in stream.iter().enumerate() {
            ring[((start + k as u64) % 512) as usize] = *b;
        }
        let mut got = Vec::new();
        let mut stores = Vec::new();
        parse_ring(&ring, start, start + stream.len() as u64, Hardware::Ibs, |p, a, c, st| {
            got.push((p, a, c));
            stores.push(st);
        });
        assert_eq!(got, vec![(7, 0x7f00_0040, 5), (7, 0x7f00_0080, 5), (9, 0xdead_b000, 1)]);
        assert_eq!(stores, [false, true, false], "IBS says which op was a store");
        // The same records read as PEBS take ADDR as it is (zero: no address, skipped).
        got.clear();
        parse_ring(&ring, start, start + stream.len() as u64, Hardware::Pebs, |p, a, c, _| got.push((p, a, c)));
        assert_eq!(got, vec![(7, 0x7f00_0080, 5), (9, 0xdead_b000, 1)]);
    }

    #[test]
    fn ibs_events_count_ops_and_filter_the_kernel_where_the_pmu_says_it_can() {
        // A private directory, removed when `scratch` is dropped.
        let scratch = numaplace_outfile::TempDir::new("np-rt-ibs").unwrap();
        let dir = scratch.join("d");
        std::fs::create_dir_all(dir.join("format")).unwrap();
        std::fs::write(dir.join("type"), "11\n").unwrap();
        // An older kernel: no op counting, no software filter: cycles, no exclude flags.
        let old = ibs_spec(&dir).unwrap();
        assert_eq!((old.event.pmu_type, old.event.config, old.config2, old.flags), (11, 0, 0, 0));
        assert_eq!((old.hardware, old.period % 16, old.sample_type & PERF_SAMPLE_RAW), (Hardware::Ibs, 0, PERF_SAMPLE_RAW));
        std::fs::write(dir.join("format/cnt_ctl"), "config:19\n").unwrap();
        std::fs::write(dir.join("format/swfilt"), "config2:0\n").unwrap();
        let new = ibs_spec(&dir).unwrap();
        assert_eq!((new.event.config, new.config2, new.flags), (1 << 19, 1, FLAG_EXCLUDE_KERNEL | FLAG_EXCLUDE_HV));
        std::fs::write(dir.join("format/cnt_ctl"), "config:0-7\n").unwrap();
        assert!(ibs_spec(&dir).unwrap_err().ends_with("format/cnt_ctl: 'config:0-7' is not one bit"));
        std::fs::write(dir.join("format/cnt_ctl"), "config1:3\n").unwrap();
        assert!(ibs_spec(&dir).unwrap_err().ends_with("format/cnt_ctl: field 'config1' not supported"));
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(ibs_spec(&dir).unwrap_err().contains("type"));
    }

    #[test]
    fn pmu_events_are_placed_by_their_format_files() {
        // A private directory, removed when `scratch` is dropped.
        let scratch = numaplace_outfile::TempDir::new("np-rt-pmu").unwrap();
        let dir = scratch.join("d");
        std::fs::create_dir_all(dir.join("events")).unwrap();
        std::fs::create_dir_all(dir.join("format")).unwrap();
        std::fs::write(dir.join("type"), "4\n").unwrap();
        std::fs::write(dir.join("events/mem-loads"), "event=0xcd,umask=0x1,ldlat=3\n").unwrap();
        std::fs::write(dir.join("format/event"), "config:0-7\n").unwrap();
        std::fs::write(dir.join("format/umask"), "config:8-15\n").unwrap();
        std::fs::write(dir.join("format/ldlat"), "config1:0-15\n").unwrap();
        let e = pmu_event(&dir, "mem-loads").unwrap();
        assert_eq!((e.pmu_type, e.config, e.config1), (4, 0x1cd, 3));
        std::fs::write(dir.join("events/mem-loads"), "event=zz\n").unwrap();
        assert!(pmu_event(&dir, "mem-loads").unwrap_err().contains("bad term 'event=zz'"));
        assert!(pmu_event(&dir, "mem-stores").unwrap_err().contains("mem-stores"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[cfg(test)]
mod fuzz {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Any ring contents and positions: parsing never panics and only reports samples
        /// wholly between tail and head.
        #[test]
        fn arbitrary_rings_never_panic(data in proptest::collection::vec(any::<u8>(), 64..=64), tail in 0u64..200, len in 0u64..200, ibs in any::<bool>()) {
            let mut n = 0;
            parse_ring(&data, tail, tail + len, if ibs { Hardware::Ibs } else { Hardware::Pebs }, |_, _, _, _| n += 1);
            prop_assert!(n as u64 * 32 <= len);
        }
    }
}
