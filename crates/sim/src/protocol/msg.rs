//! The protocol engine's messages: their kinds ([`K`], reported as [`KIND_NAMES`]), flags, the
//! packed [`Msg`] record, the slab that holds messages in flight, and the event payload
//! encoding of the event queue. A leaf of the engine's parts: it imports none of them.

/// No message, chain or transaction (`u32` fields).
pub(super) const INV: u32 = u32::MAX;
/// No node (`u16` fields).
pub(super) const NONE16: u16 = u16::MAX;

/// Message types. The order is the order of [`KIND_NAMES`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum K {
    ReadReq,
    WriteReq,
    UpgradeReq,
    ProxyRead,
    Data,
    DataEx,
    UpgradeAck,
    ProxyData,
    FwdRead,
    FwdWrite,
    Inval,
    InvalAck,
    SharingWb,
    OwnerAck,
    WriteBack,
    WbAck,
    Replace,
    BarrierArrive,
    BarrierRelease,
    /// A bounced read request (counted as `bounce`; the message keeps its own kind).
    Bounce,
    /// CPU to its own controller (never on the network).
    CpuMiss,
    CpuBarrier,
}

/// Names of the message types as reported (`msg_<name>`), in [`K`] order.
pub const KIND_NAMES: [&str; 20] = [
    "read_req",
    "write_req",
    "upgrade_req",
    "proxy_read",
    "data",
    "data_ex",
    "upgrade_ack",
    "proxy_data",
    "fwd_read",
    "fwd_write",
    "inval",
    "inval_ack",
    "sharing_wb",
    "owner_ack",
    "write_back",
    "wb_ack",
    "replace",
    "barrier_arrive",
    "barrier_release",
    "bounce",
];

impl K {
    /// Carries a line of data (LogP long message).
    #[inline]
    pub(super) fn long(self) -> bool {
        matches!(self, K::Data | K::DataEx | K::ProxyData | K::SharingWb | K::WriteBack)
    }
}

pub(super) const F_BOUNCED: u8 = 1;
/// A read request a proxy sends on its own behalf (to fill its cache and serve a chain).
pub(super) const F_FETCH: u8 = 2;
/// SharingWb from an owner that answered from its write-back buffer (it keeps no copy).
pub(super) const F_NOT_RETAINED: u8 = 4;
/// CpuMiss for a store.
pub(super) const F_WRITE: u8 = 8;
/// Its receipt slot at the destination's interface is taken (receive gap): it is received
/// when this arrival event fires.
pub(super) const F_RECEIVED: u8 = 16;

/// A message: 40 bytes, the fields ordered so that it packs without padding.
#[derive(Clone, Copy, Debug)]
pub(super) struct Msg {
    /// Arrival time at `dst`.
    pub at: u64,
    pub val: u64,
    pub line: u32,
    pub tid: u32,
    /// Proxy chain slab index, or `INV`.
    pub chain: u32,
    pub src: u16,
    pub dst: u16,
    /// The node the transaction is for (the requester).
    pub req: u16,
    pub kind: K,
    pub flags: u8,
}

impl Msg {
    #[inline]
    pub(super) fn new(kind: K, dst: usize, req: usize, line: u32) -> Msg {
        Msg { kind, flags: 0, src: 0, dst: dst as u16, req: req as u16, line, tid: 0, chain: INV, val: 0, at: 0 }
    }
}

/// A queued event's payload (the queue keeps its time; `queue::EventQueue`): bits 30-31: 0
/// CPU, 1 message arrival (slab index), 2 controller done; bits 0-29: the id. Small, so the
/// queue moves little; a message waits in the slab.
pub(super) const EV_CPU: u32 = 0;
pub(super) const EV_ARRIVE: u32 = 1 << 30;
pub(super) const EV_DONE: u32 = 2 << 30;
pub(super) const EV_ID: u32 = (1 << 30) - 1;

/// The messages in flight (scheduled to arrive), by slab index; freed indices are reused, so
/// after the first misses a send allocates nothing.
#[derive(Default)]
pub(super) struct MsgSlab {
    slab: Vec<Msg>,
    free: Vec<u32>,
}

impl MsgSlab {
    /// Stores `m`, returning its index.
    #[inline]
    pub(super) fn put(&mut self, m: Msg) -> u32 {
        let i = match self.free.pop() {
            Some(i) => {
                self.slab[i as usize] = m;
                i
            }
            None => {
                self.slab.push(m);
                (self.slab.len() - 1) as u32
            }
        };
        debug_assert!(i <= EV_ID);
        i
    }

    /// Takes message `i` out (its index is free again).
    #[inline]
    pub(super) fn take(&mut self, i: u32) -> Msg {
        let m = self.slab[i as usize];
        self.free.push(i);
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_packs_into_forty_bytes_and_kinds_match_their_names() {
        assert_eq!(std::mem::size_of::<Msg>(), 40);
        assert_eq!(K::Bounce as usize, KIND_NAMES.len() - 1);
        assert_eq!(KIND_NAMES[K::WbAck as usize], "wb_ack");
    }
}
