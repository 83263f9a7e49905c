//! The C functions `include/tgsi_opt.h` declares: raw pointers in and out,
//! a status code, and no panic crossing into C.

use std::ffi::{c_char, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::Error;

/// `tgsi_opt_status`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Ok = 0,
    BadArgument = 1,
    BadTokens = 2,
    Unsupported = 3,
    BadPasses = 4,
    Internal = 5,
    LimitExceeded = 6,
    TargetLacks = 7,
}

/// `struct tgsi_opt_limits`: [`tgsi::Limits`] with C's types (see there).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Words after the two header words.
    pub max_tokens: usize,
    /// Instructions.
    pub max_instructions: usize,
    /// Declarations.
    pub max_declarations: usize,
    /// Immediates.
    pub max_immediates: usize,
    /// Nesting of control flow (and of inlined calls).
    pub max_nesting: usize,
    /// The largest register index (at most 32767 whatever it says).
    pub max_register_index: u32,
    /// Inlined program size per input instruction ...
    pub inline_factor: usize,
    /// ... or at least this many instructions.
    pub inline_floor: usize,
}

impl From<tgsi::Limits> for Limits {
    fn from(l: tgsi::Limits) -> Limits {
        Limits {
            max_tokens: l.max_tokens,
            max_instructions: l.max_instructions,
            max_declarations: l.max_declarations,
            max_immediates: l.max_immediates,
            max_nesting: l.max_nesting,
            max_register_index: l.max_register_index,
            inline_factor: l.inline_factor,
            inline_floor: l.inline_floor,
        }
    }
}

impl From<Limits> for tgsi::Limits {
    fn from(l: Limits) -> tgsi::Limits {
        tgsi::Limits {
            max_tokens: l.max_tokens,
            max_instructions: l.max_instructions,
            max_declarations: l.max_declarations,
            max_immediates: l.max_immediates,
            max_nesting: l.max_nesting,
            max_register_index: l.max_register_index,
            inline_factor: l.inline_factor,
            inline_floor: l.inline_floor,
        }
    }
}

impl From<&Error> for Status {
    fn from(e: &Error) -> Status {
        match e {
            Error::BadArgument(_) => Status::BadArgument,
            Error::BadTokens(_) => Status::BadTokens,
            Error::Unsupported(_) => Status::Unsupported,
            Error::BadPasses(_) => Status::BadPasses,
            Error::Internal(_) => Status::Internal,
            Error::Limit { .. } => Status::LimitExceeded,
            Error::TargetLacks(_) => Status::TargetLacks,
        }
    }
}

/// Optimizes `tokens[0..count)`; see `tgsi_opt.h`.
///
/// # Safety
/// `tokens` points to `count` readable words (or is null, an error);
/// `passes` and `target` are null or NUL-terminated; `out_tokens` and
/// `out_count` point to writable places; `error` is null or does.
#[no_mangle]
pub unsafe extern "C" fn tgsi_opt_optimize(
    tokens: *const u32,
    count: usize,
    passes: *const c_char,
    target: *const c_char,
    out_tokens: *mut *mut u32,
    out_count: *mut usize,
    error: *mut *mut c_char,
) -> Status {
    // SAFETY: the same contract, with no limits (the defaults).
    unsafe { tgsi_opt_optimize_limited(tokens, count, passes, target, std::ptr::null(), out_tokens, out_count, error) }
}

/// Optimizes `tokens[0..count)` within `*limits` (the defaults when
/// `limits` is null); see `tgsi_opt.h`.
///
/// # Safety
/// As [`tgsi_opt_optimize`]; `limits` is null or points to a readable
/// `tgsi_opt_limits`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn tgsi_opt_optimize_limited(
    tokens: *const u32,
    count: usize,
    passes: *const c_char,
    target: *const c_char,
    limits: *const Limits,
    out_tokens: *mut *mut u32,
    out_count: *mut usize,
    error: *mut *mut c_char,
) -> Status {
    clear(error);
    if out_tokens.is_null() || out_count.is_null() {
        return fail(Error::BadArgument("out_tokens and out_count must not be NULL".into()), error);
    }
    // SAFETY: both are non-null; the caller says they are writable.
    unsafe {
        *out_tokens = std::ptr::null_mut();
        *out_count = 0;
    }
    // SAFETY: null, or readable as the caller says.
    let limits = if limits.is_null() { tgsi::Limits::default() } else { unsafe { *limits }.into() };
    let result = guarded(|| {
        // SAFETY: the caller's contract above.
        let words = unsafe { words(tokens, count)? };
        let (passes, target) = unsafe { (string(passes, "passes")?, string(target, "target")?) };
        crate::optimize_with_limits(words, passes, target, &limits)
    });
    match result {
        Ok(words) => {
            let words = words.into_boxed_slice();
            // SAFETY: both were checked to be non-null; the caller says
            // they are writable.
            unsafe {
                *out_count = words.len();
                *out_tokens = Box::into_raw(words).cast::<u32>();
            }
            Status::Ok
        }
        Err(e) => fail(e, error),
    }
}

