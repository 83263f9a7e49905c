//! The fuzz targets' properties (`testkit::roundtrip`), checked on the
//! bundled examples, the synthetic shader, Mesa's conformance shaders and
//! token streams (`../shared/conformance/text/`, when present), and
//! deterministic mutations of all of them. `fuzz/` explores further.

use std::fs;
use std::path::{Path, PathBuf};

use testkit::roundtrip::{self, Violation};
use testkit::synth::synthetic_shader;
use testkit::Rng;

/// `roundtrip::check_text`, with a panic reported as a violation.
fn check_text(text: &str) -> Result<(), Violation> {
    unwind_as_violation(|| roundtrip::check_text(text))
}

/// `roundtrip::check_tokens`, with a panic reported as a violation.
fn check_tokens(words: &[u32]) -> Result<(), Violation> {
    unwind_as_violation(|| roundtrip::check_tokens(words))
}

fn unwind_as_violation(check: impl FnOnce() -> Result<(), Violation>) -> Result<(), Violation> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(check)).unwrap_or_else(|panic| {
        let message = panic
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        Err(Violation { property: "no panic", detail: message })
    })
}

/// Mutations tried per input.
const MUTATIONS: u64 = 6;

fn examples() -> Vec<PathBuf> {
    testdata::tgsi_files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/shaders"))
}

/// Text mutations that keep most of the syntax: drop, repeat or swap a
/// line, replace a character with one that matters to the grammar, or cut
/// the text short.
fn mutate_text(text: &str, rng: &mut Rng) -> String {
    let mut lines: Vec<&str> = text.lines().collect();
    if lines.is_empty() {
        return String::new();
    }
    let i = rng.index(lines.len());
    match rng.below(5) {
        0 => {
            lines.remove(i);
        }
        1 => lines.insert(i, lines[i]),
        2 => {
            let j = rng.index(lines.len());
            lines.swap(i, j);
        }
        3 => {
            let mut chars: Vec<char> = text.chars().collect();
            const GRAMMAR: &[char] = &['[', ']', ',', '.', '-', '|', ':', '{', '}', '0', '9', 'x', ' ', '\n', '('];
            let at = rng.index(chars.len());
            chars[at] = *rng.pick(GRAMMAR);
            return chars.into_iter().collect();
        }
        _ => {
            let cut = rng.index(text.len());
            return text.get(..cut).unwrap_or(text).to_string();
        }
    }
    lines.join("\n") + "\n"
}

/// Word mutations: flip a bit, drop or repeat a word, or cut the stream.
fn mutate_words(words: &[u32], rng: &mut Rng) -> Vec<u32> {
    let mut words = words.to_vec();
    if words.is_empty() {
        return words;
    }
    let i = rng.index(words.len());
    match rng.below(4) {
        0 => words[i] ^= 1 << rng.below(32),
        1 => {
            words.remove(i);
        }
        2 => words.insert(i, words[i]),
        _ => words.truncate(i),
    }
    words
}

fn check_text_and_mutations(name: &str, text: &str, failures: &mut Vec<String>) {
    if let Err(v) = check_text(text) {
        failures.push(format!("{name}: {v}"));
    }
    let mut rng = Rng::new(text.len() as u64);
    for m in 0..MUTATIONS {
        let mutated = mutate_text(text, &mut rng);
        if let Err(v) = check_text(&mutated) {
            failures.push(format!("{name}, mutation {m}: {v}\ninput:\n{mutated}"));
        }
    }
}

fn report(failures: Vec<String>) {
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n\n"));
}

#[test]
fn examples_and_their_mutations_round_trip() {
    let mut failures = Vec::new();
    let examples = examples();
    assert!(!examples.is_empty(), "no bundled examples");
    for path in examples {
        let text = fs::read_to_string(&path).expect("reading an example");
        check_text_and_mutations(&path.display().to_string(), &text, &mut failures);
    }
    report(failures);
}

