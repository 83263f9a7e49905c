//! The built-in sampler's filters and wrap modes, run through small
//! fragment shaders. Every expected value is worked out by hand from the
//! formulas (see the `sampler` module): `nearest` takes texel
//! `floor(s * W)`, `linear` weighs texels `floor(u)` and `floor(u) + 1` by
//! `a = u - floor(u)` with `u = s * W - 0.5`, through
//! `lerp(x, y, f) = x + f * (y - x)`.

use exec::{ExecError, Outputs, RunOptions, State};

fn f(x: f32) -> u32 {
    x.to_bits()
}

fn run_with(text: &str, state: &str, lanes: usize) -> Result<Outputs, ExecError> {
    let shader = tgsi::parse(text).unwrap_or_else(|e| panic!("{}", e.render(text, "test")));
    let module = ir::from_tgsi(&shader).unwrap();
    let state = State::parse(state).unwrap_or_else(|e| panic!("{}", e.render(state, "state")));
    exec::run(&module, &state, &RunOptions { lanes, ..RunOptions::default() })
}

/// Runs `text` on `state`; the results do not depend on the batch size.
fn run(text: &str, state: &str) -> Outputs {
    let out = run_with(text, state, 64).unwrap();
    for lanes in [4, 8] {
        assert_eq!(run_with(text, state, lanes).unwrap().write(), out.write(), "{lanes} lanes");
    }
    out
}

/// `OP OUT[k], IN[0], SAMP[k], 2D` for each unit `k` in `0..units`.
fn shader(op: &str, units: u32) -> String {
    let mut text = String::from("FRAG\nDCL IN[0]\n");
    for k in 0..units {
        text += &format!("DCL OUT[{k}], COLOR[{k}]\nDCL SAMP[{k}]\n");
    }
    for k in 0..units {
        text += &format!("{op} OUT[{k}], IN[0], SAMP[{k}], 2D\n");
    }
    text + "END\n"
}

/// A 2x2 texture on `unit`: t00 = (1, 0.5, 0, 1), t10 = (2, 0.25, 0, 1),
/// t01 = (3, 0.75, 0, 1), t11 = (6, 2.5, 0, 1).
fn two_by_two(unit: u32) -> String {
    format!(
        "texsize {unit} 2 2\ntexel {unit} 0 0 1 0.5 0 1\ntexel {unit} 1 0 2 0.25 0 1\n\
         texel {unit} 0 1 3 0.75 0 1\ntexel {unit} 1 1 6 2.5 0 1\n"
    )
}

#[test]
fn linear_at_the_centre_of_a_2x2_texture_is_the_average() {
    // u = 0.5 * 2 - 0.5 = 0.5: columns 0 and 1, a = 0.5; rows likewise.
    // red: lerp(1, 2) = 1.5, lerp(3, 6) = 4.5, lerp(1.5, 4.5) = 3 = (1+2+3+6)/4;
    // green: 0.375, 1.625, then 1 = (0.5+0.25+0.75+2.5)/4. Wrap plays no part.
    let state = format!(
        "invocations 1\ninput 0 * 0.5 0.5 0 0\n{}sampler 0 linear repeat\n{}sampler 1 linear clamp\n",
        two_by_two(0),
        two_by_two(1)
    );
    let out = run(&shader("TEX", 2), &state);
    for unit in 0..2 {
        assert_eq!(out.get(unit, 0), Some([0x4040_0000, 0x3f80_0000, 0, 0x3f80_0000]), "unit {unit}");
    }
}

#[test]
fn linear_at_a_texel_centre_is_that_texel() {
    // s = 0.25 gives u = 0, a = 0; s = 0.75 gives u = 1, a = 0.
    let state = format!(
        "invocations 4\n{}sampler 0 linear repeat\n\
         input 0 0 0.25 0.25 0 0\ninput 0 1 0.75 0.25 0 0\ninput 0 2 0.25 0.75 0 0\ninput 0 3 0.75 0.75 0 0\n",
        two_by_two(0)
    );
    let out = run(&shader("TEX", 1), &state);
    let got: Vec<[u32; 4]> = (0..4).map(|lane| out.get(0, lane).unwrap()).collect();
    let one = f(1.0);
    assert_eq!(
        got,
        [[f(1.0), f(0.5), 0, one], [f(2.0), f(0.25), 0, one], [f(3.0), f(0.75), 0, one], [f(6.0), f(2.5), 0, one],]
    );
}

