//! A sharing list as the home sees it, head first: up to [`INLINE`] entries in place, longer
//! lists on the heap. Most lines have few sharers, so a machine's worth of lists costs no
//! allocation (and no freeing) in the common case.

use std::ops::Deref;

/// Entries held without allocating.
pub const INLINE: usize = 10;

#[derive(Clone, Debug)]
pub enum SharingList {
    Inline(u8, [u16; INLINE]),
    Heap(Vec<u16>),
}

impl Default for SharingList {
    fn default() -> Self {
        SharingList::Inline(0, [0; INLINE])
    }
}

impl Deref for SharingList {
    type Target = [u16];
    fn deref(&self) -> &[u16] {
        match self {
            SharingList::Inline(n, a) => &a[..*n as usize],
            SharingList::Heap(v) => v,
        }
    }
}

impl SharingList {
    pub fn insert(&mut self, i: usize, x: u16) {
        match self {
            SharingList::Inline(n, a) if (*n as usize) < INLINE => {
                let len = *n as usize;
                a.copy_within(i..len, i + 1);
                a[i] = x;
                *n += 1;
            }
            SharingList::Inline(n, a) => {
                let mut v = a[..*n as usize].to_vec();
                v.insert(i, x);
                *self = SharingList::Heap(v);
            }
            SharingList::Heap(v) => v.insert(i, x),
        }
    }

    pub fn push(&mut self, x: u16) {
        let len = self.len();
        self.insert(len, x);
    }

    pub fn remove(&mut self, i: usize) -> u16 {
        match self {
            SharingList::Inline(n, a) => {
                let x = a[i];
                a.copy_within(i + 1..*n as usize, i);
                *n -= 1;
                x
            }
            SharingList::Heap(v) => v.remove(i),
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
