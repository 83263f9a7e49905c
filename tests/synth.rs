//! The synthetic shader the benchmarks use is valid TGSI in canonical form.

use testkit::synth::synthetic_shader;
use tgsi_opt::tgsi::{self, tokens, Style};

#[test]
fn synthetic_shader_is_canonical_and_round_trips() {
    let text = synthetic_shader(5000);
    let shader = tgsi::parse(&text).unwrap_or_else(|e| panic!("{}", e.render(&text, "<synthetic>")));
    assert_eq!(shader.instructions().count(), 5000);
    assert_eq!(tgsi::print(&shader, Style::Mesa), text);
    assert_eq!(tgsi::print(&shader, Style::Exact), text);
    let words = tokens::encode(&shader).expect("the synthetic shader encodes");
    assert_eq!(tokens::decode(&words).expect("its tokens decode"), shader);
}
