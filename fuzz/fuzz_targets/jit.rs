//! Arbitrary bytes as a state and a shader (split at the first `@@` line,
//! as `run_shader` reads them): a shader that builds runs compiled by the
//! JIT and in the interpreter, and the two agree bit for bit (outputs,
//! kills, emitted vertices, buffers and images), or both fail with the
//! same kind of error. Slow inputs (`-report_slow_units`) show what
//! compiling costs.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tgsi_opt::exec;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let Some((state, module)) = testkit::fuzz_input::state_and_module(&text) else { return };
    let options = exec::RunOptions { step_budget: 20_000, ..exec::RunOptions::default() };
    let run = |backend| exec::Executable::compile_with(&module, backend).and_then(|e| e.run(&state, &options));
    let (jit, interp) = (run(exec::Backend::Jit), run(exec::Backend::Interpreter));
    match (&jit, &interp) {
        (Ok(a), Ok(b)) => {
            if let Some(d) = a.first_difference(b) {
                panic!("the JIT and the interpreter differ: {d}\n{text}");
            }
            assert_eq!(a, b, "the JIT and the interpreter differ\n{text}");
        }
        (Err(a), Err(b)) if std::mem::discriminant(a) == std::mem::discriminant(b) => {}
        _ => panic!("the JIT gives {:?}, the interpreter {:?}\n{text}", jit.as_ref().err(), interp.as_ref().err()),
    }
});
