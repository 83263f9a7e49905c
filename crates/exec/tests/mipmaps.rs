//! Mipmapped textures (built with `State::set_texture`) and the render
//! target's sample queries. Every texture here has a colour per level, so
//! the level a lookup read is the colour it got; the expected levels are
//! worked out from the rule in the `sampler` module: level
//! `int(lambda + 0.5)`, clamped, with `lambda = log2(rho)` of the quad's
//! coordinate differences times level 0's size, plus a bias, or the level
//! given.

use exec::{Outputs, RunOptions, State, TextureLevel};

/// The red channel of level `k`'s texels: `k + 1`.
fn level_red(k: u32) -> f32 {
    k as f32 + 1.0
}

/// A `size` x `size` texture (a power of two) with every level down to
/// 1x1, every texel of level `k` `(k + 1, 0, 0, 1)`.
fn levels(size: u32) -> Vec<TextureLevel> {
    let mut levels = Vec::new();
    let (mut s, mut k) = (size, 0);
    loop {
        let texel = [level_red(k).to_bits(), 0, 0, 1.0f32.to_bits()];
        levels.push(TextureLevel { width: s, height: s, texels: vec![texel; (s * s) as usize] });
        if s == 1 {
            return levels;
        }
        (s, k) = (s / 2, k + 1);
    }
}

/// A state of `lanes.len()` lanes with `IN[0]` of lane `l` `lanes[l]`, and
/// a mipmapped 4x4 texture on unit 0.
fn state(lanes: &[[f32; 4]]) -> State {
    let mut state = State::new(lanes.len() as u32).unwrap();
    let column = |c: usize| lanes.iter().map(|v| v[c].to_bits()).collect::<Vec<_>>();
    state.set_input_lanes(0, [column(0), column(1), column(2), column(3)]);
    state.set_texture(0, levels(4)).unwrap();
    state
}

fn run(text: &str, state: &State) -> Outputs {
    let shader = tgsi::parse(text).unwrap_or_else(|e| panic!("{}", e.render(text, "test")));
    let module = ir::from_tgsi(&shader).unwrap();
    exec::run(&module, state, &RunOptions::default()).unwrap()
}

/// The red channel of `OUT[0]` of each lane.
fn reds(out: &Outputs, lanes: u32) -> Vec<f32> {
    (0..lanes).map(|l| f32::from_bits(out.get(0, l).unwrap()[0])).collect()
}

/// One 2x2 quad whose coordinates step by `step` to the right and down
/// (s grows along x, t along y), with `w` in every lane.
fn quad(step: f32, w: f32) -> [[f32; 4]; 4] {
    [[0.0, 0.0, 0.0, w], [step, 0.0, 0.0, w], [0.0, step, 0.0, w], [step, step, 0.0, w]]
}

const TEX: &str = "FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nDCL SAMP[0]\nTEX OUT[0], IN[0], SAMP[0], 2D\nEND\n";

#[test]
fn implicit_lod_follows_the_scale_of_the_quad() {
    // Steps of s (and t) times W = 4: rho 1 -> level 0, 2 -> 1, 4 -> 2,
    // 8 -> clamped to 2; rho 1.4 -> lambda 0.49 -> level 0; 1.5 -> 0.58 ->
    // level 1; a quad that does not move -> -inf -> level 0.
    for (step, level) in [(0.25, 0), (0.5, 1), (1.0, 2), (2.0, 2), (0.35, 0), (0.375, 1), (0.0, 0)] {
        let out = run(TEX, &state(&quad(step, 1.0)));
        assert_eq!(reds(&out, 4), vec![level_red(level); 4], "step {step}");
    }
    // A sampling at scale 2 on a 2-level texture reads level 1.
    let mut two = state(&quad(0.5, 1.0));
    two.set_texture(0, levels(2)).unwrap();
    // W = 2 now: rho 1 -> level 0; twice the step -> level 1.
    assert_eq!(reds(&run(TEX, &two), 4), vec![level_red(0); 4]);
    let mut two = state(&quad(1.0, 1.0));
    two.set_texture(0, levels(2)).unwrap();
    assert_eq!(reds(&run(TEX, &two), 4), vec![level_red(1); 4]);
}

#[test]
fn each_quad_picks_its_own_level() {
    let lanes: Vec<[f32; 4]> = quad(0.25, 1.0).into_iter().chain(quad(1.0, 1.0)).collect();
    let out = run(TEX, &state(&lanes));
    assert_eq!(reds(&out, 8), [[level_red(0); 4], [level_red(2); 4]].concat());
}

#[test]
fn txl_reads_the_level_asked_and_txb_adds_its_bias() {
    let txl = TEX.replace("TEX ", "TXL ");
    // Level int(w + 0.5), clamped to 0..=2; the quad's scale plays no part.
    for (w, level) in [(0.0, 0), (1.0, 1), (2.0, 2), (1.4, 1), (1.6, 2), (5.0, 2), (-1.0, 0), (f32::NAN, 0)] {
        let out = run(&txl, &state(&quad(1.0, w)));
        assert_eq!(reds(&out, 4), vec![level_red(level); 4], "TXL at {w}");
    }
    let txb = TEX.replace("TEX ", "TXB ");
    // rho 1 (lambda 0) plus the bias.
    for (bias, level) in [(0.0, 0), (1.0, 1), (-3.0, 0), (1.7, 2)] {
        let out = run(&txb, &state(&quad(0.25, bias)));
        assert_eq!(reds(&out, 4), vec![level_red(level); 4], "TXB by {bias}");
    }
}

