//! `-O1` over the shared corpus (`../shared/corpus`, skipped when absent):
//! every shader goes through SSA construction, `-O1` with the verifier
//! after every pass, and emission; the result parses and builds again.
//! Prints the totals of TGSI instructions, TEMP registers and scalar ALU
//! operations of the IR before and after, and the ten shaders that shrink
//! most; asserts the total shrinks and no shader grows past what plain
//! emission (no pass) gives it, and that no shader comes out with more
//! instructions or TEMPs than its input, with no pass or with `-O1`,
//! but for the reasons [`ABOVE_INPUT`] lists.

/// Corpus shaders (file names) that come out with more instructions or
/// TEMPs than their input, and why: emission writes today's opcodes only,
/// and reads no output (reading `OUT` is optional in Gallium, a driver
/// cap).
const ABOVE_INPUT: &[(&str, &str)] = &[
    ("glean_xpd.tgsi", "XPD (removed) is MUL + MAD, with a TEMP"),
    ("frag-xpd.tgsi", "XPD (removed) is MUL + MAD, with a TEMP"),
    ("vert-xpd.tgsi", "XPD (removed) is MUL + MAD and a MOV for w, with a TEMP"),
    ("vert-xpd@20090401-65cbe7e.tgsi", "XPD (removed) is MUL + MAD and a MOV for w, with a TEMP"),
    ("fragProg1__fragProg1-25.tgsi", "CLAMP (removed) is MAX + MIN with no pass"),
    ("fragProg1__fragProg1-26.tgsi", "CLAMP (removed) is MAX + MIN with no pass"),
    ("fragProg1__fragProg1-27.tgsi", "CLAMP (removed) is MAX + MIN with no pass"),
    ("g6lc_apu_tgsi_check__subneg.tgsi", "the input computes in OUT and reads it back; emission reads no output"),
    (
        "pp_mlaa__depth1fs.tgsi",
        "-O: 2 instructions fewer for 2 TEMPs more: four texture results the input copied into one register \
         are read where they are (each in channel x of its own register)",
    ),
    (
        "pp_mlaa__depth1fs@20160318-e7b5a84.tgsi",
        "-O: 2 instructions fewer for 2 TEMPs more (as pp_mlaa__depth1fs.tgsi)",
    ),
    ("test1.tgsi", "CLAMP (removed) is MAX + MIN with no pass"),
];

/// What one shader counts.
#[derive(Clone, Copy, Debug, Default)]
struct Size {
    instructions: usize,
    temps: usize,
    alu_ops: usize,
}

fn size(shader: &tgsi::Shader, module: &ir::Module) -> Size {
    let temps = shader.temp_registers() as usize;
    let alu_ops = module
        .function
        .blocks
        .iter()
        .flat_map(|(_, b)| &b.insts)
        .filter(|&&i| matches!(module.function.insts[i].op, ir::Op::Alu { .. }))
        .count();
    Size { instructions: shader.instruction_count(), temps, alu_ops }
}

/// The shader emitted from `module`, parsed back.
fn emitted(module: &ir::Module, name: &str) -> tgsi::Shader {
    let shader = ir::to_tgsi(module).unwrap_or_else(|e| panic!("{name}: {e}"));
    let text = tgsi::print(&shader, tgsi::Style::Exact);
    tgsi::parse(&text).unwrap_or_else(|e| panic!("{name}: {}", e.render(&text, name)))
}

