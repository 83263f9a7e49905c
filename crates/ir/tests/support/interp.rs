//! A small reference interpreter of TGSI text, one invocation at a time,
//! for differential tests: a program and its re-emitted form must compute
//! the same outputs. It covers the opcodes the corpus uses most; anything
//! else makes `run` return `Err`, and the test skips that program.
//!
//! Texture lookups return a fixed function of the coordinate channels the
//! target reads, so programs that differ only in unread channels agree.

use std::collections::HashMap;
use tgsi::{File, Item, Opcode, OperandType, Shader, TextureTarget};

pub struct Inputs {
    pub inputs: Vec<[u32; 4]>,
    pub consts: Vec<[u32; 4]>,
}

#[derive(Debug, PartialEq)]
pub struct Outputs {
    pub outputs: Vec<(u32, [u32; 4])>,
    /// The outputs at each EMIT (geometry shaders).
    pub emitted: Vec<Vec<(u32, [u32; 4])>>,
    pub killed: bool,
}

/// A construct `BRK` leaves.
enum Frame {
    Loop(usize),
    Switch(usize),
}

struct Machine<'a> {
    regs: HashMap<(File, i64, i64), [u32; 4]>,
    imms: Vec<[u32; 4]>,
    input: &'a Inputs,
    killed: bool,
}

fn f(x: u32) -> f32 {
    f32::from_bits(x)
}
fn b(x: f32) -> u32 {
    x.to_bits()
}

impl Machine<'_> {
    fn index(&self, reg: &tgsi::Register) -> Result<(i64, i64), String> {
        let mut index = reg.index as i64;
        if let Some(ind) = reg.indirect {
            let a = self.read(&tgsi::Register::new(ind.file, ind.index), ind.component)? as i32;
            index += a as i64;
        }
        let mut dim = -1;
        if let Some(d) = reg.dimension {
            dim = d.index as i64;
            if let Some(ind) = d.indirect {
                dim += self.read(&tgsi::Register::new(ind.file, ind.index), ind.component)? as i32 as i64;
            }
        }
        Ok((dim, index))
    }

    fn read(&self, reg: &tgsi::Register, c: u8) -> Result<u32, String> {
        let (dim, index) = self.index(reg)?;
        let c = c as usize & 3;
        Ok(match reg.file {
            File::Immediate => self.imms.get(index as usize).map_or(0, |v| v[c]),
            File::Input => self.input.inputs.get(index as usize).map_or(0, |v| v[c]),
            File::Constant => self.input.consts.get(index as usize).map_or(0, |v| v[c]),
            File::SystemValue => 0,
            File::Temporary | File::Output | File::Address => {
                self.regs.get(&(reg.file, dim, index)).map_or(0, |v| v[c])
            }
            other => return Err(format!("reads {other}")),
        })
    }

    fn src(&self, s: &tgsi::SrcOperand, c: u8, ty: OperandType) -> Result<u32, String> {
        let mut v = self.read(&s.reg, s.swizzle[c as usize & 3])?;
        match ty {
            OperandType::Int | OperandType::Uint => {
                if s.absolute {
                    v = (v as i32).unsigned_abs();
                }
                if s.negate {
                    v = (v as i32).wrapping_neg() as u32;
                }
            }
            _ => {
                if s.absolute {
                    v &= 0x7fff_ffff;
                }
                if s.negate {
                    v ^= 0x8000_0000;
                }
            }
        }
        Ok(v)
    }

    fn write(&mut self, d: &tgsi::DstOperand, c: u8, v: u32) -> Result<(), String> {
        if d.reg.file == File::Null {
            return Ok(());
        }
        let (dim, index) = self.index(&d.reg)?;
        self.regs.entry((d.reg.file, dim, index)).or_insert([0; 4])[c as usize & 3] = v;
        Ok(())
    }
}

fn sat(x: f32) -> f32 {
    if x.is_nan() {
        0.0
    } else {
        x.clamp(0.0, 1.0)
    }
}

fn coord_mask(t: TextureTarget) -> u8 {
    use TextureTarget::*;
    match t {
        Buffer | T1D => 1,
        T2D | Rect | Array1D | Msaa2D => 3,
        Shadow1D => 5,
        T3D | Cube | Array2D | ArrayMsaa2D | CubeArray | Shadow2D | ShadowRect | Shadow1DArray => 7,
        _ => 15,
    }
}

