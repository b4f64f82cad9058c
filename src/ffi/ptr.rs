//! Pointer checks: every pointer is checked for NULL and alignment before the world is touched.

use super::result::{FfiError, tenon_result};

fn check<T>(p: *const T, name: &str) -> Result<(), FfiError> {
    if p.is_null() {
        return Err(FfiError::new(
            tenon_result::NullPointer,
            format!("{name} is NULL"),
        ));
    }
    if !p.is_aligned() {
        return Err(FfiError::new(
            tenon_result::InvalidArgument,
            format!("{name} is not aligned for its type"),
        ));
    }
    Ok(())
}

/// Reads an input struct after checking the pointer. Every type read this way is plain data
/// (integers and doubles), so any bit pattern is a valid value.
pub(crate) unsafe fn read_in<T: Copy>(p: *const T, name: &str) -> Result<T, FfiError> {
    check(p, name)?;
    // SAFETY: non-null and aligned; the caller promises it points to a T (header contract).
    Ok(unsafe { p.read() })
}

/// A checked, non-null out-parameter, written at most once, on success.
pub(crate) struct Out<T>(*mut T);

impl<T> Out<T> {
    pub fn new(p: *mut T, name: &str) -> Result<Self, FfiError> {
        check(p, name)?;
        Ok(Out(p))
    }

    /// Writes the value.
    pub unsafe fn write(self, v: T) {
        // SAFETY: checked non-null and aligned in `new`; validity is the caller's contract.
        unsafe { self.0.write(v) }
    }
}

/// A nullable out-parameter: NULL means "not wanted".
pub(crate) struct OutOpt<T>(*mut T);

impl<T> OutOpt<T> {
    pub fn new(p: *mut T, name: &str) -> Result<Self, FfiError> {
        if !p.is_null() {
            check(p, name)?;
        }
        Ok(OutOpt(p))
    }

    pub unsafe fn write(self, v: T) {
        if !self.0.is_null() {
            // SAFETY: checked aligned in `new`; validity is the caller's contract.
            unsafe { self.0.write(v) }
        }
    }
}

/// A caller array of `capacity` elements; NULL allowed when `capacity` is 0 or when `nullable`.
pub(crate) struct OutArray<T> {
    p: *mut T,
    capacity: usize,
}

impl<T> OutArray<T> {
    pub fn new(p: *mut T, capacity: usize, nullable: bool, name: &str) -> Result<Self, FfiError> {
        if p.is_null() {
            if capacity > 0 && !nullable {
                return Err(FfiError::new(
                    tenon_result::NullPointer,
                    format!("{name} is NULL but capacity is {capacity}"),
                ));
            }
        } else {
            check(p, name)?;
            if capacity
                .checked_mul(size_of::<T>().max(1))
                .is_none_or(|b| b > isize::MAX as usize)
            {
                return Err(FfiError::new(
                    tenon_result::InvalidArgument,
                    format!("capacity {capacity} of {name} is impossibly large"),
                ));
            }
        }
        Ok(OutArray { p, capacity })
    }

    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Writes element `i` (< capacity) if the array was given.
    pub unsafe fn write(&self, i: usize, v: T) {
        debug_assert!(i < self.capacity);
        if !self.p.is_null() && i < self.capacity {
            // SAFETY: i < capacity; the caller promises `capacity` valid elements.
            unsafe { self.p.add(i).write(v) }
        }
    }
}

/// Writes the `n` elements of `found` into the caller's `out[0 .. capacity)` and `n` to
/// `count`: nothing copied and `TENON_RESULT_BUFFER_TOO_SMALL` when they do not fit (the bulk
/// copies' convention).
pub(crate) fn copy_found<T>(
    n: usize,
    found: impl Iterator<Item = T>,
    out: &OutArray<T>,
    count: Out<usize>,
    what: &str,
) -> Result<(), FfiError> {
    if n <= out.capacity() {
        for (i, v) in found.enumerate() {
            // SAFETY: i < n <= capacity, the caller's array (header contract), checked.
            unsafe { out.write(i, v) };
        }
    }
    // SAFETY: the caller's valid pointer, checked non-null.
    unsafe { count.write(n) };
    if n > out.capacity() {
        return Err(FfiError::new(
            tenon_result::BufferTooSmall,
            format!("{n} {what}, capacity {}", out.capacity()),
        ));
    }
    Ok(())
}
