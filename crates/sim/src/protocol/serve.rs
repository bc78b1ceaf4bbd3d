//! The node controllers' service: a message's arrival at a node's interface (the receive gap,
//! bounces of finite buffers), its input queue, the non-pipelined service that dispatches it to
//! its handler, the SLC and memory bus tenures, and sends over the network.

use super::cpu::CpuState;
use super::ctrl::Cx;
use super::msg::{Msg, K, F_BOUNCED, F_RECEIVED};
use super::state::Eng;

impl Eng<'_> {
    pub(super) fn arrive(&mut self, mut m: Msg) {
        let d = m.dst as usize;
        if self.iface.receive_gap && m.src != m.dst {
            // LogP g on receives (seed §1.4): the interface takes in one message every g
            // cycles, in arrival order; a read it turns away is received first.
            if m.flags & F_RECEIVED == 0 {
                let now = self.now;
                let r = self.net.receive(d, now);
                if r > now {
                    m.flags |= F_RECEIVED;
                    m.at = r;
                    self.push_msg(r, m);
                    return;
                }
            }
            m.flags &= !F_RECEIVED;
        }
        if let Some(limit) = self.limit {
            let read = matches!(m.kind, K::ReadReq | K::ProxyRead);
            let full = if self.iface.hysteresis { self.nodes[d].bouncing } else { self.nodes[d].queue.len() >= limit };
            if read && m.flags & F_BOUNCED == 0 && m.src != m.dst && full {
                // Bounced straight back by the network interface (seed §1.4).
                self.st.bounces += 1;
                self.st.msgs[K::Bounce as usize] += 1;
                m.flags |= F_BOUNCED;
                let s = m.src as usize;
                m.src = d as u16;
                m.dst = s as u16;
                let out = self.net.send_back(d, self.now);
                let at = self.net.deliver(d, s, out, self.p.latency_short);
                m.at = at;
                self.push_msg(at, m);
                return;
            }
        }
        self.enqueue(d, m);
    }

    /// Takes `m` into `d`'s input queue; the controller serves it now if idle, else a `Done`
    /// event at the end of the current service will.
    pub(super) fn enqueue(&mut self, d: usize, m: Msg) {
        let now = self.now;
        let nd = &self.nodes[d];
        if !nd.done_pending && now >= nd.busy_until && nd.queue.is_empty() {
            // An idle controller takes it at once: what queueing it and serving the queue's
            // head does, without the queue (an empty queue is below any limit, so the
            // hysteresis state is already clear and stays so).
            self.st.queued(1);
            self.serve_from(d, Some(m));
            return;
        }
        self.nodes[d].queue.push_back(m);
        self.nodes[d].note_len(self.hyst_limit);
        let nd = &mut self.nodes[d];
        let in_service = now < nd.busy_until;
        let len = nd.queue.len() as u64 + u64::from(in_service);
        self.st.queued(len);
        if !nd.done_pending {
            if in_service {
                nd.done_pending = true;
                let t = nd.busy_until;
                self.push_done(t, d);
            } else {
                self.serve(d);
            }
        }
    }

    pub(super) fn done(&mut self, d: usize) {
        self.nodes[d].done_pending = false;
        self.serve(d);
    }

    /// Serves the messages at the head of `d`'s queue (the controller is idle at `now`): the
    /// first now, each next one when the previous ends — directly when no other event comes
    /// first (time then advances to it), else through a `Done` event.
    pub(super) fn serve(&mut self, d: usize) {
        self.serve_from(d, None);
    }

    /// [`Eng::serve`], `first` (when given) served before the queue, as if it had been its head.
    pub(super) fn serve_from(&mut self, d: usize, mut first: Option<Msg>) {
        loop {
            let m = match first.take() {
                Some(m) => m,
                None => {
                    let Some(m) = self.nodes[d].queue.pop_front() else { return };
                    self.nodes[d].note_len(self.hyst_limit);
                    m
                }
            };
            let s = self.now;
            self.st.queue_cycles += s - m.at.min(s);
            let mut cx = Cx { node: d, s, w: 0 };
            self.handle(&mut cx, m);
            let nd = &mut self.nodes[d];
            nd.busy_cycles += cx.w;
            nd.busy_until = s + cx.w;
            if nd.queue.is_empty() || nd.done_pending {
                return;
            }
            let t = nd.busy_until;
            if self.events.peek_t().is_none_or(|e| e > t) {
                self.now = t;
                continue;
            }
            self.nodes[d].done_pending = true;
            self.push_done(t, d);
            return;
        }
    }

    /// The controller uses the SLC bus for `cycles` (plus acquire and release). It waits for
    /// the CPU's access in progress, at most one SLC access; bus time a CPU running ahead has
    /// booked beyond that slips by the controller's tenure, and so does that CPU's clock.
    #[inline]
    pub(super) fn slc_op(&mut self, cx: &mut Cx, cycles: u64) {
        let node = cx.node;
        let t = cx.now();
        let p = &self.p;
        let dur = p.acquire_slc_bus + cycles + p.release_slc_bus;
        let one_access = p.acquire_slc_bus + p.slc_lookup + p.slc_line_access + p.release_slc_bus;
        let free = self.caches.slc_free[node];
        let start = free.min(t + one_access).max(t);
        let end = start + dur;
        if free > start {
            self.caches.slc_free[node] = free + dur;
            let cpu = &mut self.cpus[node];
            if cpu.state == CpuState::Run && cpu.t > start {
                cpu.t += dur;
            }
        } else {
            self.caches.slc_free[node] = end;
        }
        cx.w = end - cx.s;
    }

    #[inline]
    pub(super) fn mem_op(&mut self, cx: &mut Cx, cycles: u64) {
        cx.w += self.p.acquire_mem_bus + cycles + self.p.release_mem_bus;
    }

    pub(super) fn send(&mut self, cx: &mut Cx, mut m: Msg) {
        let src = cx.node;
        let dst = m.dst as usize;
        m.src = src as u16;
        if dst == src {
            // To itself: straight into its own queue, served after the current message.
            m.at = cx.now();
            self.nodes[src].queue.push_back(m);
            self.nodes[src].note_len(self.hyst_limit);
            let nd = &mut self.nodes[src];
            let len = nd.queue.len() as u64 + 1;
            self.st.queued(len);
            return;
        }
        cx.w += self.p.send;
        let inject = self.net.inject(src, cx.now(), self.now);
        cx.w = inject - cx.s;
        let lat = if m.kind.long() { self.p.latency_long } else { self.p.latency_short };
        let at = self.net.deliver(src, dst, inject, lat);
        m.at = at;
        self.st.msgs[m.kind as usize] += 1;
        self.push_msg(at, m);
    }

    pub(super) fn handle(&mut self, cx: &mut Cx, m: Msg) {
        if m.flags & F_BOUNCED != 0 {
            self.retry(cx, m);
            return;
        }
        match m.kind {
            K::CpuMiss => self.on_cpu_miss(cx, m),
            K::CpuBarrier => {
                let mut a = Msg::new(K::BarrierArrive, 0, cx.node, 0);
                a.req = cx.node as u16;
                if cx.node == 0 {
                    self.on_barrier_arrive(cx);
                } else {
                    self.send(cx, a);
                }
            }
            K::BarrierArrive => self.on_barrier_arrive(cx),
            K::BarrierRelease => {
                let c = cx.node;
                self.cpus[c].t = cx.now();
                self.retire(c);
                self.push_cpu(cx.now(), c);
            }
            K::ReadReq | K::WriteReq | K::UpgradeReq | K::Replace => self.home_req(cx, m),
            K::ProxyRead => self.on_proxy_read(cx, m),
            K::Data | K::DataEx | K::UpgradeAck | K::ProxyData => self.on_fill(cx, m),
            K::FwdRead | K::FwdWrite => self.on_fwd(cx, m),
            K::Inval => self.on_inval(cx, m),
            K::InvalAck | K::SharingWb | K::OwnerAck => self.home_reply(cx, m),
            K::WriteBack => self.on_writeback(cx, m),
            K::WbAck => {
                let nd = &mut self.nodes[cx.node];
                if let Some(i) = nd.wb.iter().position(|&(l, _)| l == m.line) {
                    nd.wb.swap_remove(i);
                }
                self.requeue_deferred(cx.node, m.line);
            }
            K::Bounce => unreachable!("bounces keep their own kind"),
        }
    }

    pub(super) fn on_barrier_arrive(&mut self, cx: &mut Cx) {
        self.barrier_count += 1;
        if self.barrier_count == self.n {
            self.barrier_count = 0;
            self.barriers += 1;
            for d in 0..self.n {
                let r = Msg::new(K::BarrierRelease, d, d, 0);
                self.send(cx, r);
            }
        }
    }

    /// Puts the messages deferred for `line` at `node` back at the head of its queue, in order
    /// (at every fill: inline, and nothing to do when nothing is deferred, the common case).
    #[inline]
    pub(super) fn requeue_deferred(&mut self, node: usize, line: u32) {
        if !self.nodes[node].deferred.is_empty() {
            self.requeue_deferred_of(node, line);
        }
    }

    #[inline(never)]
    fn requeue_deferred_of(&mut self, node: usize, line: u32) {
        let nd = &mut self.nodes[node];
        if nd.deferred.iter().any(|d| d.line == line) {
            let (mine, rest): (Vec<Msg>, Vec<Msg>) = nd.deferred.drain(..).partition(|d| d.line == line);
            nd.deferred = rest;
            for d in mine.into_iter().rev() {
                nd.queue.push_front(d);
            }
            self.nodes[node].note_len(self.hyst_limit);
        }
    }
}
