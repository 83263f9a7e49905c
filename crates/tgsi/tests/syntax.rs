//! One test per syntax form: each parses a small shader, checks the tree
//! where it matters, and checks that the canonical text reads back to the
//! same tree.

use tgsi::*;

/// Parses `text`, checks that its exact print re-parses to the same tree
/// and that the print is a fixed point, and returns the tree and the print.
fn round_trip(text: &str) -> (Shader, String) {
    let shader = parse(text).unwrap_or_else(|e| panic!("{}", e.render(text, "input")));
    let printed = print(&shader, Style::Exact);
    let again = parse(&printed).unwrap_or_else(|e| panic!("{}", e.render(&printed, "printed")));
    assert_eq!(again, shader, "printed text:\n{printed}");
    assert_eq!(print(&again, Style::Exact), printed);
    (shader, printed)
}

fn first_instruction(shader: &Shader) -> &Instruction {
    shader.instructions().next().expect("an instruction")
}

fn first_declaration(shader: &Shader) -> &Declaration {
    shader.declarations().next().expect("a declaration")
}

#[test]
fn every_processor_header() {
    for (text, p) in [
        ("FRAG", Processor::Fragment),
        ("VERT", Processor::Vertex),
        ("GEOM", Processor::Geometry),
        ("COMP", Processor::Compute),
        ("TESS_CTRL", Processor::TessCtrl),
        ("TESS_EVAL", Processor::TessEval),
        ("frag", Processor::Fragment),
    ] {
        let (shader, printed) = round_trip(&format!("{text}\nEND\n"));
        assert_eq!(shader.processor, p);
        assert_eq!(printed, format!("{}\n  0: END\n", p.name()));
    }
}

#[test]
fn version_headers_of_the_2010_syntax() {
    let (shader, printed) = round_trip("FRAG1.1\nDCL IN[0], COLOR, LINEAR\nEND\n");
    assert_eq!(shader.processor, Processor::Fragment);
    assert!(printed.starts_with("FRAG\n"));
    assert_eq!(parse("VERT1.1\nEND").unwrap().processor, Processor::Vertex);
}

#[test]
fn properties_with_named_and_numeric_values() {
    let (shader, printed) = round_trip(
        "GEOM\nPROPERTY GS_INPUT_PRIMITIVE TRIANGLES\nPROPERTY GS_OUTPUT_PRIMITIVE LINE_STRIP\n\
         PROPERTY GS_MAX_OUTPUT_VERTICES 4\nPROPERTY NEXT_SHADER FRAG\nEND\n",
    );
    let Item::Property(p) = shader.items[0] else { panic!() };
    assert_eq!(p, Property { name: PropertyName::GsInputPrimitive, value: Primitive::Triangles.index() });
    assert!(printed.contains("PROPERTY GS_MAX_OUTPUT_VERTICES 4\n"));
    assert!(printed.contains("PROPERTY NEXT_SHADER FRAG\n"));
    round_trip("FRAG\nPROPERTY FS_COORD_ORIGIN LOWER_LEFT\nPROPERTY FS_COORD_PIXEL_CENTER INTEGER\nEND");
}

#[test]
fn declarations_with_ranges_masks_and_semantics() {
    let (shader, printed) = round_trip(
        "FRAG\nDCL IN[0..2].xy, GENERIC[3], PERSPECTIVE, CENTROID\nDCL OUT[0], COLOR\nDCL TEMP[0..9], LOCAL\nEND\n",
    );
    let d = first_declaration(&shader);
    assert_eq!((d.file, d.first, d.last, d.usage_mask), (File::Input, 0, 2, 0b0011));
    assert_eq!(d.semantic.map(|s| (s.name, s.index)), Some((SemanticName::Generic, 3)));
    assert_eq!(
        d.interpolation,
        Some(Interpolation { mode: InterpolateMode::Perspective, location: InterpolateLocation::Centroid })
    );
    assert!(printed.contains("DCL IN[0..2].xy, GENERIC[3], PERSPECTIVE, CENTROID\n"));
    assert!(printed.contains("DCL TEMP[0..9], LOCAL\n"));
}

