//! A global allocator that counts the bytes each thread allocates: work
//! measured deterministically, never timed, for the tests that bound
//! what an input may cost (`tests/linear_work.rs`, `tests/linear_run.rs`).
//! A test binary installs it with
//!
//! ```ignore
//! #[global_allocator]
//! static COUNTING: testkit::counting::Counting = testkit::counting::Counting;
//! ```
//!
//! and reads [`allocated`] before and after the work.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// Passes every call to the system allocator, counting the bytes asked
/// for on the calling thread (so that tests running side by side do not
/// count each other's).
pub struct Counting;

thread_local! {
    static ALLOCATED: Cell<u64> = const { Cell::new(0) };
}

fn count(bytes: usize) {
    // During a thread's teardown the counter may be gone: nothing to count.
    let _ = ALLOCATED.try_with(|a| a.set(a.get().saturating_add(bytes as u64)));
}

/// Bytes this thread has allocated so far (grown in place counts the new
/// size), when [`Counting`] is the global allocator; 0 otherwise.
pub fn allocated() -> u64 {
    ALLOCATED.with(Cell::get)
}

// SAFETY: every call is passed to `System` unchanged.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        // SAFETY: the caller's contract, passed on.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        // SAFETY: the caller's contract, passed on.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract, passed on.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size);
        // SAFETY: the caller's contract, passed on.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}
