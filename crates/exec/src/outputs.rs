//! The results of a run: every declared `OUT` register of every lane, the
//! vertices and primitive ends a geometry shader emitted, which lanes
//! were killed, and the final contents of the state's buffers and images.
//!
//! The text format, ordered by lane; within a lane its `output` lines by
//! register index, then its `emit` and `endprim` lines, then its `kill`
//! line (the reference harness prints `output` and `kill` lines so); after
//! every lane, the `bufdata` lines by unit and offset, then the `imgdata`
//! lines by unit, layer, row and column:
//!
//! ```text
//! output INDEX LANE 0xXXXXXXXX 0xXXXXXXXX 0xXXXXXXXX 0xXXXXXXXX
//! emit LANE STREAM VERTEX INDEX 0xXXXXXXXX 0xXXXXXXXX 0xXXXXXXXX 0xXXXXXXXX
//! endprim LANE STREAM COUNT
//! kill LANE
//! bufdata UNIT OFFSET 0xXXXXXXXX
//! imgdata UNIT X Y LAYER 0xXXXXXXXX 0xXXXXXXXX 0xXXXXXXXX 0xXXXXXXXX
//! ```
//!
//! `bufdata` is the 32-bit word at byte OFFSET of the buffer on `BUFFER[UNIT]`
//! after the run, `imgdata` the texel at (X, Y) of layer LAYER of the image
//! on `IMAGE[UNIT]`; both use the syntax of the state's lines of the same
//! name, so results can seed the state of a further run. Buffers and images
//! start zeroed, so only words and texels that are not all zero bits are
//! printed: a missing line means zero. A state with no `buffer` or `image`
//! line gives none of these lines.
//!
//! `emit` is `OUT[INDEX]` of the VERTEX-th vertex (counted from 0 per lane
//! and stream) lane LANE emitted on vertex stream STREAM, one line per
//! declared `OUT` register; `endprim` says a primitive on STREAM ended after
//! COUNT vertices had been emitted on it. A lane's streams come in
//! ascending order; within a stream the lines follow the order of events:
//! vertex by vertex (each by register index), each `endprim` after the
//! vertices it counts and before the next one's. A shader with no `OUT`
//! register emits vertices that have no lines.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::error::{StateError, StateErrorKind};
use crate::geometry::{EmittedStream, MAX_STREAMS, MAX_VERTICES};
use crate::state::MAX_INVOCATIONS;
use crate::syntax::{expect_operands, integer, lines, value, vec4, Token};

/// The directives of the outputs format.
pub const OUTPUT_DIRECTIVES: &[&str] = &["output", "emit", "endprim", "kill", "bufdata", "imgdata"];

/// Every declared `OUT` register of every lane, as the bits of its four
/// channels, the vertices and primitive ends each lane emitted on each
/// vertex stream, and a kill flag per lane. Outputs start as zero bits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outputs {
    invocations: u32,
    /// Declared OUT indices, ascending, without repeats.
    registers: Vec<u32>,
    /// Lane-major: lane `l`, register slot `r` is at `l * registers.len() + r`.
    values: Vec<[u32; 4]>,
    killed: Vec<bool>,
    /// By (lane, stream); only the streams a lane emitted on or ended a
    /// primitive on, so shaders other than geometry shaders pay nothing.
    emitted: BTreeMap<(u32, u32), EmittedStream>,
    /// Buffer words that are not zero, by (unit, byte offset).
    buffers: BTreeMap<(u32, u32), u32>,
    /// Image texels that are not all zero, by (unit, layer, row, column).
    images: BTreeMap<TexelKey, [u32; 4]>,
}

impl Outputs {
    /// Zeroed outputs for `invocations` lanes and the declared OUT indices
    /// `registers` (in any order; repeats are dropped).
    pub fn new(invocations: u32, registers: impl IntoIterator<Item = u32>) -> Outputs {
        let mut outputs = Outputs {
            invocations: 0,
            registers: Vec::new(),
            values: Vec::new(),
            killed: Vec::new(),
            emitted: BTreeMap::new(),
            buffers: BTreeMap::new(),
            images: BTreeMap::new(),
        };
        outputs.reset(invocations, registers, false, true);
        outputs
    }

