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
//! AMD IBS reports data addresses in raw records; this version recognises the PMU but does not
//! decode them, and says so.

use crate::space::SPACE;
use std::path::Path;

const PERF_SAMPLE_TID: u64 = 1 << 1;
const PERF_SAMPLE_ADDR: u64 = 1 << 3;
const PERF_SAMPLE_CPU: u64 = 1 << 7;
const PERF_RECORD_SAMPLE: u32 = 9;
/// Sample one load in this many (of those above the latency threshold).
pub const PERIOD: u64 = 1000;
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
    let read = |p: &Path| std::fs::read_to_string(p).map(|s| s.trim().to_string()).map_err(|e| format!("{}: {e}", p.display()));
    let pmu_type: u32 = read(&dir.join("type"))?.parse().map_err(|_| format!("{}/type: not a number", dir.display()))?;
    let text = read(&dir.join("events").join(event))?;
    let (mut config, mut config1) = (0u64, 0u64);
    for term in text.split(',') {
        let (k, v) = term.split_once('=').unwrap_or((term, "1"));
        let v = v.trim();
        let v = if let Some(h) = v.strip_prefix("0x") { u64::from_str_radix(h, 16) } else { v.parse() };
        let v = v.map_err(|_| format!("{}/events/{event}: bad term '{term}'", dir.display()))?;
        let format = read(&dir.join("format").join(k.trim()))?;
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
    /// The process the events were opened for, and its CPUs (to open them again in a child).
    pid: u32,
    cpus: Vec<(usize, usize)>,
    /// Why a forked child could not open its own events (it then has no samples).
    pub lost: Option<String>,
}

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
    /// Opens load sampling on each of `cpus` (with their dense nodes) for this process.
    ///
    /// # Errors
    /// Why precise memory sampling is not available (one line).
    pub fn open(cpus: &[(usize, usize)]) -> Result<Perf, String> {
        let dir = Path::new("/sys/bus/event_source/devices/cpu");
        if !dir.join("events/mem-loads").exists() {
            return Err(if Path::new("/sys/bus/event_source/devices/ibs_op").exists() {
                "perf_event: AMD IBS is present, but this version does not decode IBS records".into()
            } else {
                "perf_event: this CPU exposes no precise memory sampling (no PEBS mem-loads event, no AMD IBS op PMU)".into()
            });
        }
        let ev = pmu_event(dir, "mem-loads")?;
        let page = SPACE.page_size.load(std::sync::atomic::Ordering::Relaxed).max(4096);
        let mut rings = Vec::new();
        for &(cpu, node) in cpus {
            let attr = Attr {
                kind: ev.pmu_type,
                size: std::mem::size_of::<Attr>() as u32,
                config: ev.config,
                config1: ev.config1,
                sample_period: PERIOD,
                sample_type: PERF_SAMPLE_TID | PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU,
                flags: FLAG_INHERIT | FLAG_EXCLUDE_KERNEL | FLAG_EXCLUDE_HV | (2 << PRECISE_IP_SHIFT),
                ..Attr::default()
            };
            // SAFETY: a valid attr of the size it declares; pid 0 = this process.
            let fd = unsafe { libc::syscall(libc::SYS_perf_event_open, &attr as *const Attr, 0, cpu as i32, -1, 0u64) } as i32;
            if fd < 0 {
                let e = std::io::Error::last_os_error();
                return Err(format!("perf_event: opening {} on CPU {cpu} failed: {e}", ev.name));
            }
            let len = page * (1 + RING_PAGES);
            // SAFETY: maps the event's ring buffer, as perf_event_open(2) describes.
            let base = unsafe { libc::mmap(std::ptr::null_mut(), len, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_SHARED, fd, 0) };
            if base == libc::MAP_FAILED {
                let e = std::io::Error::last_os_error();
                // SAFETY: our descriptor.
                unsafe { libc::close(fd) };
                return Err(format!("perf_event: mapping the ring of CPU {cpu} failed: {e}"));
            }
            rings.push(Ring { fd, base: base as *mut u8, len, node });
        }
        Ok(Perf { rings, event: ev.name, pid: std::process::id(), cpus: cpus.to_vec(), lost: None })
    }

    /// Moves every pending sample of this process into the sample counts; returns how many
    /// named a managed page. In a forked child, first replaces the parent's events by the
    /// child's own (or, when they cannot be opened, by none, saying why in `lost`).
    pub fn drain(&mut self) -> u64 {
        let pid = std::process::id();
        if pid != self.pid {
            match Perf::open(&self.cpus) {
                Ok(own) => *self = own,
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
                parse_ring(data, tail, head, |from, addr, _cpu| {
                    if from != pid {
                        return; // a forked child's access, to its own copy of the page
                    }
                    if let Some((slot, p)) = SPACE.find(addr as usize) {
                        SPACE.inject(slot, p, node, 1);
                        n += 1;
                    }
                });
                std::sync::atomic::fence(std::sync::atomic::Ordering::Release);
                std::ptr::write_volatile(tail_p, head);
            }
        }
        n
    }
}

/// Calls `f(pid, addr, cpu)` for each sample record in `data` (a ring of power-of-two length)
/// between byte positions `tail` and `head`.
pub fn parse_ring(data: &[u8], tail: u64, head: u64, mut f: impl FnMut(u32, u64, u32)) {
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
            // TID (pid, tid), ADDR, CPU (cpu, res): the order of the sample_type bits.
            let pid = read(pos + 8, 4) as u32;
            let addr = read(pos + 16, 8);
            let cpu = read(pos + 24, 4) as u32;
            f(pid, addr, cpu);
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
        parse_ring(&ring, start, start + stream.len() as u64, |p, a, c| got.push((p, a, c)));
        assert_eq!(got, vec![(7, 0x7f00_1234, 3), (9, 0xdead_b000, 1)]);
        // A truncated record at the head is left for the next drain.
        got.clear();
        parse_ring(&ring, start, start + stream.len() as u64 - 4, |p, a, c| got.push((p, a, c)));
        assert_eq!(got, vec![(7, 0x7f00_1234, 3)]);
    }

    #[test]
    fn pmu_events_are_placed_by_their_format_files() {
        let dir = std::env::temp_dir().join(format!("np-rt-pmu-{}", std::process::id()));
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
        fn arbitrary_rings_never_panic(data in proptest::collection::vec(any::<u8>(), 64..=64), tail in 0u64..200, len in 0u64..200) {
            let mut n = 0;
            parse_ring(&data, tail, tail + len, |_, _, _| n += 1);
            prop_assert!(n as u64 * 32 <= len);
        }
    }
}
