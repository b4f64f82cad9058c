//! A generational arena: slots reused after removal, each reuse bumps the slot's generation so
//! stale handles are detected (Rapier's and Box2D's scheme). Generations are 16 bits (the C
//! ids carry them), and the free list is last in, first out, so a game that creates and
//! destroys one body per frame cycles one slot through every generation in 18 minutes at
//! 60 Hz. A slot whose generation would wrap is retired instead (never reused): a stale handle
//! then never names a later object, at the cost of one slot per 65 535 removals.

#[derive(Debug)]
struct Slot<T> {
    generation: u16,
    value: Option<T>,
}

#[derive(Debug)]
pub(crate) struct Arena<T> {
    slots: Vec<Slot<T>>,
    free: Vec<u32>,
    len: usize,
}

// (`clone_from` field by field: a world copied into a kept snapshot reuses its slots)
impl<T: Clone> Clone for Slot<T> {
    fn clone(&self) -> Self {
        Slot {
            generation: self.generation,
            value: self.value.clone(),
        }
    }

    fn clone_from(&mut self, source: &Self) {
        self.generation = source.generation;
        self.value.clone_from(&source.value);
    }
}

impl<T: Clone> Clone for Arena<T> {
    fn clone(&self) -> Self {
        Arena {
            slots: self.slots.clone(),
            free: self.free.clone(),
            len: self.len,
        }
    }

    fn clone_from(&mut self, source: &Self) {
        self.slots.clone_from(&source.slots);
        self.free.clone_from(&source.free);
        self.len = source.len;
    }
}

impl<T> Default for Arena<T> {
    fn default() -> Self {
        Arena {
            slots: Vec::new(),
            free: Vec::new(),
            len: 0,
        }
    }
}

/// How many slots ahead [`Arena::iter_prefetched`] prefetches, and the loops over an island's
/// bodies and joints ([`Arena::prefetch`]).
pub(crate) const PREFETCH_AHEAD: usize = 4;

/// Prefetches every cache line of a slot (nothing off x86-64). A prefetch reads no memory the
/// program sees and cannot fault, so any address will do.
#[inline(always)]
fn prefetch_slot<T>(s: *const Slot<T>) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        let p = s.cast::<i8>();
        for off in (0..size_of::<Slot<T>>()).step_by(64) {
            // SAFETY: a prefetch has no effect on memory and cannot fault
            unsafe { _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(off)) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = s;
}

impl<T> Arena<T> {
    /// Inserts a value; returns (index, generation). Generations start at 1 and skip 0.
    pub fn insert(&mut self, value: T) -> (u32, u16) {
        self.len += 1;
        if let Some(i) = self.free.pop() {
            let s = &mut self.slots[i as usize];
            s.value = Some(value);
            (i, s.generation)
        } else {
            self.slots.push(Slot {
                generation: 1,
                value: Some(value),
            });
            ((self.slots.len() - 1) as u32, 1)
        }
    }

    /// Reserves room for one more slot, without aborting on out-of-memory.
    pub fn try_reserve_one(&mut self) -> Result<(), std::collections::TryReserveError> {
        if self.free.is_empty() {
            self.slots.try_reserve(1)?;
            self.free.try_reserve(1)?;
        }
        Ok(())
    }

    pub fn remove(&mut self, index: u32, generation: u16) -> Option<T> {
        let s = self.slots.get_mut(index as usize)?;
        if s.generation != generation || s.value.is_none() {
            return None;
        }
        let v = s.value.take();
        if s.generation < u16::MAX {
            s.generation += 1;
            self.free.push(index);
        }
        self.len -= 1;
        v
    }

    pub fn get(&self, index: u32, generation: u16) -> Option<&T> {
        let s = self.slots.get(index as usize)?;
        if s.generation != generation {
            return None;
        }
        s.value.as_ref()
    }

    pub fn get_mut(&mut self, index: u32, generation: u16) -> Option<&mut T> {
        let s = self.slots.get_mut(index as usize)?;
        if s.generation != generation {
            return None;
        }
        s.value.as_mut()
    }

    /// Asks the CPU to fetch slot `index` (every cache line of it) into its caches ahead of a
    /// read: the loops over an island's bodies and joints walk their slots, hundreds of bytes
    /// apart, in an order the hardware prefetchers do not follow. Out-of-range indices and
    /// non-x86 targets do nothing.
    #[inline(always)]
    pub fn prefetch(&self, index: u32) {
        if let Some(s) = self.slots.get(index as usize) {
            prefetch_slot(s);
        }
    }

