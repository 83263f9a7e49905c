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
