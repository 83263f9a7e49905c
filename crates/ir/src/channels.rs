//! How scalar operations relate to the channels of TGSI operands.

use tgsi::Opcode;

// Which formula a channel computes and which channels a replicated
// scalar reads are facts of the operation, kept with its formula.
pub use semantics::{formula_chan, replicated_reads};

/// The channels of a texture coordinate a target uses.
fn coordinate_mask(target: tgsi::TextureTarget) -> u8 {
    use tgsi::TextureTarget::*;
    match target {
        Buffer | T1D => 0b0001,
        T2D | Rect | Array1D | Msaa2D => 0b0011,
        Shadow1D => 0b0101,
        T3D | Cube | Array2D | ArrayMsaa2D | CubeArray | Shadow2D | ShadowRect | Shadow1DArray => 0b0111,
        Shadow2DArray | ShadowCube | ShadowCubeArray | Unknown => 0b1111,
    }
}

/// The channels of source `src` that an instruction kept whole actually
/// reads; the others may hold anything. Unknown cases read all four.
pub fn read_mask(inst: &tgsi::Instruction, src: usize) -> u8 {
    use Opcode::*;
    let target = inst.texture.as_ref().map(|t| t.target);
    let mem_target = inst.memory.map(|m| m.texture);
    let resource_file = |i: usize| inst.src.get(i).map(|s| s.reg.file);
    match (inst.opcode, src) {
        (Tex | TexLz | TxfLz | Lodq, 0) => target.map_or(0xf, coordinate_mask),
        (Txp | Txb | Txl | Txf, 0) => target.map_or(0xf, |t| coordinate_mask(t) | 0b1000),
        (Txq, 0) => 0b0001,
        (Emit | Endprim | Membar, 0) => 0b0001,
        (Load, 1) | (Store, 0) => {
            let file = if inst.opcode == Load { resource_file(0) } else { inst.dst.first().map(|d| d.reg.file) };
            if file == Some(tgsi::File::Image) {
                mem_target.map_or(0xf, |t| if t == tgsi::TextureTarget::Buffer { 0b0001 } else { coordinate_mask(t) })
            } else {
                0b0001
            }
        }
        // A buffer or memory store writes only the channels of its write
        // mask (Mesa's interpreter); an image store writes a whole texel.
        (Store, 1) => match inst.dst.first() {
            Some(d) if d.reg.file != tgsi::File::Image => d.write_mask & 0xf,
            _ => 0xf,
        },
        _ => 0xf,
    }
}

/// Whether a 64-bit opcode compares (one 32-bit result per pair, written
/// to the first channel of the pair that the write mask has).
pub fn is_64bit_comparison(op: Opcode) -> bool {
    use Opcode::*;
    matches!(op, Dseq | Dsne | Dslt | Dsge | U64seq | U64sne | U64slt | U64sge | I64slt | I64sge)
}

/// Whether an opcode converts 64-bit pairs to 32-bit channels (D2F, D2I,
/// D2U, U642F, I642F): the first channel the write mask has gets the xy
/// pair, the second the zw pair (Mesa's interpreter), others nothing.
pub fn is_narrowing(op: Opcode) -> bool {
    let info = op.info();
    !info.dst_type.is_64bit() && info.src_type.is_64bit() && !is_64bit_comparison(op)
}
