//! Moving pages: batched `move_pages(2)` with per-page status handling.
//!
//! * A page answering `-EBUSY` (locked, under writeback, pinned for I/O) is retried after the
//!   rest of the batch, up to [`BUSY_ROUNDS`] rounds; then it stays where it is.
//! * A page answering `-ENOMEM` (target node full) falls back to the next node in the target's
//!   nearest-node order, as IRIX did (seed 000 §2.1: "the page is placed on the nearest node
//!   with free memory"), trying each at most once.
//! * `-ENOENT` (not present: never touched), `-EFAULT`, `-EACCES` and other per-page errors
//!   leave the page alone and are counted.
//! * A call that fails as a whole with `ENOMEM` (Linux does this when the target node cannot
//!   take the batch) is retried page by page, so that each page falls back on its own.
//! * A failure of the call itself (`EPERM`, `ENODEV`, ...) stops the move and is returned.
//!
//! The kernel moves a page atomically with respect to the process's own accesses (the page
//! is unmapped behind a migration entry while it is copied, and accessors wait), so concurrent
//! readers and writers never see a torn or stale page; the VM tests check it.

use crate::sys::{Sys, SysError};

/// At most this many pages per `move_pages` call.
pub const BATCH: usize = 1024;
/// Rounds of retries for busy pages.
pub const BUSY_ROUNDS: u32 = 3;

/// What a move achieved.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MoveReport {
    /// Pages now on their target (or fallback) node that were elsewhere before.
    pub moved: u64,
    /// Pages that were already there.
    pub already: u64,
    /// Pages placed on a fallback node because the target was full.
    pub fallbacks: u64,
    /// Busy answers retried.
    pub busy_retries: u64,
    /// Pages left where they were (busy to the end, no node with room, not present, other
    /// per-page errors).
    pub failed: u64,
    /// Final node of each requested page (`-errno` where it failed), in request order.
    pub result: Vec<i32>,
}

/// Moves `pages[i]` to `targets[i]`. `nearest[n]` is node n's fallback order (itself first).
///
/// # Errors
/// The system call as a whole failed.
pub fn move_pages(sys: &dyn Sys, pages: &[usize], targets: &[usize], nearest: &[Vec<usize>]) -> Result<MoveReport, SysError> {
    assert_eq!(pages.len(), targets.len());
    let mut rep = MoveReport { result: vec![0; pages.len()], ..MoveReport::default() };
    // Where each page is now, to tell moves from pages already in place.
    let before = query(sys, pages)?;
    // Pending requests: (index, target, fallback position tried).
    let mut pending: Vec<(usize, usize, usize)> = Vec::new();
    for (i, (&t, &b)) in targets.iter().zip(&before).enumerate() {
        if b < 0 {
            rep.result[i] = b;
            rep.failed += 1;
        } else if b as usize == t {
            rep.result[i] = b;
            rep.already += 1;
        } else {
            pending.push((i, t, 0));
        }
    }
    let mut busy_round = 0;
    while !pending.is_empty() {
        let mut next = Vec::new();
        let mut saw_busy = false;
        for chunk in pending.chunks(BATCH) {
            let addrs: Vec<usize> = chunk.iter().map(|&(i, ..)| pages[i]).collect();
            let to: Vec<usize> = chunk.iter().map(|&(_, t, _)| t).collect();
            let mut status = vec![0i32; chunk.len()];
            match sys.move_pages(&addrs, Some(&to), &mut status) {
                Ok(()) => {}
                // Linux fails the whole call with ENOMEM when a target node has no room for
                // the batch (its per-page status is then not filled in): retry page by page,
                // so each page gets its own answer and the full node its fallbacks.
                Err(e) if e.errno == libc::ENOMEM => {
                    for (k, (&a, &t)) in addrs.iter().zip(&to).enumerate() {
                        let mut one = [0i32];
                        status[k] = match sys.move_pages(&[a], Some(&[t]), &mut one) {
                            Ok(()) => one[0],
                            Err(e) if e.errno == libc::ENOMEM => -libc::ENOMEM,
                            Err(e) => return Err(e),
                        };
                    }
                }
                Err(e) => return Err(e),
            }
            for (&(i, t, tried), &s) in chunk.iter().zip(&status) {
                let want = targets[i];
                if s >= 0 {
                    rep.result[i] = s;
                    if s as usize == before[i] as usize {
                        rep.already += 1;
                    } else {
                        rep.moved += 1;
                        if s as usize != want {
                            rep.fallbacks += 1;
                        }
                    }
                } else if s == -libc::EBUSY && busy_round < BUSY_ROUNDS {
                    rep.busy_retries += 1;
                    saw_busy = true;
                    next.push((i, t, tried));
                } else if s == -libc::ENOMEM {
                    // The next node with memory in the target's fallback order.
                    let order = &nearest[want];
                    match order.iter().enumerate().skip(tried + 1).find(|&(_, &n)| n != t && n != before[i] as usize) {
                        Some((pos, &n)) => next.push((i, n, pos)),
                        None => {
                            rep.result[i] = s;
                            rep.failed += 1;
                        }
                    }
                } else {
                    rep.result[i] = s;
                    rep.failed += 1;
                }
            }
        }
        if saw_busy {
            busy_round += 1;
        }
        pending = next;
    }
    Ok(rep)
}

