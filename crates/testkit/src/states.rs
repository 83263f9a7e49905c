//! Random input states for any shader, from what its IR declares: what the
//! snapshot suites and the corpus tests run a shader and its transformed
//! or re-emitted form on.
//!
//! ```
//! let shader = tgsi::parse("FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nMOV OUT[0], IN[0]\nEND\n")
//!     .unwrap();
//! let module = ir::from_tgsi(&shader).unwrap();
//! let text = testkit::states::for_module(&module, &mut testkit::Rng::new(1));
//! let state = exec::State::parse(&text).unwrap();
//! assert_eq!(state.invocations(), testkit::states::INVOCATIONS);
//! ```

use std::fmt::Write as _;

use crate::Rng;

/// Invocations in every state: four 2x2 quads.
pub const INVOCATIONS: u32 = 16;

/// Lanes whose inputs differ from the other lanes'.
const EXCEPTION_LANES: [u32; 4] = [1, 6, 11, 15];

/// At most this many registers of one declaration get values.
const MAX_REGISTERS: u16 = 64;

/// Bytes of every buffer a state gives a declared `BUFFER`.
pub const BUFFER_BYTES: u32 = 64;

/// A state for `module` in the state exchange format: [`INVOCATIONS`]
/// invocations, and random values for everything the shader declares:
/// every input and system value set for all lanes and overridden on a
/// few, every constant set, a 2x2 texture with a random sampler on every
/// sampler and sampler view unit, a [`BUFFER_BYTES`]-byte buffer on every
/// buffer unit and a 2x2 image on every image unit. Values are mostly
/// floats in `[-4, 4]` with three decimals, sometimes 0, 1, -1 or 0.5;
/// system values that count (ids, sizes, masks), and one constant or
/// buffer register in three, are small integers.
pub fn for_module(module: &ir::Module, rng: &mut Rng) -> String {
    let mut s = format!("invocations {INVOCATIONS}\n");
    let mut texture_units = Vec::new();
    for item in &module.interface {
        let tgsi::Item::Declaration(d) = item else { continue };
        for i in d.first..=d.last.min(d.first.saturating_add(MAX_REGISTERS - 1)) {
            match d.file {
                tgsi::File::Input => {
                    let _ = writeln!(s, "input {i} * {}", vec4(rng));
                    for lane in EXCEPTION_LANES {
                        let _ = writeln!(s, "input {i} {lane} {}", vec4(rng));
                    }
                }
                tgsi::File::SystemValue => {
                    if let Some(semantic) = d.semantic {
                        system_value(&mut s, semantic.name, rng);
                    }
                }
                tgsi::File::Constant => {
                    let _ = writeln!(s, "const {} {i} {}", d.dimension.unwrap_or(0), any4(rng));
                }
                tgsi::File::Sampler | tgsi::File::SamplerView if !texture_units.contains(&i) => {
                    texture_units.push(i);
                }
                tgsi::File::Buffer => {
                    let words: Vec<String> = (0..BUFFER_BYTES / 16).map(|_| any4(rng)).collect();
                    let _ = writeln!(s, "buffer {i} {BUFFER_BYTES}\nbufdata {i} 0 {}", words.join(" "));
                }
                tgsi::File::Image => {
                    let _ = writeln!(s, "image {i} 2 2");
                    for (x, y) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                        let _ = writeln!(s, "imgdata {i} {x} {y} 0 {}", vec4(rng));
                    }
                }
                _ => {}
            }
        }
    }
    for unit in texture_units {
        let filter = rng.pick(&["nearest", "linear"]);
        let wrap = rng.pick(&["repeat", "clamp"]);
        let _ = writeln!(s, "texsize {unit} 2 2\nsampler {unit} {filter} {wrap}");
        for (x, y) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
            let _ = writeln!(s, "texel {unit} {x} {y} {}", vec4(rng));
        }
    }
    s
}

/// `sysval NAME * ...` and a few lanes of their own: floats for the values
/// that are positions or factors, small integers (0 to 7, as raw bits) for
/// the others.
fn system_value(s: &mut String, name: tgsi::SemanticName, rng: &mut Rng) {
    use tgsi::SemanticName::*;
    let float = matches!(name, Position | Face | SamplePos | TessCoord | TessOuter | TessInner);
    let value = |rng: &mut Rng| if float { vec4(rng) } else { int4(rng) };
    let _ = writeln!(s, "sysval {} * {}", name.name(), value(rng));
    for lane in EXCEPTION_LANES {
        let _ = writeln!(s, "sysval {} {lane} {}", name.name(), value(rng));
    }
}

/// A state value: mostly a float in `[-4, 4]`, sometimes 0, 1, -1 or 0.5.
pub fn value(rng: &mut Rng) -> String {
    if rng.below(8) == 0 {
        rng.pick(&["0", "1", "-1", "0.5"]).to_string()
    } else {
        format!("{:.3}", rng.below(8001) as f32 / 1000.0 - 4.0)
    }
}

/// Four [`value`]s.
fn vec4(rng: &mut Rng) -> String {
    (0..4).map(|_| value(rng)).collect::<Vec<_>>().join(" ")
}

/// Four small integers (0 to 7) as raw bits: loop counts, indices, ids.
fn int4(rng: &mut Rng) -> String {
    (0..4).map(|_| format!("0x{:08x}", rng.below(8))).collect::<Vec<_>>().join(" ")
}

/// A constant or buffer register: one time in three small integers (a
/// shader may count with them), else [`vec4`].
fn any4(rng: &mut Rng) -> String {
    if rng.below(3) == 0 {
        int4(rng)
    } else {
        vec4(rng)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module(text: &str) -> ir::Module {
        ir::from_tgsi(&tgsi::parse(text).expect("parses")).expect("builds")
    }

    #[test]
    fn declared_registers_get_values() {
        let m = module(
            "FRAG\nDCL IN[0..1], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL SAMP[2]\nDCL CONST[1][0..2]\n\
             DCL TEMP[0]\n  0: TEX TEMP[0], IN[0], SAMP[2], 2D\n  1: ADD OUT[0], TEMP[0], CONST[1][2]\n  2: END\n",
        );
        let text = for_module(&m, &mut Rng::new(3));
        let state = exec::State::parse(&text).unwrap_or_else(|e| panic!("{}", e.render(&text, "state")));
        assert_eq!(state.invocations(), INVOCATIONS);
        assert_eq!(state.input_indices().collect::<Vec<_>>(), [0, 1]);
        assert_eq!(state.constants().map(|(k, _)| k).collect::<Vec<_>>(), [(1, 0), (1, 1), (1, 2)]);
        assert!(state.texture(2).is_some() && state.texture(0).is_none());
        assert_eq!(text, for_module(&m, &mut Rng::new(3)));
        assert_ne!(text, for_module(&m, &mut Rng::new(4)));
    }
}
