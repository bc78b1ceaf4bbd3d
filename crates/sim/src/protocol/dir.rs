//! The distributed directory, as one table by line: each line's sharing list (head first) and
//! modified bit at its home, the memory's value, and the value checker's latest store; the
//! lines touched; and the transactions in progress at the homes. A leaf of the engine's parts.

use super::lines::{Lines, Zeroed, CHUNK_LINES, MAX_LINES};
use super::list::SharingList;
use super::msg::Msg;
use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasherDefault, Hasher};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum TKind {
    Read,
    Write { need_data: bool },
    Replace,
}

/// A transaction in progress at a home; requests for the line wait behind it.
#[derive(Debug)]
pub(super) struct Txn {
    pub tid: u32,
    pub kind: TKind,
    pub req: u16,
    pub waiting: VecDeque<Msg>,
}

/// A map keyed by line number. Nothing iterates one except `stuck`, which sorts, so the
/// hash order never reaches a result.
pub(super) type LineMap<V> = HashMap<u32, V, BuildHasherDefault<LineHasher>>;

/// Hashes a line number by one multiplication (Fibonacci hashing): the keys are engine line
/// numbers, not input an adversary picks, and a few dozen are live at a time.
#[derive(Default)]
pub(super) struct LineHasher(u64);

impl Hasher for LineHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_u32(&mut self, x: u32) {
        self.0 = u64::from(x).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// A line's directory entry at its home, with the memory's value of the line: one record (48
/// bytes), so that a request at the home finds what it needs in one host cache line or two.
#[derive(Clone, Default)]
pub(super) struct Entry {
    /// The sharing list, head first (the owner alone when modified).
    pub list: SharingList,
    pub mem_val: u64,
    pub modified: bool,
    /// The line has been accessed (it is in `Directory::touched`).
    pub accessed: bool,
}

// SAFETY: all-zero bytes are an `Entry`'s default: an empty sharing list (a length of 0, zero
// entries, no heap list: `Option<Box<_>>`'s `None` is the null pointer), memory value 0, and
// both flags false.
unsafe impl Zeroed for Entry {}

/// The directory and the per-line tables, allocated by chunk when a line is first touched
/// ([`Directory::hold`]).
pub(super) struct Directory {
    pub lines: Lines<Entry>,
    /// The value checker's latest store of each line, apart from the entries: the CPUs' hit
    /// loop reads it for every load, along the lines it sweeps.
    pub latest: Lines<u64>,
    /// Chunks of the per-line tables allocated (at most `MAX_LINES / CHUNK_LINES`).
    pub chunks_held: u64,
    /// Lines accessed, in first-access order.
    pub touched: Vec<u32>,
    /// Transactions in progress, by line (few at a time: a small table the host keeps cached).
    pub busy: LineMap<Txn>,
    pub next_tid: u32,
}

impl Directory {
    pub(super) fn new(lines: usize) -> Directory {
        Directory {
            lines: Lines::new(lines),
            latest: Lines::new(lines),
            chunks_held: 0,
            touched: Vec::new(),
            busy: LineMap::default(),
            next_tid: 1,
        }
    }

    /// Makes the per-line tables hold `line` (its chunk allocated when a line of it is first
    /// touched), within [`MAX_LINES`]; the error is one line naming the bound.
    #[inline]
    pub(super) fn hold(&mut self, line: u32, program: &str, line_shift: u32) -> Result<(), String> {
        if self.lines.has(line as usize) {
            return Ok(());
        }
        self.hold_chunk(line, program, line_shift)
    }

    #[cold]
    #[inline(never)]
    fn hold_chunk(&mut self, line: u32, program: &str, line_shift: u32) -> Result<(), String> {
        if (self.chunks_held + 1) * CHUNK_LINES as u64 > MAX_LINES {
            let bytes = MAX_LINES << line_shift;
            return Err(format!(
                "program {program}: the lines it touches need more than the protocol engine's bound of {MAX_LINES} lines of state ({} MiB of memory at {}-byte lines, held in chunks of {CHUNK_LINES} lines)",
                bytes >> 20,
                1u64 << line_shift
            ));
        }
        self.chunks_held += 1;
        let li = line as usize;
        self.lines.alloc(li);
        self.latest.alloc(li);
        Ok(())
    }

    /// A new transaction id (never 0).
    pub(super) fn new_tid(&mut self) -> u32 {
        self.next_tid = self.next_tid.wrapping_add(1).max(1);
        self.next_tid
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::lines::STATE_BYTES_PER_LINE;

    #[test]
    fn an_entry_and_the_latest_store_are_the_state_bytes_per_line() {
        assert_eq!(std::mem::size_of::<Entry>() as u64 + 8, STATE_BYTES_PER_LINE);
    }

    #[test]
    fn a_zeroed_chunk_of_entries_holds_empty_entries_that_work() {
        let mut t: Lines<Entry> = Lines::new(2 * CHUNK_LINES);
        t.alloc(CHUNK_LINES + 3);
        let e = &mut t[CHUNK_LINES + 3];
        assert!(e.list.is_empty() && e.mem_val == 0 && !e.modified && !e.accessed);
        for x in 0..12u16 {
            e.list.push(x);
        }
        assert_eq!(&*e.list, &(0..12).collect::<Vec<u16>>()[..]);
        assert_eq!(t[2 * CHUNK_LINES - 1].list.len(), 0);
    }
}