#[test]
fn o1_shrinks_the_corpus() {
    let Some(files) = testdata::corpus_files() else { return };
    let (mut input, mut plain, mut optimized) = (Size::default(), Size::default(), Size::default());
    let mut reductions = Vec::new();
    let mut grew = Vec::new();
    let mut larger_than_input = Vec::new();
    let mut unexplained = Vec::new();
    let mut output_reads = Vec::new();
    let mut listed_above: std::collections::BTreeSet<&str> = std::collections::BTreeSet::new();
    let mut checked = 0;
    for path in &files {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let shader = tgsi::parse(&text).unwrap_or_else(|e| panic!("{}", e.render(&text, &name)));
        let module = ir::from_tgsi(&shader).unwrap_or_else(|e| panic!("{name}: {e}"));
        let before = Size { alu_ops: size(&shader, &module).alu_ops, ..size(&shader, &module) };
        let plain_shader = emitted(&module, &name);
        let plain_size = size(&plain_shader, &module);
        let mut after = module.clone();
        passes::PassManager::new(passes::Options { verify_each: true, ..Default::default() })
            .run(&passes::Pipeline::o1(), &mut after)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let out = emitted(&after, &name);
        ir::from_tgsi(&out).unwrap_or_else(|e| panic!("{name}: the output does not build: {e}"));
        let after_size = size(&out, &after);
        for (total, s) in [(&mut input, before), (&mut plain, plain_size), (&mut optimized, after_size)] {
            total.instructions += s.instructions;
            total.temps += s.temps;
            total.alu_ops += s.alu_ops;
        }
        if after_size.instructions > before.instructions {
            larger_than_input.push(format!(
                "{name}: {} -> {} (no pass: {})",
                before.instructions, after_size.instructions, plain_size.instructions
            ));
        }
        let file = path.file_name().map_or(String::new(), |f| f.to_string_lossy().into_owned());
        for (pipeline, s) in [("no pass", plain_size), ("-O1", after_size)] {
            let above = s.instructions > before.instructions || s.temps > before.temps;
            if let Some((f, _)) = ABOVE_INPUT.iter().find(|(f, _)| above && *f == file) {
                listed_above.insert(f);
            }
            if above && !ABOVE_INPUT.iter().any(|(f, _)| *f == file) {
                unexplained.push(format!(
                    "{name} ({pipeline}): {} instructions, {} TEMPs -> {}, {}",
                    before.instructions, before.temps, s.instructions, s.temps
                ));
            }
        }
        // Reading outputs is a driver capability many lack: no output the
        // input did not read.
        if !reads_outputs(&shader) {
            for (pipeline, emitted) in [("no pass", &plain_shader), ("-O1", &out)] {
                if reads_outputs(emitted) {
                    output_reads.push(format!("{name} ({pipeline})"));
                }
            }
        }
        if after_size.instructions > plain_size.instructions.max(before.instructions) {
            grew.push(format!("{name}: {} -> {}", before.instructions, after_size.instructions));
        }
        reductions.push((before.instructions as i64 - after_size.instructions as i64, before, after_size, name));
        checked += 1;
    }
    println!("{} shaders", files.len());
    println!("                 instructions  TEMPs  scalar ALU ops (IR)");
    for (what, s) in [("input", input), ("no pass", plain), ("-O1", optimized)] {
        println!("{what:<16} {:>12}  {:>5}  {:>8}", s.instructions, s.temps, s.alu_ops);
    }
    reductions.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.3.cmp(&b.3)));
    println!("largest reductions (instructions, TEMPs, ALU ops before -> after):");
    for (_, before, after, name) in reductions.iter().take(10) {
        println!(
            "  {name}: {} -> {}, {} -> {}, {} -> {}",
            before.instructions, after.instructions, before.temps, after.temps, before.alu_ops, after.alu_ops
        );
    }
    println!("larger than their input ({}), all of them larger with no pass too:", larger_than_input.len());
    larger_than_input.iter().for_each(|l| println!("  {l}"));
    assert!(optimized.instructions < input.instructions, "-O1 must shrink the corpus");
    assert!(optimized.alu_ops < input.alu_ops);
    assert!(grew.is_empty(), "-O1 output larger than both the input and plain emission:\n{}", grew.join("\n"));
    assert!(unexplained.is_empty(), "more instructions or TEMPs than the input:\n{}", unexplained.join("\n"));
    let stale: Vec<&str> = ABOVE_INPUT.iter().map(|(f, _)| *f).filter(|f| !listed_above.contains(f)).collect();
    assert!(stale.is_empty(), "listed as larger than the input, but no longer: {stale:?}");
    assert!(output_reads.is_empty(), "outputs read where the input read none:\n{}", output_reads.join("\n"));
    // Every shader of the 538 is built, optimized and emitted, or the test fails.
    testdata::assert_checked("corpus_opt", "corpus shaders", checked, 500);
}

/// Whether an instruction of `shader` reads the `OUT` file.
fn reads_outputs(shader: &tgsi::Shader) -> bool {
    shader.instructions().any(|i| i.src.iter().any(|s| s.reg.file == tgsi::File::Output))
}
