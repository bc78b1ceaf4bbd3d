//! The network: a LogP crossbar (seed 004 §1.4; docs/protocol.md, "Network"). Per node its
//! interface's injection times (one send every g cycles) and last receipt (the receive gap),
//! and per ordered pair of nodes a FIFO channel (a message never overtakes an earlier one on
//! the same channel). A leaf of the engine's parts.

/// The network's state and LogP parameters.
pub(super) struct Network {
    n: usize,
    /// LogP g.
    gap: u64,
    /// Send-backs of bounced reads share the injection slots (`InterfaceModel::bounce_gap`).
    shared_slots: bool,
    /// Per ordered pair (source-major), the latest arrival scheduled on the channel.
    chan: Vec<u64>,
    /// Per node, its last injection (without `shared_slots`).
    last_inject: Vec<Option<u64>>,
    /// Per node, the network interface's last receipt (receive gap).
    last_receive: Vec<Option<u64>>,
    /// Per node, injection times taken, sorted (with `shared_slots`: bounces that cost a slot,
    /// the controller's sends and the send-backs share the interface, one every g cycles).
    inject_slots: Vec<Vec<u64>>,
}

impl Network {
    pub(super) fn new(n: usize, gap: u64, shared_slots: bool) -> Network {
        Network {
            n,
            gap,
            shared_slots,
            chan: vec![0; n * n],
            last_inject: vec![None; n],
            last_receive: vec![None; n],
            inject_slots: vec![Vec::new(); n],
        }
    }

    /// When `node`'s interface receives a message arriving at `now` (one receipt every g
    /// cycles, in arrival order); takes that receipt.
    #[inline]
    pub(super) fn receive(&mut self, node: usize, now: u64) -> u64 {
        let r = self.last_receive[node].map_or(now, |l| now.max(l + self.gap));
        self.last_receive[node] = Some(r);
        r
    }

    /// The injection time of a send by `src`'s controller ready at `t` (now is the current
    /// event's time).
    #[inline]
    pub(super) fn inject(&mut self, src: usize, t: u64, now: u64) -> u64 {
        if self.shared_slots {
            return self.inject_slot(src, t, now);
        }
        let inject = match self.last_inject[src] {
            Some(l) => t.max(l + self.gap),
            None => t,
        };
        self.last_inject[src] = Some(inject);
        inject
    }

    /// The time a bounced read leaves `node` (it bounces at `now`): the next injection slot
    /// when send-backs share them, else at once.
    #[inline]
    pub(super) fn send_back(&mut self, node: usize, now: u64) -> u64 {
        if self.shared_slots {
            self.inject_slot(node, now, now)
        } else {
            now
        }
    }

    /// The arrival at `dst` of a message `src` injects at `inject` with latency `lat`: no
    /// earlier than the channel's last.
    #[inline]
    pub(super) fn deliver(&mut self, src: usize, dst: usize, inject: u64, lat: u64) -> u64 {
        let ch = &mut self.chan[src * self.n + dst];
        let at = (inject + lat).max(*ch);
        *ch = at;
        at
    }

    /// The earliest injection time at or after `t` at least g from every one `node` has taken;
    /// takes it. Times more than g before the current event (`now`) can no longer conflict.
    fn inject_slot(&mut self, node: usize, t: u64, now: u64) -> u64 {
        let g = self.gap;
        let floor = now.saturating_sub(g);
        let slots = &mut self.inject_slots[node];
        // Slots are taken at or after the current event, so one before `floor` is passed over
        // by every later search: it is pruned only when the list grows, and the common case,
        // a time after every slot taken, is an append.
        if slots.last().is_none_or(|&l| l + g <= t) {
            if slots.len() >= 16 {
                slots.retain(|&r| r >= floor);
            }
            slots.push(t);
            return t;
        }
        slots.retain(|&r| r >= floor);
        let mut x = t;
        let mut at = slots.len();
        for (i, &r) in slots.iter().enumerate() {
            if r + g <= x {
                continue;
            }
            if r >= x + g {
                at = i;
                break;
            }
            x = r + g;
        }
        slots.insert(at, x);
        x
    }
}
