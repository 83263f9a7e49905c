//! The C functions, called as C would call them: from Rust through the
//! exported symbols, and from a C program built with the machine's C
//! compiler against `include/tgsi_opt.h` and the static library.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::ptr;

use support::{optimize, print, take_string, words};
use tgsi_opt_capi::abi::{self, Status};

/// A vertex shader with an addition of constants for `-O1` to fold.
const SHADER: &str = "VERT\nDCL IN[0]\nDCL OUT[0], POSITION\nDCL TEMP[0]\nIMM[0] FLT32 { 1.0, 2.0, 0.0, 0.0 }\n\
                      ADD TEMP[0], IMM[0].xxxx, IMM[0].yyyy\nMUL OUT[0], IN[0], TEMP[0]\nEND\n";

#[test]
fn optimizes_and_prints_through_the_c_functions() {
    let (status, optimized, error) = optimize(&words(SHADER), Some("-O1"), None);
    assert_eq!((status, error), (Status::Ok, None));
    let (status, text, _) = print(&optimized);
    assert_eq!(status, Status::Ok);
    let text = text.expect("a printing");
    // The ADD is folded into an immediate the MUL reads.
    assert!(text.contains("MUL OUT[0], IN[0], IMM[0].xxxx"), "{text}");
    assert!(!text.contains("ADD"), "{text}");
    // The same as the Rust functions give.
    assert_eq!(tgsi_opt_capi::optimize(&words(SHADER), None, None).expect("it optimizes"), optimized);
    // With -O0 no pass runs, and the ADD stays.
    let (status, unoptimized, _) = optimize(&words(SHADER), Some("-O0"), None);
    assert_eq!(status, Status::Ok);
    assert!(print(&unoptimized).1.expect("a printing").contains("ADD"));
    // A list of passes, with a target for legalize-doubles.
    let (status, _, error) = optimize(&words(SHADER), Some("constfold, dce,legalize-doubles"), Some("no-fp64"));
    assert_eq!((status, error), (Status::Ok, None));
}

/// A fragment shader whose IF `-O1` turns into selects.
const BRANCHY: &str = "FRAG\nDCL IN[0], GENERIC[0], LINEAR\nDCL OUT[0], COLOR\nDCL TEMP[0..1]\n\
                       IMM[0] FLT32 { 0.5, 1.0, 0.0, 2.0 }\nSLT TEMP[0].x, IN[0].xxxx, IMM[0].xxxx\n\
                       IF TEMP[0].xxxx\nMUL TEMP[1], IN[0], IMM[0].wwww\nELSE\nADD TEMP[1], IN[0], IMM[0].yyyy\n\
                       ENDIF\nMOV OUT[0], TEMP[1]\nEND\n";

#[test]
fn a_target_shapes_what_the_passes_make() {
    let printed = |target| {
        let (status, out, error) = optimize(&words(BRANCHY), None, target);
        assert_eq!((status, error), (Status::Ok, None), "{target:?}");
        print(&out).1.expect("a printing")
    };
    // Without a target the selects are UCMPs; r300 has no integers, and
    // gets float selects on the comparison's 1.0/0.0.
    assert!(printed(None).contains("UCMP"));
    let r300 = printed(Some("r300"));
    assert!(r300.contains("CMP OUT[0], -TEMP[0].xxxx") && !r300.contains("UCMP"), "{r300}");
    // The same as a list of capabilities.
    assert_eq!(printed(Some("INTEGERS=0")), r300);
    // The selects hold both arms: three TEMPs where the input has two. A
    // budget of two is an error naming it.
    let (status, _, error) = optimize(&words(BRANCHY), None, Some("r300,MAX_TEMPS=2"));
    assert_eq!(status, Status::TargetLacks);
    assert!(error.as_deref().is_some_and(|e| e.contains("3 TEMP registers; the target has 2")), "{error:?}");
}

