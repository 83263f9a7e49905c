//! Random TGSI programs and random input states for them, for differential
//! testing of the passes (see [`crate::difftest`]).
//!
//! [`program`] writes, deterministically from a `u64` seed, a fragment,
//! vertex or compute shader in today's TGSI text syntax (what Mesa's
//! `tgsi_text` parser reads) that builds, verifies and runs on the backend
//! without error: declarations of inputs, outputs, constants, temporaries
//! and a temporary array with `ADDR` indirect access; FLT32, UINT32, INT32
//! and FLT64 immediates; float, integer, double and 64-bit integer
//! operations with swizzles, write masks, negation, absolute value and
//! `_SAT`; replicated operations; broadcast swizzles; sections that compute
//! only on immediates; dead code; IF/UIF/ELSE with Mesa's branch labels,
//! counted loops with BRK and CONT, SWITCH with fall-through, `KILL_IF`
//! and derivatives in fragment shaders; subroutines (`BGNSUB`/`ENDSUB`
//! after `END`) called with `CAL` from the main program and from each other
//! in a chain, each calling the next once or twice. Every `OUT` is written
//! at the end.
//!
//! The programs stay inside what every run defines, so that a pass is the
//! only thing that can change their results:
//! - every loop counts up to an immediate bound of at most 8 in a register
//!   the rest of the program never writes, and tests it first thing in the
//!   body, so loops end and `CONT` cannot skip the count;
//! - every `ADDR` value is masked to 0..3 before use, and every indirect
//!   offset leaves room for it, so indirect access stays in range;
//! - derivatives (`DDX`, `DDY`) run only outside control flow and before
//!   any `KILL_IF`, where every lane of a quad holds a defined value;
//! - subroutines hold ALU instructions and calls only (no loops, whose
//!   counters they would share with their callers), and call only later
//!   ones, so calls end;
//! - no textures, memory or geometry shaders.
//!
//! [`float_program`] writes programs a driver without integers takes:
//! float operations only (no integer, conversion or 64-bit operation, no
//! `UIF` or `SWITCH`), loops counted in floats, `ADDR` from `ARL`.
//!
//! [`program_from_tape`] writes a program whose every choice follows a
//! tape of bytes ([`Rng::from_tape`]): what a fuzzer drives to reach
//! shapes no byte-level mutation of TGSI text would.
//!
//! [`state`] writes a matching input state in the state exchange format:
//! 16 invocations (four quads), every input and constant with a mix of
//! small floats, integers as raw bits, special values (zeros of both
//! signs, infinities, NaNs, denormals, extremes) and double halves, with
//! per-lane exceptions.
//!
//! ```
//! let p = testkit::random_program::program(7);
//! assert_eq!(p.text, testkit::random_program::program(7).text);
//! let shader = tgsi::parse(&p.text).unwrap();
//! let module = ir::from_tgsi(&shader).unwrap();
//! let state = exec::State::parse(&testkit::random_program::state(&p, 1)).unwrap();
//! assert!(exec::run(&module, &state, &exec::RunOptions::default()).is_ok());
//! ```

mod operands;
mod ops;
mod render;
mod state;
mod statements;

use crate::Rng;
use ops::Imm;

pub use state::state;

/// The shader stages the generator writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// `FRAG`: with `KILL_IF`, `DDX`/`DDY` and colour outputs.
    Fragment,
    /// `VERT`: a position and generic outputs.
    Vertex,
    /// `COMP`: with the `THREAD_ID` system value as an extra source.
    Compute,
}

/// A generated program and what its state needs to know about it.
#[derive(Clone, Debug)]
pub struct RandomProgram {
    /// The seed it was generated from.
    pub seed: u64,
    /// Its stage.
    pub stage: Stage,
    /// The TGSI text.
    pub text: String,
    /// How many `IN` registers it declares (`IN[0..inputs-1]`).
    pub inputs: u32,
    /// How many `CONST` registers it declares (`CONST[0..constants-1]`).
    pub constants: u32,
}

/// Invocations in every generated state: four 2x2 quads.
pub const INVOCATIONS: u32 = 16;

/// Highest bound of a loop counter.
const MAX_LOOP_BOUND: u32 = 8;
/// How deep IF, loops and SWITCH nest at most.
const MAX_DEPTH: usize = 3;
/// How deep loops nest at most (each level has its own counter register).
const MAX_LOOP_DEPTH: u32 = 2;
/// `ADDR` values are masked to `0..=ADDR_MAX`.
const ADDR_MAX: u32 = 3;

/// Most subroutines a program has.
const MAX_SUBROUTINES: u32 = 4;