#[test]
fn synthetic_shader_round_trips() {
    let mut failures = Vec::new();
    check_text_and_mutations("synthetic", &synthetic_shader(2000), &mut failures);
    report(failures);
}

#[test]
fn conformance_text_and_mutations_round_trip() {
    let Some(dir) = testdata::shared("conformance/text") else { return };
    let mut failures = Vec::new();
    let files = testdata::tgsi_files(&dir);
    let mut checked = 0;
    for path in files {
        let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        check_text_and_mutations(&path.display().to_string(), &text, &mut failures);
        checked += 1;
    }
    report(failures);
    // Of 377.
    testdata::assert_checked("conformance_text_and_mutations_round_trip", "texts", checked, 370);
}

/// Every token stream of the conformance data and its mutations, checked
/// with `check`.
fn check_conformance_tokens(check: fn(&[u32]) -> Result<(), Violation>) {
    let Some(dir) = testdata::shared("conformance/text") else { return };
    let mut failures = Vec::new();
    let files = testdata::files_with_extension(&dir, "hex");
    let mut checked = 0;
    for path in files {
        let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        checked += 1;
        let words: Vec<u32> =
            text.lines().filter_map(|l| u32::from_str_radix(l.trim().trim_start_matches("0x"), 16).ok()).collect();
        let name = path.display();
        if let Err(v) = check(&words) {
            failures.push(format!("{name}: {v}"));
        }
        let mut rng = Rng::new(words.len() as u64);
        for m in 0..MUTATIONS {
            let mutated = mutate_words(&words, &mut rng);
            if let Err(v) = check(&mutated) {
                failures.push(format!("{name}, mutation {m}: {v}\nwords: {mutated:08x?}"));
            }
        }
    }
    report(failures);
    // Of 377.
    testdata::assert_checked("conformance_tokens_and_mutations_round_trip", "token streams", checked, 370);
}

#[test]
fn conformance_tokens_and_mutations_round_trip() {
    check_conformance_tokens(check_tokens);
}

/// Inputs the fuzzers found that once broke a property.
#[test]
fn fuzz_regressions() {
    // A geometry shader without GS_INPUT_PRIMITIVE: its inputs print as
    // `DCL IN[][0]`, which must read back although `[]` has no known size.
    let words = [
        0x00003002, 0x000000e3, 0x000f2020, 0x00000000, 0x002f3030, 0x00000000, 0x00000000, 0x002f3030, 0x00010001,
        0x00001405, 0x000f1020, 0x00020000, 0x010f4020, 0x00010000, 0x00000051, 0x00000000, 0x25800000, 0x00000000,
        0x00000000, 0x01278032, 0x00000034, 0x15000001, 0x15000041, 0x01288032, 0x00000434, 0x15000004, 0x15000081,
        0x01259032, 0x00000014, 0x00000044, 0x15400044, 0x0884b022, 0x00000000, 0x00000004, 0x00a01022, 0x000000f4,
        0x11000007, 0x0804d012, 0x00000000, 0x00a01022, 0x000000f4, 0x10400007, 0x0004e002, 0x00a01022, 0x000004f3,
        0x39000004, 0x00a01022, 0x000000f3, 0x39000002, 0x00075002,
    ];
    assert_eq!(check_tokens(&words), Ok(()));
    // An output with interpolation mode COLOR and no semantic: text cannot
    // say it (`, COLOR` reads as the semantic), so decoding refuses it.
    let words = [
        0x00001102, 0x00000000, 0x000f2020, 0x00000000, 0x000f2020, 0x00010001, 0x004f3030, 0x00000000, 0x00000013,
        0x002f3030, 0x00010001, 0x00000000, 0x00a01022, 0x000000f3, 0x39000002, 0x00a01022, 0x000004f3, 0x39000042,
        0x00075002,
    ];
    assert!(tgsi::tokens::decode(&words).is_err());
    assert_eq!(check_tokens(&words), Ok(()));
}