#[test]
fn errors_come_back_as_a_status_and_a_message() {
    let shader = words(SHADER);
    let (status, out, error) = optimize(&shader, Some("constfold,bogus"), None);
    assert_eq!(status, Status::BadPasses);
    assert!(out.is_empty());
    assert!(error.as_deref().is_some_and(|e| e.contains("bogus") && e.contains("dce")), "{error:?}");
    let (status, _, error) = optimize(&shader, Some("legalize-doubles"), None);
    assert_eq!(status, Status::BadPasses, "{error:?}");
    let (status, _, error) = optimize(&shader, None, Some("no-such-target"));
    assert_eq!(status, Status::BadPasses);
    assert!(error.as_deref().is_some_and(|e| e.contains("no-fp64")), "{error:?}");
    // Truncated tokens.
    let (status, _, error) = optimize(&shader[..shader.len() - 2], None, None);
    assert_eq!(status, Status::BadTokens, "{error:?}");
    assert_eq!(print(&shader[..1]).0, Status::BadTokens);
    // Null pointers, with and without a place for the message. Results
    // start as garbage, as a C caller's uninitialized variables would.
    let (mut out, mut count, mut message) = (ptr::dangling_mut(), 7usize, ptr::dangling_mut());
    // SAFETY: null is what is being tested; the other pointers are valid.
    let status =
        unsafe { abi::tgsi_opt_optimize(ptr::null(), 0, ptr::null(), ptr::null(), &mut out, &mut count, &mut message) };
    assert_eq!(status, Status::BadArgument);
    assert_eq!((out, count), (ptr::null_mut(), 0), "results cleared");
    assert!(take_string(message).contains("NULL"));
    // A failing call leaves its results null.
    let (mut out, mut count) = (ptr::dangling_mut(), 7usize);
    let status = unsafe {
        abi::tgsi_opt_optimize(shader.as_ptr(), 1, ptr::null(), ptr::null(), &mut out, &mut count, ptr::null_mut())
    };
    assert_eq!((status, out, count), (Status::BadTokens, ptr::null_mut(), 0));
    let status = unsafe {
        abi::tgsi_opt_optimize(
            shader.as_ptr(),
            shader.len(),
            ptr::null(),
            ptr::null(),
            ptr::null_mut(),
            &mut count,
            ptr::null_mut(),
        )
    };
    assert_eq!(status, Status::BadArgument);
    // Freeing null is a no-op.
    unsafe {
        abi::tgsi_opt_free_tokens(ptr::null_mut(), 0);
        abi::tgsi_opt_free_string(ptr::null_mut());
    }
}

/// Builds the static library, as a driver's build would: `cargo test`
/// makes only the Rust library, and the cargo running the tests holds its
/// own build folder, so this build has one of its own. It names the host
/// as its target, so that `RUSTFLAGS` (a sanitizer, say) reach the library
/// and not the build's own proc-macros, which cannot take a sanitizer.
fn static_library() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("capi-build");
    let host = host_triple();
    let built = Command::new(env!("CARGO"))
        .args(["build", "--quiet", "--lib", "-p", "tgsi-opt-capi", "--target", &host, "--target-dir"])
        .arg(&dir)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo runs");
    assert!(built.status.success(), "{}", String::from_utf8_lossy(&built.stderr));
    dir.join(host).join("debug/libtgsi_opt_capi.a")
}

/// The host's target triple, as `rustc -vV` gives it.
fn host_triple() -> String {
    let out = Command::new("rustc").arg("-vV").output().expect("rustc runs");
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines().find_map(|l| l.strip_prefix("host: ")).expect("rustc -vV names the host").to_string()
}

/// Whether the tests run under AddressSanitizer (`RUSTFLAGS=-Zsanitizer=address`):
/// then the C program is built with it too, which links its runtime.
fn under_address_sanitizer() -> bool {
    ["RUSTFLAGS", "CARGO_ENCODED_RUSTFLAGS"]
        .iter()
        .any(|v| std::env::var(v).is_ok_and(|flags| flags.contains("sanitizer=address")))
}

