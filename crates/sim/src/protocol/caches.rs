//! Every node's caches: the direct-mapped, write-through FLC (tags only) and the
//! direct-mapped, write-back SLC (tag-and-state words, values for the value checker), node
//! major, and each node's SLC bus (the time it is free). A leaf of the engine's parts.

use super::msg::INV;

/// SLC line states.
pub(super) const ST_I: u8 = 0;
pub(super) const ST_S: u8 = 1;
pub(super) const ST_M: u8 = 2;

/// An SLC frame's tag word: the line it holds `<< 2 | state`; an empty frame is [`FR_INV`],
/// zero, which reads as line 0 in state I: every test of a frame asks for a valid state too
/// (`valid_at`, the fast path's), so an empty frame never hits, and the machine's frames start
/// as zeroed memory the host maps only where a frame is used. Tags and states share one word
/// so that the hit check of the CPU's fast path reads 4 bytes per frame; the frames' values
/// (for the value checker) are kept apart in `slc_val`.
#[inline]
pub(super) const fn frame_word(line: u32, st: u8) -> u32 {
    line << 2 | st as u32
}
pub(super) const FR_INV: u32 = frame_word(0, ST_I);

/// The FLC and SLC frames of every node, and every node's SLC bus.
pub(super) struct Caches {
    /// Frames per node (powers of two).
    pub flc_frames: usize,
    pub slc_frames: usize,
    /// FLC frames' lines ([`INV`]: empty), node-major.
    pub flc: Vec<u32>,
    /// SLC frames' tag words ([`frame_word`]) of every node, node-major.
    pub slc_tag: Vec<u32>,
    /// SLC frames' values (the store each holds, for the value checker), as `slc_tag`.
    pub slc_val: Vec<u64>,
    /// Per node, when its SLC bus is next free.
    pub slc_free: Vec<u64>,
}

impl Caches {
    pub(super) fn new(n: usize, flc_frames: usize, slc_frames: usize) -> Caches {
        Caches {
            flc_frames,
            slc_frames,
            flc: vec![INV; n * flc_frames],
            slc_tag: vec![FR_INV; n * slc_frames],
            slc_val: vec![0; n * slc_frames],
            slc_free: vec![0; n],
        }
    }

    /// The line an SLC frame holds (0 when empty: ask its state too).
    #[inline]
    pub(super) fn ftag(&self, si: usize) -> u32 {
        self.slc_tag[si] >> 2
    }

    /// An SLC frame's state.
    #[inline]
    pub(super) fn fst(&self, si: usize) -> u8 {
        (self.slc_tag[si] & 3) as u8
    }

    /// `node`'s SLC frame for `line`.
    #[inline]
    pub(super) fn sidx(&self, node: usize, line: u32) -> usize {
        node * self.slc_frames + (line as usize & (self.slc_frames - 1))
    }

    /// `node`'s FLC frame for `line`.
    #[inline]
    pub(super) fn fidx(&self, node: usize, line: u32) -> usize {
        node * self.flc_frames + (line as usize & (self.flc_frames - 1))
    }

    /// `line`'s state in `node`'s SLC.
    #[inline]
    pub(super) fn valid_at(&self, node: usize, line: u32) -> u8 {
        let si = self.sidx(node, line);
        if self.ftag(si) == line {
            self.fst(si)
        } else {
            ST_I
        }
    }

    /// Drops `line` from `node`'s SLC and FLC.
    pub(super) fn invalidate(&mut self, node: usize, line: u32) {
        let si = self.sidx(node, line);
        if self.ftag(si) == line {
            self.slc_tag[si] = FR_INV;
        }
        let fi = self.fidx(node, line);
        if self.flc[fi] == line {
            self.flc[fi] = INV;
        }
    }
}