#[test]
fn two_dimensional_constant_buffers_and_arrays() {
    let (shader, printed) = round_trip(
        "FRAG\nDCL CONST[1][0..3]\nDCL TEMP[0..7], ARRAY(1)\nDCL OUT[0], COLOR\n\
         MOV OUT[0], CONST[1][2]\nMOV TEMP[ADDR[0].x+2](1), CONST[1][ADDR[0].y-1]\nEND\n",
    );
    let d = first_declaration(&shader);
    assert_eq!(d.dimension, Some(1));
    assert!(printed.contains("DCL CONST[1][0..3]\n"));
    assert!(printed.contains("DCL TEMP[0..7], ARRAY(1)\n"));
    assert!(printed.contains("MOV TEMP[ADDR[0].x+2](1), CONST[1][ADDR[0].y-1]\n"));
    let inst = shader.instructions().nth(1).unwrap();
    let ind = inst.dst[0].reg.indirect.unwrap();
    assert_eq!((ind.file, ind.index, ind.component, ind.array_id, inst.dst[0].reg.index), (File::Address, 0, 0, 1, 2));
}

#[test]
fn indirect_dimension() {
    let (_, printed) = round_trip(
        "GEOM\nPROPERTY GS_INPUT_PRIMITIVE POINTS\nDCL IN[][0]\nDCL OUT[0]\nMOV OUT[0], IN[ADDR[1].x][0]\nEND\n",
    );
    assert!(printed.contains("MOV OUT[0], IN[ADDR[1].x][0]\n"));
}

#[test]
fn per_vertex_inputs_of_geometry_and_tessellation_shaders() {
    let (shader, printed) = round_trip(
        "GEOM\nPROPERTY GS_INPUT_PRIMITIVE TRIANGLES\nDCL IN[][0], POSITION\nDCL IN[]\nDCL OUT[0], POSITION, STREAM(1, 1, 0, 2)\nEND\n",
    );
    let decls: Vec<_> = shader.declarations().collect();
    assert_eq!((decls[0].first, decls[0].last, decls[0].dimension), (0, 0, None));
    // `[]` spans the vertices of the input primitive.
    assert_eq!((decls[1].first, decls[1].last), (0, 2));
    assert_eq!(decls[2].semantic.unwrap().streams, [1, 1, 0, 2]);
    assert!(printed.contains("DCL IN[][0], POSITION\n"));
    assert!(printed.contains("DCL OUT[0], POSITION, STREAM(1, 1, 0, 2)\n"));
    round_trip("TESS_CTRL\nDCL IN[][0..1], GENERIC[0]\nDCL OUT[][0], POSITION\nDCL OUT[1], PATCH[0]\nEND\n");
}

#[test]
fn resource_declarations() {
    let (shader, printed) = round_trip(
        "COMP\nDCL SVIEW[0], 2D, FLOAT\nDCL SVIEW[1], 2D_ARRAY, UINT, UINT, UINT, SINT\n\
         DCL IMAGE[0], 2D, PIPE_FORMAT_R8G8B8A8_UNORM, WR\nDCL IMAGE[1], BUFFER, RAW\n\
         DCL BUFFER[0], ATOMIC\nDCL MEMORY[0], SHARED\nDCL HWATOMIC[0]\nDCL SAMP[0]\nDCL SV[0], THREAD_ID\nEND\n",
    );
    let decls: Vec<_> = shader.declarations().collect();
    assert_eq!(decls[0].sampler_view.unwrap().return_types, [ReturnType::Float; 4]);
    assert_eq!(
        decls[1].sampler_view.unwrap().return_types,
        [ReturnType::Uint, ReturnType::Uint, ReturnType::Uint, ReturnType::Sint]
    );
    assert!(decls[2].image.unwrap().writable);
    assert!(decls[3].image.unwrap().raw);
    assert!(decls[4].atomic);
    assert_eq!(decls[5].memory_type, MemoryType::Shared);
    assert!(printed.contains("DCL IMAGE[0], 2D, PIPE_FORMAT_R8G8B8A8_UNORM, WR\n"));
    assert!(printed.contains("DCL IMAGE[1], BUFFER, PIPE_FORMAT_NONE, RAW\n"));
    assert!(printed.contains("DCL SVIEW[1], 2D_ARRAY, UINT, UINT, UINT, SINT\n"));
}

