//! The work of taking a token stream through the pipeline (decode, build
//! the IR, `-O1` with verification, emit, encode) grows at most linearly
//! with the stream's length, for random programs, mutated streams and
//! adversarial shapes (call chains, deep nesting, huge declarations, many
//! immediates, a SWITCH whose cases each write another register), within
//! the default `tgsi::Limits`.
//!
//! Work is measured deterministically, never timed: the bytes this thread
//! allocates (a counting global allocator) and the size of the IR built.
//! Each input must stay within `c × words + k` of both.

use testkit::shapes::{call_chain, switch_of_writes};
use tgsi_opt::{ir, passes, tgsi};

#[global_allocator]
static COUNTING: testkit::counting::Counting = testkit::counting::Counting;

/// What processing one token stream cost.
#[derive(Clone, Copy, Debug)]
struct Work {
    /// Words of the stream.
    words: usize,
    /// Bytes allocated while processing it.
    bytes: u64,
    /// Instructions, blocks, values and phi arguments of the IR built (0
    /// when refused).
    ir: usize,
    /// Whether it got through the whole pipeline.
    accepted: bool,
}

/// Takes `words` through the pipeline, measuring the work.
fn work(words: &[u32]) -> Work {
    let before = testkit::counting::allocated();
    let mut ir_size = 0;
    let accepted = (|| {
        let shader = tgsi::tokens::decode(words).ok()?;
        let mut module = ir::from_tgsi(&shader).ok()?;
        let f = &module.function;
        let phi_args: usize =
            f.insts.iter().filter(|(_, i)| matches!(i.op, ir::Op::Phi { .. })).map(|(_, i)| i.args.len()).sum();
        ir_size = f.insts.len() + f.blocks.len() + f.values.len() + phi_args;
        let options = passes::Options { verify_each: true, ..Default::default() };
        passes::PassManager::new(options).run(&passes::Pipeline::o1(), &mut module).ok()?;
        let emitted = ir::to_tgsi(&module).ok()?;
        tgsi::tokens::encode(&emitted).ok()
    })()
    .is_some();
    let bytes = testkit::counting::allocated() - before;
    Work { words: words.len(), bytes, ir: ir_size, accepted }
}

/// The tokens of `text`, which may be past the default limits (for the
/// decoder to refuse).
fn tokens(text: &str) -> Vec<u32> {
    let loose = tgsi::Limits {
        max_instructions: usize::MAX,
        max_declarations: usize::MAX,
        max_immediates: usize::MAX,
        max_nesting: usize::MAX,
        ..tgsi::Limits::DEFAULT
    };
    let shader = tgsi::parse_with_limits(text, &loose).unwrap_or_else(|e| panic!("{}", e.render(text, "generated")));
    tgsi::tokens::encode(&shader).expect("encodes")
}

/// Bytes allocated per word, at most, beyond [`BYTES_BASE`]. Measured:
/// at most 3,000 for random programs, 11,400 for 64 nested IFs (the most
/// the limits allow); a doubling call chain of 11 links (2,048 inlined
/// ADDs, within the floor of the inlining budget) 5,200 per word of its
/// budget. Without the limits, 20 links allocate gigabytes.
const BYTES_PER_WORD: u64 = 16_384;
/// Bytes any input may allocate, whatever its length.
const BYTES_BASE: u64 = 4 << 20;
/// IR entities (instructions, blocks, values) per word, at most, beyond
/// [`IR_BASE`]. Measured: at most 6.
const IR_PER_WORD: usize = 16;
const IR_BASE: usize = 1 << 12;

/// How far an input may grow by inlining its subroutine calls, and its
/// SSA form's phis in arguments: the default `Limits::inline_budget` (64
/// times its length, at least 4,096), written out so that loosening the
/// defaults fails the test.
fn inline_budget(words: usize) -> usize {
    (64 * words).max(4096)
}

/// Checks `w` against the linear bounds. An input that grows (subroutine
/// calls, a SWITCH's phis) may grow to [`inline_budget`] before it is
/// refused: its bound is that size's.
fn within_bounds(what: &str, w: Work, grows: bool) {
    let size = if grows { inline_budget(w.words) } else { w.words };
    assert!(
        w.bytes <= BYTES_PER_WORD * size as u64 + BYTES_BASE,
        "{what}: {} bytes allocated for {} words ({} per word)",
        w.bytes,
        w.words,
        w.bytes / w.words.max(1) as u64
    );
    assert!(w.ir <= IR_PER_WORD * size + IR_BASE, "{what}: {} IR entities for {} words", w.ir, w.words);
}

fn fragment(body: &[String]) -> String {
    format!("FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nDCL TEMP[0..3]\n{}\nMOV OUT[0], TEMP[0]\nEND\n", body.join("\n"))
}

/// `n` IFs nested, each writing every channel of four TEMPs.
fn nested_ifs(n: usize) -> String {
    let mut body = Vec::new();
    for i in 0..n {
        body.push("IF IN[0].xxxx".to_string());
        body.push(format!("ADD TEMP[{}], TEMP[{}], IN[0]", i % 4, (i + 1) % 4));
    }
    body.extend(std::iter::repeat_n("ENDIF".to_string(), n));
    fragment(&body)
}

/// `n` loops nested, each counting to 2.
fn nested_loops(n: usize) -> String {
    let mut body = vec!["MOV TEMP[1], IN[0]".to_string()];
    for _ in 0..n {
        body.push("BGNLOOP".into());
        body.push("ADD TEMP[0], TEMP[0], TEMP[1]".into());
        body.push("BRK".into());
    }
    body.extend(std::iter::repeat_n("ENDLOOP".to_string(), n));
    fragment(&body)
}

