//! Buffers, images, shared memory, atomics and barriers: hand-written
//! compute and fragment shaders with exact results, and the same results
//! for every batch width and thread count on programs without data races.

use exec::{ExecError, Outputs, RunOptions, State};

fn module(text: &str) -> ir::Module {
    let shader = tgsi::parse(text).unwrap_or_else(|e| panic!("{}", e.render(text, "test")));
    ir::from_tgsi(&shader).unwrap()
}

fn run_with(text: &str, state: &str, lanes: usize, threads: usize) -> Result<Outputs, ExecError> {
    let state = State::parse(state).unwrap_or_else(|e| panic!("{}", e.render(state, "state")));
    exec::run(&module(text), &state, &RunOptions { lanes, threads, ..RunOptions::default() })
}

/// Runs with 64 lanes on one thread, and checks that 4 and 16 lanes and 2
/// threads give the same text.
fn run(text: &str, state: &str) -> Outputs {
    let out = run_with(text, state, 64, 1).unwrap();
    for (lanes, threads) in [(4, 1), (16, 1), (4, 2), (64, 2), (16, 0)] {
        let again = run_with(text, state, lanes, threads).unwrap();
        assert_eq!(again.write(), out.write(), "{lanes} lanes, {threads} threads");
    }
    out
}

#[test]
fn compute_writes_thread_ids_to_an_image_and_a_buffer() {
    // Lane l = x + 4y + 8z writes (x, y, z, l) to texel (x, y) of layer z
    // and (l, l*l) to the words at byte 8l.
    let text =
        "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 4\nPROPERTY CS_FIXED_BLOCK_HEIGHT 2\nPROPERTY CS_FIXED_BLOCK_DEPTH 1\n\
                DCL SV[0], THREAD_ID\nDCL IMAGE[0], 2D_ARRAY, PIPE_FORMAT_R32G32B32A32_UINT, WR\nDCL BUFFER[0]\n\
                DCL TEMP[0..2]\nIMM[0] UINT32 { 4, 8, 1, 0 }\n\
                UMAD TEMP[0].x, SV[0].yyyy, IMM[0].xxxx, SV[0].xxxx\n\
                UMAD TEMP[0].x, SV[0].zzzz, IMM[0].yyyy, TEMP[0].xxxx\n\
                MOV TEMP[1].xyz, SV[0].xyzz\nMOV TEMP[1].w, TEMP[0].xxxx\n\
                STORE IMAGE[0], SV[0], TEMP[1], 2D_ARRAY, PIPE_FORMAT_R32G32B32A32_UINT\n\
                UMUL TEMP[2].x, TEMP[0].xxxx, IMM[0].yyyy\n\
                MOV TEMP[1].x, TEMP[0].xxxx\nUMUL TEMP[1].y, TEMP[0].xxxx, TEMP[0].xxxx\n\
                STORE BUFFER[0].xy, TEMP[2].xxxx, TEMP[1]\nEND\n";
    let out = run(text, "invocations 16\nbuffer 0 128\nimage 0 4 2 2\n");
    for l in 0..16u32 {
        let (x, y, z) = (l % 4, (l / 4) % 2, l / 8);
        assert_eq!(out.image_texel(0, x, y, z), [x, y, z, l], "lane {l}");
        assert_eq!((out.buffer_word(0, 8 * l), out.buffer_word(0, 8 * l + 4)), (l, l * l), "lane {l}");
    }
    // Lane 0 writes only zeros, which are not printed.
    assert_eq!(out.image_texels().count(), 15);
    assert_eq!(out.buffer_words().count(), 30);
    let text = out.write();
    assert!(text.starts_with("bufdata 0 8 0x00000001\nbufdata 0 12 0x00000001\nbufdata 0 16 0x00000002\n"), "{text}");
    assert!(text.ends_with("imgdata 0 3 1 1 0x00000003 0x00000001 0x00000001 0x0000000f\n"), "{text}");
    assert_eq!(Outputs::parse(&text).unwrap().write(), text, "results read back");
}

#[test]
fn an_atomic_counter_hands_every_invocation_its_own_ticket() {
    // 101 invocations: not a whole number of quads or batches.
    let text = "COMP\nDCL BUFFER[0]\nDCL OUT[0]\nDCL TEMP[0]\nIMM[0] UINT32 { 0, 1, 4, 0 }\n\
                ATOMUADD TEMP[0].x, BUFFER[0], IMM[0].zzzz, IMM[0].yyyy\nMOV OUT[0].x, TEMP[0].xxxx\nEND\n";
    let out = run(text, "invocations 101\nbuffer 0 8\nbufdata 0 0 0xdead\n");
    assert_eq!(out.buffer_word(0, 4), 101, "the final count");
    assert_eq!(out.buffer_word(0, 0), 0xdead, "the word before is untouched");
    let mut tickets: Vec<u32> = (0..101).map(|l| out.get(0, l).unwrap()[0]).collect();
    // Lanes run in ascending order, batch by batch: lane l gets l.
    assert_eq!(tickets, (0..101).collect::<Vec<_>>());
    tickets.dedup();
    assert_eq!(tickets.len(), 101, "distinct old values");
}