    /// Zeroed outputs for `invocations` lanes and `registers`, as
    /// [`Outputs::new`] makes them, in place: the tables keep their
    /// allocations, so a caller running many states saves allocating and
    /// faulting in fresh memory every run. With `parallel`, the zeros are
    /// written on the threads of the current rayon pool: for many
    /// invocations, where one thread writing megabytes of zeros would hold
    /// the others up.
    /// Without `zero` the values keep whatever they held where the table
    /// keeps its size (grown with zeros): for a run that writes every
    /// declared channel of every lane.
    pub(crate) fn reset(
        &mut self,
        invocations: u32,
        registers: impl IntoIterator<Item = u32>,
        parallel: bool,
        zero: bool,
    ) {
        use rayon::prelude::*;
        self.registers.clear();
        self.registers.extend(registers);
        self.registers.sort_unstable();
        self.registers.dedup();
        self.invocations = invocations;
        let lanes = invocations as usize;
        if zero {
            self.values.clear();
        } else {
            self.values.truncate(lanes * self.registers.len());
        }
        self.killed.clear();
        if parallel {
            self.values.par_extend(rayon::iter::repeat_n([0; 4], lanes * self.registers.len()));
            self.killed.par_extend(rayon::iter::repeat_n(false, lanes));
        } else {
            self.values.resize(lanes * self.registers.len(), [0; 4]);
            self.killed.resize(lanes, false);
        }
        // Clearing an empty map still walks it: most runs have none.
        if !self.emitted.is_empty() {
            self.emitted.clear();
        }
        if !self.buffers.is_empty() {
            self.buffers.clear();
        }
        if !self.images.is_empty() {
            self.images.clear();
        }
    }

    /// The number of lanes.
    pub fn invocations(&self) -> u32 {
        self.invocations
    }

    /// The declared OUT indices, ascending.
    pub fn registers(&self) -> &[u32] {
        &self.registers
    }

    fn slot(&self, index: u32, lane: u32) -> Option<usize> {
        let r = self.registers.binary_search(&index).ok()?;
        (lane < self.invocations).then(|| lane as usize * self.registers.len() + r)
    }

    /// `OUT[index]` of `lane`; `None` when the register is not declared or
    /// the lane is out of range.
    pub fn get(&self, index: u32, lane: u32) -> Option<[u32; 4]> {
        self.slot(index, lane).map(|s| self.values[s])
    }

    /// `OUT[index]` of `lane`, to write; `None` when the register is not
    /// declared or the lane is out of range.
    pub fn get_mut(&mut self, index: u32, lane: u32) -> Option<&mut [u32; 4]> {
        self.slot(index, lane).map(|s| &mut self.values[s])
    }

    /// The values, lane-major (`lane * registers().len() + register slot`),
    /// and the kill flags, for a run to fill in.
    pub(crate) fn lanes_mut(&mut self) -> (&mut [[u32; 4]], &mut [bool]) {
        (&mut self.values, &mut self.killed)
    }

    /// Whether `lane` was killed (false for a lane out of range).
    pub fn is_killed(&self, lane: u32) -> bool {
        self.killed.get(lane as usize).copied().unwrap_or(false)
    }

    /// Marks `lane` killed; returns false (and does nothing) when the lane
    /// is out of range.
    pub fn kill(&mut self, lane: u32) -> bool {
        match self.killed.get_mut(lane as usize) {
            Some(k) => {
                *k = true;
                true
            }
            None => false,
        }
    }