    /// By slot index only (internal references that are kept consistent by the world).
    pub fn slot(&self, index: u32) -> &T {
        self.slots[index as usize]
            .value
            .as_ref()
            .expect("live slot")
    }

    pub fn slot_mut(&mut self, index: u32) -> &mut T {
        self.slots[index as usize]
            .value
            .as_mut()
            .expect("live slot")
    }

    /// By slot index, `None` for a free or unknown slot.
    pub fn live_slot_mut(&mut self, index: u32) -> Option<&mut T> {
        self.slots.get_mut(index as usize)?.value.as_mut()
    }

    pub fn generation(&self, index: u32) -> u16 {
        self.slots[index as usize].generation
    }

    pub fn len(&self) -> usize {
        self.len
    }

    /// Live (index, value) pairs in slot order.
    pub fn iter(&self) -> impl Iterator<Item = (u32, &T)> {
        self.slots
            .iter()
            .enumerate()
            .filter_map(|(i, s)| s.value.as_ref().map(|v| (i as u32, v)))
    }

    pub fn iter_mut(&mut self) -> impl Iterator<Item = (u32, &mut T)> {
        self.slots
            .iter_mut()
            .enumerate()
            .filter_map(|(i, s)| s.value.as_mut().map(|v| (i as u32, v)))
    }

    /// [`Arena::iter`], prefetching the slot four ahead ([`Arena::prefetch`]): for passes
    /// that read much of each value.
    pub fn iter_prefetched(&self) -> impl Iterator<Item = (u32, &T)> {
        (0..self.slots.len()).filter_map(move |i| {
            self.prefetch((i + PREFETCH_AHEAD) as u32);
            self.slots[i].value.as_ref().map(|v| (i as u32, v))
        })
    }

    /// [`Arena::iter_mut`], prefetching the slot four ahead ([`Arena::prefetch`]).
    pub fn iter_mut_prefetched(&mut self) -> impl Iterator<Item = (u32, &mut T)> {
        let n = self.slots.len();
        // (an address only: the prefetch does not access the slot)
        let base = self.slots.as_ptr();
        self.slots.iter_mut().enumerate().filter_map(move |(i, s)| {
            if i + PREFETCH_AHEAD < n {
                prefetch_slot(base.wrapping_add(i + PREFETCH_AHEAD));
            }
            s.value.as_mut().map(|v| (i as u32, v))
        })
    }

    pub fn capacity_slots(&self) -> usize {
        self.slots.len()
    }
}

#[cfg(test)]
mod tests {
    use super::Arena;

    #[test]
    fn a_slot_cycled_through_every_generation_is_retired_and_old_handles_stay_stale() {
        let mut arena = Arena::default();
        let first = arena.insert(0u32);
        let mut last = first;
        for k in 1..=70_000u32 {
            assert_eq!(arena.remove(last.0, last.1), Some(k - 1));
            last = arena.insert(k);
            assert!(
                last != first,
                "cycle {k}: the first handle names object {k}"
            );
            assert!(arena.get(first.0, first.1).is_none());
        }
        // the first slot went through generations 1..=65535 and was retired, then a new slot
        // took over
        assert_eq!(first.0, 0);
        assert_eq!(last.0, 1);
        assert_eq!(arena.len(), 1);
        assert_eq!(arena.capacity_slots(), 2);
        assert!(arena.get(0, u16::MAX).is_none());
        assert!(arena.remove(0, u16::MAX).is_none());
    }

    /// The prefetching iterations visit the live slots as the plain ones do, in slot order,
    /// freed slots (the first, the last, runs of them) left out, and prefetching past the end
    /// or at a free slot does nothing.
    #[test]
    fn prefetching_iterations_visit_the_live_slots_in_order() {
        let mut arena = Arena::default();
        let handles: Vec<_> = (0..40u64).map(|k| arena.insert([k; 70])).collect();
        for k in [0, 7, 8, 9, 21, 39] {
            let (i, g) = handles[k];
            arena.remove(i, g).unwrap();
        }
        let plain: Vec<(u32, u64)> = arena.iter().map(|(i, v)| (i, v[69])).collect();
        assert_eq!(plain.len(), 34);
        let prefetched: Vec<(u32, u64)> =
            arena.iter_prefetched().map(|(i, v)| (i, v[69])).collect();
        assert_eq!(prefetched, plain);
        for (_, v) in arena.iter_mut_prefetched() {
            v[69] += 100;
        }
        let written: Vec<(u32, u64)> = arena.iter().map(|(i, v)| (i, v[69] - 100)).collect();
        assert_eq!(written, plain);
        for index in [0, 39, 40, u32::MAX] {
            arena.prefetch(index);
        }
    }
}
