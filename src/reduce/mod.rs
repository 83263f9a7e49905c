//! Test-case reduction: shrink a shader while a test still finds it
//! interesting, as `llvm-reduce --test` and `spirv-reduce` do for their
//! IRs. What `tgsi-opt reduce` runs.
//!
//! Edits are tried pass by pass ([`Pass::ALL`]): remove runs of
//! instructions, collapse control flow, inline subroutines, remove
//! declarations and immediates, simplify operands, shrink write masks
//! and swizzles; the passes repeat until none makes progress. Every
//! candidate is valid TGSI (it prints, parses again and builds the IR)
//! before the test sees it, and is smaller than the shader it came from,
//! so the reduction ends. Candidates are tested `batch` at a time in
//! parallel; the first interesting one in the passes' order is kept, so
//! the result does not depend on the batch size or on timing.
//!
//! ```
//! use tgsi_opt::{reduce, tgsi};
//!
//! let shader = tgsi::parse(
//!     "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL TEMP[0]\n\
//!      MUL TEMP[0], IN[0], IN[0]\nRCP TEMP[0].x, TEMP[0].xxxx\nMOV OUT[0], TEMP[0]\nEND\n",
//! )?;
//! // Interesting: the shader still has an RCP.
//! let result = reduce::reduce(&shader, 1, |text| Ok::<_, ()>(text.contains("RCP")), |_| {}).unwrap();
//! assert_eq!(result.shader.instruction_count(), 1);
//! # Ok::<(), tgsi::ParseError>(())
//! ```

mod edits;

pub use edits::{Cost, Pass};

use rayon::prelude::*;
use tgsi::Shader;

/// The smallest interesting shader found, and what it took.
#[derive(Clone, Debug)]
pub struct Reduction {
    /// The shader.
    pub shader: Shader,
    /// Its text, as the test last saw it (or the input's, printed, if no
    /// edit was kept).
    pub text: String,
    /// How many times the test ran, the first run on the input aside.
    pub tests: u64,
    /// How many edits were kept.
    pub kept: u64,
}

/// What the reduction reports after each edit it keeps.
#[derive(Clone, Copy, Debug)]
pub struct Step {
    /// The pass the edit came from.
    pub pass: Pass,
    /// Instructions left.
    pub instructions: usize,
    /// Test runs so far.
    pub tests: u64,
}

/// Why a reduction could not start or go on.
#[derive(Debug, thiserror::Error)]
pub enum ReduceError<E> {
    /// The test does not find the input itself interesting.
    #[error("the test does not find the input interesting")]
    NotInteresting,
    /// The input is not valid TGSI this reducer keeps valid.
    #[error("the input does not build: {0}")]
    Invalid(String),
    /// The test could not be run.
    #[error(transparent)]
    Test(E),
}

/// The input printed and parsed again, if it builds: what a candidate must
/// be. `undeclared`: whether registers may be used without a declaration
/// (when the input does).
fn valid(candidate: &Shader, undeclared: bool) -> Result<(Shader, String), String> {
    let text = tgsi::print(candidate, tgsi::Style::Exact);
    let shader = tgsi::parse(&text).map_err(|e| e.to_string())?;
    if !undeclared {
        if let Some(found) = tgsi::undeclared(&shader).first() {
            return Err(format!("{} is not declared", found.register));
        }
    }
    ir::from_tgsi(&shader).map_err(|e| e.to_string())?;
    Ok((shader, text))
}

/// Shrinks `shader` while `interesting` holds for the text of each
/// candidate, testing `batch` candidates at a time (in the current rayon
/// pool); `step` hears of every edit kept.
pub fn reduce<F, E>(
    shader: &Shader,
    batch: usize,
    interesting: F,
    mut step: impl FnMut(&Step),
) -> Result<Reduction, ReduceError<E>>
where
    F: Fn(&str) -> Result<bool, E> + Sync,
    E: Send,
{
    let undeclared = !tgsi::undeclared(shader).is_empty();
    let (mut current, mut text) = valid(shader, undeclared).map_err(ReduceError::Invalid)?;
    if !interesting(&text).map_err(ReduceError::Test)? {
        return Err(ReduceError::NotInteresting);
    }
    let mut cost = Cost::of(&current);
    let (mut tests, mut kept) = (0, 0);
    let batch = batch.max(1);
    loop {
        let mut progressed = false;
        for pass in Pass::ALL {
            let mut at = 0;
            let mut edits = edits::edits(&current, pass);
            loop {
                let mut candidates = Vec::new();
                let mut next = at;
                while candidates.len() < batch && next < edits.len() {
                    let candidate = edits::apply(&current, &edits[next])
                        .and_then(|c| valid(&c, undeclared).ok())
                        .filter(|(c, _)| Cost::of(c) < cost);
                    candidates.extend(candidate.map(|(c, t)| (next, c, t)));
                    next += 1;
                }
                if candidates.is_empty() {
                    break;
                }
                tests += candidates.len() as u64;
                let verdicts: Vec<Result<bool, E>> = candidates.par_iter().map(|(_, _, t)| interesting(t)).collect();
                let mut found = None;
                for (verdict, candidate) in verdicts.into_iter().zip(candidates) {
                    if verdict.map_err(ReduceError::Test)? {
                        found = Some(candidate);
                        break;
                    }
                }
                match found {
                    Some((edit, shader, shader_text)) => {
                        (current, text) = (shader, shader_text);
                        cost = Cost::of(&current);
                        kept += 1;
                        progressed = true;
                        // The edits of the smaller shader, from where this one was.
                        edits = edits::edits(&current, pass);
                        at = edit;
                        step(&Step { pass, instructions: current.instruction_count(), tests });
                    }
                    None => at = next,
                }
            }
        }
        if !progressed {
            return Ok(Reduction { shader: current, text, tests, kept });
        }
    }
}

#[cfg(test)]
mod tests;
