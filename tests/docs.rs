//! The documentation stays true: every `tgsi-opt` command in a fenced `sh`
//! block of README.md and docs/*.md runs with the built binary, every
//! Rust example there is a doc test of the facade library, and every `ir`
//! block is IR text that reads back and verifies.
//!
//! A command runs through `bash` (so pipes, redirections and globs work)
//! with the binary first on `PATH`, in a scratch directory where
//! `examples/` and `tests/` are the repository's, so documented paths read
//! as from the repository root while written files stay out of it. One
//! document's commands run in order in one directory, so a command may
//! read what an earlier one wrote. It must exit with status 0, or with the
//! status a trailing `# exit N` comment names; a trailing `# not run: WHY`
//! comment skips it. `cargo` commands are not run.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A documented command and where it is.
struct DocCommand {
    file: String,
    line: usize,
    text: String,
    /// `None`: not run.
    expected_status: Option<i32>,
}

fn repo_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// README.md and every docs/*.md, as (name relative to the root, text).
fn documents() -> Vec<(String, String)> {
    let root = repo_root();
    let mut names = vec!["README.md".to_string()];
    let mut pages: Vec<String> = fs::read_dir(root.join("docs"))
        .expect("reading docs/")
        .map(|entry| entry.expect("a docs/ entry").file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".md"))
        .map(|name| format!("docs/{name}"))
        .collect();
    pages.sort();
    names.extend(pages);
    names
        .into_iter()
        .map(|name| {
            let text = fs::read_to_string(root.join(&name)).unwrap_or_else(|e| panic!("reading {name}: {e}"));
            (name, text)
        })
        .collect()
}

/// The fenced blocks of a Markdown text whose info string is `lang`, as
/// (line number of the block's first line, its lines).
fn fenced_blocks<'t>(text: &'t str, lang: &str) -> Vec<(usize, Vec<&'t str>)> {
    let mut blocks = Vec::new();
    let mut current: Option<(usize, Vec<&str>)> = None;
    let mut in_other = false;
    for (index, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if let Some(info) = trimmed.strip_prefix("```") {
            if let Some(block) = current.take() {
                blocks.push(block);
            } else if in_other {
                in_other = false;
            } else if info.trim() == lang {
                current = Some((index + 2, Vec::new()));
            } else {
                in_other = true;
            }
        } else if let Some((_, lines)) = current.as_mut() {
            lines.push(line);
        }
    }
    blocks
}

/// What a command's trailing comment says: `Some(status)` to run it and
/// expect that status, `None` not to run it.
fn expected_status(command: &str) -> Option<i32> {
    let Some((_, comment)) = command.split_once(" # ") else { return Some(0) };
    let comment = comment.trim();
    if comment.starts_with("not run") {
        return None;
    }
    match comment.strip_prefix("exit ") {
        Some(rest) => {
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            Some(digits.parse().unwrap_or_else(|_| panic!("`# exit` without a status in `{command}`")))
        }
        None => Some(0),
    }
}

/// Every `tgsi-opt` command of the given documents.
fn commands(documents: &[(String, String)]) -> Vec<DocCommand> {
    let mut found = Vec::new();
    for (file, text) in documents {
        for (first_line, lines) in fenced_blocks(text, "sh") {
            for (offset, line) in lines.iter().enumerate() {
                let command = line.trim();
                if !command.starts_with("tgsi-opt ") {
                    continue;
                }
                found.push(DocCommand {
                    file: file.clone(),
                    line: first_line + offset,
                    text: command.to_string(),
                    expected_status: expected_status(command),
                });
            }
        }
    }
    found
}

/// A fresh directory for one document's commands, with the repository's
/// examples and test inputs linked in.
fn scratch_dir(document: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("docs").join(document.replace('/', "_"));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).expect("creating a scratch directory");
    for name in ["examples", "tests"] {
        std::os::unix::fs::symlink(repo_root().join(name), dir.join(name)).expect("linking into the scratch directory");
    }
    dir
}

/// Runs the commands, returning one message per command that did not exit
/// as documented.
fn run_commands(commands: &[DocCommand]) -> Vec<String> {
    let binary = PathBuf::from(env!("CARGO_BIN_EXE_tgsi-opt"));
    let bin_dir = binary.parent().expect("the binary is in a directory");
    let path = match std::env::var_os("PATH") {
        Some(old) => {
            let mut dirs = vec![bin_dir.to_path_buf()];
            dirs.extend(std::env::split_paths(&old));
            std::env::join_paths(dirs).expect("joining PATH")
        }
        None => bin_dir.as_os_str().to_owned(),
    };
    let mut failures = Vec::new();
    let mut dir: Option<(String, PathBuf)> = None;
    for command in commands {
        let Some(expected) = command.expected_status else { continue };
        if dir.as_ref().is_none_or(|(file, _)| *file != command.file) {
            dir = Some((command.file.clone(), scratch_dir(&command.file)));
        }
        let Some((_, cwd)) = dir.as_ref() else { unreachable!("set just above") };
        let output = Command::new("bash")
            .args(["-o", "pipefail", "-c", &command.text])
            .current_dir(cwd)
            .env("PATH", &path)
            .stdin(Stdio::null())
            .output()
            .expect("starting bash");
        let stderr = String::from_utf8_lossy(&output.stderr);
        if output.status.code() != Some(expected) || stderr.contains("panicked") {
            failures.push(format!(
                "{}:{}: `{}` exited with {:?}, expected {expected}:\n{stderr}",
                command.file,
                command.line,
                command.text,
                output.status.code()
            ));
        }
    }
    failures
}

