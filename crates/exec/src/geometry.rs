//! Geometry shaders: the vertices `EMIT` appends and the primitive ends
//! `ENDPRIM` records, per invocation and vertex stream.
//!
//! `EMIT` appends, for every active lane, a vertex to the stream its
//! operand names (stream 0 without one): a snapshot of every declared `OUT`
//! register of that lane as it is at that point. `ENDPRIM` records that the
//! lane's current primitive on that stream ended after the vertices emitted
//! on it so far. Output registers keep their values after `EMIT`, as in
//! Mesa's interpreter.
//!
//! Limits: an invocation emits at most `GS_MAX_OUTPUT_VERTICES` vertices
//! (counted over all streams, as GL's `max_vertices` is) and never more
//! than [`MAX_VERTICES`]; later `EMIT`s are ignored, as Mesa ignores them
//! (its interpreter counts the vertices of the current primitive instead).
//! Likewise at most [`MAX_VERTICES`] primitive ends are kept per
//! invocation. Streams are 0 to [`MAX_STREAMS`] - 1, as in Gallium; an
//! `EMIT` or `ENDPRIM` naming another stream is ignored.

use std::collections::BTreeMap;

use ir::function::Module;
use ir::EntityRef;
use tgsi::{File, PropertyName};

use crate::Outputs;

/// Vertex streams: 0 to `MAX_STREAMS - 1` (Gallium's
/// `PIPE_MAX_VERTEX_STREAMS`).
pub const MAX_STREAMS: u32 = 4;

/// The most vertices one invocation emits, and the most primitive ends it
/// records, whatever `GS_MAX_OUTPUT_VERTICES` says (GL's
/// `MAX_GEOMETRY_OUTPUT_VERTICES` on most hardware). It keeps a runaway
/// loop of `EMIT`s from filling memory before the step budget ends it.
pub const MAX_VERTICES: u32 = 1024;

/// What one invocation emitted on one vertex stream.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EmittedStream {
    /// Registers per vertex: the number of declared `OUT` registers.
    width: usize,
    vertices: u32,
    /// Vertex-major: vertex `k`, register slot `r` at `k * width + r`.
    values: Vec<[u32; 4]>,
    /// The vertex count at each primitive end, in the order they came
    /// (so never decreasing).
    ends: Vec<u32>,
}

impl EmittedStream {
    /// An empty stream whose vertices hold `width` registers.
    pub(crate) fn new(width: usize) -> EmittedStream {
        EmittedStream { width, ..EmittedStream::default() }
    }

    /// How many vertices were emitted.
    pub fn vertices(&self) -> u32 {
        self.vertices
    }

    /// The registers of vertex `k` (0-based), in the order of
    /// [`Outputs::registers`]; `None` when there is no such vertex.
    pub fn vertex(&self, k: u32) -> Option<&[[u32; 4]]> {
        if k >= self.vertices {
            return None;
        }
        let at = k as usize * self.width;
        self.values.get(at..at + self.width)
    }

    /// Every primitive end, as the number of vertices emitted on the stream
    /// before it, in order.
    pub fn primitive_ends(&self) -> &[u32] {
        &self.ends
    }

    /// Appends a vertex; `values` must hold one value per register.
    pub(crate) fn push_vertex(&mut self, values: impl IntoIterator<Item = [u32; 4]>) {
        let before = self.values.len();
        self.values.extend(values.into_iter().take(self.width));
        self.values.resize(before + self.width, [0; 4]);
        self.vertices += 1;
    }

    /// Records a primitive end after the vertices so far.
    pub(crate) fn end_primitive(&mut self) {
        self.ends.push(self.vertices);
    }

    /// A primitive end after `count` vertices, in any order (for reading
    /// text); kept sorted.
    pub(crate) fn insert_end(&mut self, count: u32) {
        let at = self.ends.partition_point(|&e| e <= count);
        self.ends.insert(at, count);
    }

