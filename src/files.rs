//! Reading the input shader and writing the result, with errors that say
//! which file (or standard stream) was involved.

use std::fs;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use crate::diagnostics::Failure;

/// Where a shader is read from.
#[derive(Clone, Debug)]
pub enum Input {
    /// Standard input (`-` or no argument).
    Stdin,
    /// A file.
    File(PathBuf),
}

impl Input {
    /// The input named on the command line: `-` or nothing means standard input.
    pub fn from_arg(arg: Option<&Path>) -> Self {
        match arg {
            None => Input::Stdin,
            Some(path) if path.as_os_str() == "-" => Input::Stdin,
            Some(path) => Input::File(path.to_path_buf()),
        }
    }

    /// The name diagnostics show in their `--> NAME:LINE:COL` line.
    pub fn file_name(&self) -> String {
        match self {
            Input::Stdin => "<stdin>".to_string(),
            Input::File(path) => path.display().to_string(),
        }
    }

    /// How messages refer to this input: `` `path` `` or `standard input`.
    pub fn describe(&self) -> String {
        match self {
            Input::Stdin => "standard input".to_string(),
            Input::File(path) => format!("`{}`", path.display()),
        }
    }

    /// Reads all of the input as text.
    pub fn read_text(&self) -> Result<String, Failure> {
        let bytes = match self {
            Input::Stdin => {
                let mut bytes = Vec::new();
                io::stdin().lock().read_to_end(&mut bytes).map(|_| bytes)
            }
            Input::File(path) => fs::read(path),
        }
        .map_err(|source| Failure::Read { what: self.describe(), source })?;
        String::from_utf8(bytes).map_err(|err| {
            let valid = &err.as_bytes()[..err.utf8_error().valid_up_to()];
            // `valid` is UTF-8 by construction; count lines and characters in it.
            let valid = String::from_utf8_lossy(valid);
            let line = valid.matches('\n').count() + 1;
            let column = valid.rsplit('\n').next().map_or(0, |s| s.chars().count()) + 1;
            Failure::NotUtf8 { what: self.describe(), line, column }
        })
    }
}

/// Reads and parses a state file (`-` is standard input); a malformed
/// state is a located error.
pub fn read_state(path: &Path) -> Result<exec::State, Failure> {
    let input = Input::from_arg(Some(path));
    let text = input.read_text()?;
    exec::State::parse(&text).map_err(|err| Failure::Located { rendered: err.render(&text, &input.file_name()) })
}

/// Writes `bytes` to `path`, or to standard output when `path` is `None`.
///
/// A closed standard output (`tgsi-opt fmt x | head`) is not an error.
pub fn write_output(path: Option<&Path>, bytes: &[u8]) -> Result<(), Failure> {
    match path {
        Some(path) => {
            fs::write(path, bytes).map_err(|source| Failure::Write { what: format!("`{}`", path.display()), source })
        }
        None => {
            let mut stdout = io::stdout().lock();
            match stdout.write_all(bytes).and_then(|()| stdout.flush()) {
                Err(err) if err.kind() != io::ErrorKind::BrokenPipe => {
                    Err(Failure::Write { what: "standard output".to_string(), source: err })
                }
                _ => Ok(()),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dash_and_nothing_mean_stdin() {
        assert!(matches!(Input::from_arg(None), Input::Stdin));
        assert!(matches!(Input::from_arg(Some(Path::new("-"))), Input::Stdin));
        assert!(matches!(Input::from_arg(Some(Path::new("a.tgsi"))), Input::File(_)));
    }

    #[test]
    fn names() {
        let file = Input::File(PathBuf::from("dir/a.tgsi"));
        assert_eq!(file.file_name(), "dir/a.tgsi");
        assert_eq!(file.describe(), "`dir/a.tgsi`");
        assert_eq!(Input::Stdin.file_name(), "<stdin>");
        assert_eq!(Input::Stdin.describe(), "standard input");
    }
}
