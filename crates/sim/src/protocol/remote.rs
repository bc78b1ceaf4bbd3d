//! The cache side of the protocol at a node: the CPU's miss at its controller, invalidations
//! and forwards reaching a sharer or owner, and fills (evicting the frame's line: a write-back
//! or a replacement hint), with the proxy chain a fill serves.

use super::caches::{frame_word, ST_I, ST_M, ST_S};
use super::ctrl::{Cx, PKind, Pend};
use super::msg::{Msg, INV, K, F_NOT_RETAINED, F_WRITE};
use super::params::ProxyMode;
use super::state::Eng;

impl Eng<'_> {
    pub(super) fn on_cpu_miss(&mut self, cx: &mut Cx, m: Msg) {
        let c = cx.node;
        let line = m.line;
        let write = m.flags & F_WRITE != 0;
        if let Some(i) = self.nodes[c].pend_pos(line) {
            // A proxy fetch of this line is outstanding here: wait for it.
            let p = &mut self.nodes[c].pend[i];
            if !write && p.kind == PKind::Read {
                p.cpu = true;
            } else {
                p.cpu_retry = true;
            }
            return;
        }
        if self.nodes[c].leaving.contains(&line) || self.nodes[c].wb.iter().any(|&(l, _)| l == line) {
            // The node's old entry is still linked in the sharing list (a replaced shared line)
            // or it is still the owner (a write-back in flight): it asks again only once the
            // home has unlinked it (the walk's Inval or the WbAck re-queues this miss), so that
            // a read served by a proxy cannot link it twice.
            self.nodes[c].deferred.push(m);
            return;
        }
        let st = self.caches.valid_at(c, line);
        // The line may have arrived meanwhile (a proxy fill of the same line).
        if (!write && st != ST_I) || (write && st == ST_M) {
            let t = cx.now();
            self.cpu_complete(c, line, t);
            return;
        }
        let kind = if !write {
            PKind::Read
        } else if st == ST_S {
            PKind::Upgrade
        } else {
            PKind::Write
        };
        let home = self.home_of(line);
        let remote_read = kind == PKind::Read && home != c;
        self.nodes[c].pend.push(Pend {
            line,
            kind,
            cpu: true,
            cpu_retry: false,
            chain: Vec::new(),
            sent: if remote_read { cx.now() } else { u64::MAX },
        });
        if kind == PKind::Read && home != c && self.prox.mode == ProxyMode::Basic && self.is_proxy_line(line) {
            let p = self.prox.proxy_of(line, c);
            if p != c && p != home {
                self.st.proxy_reads += 1;
                let r = Msg::new(K::ProxyRead, p, c, line);
                self.send(cx, r);
                return;
            }
        }
        let k = match kind {
            PKind::Read => K::ReadReq,
            PKind::Write => K::WriteReq,
            PKind::Upgrade => K::UpgradeReq,
        };
        let r = Msg::new(k, home, c, line);
        if home == c {
            let mut r = r;
            r.src = c as u16;
            self.home_req(cx, r);
        } else {
            self.send(cx, r);
        }
    }

    pub(super) fn on_inval(&mut self, cx: &mut Cx, m: Msg) {
        let me = cx.node;
        let line = m.line;
        let li = line as usize;
        let lookup = self.p.slc_lookup;
        if self.caches.valid_at(me, line) != ST_I {
            self.slc_op(cx, lookup);
            self.caches.invalidate(me, line);
        } else if let Some(i) = self.nodes[me].leaving.iter().position(|&l| l == line) {
            self.nodes[me].leaving.swap_remove(i);
            self.requeue_deferred(me, line);
        } else if self.nodes[me].pend_pos(line).is_some() {
            self.nodes[me].deferred.push(m);
            return;
        }
        let list = &mut self.dir.lines[li].list;
        let next = match list.iter().position(|&x| x as usize == me) {
            Some(p) => {
                list.remove(p);
                list.get(p).copied()
            }
            None => None,
        };
        match next {
            Some(nx) => {
                let mut i = Msg::new(K::Inval, nx as usize, m.req as usize, line);
                i.tid = m.tid;
                self.send(cx, i);
            }
            None => {
                let home = self.home_of(line);
                let mut a = Msg::new(K::InvalAck, home, m.req as usize, line);
                a.tid = m.tid;
                self.send(cx, a);
            }
        }
    }

    pub(super) fn on_fwd(&mut self, cx: &mut Cx, m: Msg) {
        let me = cx.node;
        let line = m.line;
        let r = m.req as usize;
        let home = self.home_of(line);
        let si = self.caches.sidx(me, line);
        let (val, retained) = if self.caches.ftag(si) == line && self.caches.fst(si) == ST_M {
            let a = self.p.slc_lookup + self.p.slc_line_access;
            self.slc_op(cx, a);
            let v = self.caches.slc_val[si];
            if m.kind == K::FwdRead {
                self.caches.slc_tag[si] = frame_word(line, ST_S);
            } else {
                self.caches.invalidate(me, line);
            }
            (v, true)
        } else if let Some(&(_, v)) = self.nodes[me].wb.iter().find(|&&(l, _)| l == line) {
            (v, false)
        } else if self.nodes[me].pend_pos(line).is_some() {
            self.nodes[me].deferred.push(m);
            return;
        } else {
            self.fail(format!("{:?} for line {line:#x} reached node {me}, which neither owns it nor is fetching it", m.kind));
            return;
        };
        if m.kind == K::FwdRead {
            let mut d = Msg::new(K::Data, r, r, line);
            d.val = val;
            self.send(cx, d);
            let mut w = Msg::new(K::SharingWb, home, r, line);
            w.val = val;
            w.tid = m.tid;
            if !retained {
                w.flags |= F_NOT_RETAINED;
            }
            self.send(cx, w);
        } else {
            let mut d = Msg::new(K::DataEx, r, r, line);
            d.val = val;
            self.send(cx, d);
            let mut a = Msg::new(K::OwnerAck, home, r, line);
            a.tid = m.tid;
            self.send(cx, a);
        }
    }

    /// Places a line into the SLC, evicting the frame's line. Returns false when the frame is
    /// pinned by a pending upgrade (the line is then not kept).
    pub(super) fn fill(&mut self, cx: &mut Cx, line: u32, st: u8, val: u64) -> bool {
        let me = cx.node;
        let si = self.caches.sidx(me, line);
        let mut work = self.p.slc_lookup + self.p.slc_line_access;
        let old = self.caches.ftag(si);
        if old != line && self.caches.fst(si) != ST_I {
            if self.nodes[me].pend.iter().any(|p| p.line == old && p.kind == PKind::Upgrade) {
                self.slc_op(cx, work);
                return false;
            }
            let home = self.home_of(old);
            if self.caches.fst(si) == ST_M {
                work += self.p.slc_line_access;
                let v = self.caches.slc_val[si];
                self.nodes[me].wb.push((old, v));
                self.caches.invalidate(me, old);
                self.slc_op(cx, work);
                let mut w = Msg::new(K::WriteBack, home, me, old);
                w.val = v;
                self.send(cx, w);
            } else {
                self.nodes[me].leaving.push(old);
                self.caches.invalidate(me, old);
                self.slc_op(cx, work);
                let r = Msg::new(K::Replace, home, me, old);
                self.send(cx, r);
            }
        } else {
            self.slc_op(cx, work);
        }
        self.caches.slc_tag[si] = frame_word(line, st);
        self.caches.slc_val[si] = val;
        true
    }

    pub(super) fn on_fill(&mut self, cx: &mut Cx, m: Msg) {
        let me = cx.node;
        let line = m.line;
        let Some(pi) = self.nodes[me].pend_pos(line) else {
            self.fail(format!("{:?} for line {line:#x} reached node {me}, which is not fetching it", m.kind));
            return;
        };
        let pend = self.nodes[me].pend.swap_remove(pi);
        let kept = match m.kind {
            K::UpgradeAck => {
                let si = self.caches.sidx(me, line);
                if self.caches.ftag(si) != line || self.caches.fst(si) != ST_S {
                    self.fail(format!("upgrade of line {line:#x} acknowledged at node {me}, which lost its copy"));
                    return;
                }
                let lookup = self.p.slc_lookup;
                self.slc_op(cx, lookup);
                self.caches.slc_tag[si] = frame_word(line, ST_M);
                true
            }
            K::DataEx => self.fill(cx, line, ST_M, m.val),
            _ => self.fill(cx, line, ST_S, m.val),
        };
        if pend.sent != u64::MAX && matches!(m.kind, K::Data | K::ProxyData) {
            self.st.hist.add(m.at - pend.sent);
            self.st.node_reads[me] += 1;
            self.st.node_read_cycles[me] += m.at - pend.sent;
        }
        // Proxy chain: the data goes to the last client first, and down the chain from there.
        let chain = if m.kind == K::ProxyData && m.chain != INV { Some(m.chain) } else { None };
        let chain = match chain {
            Some(id) => Some(id),
            None if !pend.chain.is_empty() => Some(self.prox.new_chain(&pend.chain)),
            None => None,
        };
        if let Some(id) = chain {
            match self.prox.chains[id as usize].pop() {
                Some(next) => {
                    self.link_after(me, next as usize, line);
                    let mut d = Msg::new(K::ProxyData, next as usize, next as usize, line);
                    d.val = m.val;
                    d.chain = if self.prox.chains[id as usize].is_empty() {
                        self.prox.free_chains.push(id);
                        INV
                    } else {
                        id
                    };
                    self.send(cx, d);
                }
                None => self.prox.free_chains.push(id),
            }
        }
        if !kept {
            // Pinned frame: the proxy served its chain and leaves the list at once.
            self.nodes[me].leaving.push(line);
            let home = self.home_of(line);
            let r = Msg::new(K::Replace, home, me, line);
            self.send(cx, r);
        }
        if pend.cpu {
            let t = cx.now();
            if kept {
                self.cpu_complete(me, line, t);
            } else {
                self.cpus[me].t = t;
                self.push_cpu(t, me);
            }
        } else if pend.cpu_retry {
            let t = cx.now();
            self.cpus[me].t = t;
            self.push_cpu(t, me);
        }
        // Interventions that waited for this fill go first, in order.
        self.requeue_deferred(me, line);
    }
}
