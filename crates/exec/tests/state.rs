//! Hand-written states: every directive, comments, the order of lines, and
//! the values the accessors answer.

use exec::{Filter, Sampler, State, Texture, Wrap};
use tgsi::SemanticName;

fn f(x: f32) -> u32 {
    x.to_bits()
}

fn v(x: f32, y: f32, z: f32, w: f32) -> [u32; 4] {
    [f(x), f(y), f(z), f(w)]
}

const EVERY_DIRECTIVE: &str = "\
# a state with every directive
invocations 4      # four lanes, one quad

const 0 0 1 2 3 4
const 1 7 0x3f800000 0x0 0xFFFFFFFF 0x7fc00001
input 0 * 0.5 -0.5 1e-3 -2
input 0 2 inf -inf nan 0x00000001
input 3 1 1 1 1 1
texsize 2 4 2
texel 2 3 1 0.25 0.5 0.75 1
texel 2 0 0 1 1 1 1
sampler 2 linear clamp
sampler 5 nearest clamp   # a sampler on a unit with no texture
sysval THREAD_ID * 1 2 3 0
sysval thread_id 3 9 9 9 9
sysval VERTEXID 0 7 0 0 0
";

#[test]
fn every_directive() {
    let s = State::parse(EVERY_DIRECTIVE).unwrap();
    assert_eq!(s.invocations(), 4);

    assert_eq!(s.constant(0, 0), v(1.0, 2.0, 3.0, 4.0));
    assert_eq!(s.constant(1, 7), [0x3f80_0000, 0, 0xffff_ffff, 0x7fc0_0001]);
    assert_eq!(s.constant(0, 1), [0; 4], "unset constants are zero");
    assert_eq!(s.constant(1, 0), [0; 4]);
    assert_eq!(s.constants().count(), 2);

    for lane in [0, 1, 3] {
        assert_eq!(s.input(0, lane), v(0.5, -0.5, 1e-3, -2.0));
    }
    assert_eq!(s.input(0, 2), [0x7f80_0000, 0xff80_0000, 0x7fc0_0000, 1]);
    assert_eq!(s.input(3, 1), v(1.0, 1.0, 1.0, 1.0));
    assert_eq!(s.input(3, 0), [0; 4], "a lane no line sets is zero");
    assert_eq!(s.input(1, 0), [0; 4], "an unset register is zero");
    assert_eq!(s.input(0, 4), [0; 4], "lanes beyond invocations are zero");
    assert_eq!(s.input_indices().collect::<Vec<_>>(), vec![0, 3]);

    let t: &Texture = s.texture(2).unwrap();
    assert_eq!((t.width(), t.height()), (4, 2));
    assert_eq!(t.texel(3, 1), v(0.25, 0.5, 0.75, 1.0));
    assert_eq!(t.texel(0, 0), v(1.0, 1.0, 1.0, 1.0));
    assert_eq!(t.texel(1, 1), [0; 4], "unset texels are zero");
    assert_eq!(t.texel(4, 0), [0; 4], "texels outside are zero");
    assert!(s.texture(0).is_none());
    assert_eq!(t.sampler(), Sampler { filter: Filter::Linear, wrap: Wrap::Clamp });
    assert_eq!(s.sampler(2), t.sampler());
    assert_eq!(s.sampler(5), Sampler { filter: Filter::Nearest, wrap: Wrap::Clamp });
    assert_eq!(s.sampler(0), Sampler::default(), "no line: the default");

    assert_eq!(s.sysval(SemanticName::ThreadId, 0), Some([f(1.0), f(2.0), f(3.0), 0]));
    assert_eq!(s.sysval(SemanticName::ThreadId, 3), Some(v(9.0, 9.0, 9.0, 9.0)), "names ignore case");
    assert_eq!(s.sysval(SemanticName::VertexId, 0), Some([f(7.0), 0, 0, 0]));
    assert_eq!(s.sysval(SemanticName::VertexId, 1), None, "no line for this lane");
    assert_eq!(s.sysval(SemanticName::BlockSize, 0), None);
    assert_eq!(s.sysval(SemanticName::ThreadId, 4), None, "lanes beyond invocations");

    assert_eq!(EVERY_DIRECTIVE.parse::<State>(), Ok(s));
}