#[test]
fn every_atomic_returns_the_old_value_and_stores_the_result() {
    // Each lane l applies one operation with operand IN[0].x to the word
    // at byte 4k for k = IN[0].y; lanes apply them in ascending order.
    let ops = [
        ("ATOMUADD", 5, 7, 12),
        ("ATOMXCHG", 5, 7, 7),
        ("ATOMAND", 0b1100, 0b1010, 0b1000),
        ("ATOMOR", 0b1100, 0b1010, 0b1110),
        ("ATOMXOR", 0b1100, 0b1010, 0b0110),
        ("ATOMUMIN", 5, 0xffff_fff0, 5),
        ("ATOMUMAX", 5, 0xffff_fff0, 0xffff_fff0),
        ("ATOMIMIN", 5, 0xffff_fff0, 0xffff_fff0),
        ("ATOMIMAX", 5, 0xffff_fff0, 5),
        ("ATOMFADD", 1.5f32.to_bits(), 2.25f32.to_bits(), 3.75f32.to_bits()),
        ("ATOMINC_WRAP", 3, 3, 0),
        ("ATOMINC_WRAP", 2, 3, 3),
        ("ATOMDEC_WRAP", 3, 5, 2),
        ("ATOMDEC_WRAP", 0, 5, 0),
    ];
    for (op, initial, operand, stored) in ops {
        let text = format!(
            "COMP\nDCL IN[0]\nDCL BUFFER[0]\nDCL OUT[0]\nDCL TEMP[0]\nIMM[0] UINT32 {{ 4, 0, 0, 0 }}\n\
             {op} TEMP[0].xy, BUFFER[0], IMM[0].xxxx, IN[0].xxxx\nMOV OUT[0], TEMP[0]\nEND\n"
        );
        let state = format!("invocations 1\ninput 0 0 0x{operand:x} 0 0 0\nbuffer 0 8\nbufdata 0 4 0x{initial:x}\n");
        let out = run(&text, &state);
        assert_eq!(out.buffer_word(0, 4), stored, "{op} {initial:#x} {operand:#x}");
        assert_eq!(out.get(0, 0), Some([initial, initial, 0, 0]), "{op}: the old value, in .xy");
    }
    // ATOMCAS stores its last operand where the word equals the one before.
    let text = "COMP\nDCL IN[0]\nDCL BUFFER[0]\nDCL OUT[0]\nDCL TEMP[0]\nIMM[0] UINT32 { 0, 0, 0, 0 }\n\
                ATOMCAS TEMP[0].x, BUFFER[0], IMM[0].xxxx, IN[0].xxxx, IN[0].yyyy\nMOV OUT[0].x, TEMP[0].xxxx\nEND\n";
    // Lane 1 finds 7 and swaps in 8; lane 0 (before it) finds 7 too but
    // compares with 6; lane 2 finds 8 and compares with 7.
    let state = "invocations 3\ninput 0 0 0x6 0x9 0 0\ninput 0 1 0x7 0x8 0 0\ninput 0 2 0x7 0xa 0 0\n\
                 buffer 0 4\nbufdata 0 0 0x7\n";
    let out = run(text, state);
    assert_eq!(out.buffer_word(0, 0), 8);
    assert_eq!([0, 1, 2].map(|l| out.get(0, l).unwrap()[0]), [7, 7, 8]);
}

