//! The IR printer on hand-built functions.

use super::*;
use crate::cfg::build::*;
use crate::entity::EntityRef;
use crate::function::{ArrayData, Origin, RegChannel, Source};
use smallvec::smallvec;
use tgsi::{File, Opcode};

#[test]
fn constant_comments_read_integers_as_integers() {
    assert_eq!(const_comment_32(0x3f80_0000), "1.0");
    assert_eq!(const_comment_32(0), "0.0");
    assert_eq!(const_comment_32(64), "64");
    assert_eq!(const_comment_32(0xffff_ffff), "-1");
    assert_eq!(const_comment_32(0x8000_0000), "-0.0");
    assert_eq!(const_comment_64(0x4000_0000_0000_0000), "2.0");
    assert_eq!(const_comment_64(3), "3");
    assert_eq!(const_comment_64(u64::MAX), "-1");
}

/// The function of the module documentation's example.
/// `TEX _, TEMP[0], SAMP[0], 2D` writing `mask`, its first source a value.
fn tex_2d(mask: u8) -> Op {
    let src = |file| tgsi::SrcOperand {
        reg: tgsi::Register::new(file, 0),
        swizzle: tgsi::IDENTITY_SWIZZLE,
        negate: false,
        absolute: false,
    };
    let mut tex = tgsi::Instruction::new(Opcode::Tex);
    tex.dst.push(tgsi::DstOperand { reg: tgsi::Register::new(File::Temporary, 0), write_mask: mask });
    tex.src.push(src(File::Temporary));
    tex.src.push(src(File::Sampler));
    tex.texture = Some(tgsi::TextureInfo { target: tgsi::TextureTarget::T2D, offsets: smallvec![] });
    Op::Opaque { inst: Box::new(tex), value_srcs: 1 }
}

fn example() -> Function {
    let mut t = Builder::default();
    let b: Vec<Block> = (0..9).map(|_| t.block()).collect();
    let a0 = t.f.arrays.push(ArrayData { file: File::Temporary, first: 4, len: 4, array_id: Some(1) });
    let read = t.inst(b[0], Op::Read(Source { file: File::Input, dim: None, index: 0, chan: 0 }), &[], &[Ty::B32]);
    let v0 = t.f.result(read);
    let v1 = t.konst(b[0], 0x3f80_0000);
    let add = t.inst(b[0], Op::Alu { opcode: Opcode::Add, chan: 0 }, &[v0, v1], &[Ty::B32]);
    t.f.insts[add].saturate = true;
    t.f.insts[add].args[1].neg = true;
    t.f.insts[add].args[1].abs = true;
    let v2 = t.f.result(add);
    let pack = t.inst(b[0], Op::Pack, &[v0, v1], &[Ty::B64]);
    let v3 = t.f.result(pack);
    let split = t.inst(b[0], Op::Split { hi: false }, &[v3], &[Ty::B32]);
    let v4 = t.f.result(split);
    t.inst(b[0], Op::ArrayLoad { array: a0, offset: 2, chan: 1 }, &[v0], &[Ty::B32]);
    t.inst(b[0], Op::Alu { opcode: Opcode::Lit, chan: 1 }, &[v0, v1, v1, v1], &[Ty::B32]);
    let mut reg = tgsi::Register::new(File::Constant, 1);
    reg.indirect = Some(tgsi::Indirect { file: File::Address, index: 0, component: 0, array_id: 0 });
    t.inst(b[0], Op::LoadIndirect { reg, chan: 0 }, &[v0], &[Ty::B32]);
    t.inst(b[0], tex_2d(0x3), &[v0, v1, v1, v1], &[Ty::B32, Ty::B32]);
    t.store(b[1], 0, v2);
    t.exit(b[1], Exit::Return);
    t.inst(b[3], Op::Phi { preds: smallvec![b[2]] }, &[v4], &[Ty::B32]);
    t.exit(b[4], Exit::Break);
    t.f.body = vec![
        blk(b[0]),
        if_(v2, vec![blk(b[1])], vec![blk(b[2])]),
        blk(b[3]),
        loop_(vec![blk(b[4])]),
        blk(b[5]),
        switch(v0, vec![(Some(v1), vec![blk(b[6])]), (None, vec![blk(b[7])])]),
        blk(b[8]),
    ];
    t.f
}