#[test]
fn documented_commands_run() {
    let commands = commands(&documents());
    assert!(
        commands.iter().filter(|c| c.expected_status.is_some()).count() >= 20,
        "found too few documented commands to run: is the extraction broken?"
    );
    let failures = run_commands(&commands);
    assert!(failures.is_empty(), "documented commands that fail:\n\n{}", failures.join("\n"));
}

/// A wrong command in a document is caught: the check is not vacuous.
#[test]
fn a_wrong_command_fails() {
    let document = (
        "broken.md".to_string(),
        "```sh\ntgsi-opt fmt examples/shaders/no_such_shader.tgsi\ntgsi-opt opt --no-such-flag   # exit 2\n\
         tgsi-opt fmt examples/shaders/vertex_transform.tgsi   # exit 1\ntgsi-opt bench x   # not run: an example\n```\n"
            .to_string(),
    );
    let commands = commands(&[document]);
    assert_eq!(commands.len(), 4);
    assert_eq!(commands.iter().map(|c| c.expected_status).collect::<Vec<_>>(), [Some(0), Some(2), Some(1), None]);
    let failures = run_commands(&commands);
    assert_eq!(failures.len(), 2, "{failures:#?}");
    assert!(failures[0].contains("broken.md:2:") && failures[0].contains("no_such_shader"), "{}", failures[0]);
    assert!(failures[1].contains("broken.md:4:") && failures[1].contains("expected 1"), "{}", failures[1]);
}

/// Every Rust example of the documents is, line for line, a doc test of
/// `src/lib.rs` (less its hidden `# ` lines), so it compiles and runs.
#[test]
fn rust_examples_are_doc_tests() {
    let lib = fs::read_to_string(repo_root().join("src/lib.rs")).expect("reading src/lib.rs");
    let doc: String = lib
        .lines()
        .filter_map(|line| line.strip_prefix("//!"))
        .map(|line| line.strip_prefix(' ').unwrap_or(line))
        .collect::<Vec<_>>()
        .join("\n");
    let doc_tests: Vec<Vec<&str>> = fenced_blocks(&doc, "")
        .into_iter()
        .map(|(_, lines)| lines.into_iter().filter(|line| !line.starts_with("# ")).collect())
        .collect();
    assert!(!doc_tests.is_empty(), "src/lib.rs has no doc test");
    let mut examples = 0;
    for (file, text) in documents() {
        for (line, lines) in fenced_blocks(&text, "rust") {
            examples += 1;
            assert!(
                doc_tests.contains(&lines),
                "{file}:{line}: this Rust example is not a doc test of src/lib.rs; copy it there (or from there)"
            );
        }
    }
    assert!(examples >= 2, "the README and docs/library.md have Rust examples");
}

/// Every fenced `ir` block reads back as IR (printing to the same text)
/// and verifies.
#[test]
fn ir_examples_read_back_and_verify() {
    let mut examples = 0;
    let mut failures = Vec::new();
    for (file, text) in documents() {
        for (line, lines) in fenced_blocks(&text, "ir") {
            examples += 1;
            let block = lines.join("\n") + "\n";
            match tgsi_opt::ir::parse(&block) {
                Err(e) => failures.push(format!("{file}:{line}: {e}")),
                Ok(module) => {
                    if let Err(e) = tgsi_opt::ir::verify::verify(&module.function) {
                        failures.push(format!("{file}:{line}: {e}"));
                    }
                    if tgsi_opt::ir::print::print_module(&module) != block {
                        failures.push(format!("{file}:{line}: not in the form the printer writes"));
                    }
                }
            }
        }
    }
    assert!(examples >= 1, "docs/architecture.md shows the IR's text form");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every relative link of the documents names a file that exists.
#[test]
fn relative_links_resolve() {
    let mut broken = Vec::new();
    for (file, text) in documents() {
        let base = repo_root().join(&file).parent().expect("a document is in a directory").to_path_buf();
        for (index, line) in text.lines().enumerate() {
            // Text outside inline code spans (`TEMP[2](1)` is no link).
            let prose: String = line.split('`').step_by(2).collect::<Vec<_>>().join(" ");
            for (at, _) in prose.match_indices("](") {
                let rest = &prose[at + 2..];
                let Some(end) = rest.find(')') else { continue };
                let target = &rest[..end];
                if target.contains("://") || target.starts_with('#') {
                    continue;
                }
                let path = target.split('#').next().unwrap_or(target);
                if !base.join(path).exists() {
                    broken.push(format!("{file}:{}: {target}", index + 1));
                }
            }
        }
    }
    assert!(broken.is_empty(), "links to files that do not exist:\n{}", broken.join("\n"));
}