#[test]
fn shared_memory_is_per_work_group_and_a_barrier_orders_it() {
    // Work groups of 8: each lane stores its THREAD_ID.x + 100 * group at
    // byte 4x, counts itself at byte 64, waits, then reads its mirror
    // image's word and the count. THREAD_ID.z is the group here.
    let text =
        "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 8\nPROPERTY CS_FIXED_BLOCK_HEIGHT 1\nPROPERTY CS_FIXED_BLOCK_DEPTH 1\n\
                DCL SV[0], THREAD_ID\nDCL MEMORY[0], SHARED\nDCL OUT[0]\nDCL TEMP[0..2]\n\
                IMM[0] UINT32 { 4, 100, 7, 64 }\nIMM[1] UINT32 { 1, 0, 0, 0 }\n\
                UMUL TEMP[0].x, SV[0].xxxx, IMM[0].xxxx\n\
                UMAD TEMP[1].x, SV[0].zzzz, IMM[0].yyyy, SV[0].xxxx\n\
                STORE MEMORY[0].x, TEMP[0].xxxx, TEMP[1].xxxx\n\
                ATOMUADD TEMP[2].x, MEMORY[0], IMM[0].wwww, IMM[1].xxxx\n\
                BARRIER\n\
                UADD TEMP[0].x, IMM[0].zzzz, -SV[0].xxxx\nUMUL TEMP[0].x, TEMP[0].xxxx, IMM[0].xxxx\n\
                LOAD TEMP[1].x, MEMORY[0], TEMP[0].xxxx\nLOAD TEMP[2].x, MEMORY[0], IMM[0].wwww\n\
                MOV OUT[0].x, TEMP[1].xxxx\nMOV OUT[0].y, TEMP[2].xxxx\nEND\n";
    let out = run(text, "invocations 24\n");
    for l in 0..24u32 {
        let (x, group) = (l % 8, l / 8);
        assert_eq!(out.get(0, l).unwrap()[..2], [(7 - x) + 100 * group, 8], "lane {l}");
    }
    assert_eq!(out.buffer_words().count(), 0, "shared memory is not a result");
}

#[test]
fn barrier_batches_hold_whole_work_groups_of_any_size() {
    // Groups of 3 (not a whole quad): lane x of each group reads what lane
    // 2 - x stored before the barrier.
    let text = "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 3\nPROPERTY CS_FIXED_BLOCK_HEIGHT 1\nPROPERTY CS_FIXED_BLOCK_DEPTH 1\n\
                DCL SV[0], THREAD_ID\nDCL MEMORY[0], SHARED\nDCL OUT[0]\nDCL TEMP[0..1]\nIMM[0] UINT32 { 4, 2, 10, 0 }\n\
                UMUL TEMP[0].x, SV[0].xxxx, IMM[0].xxxx\nUMAD TEMP[1].x, SV[0].zzzz, IMM[0].zzzz, SV[0].xxxx\n\
                STORE MEMORY[0].x, TEMP[0].xxxx, TEMP[1].xxxx\nBARRIER\n\
                UADD TEMP[0].x, IMM[0].yyyy, -SV[0].xxxx\nUMUL TEMP[0].x, TEMP[0].xxxx, IMM[0].xxxx\n\
                LOAD TEMP[1].x, MEMORY[0], TEMP[0].xxxx\nMOV OUT[0].x, TEMP[1].xxxx\nEND\n";
    let out = run(text, "invocations 9\n");
    let got: Vec<u32> = (0..9).map(|l| out.get(0, l).unwrap()[0]).collect();
    assert_eq!(got, [2, 1, 0, 12, 11, 10, 22, 21, 20]);
}

#[test]
fn a_barrier_in_a_work_group_wider_than_a_batch_is_unsupported() {
    let text =
        "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 128\nPROPERTY CS_FIXED_BLOCK_HEIGHT 1\nPROPERTY CS_FIXED_BLOCK_DEPTH 1\n\
                BARRIER\nEND\n";
    let err = run_with(text, "invocations 128\n", 64, 1).unwrap_err();
    assert!(matches!(err, ExecError::Unsupported(_)), "{err}");
    assert!(err.to_string().contains("work group of 128 invocations"), "{err}");
    // A state with fewer invocations than the block has one smaller group.
    run(text, "invocations 64\n");
}

