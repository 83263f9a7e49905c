//! Calling the C functions from Rust as C would: shared by the test
//! files (each uses a part of it).
#![allow(dead_code)]

use std::ffi::{c_char, CStr, CString};
use std::ptr;

use tgsi_opt_capi::abi::{self, Status};

/// `text`'s token words.
pub fn words(text: &str) -> Vec<u32> {
    tgsi::tokens::encode(&tgsi::parse(text).expect("it parses")).expect("it encodes")
}

/// Takes a string the library returned.
pub fn take_string(s: *mut c_char) -> String {
    assert!(!s.is_null());
    // SAFETY: a NUL-terminated string from the library, freed once here.
    let owned = unsafe { CStr::from_ptr(s) }.to_string_lossy().into_owned();
    unsafe { abi::tgsi_opt_free_string(s) };
    owned
}

/// `tgsi_opt_optimize` on `words`: the status, the words returned and the
/// error message.
pub fn optimize(words: &[u32], passes: Option<&str>, target: Option<&str>) -> (Status, Vec<u32>, Option<String>) {
    let passes = passes.map(|p| CString::new(p).expect("no NUL"));
    let target = target.map(|t| CString::new(t).expect("no NUL"));
    let (mut out, mut count, mut error) = (ptr::null_mut(), 0usize, ptr::null_mut());
    // SAFETY: valid pointers for the call's duration.
    let status = unsafe {
        abi::tgsi_opt_optimize(
            words.as_ptr(),
            words.len(),
            passes.as_ref().map_or(ptr::null(), |p| p.as_ptr()),
            target.as_ref().map_or(ptr::null(), |t| t.as_ptr()),
            &mut out,
            &mut count,
            &mut error,
        )
    };
    let result = if out.is_null() {
        Vec::new()
    } else {
        // SAFETY: `count` words from the library, freed once here.
        let copy = unsafe { std::slice::from_raw_parts(out, count) }.to_vec();
        unsafe { abi::tgsi_opt_free_tokens(out, count) };
        copy
    };
    (status, result, (!error.is_null()).then(|| take_string(error)))
}

/// `tgsi_opt_print` on `words`: the status, the text and the error message.
pub fn print(words: &[u32]) -> (Status, Option<String>, Option<String>) {
    let (mut text, mut error) = (ptr::null_mut(), ptr::null_mut());
    // SAFETY: valid pointers for the call's duration.
    let status = unsafe { abi::tgsi_opt_print(words.as_ptr(), words.len(), &mut text, &mut error) };
    (status, (!text.is_null()).then(|| take_string(text)), (!error.is_null()).then(|| take_string(error)))
}