/// `n` declared TEMP arrays of the largest size the rule allows, each
/// read and written indirectly.
fn huge_arrays(n: usize) -> String {
    let size = 32768 / n.max(1);
    let mut decls = Vec::new();
    let mut body = vec!["ARL ADDR[0].x, IN[0].xxxx".to_string()];
    for i in 0..n {
        let first = 4 + i * size;
        let last = (first + size - 1).min(32767);
        decls.push(format!("DCL TEMP[{first}..{last}], ARRAY({})", i + 1));
        body.push(format!("MOV TEMP[ADDR[0].x+{first}]({}), IN[0]", i + 1));
        body.push(format!("ADD TEMP[0], TEMP[0], TEMP[ADDR[0].x+{first}]({})", i + 1));
    }
    format!(
        "FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nDCL TEMP[0..3]\n{}\nDCL ADDR[0]\n{}\nMOV OUT[0], TEMP[0]\nEND\n",
        decls.join("\n"),
        body.join("\n")
    )
}

/// `n` immediates, each added in.
fn many_immediates(n: usize) -> String {
    let mut text = String::from("FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nDCL TEMP[0]\n");
    for i in 0..n {
        text.push_str(&format!("IMM[{i}] FLT32 {{ {i}.5, {i}.25, -{i}.0, 1.0 }}\n"));
    }
    text.push_str("MOV TEMP[0], IN[0]\n");
    for i in 0..n {
        text.push_str(&format!("MAD TEMP[0], TEMP[0], IMM[{i}], IMM[{}].wzyx\n", (i * 7) % n));
    }
    text.push_str("MOV OUT[0], TEMP[0]\nEND\n");
    text
}

/// `n` declared inputs and outputs, every output written from every
/// fourth input.
fn many_declarations(n: usize) -> String {
    let mut text = String::from("VERT\n");
    for i in 0..n {
        text.push_str(&format!("DCL IN[{i}]\nDCL OUT[{i}], GENERIC[{i}]\n"));
    }
    for i in 0..n {
        text.push_str(&format!("MOV OUT[{i}], IN[{}]\n", (i / 4) * 4));
    }
    text.push_str("END\n");
    text
}

#[test]
fn random_programs_and_mutations_of_them() {
    let mut rng = testkit::Rng::new(0x6c1f_2b3a_9d0e_4f57);
    let mut accepted = 0;
    let mut worst = 0u64;
    for seed in 0..60 {
        let words = tokens(&testkit::random_program::program(seed).text);
        let w = work(&words);
        assert!(w.accepted, "seed {seed} is refused");
        within_bounds(&format!("random program {seed}"), w, false);
        worst = worst.max(w.bytes / w.words as u64);
        for round in 0..8 {
            let mut mutated = words.clone();
            for _ in 0..1 + rng.below(4) {
                let at = 2 + rng.index(mutated.len() - 2);
                mutated[at] ^= 1 << rng.below(32);
            }
            // Some streams also get a slice of themselves repeated.
            if round % 2 == 1 {
                let start = 2 + rng.index(mutated.len() - 2);
                let end = (start + 1 + rng.index(40)).min(mutated.len());
                let slice = mutated[start..end].to_vec();
                for _ in 0..1 + rng.below(20) {
                    mutated.splice(start..start, slice.iter().copied());
                }
                let body = (mutated.len() - 2) as u32;
                mutated[0] = (mutated[0] & 0xff) | (body << 8);
            }
            let w = work(&mutated);
            accepted += usize::from(w.accepted);
            // A flipped bit may make a CAL.
            within_bounds(&format!("seed {seed}, mutation {round}"), w, true);
        }
    }
    eprintln!("random programs: at most {worst} bytes allocated per word; {accepted} of 480 mutations accepted");
    assert!(accepted > 20, "the mutations reach past the decoder");
}

/// An adversarial shape: its name, its maker, the sizes to make, and
/// whether it grows up to the budget.
type Shape = (&'static str, fn(usize) -> String, &'static [usize], bool);

/// Each adversarial shape at growing sizes: within the bounds at every
/// size, including past the limits (refused cheaply).
#[test]
fn adversarial_shapes() {
    let shapes: [Shape; 8] = [
        ("doubling call chain", |n| call_chain(n, 2), &[1, 4, 8, 11, 12, 16, 20, 40, 1000], true),
        ("single call chain", |n| call_chain(n, 1), &[1, 10, 30, 62, 63, 64, 200, 2000], true),
        ("nested IFs", nested_ifs, &[1, 8, 16, 32, 64, 65, 1000, 20000], false),
        ("nested loops", nested_loops, &[1, 8, 32, 64, 65, 5000], false),
        ("huge arrays", huge_arrays, &[1, 2, 8, 64, 512], false),
        ("many immediates", many_immediates, &[1, 16, 256, 2048, 16385], false),
        ("many declarations", many_declarations, &[1, 16, 256, 2048, 8193], false),
        ("a TEMP a case", switch_of_writes, &[1, 16, 128, 250, 260, 1000, 4000], true),
    ];
    for (name, make, sizes, grows) in shapes {
        for &n in sizes {
            let text = make(n);
            let words = tokens(&text);
            let w = work(&words);
            eprintln!(
                "{name} {n}: {} words, {} bytes ({} per word), {} IR, {}",
                w.words,
                w.bytes,
                w.bytes / w.words as u64,
                w.ir,
                if w.accepted { "accepted" } else { "refused" }
            );
            within_bounds(&format!("{name} {n}"), w, grows);
        }
    }
}