#[test]
fn loads_read_preset_bufdata_and_imgdata() {
    let text = "COMP\nDCL BUFFER[0]\nDCL IMAGE[1], 2D, WR\nDCL OUT[0..3]\nDCL TEMP[0..3]\n\
                IMM[0] UINT32 { 4, 2, 1, 0 }\n\
                LOAD TEMP[0], BUFFER[0], IMM[0].xxxx\n\
                LOAD TEMP[1].xy, BUFFER[0], IMM[0].yyyy\n\
                LOAD TEMP[2].yw, BUFFER[0].wzyx, IMM[0].wwww\n\
                LOAD TEMP[3], IMAGE[1], IMM[0].zzzz, 2D\n\
                MOV OUT[0], TEMP[0]\nMOV OUT[1], TEMP[1]\nMOV OUT[2], TEMP[2]\nMOV OUT[3], TEMP[3]\nEND\n";
    let state = "invocations 1\nbuffer 0 20\nbufdata 0 0 0x11111111 0x44332211 0x88776655 0xccbbaa99 1.5\n\
                 image 1 2 2\nimgdata 1 1 1 0 1 2 3 0xffffffff\n";
    let out = run(text, state);
    assert_eq!(out.get(0, 0), Some([0x4433_2211, 0x8877_6655, 0xccbb_aa99, 1.5f32.to_bits()]));
    // Byte 2: little-endian words straddling two stored words.
    assert_eq!(out.get(1, 0), Some([0x2211_1111, 0x6655_4433, 0, 0]));
    // The resource's swizzle picks the words: .y is word 2, .w word 0.
    assert_eq!(out.get(2, 0), Some([0, 0x8877_6655, 0, 0x1111_1111]));
    assert_eq!(out.get(3, 0), Some([1.0f32.to_bits(), 2.0f32.to_bits(), 3.0f32.to_bits(), 0xffff_ffff]));
    // Nothing was written: the results give the state's contents.
    assert_eq!(out.buffer_words().count(), 5);
    assert_eq!(out.image_texel(1, 1, 1, 0), [1.0f32.to_bits(), 2.0f32.to_bits(), 3.0f32.to_bits(), 0xffff_ffff]);
}

#[test]
fn out_of_bounds_loads_give_zero_and_stores_are_dropped() {
    let text = "COMP\nDCL BUFFER[0]\nDCL BUFFER[1]\nDCL IMAGE[0], 2D, WR\nDCL OUT[0..5]\nDCL TEMP[0..5]\n\
                IMM[0] UINT32 { 4, 8, 2, 3 }\nIMM[1] UINT32 { 7, 9, 4294967292, 1 }\n\
                LOAD TEMP[0].xy, BUFFER[0], IMM[0].xxxx\n\
                LOAD TEMP[1].x, BUFFER[1], IMM[0].xxxx\n\
                LOAD TEMP[2], IMAGE[0], IMM[0].zwww, 2D\n\
                STORE BUFFER[0].xy, IMM[0].xxxx, IMM[1]\n\
                STORE BUFFER[0].x, IMM[1].zzzz, IMM[1]\n\
                STORE BUFFER[1].x, IMM[0].wwww, IMM[1]\n\
                STORE IMAGE[0], IMM[0].wzzz, IMM[1], 2D\n\
                STORE IMAGE[0], IMM[1].wwww, IMM[1], 2D\n\
                ATOMUADD TEMP[3].x, BUFFER[0], IMM[0].yyyy, IMM[1].xxxx\n\
                RESQ TEMP[4], BUFFER[0]\nRESQ TEMP[5], IMAGE[0]\n\
                MOV OUT[0], TEMP[0]\nMOV OUT[1], TEMP[1]\nMOV OUT[2], TEMP[2]\nMOV OUT[3], TEMP[3]\n\
                MOV OUT[4], TEMP[4]\nMOV OUT[5], TEMP[5]\nEND\n";
    let state = "invocations 1\nbuffer 0 8\nbufdata 0 4 0x55\nimage 0 3 2\n";
    let out = run(text, state);
    assert_eq!(out.get(0, 0), Some([0x55, 0, 0, 0]), "the second word is past the end");
    assert_eq!(out.get(1, 0), Some([0; 4]), "no buffer on unit 1");
    assert_eq!(out.get(2, 0), Some([0; 4]), "texel (2, 3) of a 3x2 image");
    assert_eq!(out.get(3, 0), Some([0; 4]), "an atomic past the end");
    assert_eq!(out.get(4, 0), Some([8, 0, 0, 0]), "RESQ of a buffer: its bytes");
    assert_eq!(out.get(5, 0), Some([3, 2, 0, 1]), "RESQ of a 2D image: width, height, -, samples");
    // Only the in-bounds word of the first store, and the texel (1, 1).
    assert_eq!(out.buffer_words().collect::<Vec<_>>(), [(0, 4, 7)]);
    assert_eq!(out.image_texels().collect::<Vec<_>>(), [(0, (1, 1, 0), [7, 9, 0xffff_fffc, 1])]);
}