#[test]
fn invariant_and_interpolation_on_outputs() {
    let (shader, printed) =
        round_trip("VERT\nDCL OUT[0], POSITION, INVARIANT\nDCL OUT[1], GENERIC[0], CONSTANT\nEND\n");
    assert!(first_declaration(&shader).invariant);
    assert!(printed.contains("DCL OUT[0], POSITION, INVARIANT\n"));
    // Mesa's dump drops the mode of non-fragment declarations; the exact
    // style keeps it and the Mesa style drops it.
    assert!(printed.contains("DCL OUT[1], GENERIC[0], CONSTANT\n"));
    let mesa = print(&shader, Style::Mesa);
    assert!(mesa.contains("DCL OUT[1], GENERIC[0]\n"));
}

#[test]
fn immediates_of_every_type() {
    let (shader, printed) = round_trip(
        "FRAG\nIMM[0] FLT32 { 1.0, -0.5, 0.1, 1e-7 }\nIMM[1] UINT32 { 0, 1, 4294967295, 7 }\n\
         IMM[2] INT32 { -2147483648, -1, 0, 2147483647 }\nIMM[3] FLT64 { 0.1, -2.5 }\n\
         IMM[4] UINT64 { 18446744073709551615, 0x10 }\nIMM[5] INT64 { -9223372036854775808, 017 }\nEND\n",
    );
    let imms: Vec<_> = shader.immediates().collect();
    assert_eq!(imms[0].data, [0x3f80_0000, 0xbf00_0000, 0x3dcc_cccd, 0x33d6_bf95]);
    assert_eq!(imms[1].data, [0, 1, u32::MAX, 7]);
    assert_eq!(imms[2].data, [0x8000_0000, u32::MAX, 0, 0x7fff_ffff]);
    assert_eq!(imms[3].data[..2], [0x9999_999a, 0x3fb9_9999]);
    assert_eq!(imms[4].data, [u32::MAX, u32::MAX, 16, 0]);
    assert_eq!(imms[5].data, [0, 0x8000_0000, 15, 0]);
    assert!(printed.contains("IMM[0] FLT32 {    1.0000,    -0.5000,     0.1000,       1e-7}\n"));
    assert!(printed.contains("IMM[2] INT32 {-2147483648, -1, 0, 2147483647}\n"));
    assert!(printed.contains("IMM[4] UINT64 {18446744073709551615, 16}\n"));
}

#[test]
fn immediates_without_an_index_and_special_floats() {
    let (shader, printed) =
        round_trip("FRAG\nIMM FLT32 { inf, -inf, nan, -0.0 }\nIMM FLT32 { 0x3f800000, 1.5e+3, .25, 3. }\nEND\n");
    let imms: Vec<_> = shader.immediates().collect();
    assert_eq!(imms[0].data, [0x7f80_0000, 0xff80_0000, 0x7fc0_0000, 0x8000_0000]);
    // C's strtof reads `0x3f800000` as a hexadecimal number, as Mesa does.
    assert_eq!(f32::from_bits(imms[1].data[0]), 1065353216.0);
    assert!(printed.contains("IMM[0] FLT32 {       inf,       -inf,        nan,    -0.0000}\n"));
    assert!(printed.contains("IMM[1] FLT32 {1065353216.0000,  1500.0000,     0.2500,     3.0000}\n"));
}

