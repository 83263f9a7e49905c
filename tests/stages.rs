//! Every stage and register form builds, and emission writes today's
//! syntax: the hand-written shaders under `tests/inputs/stages/` (one
//! per stage or form: 2-D outputs of tessellation control shaders, patch
//! inputs of tessellation evaluation shaders, geometry streams, the 2010
//! dialect's vertex input semantics and stream-less EMIT) build, verify,
//! emit, read back, and compute what they computed before, under every
//! pass, wherever the backend runs their stage. Mesa's parser
//! (`tools/mesa/tgsi-ref dump`) accepts each one's emitted text; that was
//! checked by hand, since tests cannot need Mesa.

use std::path::{Path, PathBuf};

use testkit::{difftest, states, Rng};
use tgsi_opt::tgsi::{self, File, Item, Opcode, Processor, Style};
use tgsi_opt::{ir, passes};

/// Random states per shader.
const STATES: u64 = 4;

fn inputs() -> Vec<PathBuf> {
    let paths = testdata::tgsi_files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/inputs/stages"));
    assert!(!paths.is_empty(), "no shaders under tests/inputs/stages");
    paths
}

fn read(path: &Path) -> (String, String) {
    let name = path.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
    (name, std::fs::read_to_string(path).unwrap())
}

/// `text` through `pipeline` and emission, printed and parsed back.
fn emit(name: &str, text: &str, pipeline: &passes::Pipeline) -> tgsi::Shader {
    let shader = tgsi::parse(text).unwrap_or_else(|e| panic!("{}", e.render(text, name)));
    let mut module = ir::from_tgsi(&shader).unwrap_or_else(|e| panic!("{name}: {e}"));
    ir::verify::verify(&module.function).unwrap_or_else(|e| panic!("{name}: {e}"));
    passes::PassManager::new(passes::Options::default())
        .run(pipeline, &mut module)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let emitted = ir::to_tgsi(&module).unwrap_or_else(|e| panic!("{name}: {e}"));
    let printed = tgsi::print(&emitted, Style::Exact);
    let again = tgsi::parse(&printed).unwrap_or_else(|e| panic!("{}", e.render(&printed, name)));
    assert_eq!(again, emitted, "{name}: the emitted text does not read back");
    again
}