#[test]
fn prints_the_documented_example() {
    let f = example();
    crate::verify::verify(&f).expect("the example is valid");
    let source = "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL TEMP[0..3], LOCAL\nIMM[0] FLT32 { 1, 0, 0, 0 }\nEND";
    let mut module = Module {
        processor: tgsi::Processor::Fragment,
        interface: Vec::new(),
        temps: Vec::new(),
        immediates: Vec::new(),
        function: f,
        source_instructions: None,
    };
    for item in tgsi::parse(source).expect("parses").items {
        match item {
            tgsi::Item::Declaration(d) if d.file == File::Temporary => module.temps.push(d),
            tgsi::Item::Declaration(_) => module.interface.push(item),
            tgsi::Item::Immediate(i) => module.immediates.push(i),
            _ => {}
        }
    }
    let text = print_module(&module);
    let doc = doc_text_block(include_str!("mod.rs"));
    assert_eq!(text, doc);
    assert_eq!(print_module(&module), text, "deterministic");
}

#[test]
fn prints_other_ops() {
    let mut t = Builder::default();
    let [b0, b1, b2, b3] = [t.block(), t.block(), t.block(), t.block()];
    let a = t.f.arrays.push(ArrayData { file: File::Output, first: 2, len: 1, array_id: None });
    let c = t.inst(b0, Op::Const(0x4000_0000_0000_0000), &[], &[Ty::B64]);
    t.f.insts[c].origin = Origin { inst: Some(12), dst: Some(RegChannel { file: File::Temporary, index: 3, chan: 1 }) };
    let d = t.f.result(c);
    let hi = t.inst(b0, Op::Split { hi: true }, &[d], &[Ty::B32]);
    let hi = t.f.result(hi);
    let dadd = t.inst(b0, Op::Alu { opcode: Opcode::Dadd, chan: 0 }, &[d, d], &[Ty::B64]);
    t.f.insts[dadd].precise = true;
    let src = Source { file: File::Constant, dim: Some(1), index: 2, chan: 3 };
    let r = t.inst(b0, Op::Read(src), &[], &[Ty::B32]);
    let r = t.f.result(r);
    let mut reg = tgsi::Register::new(File::Constant, -2);
    reg.indirect = Some(tgsi::Indirect { file: File::Address, index: 0, component: 0, array_id: 1 });
    t.inst(b0, Op::LoadIndirect { reg, chan: 2 }, &[r], &[Ty::B32]);
    t.inst(b0, Op::ArrayStore { array: a, offset: -1, chan: 0 }, &[r, hi], &[]);
    t.inst(b0, Op::ArrayStore { array: a, offset: 0, chan: 3 }, &[hi], &[]);
    let tex = t.inst(b0, tex_2d(0x5), &[r, r, hi, hi, r], &[Ty::B32, Ty::B32]);
    if let Op::Opaque { inst, .. } = &mut t.f.insts[tex].op {
        inst.src[0].negate = true;
    }
    t.exit(b1, Exit::Continue);
    t.f.body = vec![
        blk(b0),
        // Built by hand for its negated condition: not a walk.
        crate::function::Node::If(Box::new(crate::function::IfNode {
            cond: Operand { value: r, neg: true, abs: false },
            unsigned: true,
            then_region: vec![blk(b1)],
            else_region: vec![blk(b2)],
            has_else: false,
        })),
        blk(b3),
        blk(Block::new(40)),
    ];
    t.f.blocks[b3].insts.push(Inst::new(99));
    let text = print_function_with(&t.f, &PrintOptions { origins: true });
    let expected = "\
arrays:
    a0: OUT[2]
b0:
    v0:64 = const 0x4000000000000000 ; 2.0  ; from #12 TEMP[3].y
    v1 = split.hi v0
    v2:64 = dadd_precise v0, v0
    v3 = read CONST[1][2].w
    v4 = loadindirect CONST[v3 - 2](1).z
    arraystore a0[v3 - 1].x, v1
    arraystore a0[0].w, v1
    v5, v6 = TEX _.xz, -(v3, v3, v1, v1), SAMP[0], 2D args(v3)
uif -v3 {
  b1:
      continue
} else {  ; no ELSE
  b2:
}
b3:
    i99  ; missing instruction
b40:  ; missing block
";
    assert_eq!(text, expected);
    assert_eq!(print_inst(&t.f, Inst::new(2)), "v2:64 = dadd_precise v0, v0");
    assert_eq!(print_inst(&t.f, Inst::new(77)), "i77 (missing)");
}
