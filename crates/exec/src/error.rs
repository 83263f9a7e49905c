//! The crate's errors: why a run failed ([`ExecError`]), and why a state
//! or outputs text is not valid, located in the text ([`StateError`]).

/// Why a run failed.
#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    /// An operation the backend does not execute yet.
    #[error("`{0}` is not executed yet")]
    Unsupported(String),
    /// An ALU opcode the scalar semantics do not cover for these operands.
    #[error("`{opcode}` (channel {chan}, {args} operands) is not executed yet")]
    UnsupportedAlu {
        /// The opcode.
        opcode: &'static str,
        /// The channel or pair.
        chan: u8,
        /// The operand count.
        args: usize,
    },
    /// The step budget ran out: most likely an endless loop.
    #[error("stopped after {0} steps in one batch of lanes: the shader does not finish (an endless loop?)")]
    StepBudget(u64),
    /// A lane count that is not a multiple of 4 from 4 to 64.
    #[error("lanes per batch must be a multiple of 4 from 4 to 64, not {0}")]
    Lanes(usize),
    /// The thread pool could not be started.
    #[error("cannot start the thread pool: {0}")]
    Threads(String),
    /// IR the verifier would reject.
    #[error("malformed IR: {0}")]
    Malformed(String),
    /// The JIT was asked for where it does not run.
    #[error("the JIT backend is not available: {0}")]
    JitUnavailable(String),
    /// Cranelift failed to compile the program.
    #[error("JIT compilation failed: {0}")]
    Jit(String),
}

/// Why a state (or outputs) text is not valid, and where.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{column}: {kind}")]
pub struct StateError {
    /// 1-based line of the offending token.
    pub line: usize,
    /// 1-based column of the offending token, counted in characters.
    pub column: usize,
    /// The offending token (empty for an error at the end of the text).
    pub text: String,
    /// What is wrong.
    pub kind: StateErrorKind,
}

