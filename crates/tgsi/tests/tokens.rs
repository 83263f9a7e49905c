//! Mesa's binary token stream: bit-exact agreement with the conformance
//! `.hex` files, error paths, and a fuzz-style no-panic check.

use std::path::{Path, PathBuf};

use smallvec::smallvec;
use testkit::Rng;
use tgsi::tokens::{decode, encode, parse_hex, to_hex, DecodeError, EncodeError, Problem};
use tgsi::*;

/// The conformance text cases, or `None` (with a note) when the shared data
/// is not next to the workspace.
fn conformance_dir() -> Option<PathBuf> {
    testdata::shared("conformance/text")
}

/// Every `NAME.hex` of the conformance directory, sorted.
fn hex_cases(dir: &Path) -> Vec<PathBuf> {
    testdata::files_with_extension(dir, "hex")
}

fn name_of(path: &Path) -> String {
    path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default()
}

fn read_words(path: &Path) -> Vec<u32> {
    let text = std::fs::read_to_string(path).expect("read .hex");
    let words = parse_hex(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(to_hex(&words), text, "{}: to_hex does not reproduce the file", path.display());
    words
}

/// Reports and fails on the cases in `failures`, or when fewer than
/// `floor` cases were checked.
fn report(what: &str, total: usize, floor: usize, failures: &[String]) {
    eprintln!("{what}: {} of {total} cases match", total - failures.len());
    for f in failures.iter().take(20) {
        eprintln!("  {f}");
    }
    assert!(failures.is_empty(), "{what}: {} of {total} cases fail", failures.len());
    testdata::assert_checked(what, "cases", total, floor);
}

/// Cases of `conformance/text` checked (of 377).
const TEXT_FLOOR: usize = 370;

#[test]
fn conformance_hex_decodes_and_reencodes_bit_exactly() {
    let Some(dir) = conformance_dir() else { return };
    let cases = hex_cases(&dir);
    assert!(!cases.is_empty(), "no .hex files in {}", dir.display());
    let mut failures = Vec::new();
    for path in &cases {
        let words = read_words(path);
        match decode(&words) {
            Err(e) => failures.push(format!("{}: decode: {e}", name_of(path))),
            Ok(shader) => match encode(&shader) {
                Err(e) => failures.push(format!("{}: encode: {e}", name_of(path))),
                Ok(again) if again != words => {
                    let at = again.iter().zip(&words).position(|(a, b)| a != b).unwrap_or(again.len().min(words.len()));
                    failures.push(format!("{}: re-encoding differs first at word {at}", name_of(path)));
                }
                Ok(_) => {}
            },
        }
    }
    report("decode/encode of .hex", cases.len(), TEXT_FLOOR, &failures);
}

/// Cases whose dump names a `PIPE_FORMAT_*` (44 of 377).
const FORMAT_FLOOR: usize = 40;

/// The `PIPE_FORMAT_*` names `tgsi_dump` printed must be the names of the
/// numbers in the tokens: this pins [`tgsi::format`]'s numbering to Mesa's.
#[test]
fn conformance_format_numbers_match_dumped_names() {
    let Some(dir) = conformance_dir() else { return };
    let mut checked = 0;
    let mut failures = Vec::new();
    for path in hex_cases(&dir) {
        let Ok(dump) = std::fs::read_to_string(path.with_extension("dump")) else {
            continue;
        };
        let printed: Vec<&str> = dump
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .filter(|w| w.starts_with("PIPE_FORMAT_"))
            .collect();
        if printed.is_empty() {
            continue;
        }
        let Ok(shader) = decode(&read_words(&path)) else {
            continue;
        };
        let mut numbers = Vec::new();
        for item in &shader.items {
            match item {
                Item::Declaration(d) => numbers.extend(d.image.map(|i| i.format)),
                Item::Instruction(i) => numbers.extend(i.memory.map(|m| m.format).filter(|&f| f != 0)),
                _ => {}
            }
        }
        let named: Vec<&str> = numbers.iter().map(|&n| format::name(n).unwrap_or("?")).collect();
        checked += 1;
        if named != printed {
            failures.push(format!("{}: tokens give {named:?} ({numbers:?}), dump says {printed:?}", name_of(&path)));
        }
    }
    // The cases whose dump names a format.
    report("format names of IMAGE/memory tokens", checked, FORMAT_FLOOR, &failures);
}

/// Text parsed by our parser encodes to Mesa's exact words, and Mesa's
/// words decode to the tree our parser builds.
#[test]
fn conformance_text_encodes_to_mesa_tokens() {
    let Some(dir) = conformance_dir() else { return };
    let cases = hex_cases(&dir);
    let mut failures = Vec::new();
    for path in &cases {
        let text = std::fs::read_to_string(path.with_extension("tgsi")).expect("read .tgsi");
        let words = read_words(path);
        let parsed = match parse(&text) {
            Ok(s) => s,
            Err(e) => {
                failures.push(format!("{}: parse: {e:?}", name_of(path)));
                continue;
            }
        };
        let mut problems = Vec::new();
        match encode(&parsed) {
            Err(e) => problems.push(format!("encode: {e}")),
            Ok(w) if w != words => {
                let at = w.iter().zip(&words).position(|(a, b)| a != b).unwrap_or(w.len().min(words.len()));
                problems.push(format!("encode(parse(.tgsi)) differs from .hex first at word {at}"));
            }
            Ok(_) => {}
        }
        match decode(&words) {
            Ok(d) if d != parsed => {
                let item = d.items.iter().zip(&parsed.items).position(|(a, b)| a != b);
                problems.push(format!("decode(.hex) != parse(.tgsi), first at item {item:?}"));
            }
            Err(e) => problems.push(format!("decode: {e}")),
            Ok(_) => {}
        }
        if !problems.is_empty() {
            failures.push(format!("{}: {}", name_of(path), problems.join("; ")));
        }
    }
    report("parse(.tgsi) against .hex", cases.len(), TEXT_FLOOR, &failures);
}

// ---------------------------------------------------------------------------
// Hand-built shaders.

fn src(file: File, index: i32) -> SrcOperand {
    SrcOperand { reg: Register::new(file, index), swizzle: IDENTITY_SWIZZLE, negate: false, absolute: false }
}

fn dst(file: File, index: i32) -> DstOperand {
    DstOperand { reg: Register::new(file, index), write_mask: 0xf }
}

fn end() -> Item {
    Item::Instruction(Instruction::new(Opcode::End))
}

/// A shader that sets every flag and optional token at least once.
fn kitchen_sink() -> Shader {
    let mut items = vec![Item::Property(Property { name: PropertyName::CsFixedBlockWidth, value: 64 })];

    let mut d = Declaration::new(File::Input, 0, 3);
    d.usage_mask = 0x5;
    d.dimension = Some(7);
    d.interpolation =
        Some(Interpolation { mode: InterpolateMode::Perspective, location: InterpolateLocation::Centroid });
    d.semantic = Some(Semantic { name: SemanticName::Generic, index: 0xffff, streams: [0; 4] });
    d.invariant = true;
    d.local = true;
    d.array_id = Some(1023);
    items.push(Item::Declaration(d));

    let mut d = Declaration::new(File::Image, 2, 2);
    d.image = Some(ImageDecl { target: TextureTarget::Array2D, raw: true, writable: true, format: format::COUNT - 1 });
    items.push(Item::Declaration(d));
    let mut d = Declaration::new(File::SamplerView, 0, 0);
    d.sampler_view = Some(SamplerViewDecl {
        target: TextureTarget::ShadowCubeArray,
        return_types: [ReturnType::Float, ReturnType::Sint, ReturnType::Uint, ReturnType::Snorm],
    });
    items.push(Item::Declaration(d));
    // The largest register index of the one rule (a declaration's field
    // holds more, but an operand could not name it).
    let mut d = Declaration::new(File::Buffer, 0, 32767);
    d.atomic = true;
    items.push(Item::Declaration(d));
    let mut d = Declaration::new(File::Memory, 0, 0);
    d.memory_type = MemoryType::Input;
    items.push(Item::Declaration(d));

    items.push(Item::Immediate(Immediate { ty: ImmediateType::Int64, data: [1, 0xffff_ffff, 0x8000_0000, 7] }));

    let mut i = Instruction::new(Opcode::Tex);
    i.saturate = true;
    i.precise = true;
    let mut d0 = dst(File::Temporary, -32768);
    d0.write_mask = 0x9;
    d0.reg.indirect = Some(Indirect { file: File::Address, index: 2, component: 3, array_id: 1023 });
    d0.reg.dimension = Some(Dimension {
        index: 32767,
        indirect: Some(Indirect { file: File::Temporary, index: 32767, component: 1, array_id: 0 }),
    });
    i.dst.push(d0);
    let mut s0 = src(File::Constant, 5);
    s0.swizzle = [3, 2, 1, 0];
    s0.negate = true;
    s0.absolute = true;
    s0.reg.dimension = Some(Dimension { index: 32767, indirect: None });
    i.src.push(s0);
    i.src.push(src(File::Sampler, 0));
    i.texture = Some(TextureInfo {
        target: TextureTarget::Array2D,
        offsets: smallvec![
            TexOffset { file: File::Immediate, index: 0, swizzle: [0, 1, 2] },
            TexOffset { file: File::Temporary, index: 32767, swizzle: [3, 3, 3] },
        ],
    });
    items.push(Item::Instruction(i));

    let mut i = Instruction::new(Opcode::Load);
    i.dst.push(dst(File::Temporary, 0));
    i.src.push(src(File::Image, 2));
    i.src.push(src(File::Temporary, 1));
    i.memory = Some(MemoryInfo { qualifier: 0xf, texture: TextureTarget::Array2D, format: 24 });
    items.push(Item::Instruction(i));

    let mut i = Instruction::new(Opcode::Uif);
    i.src.push(src(File::Temporary, 0));
    i.label = Some(0xff_ffff);
    items.push(Item::Instruction(i));
    items.push(Item::Instruction(Instruction::new(Opcode::Endif)));

    // DFRACEXP keeps its old number and has two destinations.
    let mut i = Instruction::new(Opcode::Dfracexp);
    i.dst.push(dst(File::Temporary, 0));
    i.dst.push(dst(File::Temporary, 1));
    i.src.push(src(File::Temporary, 2));
    items.push(Item::Instruction(i));

    // Legacy EMIT with no source, as 2010-style text writes it.
    items.push(Item::Instruction(Instruction::new(Opcode::Emit)));
    items.push(end());
    Shader { processor: Processor::Compute, items }
}

/// A small compute shader exactly as Mesa's `tgsi_text_translate` encoded it.
const MESA_COMPUTE: &str = "0x00002602\n0x00000005\n0x00014023\n0x00000008\n0x00015023\n0x00000008\n\
0x00016023\n0x00000001\n0x002f8030\n0x00000000\n0x00000012\n0x002f8030\n0x00010001\n0x00000010\n\
0x000f9030\n0x00000000\n0x00015202\n0x000f4020\n0x00000000\n0x00040051\n0x00000008\n0x00000008\n\
0x00000000\n0x00000000\n0x00000051\n0x3f800000\n0x00000000\n0x00000000\n0x00000000\n0x01a83042\n\
0x00000034\n0x39000048\n0x39000007\n0x39000008\n0x212a2042\n0x00054020\n0x000000f9\n0x39000004\n\
0x39000047\n0x00075002\n";

fn mesa_compute() -> Vec<u32> {
    parse_hex(MESA_COMPUTE).expect("embedded hex")
}

#[test]
fn embedded_mesa_stream_round_trips() {
    let words = mesa_compute();
    let shader = decode(&words).unwrap();
    assert_eq!(shader.processor, Processor::Compute);
    let image = shader.declarations().find_map(|d| d.image).unwrap();
    assert_eq!(format::name(image.format), Some("PIPE_FORMAT_R8G8B8A8_UNORM"));
    assert!(image.writable && !image.raw);
    let store = shader.instructions().find(|i| i.opcode == Opcode::Store).unwrap();
    assert_eq!(store.memory.map(|m| (m.texture, m.format)), Some((TextureTarget::T2D, image.format)));
    assert_eq!(encode(&shader).unwrap(), words);
}

#[test]
fn kitchen_sink_round_trips() {
    let shader = kitchen_sink();
    let words = encode(&shader).unwrap();
    assert_eq!(decode(&words).unwrap(), shader);
    assert_eq!(parse_hex(&to_hex(&words)).unwrap(), words);
    // Header: HeaderSize 2, BodySize = everything after the two header words.
    assert_eq!(words[0] & 0xff, 2);
    assert_eq!((words[0] >> 8) as usize, words.len() - 2);
    assert_eq!(words[1], Processor::Compute.index());
}

#[test]
fn instruction_word_layout() {
    // MOV TEMP[1].xy, -|CONST[2][3].wzyx|
    let mut i = Instruction::new(Opcode::Mov);
    let mut d = dst(File::Temporary, 1);
    d.write_mask = 0x3;
    i.dst.push(d);
    let mut s = src(File::Constant, 3);
    s.reg.dimension = Some(Dimension { index: 2, indirect: None });
    s.swizzle = [3, 2, 1, 0];
    s.negate = true;
    s.absolute = true;
    i.src.push(s);
    let words = encode(&Shader { processor: Processor::Fragment, items: vec![Item::Instruction(i)] }).unwrap();
    assert_eq!(
        words,
        [
            // HeaderSize 2, BodySize 4.
            0x0000_0402,
            // FRAG.
            0x0000_0004,
            // INSTRUCTION, NrTokens 3 (the words after this one), MOV, 1 dst, 1 src.
            2 | 3 << 4 | 1 << 12 | 1 << 21 | 1 << 23,
            // TEMP, .xy, index 1.
            4 | 0x3 << 4 | 1 << 10,
            // CONST, 2-D, index 3, .wzyx, absolute, negate.
            1 | 1 << 5 | 3 << 6 | 3 << 22 | 2 << 24 | 1 << 26 | 1 << 30 | 1 << 31,
            // The 2-D index 2.
            2 << 16,
        ]
    );
}

#[test]
fn image_declaration_without_details_is_a_zero_token() {
    let shader = Shader {
        processor: Processor::Compute,
        items: vec![Item::Declaration(Declaration::new(File::Image, 0, 0)), end()],
    };
    let words = encode(&shader).unwrap();
    assert_eq!(&words[2..5], [0x000f_9030, 0, 0]);
    let back = decode(&words).unwrap();
    let image = back.declarations().next().and_then(|d| d.image);
    assert_eq!(image, Some(ImageDecl { target: TextureTarget::Buffer, raw: false, writable: false, format: 0 }));
}

// ---------------------------------------------------------------------------
// Encode errors.

fn encode_one(item: Item) -> Result<Vec<u32>, EncodeError> {
    encode(&Shader { processor: Processor::Vertex, items: vec![item, end()] })
}

fn out_of_range(r: Result<Vec<u32>, EncodeError>) -> (&'static str, i64) {
    match r {
        Err(EncodeError::OutOfRange { item: 0, what, value, .. }) => (what, value),
        other => panic!("expected OutOfRange, got {other:?}"),
    }
}

#[test]
fn encode_rejects_legacy_opcodes() {
    let mut i = Instruction::new(Opcode::Sub);
    i.dst.push(dst(File::Temporary, 0));
    i.src.push(src(File::Temporary, 0));
    i.src.push(src(File::Temporary, 1));
    let err = encode_one(Item::Instruction(i)).unwrap_err();
    assert_eq!(err, EncodeError::NoMesaOpcode { item: 0, opcode: Opcode::Sub });
    assert!(err.to_string().contains("SUB"), "{err}");
}

#[test]
fn encode_rejects_indices_outside_16_bits() {
    for (index, ok) in [(32767, true), (-32768, true), (32768, false), (-32769, false), (i32::MAX, false)] {
        let mut i = Instruction::new(Opcode::Mov);
        i.dst.push(dst(File::Temporary, 0));
        i.src.push(src(File::Temporary, index));
        let r = encode_one(Item::Instruction(i.clone()));
        if ok {
            assert!(r.is_ok(), "{index}");
        } else {
            assert_eq!(out_of_range(r), ("register index", i64::from(index)));
        }
        i.src[0].reg.index = 0;
        i.dst[0].reg.index = index;
        assert_eq!(encode_one(Item::Instruction(i.clone())).is_ok(), ok, "dst {index}");
        i.dst[0].reg.index = 0;
        i.dst[0].reg.dimension = Some(Dimension { index, indirect: None });
        assert_eq!(encode_one(Item::Instruction(i.clone())).is_ok(), ok, "dimension {index}");
        i.dst[0].reg.dimension = None;
        i.src[0].reg.indirect = Some(Indirect { file: File::Address, index, component: 0, array_id: 0 });
        assert_eq!(encode_one(Item::Instruction(i)).is_ok(), ok, "indirect {index}");
    }
}

#[test]
fn encode_rejects_other_values_that_do_not_fit() {
    let mut d = Declaration::new(File::Temporary, 0, 0);
    d.array_id = Some(1024);
    assert_eq!(out_of_range(encode_one(Item::Declaration(d))), ("array id", 1024));

    let mut d = Declaration::new(File::Output, 0, 0);
    d.semantic = Some(Semantic { name: SemanticName::Generic, index: 0, streams: [0, 4, 0, 0] });
    assert_eq!(out_of_range(encode_one(Item::Declaration(d))), ("vertex stream", 4));

    let mut d = Declaration::new(File::Output, 0, 0);
    d.usage_mask = 0x10;
    assert_eq!(out_of_range(encode_one(Item::Declaration(d))), ("usage mask", 16));

    let mut d = Declaration::new(File::Image, 0, 0);
    d.image = Some(ImageDecl { target: TextureTarget::T2D, raw: false, writable: false, format: 1024 });
    assert_eq!(out_of_range(encode_one(Item::Declaration(d))), ("image format", 1024));

    let mut i = Instruction::new(Opcode::If);
    i.src.push(src(File::Temporary, 0));
    i.label = Some(1 << 24);
    assert_eq!(out_of_range(encode_one(Item::Instruction(i))), ("label", 1 << 24));

    let mut i = Instruction::new(Opcode::Mov);
    i.dst.push(dst(File::Temporary, 0));
    i.src.push(src(File::Temporary, 0));
    i.src[0].reg.indirect = Some(Indirect { file: File::Address, index: 0, component: 0, array_id: 1024 });
    assert_eq!(out_of_range(encode_one(Item::Instruction(i.clone()))), ("indirect array id", 1024));
    i.src[0].reg.indirect = None;
    i.src[0].swizzle = [0, 1, 2, 4];
    assert_eq!(out_of_range(encode_one(Item::Instruction(i.clone()))), ("swizzle", 4));
    i.src[0].swizzle = IDENTITY_SWIZZLE;
    i.dst[0].write_mask = 0x1f;
    assert_eq!(out_of_range(encode_one(Item::Instruction(i.clone()))), ("write mask", 0x1f));
    i.dst[0].write_mask = 0xf;
    for _ in 0..3 {
        i.dst.push(dst(File::Temporary, 0));
    }
    assert_eq!(out_of_range(encode_one(Item::Instruction(i.clone()))), ("destination count", 4));
    i.dst.truncate(1);
    for _ in 0..15 {
        i.src.push(src(File::Temporary, 0));
    }
    assert_eq!(out_of_range(encode_one(Item::Instruction(i))), ("source count", 16));

    let mut i = Instruction::new(Opcode::Load);
    i.dst.push(dst(File::Temporary, 0));
    i.src.push(src(File::Buffer, 0));
    i.src.push(src(File::Temporary, 0));
    i.memory = Some(MemoryInfo { qualifier: 0x10, texture: TextureTarget::Buffer, format: 0 });
    assert_eq!(out_of_range(encode_one(Item::Instruction(i))), ("memory qualifier", 0x10));

    let mut d = Declaration::new(File::Temporary, 0, 0);
    d.image = Some(ImageDecl { target: TextureTarget::T2D, raw: false, writable: false, format: 0 });
    assert!(matches!(encode_one(Item::Declaration(d)), Err(EncodeError::Inconsistent { item: 0, .. })));
}

// ---------------------------------------------------------------------------
// Decode errors.

fn problem(words: &[u32]) -> (usize, Problem) {
    match decode(words) {
        Err(DecodeError::Token { word, problem }) => (word, problem),
        other => panic!("expected a token error, got {other:?}"),
    }
}

/// A valid stream: VERT; DCL TEMP[0]; MOV TEMP[0], TEMP[0]; END.
fn small() -> Vec<u32> {
    let mut i = Instruction::new(Opcode::Mov);
    i.dst.push(dst(File::Temporary, 0));
    i.src.push(src(File::Temporary, 0));
    let shader = Shader {
        processor: Processor::Vertex,
        items: vec![Item::Declaration(Declaration::new(File::Temporary, 0, 0)), Item::Instruction(i), end()],
    };
    encode(&shader).unwrap()
}

#[test]
fn decode_rejects_truncated_streams() {
    assert_eq!(problem(&[]), (0, Problem::Truncated("header")));
    assert_eq!(problem(&[0x0000_0002]), (1, Problem::Truncated("header")));
    let words = small();
    let n = words.len();
    // The header still claims the full body.
    assert_eq!(problem(&words[..n - 1]), (0, Problem::BodyTooShort { declared: n - 2, actual: n - 3 }));
    // Header adjusted to the shorter body: the MOV runs out of words.
    let mut cut = words[..5].to_vec();
    cut[0] = 2 | 3 << 8;
    assert_eq!(problem(&cut), (5, Problem::Truncated("destination register")));
    // Words after the declared body.
    let mut long = words.clone();
    long.push(0);
    assert_eq!(problem(&long), (n, Problem::TrailingWords(1)));
}

#[test]
fn decode_rejects_bad_header_size() {
    let mut words = small();
    words[0] = (words[0] & !0xff) | 3;
    assert_eq!(problem(&words), (0, Problem::HeaderSize(3)));
    words[0] &= !0xff;
    assert_eq!(problem(&words), (0, Problem::HeaderSize(0)));
}

#[test]
fn decode_rejects_unknown_numbers() {
    let words = small();
    // words: [hdr, proc, DCL, range, MOV, dst, src, END]
    let mut w = words.clone();
    w[1] = 6; // MESA_SHADER_TASK and beyond are not TGSI stages
    assert_eq!(problem(&w), (1, Problem::Unknown { what: "processor", value: 6 }));

    let mut w = words.clone();
    w[4] = (w[4] & !(0xff << 12)) | 67 << 12; // an opcode gap
    assert_eq!(problem(&w), (4, Problem::Unknown { what: "opcode", value: 67 }));
    w[4] = (w[4] & !(0xff << 12)) | 252 << 12; // TGSI_OPCODE_LAST
    assert_eq!(problem(&w), (4, Problem::Unknown { what: "opcode", value: 252 }));

    let mut w = words.clone();
    w[2] |= 0xf << 12; // DCL file 15
    assert_eq!(problem(&w), (2, Problem::Unknown { what: "register file", value: 15 }));
    let mut w = words.clone();
    w[6] |= 0xf; // source file 15
    assert_eq!(problem(&w), (6, Problem::Unknown { what: "register file", value: 15 }));

    let mut w = words.clone();
    w[2] = (w[2] & !0xf) | 4; // token type 4
    assert_eq!(problem(&w), (2, Problem::Unknown { what: "token type", value: 4 }));
}

#[test]
fn decode_rejects_wrong_nr_tokens() {
    let words = small();
    for (index, item) in [(2, "declaration"), (4, "instruction")] {
        let declared = (words[index] >> 4) & 0xff;
        for bad in [declared - 1, declared + 1, 0, 255] {
            let mut w = words.clone();
            w[index] = (w[index] & !(0xff << 4)) | bad << 4;
            assert_eq!(
                problem(&w),
                (index, Problem::NrTokens { item, declared: bad, expected: declared as usize }),
                "{item} NrTokens {bad}"
            );
        }
    }
    // The instruction's NrTokens excludes its own token: MOV with one dst
    // and one src says 2.
    assert_eq!((words[4] >> 4) & 0xff, 2);
    assert_eq!((words[2] >> 4) & 0xff, 2);
}

#[test]
fn decode_rejects_immediates_and_properties_of_other_sizes() {
    // IMM with 2 data words (NrTokens 3).
    let words = [2 | 4 << 8, 0, 1 | 3 << 4, 1, 2, 0x0007_5002];
    assert_eq!(problem(&words), (2, Problem::ImmediateSize(3)));
    // PROPERTY with 2 data words.
    let words = [2 | 4 << 8, 0, 3 | 3 << 4, 1, 2, 0x0007_5002];
    assert_eq!(problem(&words), (2, Problem::PropertySize(3)));
    // Unknown immediate type.
    let words = [2 | 6 << 8, 0, 1 | 5 << 4 | 6 << 18, 1, 2, 3, 4, 0x0007_5002];
    assert_eq!(problem(&words), (2, Problem::Unknown { what: "immediate type", value: 6 }));
}

#[test]
fn decode_rejects_a_nested_dimension() {
    let mut i = Instruction::new(Opcode::Mov);
    i.dst.push(dst(File::Temporary, 0));
    let mut s = src(File::Constant, 0);
    s.reg.dimension = Some(Dimension { index: 1, indirect: None });
    i.src.push(s);
    let mut words = encode(&Shader { processor: Processor::Vertex, items: vec![Item::Instruction(i)] }).unwrap();
    let last = words.len() - 1;
    words[last] |= 2; // tgsi_dimension.Dimension
    assert_eq!(problem(&words), (last, Problem::NestedDimension));
}

#[test]
fn decode_ignores_padding_bits() {
    let words = small();
    let shader = decode(&words).unwrap();
    let mut padded = words.clone();
    padded[1] |= 0xffff_fff0; // processor padding
    padded[2] |= 0x7 << 29; // declaration padding
    padded[4] |= 1 << 31; // instruction padding
    padded[5] |= 0x3f << 26; // dst padding
    assert_eq!(decode(&padded).unwrap(), shader);
}

// ---------------------------------------------------------------------------
// Fuzz: nothing panics, and whatever decodes re-encodes to the same tree.

/// Decoding must not panic; a successful decode must survive a round trip.
fn check_no_panic(words: &[u32]) -> bool {
    match decode(words) {
        Ok(shader) => {
            let again = encode(&shader).unwrap_or_else(|e| panic!("decoded tree does not encode: {e}\n{words:08x?}"));
            assert_eq!(decode(&again).as_ref(), Ok(&shader), "{words:08x?}");
            true
        }
        Err(e) => {
            // The error names a word inside (or just past) the input.
            if let Some(w) = e.word() {
                assert!(w <= words.len(), "{e} for {} words", words.len());
            }
            false
        }
    }
}

fn seeds() -> Vec<Vec<u32>> {
    let mut seeds = vec![small(), mesa_compute(), encode(&kitchen_sink()).unwrap()];
    if let Some(dir) = conformance_dir() {
        seeds.extend(hex_cases(&dir).iter().step_by(25).map(|p| read_words(p)));
    }
    seeds
}

#[test]
fn fuzz_prefixes_do_not_panic() {
    for seed in seeds() {
        for n in 0..=seed.len() {
            let ok = check_no_panic(&seed[..n]);
            assert_eq!(ok, n == seed.len(), "prefix of {n} of {} words", seed.len());
        }
    }
}

#[test]
fn fuzz_random_mutations_do_not_panic() {
    let seeds = seeds();
    let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
    let mut decoded = 0;
    let rounds = 10_000;
    for round in 0..rounds {
        let mut w = seeds[round % seeds.len()].clone();
        for _ in 0..=rng.below(3) {
            match rng.below(6) {
                // Flip one bit.
                0 | 1 => {
                    let i = rng.index(w.len());
                    w[i] ^= 1 << rng.below(32);
                }
                // Replace a word.
                2 => {
                    let i = rng.index(w.len());
                    w[i] = rng.next_u32();
                }
                // Change a small field near the bottom (type, NrTokens, file).
                3 => {
                    let i = rng.index(w.len());
                    w[i] ^= (rng.next_u32()) & 0xfff;
                }
                // Drop a word and fix the header's BodySize.
                4 if w.len() > 2 => {
                    let i = 2 + rng.index(w.len() - 2);
                    w.remove(i);
                    w[0] = (w[0] & 0xff) | ((w.len() as u32 - 2) << 8);
                }
                // Insert a word and fix the header's BodySize.
                _ => {
                    let i = 2 + rng.index(w.len().saturating_sub(1));
                    w.insert(i.min(w.len()), rng.next_u32());
                    w[0] = (w[0] & 0xff) | ((w.len() as u32 - 2) << 8);
                }
            }
        }
        decoded += usize::from(check_no_panic(&w));
    }
    eprintln!("fuzz: {decoded} of {rounds} mutated streams still decode");
}

/// The encoder writes any tree whose values fit their fields, but the
/// decoder gives back only trees the text syntax can say, so that every
/// decoded shader prints as text that parses back to it.
#[test]
fn decode_refuses_what_text_cannot_say() {
    let cases: Vec<(Shader, &str)> = vec![
        {
            let mut d = Declaration::new(File::Temporary, 3, 1);
            d.usage_mask = 0xf;
            (Shader { processor: Processor::Fragment, items: vec![Item::Declaration(d)] }, "ends before it starts")
        },
        {
            let mut i = Instruction::new(Opcode::Mov);
            i.dst.push(dst(File::Temporary, 0));
            (Shader { processor: Processor::Fragment, items: vec![Item::Instruction(i)] }, "0 source operands")
        },
        {
            let mut i = Instruction::new(Opcode::Mov);
            i.dst.push(dst(File::Temporary, -1));
            i.src.push(src(File::Temporary, 0));
            (Shader { processor: Processor::Fragment, items: vec![Item::Instruction(i)] }, "negative index")
        },
        {
            let mut d = Declaration::new(File::Output, 0, 0);
            d.semantic = Some(Semantic { name: SemanticName::Color, index: 0, streams: [1, 0, 0, 0] });
            (Shader { processor: Processor::Vertex, items: vec![Item::Declaration(d)] }, "vertex streams")
        },
    ];
    for (shader, expected) in cases {
        let words = encode(&shader).unwrap();
        let err = decode(&words).unwrap_err();
        assert!(err.to_string().contains(expected), "{err}");
        assert!(matches!(err.problem(), Some(Problem::Invalid(_))), "{err}");
    }
}