#[test]
fn clamp_and_repeat_at_both_edges_for_both_filters() {
    // A 4x1 texture with red 1, 2, 4, 8 on units 0 to 3, one sampler each.
    let mut state = String::from("invocations 2\ninput 0 0 -0.25 0.5 0 0\ninput 0 1 1.25 0.5 0 0\n");
    let samplers = ["nearest repeat", "nearest clamp", "linear repeat", "linear clamp"];
    for (unit, sampler) in samplers.iter().enumerate() {
        state += &format!("texsize {unit} 4 1\nsampler {unit} {sampler}\n");
        for (x, red) in [1, 2, 4, 8].iter().enumerate() {
            state += &format!("texel {unit} {x} 0 {red} 0 0 1\n");
        }
    }
    let out = run(&shader("TEX", 4), &state);
    let red = |unit: u32, lane: u32| out.get(unit, lane).unwrap()[0];
    // Nearest: s * 4 is -1 (column 3 repeated, 0 clamped) and 5 (1 or 3).
    assert_eq!((red(0, 0), red(0, 1)), (f(8.0), f(2.0)), "nearest repeat");
    assert_eq!((red(1, 0), red(1, 1)), (f(1.0), f(8.0)), "nearest clamp");
    // Linear: u = -1.5 (columns -2, -1, a = 0.5) and 4.5 (columns 4, 5);
    // t = 0.5 on one row gives v = 0, b = 0.
    assert_eq!((red(2, 0), red(2, 1)), (f(6.0), f(1.5)), "linear repeat: columns 2, 3 and 0, 1");
    assert_eq!((red(3, 0), red(3, 1)), (f(1.0), f(8.0)), "linear clamp: the edge texels");
    for unit in 0..4 {
        assert_eq!(out.get(unit, 0).unwrap()[3], f(1.0), "alpha of unit {unit}");
    }
}

#[test]
fn linear_weights_in_the_documented_order() {
    // Columns 1 and 7 of a 4x1 texture at s = 0.3: u = 0.3 * 4 - 0.5 =
    // 0.70000005 (exact from the f32 0.3), a = u - 0; the result is
    // 1 + a * (7 - 1), rounded after each step.
    let state = "invocations 1\ninput 0 * 0.3 0.5 0 0\ntexsize 0 4 1\nsampler 0 linear clamp\n\
                 texel 0 0 0 1 0 0 0\ntexel 0 1 0 7 0 0 0\n";
    let out = run(&shader("TEX", 1), state);
    let a = 0.3f32 * 4.0 - 0.5;
    let expected = 1.0f32 + a * (7.0 - 1.0);
    assert_eq!(expected.to_bits(), 0x40a6_6667, "4.2000003, worked out by hand");
    // `(1 - a) * x + a * y` rounds to 0x40a66668 here, so the test tells the forms apart.
    assert_ne!(((1.0 - a) * 1.0 + a * 7.0f32).to_bits(), expected.to_bits());
    assert_eq!(out.get(0, 0).unwrap()[0], expected.to_bits());
}

#[test]
fn projected_lookups_divide_before_filtering() {
    // (1, 1) / 2 is the centre of the 2x2 texture; (1, 3) / 4 = (0.25, 0.75)
    // the centre of texel (0, 1).
    let state =
        format!("invocations 2\ninput 0 0 1 1 0 2\ninput 0 1 1 3 0 4\n{}sampler 0 linear clamp\n", two_by_two(0));
    let out = run(&shader("TXP", 1), &state);
    assert_eq!(out.get(0, 0), Some([f(3.0), f(1.0), 0, f(1.0)]));
    assert_eq!(out.get(0, 1), Some([f(3.0), f(0.75), 0, f(1.0)]));
}