/// What is wrong with a state or outputs text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StateErrorKind {
    /// The first word of a line is not a directive of the format.
    #[error("unknown directive `{found}` (expected {})", list(.known))]
    UnknownDirective {
        /// The word found.
        found: String,
        /// The directives the format knows.
        known: &'static [&'static str],
    },
    /// A directive has too few or too many operands.
    #[error("`{directive}` takes {expected} operand{} ({directive} {syntax}), found {found}", plural(.expected))]
    OperandCount {
        /// The directive.
        directive: &'static str,
        /// How many operands it takes.
        expected: usize,
        /// Its operands, as the format writes them.
        syntax: &'static str,
        /// How many the line has.
        found: usize,
    },
    /// An operand that should be a decimal integer is not one.
    #[error("expected {what} (a decimal integer), found `{found}`")]
    BadNumber {
        /// What the operand is (`a lane`, `a texture unit`, ...).
        what: &'static str,
        /// The token found.
        found: String,
    },
    /// An integer operand is above the format's limit.
    #[error("{what} {found} is too large (at most {max})")]
    TooLarge {
        /// What the operand is.
        what: &'static str,
        /// The token found.
        found: String,
        /// The largest value accepted.
        max: u64,
    },
    /// A channel value is neither a decimal float nor `0x` bits.
    #[error(
        "expected a value (a decimal float such as `1.5`, `-2`, `1e-3`, `inf`, `nan`, or raw bits `0xXXXXXXXX`), found `{found}`"
    )]
    BadValue {
        /// The token found.
        found: String,
    },
    /// A lane at or beyond the number of invocations.
    #[error("lane {lane} is out of range (`invocations {invocations}` allows lanes 0 to {})", .invocations.saturating_sub(1))]
    LaneOutOfRange {
        /// The lane named.
        lane: u32,
        /// The number of invocations.
        invocations: u32,
    },
    /// A line that names lanes comes before `invocations`.
    #[error("`{directive}` comes before `invocations`: the number of invocations must be set first")]
    InvocationsNotYetSet {
        /// The directive of the line.
        directive: &'static str,
    },
    /// The text has no `invocations` line.
    #[error("the state has no `invocations` line")]
    MissingInvocations,
    /// A second `invocations` line.
    #[error("`invocations` is set twice (first on line {first_line})")]
    DuplicateInvocations {
        /// Line of the first `invocations`.
        first_line: usize,
    },
    /// `invocations 0`.
    #[error("`invocations` must be at least 1")]
    ZeroInvocations,
    /// A second `texsize` line for one unit.
    #[error("texture unit {unit} is sized twice (first on line {first_line})")]
    DuplicateTexsize {
        /// The texture unit.
        unit: u32,
        /// Line of the first `texsize` for it.
        first_line: usize,
    },
    /// `texsize` with a zero width or height.
    #[error("a texture must be at least 1x1, found {width}x{height}")]
    ZeroTexsize {
        /// Width given.
        width: u32,
        /// Height given.
        height: u32,
    },
    /// `texel` for a unit with no `texsize` before it.
    #[error("texel for texture unit {unit}, which has no `texsize` line before it")]
    TexelWithoutTexsize {
        /// The texture unit.
        unit: u32,
    },
    /// `texel` outside its texture.
    #[error("texel ({x}, {y}) is outside texture unit {unit}, which is {width}x{height}")]
    TexelOutside {
        /// The texture unit.
        unit: u32,
        /// Column of the texel.
        x: u32,
        /// Row of the texel.
        y: u32,
        /// Width of the texture.
        width: u32,
        /// Height of the texture.
        height: u32,
    },
    /// A second `sampler` line for one unit.
    #[error("texture unit {unit} has its sampler set twice (first on line {first_line})")]
    DuplicateSampler {
        /// The texture unit.
        unit: u32,
        /// Line of the first `sampler` for it.
        first_line: usize,
    },
    /// `sampler` with a filter word it does not know.
    #[error("unknown filter `{found}` (expected {})", list(.known))]
    UnknownFilter {
        /// The word found.
        found: String,
        /// The filters the format knows.
        known: &'static [&'static str],
    },
    /// `sampler` with a wrap word it does not know.
    #[error("unknown wrap mode `{found}` (expected {})", list(.known))]
    UnknownWrap {
        /// The word found.
        found: String,
        /// The wrap modes the format knows.
        known: &'static [&'static str],
    },
    /// A second `buffer` or `image` line for one unit.
    #[error("{what} unit {unit} is sized twice (first on line {first_line})")]
    DuplicateResource {
        /// `buffer` or `image`.
        what: &'static str,
        /// The unit.
        unit: u32,
        /// Line of the first one.
        first_line: usize,
    },
    /// A size or byte offset that is not a multiple of 4.
    #[error("{what} must be a multiple of 4, found {found}")]
    Unaligned {
        /// What the operand is.
        what: &'static str,
        /// The value found.
        found: u32,
    },
    /// `bufdata` or `imgdata` for a unit with no `buffer` or `image` line
    /// before it.
    #[error("`{directive}` for {what} unit {unit}, which has no `{what}` line before it")]
    DataWithoutResource {
        /// `bufdata` or `imgdata`.
        directive: &'static str,
        /// `buffer` or `image`.
        what: &'static str,
        /// The unit.
        unit: u32,
    },
    /// `bufdata` words beyond the end of their buffer.
    #[error("words from byte {offset} to byte {end} do not fit in buffer unit {unit}, which is {size} bytes")]
    BufferDataOutside {
        /// The buffer unit.
        unit: u32,
        /// Byte offset of the first word.
        offset: u32,
        /// Byte offset just past the last word.
        end: u64,
        /// Size of the buffer in bytes.
        size: u32,
    },
    /// `image` with a zero width, height or layer count.
    #[error("an image must be at least 1x1 with 1 layer, found {width}x{height} with {layers}")]
    ZeroImageSize {
        /// Width given.
        width: u32,
        /// Height given.
        height: u32,
        /// Layers given.
        layers: u32,
    },
    /// `imgdata` outside its image.
    #[error("texel ({x}, {y}) of layer {layer} is outside image unit {unit}, which is {width}x{height} with {layers} layer(s)")]
    ImageDataOutside {
        /// The image unit.
        unit: u32,
        /// Column of the texel.
        x: u32,
        /// Row of the texel.
        y: u32,
        /// Layer of the texel.
        layer: u32,
        /// Width of the image.
        width: u32,
        /// Height of the image.
        height: u32,
        /// Layers of the image.
        layers: u32,
    },
    /// Buffers and images holding more bytes together than a state may ask for.
    #[error("buffers and images would hold {total} bytes together (at most {max})")]
    MemoryTooLarge {
        /// The bytes with this line's resource.
        total: u64,
        /// The most accepted.
        max: u64,
    },
    /// An outputs text gives one buffer word or image texel twice.
    #[error("{what} is given twice (first on line {first_line})")]
    DuplicateMemory {
        /// Which word or texel, in words (`word 8 of buffer 0`).
        what: String,
        /// Line of the first one.
        first_line: usize,
    },
    /// `sysval` with a name that is not a TGSI semantic.
    #[error("unknown system value `{found}` (expected a TGSI semantic name such as THREAD_ID or VERTEXID)")]
    UnknownSysval {
        /// The name found.
        found: String,
    },
    /// An outputs text gives one register of one lane twice.
    #[error("output {index} of lane {lane} is given twice (first on line {first_line})")]
    DuplicateOutput {
        /// The OUT register index.
        index: u32,
        /// The lane.
        lane: u32,
        /// Line of the first one.
        first_line: usize,
    },
    /// An outputs text gives a register for some lanes but not all.
    #[error("output {index} is given for some lanes but not for lane {lane}")]
    MissingOutput {
        /// The OUT register index.
        index: u32,
        /// The lane it is missing for.
        lane: u32,
    },
    /// An outputs text gives one register of one emitted vertex twice.
    #[error("output {index} of vertex {vertex} of lane {lane} on stream {stream} is given twice (first on line {first_line})")]
    DuplicateEmit {
        /// The OUT register index.
        index: u32,
        /// The lane.
        lane: u32,
        /// The vertex stream.
        stream: u32,
        /// The vertex, counted from 0 per lane and stream.
        vertex: u32,
        /// Line of the first one.
        first_line: usize,
    },
    /// An `emit` line names a register no `output` line gives.
    #[error("`emit` gives output {index}, which no `output` line gives")]
    EmitUnknownOutput {
        /// The OUT register index.
        index: u32,
    },
    /// An emitted vertex lacks a register.
    #[error("vertex {vertex} of lane {lane} on stream {stream} lacks output {index}")]
    MissingEmit {
        /// The OUT register index.
        index: u32,
        /// The lane.
        lane: u32,
        /// The vertex stream.
        stream: u32,
        /// The vertex, counted from 0 per lane and stream.
        vertex: u32,
    },
    /// An outputs text kills one lane twice.
    #[error("lane {lane} is killed twice (first on line {first_line})")]
    DuplicateKill {
        /// The lane.
        lane: u32,
        /// Line of the first `kill`.
        first_line: usize,
    },
}

