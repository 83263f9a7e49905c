//! The values placed once at the start of the entry block, whatever
//! instruction needs them: constants, direct reads of inputs, constants
//! and system values, and the initial and undefined values.

use super::Builder;
use crate::function::{Op, Origin, Source, Ty, Value};

/// What a hoisted value is, so each is placed once.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum HoistKey {
    Initial,
    Undef,
    Const(u64, bool),
    Read(Source),
}

impl Builder<'_> {
    /// A constant, placed once in the entry block.
    pub(super) fn constant(&mut self, bits: u64, ty: Ty) -> Value {
        let key = HoistKey::Const(bits, ty == Ty::B64);
        if let Some(&v) = self.hoist_cache.get(&key) {
            return v;
        }
        let inst = self.func.add_inst(Op::Const(bits), &[], &[ty], Origin::default());
        self.hoisted.push(inst);
        let v = self.func.result(inst);
        self.hoist_cache.insert(key, v);
        v
    }

    pub(super) fn zero(&mut self) -> Value {
        self.constant(0, Ty::B32)
    }

    /// The value of a never-written register channel.
    pub(super) fn initial(&mut self) -> Value {
        self.hoisted_value(HoistKey::Initial, Op::Initial)
    }

    /// The value of a channel nothing reads.
    pub(super) fn undef(&mut self) -> Value {
        self.hoisted_value(HoistKey::Undef, Op::Undef)
    }

    fn hoisted_value(&mut self, key: HoistKey, op: Op) -> Value {
        if let Some(&v) = self.hoist_cache.get(&key) {
            return v;
        }
        let inst = self.func.add_inst(op, &[], &[Ty::B32], Origin::default());
        self.hoisted.push(inst);
        let v = self.func.result(inst);
        self.hoist_cache.insert(key, v);
        v
    }

    /// A direct read of an input, constant or system value, placed once.
    pub(super) fn read(&mut self, source: Source) -> Value {
        let key = HoistKey::Read(source);
        if let Some(&v) = self.hoist_cache.get(&key) {
            return v;
        }
        let inst = self.func.add_inst(Op::Read(source), &[], &[Ty::B32], Origin::default());
        self.hoisted.push(inst);
        let v = self.func.result(inst);
        self.hoist_cache.insert(key, v);
        v
    }
}
