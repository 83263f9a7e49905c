//! The C ABI over arbitrary token words: `tgsi_opt_optimize` (with a
//! pass list chosen by the first byte) never reports an internal error
//! (a caught panic), and tokens it returns decode, print through
//! `tgsi_opt_print`, and are freed with the functions C callers use.
#![no_main]

use std::ffi::{c_char, CStr};

use libfuzzer_sys::fuzz_target;
use testkit::roundtrip::words_from_bytes;
use tgsi_opt::tgsi;
use tgsi_opt_capi::abi::{tgsi_opt_free_string, tgsi_opt_free_tokens, tgsi_opt_optimize, tgsi_opt_print, Status};

const PASSES: [&CStr; 5] = [c"-O1", c"", c"constfold,dce", c"-O0", c"no-such-pass"];

fuzz_target!(|data: &[u8]| {
    let Some((&choice, rest)) = data.split_first() else { return };
    let passes = PASSES[usize::from(choice) % PASSES.len()];
    let words = words_from_bytes(rest);
    let mut out: *mut u32 = std::ptr::null_mut();
    let mut count = 0usize;
    let mut error: *mut c_char = std::ptr::null_mut();
    // SAFETY: every pointer is valid for the call; outputs are ours to free.
    let status = unsafe {
        tgsi_opt_optimize(words.as_ptr(), words.len(), passes.as_ptr(), std::ptr::null(), &mut out, &mut count, &mut error)
    };
    let message = (!error.is_null()).then(|| unsafe { CStr::from_ptr(error) }.to_string_lossy().into_owned());
    unsafe { tgsi_opt_free_string(error) };
    assert_ne!(status, Status::Internal, "internal error: {message:?}\nwords: {words:08x?}");
    if status != Status::Ok {
        assert!(message.is_some(), "status {status:?} without a message");
        return;
    }
    // SAFETY: on success `out` holds `count` words.
    let emitted = unsafe { std::slice::from_raw_parts(out, count) }.to_vec();
    unsafe { tgsi_opt_free_tokens(out, count) };
    if let Err(e) = tgsi::tokens::decode(&emitted) {
        panic!("the optimized tokens do not decode: {e}\nwords: {words:08x?}");
    }
    let mut text: *mut c_char = std::ptr::null_mut();
    let status = unsafe { tgsi_opt_print(emitted.as_ptr(), emitted.len(), &mut text, &mut error) };
    unsafe { tgsi_opt_free_string(error) };
    assert_eq!(status, Status::Ok, "the optimized tokens do not print");
    unsafe { tgsi_opt_free_string(text) };
});