/// The plural ending for a count.
fn plural(n: &usize) -> &'static str {
    if *n == 1 {
        ""
    } else {
        "s"
    }
}

/// `a, b or c`, each in backquotes.
fn list(words: &[&str]) -> String {
    let quoted: Vec<String> = words.iter().map(|w| format!("`{w}`")).collect();
    match quoted.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        Some((last, _)) => last.clone(),
        None => String::new(),
    }
}

impl StateError {
    /// The full line of `source` the error is on, without its line end
    /// (empty when the error is at the end of the text).
    pub fn source_line<'a>(&self, source: &'a str) -> &'a str {
        source.split('\n').nth(self.line.saturating_sub(1)).unwrap_or("").trim_end_matches('\r')
    }

    /// Renders the error as a caret diagnostic, in the style of the TGSI
    /// parser's errors:
    ///
    /// ```text
    /// error: lane 9 is out of range (`invocations 4` allows lanes 0 to 3)
    ///  --> case.state:3:9
    ///   |
    /// 3 | input 0 9 1 2 3 4
    ///   |         ^
    /// ```
    pub fn render(&self, source: &str, file_name: &str) -> String {
        let line_text = self.source_line(source);
        let line_no = self.line.to_string();
        let pad = " ".repeat(line_no.len());
        let col = self.column.max(1);
        // Tabs before the caret keep their width so the caret lines up.
        let lead: String = line_text.chars().take(col - 1).map(|c| if c == '\t' { '\t' } else { ' ' }).collect();
        let width = self.text.chars().count().max(1);
        format!(
            "error: {msg}\n{pad}--> {file_name}:{line}:{col}\n{pad} |\n{line_no} | {line_text}\n{pad} | {lead}{carets}\n",
            msg = self.kind,
            line = self.line,
            carets = "^".repeat(width),
        )
    }
}
