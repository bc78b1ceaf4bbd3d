//! A sharing list as the home sees it, head first: up to [`INLINE`] entries in place, longer
//! lists on the heap. Most lines have few sharers, so a machine's worth of lists costs no
//! allocation (and no freeing) in the common case. An empty list is all-zero bytes, so the
//! directory's chunks of entries start as zeroed memory (`lines::Zeroed`).

use std::ops::Deref;

/// Entries held without allocating.
pub const INLINE: usize = 10;

#[derive(Clone, Debug, Default)]
pub struct SharingList {
    /// Entries in `inline` (when `heap` is `None`).
    n: u8,
    inline: [u16; INLINE],
    /// A list longer than [`INLINE`] entries, once it has been. Boxed: `None` is then the null
    /// pointer, so an empty list is zero bytes, and the field takes 8 bytes instead of 24.
    #[allow(clippy::box_collection)]
    heap: Option<Box<Vec<u16>>>,
}

impl Deref for SharingList {
    type Target = [u16];
    #[inline]
    fn deref(&self) -> &[u16] {
        match &self.heap {
            None => &self.inline[..self.n as usize],
            Some(v) => v,
        }
    }
}

impl SharingList {
    #[inline]
    pub fn insert(&mut self, i: usize, x: u16) {
        match &mut self.heap {
            None if (self.n as usize) < INLINE => {
                let len = self.n as usize;
                if i < len {
                    self.inline.copy_within(i..len, i + 1);
                }
                self.inline[i] = x;
                self.n += 1;
            }
            None => {
                let mut v = self.inline[..self.n as usize].to_vec();
                v.insert(i, x);
                self.heap = Some(Box::new(v));
            }
            Some(v) => v.insert(i, x),
        }
    }

    #[inline]
    pub fn push(&mut self, x: u16) {
        let len = self.len();
        self.insert(len, x);
    }

    #[inline]
    pub fn remove(&mut self, i: usize) -> u16 {
        match &mut self.heap {
            None => {
                let x = self.inline[i];
                self.inline.copy_within(i + 1..self.n as usize, i);
                self.n -= 1;
                x
            }
            Some(v) => v.remove(i),
        }
    }

    pub fn retain(&mut self, keep: impl Fn(&u16) -> bool) {
        let kept: Vec<u16> = self.iter().copied().filter(|x| keep(x)).collect();
        self.clear();
        for x in kept {
            self.push(x);
        }
    }

    pub fn clear(&mut self) {
        *self = SharingList::default();
    }

    pub fn set(&mut self, xs: &[u16]) {
        self.clear();
        for &x in xs {
            self.push(x);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn behaves_like_a_vec_past_the_inline_size() {
        let mut l = SharingList::default();
        let mut v: Vec<u16> = Vec::new();
        for i in 0..25u16 {
            let at = (i as usize * 7) % (v.len() + 1);
            l.insert(at, i);
            v.insert(at, i);
            assert_eq!(&*l, &v[..]);
        }
        for i in [3usize, 0, 10] {
            assert_eq!(l.remove(i), v.remove(i));
        }
        l.retain(|&x| x % 2 == 0);
        v.retain(|&x| x % 2 == 0);
        assert_eq!(&*l, &v[..]);
        l.set(&[4, 5]);
        assert_eq!(&*l, &[4, 5]);
    }
}
