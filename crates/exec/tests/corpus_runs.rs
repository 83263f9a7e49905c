//! Every shader of the shared corpus runs on a state with random inputs and
//! constants without panicking: it gives outputs, or an error saying what
//! the backend does not execute yet or that the shader did not finish. The
//! TGSI emitted from each shader's IR must give the same outputs (NaN
//! payloads aside). Skipped when `../shared` is absent.

mod support {
    pub mod compare;
}

use exec::{ExecError, RunOptions, State};
use support::compare::same;
use testdata::{case_name, corpus_files, Exceptions};
use testkit::Rng;

/// A state of 8 invocations with pseudo-random inputs 0..16 and constants
/// 0..64, a texture on units 0..4, and on units 0..4 a buffer of 256 bytes
/// and an 8x8 image of 2 layers, each with some words or texels set; for a
/// geometry shader also inputs 0..16 of vertices 0..6 (a triangle with
/// adjacency), each its own. With `small_ints` every value is instead the
/// bits of an integer 0..8, so that shaders computing addresses from their
/// inputs and constants reach inside buffers and images.
fn random_state(rng: &mut Rng, geometry: bool, small_ints: bool) -> String {
    let mut next = || {
        if small_ints {
            format!("0x{:x}", rng.below(8))
        } else {
            (rng.below(17) as f32 * 0.25 - 2.0).to_string()
        }
    };
    let mut s = String::from("invocations 8\n");
    for i in 0..16 {
        for lane in 0..8 {
            s += &format!("input {i} {lane} {} {} {} {}\n", next(), next(), next(), next());
        }
    }
    for vertex in 0..6 {
        for i in (0..16).filter(|_| geometry) {
            for lane in 0..8 {
                s += &format!("vinput {vertex} {i} {lane} {} {} {} {}\n", next(), next(), next(), next());
            }
        }
    }
    for i in 0..64 {
        s += &format!("const 0 {i} {} {} {} {}\n", next(), next(), next(), next());
    }
    for unit in 0..4 {
        s += &format!("texsize {unit} 2 2\ntexel {unit} 1 1 {} {} {} {}\n", next(), next(), next(), next());
    }
    for unit in 0..4 {
        s += &format!("buffer {unit} 256\nbufdata {unit} 0");
        for _ in 0..16 {
            s += &format!(" {}", next());
        }
        s += &format!("\nimage {unit} 8 8 2\n");
        for k in 0..8 {
            s += &format!("imgdata {unit} {k} {} {} {} {} {} {}\n", 7 - k, k % 2, next(), next(), next(), next());
        }
    }
    s
}

/// Whether the final buffers and images of `out` differ from what `state`
/// sets.
fn memory_changed(state: &State, out: &exec::Outputs) -> bool {
    let words: Vec<(u32, u32, u32)> = state
        .buffers()
        .flat_map(|(unit, b)| b.words().filter(|w| w.1 != 0).map(move |(offset, w)| (unit, offset, w)))
        .collect();
    let mut texels: Vec<_> = state
        .images()
        .flat_map(|(unit, i)| i.texels().filter(|t| t.1 != [0; 4]).map(move |(at, t)| (unit, at, t)))
        .collect();
    texels.sort_by_key(|&(unit, (x, y, layer), _)| (unit, layer, y, x));
    out.buffer_words().collect::<Vec<_>>() != words || out.image_texels().collect::<Vec<_>>() != texels
}