    /// The vertex streams `lane` emitted a vertex or ended a primitive on,
    /// ascending.
    pub fn streams(&self, lane: u32) -> impl Iterator<Item = u32> + '_ {
        self.emitted.range((lane, 0)..=(lane, u32::MAX)).map(|(&(_, stream), _)| stream)
    }

    /// What `lane` emitted on vertex stream `stream`: its vertices (each
    /// register in the order of [`Outputs::registers`]) and primitive ends;
    /// `None` when it emitted nothing and ended no primitive there.
    pub fn emitted(&self, lane: u32, stream: u32) -> Option<&EmittedStream> {
        self.emitted.get(&(lane, stream))
    }

    /// `OUT[index]` of the `vertex`-th vertex (from 0) `lane` emitted on
    /// `stream`; `None` when there is no such vertex or register.
    pub fn emitted_output(&self, index: u32, lane: u32, stream: u32, vertex: u32) -> Option<[u32; 4]> {
        let r = self.registers.binary_search(&index).ok()?;
        self.emitted(lane, stream)?.vertex(vertex)?.get(r).copied()
    }

    /// Appends a vertex to what `lane` emitted on `stream`: `values` holds
    /// its registers in the order of [`Outputs::registers`] (missing ones
    /// are zero, extra ones dropped). Returns false (and does nothing) when
    /// the lane or the stream is out of range, or the lane has emitted
    /// [`MAX_VERTICES`] vertices on the stream.
    pub fn emit(&mut self, lane: u32, stream: u32, values: &[[u32; 4]]) -> bool {
        let width = self.registers.len();
        let Some(record) = self.stream_mut(lane, stream) else { return false };
        if record.vertices() >= MAX_VERTICES {
            return false;
        }
        record.push_vertex(values.iter().copied().chain(std::iter::repeat([0; 4])).take(width));
        true
    }

    /// Records that `lane`'s current primitive on `stream` ended after the
    /// vertices emitted there so far. Returns false (and does nothing) when
    /// the lane or the stream is out of range, or [`MAX_VERTICES`] ends are
    /// recorded there already.
    pub fn end_primitive(&mut self, lane: u32, stream: u32) -> bool {
        let Some(record) = self.stream_mut(lane, stream) else { return false };
        if record.primitive_ends().len() >= MAX_VERTICES as usize {
            return false;
        }
        record.end_primitive();
        true
    }

    fn stream_mut(&mut self, lane: u32, stream: u32) -> Option<&mut EmittedStream> {
        if lane >= self.invocations || stream >= MAX_STREAMS {
            return None;
        }
        let width = self.registers.len();
        Some(self.emitted.entry((lane, stream)).or_insert_with(|| EmittedStream::new(width)))
    }

    /// Sets what `lane` emitted on `stream`, vertices holding this table's
    /// registers.
    pub(crate) fn set_emitted(&mut self, lane: u32, stream: u32, record: EmittedStream) {
        if lane < self.invocations && stream < MAX_STREAMS {
            self.emitted.insert((lane, stream), record);
        }
    }

    /// The word at byte `offset` of the buffer on `BUFFER[unit]` after the
    /// run (zero when not given).
    pub fn buffer_word(&self, unit: u32, offset: u32) -> u32 {
        self.buffers.get(&(unit, offset)).copied().unwrap_or(0)
    }

    /// Sets the word at byte `offset` (a multiple of 4) of `BUFFER[unit]`;
    /// returns false (and does nothing) when `offset` is not a multiple
    /// of 4. Zero words are not kept, as they are not printed.
    pub fn set_buffer_word(&mut self, unit: u32, offset: u32, word: u32) -> bool {
        if !offset.is_multiple_of(4) {
            return false;
        }
        if word == 0 {
            self.buffers.remove(&(unit, offset));
        } else {
            self.buffers.insert((unit, offset), word);
        }
        true
    }

    /// Every buffer word that is not zero, as `(unit, byte offset, word)`,
    /// by unit then offset.
    pub fn buffer_words(&self) -> impl Iterator<Item = (u32, u32, u32)> + '_ {
        self.buffers.iter().map(|(&(unit, offset), &word)| (unit, offset, word))
    }

    /// The texel at (`x`, `y`) of `layer` of the image on `IMAGE[unit]`
    /// after the run (zero when not given).
    pub fn image_texel(&self, unit: u32, x: u32, y: u32, layer: u32) -> [u32; 4] {
        self.images.get(&(unit, layer, y, x)).copied().unwrap_or_default()
    }

    /// Sets the texel at (`x`, `y`) of `layer` of `IMAGE[unit]`. Texels of
    /// zero bits are not kept, as they are not printed.
    pub fn set_image_texel(&mut self, unit: u32, x: u32, y: u32, layer: u32, texel: [u32; 4]) {
        if texel == [0; 4] {
            self.images.remove(&(unit, layer, y, x));
        } else {
            self.images.insert((unit, layer, y, x), texel);
        }
    }

    /// Every image texel that is not all zero, as `(unit, (x, y, layer),
    /// texel)`, by unit, layer, row, then column.
    pub fn image_texels(&self) -> impl Iterator<Item = (u32, (u32, u32, u32), [u32; 4])> + '_ {
        self.images.iter().map(|(&(unit, layer, y, x), &t)| (unit, (x, y, layer), t))
    }

    /// The text form: per lane, its outputs by register index, its emitted
    /// vertices and primitive ends by stream, then `kill` if it was killed.
    pub fn write(&self) -> String {
        let mut out = String::new();
        let n = self.registers.len();
        for lane in 0..self.invocations as usize {
            for (r, index) in self.registers.iter().enumerate() {
                let [x, y, z, w] = self.values[lane * n + r];
                // Writing to a String cannot fail.
                let _ = writeln!(out, "output {index} {lane} 0x{x:08x} 0x{y:08x} 0x{z:08x} 0x{w:08x}");
            }
            for stream in self.streams(lane as u32) {
                if let Some(record) = self.emitted(lane as u32, stream) {
                    self.write_stream(&mut out, lane, stream, record);
                }
            }
            if self.killed[lane] {
                let _ = writeln!(out, "kill {lane}");
            }
        }
        for (&(unit, offset), word) in &self.buffers {
            let _ = writeln!(out, "bufdata {unit} {offset} 0x{word:08x}");
        }
        for (&(unit, layer, y, x), [r, g, b, a]) in &self.images {
            let _ = writeln!(out, "imgdata {unit} {x} {y} {layer} 0x{r:08x} 0x{g:08x} 0x{b:08x} 0x{a:08x}");
        }
        out
    }

    /// One lane's `emit` and `endprim` lines for one stream, in the order
    /// of events.
    fn write_stream(&self, out: &mut String, lane: usize, stream: u32, record: &EmittedStream) {
        let ends = record.primitive_ends();
        let mut e = 0;
        for vertex in 0..=record.vertices() {
            while ends.get(e) == Some(&vertex) {
                let _ = writeln!(out, "endprim {lane} {stream} {vertex}");
                e += 1;
            }
            for (index, [x, y, z, w]) in self.registers.iter().zip(record.vertex(vertex).unwrap_or_default()) {
                let _ = writeln!(out, "emit {lane} {stream} {vertex} {index} 0x{x:08x} 0x{y:08x} 0x{z:08x} 0x{w:08x}");
            }
        }
        // Ends beyond the vertices cannot come from a run; still printed.
        for count in &ends[e..] {
            let _ = writeln!(out, "endprim {lane} {stream} {count}");
        }
    }

    /// Reads outputs from their text form (a `.expected` file). Lines may
    /// come in any order, and `#` comments and blank lines are skipped. The
    /// lanes are 0 up to the highest lane named; the registers are the
    /// indices named by `output` lines, and every one of them must be given
    /// exactly once for every lane. A lane's vertices on a stream are 0 up
    /// to the highest vertex its `emit` lines name or the highest count its
    /// `endprim` lines give; every one of them must give every register
    /// exactly once. `bufdata` lines (one word or more, as in a state) and
    /// `imgdata` lines may give each word or texel once.
    pub fn parse(text: &str) -> Result<Outputs, StateError> {
        // (index, lane) -> (value, line, column of the index token), kept
        // sparse until the set is known to be complete.
        let mut given: Given = BTreeMap::new();
        let mut kills: BTreeMap<u32, usize> = BTreeMap::new();
        let mut emitted = EmitLines::default();
        let mut buffers: BTreeMap<(u32, u32), (u32, usize)> = BTreeMap::new();
        let mut images: BTreeMap<TexelKey, ([u32; 4], usize)> = BTreeMap::new();
        let mut lanes: u32 = 0;
        for tokens in lines(text) {
            let head = tokens[0];
            let ops = &tokens[1..];
            match head.text {
                "output" => {
                    expect_operands(&tokens, "output", "INDEX LANE x y z w", 6)?;
                    let index = integer(&ops[0], "an output index", u32::MAX)?;
                    let lane = integer(&ops[1], "a lane", MAX_INVOCATIONS - 1)?;
                    let value = vec4(&ops[2..])?;
                    if let Some(&(_, first_line, _)) = given.get(&(index, lane)) {
                        return Err(head.error(StateErrorKind::DuplicateOutput { index, lane, first_line }));
                    }
                    given.insert((index, lane), (value, head.line, ops[0].column));
                    lanes = lanes.max(lane + 1);
                }
                "kill" => {
                    expect_operands(&tokens, "kill", "LANE", 1)?;
                    let lane = integer(&ops[0], "a lane", MAX_INVOCATIONS - 1)?;
                    if let Some(&first_line) = kills.get(&lane) {
                        return Err(head.error(StateErrorKind::DuplicateKill { lane, first_line }));
                    }
                    kills.insert(lane, head.line);
                    lanes = lanes.max(lane + 1);
                }
                "emit" => lanes = lanes.max(emitted.emit(&tokens)? + 1),
                "endprim" => lanes = lanes.max(emitted.endprim(&tokens)? + 1),
                "bufdata" => bufdata_line(&tokens, &mut buffers)?,
                "imgdata" => imgdata_line(&tokens, &mut images)?,
                other => {
                    return Err(head.error(StateErrorKind::UnknownDirective {
                        found: other.to_string(),
                        known: OUTPUT_DIRECTIVES,
                    }))
                }
            }
        }
        let mut registers: Vec<u32> = given.keys().map(|&(index, _)| index).collect();
        registers.dedup();
        // Check completeness before allocating, so the allocation is no
        // larger than the text.
        every_lane_given(&given, &registers, lanes)?;
        emitted.check(&registers)?;
        let mut outputs = Outputs::new(lanes, registers);
        for (&(index, lane), &(value, _, _)) in &given {
            if let Some(slot) = outputs.get_mut(index, lane) {
                *slot = value;
            }
        }
        emitted.fill(&mut outputs);
        for &lane in kills.keys() {
            outputs.kill(lane);
        }
        for (&(unit, offset), &(word, _)) in &buffers {
            outputs.set_buffer_word(unit, offset, word);
        }
        for (&(unit, layer, y, x), &(texel, _)) in &images {
            outputs.set_image_texel(unit, x, y, layer, texel);
        }
        Ok(outputs)
    }
    /// Whether two runs computed the same results: their text forms
    /// ([`Outputs::write`]) agree line by line, a 32-bit word matching when
    /// its bits are equal or both are NaN (payloads aside). So every lane's
    /// outputs, killed or not, the emitted vertices and primitive ends, the
    /// killed lanes, and the final buffer words and image texels must match.
    ///
    /// ```
    /// let mut a = exec::Outputs::new(1, [0]);
    /// let mut b = a.clone();
    /// *a.get_mut(0, 0).unwrap() = [0x7fc0_0000, 1, 2, 3];
    /// *b.get_mut(0, 0).unwrap() = [0xffc0_0001, 1, 2, 3];
    /// assert!(a.same_results(&b));
    /// b.kill(0);
    /// assert!(!a.same_results(&b));
    /// ```
    pub fn same_results(&self, other: &Outputs) -> bool {
        self.first_difference(other).is_none()
    }

    /// The first line of the text forms of two runs that differs, under the
    /// rule of [`Outputs::same_results`]; `None` when they agree.
    ///
    /// ```
    /// let a = exec::Outputs::new(2, [0]);
    /// let mut b = a.clone();
    /// b.get_mut(0, 1).unwrap()[2] = 1;
    /// let d = a.first_difference(&b).unwrap();
    /// assert_eq!(d.line, 2);
    /// assert_eq!(d.right.as_deref(), Some("output 0 1 0x00000000 0x00000000 0x00000001 0x00000000"));
    /// ```
    pub fn first_difference(&self, other: &Outputs) -> Option<Difference> {
        let (left, right) = (self.write(), other.write());
        let (mut a, mut b) = (left.lines(), right.lines());
        for line in 1.. {
            match (a.next(), b.next()) {
                (None, None) => return None,
                (Some(x), Some(y)) if same_line(x, y) => {}
                (x, y) => return Some(Difference { line, left: x.map(str::to_string), right: y.map(str::to_string) }),
            }
        }
        None
    }
}

