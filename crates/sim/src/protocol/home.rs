//! The home side of the protocol: requests at a line's home (Stanford DD: the directory entry
//! and its singly-linked sharing list, head first), the transactions they start and the
//! replies that end them, and write-backs.

use super::ctrl::Cx;
use super::dir::{TKind, Txn};
use super::msg::{Msg, K, F_NOT_RETAINED};
use super::state::Eng;
use std::collections::VecDeque;

impl Eng<'_> {
    /// A request at the home: waits behind a transaction in progress, else starts.
    #[inline]
    pub(super) fn home_req(&mut self, cx: &mut Cx, m: Msg) {
        if let Some(t) = self.dir.busy.get_mut(&m.line) {
            t.waiting.push_back(m);
            let look = self.p.dram_lookup;
            self.mem_op(cx, look);
            return;
        }
        self.home_start(cx, m);
    }

    pub(super) fn home_start(&mut self, cx: &mut Cx, m: Msg) {
        let line = m.line;
        let li = line as usize;
        let r = m.req as usize;
        let (look, acc) = (self.p.dram_lookup, self.p.dram_line_access);
        match m.kind {
            K::ReadReq => {
                if self.dir.lines[li].modified {
                    let o = self.dir.lines[li].list[0] as usize;
                    debug_assert_ne!(o, r);
                    self.mem_op(cx, look);
                    let tid = self.dir.new_tid();
                    self.dir.busy.insert(line, Txn { tid, kind: TKind::Read, req: r as u16, waiting: VecDeque::new() });
                    self.dir.lines[li].list.set(&[r as u16, o as u16]);
                    let mut f = Msg::new(K::FwdRead, o, r, line);
                    f.tid = tid;
                    self.send(cx, f);
                } else {
                    self.mem_op(cx, look + acc);
                    self.dir.lines[li].list.insert(0, r as u16);
                    let mut d = Msg::new(K::Data, r, r, line);
                    d.val = self.dir.lines[li].mem_val;
                    self.send(cx, d);
                }
            }
            K::WriteReq | K::UpgradeReq => {
                if self.dir.lines[li].modified {
                    let o = self.dir.lines[li].list[0] as usize;
                    debug_assert_ne!(o, r);
                    self.mem_op(cx, look);
                    let tid = self.dir.new_tid();
                    self.dir.busy.insert(line, Txn { tid, kind: TKind::Write { need_data: true }, req: r as u16, waiting: VecDeque::new() });
                    self.dir.lines[li].list.set(&[r as u16]);
                    let mut f = Msg::new(K::FwdWrite, o, r, line);
                    f.tid = tid;
                    self.send(cx, f);
                    return;
                }
                let list = &mut self.dir.lines[li].list;
                let had = match list.iter().position(|&x| x as usize == r) {
                    Some(i) => {
                        list.remove(i);
                        true
                    }
                    None => false,
                };
                // An upgrade whose copy was invalidated meanwhile needs the data.
                let need_data = !(had && m.kind == K::UpgradeReq);
                let head = list.first().copied();
                if let Some(head) = head {
                    self.mem_op(cx, look);
                    let tid = self.dir.new_tid();
                    self.dir.busy.insert(line, Txn { tid, kind: TKind::Write { need_data }, req: r as u16, waiting: VecDeque::new() });
                    let mut i = Msg::new(K::Inval, head as usize, r, line);
                    i.tid = tid;
                    self.send(cx, i);
                } else {
                    self.mem_op(cx, if need_data { look + acc } else { look });
                    self.grant_exclusive(cx, line, r, need_data);
                }
            }
            K::Replace => {
                let x = m.src as usize;
                self.mem_op(cx, look);
                if !self.dir.lines[li].modified && self.dir.lines[li].list.iter().any(|&y| y as usize == x) {
                    // Stanford DD: the lower part of the list, from the leaving node down, is
                    // invalidated; the walk starts at the leaving node.
                    let tid = self.dir.new_tid();
                    self.dir.busy.insert(line, Txn { tid, kind: TKind::Replace, req: x as u16, waiting: VecDeque::new() });
                    let mut i = Msg::new(K::Inval, x, x, line);
                    i.tid = tid;
                    self.send(cx, i);
                }
                // Otherwise a walk already unlinked the node (and cleared its leaving entry).
            }
            K::WriteBack => self.on_writeback(cx, m),
            _ => unreachable!(),
        }
    }

    #[inline]
    pub(super) fn grant_exclusive(&mut self, cx: &mut Cx, line: u32, r: usize, need_data: bool) {
        let li = line as usize;
        self.dir.lines[li].list.set(&[r as u16]);
        self.dir.lines[li].modified = true;
        let mut g = Msg::new(if need_data { K::DataEx } else { K::UpgradeAck }, r, r, line);
        g.val = self.dir.lines[li].mem_val;
        self.send(cx, g);
    }

    /// Replies that end a home transaction.
    pub(super) fn home_reply(&mut self, cx: &mut Cx, m: Msg) {
        let line = m.line;
        let li = line as usize;
        let Some(t) = self.dir.busy.get(&line) else {
            self.fail(format!("{:?} for line {line:#x} at home {} with no transaction in progress", m.kind, cx.node));
            return;
        };
        if t.tid != m.tid {
            self.fail(format!("{:?} for line {line:#x} carries transaction {} but {} is in progress", m.kind, m.tid, t.tid));
            return;
        }
        let t = self.dir.busy.remove(&line).expect("checked");
        let (look, acc) = (self.p.dram_lookup, self.p.dram_line_access);
        match (m.kind, t.kind) {
            (K::InvalAck, TKind::Write { need_data }) => {
                if !self.dir.lines[li].list.is_empty() {
                    self.fail(format!("line {line:#x}: invalidation walk ended with sharers {:?} left", &*self.dir.lines[li].list));
                    return;
                }
                self.mem_op(cx, if need_data { look + acc } else { look });
                self.grant_exclusive(cx, line, t.req as usize, need_data);
            }
            (K::InvalAck, TKind::Replace) => {
                self.mem_op(cx, look);
            }
            (K::SharingWb, TKind::Read) => {
                self.mem_op(cx, look + acc);
                self.dir.lines[li].mem_val = m.val;
                self.dir.lines[li].modified = false;
                if m.flags & F_NOT_RETAINED != 0 {
                    let o = m.src;
                    self.dir.lines[li].list.retain(|&x| x != o);
                }
            }
            (K::OwnerAck, TKind::Write { .. }) => {
                self.mem_op(cx, look);
            }
            (k, tk) => {
                self.fail(format!("line {line:#x}: {k:?} does not end a {tk:?} transaction"));
                return;
            }
        }
        // Requests that waited behind the transaction, in order, until one starts another.
        let mut waiting = t.waiting;
        while let Some(w) = waiting.pop_front() {
            self.home_start(cx, w);
            if let Some(nt) = self.dir.busy.get_mut(&line) {
                nt.waiting.extend(waiting.drain(..));
                break;
            }
        }
    }

    pub(super) fn on_writeback(&mut self, cx: &mut Cx, m: Msg) {
        let li = m.line as usize;
        let x = m.src;
        let (look, acc) = (self.p.dram_lookup, self.p.dram_line_access);
        self.mem_op(cx, look + acc);
        if let Some(t) = self.dir.busy.get_mut(&m.line) {
            // A forward to the writer is in progress and will be answered from its write-back
            // buffer; the acknowledgement waits until that transaction ends, so the writer
            // cannot ask for the line again while the home still counts it as a sharer.
            t.waiting.push_back(m);
            return;
        }
        if self.dir.lines[li].modified && self.dir.lines[li].list.first() == Some(&x) {
            self.dir.lines[li].mem_val = m.val;
            self.dir.lines[li].modified = false;
            self.dir.lines[li].list.clear();
        }
        // Otherwise stale: a forward took the line from the write-back buffer.
        let a = Msg::new(K::WbAck, x as usize, x as usize, m.line);
        self.send(cx, a);
    }
}
