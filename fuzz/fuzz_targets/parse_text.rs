//! Arbitrary bytes as TGSI text: parsing never panics, and whatever parses
//! prints in both styles and reads back from its exact printing unchanged.
#![no_main]

use libfuzzer_sys::fuzz_target;
use testkit::roundtrip::check_text;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Err(violation) = check_text(&text) {
        panic!("{violation}\ninput:\n{text}");
    }
});
