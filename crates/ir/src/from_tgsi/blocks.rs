//! The block being filled and the regions being built: adding
//! instructions, starting and closing regions, and appending a finished
//! construct with the block after it.

use super::Builder;
use crate::function::{Block, BlockData, Exit, Inst, Node, Op, Operand, Origin, Region, Ty, Value};

impl Builder<'_> {
    /// Adds an instruction to the end of the current block.
    pub(super) fn append(&mut self, inst: Inst) {
        self.func.blocks[self.cur].insts.push(inst);
    }

    /// Adds an instruction to the current block; returns its first result.
    pub(super) fn emit(&mut self, op: Op, args: &[Operand], ty: Ty) -> Value {
        let origin = Origin { inst: Some(self.pc as u32), dst: None };
        let inst = self.func.add_inst(op, args, &[ty], origin);
        self.append(inst);
        self.func.result(inst)
    }

    /// A new, empty block, in no region yet.
    pub(super) fn new_block(&mut self) -> Block {
        self.func.blocks.push(BlockData::default())
    }

    /// Starts a new region whose first block is `b`.
    pub(super) fn open_region(&mut self, b: Block) {
        self.regions.push(vec![Node::Block(b)]);
        self.cur = b;
    }

    /// Ends the innermost region and returns it.
    pub(super) fn close_region(&mut self) -> Region {
        self.regions.pop().unwrap_or_default()
    }

    /// Appends a construct and the block that follows it; the new block
    /// becomes current.
    pub(super) fn push_construct(&mut self, node: Node) -> Block {
        let next = self.new_block();
        if let Some(region) = self.regions.last_mut() {
            region.push(node);
            region.push(Node::Block(next));
        }
        self.cur = next;
        next
    }

    /// Whether the current block falls through (no jump ended it).
    pub(super) fn reaches_end(&self) -> bool {
        self.func.blocks[self.cur].exit == Exit::Fallthrough
    }
}
