//! Writing outputs, and reading them back.

use exec::Outputs;

#[test]
fn write_orders_by_lane_then_register_with_kill_last() {
    let mut o = Outputs::new(3, [4, 0, 2]);
    *o.get_mut(2, 0).unwrap() = [1, 0x8000_0000, 0xffff_ffff, 0x3f80_0000];
    *o.get_mut(4, 2).unwrap() = [0xa, 0xb, 0xc, 0xd];
    assert!(o.kill(1));
    assert!(o.kill(2));
    assert!(!o.kill(3), "lane out of range");
    assert!(o.get_mut(1, 0).is_none(), "undeclared register");
    let text = o.write();
    assert_eq!(
        text,
        "output 0 0 0x00000000 0x00000000 0x00000000 0x00000000\n\
         output 2 0 0x00000001 0x80000000 0xffffffff 0x3f800000\n\
         output 4 0 0x00000000 0x00000000 0x00000000 0x00000000\n\
         output 0 1 0x00000000 0x00000000 0x00000000 0x00000000\n\
         output 2 1 0x00000000 0x00000000 0x00000000 0x00000000\n\
         output 4 1 0x00000000 0x00000000 0x00000000 0x00000000\n\
         kill 1\n\
         output 0 2 0x00000000 0x00000000 0x00000000 0x00000000\n\
         output 2 2 0x00000000 0x00000000 0x00000000 0x00000000\n\
         output 4 2 0x0000000a 0x0000000b 0x0000000c 0x0000000d\n\
         kill 2\n"
    );
    let back = Outputs::parse(&text).unwrap();
    assert_eq!(back, o);
    assert_eq!(back.write(), text);
    assert!(back.is_killed(1) && !back.is_killed(0) && !back.is_killed(9));
    assert_eq!(back.get(4, 2), Some([0xa, 0xb, 0xc, 0xd]));
}

#[test]
fn parse_accepts_any_order_comments_and_floats() {
    let text = "# shuffled\nkill 0\noutput 1 1 1 2 3 4\n\noutput 1 0 0x0 0x1 0x2 0x3 # lane 0\n";
    let o = Outputs::parse(text).unwrap();
    assert_eq!(o.invocations(), 2);
    assert_eq!(o.registers(), &[1]);
    assert_eq!(o.get(1, 1), Some([1.0f32.to_bits(), 2.0f32.to_bits(), 3.0f32.to_bits(), 4.0f32.to_bits()]));
    assert_eq!(
        o.write(),
        "output 1 0 0x00000000 0x00000001 0x00000002 0x00000003\nkill 0\n\
         output 1 1 0x3f800000 0x40000000 0x40400000 0x40800000\n"
    );
}

#[test]
fn no_outputs() {
    let o = Outputs::parse("kill 2\n").unwrap();
    assert_eq!((o.invocations(), o.registers().len()), (3, 0));
    assert_eq!(o.write(), "kill 2\n");
    let empty = Outputs::parse("").unwrap();
    assert_eq!(empty.invocations(), 0);
    assert_eq!(empty.write(), "");
    assert_eq!(Outputs::new(4, []).write(), "");
}

#[test]
fn emitted_vertices_write_after_their_lanes_outputs_and_read_back() {
    let mut o = Outputs::new(3, [0, 2]);
    *o.get_mut(2, 0).unwrap() = [1, 2, 3, 4];
    assert!(o.emit(0, 1, &[[5, 6, 7, 8], [9, 10, 11, 12]]));
    assert!(o.end_primitive(0, 1));
    assert!(o.emit(0, 1, &[[13, 0, 0, 0]]), "a missing register is zero");
    assert!(o.end_primitive(0, 0), "an end with no vertex before it");
    assert!(o.emit(2, 3, &[[1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3]]), "an extra register is dropped");
    assert!(o.end_primitive(2, 3));
    assert!(o.end_primitive(2, 3));
    assert!(!o.emit(3, 0, &[]), "lane out of range");
    assert!(!o.emit(0, 4, &[]), "stream out of range");
    assert!(!o.end_primitive(0, 4));
    assert!(o.kill(2));
    let text = o.write();
    assert_eq!(
        text,
        "output 0 0 0x00000000 0x00000000 0x00000000 0x00000000\n\
         output 2 0 0x00000001 0x00000002 0x00000003 0x00000004\n\
         endprim 0 0 0\n\
         emit 0 1 0 0 0x00000005 0x00000006 0x00000007 0x00000008\n\
         emit 0 1 0 2 0x00000009 0x0000000a 0x0000000b 0x0000000c\n\
         endprim 0 1 1\n\
         emit 0 1 1 0 0x0000000d 0x00000000 0x00000000 0x00000000\n\
         emit 0 1 1 2 0x00000000 0x00000000 0x00000000 0x00000000\n\
         output 0 1 0x00000000 0x00000000 0x00000000 0x00000000\n\
         output 2 1 0x00000000 0x00000000 0x00000000 0x00000000\n\
         output 0 2 0x00000000 0x00000000 0x00000000 0x00000000\n\
         output 2 2 0x00000000 0x00000000 0x00000000 0x00000000\n\
         emit 2 3 0 0 0x00000001 0x00000001 0x00000001 0x00000001\n\
         emit 2 3 0 2 0x00000002 0x00000002 0x00000002 0x00000002\n\
         endprim 2 3 1\n\
         endprim 2 3 1\n\
         kill 2\n"
    );
    let back = Outputs::parse(&text).unwrap();
    assert_eq!(back, o);
    assert_eq!(back.write(), text);
    assert_eq!(back.streams(0).collect::<Vec<_>>(), [0, 1]);
    assert_eq!(back.streams(1).count(), 0);
    let s = back.emitted(0, 1).unwrap();
    assert_eq!((s.vertices(), s.primitive_ends()), (2, &[1][..]));
    assert_eq!(s.vertex(1), Some(&[[13, 0, 0, 0], [0; 4]][..]));
    assert_eq!(s.vertex(2), None);
    assert_eq!(back.emitted_output(2, 0, 1, 0), Some([9, 10, 11, 12]));
    assert_eq!(back.emitted_output(1, 0, 1, 0), None, "undeclared register");
    assert_eq!(back.emitted(0, 0).unwrap().vertices(), 0);
    assert!(back.emitted(1, 0).is_none());
}

