//! The proxies' handlers (seed 004 §1.3): a bounced read retried (reactive proxies: through a
//! proxy), a proxy read at the proxy (served from its cache, combined with a fetch in flight,
//! or fetched for a chain of clients), and linking a client into the sharing list after the
//! proxy.

use super::caches::{ST_M, ST_S};
use super::ctrl::{Cx, PKind, Pend};
use super::msg::{Msg, INV, K, F_BOUNCED, F_FETCH};
use super::params::ProxyMode;
use super::state::Eng;

impl Eng<'_> {
    pub(super) fn is_proxy_line(&self, line: u32) -> bool {
        let r = self.page_region[(line >> self.page_lines_shift) as usize];
        r != INV && self.prox.region[r as usize]
    }

    /// A bounced read request is back at its sender: retry (reactive: through a proxy).
    pub(super) fn retry(&mut self, cx: &mut Cx, mut m: Msg) {
        m.flags &= !F_BOUNCED;
        let me = cx.node;
        let home = self.home_of(m.line);
        match m.kind {
            K::ReadReq => {
                if self.prox.mode == ProxyMode::Reactive && m.req as usize == me && m.flags & F_FETCH == 0 {
                    let p = self.prox.proxy_of(m.line, me);
                    if p != me && p != home {
                        self.st.proxy_reads += 1;
                        self.st.reactive_proxy_reads += 1;
                        let r = Msg::new(K::ProxyRead, p, me, m.line);
                        self.send(cx, r);
                        return;
                    }
                }
                m.dst = home as u16;
                self.send(cx, m);
            }
            K::ProxyRead => {
                m.dst = self.prox.proxy_of(m.line, me) as u16;
                self.send(cx, m);
            }
            _ => unreachable!("only read requests bounce"),
        }
    }

    pub(super) fn on_proxy_read(&mut self, cx: &mut Cx, m: Msg) {
        let me = cx.node;
        let line = m.line;
        let client = m.req as usize;
        let home = self.home_of(line);
        let lookup = self.p.slc_lookup;
        if let Some(i) = self.nodes[me].pend_pos(line) {
            if self.nodes[me].pend[i].kind == PKind::Read {
                self.nodes[me].pend[i].chain.push(client as u16);
                self.st.combined += 1;
                self.slc_op(cx, lookup);
            } else {
                // A store is pending here: the client's read goes to the home.
                let mut r = Msg::new(K::ReadReq, home, client, line);
                r.req = client as u16;
                self.send(cx, r);
            }
            return;
        }
        match self.caches.valid_at(me, line) {
            ST_S => {
                let a = self.p.slc_lookup + self.p.slc_line_access;
                self.slc_op(cx, a);
                self.st.proxy_hits += 1;
                let si = self.caches.sidx(me, line);
                let val = self.caches.slc_val[si];
                self.link_after(me, client, line);
                let mut d = Msg::new(K::ProxyData, client, client, line);
                d.val = val;
                self.send(cx, d);
            }
            ST_M => {
                self.slc_op(cx, lookup);
                let r = Msg::new(K::ReadReq, home, client, line);
                self.send(cx, r);
            }
            _ => {
                self.slc_op(cx, lookup);
                self.nodes[me].pend.push(Pend {
                    line,
                    kind: PKind::Read,
                    cpu: false,
                    cpu_retry: false,
                    chain: vec![client as u16],
                    sent: u64::MAX,
                });
                let mut r = Msg::new(K::ReadReq, home, me, line);
                r.flags |= F_FETCH;
                self.send(cx, r);
            }
        }
    }

    /// Links `client` into the sharing list directly after `node` (a local pointer update at
    /// `node`: the client takes the node's next pointer).
    pub(super) fn link_after(&mut self, node: usize, client: usize, line: u32) {
        let list = &mut self.dir.lines[line as usize].list;
        match list.iter().position(|&x| x as usize == node) {
            Some(p) => list.insert(p + 1, client as u16),
            None => self.err = self.err.take().or(Some(format!("proxy {node} serves line {line:#x} but is not in its sharing list"))),
        }
    }
}