#[test]
fn later_lines_override_earlier_ones() {
    let s = State::parse(
        "invocations 4\n\
         input 0 1 1 1 1 1\n\
         input 0 * 2 2 2 2\n\
         input 0 3 3 3 3 3\n\
         input 0 3 4 4 4 4\n\
         input 1 * 5 5 5 5\n\
         input 1 2 6 6 6 6\n\
         input 1 * 7 7 7 7\n\
         input 1 0 8 8 8 8\n\
         const 0 0 1 1 1 1\n\
         const 0 0 2 2 2 2\n\
         texsize 0 1 1\n\
         texel 0 0 0 1 1 1 1\n\
         texel 0 0 0 2 2 2 2\n\
         sysval THREAD_ID 0 1 1 1 1\n\
         sysval THREAD_ID * 2 2 2 2\n",
    )
    .unwrap();
    let two = v(2.0, 2.0, 2.0, 2.0);
    // A `*` line replaces the per-lane line before it; later per-lane lines win.
    assert_eq!(s.input(0, 0), two);
    assert_eq!(s.input(0, 1), two);
    assert_eq!(s.input(0, 2), two);
    assert_eq!(s.input(0, 3), v(4.0, 4.0, 4.0, 4.0));
    // A later `*` line replaces earlier per-lane exceptions too.
    assert_eq!(s.input(1, 0), v(8.0, 8.0, 8.0, 8.0));
    assert_eq!(s.input(1, 2), v(7.0, 7.0, 7.0, 7.0));
    assert_eq!(s.input(1, 3), v(7.0, 7.0, 7.0, 7.0));
    assert_eq!(s.constant(0, 0), two);
    assert_eq!(s.texture(0).unwrap().texel(0, 0), two);
    assert_eq!(s.sysval(SemanticName::ThreadId, 0), Some(two));
}

#[test]
fn comments_blank_lines_and_line_ends() {
    let s =
        State::parse("#only a comment\n\n   \t\r\ninvocations 1#comment\r\ninput 0 0 1 2 3 4 # x y z w\r\n#").unwrap();
    assert_eq!(s.input(0, 0), v(1.0, 2.0, 3.0, 4.0));
}

#[test]
fn values_are_kept_as_bits() {
    let s = State::parse(
        "invocations 1\n\
         const 0 0 0x7f800001 0xffc00000 0x80000000 0x00000000\n\
         const 0 1 -0 1.5 -2 1e-3\n\
         const 0 2 inf -inf nan -nan\n\
         const 0 3 0.1 16777217 1e39 1e-46\n",
    )
    .unwrap();
    assert_eq!(s.constant(0, 0), [0x7f80_0001, 0xffc0_0000, 0x8000_0000, 0]);
    assert_eq!(s.constant(0, 1), [0x8000_0000, 0x3fc0_0000, 0xc000_0000, 0x3a83_126f]);
    assert_eq!(s.constant(0, 2), [0x7f80_0000, 0xff80_0000, 0x7fc0_0000, 0xffc0_0000]);
    // Decimal text is rounded once, to the nearest f32.
    assert_eq!(s.constant(0, 3), [0x3dcc_cccd, 0x4b80_0000, 0x7f80_0000, 0]);
}

#[test]
fn limits_are_accepted() {
    let s = State::parse(
        "invocations 16777216\ninput 0 16777215 1 1 1 1\ntexsize 0 8192 8192\ntexel 0 8191 8191 1 1 1 1\n",
    )
    .unwrap();
    assert_eq!(s.invocations(), 1 << 24);
    assert_eq!(s.input(0, (1 << 24) - 1), v(1.0, 1.0, 1.0, 1.0));
    assert_eq!(s.texture(0).unwrap().texel(8191, 8191), v(1.0, 1.0, 1.0, 1.0));
}