#[test]
fn corpus_shaders_run_without_panicking() {
    let Some(paths) = corpus_files() else { return };
    let mut rng = Rng::new(0x2545_f491_4f6c_dd1d);
    let (mut ran, mut unsupported, mut budget, mut not_built) = (0, 0, 0, 0);
    let (mut same_after_emission, mut differ) = (0, Vec::new());
    // Geometry shaders: how many there are, how many ran, and the vertices
    // they emitted in all.
    let (mut geometry_shaders, mut geometry_ran, mut vertices) = (0, 0, 0u64);
    let mut geometry_unsupported = Vec::new();
    // Shaders that load, store or query memory, and how many of them ran.
    // and how many changed a buffer or an image.
    let (mut memory_shaders, mut memory_ran, mut memory_written) = (0, 0, 0);
    let mut exceptions = Exceptions::new("corpus_shaders_run_without_panicking", NOT_RUN);
    for path in &paths {
        let name = case_name(path);
        let text = String::from_utf8_lossy(&std::fs::read(path).unwrap_or_else(|e| panic!("{name}: {e}"))).into_owned();
        let shader = tgsi::parse(&text).unwrap_or_else(|e| panic!("{}", e.render(&text, &name)));
        let module = match ir::from_tgsi(&shader) {
            Ok(module) => module,
            Err(e) => {
                not_built += 1;
                exceptions.skip(&name, format!("not built: {e}"));
                continue;
            }
        };
        let geometry = module.processor == tgsi::Processor::Geometry;
        let memory = shader.items.iter().any(|item| {
            matches!(item, tgsi::Item::Instruction(i) if i.opcode.info().name.starts_with("ATOM")
                || matches!(i.opcode, tgsi::Opcode::Load | tgsi::Opcode::Store | tgsi::Opcode::Resq))
        });
        let state = State::parse(&random_state(&mut rng, geometry, memory)).unwrap();
        let options = RunOptions { step_budget: 200_000, lanes: 8, ..RunOptions::default() };
        geometry_shaders += u32::from(geometry);
        memory_shaders += u32::from(memory);
        match exec::run(&module, &state, &options) {
            Ok(out) => {
                assert_eq!(out.invocations(), 8);
                ran += 1;
                memory_ran += u32::from(memory);
                memory_written += u32::from(memory_changed(&state, &out));
                if geometry {
                    geometry_ran += 1;
                    for lane in 0..8 {
                        vertices += out
                            .streams(lane)
                            .filter_map(|s| out.emitted(lane, s))
                            .map(|e| e.vertices() as u64)
                            .sum::<u64>();
                    }
                }
                let emitted_text = tgsi::print(&ir::to_tgsi(&module).unwrap(), tgsi::Style::Exact);
                let emitted = ir::from_tgsi(&tgsi::parse(&emitted_text).unwrap()).unwrap();
                match exec::run(&emitted, &state, &options) {
                    Ok(again) if same(&out, &again) => same_after_emission += 1,
                    Ok(_) => differ.push(path.display().to_string()),
                    Err(e) => differ.push(format!("{}: {e}", path.display())),
                }
            }
            Err(e @ (ExecError::Unsupported(_) | ExecError::UnsupportedAlu { .. })) => {
                unsupported += 1;
                exceptions.skip(&name, &e);
                if geometry {
                    geometry_unsupported.push(format!("{}: {e}", path.display()));
                }
            }
            Err(e @ ExecError::StepBudget(_)) => {
                budget += 1;
                exceptions.skip(&name, e);
            }
            Err(e) => panic!("{}: {e}", path.display()),
        }
    }
    eprintln!(
        "corpus: {ran} of {} shaders ran; {unsupported} use what is not executed yet; {budget} did not finish; {not_built} have no IR; {same_after_emission} give the same outputs after emission",
        paths.len()
    );
    eprintln!("corpus: {geometry_ran} of {geometry_shaders} geometry shaders ran, emitting {vertices} vertices");
    eprintln!(
        "corpus: {memory_ran} of {memory_shaders} shaders using buffers, images or shared memory ran; \
         {memory_written} changed a buffer or an image"
    );
    assert_eq!(memory_ran, memory_shaders, "shaders using memory that do not run");
    assert!(geometry_unsupported.is_empty(), "geometry shaders that do not run:\n{}", geometry_unsupported.join("\n"));
    assert!(geometry_ran == 0 || vertices > 0, "geometry shaders ran but emitted nothing");
    assert!(differ.is_empty(), "emission changed the outputs of:\n{}", differ.join("\n"));
    exceptions.finish("corpus shaders run", ran, RAN_FLOOR);
}

/// Corpus shaders that do not run to the end on their random state, and
/// why.
const NOT_RUN: &[(&str, &str)] = &[];

/// Corpus shaders run (538 of 538).
const RAN_FLOOR: usize = 530;