#[test]
fn killed_fragments_store_nothing_and_fbfetch_reads_zero() {
    let text = "FRAG\nDCL IN[0], GENERIC[0], CONSTANT\nDCL BUFFER[0]\nDCL OUT[0], COLOR\nDCL TEMP[0]\n\
                IMM[0] UINT32 { 4, 0, 0, 0 }\n\
                FBFETCH TEMP[0], OUT[0]\nMOV OUT[0], TEMP[0]\n\
                KILL_IF IN[0].xxxx\nF2U TEMP[0].x, IN[0].yyyy\nUMUL TEMP[0].x, TEMP[0].xxxx, IMM[0].xxxx\n\
                STORE BUFFER[0].x, TEMP[0].xxxx, IN[0].yyyy\nEND\n";
    let state = "invocations 4\ninput 0 * 1 0 0 0\ninput 0 1 1 1 0 0\ninput 0 2 -1 2 0 0\ninput 0 3 1 3 0 0\n\
                 buffer 0 16\n";
    let out = run(text, state);
    assert!(out.is_killed(2));
    assert_eq!(out.buffer_word(0, 4), 1.0f32.to_bits());
    assert_eq!(out.buffer_word(0, 8), 0, "lane 2 was killed before its store");
    assert_eq!(out.buffer_word(0, 12), 3.0f32.to_bits());
    assert_eq!(out.get(0, 0), Some([0; 4]), "no framebuffer: FBFETCH gives zeros");
}

#[test]
fn image_targets_pick_their_address_channels() {
    // 1D_ARRAY: column x, layer y. The declared format is not converted.
    let text = "COMP\nDCL IMAGE[0], 1D_ARRAY, PIPE_FORMAT_R8_UNORM, WR\nDCL OUT[0..1]\nDCL TEMP[0..1]\n\
                IMM[0] UINT32 { 1, 2, 0, 0 }\nIMM[1] FLT32 { 2.5, -1, 0, 7 }\n\
                STORE IMAGE[0], IMM[0], IMM[1], 1D_ARRAY, PIPE_FORMAT_R8_UNORM\n\
                LOAD TEMP[0], IMAGE[0], IMM[0], 1D_ARRAY, PIPE_FORMAT_R8_UNORM\nRESQ TEMP[1], IMAGE[0]\n\
                MOV OUT[0], TEMP[0]\nMOV OUT[1], TEMP[1]\nEND\n";
    let out = run(text, "invocations 1\nimage 0 4 1 3\n");
    let stored = [2.5f32.to_bits(), (-1.0f32).to_bits(), 0, 7.0f32.to_bits()];
    assert_eq!(out.image_texel(0, 1, 0, 2), stored);
    assert_eq!(out.get(0, 0), Some(stored));
    assert_eq!(out.get(1, 0), Some([4, 3, 0, 1]), "RESQ of a 1D array: width, layers");
}

#[test]
fn memory_other_than_shared_is_unsupported() {
    let text = "COMP\nDCL MEMORY[0]\nDCL TEMP[0]\nIMM[0] UINT32 { 0, 0, 0, 0 }\n\
                LOAD TEMP[0].x, MEMORY[0], IMM[0].xxxx\nEND\n";
    let err = run_with(text, "invocations 1\n", 64, 1).unwrap_err();
    assert!(matches!(err, ExecError::Unsupported(_)), "{err}");
}

#[test]
fn racing_stores_land_in_invocation_order() {
    // Every lane stores its index to one word: the last invocation wins,
    // whatever the batch width or thread count.
    let text = "COMP\nDCL SV[0], THREAD_ID\nDCL BUFFER[0]\nIMM[0] UINT32 { 0, 0, 0, 0 }\n\
                STORE BUFFER[0].x, IMM[0].xxxx, SV[0].xxxx\nEND\n";
    let out = run(text, "invocations 77\nbuffer 0 4\n");
    assert_eq!(out.buffer_word(0, 0), 76);
}

#[test]
fn a_shader_without_memory_steps_gives_back_the_state_s_buffers_and_images() {
    // The run lays out memory for the state's contents alone.
    let text = "VERT\nDCL IN[0]\nDCL OUT[0], POSITION\nMOV OUT[0], IN[0]\nEND\n";
    let state =
        "invocations 5\ninput 0 * 1 2 3 4\nbuffer 2 16\nbufdata 2 4 7 0x8\nimage 1 2 1\nimgdata 1 1 0 0 5 6 7 8\n";
    let out = run(text, state);
    assert_eq!(out.get(0, 4), Some([1.0f32, 2.0, 3.0, 4.0].map(f32::to_bits)));
    assert_eq!((out.buffer_word(2, 4), out.buffer_word(2, 8)), (7f32.to_bits(), 8));
    assert_eq!(out.buffer_words().count(), 2);
    assert_eq!(out.image_texel(1, 1, 0, 0), [5f32, 6.0, 7.0, 8.0].map(f32::to_bits));
    assert_eq!(out.image_texels().count(), 1);
    // With neither, nothing about memory is printed.
    let out = run(text, "invocations 5\ninput 0 * 1 2 3 4\n");
    assert_eq!((out.buffer_words().count(), out.image_texels().count()), (0, 0));
}
