//! What a data-driven test checked: a floor on the number of cases, and
//! the cases it may skip, each listed with why. A test that loops over
//! files must not pass having looked at none, nor skip a case unnoticed.

use std::collections::BTreeSet;
use std::fmt::Display;
use std::io::Write;
use std::path::Path;

/// Writes `line` straight to standard error: the harness hides the
/// `eprintln!` of passing tests, and the counts are worth seeing in every
/// run. A failed write loses only the note.
fn note(line: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

/// Prints `test: checked N <what>` and fails unless `checked >= floor`.
pub fn assert_checked(test: &str, what: &str, checked: usize, floor: usize) {
    note(&format!("{test}: checked {checked} {what}"));
    assert!(checked >= floor, "{test}: checked {checked} {what}, expected at least {floor}");
}

/// The cases a test may skip, by name, each with the reason it may; and
/// what the test skipped. [`Exceptions::finish`] fails when a case was
/// skipped that is not listed, or a listed case was not skipped (it no
/// longer needs its exception), or fewer than a floor of cases were
/// checked.
pub struct Exceptions {
    test: &'static str,
    listed: &'static [(&'static str, &'static str)],
    skipped: Vec<(String, String)>,
}

impl Exceptions {
    /// The exceptions of `test`: `listed` is `(case name, reason)`.
    pub fn new(test: &'static str, listed: &'static [(&'static str, &'static str)]) -> Self {
        Self { test, listed, skipped: Vec::new() }
    }

    /// Whether `name` is listed.
    pub fn is_listed(&self, name: &str) -> bool {
        self.listed.iter().any(|(n, _)| *n == name)
    }

    /// Records that case `name` was skipped, for `what` went wrong.
    pub fn skip(&mut self, name: &str, what: impl Display) {
        self.skipped.push((name.to_string(), what.to_string()));
    }

    /// Prints the count and fails if `checked < floor`, if an unlisted
    /// case was skipped, or if a listed case was not.
    pub fn finish(self, what: &str, checked: usize, floor: usize) {
        note(&format!("{}: {} listed exceptions", self.test, self.listed.len()));
        let skipped: BTreeSet<&str> = self.skipped.iter().map(|(n, _)| n.as_str()).collect();
        let unlisted: Vec<String> =
            self.skipped.iter().filter(|(n, _)| !self.is_listed(n)).map(|(n, why)| format!("  {n}: {why}")).collect();
        let stale: Vec<&str> = self.listed.iter().map(|(n, _)| *n).filter(|n| !skipped.contains(n)).collect();
        assert!(unlisted.is_empty(), "{}: skipped, and not listed as exceptions:\n{}", self.test, unlisted.join("\n"));
        assert!(stale.is_empty(), "{}: listed as exceptions, but no longer skipped: {stale:?}", self.test);
        assert_checked(self.test, what, checked, floor);
    }
}

/// The name of a shared file in exception lists and messages: its path
/// below the folder `../shared` (`corpus/mesa-trivial/vert-abs.tgsi`),
/// as file names alone repeat across the corpus' folders.
pub fn case_name(path: &Path) -> String {
    let text = path.to_string_lossy();
    match text.rfind("/shared/") {
        Some(at) => text[at + "/shared/".len()..].to_string(),
        None => text.into_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LISTED: &[(&str, &str)] = &[("a.tgsi", "a reason")];

    #[test]
    fn listed_skips_pass() {
        let mut e = Exceptions::new("t", LISTED);
        e.skip("a.tgsi", "unsupported");
        e.finish("cases", 3, 3);
    }

    #[test]
    #[should_panic(expected = "not listed")]
    fn an_unlisted_skip_fails() {
        let mut e = Exceptions::new("t", LISTED);
        e.skip("a.tgsi", "unsupported");
        e.skip("b.tgsi", "unsupported");
        e.finish("cases", 3, 0);
    }

    #[test]
    #[should_panic(expected = "no longer skipped")]
    fn a_stale_exception_fails() {
        Exceptions::new("t", LISTED).finish("cases", 3, 0);
    }

    #[test]
    #[should_panic(expected = "expected at least 4")]
    fn too_few_cases_fail() {
        assert_checked("t", "cases", 3, 4);
    }

    #[test]
    fn names_start_below_shared() {
        assert_eq!(case_name(Path::new("/w/shared/corpus/x/y.tgsi")), "corpus/x/y.tgsi");
        assert_eq!(case_name(Path::new("y.tgsi")), "y.tgsi");
    }
}
