//! The writer of page-level binary traces: epochs as record runs of fixed-width fields,
//! gathered into blocks.

use super::codec::{flush_block, put_str, put_uvarint, write_end, write_frame, zigzag};
use super::{ITEM_EPOCH, ITEM_EPOCH_END, ITEM_RUN};
use crate::error::SimError;
use crate::trace::{TraceHeader, VERSION};
use crate::workload::{Epoch, Op, Workload};
use std::io::{BufWriter, Write};
use std::path::Path;

/// Records per run item at most (keeps items, and so blocks, bounded).
const RUN_MAX: usize = 4096;
/// A block is flushed once its raw payload reaches this size (at an item boundary).
const BLOCK_TARGET: usize = 256 * 1024;

/// Writes a binary trace, one epoch at a time.
pub struct TraceWriter<W: Write> {
    out: W,
    threads: usize,
    raw: Vec<u8>,
    epochs: u64,
    records: u64,
}

impl<W: Write> TraceWriter<W> {
    /// Starts a trace: writes the header.
    ///
    /// # Errors
    /// A write error (`path` names the destination in the message).
    pub fn new(mut out: W, header: &TraceHeader, path: &Path) -> Result<Self, SimError> {
        let mut body = Vec::new();
        body.extend_from_slice(&(header.page_size as u32).to_le_bytes());
        body.extend_from_slice(&(header.line_size as u32).to_le_bytes());
        body.extend_from_slice(&(header.threads as u32).to_le_bytes());
        body.extend_from_slice(&(header.regions.len() as u32).to_le_bytes());
        for r in &header.regions {
            put_str(&mut body, &r.name);
            body.extend_from_slice(&r.first_page.to_le_bytes());
            body.extend_from_slice(&r.pages.to_le_bytes());
        }
        body.extend_from_slice(&(header.meta.len() as u16).to_le_bytes());
        for (k, v) in &header.meta {
            put_str(&mut body, k);
            put_str(&mut body, v);
        }
        write_frame(&mut out, VERSION, &body, path)?;
        Ok(TraceWriter { out, threads: header.threads, raw: Vec::with_capacity(BLOCK_TARGET * 2), epochs: 0, records: 0 })
    }

    /// Appends one epoch (threads' records in thread order).
    ///
    /// # Errors
    /// A write error.
    pub fn epoch(&mut self, epoch: &Epoch, path: &Path) -> Result<(), SimError> {
        self.raw.push(ITEM_EPOCH);
        put_uvarint(&mut self.raw, epoch.iteration as u64);
        let phase = epoch.phase.as_bytes();
        self.raw.push(phase.len().min(255) as u8);
        self.raw.extend_from_slice(&phase[..phase.len().min(255)]);
        for t in 0..self.threads {
            let (mlp, think) = epoch.threads.get(t).map_or((f64::INFINITY, 0.0), |w| (w.mlp, w.think_ns));
            self.raw.extend_from_slice(&mlp.to_le_bytes());
            self.raw.extend_from_slice(&think.to_le_bytes());
        }
        let mut n = 0u64;
        for (t, work) in epoch.threads.iter().enumerate() {
            let mut prev: i64 = 0;
            // Runs of at most RUN_MAX records, so that a block stays near its target size.
            for run in work.txns.chunks(RUN_MAX) {
                // Fixed-width fields per run: as wide as the run's largest value needs, so that
                // the reader decodes without data-dependent branches.
                let mut max_delta = 0u64;
                let mut max_counts = 0u64;
                let mut p = prev;
                for tx in run {
                    max_delta = max_delta.max(zigzag(tx.page as i64 - p));
                    p = tx.page as i64;
                    max_counts = max_counts.max(counts_field(tx));
                }
                let (dw, cw) = (width(max_delta), width(max_counts));
                self.raw.push(ITEM_RUN);
                put_uvarint(&mut self.raw, t as u64);
                put_uvarint(&mut self.raw, run.len() as u64);
                self.raw.push((dw as u8) | (cw as u8) << 4);
                for tx in run {
                    let d = zigzag(tx.page as i64 - prev);
                    prev = tx.page as i64;
                    self.raw.extend_from_slice(&d.to_le_bytes()[..dw]);
                    self.raw.extend_from_slice(&counts_field(tx).to_le_bytes()[..cw]);
                }
                n += run.len() as u64;
                if self.raw.len() >= BLOCK_TARGET {
                    self.flush(path)?;
                }
            }
        }
        self.raw.push(ITEM_EPOCH_END);
        put_uvarint(&mut self.raw, n);
        self.epochs += 1;
        self.records += n;
        if self.raw.len() >= BLOCK_TARGET {
            self.flush(path)?;
        }
        Ok(())
    }

    fn flush(&mut self, path: &Path) -> Result<(), SimError> {
        flush_block(&mut self.out, &mut self.raw, path)
    }

    /// Ends the trace: flushes the last block and writes the end marker with the totals.
    ///
    /// # Errors
    /// A write error.
    pub fn finish(mut self, path: &Path) -> Result<(u64, u64), SimError> {
        self.flush(path)?;
        write_end(&mut self.out, self.epochs, self.records, path)?;
        Ok((self.epochs, self.records))
    }
}

/// The counts field of a transaction: `count << 1 | is_write`.
fn counts_field(tx: &crate::workload::Txn) -> u64 {
    (tx.count as u64) << 1 | (tx.op == Op::Write) as u64
}

/// Bytes needed to hold `v` (at least one).
fn width(v: u64) -> usize {
    (((64 - v.leading_zeros()) as usize + 7) / 8).max(1)
}

/// Writes `workload` (all its epochs) as a binary trace at `path`, by the output rule of
/// [`crate::output::write_with`]: a temporary renamed into place once complete (a failure
/// leaves nothing behind), a link's target, or a device or FIFO written through.
///
/// # Errors
/// A write error.
pub fn export(workload: &mut dyn Workload, header: &TraceHeader, path: &Path) -> Result<(u64, u64), SimError> {
    crate::output::write_with(path, |file| {
        let mut w = TraceWriter::new(BufWriter::new(file), header, path)?;
        let mut epoch = Epoch::default();
        while workload.next_epoch(&mut epoch) {
            w.epoch(&epoch, path)?;
        }
        if let Some(e) = workload.take_error() {
            return Err(e);
        }
        w.finish(path)
    })
}