#[test]
fn a_c_program_links_the_static_library_and_calls_it() {
    let compiler = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    if Command::new(&compiler).arg("--version").output().is_err() {
        eprintln!("skipped: no C compiler `{compiler}`");
        return;
    }
    let library = static_library();
    assert!(library.exists(), "{} was not built", library.display());
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let work = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("capi");
    std::fs::create_dir_all(&work).expect("a work folder");
    let program = work.join("optimize");
    let built = Command::new(&compiler)
        .arg(here.join("tests/c/optimize.c"))
        .arg("-I")
        .arg(here.join("include"))
        .args(["-std=c99", "-Wall", "-Werror"])
        .args(under_address_sanitizer().then_some("-fsanitize=address"))
        .arg("-o")
        .arg(&program)
        .arg(&library)
        // What the Rust standard library needs (`--print native-static-libs`).
        .args(["-lgcc_s", "-lutil", "-lrt", "-lpthread", "-lm", "-ldl", "-lc"])
        .output()
        .expect("the compiler runs");
    assert!(built.status.success(), "{}", String::from_utf8_lossy(&built.stderr));
    let input = work.join("shader.bin");
    let bytes: Vec<u8> = words(SHADER).iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(&input, bytes).expect("the tokens are written");
    let ran = Command::new(&program).arg(&input).output().expect("the program runs");
    let stdout = String::from_utf8_lossy(&ran.stdout);
    assert!(ran.status.success(), "{stdout}{}", String::from_utf8_lossy(&ran.stderr));
    let optimized = tgsi_opt_capi::optimize(&words(SHADER), None, None).expect("it optimizes");
    let expected = tgsi_opt_capi::print(&optimized).expect("it prints");
    let (printed, error_line) = stdout.split_at(expected.len().min(stdout.len()));
    assert_eq!(printed, expected);
    let mut error_lines = error_line.lines();
    let bad_passes = error_lines.next().unwrap_or_default();
    assert!(bad_passes.starts_with("status 4: ") && bad_passes.contains("bogus"), "{error_line}");
    assert_eq!(
        error_lines.next(),
        Some("status 6: limit exceeded: word 18: more than 1 instructions (the limit)"),
        "{error_line}"
    );
}

/// `tgsi_opt_optimize_limited` on `words` with `limits` (null for none).
fn optimize_limited(words: &[u32], limits: Option<&abi::Limits>) -> (Status, usize, Option<String>) {
    let (mut out, mut count, mut error) = (ptr::null_mut(), 0usize, ptr::null_mut());
    // SAFETY: valid pointers for the call's duration.
    let status = unsafe {
        abi::tgsi_opt_optimize_limited(
            words.as_ptr(),
            words.len(),
            ptr::null(),
            ptr::null(),
            limits.map_or(ptr::null(), |l| l as *const abi::Limits),
            &mut out,
            &mut count,
            &mut error,
        )
    };
    // SAFETY: from the library (or null), freed once here.
    unsafe { abi::tgsi_opt_free_tokens(out, count) };
    (status, count, (!error.is_null()).then(|| take_string(error)))
}