/// Writes the default limits to `*limits` (nothing when it is null); see
/// `tgsi_opt.h`.
///
/// # Safety
/// `limits` is null or points to a writable `tgsi_opt_limits`.
#[no_mangle]
pub unsafe extern "C" fn tgsi_opt_default_limits(limits: *mut Limits) {
    if !limits.is_null() {
        // SAFETY: non-null; the caller says it is writable.
        unsafe { *limits = tgsi::Limits::default().into() };
    }
}

/// Prints `tokens[0..count)` as Mesa's `tgsi_dump` does; see `tgsi_opt.h`.
///
/// # Safety
/// `tokens` points to `count` readable words (or is null, an error);
/// `text` points to a writable place; `error` is null or does.
#[no_mangle]
pub unsafe extern "C" fn tgsi_opt_print(
    tokens: *const u32,
    count: usize,
    text: *mut *mut c_char,
    error: *mut *mut c_char,
) -> Status {
    clear(error);
    if text.is_null() {
        return fail(Error::BadArgument("text must not be NULL".into()), error);
    }
    // SAFETY: non-null; the caller says it is writable.
    unsafe { *text = std::ptr::null_mut() };
    // SAFETY: the caller's contract above.
    match guarded(|| crate::print(unsafe { words(tokens, count)? })) {
        Ok(printed) => {
            // SAFETY: checked to be non-null; the caller says it is writable.
            unsafe { *text = into_c_string(printed) };
            Status::Ok
        }
        Err(e) => fail(e, error),
    }
}

/// Frees what `tgsi_opt_optimize` returned.
///
/// # Safety
/// `tokens` is null or came from `tgsi_opt_optimize` with `count` words,
/// and is not used again.
#[no_mangle]
pub unsafe extern "C" fn tgsi_opt_free_tokens(tokens: *mut u32, count: usize) {
    if !tokens.is_null() {
        // SAFETY: made by `Box::into_raw` of a boxed slice of `count` words.
        drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(tokens, count)) });
    }
}

/// Frees a string this library returned.
///
/// # Safety
/// `string` is null or came from this library, and is not used again.
#[no_mangle]
pub unsafe extern "C" fn tgsi_opt_free_string(string: *mut c_char) {
    if !string.is_null() {
        // SAFETY: made by `CString::into_raw`.
        drop(unsafe { CString::from_raw(string) });
    }
}

/// `f`'s result, with a panic turned into [`Error::Internal`] so that it
/// never unwinds into C.
fn guarded<T>(f: impl FnOnce() -> Result<T, Error>) -> Result<T, Error> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|panic| {
        let what =
            panic.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| panic.downcast_ref::<String>().cloned());
        Err(Error::Internal(format!("internal error: {}", what.unwrap_or_else(|| "a panic".into()))))
    })
}

/// The words `tokens[0..count)`.
///
/// # Safety
/// `tokens` is null or points to `count` readable words that outlive `'a`.
unsafe fn words<'a>(tokens: *const u32, count: usize) -> Result<&'a [u32], Error> {
    if tokens.is_null() {
        return Err(Error::BadArgument("tokens must not be NULL".into()));
    }
    // SAFETY: non-null, and the caller's contract.
    Ok(unsafe { std::slice::from_raw_parts(tokens, count) })
}

/// The string at `s`, `None` for null.
///
/// # Safety
/// `s` is null or NUL-terminated and outlives `'a`.
unsafe fn string<'a>(s: *const c_char, what: &str) -> Result<Option<&'a str>, Error> {
    if s.is_null() {
        return Ok(None);
    }
    // SAFETY: non-null, and the caller's contract.
    let s = unsafe { CStr::from_ptr(s) };
    s.to_str().map(Some).map_err(|_| Error::BadArgument(format!("{what} is not UTF-8")))
}

/// Sets `*error` to null (when `error` is not null), so that a caller
/// can free it whatever the call returns.
fn clear(error: *mut *mut c_char) {
    if !error.is_null() {
        // SAFETY: the functions' contracts say a non-null `error` is writable.
        unsafe { *error = std::ptr::null_mut() };
    }
}

/// Reports `e` through `error` (when not null) and returns its status.
fn fail(e: Error, error: *mut *mut c_char) -> Status {
    if !error.is_null() {
        // SAFETY: the functions' contracts say a non-null `error` is writable.
        unsafe { *error = into_c_string(e.to_string()) };
    }
    Status::from(&e)
}

/// `s` as a C string; a NUL inside (none of our messages or printings
/// has one) ends it early.
fn into_c_string(s: String) -> *mut c_char {
    let s = match CString::new(s) {
        Ok(s) => s,
        Err(e) => {
            let end = e.nul_position();
            let mut bytes = e.into_vec();
            bytes.truncate(end);
            CString::new(bytes).unwrap_or_default()
        }
    };
    s.into_raw()
}