#[test]
fn samplers_default_to_nearest_repeat_and_may_come_before_or_after_texsize() {
    let default = Sampler::default();
    assert_eq!(default, Sampler { filter: Filter::Nearest, wrap: Wrap::Repeat });
    let s = State::parse(
        "invocations 1\n\
         sampler 0 linear repeat\n\
         texsize 0 2 2\n\
         texsize 1 2 2\n\
         sampler 1 nearest clamp\n\
         texsize 2 2 2\n\
         sampler 3 linear clamp\n",
    )
    .unwrap();
    let sampler = |unit| s.texture(unit).unwrap().sampler();
    assert_eq!(sampler(0), Sampler { filter: Filter::Linear, wrap: Wrap::Repeat }, "before texsize");
    assert_eq!(sampler(1), Sampler { filter: Filter::Nearest, wrap: Wrap::Clamp }, "after texsize");
    assert_eq!(sampler(2), default, "no sampler line");
    assert_eq!(s.sampler(3), Sampler { filter: Filter::Linear, wrap: Wrap::Clamp }, "no texture on the unit");
    assert!(s.texture(3).is_none(), "a sampler alone binds no texture");
    // An explicit default is the same state as none.
    assert_eq!(
        State::parse("invocations 1\ntexsize 0 1 1\nsampler 0 nearest repeat\n").unwrap().texture(0),
        State::parse("invocations 1\ntexsize 0 1 1\n").unwrap().texture(0)
    );
}

#[test]
fn vertex_inputs_override_per_lane_and_fall_back_to_plain_inputs() {
    let s = State::parse(
        "invocations 3\n\
         input 0 * 1 1 1 1\n\
         input 0 2 2 2 2 2\n\
         vinput 1 0 0 9 9 9 9\n\
         vinput 1 0 * 3 3 3 3\n\
         vinput 1 0 1 4 4 4 4\n\
         vinput 2 5 2 0x1 0x2 0x3 0x4 # a register no `input` line sets\n",
    )
    .unwrap();
    let one = v(1.0, 1.0, 1.0, 1.0);
    // A later `*` line replaces the lane-0 line before it.
    assert_eq!(s.vertex_input(1, 0, 0), v(3.0, 3.0, 3.0, 3.0));
    assert_eq!(s.vertex_input(1, 0, 1), v(4.0, 4.0, 4.0, 4.0));
    assert_eq!(s.vertex_input(1, 0, 2), v(3.0, 3.0, 3.0, 3.0));
    // No `vinput` for (0, 0): the plain input of each lane.
    assert_eq!(s.vertex_input(0, 0, 0), one);
    assert_eq!(s.vertex_input(0, 0, 2), v(2.0, 2.0, 2.0, 2.0));
    // Set for lane 2 only: the other lanes fall back, to zero here.
    assert_eq!(s.vertex_input(2, 5, 2), [1, 2, 3, 4]);
    assert_eq!(s.vertex_input(2, 5, 1), [0; 4]);
    assert_eq!(s.vertex_input(1, 0, 3), [0; 4], "lanes beyond invocations are zero");
    assert_eq!(s.vertex_input_indices().collect::<Vec<_>>(), vec![(1, 0), (2, 5)]);
    // A `vinput` line does not change the 1-D input.
    assert_eq!(s.input(0, 0), one);
    assert_eq!(s.input_indices().collect::<Vec<_>>(), vec![0]);
}

#[test]
fn buffers_and_images() {
    let s = State::parse(
        "invocations 1\nbuffer 3 16\nbufdata 3 4 1.5 0xdeadbeef\nbufdata 3 8 7\nbuffer 0 0\n\
         image 2 4 2\nimage 1 2 2 3\nimgdata 1 1 0 2 1 2 3 4\nimgdata 1 1 0 2 0x5 0 0 0\n",
    )
    .unwrap();
    let b = s.buffer(3).unwrap();
    assert_eq!(b.size(), 16);
    assert_eq!([0, 4, 8, 12].map(|o| b.word(o)), [0, f(1.5), f(7.0), 0], "later lines win");
    assert_eq!(b.words().collect::<Vec<_>>(), [(4, f(1.5)), (8, f(7.0))]);
    assert_eq!(s.buffer(0).unwrap().size(), 0, "an empty buffer");
    assert!(s.buffer(1).is_none());
    assert_eq!(s.buffers().map(|(u, _)| u).collect::<Vec<_>>(), [0, 3]);
    let i = s.image(2).unwrap();
    assert_eq!((i.width(), i.height(), i.layers()), (4, 2, 1), "one layer by default");
    let i = s.image(1).unwrap();
    assert_eq!((i.width(), i.height(), i.layers()), (2, 2, 3));
    assert_eq!(i.texel(1, 0, 2), [5, 0, 0, 0]);
    assert_eq!(i.texel(1, 0, 1), [0; 4]);
    assert_eq!(i.texels().collect::<Vec<_>>(), [((1, 0, 2), [5, 0, 0, 0])]);
    assert!(s.image(0).is_none());
}