/// Current node of each page (`-errno` where not present).
///
/// # Errors
/// The system call failed.
pub fn query(sys: &dyn Sys, pages: &[usize]) -> Result<Vec<i32>, SysError> {
    let mut out = vec![0i32; pages.len()];
    for (addrs, status) in pages.chunks(BATCH).zip(out.chunks_mut(BATCH)) {
        sys.move_pages(addrs, None, status)?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sys::FakeSys;

    fn nearest(n: usize) -> Vec<Vec<usize>> {
        (0..n).map(|i| {
            let mut v: Vec<usize> = (0..n).collect();
            v.sort_by_key(|&j| (i.abs_diff(j), j));
            v
        }).collect()
    }

    #[test]
    fn moves_retries_busy_pages_and_falls_back_when_the_target_is_full() {
        let s = FakeSys::new(4, 100);
        s.touch(0, 8 * 4096); // 8 pages on node 0
        {
            let mut st = s.state.lock().unwrap();
            st.busy.insert(4096, 2); // busy twice, then moves
            st.busy.insert(2 * 4096, 10); // busy to the end
            st.free[2] = 1; // node 2 takes one more page
        }
        let pages: Vec<usize> = (0..8).map(|p| p * 4096).collect();
        let targets = [0, 1, 1, 2, 2, 2, 3, 3];
        let r = move_pages(&s, &pages, &targets, &nearest(4)).unwrap();
        assert_eq!(r.already, 1);
        assert_eq!(r.failed, 1, "{r:?}"); // the page busy to the end
        assert_eq!(r.result[2], -libc::EBUSY);
        assert_eq!(r.moved, 6);
        assert_eq!(r.fallbacks, 2); // two of the three for node 2 went to its nearest: 1 or 3
        assert!(r.busy_retries >= 5);
        assert_eq!(s.node_of(4096), Some(1));
        assert_eq!((3..6).filter(|&p| s.node_of(p * 4096) == Some(2)).count(), 1);
        for p in 3..6 {
            assert!(matches!(s.node_of(p * 4096), Some(1 | 2 | 3)));
        }
    }

    #[test]
    fn pages_never_touched_are_counted_as_failed_and_a_failed_call_is_an_error() {
        let s = FakeSys::new(2, 10);
        let r = move_pages(&s, &[0x5000], &[1], &nearest(2)).unwrap();
        assert_eq!((r.moved, r.failed, r.result[0]), (0, 1, -libc::ENOENT));
        s.state.lock().unwrap().fail_all = Some(libc::EPERM);
        let e = move_pages(&s, &[0x5000], &[1], &nearest(2)).unwrap_err();
        assert_eq!(e.errno, libc::EPERM);
    }

    #[test]
    fn a_whole_call_failing_with_enomem_is_retried_page_by_page_with_fallbacks() {
        let s = FakeSys::new(3, 100);
        s.touch(0, 4 * 4096);
        {
            let mut st = s.state.lock().unwrap();
            st.whole_call_enomem = true;
            st.free[2] = 0;
        }
        let pages: Vec<usize> = (0..4).map(|p| p * 4096).collect();
        let r = move_pages(&s, &pages, &[1, 2, 1, 2], &nearest(3)).unwrap();
        assert_eq!((r.moved, r.fallbacks, r.failed), (4, 2, 0), "{r:?}");
        assert!((0..4).all(|p| s.node_of(p * 4096) == Some(1)));
    }

    #[test]
    fn every_node_full_leaves_the_page_where_it_was() {
        let s = FakeSys::new(3, 10);
        s.touch(0, 4096);
        s.state.lock().unwrap().free = vec![9, 0, 0];
        let r = move_pages(&s, &[0], &[1], &nearest(3)).unwrap();
        assert_eq!(r.failed, 1);
        assert_eq!(s.node_of(0), Some(0));
    }
}