    /// Sets the vertex count and the values read from text (vertex-major).
    pub(crate) fn set_vertices(&mut self, vertices: u32, values: Vec<[u32; 4]>) {
        self.vertices = vertices;
        self.values = values;
    }
}

/// What a module's `EMIT`s snapshot, and how many they may add.
#[derive(Clone, Debug)]
pub(crate) struct Layout {
    /// The declared OUT registers, ascending.
    pub registers: Vec<u32>,
    /// Vertices per invocation: `GS_MAX_OUTPUT_VERTICES`, at most
    /// [`MAX_VERTICES`].
    pub limit: u32,
    /// OUT registers kept in arrays (those indirectly addressed) as
    /// (array, first register, length): the output table sees them only
    /// when they are copied into it.
    pub output_arrays: Vec<(u32, u32, u32)>,
}

impl Layout {
    pub fn new(module: &Module, registers: Vec<u32>) -> Layout {
        let declared = module.interface.iter().find_map(|item| match item {
            tgsi::Item::Property(p) if p.name == PropertyName::GsMaxOutputVertices => Some(p.value),
            _ => None,
        });
        let output_arrays = (module.function.arrays.iter())
            .filter(|(_, a)| a.file == File::Output)
            .map(|(id, a)| (id.index() as u32, a.first, a.len))
            .collect();
        Layout { registers, limit: declared.map_or(MAX_VERTICES, |v| v.min(MAX_VERTICES)), output_arrays }
    }
}

/// The vertices and primitive ends of one batch's lanes.
pub(crate) struct Emitter<'a> {
    layout: &'a Layout,
    /// Per lane of the batch: vertices emitted and primitive ends recorded,
    /// over all streams, for the limits.
    counts: Vec<(u32, u32)>,
    /// By (lane in the batch, stream); only what was emitted.
    streams: BTreeMap<(usize, u32), EmittedStream>,
}

impl<'a> Emitter<'a> {
    pub fn new(layout: &'a Layout, w: usize) -> Self {
        Emitter { layout, counts: vec![(0, 0); w], streams: BTreeMap::new() }
    }

    /// `EMIT` on `stream` for `lane`; `register` gives the lane's current
    /// value of an OUT register.
    pub fn emit(&mut self, lane: usize, stream: u32, register: impl Fn(u32) -> [u32; 4]) {
        let Some((vertices, _)) = self.counts.get_mut(lane) else { return };
        if stream >= MAX_STREAMS || *vertices >= self.layout.limit {
            return;
        }
        *vertices += 1;
        let width = self.layout.registers.len();
        let record = self.streams.entry((lane, stream)).or_insert_with(|| EmittedStream::new(width));
        record.push_vertex(self.layout.registers.iter().map(|&r| register(r)));
    }

    /// `ENDPRIM` on `stream` for `lane`.
    pub fn end_primitive(&mut self, lane: usize, stream: u32) {
        let Some((_, ends)) = self.counts.get_mut(lane) else { return };
        if stream >= MAX_STREAMS || *ends >= MAX_VERTICES {
            return;
        }
        *ends += 1;
        let width = self.layout.registers.len();
        self.streams.entry((lane, stream)).or_insert_with(|| EmittedStream::new(width)).end_primitive();
    }

    /// What the batch's lanes emitted, by (lane in the batch, stream).
    pub fn finish(self) -> Emitted {
        Emitted(self.streams)
    }
}

/// What one batch's lanes emitted, to hand to the run's outputs once every
/// batch is done.
pub(crate) struct Emitted(BTreeMap<(usize, u32), EmittedStream>);

impl Emitted {
    /// Hands the streams to `outputs`, the batch's lane 0 being invocation
    /// `first`.
    pub fn add_to(self, outputs: &mut Outputs, first: u32) {
        for ((lane, stream), record) in self.0 {
            outputs.set_emitted(first + lane as u32, stream, record);
        }
    }
}
