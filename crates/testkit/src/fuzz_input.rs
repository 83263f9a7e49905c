//! The input of the fuzz targets that run shaders (`run_shader`, `jit`):
//! a state and a shader in one text, split at the first `@@` line.

/// The state and the module of `text`: the part before a `@@` line is
/// the state (without one, the whole text is the shader, run on
/// `invocations 4`). `None` when either does not read, the shader does
/// not build, or the state asks for more than 256 invocations (to keep
/// each input fast).
///
/// ```
/// let (state, module) = testkit::fuzz_input::state_and_module("invocations 2\n\n@@\nFRAG\nEND\n").unwrap();
/// assert_eq!(state.invocations(), 2);
/// assert!(module.function.insts.len() <= 1);
/// assert!(testkit::fuzz_input::state_and_module("invocations 1000\n\n@@\nFRAG\nEND\n").is_none());
/// ```
pub fn state_and_module(text: &str) -> Option<(exec::State, ir::Module)> {
    let (state, shader) = text.split_once("\n@@\n").unwrap_or(("invocations 4\n", text));
    let state = exec::State::parse(state).ok()?;
    if state.invocations() > 256 {
        return None;
    }
    let module = ir::from_tgsi(&tgsi::parse(shader).ok()?).ok()?;
    Some((state, module))
}
