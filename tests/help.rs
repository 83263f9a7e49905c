//! Snapshots of `tgsi-opt --help` and of every subcommand's `--help`, so
//! that a change to a help text shows in review.

use std::process::Command;

/// The subcommands whose help is snapshotted; `every_subcommand_is_covered`
/// keeps the list in step with the binary.
const SUBCOMMANDS: [&str; 11] = [
    "fmt",
    "opt",
    "run",
    "bench",
    "render",
    "fuzz-passes",
    "check",
    "check-doubles",
    "check-target",
    "report",
    "reduce",
];

/// Runs `tgsi-opt ARGS` and returns its standard output, which must be
/// the whole of what it printed.
fn help(args: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_tgsi-opt"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("starting tgsi-opt");
    assert!(output.status.success(), "tgsi-opt {args:?} failed: {}", String::from_utf8_lossy(&output.stderr));
    assert!(output.stderr.is_empty(), "tgsi-opt {args:?} wrote to standard error");
    String::from_utf8(output.stdout).expect("help is UTF-8")
}

fn snapshot(name: &str, text: &str) {
    insta::with_settings!({
        snapshot_path => "../snapshots/help",
        prepend_module_to_snapshot => false,
        omit_expression => true,
    }, {
        insta::assert_snapshot!(name, text);
    });
}

#[test]
fn top_level_help() {
    snapshot("tgsi-opt", &help(&["--help"]));
}

#[test]
fn subcommand_help() {
    for command in SUBCOMMANDS {
        snapshot(command, &help(&[command, "--help"]));
    }
}

#[test]
fn every_subcommand_is_covered() {
    let top = help(&["--help"]);
    let listed: Vec<&str> = top
        .lines()
        .skip_while(|line| !line.starts_with("Commands:"))
        .skip(1)
        .take_while(|line| line.starts_with("  "))
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != "help")
        .collect();
    assert_eq!(listed, SUBCOMMANDS, "the subcommands of `tgsi-opt --help` and the snapshotted ones differ");
}
