//! The protocol engine's per-line tables (directory state, memory values, the value checker's
//! latest stores), held a chunk of [`CHUNK_LINES`] lines at a time: a chunk is allocated when
//! a line in it is first touched, so the engine's memory follows the lines a program uses, not
//! the address space its regions declare (a trace may declare 16 GiB and read four lines).
//! The engine holds at most [`MAX_LINES`] lines' worth of chunks.

use std::ops::{Index, IndexMut};

/// Lines per chunk, as a shift: 4096 lines (256 KiB of address space at 64-byte lines).
pub const CHUNK_SHIFT: u32 = 12;
/// Lines per chunk.
pub const CHUNK_LINES: usize = 1 << CHUNK_SHIFT;
const CHUNK_MASK: usize = CHUNK_LINES - 1;

/// The most lines the protocol engine holds state for, counted in whole chunks: 2^23, 512 MiB
/// of touched memory at 64-byte lines, at [`STATE_BYTES_PER_LINE`] (56) bytes a line
/// near 470 MB of tables. Seed 004's programs at their defaults touch at most 160 K lines
/// (Ocean), Ocean at its largest grid about 2.5 M. A run whose touched chunks would pass the
/// bound is refused when it first touches one more, in one line naming the bound (a program
/// that writes 2^23 lines in its initialisation, `ge:n=40000`, in about a second).
pub const MAX_LINES: u64 = 1 << 23;

/// Bytes of engine state per line held: the directory entry (the sharing list, the memory
/// value, the modified and accessed flags, padded to 8 bytes: `dir::Entry`) and the latest
/// store.
pub const STATE_BYTES_PER_LINE: u64 = ((std::mem::size_of::<super::list::SharingList>() + 8 + 1 + 1).next_multiple_of(8) + 8) as u64;

/// One per-line table, by line number, allocated by chunk ([`Lines::alloc`]). Indexing a line
/// whose chunk is not allocated panics: the engine allocates a line's chunk when the line is
/// first touched (stored by initialisation, or accessed), before any table names it.
pub struct Lines<T> {
    /// Each chunk's lines, or an empty slice (nothing allocated) for a chunk not touched.
    chunks: Vec<Box<[T]>>,
}

/// A type whose all-zero bytes are a valid value, its `Default`: a table of it allocates its
/// chunks as zeroed memory, which the host maps (and zeroes) a page at a time as the lines are
/// first used, where writing every default value at once would pass the whole chunk through
/// the host's caches before its first line is used.
///
/// # Safety
/// All-zero bytes must be a valid value of the type, equal to `T::default()`.
pub unsafe trait Zeroed: Default {}

// SAFETY: zero is the integer 0 and `false`, their defaults.
unsafe impl Zeroed for u64 {}
// SAFETY: as above.
unsafe impl Zeroed for bool {}

/// A chunk of [`CHUNK_LINES`] values, all zero bytes (`T::default()`).
fn zeroed_chunk<T: Zeroed>() -> Box<[T]> {
    let layout = std::alloc::Layout::array::<T>(CHUNK_LINES).expect("a chunk fits the address space");
    if layout.size() == 0 {
        return (0..CHUNK_LINES).map(|_| T::default()).collect();
    }
    // SAFETY: `layout` is not zero-sized, so `alloc_zeroed` may be called with it; a null
    // result is handed to `handle_alloc_error`. The memory holds `CHUNK_LINES` values of `T`,
    // each all-zero bytes, which `T: Zeroed` makes valid; the box owns it with the layout a
    // boxed slice of `CHUNK_LINES` `T`s is freed with (`Layout::array::<T>(CHUNK_LINES)`).
    unsafe {
        let p = std::alloc::alloc_zeroed(layout).cast::<T>();
        if p.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        Box::from_raw(std::ptr::slice_from_raw_parts_mut(p, CHUNK_LINES))
    }
}

impl<T: Zeroed> Lines<T> {
    /// A table for lines `0 .. lines`, with no chunk allocated (a pointer pair per chunk).
    pub fn new(lines: usize) -> Self {
        Lines { chunks: (0..lines.div_ceil(CHUNK_LINES)).map(|_| Box::default()).collect() }
    }

    /// Whether `line`'s chunk is allocated.
    #[inline]
    pub fn has(&self, line: usize) -> bool {
        !self.chunks[line >> CHUNK_SHIFT].is_empty()
    }

    /// Allocates `line`'s chunk, every line at `T::default()` (a no-op if it is allocated).
    pub fn alloc(&mut self, line: usize) {
        let c = &mut self.chunks[line >> CHUNK_SHIFT];
        if c.is_empty() {
            *c = zeroed_chunk();
        }
    }
}

impl<T> Index<usize> for Lines<T> {
    type Output = T;
    #[inline]
    fn index(&self, line: usize) -> &T {
        &self.chunks[line >> CHUNK_SHIFT][line & CHUNK_MASK]
    }
}

impl<T> IndexMut<usize> for Lines<T> {
    #[inline]
    fn index_mut(&mut self, line: usize) -> &mut T {
        &mut self.chunks[line >> CHUNK_SHIFT][line & CHUNK_MASK]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_touched_chunks_are_allocated_and_they_start_at_the_default() {
        let mut t: Lines<u64> = Lines::new(1 << 28);
        assert_eq!(t.chunks.len(), (1 << 28) / CHUNK_LINES);
        assert!(!t.has(5) && !t.has((1 << 28) - 1));
        t.alloc((1 << 28) - 1);
        assert!(t.has((1 << 28) - CHUNK_LINES) && !t.has((1 << 28) - CHUNK_LINES - 1));
        assert_eq!(t[(1 << 28) - 7], 0);
        t[(1 << 28) - 7] = 9;
        t.alloc((1 << 28) - 2);
        assert_eq!(t[(1 << 28) - 7], 9, "a second alloc keeps the chunk");
        assert_eq!(t.chunks.iter().filter(|c| !c.is_empty()).count(), 1);
    }

    #[test]
    fn docs_protocol_states_these_bounds() {
        let doc = include_str!("../../../../docs/protocol.md");
        assert_eq!(STATE_BYTES_PER_LINE, 56);
        for fact in [
            format!("at most 2^{} lines' worth of chunks", MAX_LINES.trailing_zeros()),
            format!("chunks of {CHUNK_LINES} lines"),
            format!("about {STATE_BYTES_PER_LINE} bytes a line"),
            format!("{} MiB of touched memory at 64-byte lines", (MAX_LINES * 64) >> 20),
        ] {
            assert!(doc.split_whitespace().collect::<Vec<_>>().join(" ").contains(&fact), "docs/protocol.md does not say: {fact}");
        }
    }

    #[test]
    #[should_panic]
    fn a_line_never_touched_is_not_readable() {
        let t: Lines<bool> = Lines::new(CHUNK_LINES * 2);
        let _ = t[CHUNK_LINES + 1];
    }
}
