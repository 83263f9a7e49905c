//! Progress of the long commands (`fuzz-passes`, `check-doubles`, `opt`
//! over many files): a bar on standard error when it is a terminal, and
//! nothing at all otherwise, so that logs and pipes get only the results.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A count of finished steps out of a known total, drawn only on a
/// terminal. Safe to advance from several threads.
pub struct Progress(Option<ProgressBar>);

impl Progress {
    /// A bar for `total` steps of `what` (`programs`), shown when standard
    /// error is a terminal.
    pub fn new(total: u64, what: &str) -> Progress {
        Progress::shown_if(std::io::stderr().is_terminal(), total, what)
    }

    /// A bar shown when `shown` holds, else one that does nothing.
    fn shown_if(shown: bool, total: u64, what: &str) -> Progress {
        if !shown {
            return Progress(None);
        }
        // The template is fixed text; should it not parse, the default
        // style still counts.
        let style = ProgressStyle::with_template("{wide_bar} {pos}/{len} {msg} ({elapsed}, eta {eta})")
            .unwrap_or_else(|_| ProgressStyle::default_bar());
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr())
            .with_style(style)
            .with_message(what.to_string());
        Progress(Some(bar))
    }

    /// One more step done.
    pub fn step(&self) {
        if let Some(bar) = &self.0 {
            bar.inc(1);
        }
    }

    /// Removes the bar, so the results print on a clean line.
    pub fn finish(&self) {
        if let Some(bar) = &self.0 {
            bar.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_terminal_gets_a_bar() {
        assert!(Progress::shown_if(false, 10, "programs").0.is_none());
        let shown = Progress::shown_if(true, 10, "programs");
        shown.step();
        assert_eq!(shown.0.as_ref().map(ProgressBar::position), Some(1));
        shown.finish();
    }
}