#[test]
fn emit_lines_parse_in_any_order() {
    let shuffled = "endprim 0 0 2\nemit 0 0 1 0 2 0 0 0\noutput 0 0 0 0 0 0\nendprim 0 0 1\nemit 0 0 0 0 1 0 0 0\n";
    let o = Outputs::parse(shuffled).unwrap();
    assert_eq!(o.emitted(0, 0).unwrap().primitive_ends(), [1, 2]);
    assert_eq!(
        o.write(),
        "output 0 0 0x00000000 0x00000000 0x00000000 0x00000000\n\
         emit 0 0 0 0 0x3f800000 0x00000000 0x00000000 0x00000000\n\
         endprim 0 0 1\n\
         emit 0 0 1 0 0x40000000 0x00000000 0x00000000 0x00000000\n\
         endprim 0 0 2\n"
    );
    // Without OUT registers vertices have no lines; `endprim` still counts them.
    let o = Outputs::parse("endprim 1 0 3\n").unwrap();
    assert_eq!((o.invocations(), o.emitted(1, 0).unwrap().vertices()), (2, 3));
    assert_eq!(o.write(), "endprim 1 0 3\n");
}

#[test]
fn buffer_and_image_contents_are_written_after_the_lanes_and_read_back() {
    let mut o = Outputs::new(1, [0]);
    assert!(o.set_buffer_word(2, 8, 0xabc));
    assert!(o.set_buffer_word(0, 4, 1));
    assert!(o.set_buffer_word(0, 0, 7));
    assert!(o.set_buffer_word(0, 0, 0), "zero words are dropped");
    assert!(!o.set_buffer_word(0, 3, 1), "misaligned");
    o.set_image_texel(1, 2, 0, 1, [1, 2, 3, 4]);
    o.set_image_texel(1, 3, 1, 0, [0, 0, 0, 5]);
    o.set_image_texel(0, 0, 0, 0, [0; 4]);
    o.kill(0);
    let text = o.write();
    assert_eq!(
        text,
        "output 0 0 0x00000000 0x00000000 0x00000000 0x00000000\nkill 0\n\
         bufdata 0 4 0x00000001\nbufdata 2 8 0x00000abc\n\
         imgdata 1 3 1 0 0x00000000 0x00000000 0x00000000 0x00000005\n\
         imgdata 1 2 0 1 0x00000001 0x00000002 0x00000003 0x00000004\n"
    );
    let back = Outputs::parse(&text).unwrap();
    assert_eq!(back, o);
    assert_eq!(back.write(), text);
    assert_eq!((back.buffer_word(2, 8), back.buffer_word(2, 4)), (0xabc, 0));
    assert_eq!(back.image_texel(1, 2, 0, 1), [1, 2, 3, 4]);
    // Several words on one line, as a state writes them, and zeros given
    // explicitly, read as the one-word lines without zeros.
    let o = Outputs::parse("bufdata 1 0 1 0 0x2\nimgdata 0 0 0 0 0 0 0 0\n").unwrap();
    assert_eq!(o.write(), "bufdata 1 0 0x3f800000\nbufdata 1 8 0x00000002\n");
}