/// Where two runs' results first differ (see [`Outputs::first_difference`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Difference {
    /// The line number, from 1, in both text forms.
    pub line: usize,
    /// That line of the first run's text, `None` past its end.
    pub left: Option<String>,
    /// That line of the second run's text, `None` past its end.
    pub right: Option<String>,
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let show = |s: &Option<String>| s.clone().unwrap_or_else(|| "(no line)".to_string());
        write!(f, "line {}: `{}` vs `{}`", self.line, show(&self.left), show(&self.right))
    }
}

/// Two lines of the text form agree: word by word, `0x` words equal or
/// both NaN as f32.
fn same_line(a: &str, b: &str) -> bool {
    let nan = |w: &str| {
        w.strip_prefix("0x").and_then(|h| u32::from_str_radix(h, 16).ok()).is_some_and(|x| f32::from_bits(x).is_nan())
    };
    a == b || {
        let (mut x, mut y) = (a.split(' '), b.split(' '));
        loop {
            match (x.next(), y.next()) {
                (None, None) => break true,
                (Some(p), Some(q)) if p == q || (nan(p) && nan(q)) => {}
                _ => break false,
            }
        }
    }
}

/// (unit, layer, row, column): one texel of one image.
type TexelKey = (u32, u32, u32, u32);

/// (lane, stream, vertex, index): one register of one emitted vertex.
type EmitKey = (u32, u32, u32, u32);