/// A shader past a limit comes back as `LIMIT_EXCEEDED` with a located
/// message: the defaults' (a doubling chain of subroutine calls, refused
/// before it is inlined; a SWITCH whose cases would need too many phi
/// arguments) or the caller's.
#[test]
fn limits_come_back_as_their_own_status() {
    let mut lines = vec!["MOV TEMP[0], IN[0]".to_string(), "CAL :4".into(), "MOV OUT[0], TEMP[0]".into(), "END".into()];
    for i in 0..40 {
        let next = 4 + 4 * (i + 1);
        lines.extend(["BGNSUB".into(), format!("CAL :{next}"), format!("CAL :{next}"), "ENDSUB".into()]);
    }
    lines.extend(["BGNSUB".into(), "ADD TEMP[0], TEMP[0], IN[0]".into(), "ENDSUB".into()]);
    let chain = words(&format!("FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nDCL TEMP[0]\n{}\n", lines.join("\n")));
    let (status, _, error) = optimize(&chain, None, None);
    assert_eq!(status, Status::LimitExceeded);
    let error = error.expect("a message");
    assert!(error.starts_with("limit exceeded: instruction 1: this CAL :4 brings the program to"), "{error}");
    // A SWITCH of 300 cases each writing another TEMP: 90,300 phi
    // arguments, past the budget, refused at its ENDSWITCH.
    let (status, _, error) = optimize(&words(&testkit::shapes::switch_of_writes(300)), None, None);
    assert_eq!(status, Status::LimitExceeded);
    let error = error.expect("a message");
    assert!(
        error.starts_with("limit exceeded: instruction 902: the SSA form needs over 77184 phi arguments"),
        "{error}"
    );

    let mut limits = abi::Limits::from(tgsi::Limits::default());
    let (status, count, error) = optimize_limited(&words(SHADER), Some(&limits));
    assert_eq!((status, error), (Status::Ok, None));
    assert!(count > 0);
    limits.max_immediates = 0;
    let (status, count, error) = optimize_limited(&words(SHADER), Some(&limits));
    assert_eq!(status, Status::LimitExceeded);
    assert_eq!(count, 0);
    assert_eq!(error.as_deref(), Some("limit exceeded: word 9: more than 0 immediates (the limit)"));
    let (status, _, _) = optimize_limited(&words(SHADER), None);
    assert_eq!(status, Status::Ok, "null limits are the defaults");
}

#[test]
fn the_default_limits_are_the_library_s() {
    let mut limits = abi::Limits::from(tgsi::Limits { max_nesting: 1, ..Default::default() });
    // SAFETY: a writable struct.
    unsafe { abi::tgsi_opt_default_limits(&mut limits) };
    assert_eq!(tgsi::Limits::from(limits), tgsi::Limits::default());
    // SAFETY: null is allowed.
    unsafe { abi::tgsi_opt_default_limits(ptr::null_mut()) };
}

/// Words with bits flipped: every call ends with a status, and none is
/// `INTERNAL` (a panic caught at the boundary, or a pass breaking the IR).
#[test]
fn mutated_tokens_get_a_status_never_an_internal_error() {
    let shader = words(SHADER);
    let mut rng = testkit::Rng::new(0x2545_f491_4f6c_dd1d);
    let mut seen = std::collections::BTreeMap::new();
    for _ in 0..3000 {
        let mut mutated = shader.clone();
        for _ in 0..1 + rng.below(3) {
            let at = rng.index(mutated.len());
            mutated[at] ^= 1 << rng.below(32);
        }
        let (status, _, error) = optimize(&mutated, Some("-O1"), None);
        assert_ne!(status, Status::Internal, "{mutated:x?}: {error:?}");
        *seen.entry(format!("{status:?}")).or_insert(0) += 1;
    }
    // The mutations reach past the decoder.
    assert!(seen.get("Ok").is_some_and(|&n| n > 100), "{seen:?}");
    assert!(seen.get("BadTokens").is_some_and(|&n| n > 100), "{seen:?}");
}

/// The header's `tgsi_opt_status` values are the Rust `Status` values: the
/// header is written by hand, so this keeps the two from drifting apart.
#[test]
fn the_header_s_status_values_are_the_library_s() {
    let header = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("include/tgsi_opt.h"))
        .expect("the header reads");
    let declared: Vec<(String, i64)> = header
        .lines()
        .filter_map(|line| {
            let (name, value) = line.trim().strip_prefix("TGSI_OPT_")?.split_once(" = ")?;
            Some((name.to_string(), value.trim_end_matches(',').parse().ok()?))
        })
        .collect();
    let library = [
        ("OK", Status::Ok),
        ("BAD_ARGUMENT", Status::BadArgument),
        ("BAD_TOKENS", Status::BadTokens),
        ("UNSUPPORTED", Status::Unsupported),
        ("BAD_PASSES", Status::BadPasses),
        ("INTERNAL", Status::Internal),
        ("LIMIT_EXCEEDED", Status::LimitExceeded),
        ("TARGET_LACKS", Status::TargetLacks),
    ];
    let library: Vec<(String, i64)> = library.iter().map(|(n, s)| (n.to_string(), *s as i64)).collect();
    assert_eq!(declared, library);
}
