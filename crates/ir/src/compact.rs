//! Dropping the instructions and values no block holds any more.
//!
//! Arenas never remove an entity: a pass that deletes an instruction only
//! takes it out of its block. After SSA construction (which creates a phi
//! for every variable an arm changed, most of them trivial or dead) and a
//! pipeline, most of a large shader's arena can be such garbage, and every
//! analysis sized by the arena (emission's layout and allocation) pays for
//! it. [`Function::compact`] renumbers what remains, keeping its order.

use crate::entity::{Arena, EntityRef};
use crate::function::{Function, Inst, Node, Value};

/// No new index: the entity is dropped.
const DROPPED: u32 = u32::MAX;

impl Function {
    /// Drops every instruction that is in no block and every value it
    /// defined, renumbering the rest in their old order (so anything
    /// ordered by index keeps its order) and releasing the arenas' spare
    /// room. Returns whether anything was dropped. A function in which a
    /// kept instruction or the tree reads a dropped value (invalid IR) is
    /// left as it is.
    ///
    /// ```
    /// let text = "FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nDCL TEMP[0]\n\
    ///             ADD TEMP[0], IN[0], IN[0]\nMOV OUT[0], IN[0]\nEND\n";
    /// let mut module = ir::from_tgsi(&tgsi::parse(text).unwrap()).unwrap();
    /// let func = &mut module.function;
    /// // Take the dead ADDs out of their block, as `dce` would.
    /// let adds: Vec<ir::Inst> = func.insts.iter()
    ///     .filter(|(_, d)| matches!(d.op, ir::Op::Alu { opcode: tgsi::Opcode::Add, .. }))
    ///     .map(|(i, _)| i)
    ///     .collect();
    /// for (_, block) in func.blocks.iter_mut() {
    ///     block.insts.retain(|i| !adds.contains(i));
    /// }
    /// let before = func.insts.len();
    /// assert!(func.compact());
    /// assert_eq!(func.insts.len(), before - adds.len());
    /// ir::verify::verify(func).unwrap();
    /// ```
    pub fn compact(&mut self) -> bool {
        let Some((inst_map, value_map)) = self.renumbering() else { return false };
        let kept = inst_map.iter().filter(|&&n| n != DROPPED).count();
        if kept == self.insts.len() && value_map.iter().all(|&n| n != DROPPED) {
            return false;
        }
        let new_value = |v: Value| Value::new(value_map[v.index()] as usize);
        let new_inst = |i: Inst| Inst::new(inst_map[i.index()] as usize);

        let mut insts = std::mem::take(&mut self.insts).into_vec();
        let mut k = 0;
        insts.retain(|_| {
            k += 1;
            inst_map[k - 1] != DROPPED
        });
        for data in &mut insts {
            for a in &mut data.args {
                a.value = new_value(a.value);
            }
            for r in &mut data.results {
                *r = new_value(*r);
            }
        }
        insts.shrink_to_fit();
        self.insts = Arena::from_vec(insts);

        let mut values = std::mem::take(&mut self.values).into_vec();
        let mut k = 0;
        values.retain(|_| {
            k += 1;
            value_map[k - 1] != DROPPED
        });
        for vd in &mut values {
            vd.def = new_inst(vd.def);
        }
        values.shrink_to_fit();
        self.values = Arena::from_vec(values);

        for (_, bd) in self.blocks.iter_mut() {
            for i in &mut bd.insts {
                *i = new_inst(*i);
            }
        }
        crate::walk::for_each_region_post_order_mut(&mut self.body, |r| {
            for op in r.iter_mut().flat_map(Node::operands_mut) {
                op.value = new_value(op.value);
            }
        });
        true
    }

    /// The new index of every instruction and value ([`DROPPED`] for those
    /// that go), or `None` when something kept reads a value that goes.
    fn renumbering(&mut self) -> Option<(Vec<u32>, Vec<u32>)> {
        let mut inst_map = vec![DROPPED; self.insts.len()];
        for (_, bd) in self.blocks.iter() {
            for &i in &bd.insts {
                *inst_map.get_mut(i.index())? = 0;
            }
        }
        for (next, n) in inst_map.iter_mut().filter(|n| **n != DROPPED).enumerate() {
            *n = next as u32;
        }
        let mut value_map = vec![DROPPED; self.values.len()];
        for (i, data) in self.insts.iter() {
            if inst_map[i.index()] == DROPPED {
                continue;
            }
            for &r in &data.results {
                let defined_here = self.values.get(r).is_some_and(|vd| vd.def == i);
                if defined_here {
                    value_map[r.index()] = 0;
                }
            }
        }
        for (next, n) in value_map.iter_mut().filter(|n| **n != DROPPED).enumerate() {
            *n = next as u32;
        }
        let kept = |v: Value| value_map.get(v.index()).is_some_and(|&n| n != DROPPED);
        let kept_inst = |i: Inst| inst_map[i.index()] != DROPPED;
        let reads_kept = self
            .insts
            .iter()
            .filter(|&(i, _)| kept_inst(i))
            .all(|(_, d)| d.args.iter().all(|a| kept(a.value)) && d.results.iter().all(|&r| kept(r)));
        let mut tree_kept = true;
        crate::walk::for_each_region_post_order_mut(&mut self.body, |r| {
            tree_kept &= r.iter_mut().flat_map(Node::operands_mut).all(|op| kept(op.value));
        });
        (reads_kept && tree_kept).then_some((inst_map, value_map))
    }
}

#[cfg(test)]
mod tests {
    use crate::function::*;

    fn module(text: &str) -> Module {
        crate::from_tgsi(&tgsi::parse(text).expect("parses")).expect("builds")
    }

    #[test]
    fn a_read_of_a_value_no_block_defines_leaves_the_function_as_it_is() {
        let mut m = module("FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nMOV OUT[0], IN[0]\nEND\n");
        let func = &mut m.function;
        // Take the reads of IN[0] out of their block: the stores still
        // read their values (invalid IR, which compaction must not break
        // further).
        let reads: Vec<Inst> = func.insts.iter().filter(|(_, d)| matches!(d.op, Op::Read(_))).map(|(i, _)| i).collect();
        for (_, block) in func.blocks.iter_mut() {
            block.insts.retain(|i| !reads.contains(i));
        }
        let before = format!("{func:?}");
        assert!(!func.compact());
        assert_eq!(format!("{func:?}"), before);
    }

    #[test]
    fn nothing_to_drop_changes_nothing() {
        let mut m = module("FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nMOV OUT[0], IN[0]\nEND\n");
        let before = format!("{:?}", m.function);
        assert!(!m.function.compact());
        assert_eq!(format!("{:?}", m.function), before);
    }
}
