//! What compiled code calls for the operations it does not lower to
//! vector code: the interpreter's own batch loop ([`Kernel::run`], equal
//! to [`semantics::eval`] lane by lane) over one quad.

use crate::kernel::{Kernel, MAX_ARGS};

/// Lanes a helper computes: one quad.
pub(super) const QUAD: usize = 4;

/// `kernel` over one quad: `n` operands of four lanes each, one after the
/// other from `args`, into the four lanes at `out`.
///
/// # Safety
/// `kernel` points to a live `Kernel`, `args` to `4 * n` readable words,
/// `out` to 4 writable words not overlapping them, and `n <= MAX_ARGS`.
pub(super) unsafe extern "C" fn alu_quad(kernel: *const Kernel, args: *const u32, n: usize, out: *mut u32) {
    // SAFETY: as the caller promises.
    let (kernel, args, out) =
        unsafe { (*kernel, std::slice::from_raw_parts(args, QUAD * n), std::slice::from_raw_parts_mut(out, QUAD)) };
    let mut columns: [&[u32]; MAX_ARGS] = [&[]; MAX_ARGS];
    for (column, lanes) in columns.iter_mut().zip(args.chunks_exact(QUAD)) {
        *column = lanes;
    }
    kernel.run(&columns[..n.min(MAX_ARGS)], out);
}

/// The kernels compiled code passes to [`alu_quad`], each at an address
/// that stays put as long as the table lives.
#[derive(Default)]
pub(super) struct Kernels(
    // Boxed: the code holds each one's address, which a `Vec<Kernel>`
    // would move when it grows.
    #[allow(clippy::vec_box)] Vec<Box<Kernel>>,
);

impl Kernels {
    /// Whether no code calls the helper.
    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Keeps `kernel`; its address, valid while `self` lives.
    pub fn keep(&mut self, kernel: Kernel) -> *const Kernel {
        let boxed = Box::new(kernel);
        let at: *const Kernel = &*boxed;
        self.0.push(boxed);
        at
    }
}