#[test]
fn nan_payloads_survive_the_exact_style() {
    let shader = parse("FRAG\nIMM FLT32 { nan(0x400123), -nan(0x1), 0.0, 0.0 }\nEND").unwrap();
    let imm = shader.immediates().next().unwrap();
    assert_eq!(imm.data[..2], [0x7fc0_0123, 0xff80_0001]);
    let (_, printed) = round_trip(&print(&shader, Style::Exact));
    assert!(printed.contains("nan(0x400123)"), "{printed}");
}

#[test]
fn instructions_with_labels_modifiers_and_swizzles() {
    let (shader, printed) = round_trip(
        "FRAG\nDCL IN[0]\nDCL OUT[0]\nDCL TEMP[0]\n  0: MOV_SAT TEMP[0].xz, -|IN[0].wzyx|\n  1: ADD_PRECISE OUT[0], TEMP[0], -IN[0].xxxx\n  2: MUL_SAT_PRECISE OUT[0].w, |TEMP[0]|, IN[0]\n  3: END\n",
    );
    let inst = first_instruction(&shader);
    assert!(inst.saturate && !inst.precise);
    assert_eq!(inst.dst[0].write_mask, 0b0101);
    assert_eq!(inst.src[0].swizzle, [3, 2, 1, 0]);
    assert!(inst.src[0].negate && inst.src[0].absolute);
    assert!(printed.contains("  0: MOV_SAT TEMP[0].xz, -|IN[0].wzyx|\n"));
    assert!(printed.contains("  2: MUL_SAT_PRECISE OUT[0].w, |TEMP[0]|, IN[0]\n"));
}

#[test]
fn control_flow_with_branch_labels_and_indentation() {
    let (shader, printed) = round_trip(
        "FRAG\nDCL TEMP[0]\nUIF TEMP[0].xxxx :3\nBGNLOOP :5\nBRK\nENDLOOP :2\nELSE :7\nCONT\nENDIF\n\
         SWITCH TEMP[0].xxxx\nCASE TEMP[0].yyyy\nBRK\nDEFAULT\nBRK\nENDSWITCH\nCAL :17\nRET\nEND\nBGNSUB\nRET\nENDSUB\n",
    );
    assert_eq!(first_instruction(&shader).label, Some(3));
    assert!(printed.contains("  0: UIF TEMP[0].xxxx :3\n  1:   BGNLOOP :5\n  2:     BRK\n  3:   ENDLOOP :2\n  4: ELSE :7\n  5:   CONT\n  6: ENDIF\n"));
    assert!(printed.contains(" 17:   RET\n 18: ENDSUB\n"));
}

#[test]
fn texture_instructions_with_targets_and_offsets() {
    let (shader, printed) = round_trip(
        "FRAG\nDCL IN[0]\nDCL SAMP[0]\nDCL SVIEW[0], 2D, FLOAT\nDCL TEMP[0]\nIMM[0] INT32 { 1, -1, 0, 0 }\n\
         TEX TEMP[0], IN[0], SAMP[0], 2D\nTXF TEMP[0], IN[0], SAMP[0], 2D_ARRAY, IMM[0].xyz\n\
         SAMPLE TEMP[0], IN[0], SVIEW[0], SAMP[0], IMM[0].xyx\nTXQ TEMP[0], IN[0], SAMP[0], SHADOWCUBEARRAY\nEND\n",
    );
    let insts: Vec<_> = shader.instructions().collect();
    assert_eq!(insts[0].texture.as_ref().unwrap().target, TextureTarget::T2D);
    let txf = insts[1].texture.as_ref().unwrap();
    assert_eq!(txf.offsets.as_slice(), &[TexOffset { file: File::Immediate, index: 0, swizzle: [0, 1, 2] }]);
    // The SAMPLE family carries a texture token with target UNKNOWN but no
    // target in text.
    assert_eq!(insts[2].texture.as_ref().unwrap().target, TextureTarget::Unknown);
    assert!(printed.contains("SAMPLE TEMP[0], IN[0], SVIEW[0], SAMP[0], IMM[0].xyx\n"));
    assert!(printed.contains("TXF TEMP[0], IN[0], SAMP[0], 2D_ARRAY, IMM[0].xyz\n"));
}