/// Componentwise 32-bit operations.
fn alu(op: Opcode, a: &[u32]) -> Option<u32> {
    use Opcode::*;
    let x = || f(a[0]);
    let y = || f(a[1]);
    let z = || f(a[2]);
    let set = |c: bool| if c { 1.0f32.to_bits() } else { 0 };
    let iset = |c: bool| if c { u32::MAX } else { 0 };
    Some(match op {
        Mov => a[0],
        Add => b(x() + y()),
        Sub => b(x() - y()),
        Mul => b(x() * y()),
        Mad => b(x() * y() + z()),
        Fma => b(x().mul_add(y(), z())),
        Div => b(x() / y()),
        Min => b(x().min(y())),
        Max => b(x().max(y())),
        Slt => set(x() < y()),
        Sge => set(x() >= y()),
        Seq => set(x() == y()),
        Sne => set(x() != y()),
        Sgt => set(x() > y()),
        Sle => set(x() <= y()),
        Frc => b(x() - x().floor()),
        Flr => b(x().floor()),
        Ceil => b(x().ceil()),
        Trunc => b(x().trunc()),
        Round => b(x().round_ties_even()),
        Ssg => b(if x() > 0.0 {
            1.0
        } else if x() < 0.0 {
            -1.0
        } else {
            0.0
        }),
        Cmp => {
            if x() < 0.0 {
                a[1]
            } else {
                a[2]
            }
        }
        Lrp => b(x() * y() + (1.0 - x()) * z()),
        Abs => b(x().abs()),
        Clamp => b(x().max(y()).min(z())),
        Ddx | Ddy | DdxFine | DdyFine => 0,
        Uadd => a[0].wrapping_add(a[1]),
        UmulHi => ((a[0] as u64 * a[1] as u64) >> 32) as u32,
        ImulHi => ((a[0] as i32 as i64 * a[1] as i32 as i64) >> 32) as u32,
        Umul => a[0].wrapping_mul(a[1]),
        Umad => a[0].wrapping_mul(a[1]).wrapping_add(a[2]),
        And => a[0] & a[1],
        Or => a[0] | a[1],
        Xor => a[0] ^ a[1],
        Not => !a[0],
        Shl => a[0].wrapping_shl(a[1] & 31),
        Ishr | Shr => ((a[0] as i32) >> (a[1] & 31)) as u32,
        Ushr => a[0] >> (a[1] & 31),
        Imax => (a[0] as i32).max(a[1] as i32) as u32,
        Imin => (a[0] as i32).min(a[1] as i32) as u32,
        Umax => a[0].max(a[1]),
        Umin => a[0].min(a[1]),
        Isge => iset(a[0] as i32 >= a[1] as i32),
        Islt => iset((a[0] as i32) < a[1] as i32),
        Usge => iset(a[0] >= a[1]),
        Uslt => iset(a[0] < a[1]),
        Useq => iset(a[0] == a[1]),
        Usne => iset(a[0] != a[1]),
        Fseq => iset(x() == y()),
        Fsne => iset(x() != y()),
        Fslt => iset(x() < y()),
        Fsge => iset(x() >= y()),
        Ineg => (a[0] as i32).wrapping_neg() as u32,
        Iabs => (a[0] as i32).unsigned_abs(),
        I2f => b(a[0] as i32 as f32),
        U2f => b(a[0] as f32),
        F2i => x() as i32 as u32,
        F2u => x() as u32,
        Ucmp => {
            if a[0] != 0 {
                a[1]
            } else {
                a[2]
            }
        }
        Udiv => a[0].checked_div(a[1]).unwrap_or(u32::MAX),
        Umod => a[0].checked_rem(a[1]).unwrap_or(u32::MAX),
        Idiv => (a[0] as i32).checked_div(a[1] as i32).unwrap_or(0) as u32,
        Mod => (a[0] as i32).checked_rem(a[1] as i32).unwrap_or(0) as u32,
        Arl => x().floor() as i32 as u32,
        Uarl => a[0],
        _ => return None,
    })
}

/// Replicated-scalar operations on (source, channel) reads.
fn replicated(op: Opcode, s: &dyn Fn(usize, u8) -> f32) -> Option<f32> {
    use Opcode::*;
    Some(match op {
        Rcp => 1.0 / s(0, 0),
        Rsq => 1.0 / s(0, 0).sqrt(),
        Sqrt => s(0, 0).sqrt(),
        Ex2 => s(0, 0).exp2(),
        Lg2 => s(0, 0).log2(),
        Pow => s(0, 0).powf(s(1, 0)),
        Sin => s(0, 0).sin(),
        Cos => s(0, 0).cos(),
        Dp2 => s(0, 1) * s(1, 1) + s(0, 0) * s(1, 0),
        Dp3 => s(0, 2) * s(1, 2) + (s(0, 1) * s(1, 1) + s(0, 0) * s(1, 0)),
        Dp4 => s(0, 3) * s(1, 3) + (s(0, 2) * s(1, 2) + (s(0, 1) * s(1, 1) + s(0, 0) * s(1, 0))),
        Dph => (s(0, 2) * s(1, 2) + (s(0, 1) * s(1, 1) + s(0, 0) * s(1, 0))) + s(1, 3),
        _ => return None,
    })
}