#[test]
fn nan_and_infinite_coordinates() {
    // A 3x1 texture, red 1, 2, 3. Nearest takes index -2^31 (C's x86
    // conversion): -2^31 mod 3 = 1 when repeating, 0 when clamping; linear
    // gets a NaN fraction and so NaN in every channel.
    let mut state =
        String::from("invocations 3\ninput 0 0 nan 0.5 0 0\ninput 0 1 0.5 -nan 0 0\ninput 0 2 inf 0.5 0 0\n");
    for (unit, sampler) in ["nearest repeat", "nearest clamp", "linear repeat", "linear clamp"].iter().enumerate() {
        state += &format!(
            "texsize {unit} 3 1\nsampler {unit} {sampler}\ntexel {unit} 0 0 1 0 0 1\n\
             texel {unit} 1 0 2 0 0 1\ntexel {unit} 2 0 3 0 0 1\n"
        );
    }
    let out = run(&shader("TEX", 4), &state);
    let one = f(1.0);
    for lane in [0, 2] {
        assert_eq!(out.get(0, lane), Some([f(2.0), 0, 0, one]), "nearest repeat, lane {lane}");
        assert_eq!(out.get(1, lane), Some([f(1.0), 0, 0, one]), "nearest clamp, lane {lane}");
    }
    // A NaN t on one row: row 0 either way; s = 0.5 is column 1.
    assert_eq!(out.get(0, 1), Some([f(2.0), 0, 0, one]));
    assert_eq!(out.get(1, 1), Some([f(2.0), 0, 0, one]));
    for unit in [2, 3] {
        for lane in 0..3 {
            let got = out.get(unit, lane).unwrap();
            assert!(got.iter().all(|&c| f32::from_bits(c).is_nan()), "unit {unit} lane {lane}: {got:x?}");
        }
    }
}

#[test]
fn the_default_is_nearest_repeat_bit_for_bit() {
    // Off-centre and outside coordinates, with and without an explicit line.
    let inputs = "invocations 4\ninput 0 0 0.1 0.9 0 0\ninput 0 1 -0.3 1.7 0 0\ninput 0 2 2.6 -0.01 0 0\n\
                  input 0 3 0.5 0.25 0 0\n";
    let implicit = run(&shader("TEX", 1), &format!("{inputs}{}", two_by_two(0)));
    let explicit = run(&shader("TEX", 1), &format!("{inputs}{}sampler 0 nearest repeat\n", two_by_two(0)));
    assert_eq!(implicit.write(), explicit.write());
    let red: Vec<u32> = (0..4).map(|lane| implicit.get(0, lane).unwrap()[0]).collect();
    // (0.2, 1.8) -> (0, 1); (-0.6, 3.4) -> (1, 1); (5.2, -0.02) -> (1, 1); (1, 0.5) -> (1, 0).
    assert_eq!(red, [f(3.0), f(6.0), f(6.0), f(2.0)]);
}

#[test]
fn fetches_and_queries_ignore_the_sampler() {
    let text = "FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nDCL OUT[1], COLOR[1]\nDCL SAMP[0]\n\
                TXF OUT[0], IN[0], SAMP[0], 2D\nTXQ OUT[1], IN[0], SAMP[0], 2D\nEND\n";
    let state = format!(
        "invocations 2\ninput 0 0 0x1 0x1 0 0\ninput 0 1 0x2 0x0 0 0\n{}sampler 0 linear clamp\n",
        two_by_two(0)
    );
    let out = run(text, &state);
    assert_eq!(out.get(0, 0), Some([f(6.0), f(2.5), 0, f(1.0)]), "texel (1, 1) as it is");
    assert_eq!(out.get(0, 1), Some([0; 4]), "outside: zero, not clamped");
    assert_eq!(out.get(1, 0), Some([2, 2, 0, 1]));
}

#[test]
fn linear_filters_the_bits_of_integer_texels_as_floats() {
    // 0x1 and 0x3 are the denormals 2^-149 and 3 * 2^-149: halfway is
    // 2 * 2^-149, exactly 0x2.
    let state = "invocations 1\ninput 0 * 0.5 0.5 0 0\ntexsize 0 2 1\nsampler 0 linear repeat\n\
                 texel 0 0 0 0x1 0 0 0\ntexel 0 1 0 0x3 0 0 0\n";
    let out = run(&shader("TEX", 1), state);
    assert_eq!(out.get(0, 0).unwrap()[0], 2);
}