#[test]
fn memory_instructions_with_qualifiers() {
    let (shader, printed) = round_trip(
        "COMP\nDCL IMAGE[0], 2D, PIPE_FORMAT_R32_UINT, WR\nDCL BUFFER[0]\nDCL TEMP[0]\n\
         LOAD TEMP[0], IMAGE[0], TEMP[0], 2D, PIPE_FORMAT_R32_UINT, COHERENT, VOLATILE\n\
         STORE BUFFER[0].x, TEMP[0], TEMP[0]\nATOMUADD TEMP[0].x, BUFFER[0], TEMP[0], TEMP[0], RESTRICT\nEND\n",
    );
    let load = first_instruction(&shader);
    let mem = load.memory.unwrap();
    assert_eq!(mem.qualifier, 0b101);
    assert_eq!(mem.texture, TextureTarget::T2D);
    assert!(printed.contains("LOAD TEMP[0], IMAGE[0], TEMP[0], COHERENT, VOLATILE, 2D, PIPE_FORMAT_R32_UINT\n"));
    assert!(printed.contains("ATOMUADD TEMP[0].x, BUFFER[0], TEMP[0], TEMP[0], RESTRICT\n"));
}

#[test]
fn double_and_64bit_instructions() {
    let (shader, _) = round_trip(
        "COMP\nDCL TEMP[0..1]\nIMM[0] FLT64 { 1.0, 2.0 }\nDADD TEMP[0], IMM[0], IMM[0]\nDFRACEXP TEMP[0].xy, TEMP[1].x, TEMP[0].xyxy\nU64ADD TEMP[1].zw, TEMP[0].xyxy, TEMP[0].zwzw\nEND\n",
    );
    let insts: Vec<_> = shader.instructions().collect();
    assert!(insts[0].opcode.info().is_64bit());
    assert_eq!(insts[1].dst.len(), 2);
}

#[test]
fn removed_opcodes_of_the_2010_reference() {
    let (shader, printed) = round_trip(
        "FRAG\nDCL IN[0]\nDCL TEMP[0]\nSUB TEMP[0], IN[0], IN[0]\nXPD TEMP[0], IN[0], IN[0]\nABS TEMP[0], IN[0]\n\
         DPH TEMP[0], IN[0], IN[0]\nKIL IN[0]\nKILP\nSCS TEMP[0], IN[0].x\nNRM TEMP[0], IN[0]\nCLAMP TEMP[0], IN[0], IN[0], IN[0]\nEND\n",
    );
    let names: Vec<_> = shader.instructions().map(|i| i.opcode.name()).collect();
    assert_eq!(names, ["SUB", "XPD", "ABS", "DPH", "KIL", "KILP", "SCS", "NRM", "CLAMP", "END"]);
    assert!(shader.instructions().take(9).all(|i| i.opcode.info().is_legacy()));
    // A one-letter swizzle broadcasts, as the 2010 syntax allowed.
    assert!(printed.contains("SCS TEMP[0], IN[0].xxxx\n"));
}

#[test]
fn emit_and_endprim_without_a_stream() {
    let (shader, printed) = round_trip("GEOM\nEMIT\nEND_PRIMITIVE\nEMIT_VERTEX\nEMIT IMM[0].xxxx\nEND\n");
    let insts: Vec<_> = shader.instructions().collect();
    assert_eq!((insts[0].opcode, insts[0].src.len()), (Opcode::Emit, 0));
    assert_eq!((insts[1].opcode, insts[1].src.len()), (Opcode::Endprim, 0));
    assert_eq!(insts[3].src.len(), 1);
    assert!(printed.contains("  0: EMIT\n  1: ENDPRIM\n  2: EMIT\n  3: EMIT IMM[0].xxxx\n"));
}

