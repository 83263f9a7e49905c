//! The `combine` pass on hand-written cases.
//!
//! Every `tests/inputs/combine/*.tgsi` (at the workspace root) is built, run
//! through `combine` and verified; the IR and the TGSI emitted after the pass
//! are snapshotted in `snapshots/combine/`. Each case also runs before and
//! after (and as the emitted TGSI) on three pseudo-random states and must
//! give the same outputs, so a wrong rewrite cannot be blessed. Lines
//! `; expect COUNTER: N` check the pass's counters.

mod support;

use support::*;

#[test]
fn combine_snapshots() {
    snapshot_suite("combine", |path| snapshot_case(path, &passes::combine::Combine));
}

/// Each rule has cases where it fires and where it must not.
#[test]
fn enough_cases() {
    let n = case_count("combine");
    assert!(n >= 14, "{n} cases in tests/inputs/combine");
}