#[test]
fn txd_takes_the_derivatives_given() {
    // IN[1] = (ds/dx, dt/dx), IN[2] = (ds/dy, dt/dy); the quad's own
    // coordinates do not move.
    let txd = "FRAG\nDCL IN[0]\nDCL IN[1]\nDCL IN[2]\nDCL OUT[0], COLOR\nDCL SAMP[0]\n\
               TXD OUT[0], IN[0], IN[1], IN[2], SAMP[0], 2D\nEND\n";
    for (dx, dy, level) in [(0.25, 0.0, 0), (0.0, 0.5, 1), (-1.0, 0.25, 2), (0.0, 0.0, 0)] {
        let mut state = state(&quad(0.0, 1.0));
        state.set_input(1, [dx, 0.0, 0.0, 0.0].map(f32::to_bits));
        state.set_input(2, [0.0, dy, 0.0, 0.0].map(f32::to_bits));
        assert_eq!(reds(&run(txd, &state), 4), vec![level_red(level); 4], "TXD {dx} {dy}");
    }
}

#[test]
fn txq_gives_each_levels_size_and_the_level_count() {
    let txq = "FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nDCL SAMP[0]\nTXQ OUT[0], IN[0], SAMP[0], 2D\nEND\n";
    let lanes: Vec<[f32; 4]> = (0..4).map(|l| [f32::from_bits(l), 0.0, 0.0, 0.0]).collect();
    let out = run(txq, &state(&lanes));
    let sizes: Vec<[u32; 4]> = (0..4).map(|l| out.get(0, l).unwrap()).collect();
    assert_eq!(sizes, [[4, 4, 0, 3], [2, 2, 0, 3], [1, 1, 0, 3], [0, 0, 0, 3]]);
}

#[test]
fn txf_fetches_from_the_level_in_w() {
    let txf = "FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nDCL SAMP[0]\nTXF OUT[0], IN[0], SAMP[0], 2D\nEND\n";
    // (x, y, 0, level) as integers: inside levels 0, 1, 2; (1, 0) is outside
    // level 2; level 3 does not exist.
    let at = |x: u32, y: u32, level: u32| [x, y, 0, level].map(f32::from_bits);
    let lanes = [at(3, 3, 0), at(1, 1, 1), at(0, 0, 2), at(1, 0, 2), at(0, 0, 3)];
    let out = run(txf, &state(&lanes));
    assert_eq!(reds(&out, 5), [level_red(0), level_red(1), level_red(2), 0.0, 0.0]);
}

#[test]
fn vertex_shaders_sample_level_zero() {
    let vs = "VERT\nDCL IN[0]\nDCL OUT[0], GENERIC[0]\nDCL SAMP[0]\nTEX OUT[0], IN[0], SAMP[0], 2D\nEND\n";
    assert_eq!(reds(&run(vs, &state(&quad(2.0, 1.0))), 4), vec![level_red(0); 4]);
}

#[test]
fn one_level_samples_as_a_texsize_texture_does() {
    // Level 0 alone, set in code, against the same texels in text: the
    // same bits whatever the scale, bias or level asked.
    let text_state = "invocations 4\ntexsize 0 2 1\ntexel 0 0 0 1 2 3 4\ntexel 0 1 0 5 6 7 8\n";
    let mut from_text = State::parse(text_state).unwrap();
    let mut in_code = State::new(4).unwrap();
    let texels = vec![[1.0f32, 2.0, 3.0, 4.0].map(f32::to_bits), [5.0f32, 6.0, 7.0, 8.0].map(f32::to_bits)];
    in_code.set_texture(0, vec![TextureLevel { width: 2, height: 1, texels }]).unwrap();
    let lanes = quad(0.75, 3.0);
    let column = |c: usize| lanes.iter().map(|v| v[c].to_bits()).collect::<Vec<_>>();
    for state in [&mut from_text, &mut in_code] {
        state.set_input_lanes(0, [column(0), column(1), column(2), column(3)]);
    }
    for op in ["TEX", "TXL", "TXB", "TXP", "TXQ", "TXF"] {
        let text = TEX.replace("TEX ", &format!("{op} "));
        assert_eq!(run(&text, &in_code).write(), run(&text, &from_text).write(), "{op}");
    }
}

#[test]
fn sample_queries_answer_for_the_render_target_under_per_sample_shading() {
    // SAMPLE_POS of the sample in IN[0].x on the render target, and
    // SAMPLE_INFO of it.
    let text = "FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nDCL OUT[1], COLOR[1]\nDCL TEMP[0]\n\
                SAMPLE_POS OUT[0], TEMP[0], IN[0].xxxx\nSAMPLE_INFO OUT[1], TEMP[0], IN[0].xxxx\nEND\n";
    let lanes: Vec<[f32; 4]> = (0..4).map(|k| [f32::from_bits(k), 0.0, 0.0, 0.0]).collect();
    let mut state = state(&lanes);
    let out = run(text, &state);
    for lane in 0..4 {
        assert_eq!((out.get(0, lane), out.get(1, lane)), (Some([0; 4]), Some([1, 0, 0, 0])), "not per-sample");
    }
    state.set_sample_positions(vec![[0.25, 0.75], [0.875, 0.5], [0.5, 0.125]]);
    let out = run(text, &state);
    let expected = [[0.25f32, 0.75], [0.875, 0.5], [0.5, 0.125]];
    for lane in 0..4u32 {
        let position = match expected.get(lane as usize) {
            Some(&[x, y]) => [x.to_bits(), y.to_bits(), 0, 0],
            None => [0; 4],
        };
        assert_eq!(out.get(0, lane), Some(position), "sample {lane}");
        assert_eq!(out.get(1, lane), Some([3, 0, 0, 0]));
    }
}
