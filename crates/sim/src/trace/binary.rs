//! The binary trace form: writer and streaming reader. Layout in `docs/trace-format.md`.
//!
//! [`writer`] writes a page-level trace, [`reader`] replays one; both go through [`codec`], the
//! container (header frame, checksummed blocks, end marker) line-level traces share.

mod codec;
mod reader;
mod writer;

pub use reader::BinaryTrace;
pub use writer::{export, TraceWriter};

pub(super) use codec::{flush_block, put_str, put_uvarint, unzigzag, write_end, write_frame, zigzag, BlockReader, Cursor, Next};
pub(super) use reader::{split_counts, take_split};
#[cfg(test)]
pub(crate) use codec::zigzag_roundtrip;

// The items of a page-level block.
const ITEM_EPOCH: u8 = 1;
/// A run of records of one thread: `thread, n` (varints), a widths byte (low nibble: bytes of
/// each page delta, high nibble: bytes of each counts field, 1..8), then `n` fixed-width
/// records: the zigzag page delta and `count << 1 | is_write`, little-endian. A record that
/// both reads and writes is two entries, the reads first (the second with delta 0).
const ITEM_RUN: u8 = 2;
const ITEM_EPOCH_END: u8 = 3;