/// Runs `shader` once; `Err` when it uses something not covered here.
pub fn run(shader: &Shader, input: &Inputs) -> Result<Outputs, String> {
    let imms: Vec<[u32; 4]> = shader.immediates().map(|i| i.data).collect();
    let outs: Vec<u32> =
        shader.declarations().filter(|d| d.file == File::Output).flat_map(|d| d.first as u32..=d.last as u32).collect();
    let prog: Vec<&tgsi::Instruction> =
        shader.items.iter().filter_map(|i| if let Item::Instruction(i) = i { Some(i) } else { None }).collect();
    // Matching control flow.
    let mut else_of = HashMap::new();
    let mut end_of = HashMap::new();
    let mut loop_start = HashMap::new();
    let mut cases: HashMap<usize, Vec<usize>> = HashMap::new();
    let mut stack: Vec<usize> = Vec::new();
    for (pc, inst) in prog.iter().enumerate() {
        match inst.opcode {
            Opcode::If | Opcode::Uif | Opcode::Bgnloop | Opcode::Switch => stack.push(pc),
            Opcode::Case | Opcode::Default => {
                let &open = stack.last().ok_or("CASE without SWITCH")?;
                cases.entry(open).or_default().push(pc);
            }
            Opcode::Endswitch => {
                let open = stack.pop().ok_or("ENDSWITCH without SWITCH")?;
                end_of.insert(open, pc);
            }
            Opcode::Else => {
                let &open = stack.last().ok_or("ELSE without IF")?;
                else_of.insert(open, pc);
            }
            Opcode::Endif => {
                let open = stack.pop().ok_or("ENDIF without IF")?;
                end_of.insert(open, pc);
                if let Some(&e) = else_of.get(&open) {
                    end_of.insert(e, pc);
                }
            }
            Opcode::Endloop => {
                let open = stack.pop().ok_or("ENDLOOP without BGNLOOP")?;
                end_of.insert(open, pc);
                loop_start.insert(pc, open);
            }
            _ => {}
        }
    }
    let mut m = Machine { regs: HashMap::new(), imms, input, killed: false };
    let mut frames: Vec<Frame> = Vec::new();
    let mut calls: Vec<(usize, usize)> = Vec::new();
    let mut emitted = Vec::new();
    let snapshot = |m: &Machine| -> Vec<(u32, [u32; 4])> {
        outs.iter().map(|&o| (o, m.regs.get(&(File::Output, -1, o as i64)).copied().unwrap_or([0; 4]))).collect()
    };
    let mut pc = 0;
    let mut steps = 0;
    while pc < prog.len() {
        steps += 1;
        if steps > 100_000 {
            return Err("step budget".into());
        }
        let inst = prog[pc];
        let op = inst.opcode;
        let info = op.info();
        pc += 1;
        match op {
            Opcode::Ret | Opcode::Endsub if !calls.is_empty() => {
                let (back, depth) = calls.pop().ok_or("call stack")?;
                frames.truncate(depth);
                pc = back;
            }
            Opcode::End | Opcode::Ret => break,
            Opcode::Nop | Opcode::Bgnsub | Opcode::Endsub | Opcode::Endprim => {}
            Opcode::Emit => emitted.push(snapshot(&m)),
            Opcode::Cal => {
                calls.push((pc, frames.len()));
                pc = inst.label.ok_or("CAL without label")? as usize + 1;
            }
            Opcode::Switch => {
                let here = pc - 1;
                let sel = m.src(&inst.src[0], 0, OperandType::Uint)?;
                let mut target = None;
                let mut default = None;
                for &c in cases.get(&here).map_or(&[][..], |v| v.as_slice()) {
                    let ci = prog[c];
                    if ci.opcode == Opcode::Default {
                        default = Some(c);
                    } else if m.src(&ci.src[0], 0, OperandType::Uint)? == sel {
                        target = Some(c);
                        break;
                    }
                }
                frames.push(Frame::Switch(end_of[&here]));
                pc = match target.or(default) {
                    Some(c) => c + 1,
                    None => end_of[&here],
                };
            }
            Opcode::Case | Opcode::Default => {}
            Opcode::Endswitch => {
                frames.pop();
            }
            Opcode::If | Opcode::Uif => {
                let ty = if op == Opcode::If { OperandType::Float } else { OperandType::Uint };
                let v = m.src(&inst.src[0], 0, ty)?;
                let taken = if op == Opcode::If { f(v) != 0.0 } else { v != 0 };
                if !taken {
                    let here = pc - 1;
                    pc = match else_of.get(&here) {
                        Some(&e) => e + 1,
                        None => end_of[&here] + 1,
                    };
                }
            }
            Opcode::Else => pc = end_of[&(pc - 1)] + 1,
            Opcode::Endif => {}
            Opcode::Bgnloop => frames.push(Frame::Loop(pc - 1)),
            Opcode::Endloop => pc = loop_start[&(pc - 1)] + 1,
            Opcode::Brk => match frames.pop().ok_or("BRK outside a loop or switch")? {
                Frame::Loop(open) => pc = end_of[&open] + 1,
                Frame::Switch(end) => pc = end + 1,
            },
            Opcode::Cont => loop {
                match frames.last() {
                    Some(Frame::Loop(open)) => {
                        pc = open + 1;
                        break;
                    }
                    Some(Frame::Switch(_)) => {
                        frames.pop();
                    }
                    None => return Err("CONT outside a loop".into()),
                }
            },
            Opcode::Kill | Opcode::Kilp => {
                m.killed = true;
                break;
            }
            Opcode::KillIf | Opcode::Kil => {
                let mut any = false;
                for c in 0..4 {
                    any |= f(m.src(&inst.src[0], c, OperandType::Float)?) < 0.0;
                }
                if any {
                    m.killed = true;
                    break;
                }
            }
            Opcode::Tex | Opcode::Txp | Opcode::Txb | Opcode::Txl | Opcode::TexLz => {
                let target = inst.texture.as_ref().map_or(TextureTarget::Unknown, |t| t.target);
                let mut mask = coord_mask(target);
                if op != Opcode::Tex && op != Opcode::TexLz {
                    mask |= 8;
                }
                let mut h = 0.25f32;
                for c in 0..4u8 {
                    if mask & (1 << c) != 0 {
                        h = h * 0.5 + f(m.src(&inst.src[0], c, OperandType::Float)?) * (c as f32 + 1.0);
                    }
                }
                let sampler = inst.src[1].reg.index as f32;
                let d = inst.dst[0];
                for c in 0..4u8 {
                    if d.write_mask & (1 << c) != 0 {
                        let mut v = h + c as f32 + sampler;
                        if inst.saturate {
                            v = sat(v);
                        }
                        m.write(&d, c, b(v))?;
                    }
                }
            }
            Opcode::Nrm
            | Opcode::Nrm4
            | Opcode::Rfl
            | Opcode::X2d
            | Opcode::Scs
            | Opcode::Lit
            | Opcode::Dst
            | Opcode::Exp
            | Opcode::Log
            | Opcode::Rcc
            | Opcode::Dp2a
            | Opcode::Sfl
            | Opcode::Str => {
                let d = inst.dst[0];
                let s = |i: usize, c: u8| m.src(&inst.src[i], c, OperandType::Float).map(f);
                let one = 1.0f32;
                let r: [f32; 4] = match op {
                    Opcode::Nrm | Opcode::Nrm4 => {
                        let n = if op == Opcode::Nrm4 { 4 } else { 3 };
                        let mut l = s(0, 0)? * s(0, 0)?;
                        for c in 1..n {
                            l += s(0, c)? * s(0, c)?;
                        }
                        let k = 1.0 / l.sqrt();
                        let w = if n == 4 { s(0, 3)? * k } else { one };
                        [s(0, 0)? * k, s(0, 1)? * k, s(0, 2)? * k, w]
                    }
                    Opcode::Rfl => {
                        let dot = s(0, 2)? * s(1, 2)? + (s(0, 1)? * s(1, 1)? + s(0, 0)? * s(1, 0)?);
                        let len = s(0, 2)? * s(0, 2)? + (s(0, 1)? * s(0, 1)? + s(0, 0)? * s(0, 0)?);
                        let k = (2.0 * dot) / len;
                        [k * s(0, 0)? - s(1, 0)?, k * s(0, 1)? - s(1, 1)?, k * s(0, 2)? - s(1, 2)?, one]
                    }
                    Opcode::X2d => {
                        let a = s(1, 0)? * s(2, 0)? + s(0, 0)?;
                        let a = s(1, 1)? * s(2, 1)? + a;
                        let b2 = s(1, 0)? * s(2, 2)? + s(0, 1)?;
                        let b2 = s(1, 1)? * s(2, 3)? + b2;
                        [a, b2, a, b2]
                    }
                    Opcode::Scs => [s(0, 0)?.cos(), s(0, 0)?.sin(), 0.0, one],
                    Opcode::Lit => {
                        let x = s(0, 0)?;
                        let p = s(0, 1)?.max(0.0).powf(s(0, 3)?.clamp(-128.0, 128.0));
                        [one, x.max(0.0), if 0.0 < x { p } else { 0.0 }, one]
                    }
                    Opcode::Dst => [one, s(0, 1)? * s(1, 1)?, s(0, 2)?, s(1, 3)?],
                    Opcode::Exp => {
                        let x = s(0, 0)?;
                        [x.floor().exp2(), x - x.floor(), x.exp2(), one]
                    }
                    Opcode::Log => {
                        let a = s(0, 0)?.abs();
                        let l = a.log2();
                        [l.floor(), a / l.floor().exp2(), l, one]
                    }
                    Opcode::Dp2a => {
                        let v = (s(0, 1)? * s(1, 1)? + s(0, 0)? * s(1, 0)?) + s(2, 0)?;
                        [v; 4]
                    }
                    Opcode::Sfl => [0.0; 4],
                    Opcode::Str => [one; 4],
                    Opcode::Rcc => {
                        // max then min, as the rewrite computes them (clamp
                        // treats NaN differently).
                        #[allow(clippy::manual_clamp)]
                        let clamped = |r: f32, lo: f32, hi: f32| r.max(lo).min(hi);
                        #[allow(clippy::manual_clamp)]
                        let clamped_neg = |r: f32, hi: f32, lo: f32| r.min(hi).max(lo);
                        let r = 1.0 / s(0, 0)?;
                        let v = if r > 0.0 {
                            clamped(r, 5.42101e-20, 1.884467e19)
                        } else {
                            clamped_neg(r, -5.42101e-20, -1.884467e19)
                        };
                        [v; 4]
                    }
                    _ => return Err(format!("{} not covered", op.name())),
                };
                for c in 0..4u8 {
                    if d.write_mask & (1 << c) != 0 {
                        let v = r[c as usize];
                        m.write(&d, c, b(if inst.saturate { sat(v) } else { v }))?;
                    }
                }
            }
            Opcode::Xpd => {
                let d = inst.dst[0];
                let s = |i: usize, c: u8| m.src(&inst.src[i], c, OperandType::Float).map(f);
                let mut r = [0u32; 4];
                for (c, (c1, c2)) in [(1u8, 2u8), (2, 0), (0, 1)].into_iter().enumerate() {
                    r[c] = b(s(0, c1)? * s(1, c2)? - s(1, c1)? * s(0, c2)?);
                }
                r[3] = b(1.0);
                for c in 0..4u8 {
                    if d.write_mask & (1 << c) != 0 {
                        let v = if inst.saturate { b(sat(f(r[c as usize]))) } else { r[c as usize] };
                        m.write(&d, c, v)?;
                    }
                }
            }
            _ if info.num_dst == 1 && !info.is_64bit() && !info.is_tex() => {
                let d = inst.dst[0];
                let mut results = [0u32; 4];
                if let Some(v) =
                    replicated(op, &|i, c| m.src(&inst.src[i], c, OperandType::Float).map(f).unwrap_or(f32::NAN))
                {
                    results = [b(v); 4];
                } else {
                    for c in 0..4u8 {
                        if d.write_mask & (1 << c) == 0 {
                            continue;
                        }
                        let mut a = [0u32; 3];
                        for (i, s) in inst.src.iter().enumerate().take(3) {
                            a[i] = m.src(s, c, op.src_type(i))?;
                        }
                        results[c as usize] = alu(op, &a).ok_or_else(|| format!("{} not covered", op.name()))?;
                    }
                }
                for c in 0..4u8 {
                    if d.write_mask & (1 << c) != 0 {
                        let mut v = results[c as usize];
                        if inst.saturate {
                            v = b(sat(f(v)));
                        }
                        m.write(&d, c, v)?;
                    }
                }
            }
            other => return Err(format!("{} not covered", other.name())),
        }
    }
    let outputs = snapshot(&m);
    Ok(Outputs { outputs, emitted, killed: m.killed })
}
