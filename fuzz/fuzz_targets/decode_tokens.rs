//! Arbitrary bytes as little-endian token words: decoding never panics, and
//! whatever decodes prints in both styles, encodes without panicking, and
//! (when it encodes) decodes back to the same shader.
#![no_main]

use libfuzzer_sys::fuzz_target;
use testkit::roundtrip::{check_tokens, words_from_bytes};

fuzz_target!(|data: &[u8]| {
    let words = words_from_bytes(data);
    if let Err(violation) = check_tokens(&words) {
        panic!("{violation}\nwords: {words:08x?}");
    }
});