#[test]
fn semantics_on_vertex_inputs_of_the_2010_syntax() {
    let (shader, printed) = round_trip("VERT\nDCL IN[0], POSITION\nDCL IN[1], COLOR, CONSTANT\nEND\n");
    assert_eq!(first_declaration(&shader).semantic.unwrap().name, SemanticName::Position);
    assert!(printed.contains("DCL IN[1], COLOR, CONSTANT\n"));
}

#[test]
fn two_dimensional_tempx_and_immx_forms() {
    let (_, printed) = round_trip(
        "FRAG\nDCL TEMP[0]\nDCL TEMPX[0][0..1]\nDCL IMMX[0..1] {{ 0.5, 0.4, 0.6, 1.0 },\n { 0.5, 0.4, 0.6, 0.0 }}\n\
         ADD TEMPX[0][1], TEMP[0], IMMX[1]\nEND\n",
    );
    assert!(printed.contains("DCL TEMP[1..2]\n"), "{printed}");
    assert!(printed.contains("IMM[1] FLT32 {    0.5000,     0.4000,     0.6000,     0.0000}\n"));
    assert!(printed.contains("ADD TEMP[2], TEMP[0], IMM[1]\n"));
}

#[test]
fn resources_of_the_2011_compute_syntax() {
    let (_, printed) = round_trip(
        "COMP\nDCL RES[0], BUFFER, RAW, WR\nDCL RES[1], 2D, FLOAT\nDCL TEMP[0]\nLOAD TEMP[0].x, RLOCAL, TEMP[0]\nSTORE RES[0].x, TEMP[0], TEMP[0]\nEND\n",
    );
    assert!(printed.contains("DCL IMAGE[0], BUFFER, PIPE_FORMAT_NONE, WR, RAW\n"));
    assert!(printed.contains("DCL SVIEW[1], 2D, FLOAT\n"));
    assert!(printed.contains("DCL MEMORY[32766], SHARED\n"));
    assert!(printed.contains("LOAD TEMP[0].x, MEMORY[32766], TEMP[0]\n"));
    assert!(printed.contains("STORE IMAGE[0].x, TEMP[0], TEMP[0]\n"));
}

#[test]
fn crlf_line_ends_comments_and_lower_case() {
    let (shader, printed) =
        round_trip("frag\r\n; a comment\r\ndcl in[0], color, linear ; trailing\r\nmov out[0], in[0].XYZW\r\nend\r\n");
    assert_eq!(shader.instructions().count(), 2);
    assert_eq!(printed, "FRAG\nDCL IN[0], COLOR, LINEAR\n  0: MOV OUT[0], IN[0]\n  1: END\n");
}

#[test]
fn spans_locate_every_item() {
    let text = "FRAG\nDCL IN[0]\n  MOV OUT[0], IN[0]\nEND\n";
    let (shader, spans) = parse_with_spans(text).unwrap();
    assert_eq!(spans.len(), shader.items.len());
    assert_eq!((spans[1].line, spans[1].column), (3, 3));
    assert_eq!(&text[spans[1].start..spans[1].end], "MOV OUT[0], IN[0]");
}

#[test]
fn per_vertex_brackets_without_a_known_primitive() {
    // Mesa's dump prints `IN[]` for every geometry input; the bracket is
    // dropped, so its size need not be known.
    let (shader, printed) = round_trip("GEOM\nDCL IN[][0]\nDCL IN[][1..2], GENERIC[0]\nEND\n");
    let d = first_declaration(&shader);
    assert_eq!((d.first, d.last, d.dimension), (0, 0, None));
    assert!(printed.contains("DCL IN[][1..2], GENERIC[0]\n"));
    assert!(parse("GEOM\nDCL IN[]\nEND\n").is_err());
}