/// Generates the program of `seed`.
pub fn program(seed: u64) -> RandomProgram {
    generate(seed, seeded(seed), false)
}

/// Generates the float-only program of `seed`: no opcode that needs
/// integers (`semantics::needs`), so a target without them takes it.
///
/// ```
/// let p = testkit::random_program::float_program(3);
/// let shader = tgsi::parse(&p.text).unwrap();
/// assert!(shader.instructions().all(|i| !semantics::needs(i.opcode).integers), "{}", p.text);
/// ```
pub fn float_program(seed: u64) -> RandomProgram {
    generate(seed, seeded(seed), true)
}

/// Generates a program whose choices follow `tape` (its `seed` is 0).
///
/// ```
/// let p = testkit::random_program::program_from_tape(&[1, 2, 3, 4, 5, 6, 7, 8]);
/// assert_eq!(p.text, testkit::random_program::program_from_tape(&[1, 2, 3, 4, 5, 6, 7, 8]).text);
/// let module = ir::from_tgsi(&tgsi::parse(&p.text).unwrap()).unwrap();
/// let state = exec::State::parse(&testkit::random_program::state(&p, 0)).unwrap();
/// assert!(exec::run(&module, &state, &exec::RunOptions::default()).is_ok());
/// ```
pub fn program_from_tape(tape: &[u8]) -> RandomProgram {
    generate(0, Rng::from_tape(tape), false)
}

fn generate(seed: u64, mut rng: Rng, float_only: bool) -> RandomProgram {
    let stage = match rng.below(10) {
        0..=4 => Stage::Fragment,
        5..=7 => Stage::Vertex,
        _ => Stage::Compute,
    };
    let temps = 4 + rng.below(7);
    let layout = Layout {
        stage,
        temps,
        counters: temps,
        array_first: temps + MAX_LOOP_DEPTH,
        array_len: ADDR_MAX + 2 + rng.below(3),
        inputs: 1 + rng.below(4),
        outputs: 1 + rng.below(3),
        // Indirect constant reads need ADDR_MAX + 1 registers at least.
        constants: ADDR_MAX + 1 + rng.below(4),
    };
    let mut g = Generator {
        doubles: !float_only && rng.below(3) == 0,
        int64: !float_only && rng.below(4) == 0,
        float_only,
        rng,
        l: layout,
        imms: Vec::new(),
        lines: Vec::new(),
        depth: 0,
        breakable: Vec::new(),
        loop_depth: 0,
        killed: false,
        subroutines: 0,
        calls: Vec::new(),
    };
    if g.rng.below(4) == 0 {
        g.subroutines = 1 + g.rng.below(MAX_SUBROUTINES);
    }
    let statements = 6 + g.rng.below(30) as usize;
    g.block(statements);
    g.write_outputs();
    g.push("END".to_string());
    g.write_subroutines();
    let text = g.render();
    RandomProgram { seed, stage, text, inputs: layout.inputs, constants: layout.constants }
}

/// The register layout of one program.
#[derive(Clone, Copy)]
struct Layout {
    stage: Stage,
    /// General temporaries `TEMP[0..temps-1]`, which any instruction writes.
    temps: u32,
    /// Loop counters `TEMP[counters + loop depth]`, written only by loops.
    counters: u32,
    /// The array `TEMP[array_first..array_first+array_len-1], ARRAY(1)`.
    array_first: u32,
    array_len: u32,
    inputs: u32,
    outputs: u32,
    constants: u32,
}

/// One instruction line: its nesting depth and its text.
struct Line {
    depth: usize,
    text: String,
}

/// What `BRK` leaves: a loop or a switch.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Breakable {
    Loop,
    Switch,
}

/// Where an operand may come from.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Sources {
    /// Any register.
    Any,
    /// Immediates only: a constant-only section.
    Immediates,
}

/// The state of writing one program.
struct Generator {
    rng: Rng,
    l: Layout,
    /// Whether this program uses double and 64-bit integer operations.
    doubles: bool,
    int64: bool,
    /// Float operations only: nothing that needs integers.
    float_only: bool,
    imms: Vec<Imm>,
    lines: Vec<Line>,
    depth: usize,
    breakable: Vec<Breakable>,
    loop_depth: u32,
    /// A `KILL_IF` or `KILL` has been written: no derivatives after it.
    killed: bool,
    /// How many subroutines follow `END`.
    subroutines: u32,
    /// Each `CAL` line and the subroutine it calls, labelled once the
    /// subroutines are written.
    calls: Vec<(usize, u32)>,
}

/// The generator seeded from `seed`.
fn seeded(seed: u64) -> Rng {
    Rng::new(seed ^ 0x243f_6a88_85a3_08d3)
}