/// The `emit` and `endprim` lines of an outputs text, kept sparse until
/// they are known to be complete.
#[derive(Default)]
struct EmitLines {
    /// The value given, with the line and the column of the index token.
    values: BTreeMap<EmitKey, ([u32; 4], usize, usize)>,
    /// (lane, stream) -> primitive ends, in the order given.
    ends: BTreeMap<(u32, u32), Vec<u32>>,
    /// (lane, stream) -> line and column of the lane token of the first
    /// line for it, for errors about the stream as a whole.
    first: BTreeMap<(u32, u32), (usize, usize)>,
}

impl EmitLines {
    /// Reads an `emit` line; returns its lane.
    fn emit(&mut self, tokens: &[Token<'_>]) -> Result<u32, StateError> {
        expect_operands(tokens, "emit", "LANE STREAM VERTEX INDEX x y z w", 8)?;
        let (head, ops) = (tokens[0], &tokens[1..]);
        let (lane, stream) = self.lane_and_stream(ops)?;
        let vertex = integer(&ops[2], "a vertex", MAX_VERTICES - 1)?;
        let index = integer(&ops[3], "an output index", u32::MAX)?;
        let value = vec4(&ops[4..])?;
        if let Some(&(_, first_line, _)) = self.values.get(&(lane, stream, vertex, index)) {
            return Err(head.error(StateErrorKind::DuplicateEmit { index, lane, stream, vertex, first_line }));
        }
        self.values.insert((lane, stream, vertex, index), (value, head.line, ops[3].column));
        Ok(lane)
    }

    /// Reads an `endprim` line; returns its lane.
    fn endprim(&mut self, tokens: &[Token<'_>]) -> Result<u32, StateError> {
        expect_operands(tokens, "endprim", "LANE STREAM COUNT", 3)?;
        let ops = &tokens[1..];
        let (lane, stream) = self.lane_and_stream(ops)?;
        let count = integer(&ops[2], "a vertex count", MAX_VERTICES)?;
        self.ends.entry((lane, stream)).or_default().push(count);
        Ok(lane)
    }

    fn lane_and_stream(&mut self, ops: &[Token<'_>]) -> Result<(u32, u32), StateError> {
        let lane = integer(&ops[0], "a lane", MAX_INVOCATIONS - 1)?;
        let stream = integer(&ops[1], "a vertex stream", MAX_STREAMS - 1)?;
        self.first.entry((lane, stream)).or_insert((ops[0].line, ops[0].column));
        Ok((lane, stream))
    }

    /// How many vertices `lane` emitted on `stream`: up to the highest
    /// vertex named or primitive end counted.
    fn vertices(&self, lane: u32, stream: u32) -> u32 {
        let named = self.values.range((lane, stream, 0, 0)..=(lane, stream, u32::MAX, u32::MAX)).next_back();
        let ends = self.ends.get(&(lane, stream)).and_then(|e| e.iter().max());
        named.map_or(0, |(&(_, _, v, _), _)| v + 1).max(ends.copied().unwrap_or(0))
    }

    /// Checks that every register an `emit` line names is an output, and
    /// that every vertex gives every output once.
    fn check(&self, registers: &[u32]) -> Result<(), StateError> {
        for (&(_, _, _, index), &(_, line, column)) in &self.values {
            if registers.binary_search(&index).is_err() {
                let kind = StateErrorKind::EmitUnknownOutput { index };
                return Err(StateError { line, column, text: index.to_string(), kind });
            }
        }
        for &(lane, stream) in self.first.keys() {
            let vertices = self.vertices(lane, stream);
            let given = self.values.range((lane, stream, 0, 0)..=(lane, stream, u32::MAX, u32::MAX)).count();
            if given == vertices as usize * registers.len() {
                continue;
            }
            // Vertices are at most MAX_VERTICES, so this search is bounded.
            for vertex in 0..vertices {
                for &index in registers {
                    if !self.values.contains_key(&(lane, stream, vertex, index)) {
                        let (line, column) = self.first.get(&(lane, stream)).copied().unwrap_or((1, 1));
                        let kind = StateErrorKind::MissingEmit { index, lane, stream, vertex };
                        return Err(StateError { line, column, text: lane.to_string(), kind });
                    }
                }
            }
        }
        Ok(())
    }

    /// Moves the checked lines into `outputs`.
    fn fill(self, outputs: &mut Outputs) {
        let width = outputs.registers.len();
        for &(lane, stream) in self.first.keys() {
            let mut record = EmittedStream::new(width);
            let values = self.values.range((lane, stream, 0, 0)..=(lane, stream, u32::MAX, u32::MAX));
            // Ordered by vertex, then register: the stream's layout.
            record.set_vertices(self.vertices(lane, stream), values.map(|(_, &(v, _, _))| v).collect());
            for &count in self.ends.get(&(lane, stream)).map_or(&[][..], |e| &e[..]) {
                record.insert_end(count);
            }
            outputs.set_emitted(lane, stream, record);
        }
    }
}

/// The registers given, by (index, lane): the value, and the line and
/// column of the index token.
type Given = BTreeMap<(u32, u32), ([u32; 4], usize, usize)>;

/// Reads a `bufdata` line into `buffers`, (unit, byte offset) -> (word,
/// line).
fn bufdata_line(tokens: &[Token], buffers: &mut BTreeMap<(u32, u32), (u32, usize)>) -> Result<(), StateError> {
    let (head, ops) = (&tokens[0], &tokens[1..]);
    if tokens.len() < 4 {
        expect_operands(tokens, "bufdata", "UNIT OFFSET v0 v1 ...", 3)?;
    }
    let unit = integer(&ops[0], "a buffer unit", u32::MAX)?;
    let offset = integer(&ops[1], "a byte offset", u32::MAX)?;
    if !offset.is_multiple_of(4) {
        return Err(ops[1].error(StateErrorKind::Unaligned { what: "a byte offset", found: offset }));
    }
    // The last word must start at a byte offset that fits in 32 bits.
    let max = (u32::MAX as u64 + 1).saturating_sub(4 * (ops.len() as u64 - 2));
    if offset as u64 > max {
        let found = offset.to_string();
        return Err(ops[1].error(StateErrorKind::TooLarge { what: "a byte offset", found, max }));
    }
    for (k, token) in ops[2..].iter().enumerate() {
        let at = offset + 4 * k as u32;
        if let Some(&(_, first_line)) = buffers.get(&(unit, at)) {
            let what = format!("word {at} of buffer {unit}");
            return Err(head.error(StateErrorKind::DuplicateMemory { what, first_line }));
        }
        buffers.insert((unit, at), (value(token)?, head.line));
    }
    Ok(())
}

/// Reads an `imgdata` line into `images`, texel -> (value, line).
fn imgdata_line(tokens: &[Token], images: &mut BTreeMap<TexelKey, ([u32; 4], usize)>) -> Result<(), StateError> {
    let (head, ops) = (&tokens[0], &tokens[1..]);
    expect_operands(tokens, "imgdata", "UNIT X Y LAYER r g b a", 8)?;
    let unit = integer(&ops[0], "an image unit", u32::MAX)?;
    let x = integer(&ops[1], "a texel column", u32::MAX)?;
    let y = integer(&ops[2], "a texel row", u32::MAX)?;
    let layer = integer(&ops[3], "a layer", u32::MAX)?;
    if let Some(&(_, first_line)) = images.get(&(unit, layer, y, x)) {
        let what = format!("texel ({x}, {y}) of layer {layer} of image {unit}");
        return Err(head.error(StateErrorKind::DuplicateMemory { what, first_line }));
    }
    images.insert((unit, layer, y, x), (vec4(&ops[4..])?, head.line));
    Ok(())
}

/// Fails unless every register of `registers` is given on every lane
/// below `lanes`.
fn every_lane_given(given: &Given, registers: &[u32], lanes: u32) -> Result<(), StateError> {
    for &index in registers {
        // The lanes given for `index` come ascending, so the first lane
        // that differs from its position is the first one missing.
        let mut expected_lane = 0;
        for &(_, lane) in given.range((index, 0)..=(index, u32::MAX)).map(|(k, _)| k) {
            if lane != expected_lane {
                break;
            }
            expected_lane += 1;
        }
        if expected_lane < lanes {
            return Err(missing(given, index, expected_lane));
        }
    }
    Ok(())
}

/// The error for `OUT[index]` missing on `lane`, pointing at the first line
/// that gives the register.
fn missing(given: &Given, index: u32, lane: u32) -> StateError {
    let (line, column) = given.range((index, 0)..).next().map_or((1, 1), |(_, &(_, line, column))| (line, column));
    StateError { line, column, text: index.to_string(), kind: StateErrorKind::MissingOutput { index, lane } }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_sorts_and_dedups_registers() {
        let o = Outputs::new(2, [3, 1, 3]);
        assert_eq!(o.registers(), &[1, 3]);
        assert_eq!(o.get(2, 0), None);
        assert_eq!(o.get(3, 2), None);
        assert_eq!(o.get(3, 1), Some([0; 4]));
    }
}
