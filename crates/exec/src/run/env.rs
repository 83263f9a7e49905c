//! What a run reads besides the code: the state, the constants the
//! program reads, and the stage's defaults for system values.

use tgsi::{Processor, SemanticName};

use crate::program::Program;
use crate::State;

/// What a run reads besides the code: the state and the stage's defaults.
pub(crate) struct Env<'a> {
    pub state: &'a State,
    processor: Processor,
    block: [u32; 3],
    /// The value of each of the program's constant reads, then of each
    /// slot its uniform steps write (`Program::uniform`).
    pub constants: Vec<u32>,
}

impl<'a> Env<'a> {
    pub fn new(program: &Program, state: &'a State) -> Self {
        let block = program.block_size.unwrap_or([state.invocations(), 1, 1]);
        // Reads of one register's channels come together: one lookup in
        // the state's map serves them.
        let mut last: Option<((u32, u32), [u32; 4])> = None;
        let mut constants: Vec<u32> = program
            .const_reads
            .iter()
            .map(|&(buf, index, chan)| {
                let value = match last {
                    Some((key, value)) if key == (buf, index) => value,
                    _ => state.constant(buf, index),
                };
                last = Some(((buf, index), value));
                value[chan as usize & 3]
            })
            .collect();
        super::uniform::compute(program, &mut constants);
        Env { state, processor: program.processor, block, constants }
    }

    /// A system value of invocation `lane`: the state's, else the stage's
    /// default (as the reference harness sets them).
    pub fn system_value(&self, name: Option<SemanticName>, lane: u32) -> [u32; 4] {
        let Some(name) = name else { return [0; 4] };
        if let Some(v) = self.state.sysval(name, lane) {
            return v;
        }
        let [bw, bh, bd] = self.block;
        match name {
            SemanticName::VertexId | SemanticName::VertexIdNoBase if self.processor == Processor::Vertex => {
                [lane, 0, 0, 0]
            }
            SemanticName::ThreadId => [lane % bw, (lane / bw) % bh, lane / (bw * bh), 0],
            SemanticName::BlockSize => [bw, bh, bd, 0],
            SemanticName::GridSize => [1, 1, 1, 0],
            SemanticName::SamplePos => [0.5f32.to_bits(), 0.5f32.to_bits(), 0, 0],
            _ => [0; 4],
        }
    }
}