fn pipelines() -> [(&'static str, passes::Pipeline); 2] {
    [("-O0", passes::Pipeline::o0()), ("-O1", passes::Pipeline::o1())]
}

#[test]
fn every_form_builds_emits_and_reads_back_without_growing() {
    for path in inputs() {
        let (name, text) = read(&path);
        let source = tgsi::parse(&text).unwrap().instructions().count();
        for (label, pipeline) in pipelines() {
            let first = emit(&name, &text, &pipeline);
            // The emitted text builds again, and emits again.
            let printed = tgsi::print(&first, Style::Exact);
            let second = emit(&name, &printed, &passes::Pipeline::o0());
            let n = first.instructions().count();
            assert_eq!(second.processor, first.processor, "{name} {label}");
            assert!(n <= source, "{name} {label}: {n} instructions from {source}:\n{printed}");
        }
    }
}

/// What today's Mesa parser refuses, found in an emitted shader.
fn yesterdays_syntax(shader: &tgsi::Shader) -> Vec<String> {
    let mut found = Vec::new();
    for item in &shader.items {
        match item {
            Item::Declaration(d)
                if shader.processor == Processor::Vertex
                    && d.file == File::Input
                    && (d.semantic.is_some() || d.interpolation.is_some() || d.invariant) =>
            {
                found.push(format!("a vertex input with a semantic or interpolation: IN[{}]", d.first));
            }
            Item::Instruction(i) if matches!(i.opcode, Opcode::Emit | Opcode::Endprim) && i.src.is_empty() => {
                found.push(format!("{} without its stream operand", i.opcode.info().name));
            }
            _ => {}
        }
    }
    found
}

#[test]
fn emission_writes_todays_syntax() {
    let examples = testdata::tgsi_files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/shaders"));
    for path in inputs().into_iter().chain(examples) {
        let (name, text) = read(&path);
        for (label, pipeline) in pipelines() {
            let emitted = emit(&name, &text, &pipeline);
            let found = yesterdays_syntax(&emitted);
            assert!(found.is_empty(), "{name} {label}: {found:?}\n{}", tgsi::print(&emitted, Style::Exact));
        }
    }
}

#[test]
fn stream_less_emit_is_written_with_stream_zero() {
    let text = "GEOM\nDCL IN[][0], POSITION\nDCL OUT[0], POSITION\nIMM[0] FLT32 {1.0, 0.0, 2.0, 3.0}\n\
                MOV OUT[0], IN[0][0]\nEMIT\nENDPRIM\nEND\n";
    let emitted = emit("stream-less", text, &passes::Pipeline::o0());
    let imms: Vec<_> = emitted.immediates().collect();
    for inst in emitted.instructions().filter(|i| matches!(i.opcode, Opcode::Emit | Opcode::Endprim)) {
        let [src] = inst.src.as_slice() else { panic!("{:?} has {} operands", inst.opcode, inst.src.len()) };
        assert_eq!(src.reg.file, File::Immediate);
        // The shader's own zero, read in every position.
        let imm = imms[src.reg.index as usize];
        assert!(src.swizzle.iter().all(|&c| imm.data[c as usize] == 0 && c == src.swizzle[0]), "{src:?}");
    }
    assert_eq!(imms.len(), 1, "no immediate added for the stream");
}

/// The shaders the backend refuses, with what its error names: it does
/// not model the invocations of a patch sharing per-vertex outputs, nor
/// resources picked per lane.
const NOT_RUN: &[(&str, &str)] = &[
    ("compute_indirect_buffer_image.tgsi", "indirectly addressed BUFFER"),
    ("indirect_resources.tgsi", "indirectly addressed SAMP"),
    ("tess_ctrl_opaque_and_barrier.tgsi", "OUT registers"),
    ("tess_ctrl_per_vertex_outputs.tgsi", "OUT registers"),
];

#[test]
fn emitted_forms_compute_what_the_sources_compute() {
    for path in inputs() {
        let (name, text) = read(&path);
        let module = ir::from_tgsi(&tgsi::parse(&text).unwrap()).unwrap();
        let refused = NOT_RUN.iter().find(|(n, _)| *n == name).map(|(_, why)| *why);
        for round in 0..STATES {
            let state = states::for_module(&module, &mut Rng::from_name(&name, round));
            let report = difftest::check_program(round, &text, &[state]);
            match (refused, report.findings.first()) {
                (None, None) => {}
                (None, Some(f)) => panic!("{name}: {f}"),
                (Some(why), Some(f)) if f.stage == "unoptimized run" && f.detail.contains(why) => {}
                (Some(why), other) => panic!("{name}: expected the backend to refuse {why}, got {other:?}"),
            }
        }
    }
}

#[test]
fn ir_text_of_every_form_reads_back() {
    for path in inputs() {
        let (name, text) = read(&path);
        let module = ir::from_tgsi(&tgsi::parse(&text).unwrap()).unwrap();
        let printed = ir::print::print_module(&module);
        let parsed = ir::parse(&printed).unwrap_or_else(|e| panic!("{name}: {e}\n{printed}"));
        ir::verify::verify(&parsed.function).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(ir::print::print_module(&parsed), printed, "{name}");
    }
}

/// A tessellation control shader's outputs are shared by the invocations
/// of a patch: what it reads after a barrier is read from the output, not
/// from a value it wrote itself (or the zero it would have without).
#[test]
fn tess_ctrl_outputs_are_read_back_where_they_are_read() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/inputs/stages/tess_ctrl_patch_outputs_shared.tgsi");
    let (name, text) = read(&path);
    for (label, pipeline) in pipelines() {
        let emitted = emit(&name, &text, &pipeline);
        let insts: Vec<_> = emitted.instructions().collect();
        let barrier = insts.iter().position(|i| i.opcode == Opcode::Barrier).expect("the barrier stays");
        let reads_out = |i: &tgsi::Instruction| i.src.iter().any(|s| s.reg.file == File::Output && s.reg.index == 0);
        let writes_out = |i: &tgsi::Instruction| i.dst.iter().any(|d| d.reg.file == File::Output && d.reg.index == 0);
        assert!(
            insts[barrier..].iter().filter(|i| reads_out(i)).count() >= 2,
            "{label}: OUT[0] not read after the barrier"
        );
        assert!(insts[..barrier].iter().any(|i| writes_out(i)), "{label}: OUT[0] not written before the barrier");
        assert!(!insts[barrier..].iter().any(|i| writes_out(i)), "{label}: OUT[0] written after the barrier");
    }
}
