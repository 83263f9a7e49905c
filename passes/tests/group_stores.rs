//! The `group-stores` pass on hand-written cases.
//!
//! Every `tests/inputs/group-stores/*.tgsi` (at the workspace root) is
//! built, run through `group-stores` and verified; the IR and the TGSI
//! emitted after the pass are snapshotted in `snapshots/group-stores/`.
//! Each case also runs before and after (and as the emitted TGSI) on three
//! pseudo-random states and must give the same outputs. Lines
//! `; expect COUNTER: N` check the pass's counter.

mod support;

use support::*;

#[test]
fn group_stores_snapshots() {
    snapshot_suite("group-stores", |path| snapshot_case(path, &passes::group_stores::GroupStores));
}

/// `-O1` runs the pass.
#[test]
fn in_o1() {
    assert!(passes::Pipeline::o1().names().contains(&"group-stores"));
}
