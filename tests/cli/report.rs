//! `report`: statistics of a directory of shaders in each form, and
//! comparisons in shader-db's form.

use super::*;

/// A fragment shader: a texture fetch, an IF, two ALU instructions.
const FRAGMENT: &str = "FRAG
DCL IN[0], GENERIC[0], PERSPECTIVE
DCL OUT[0], COLOR
DCL SAMP[0]
DCL TEMP[0..2]
IMM[0] FLT32 {0.5, 1.0, 0.0, 0.0}
  0: TEX TEMP[0], IN[0], SAMP[0], 2D
  1: IF TEMP[0].xxxx :3
  2:   MUL TEMP[0], TEMP[0], IMM[0].xxxx
  3: ENDIF
  4: MOV OUT[0], TEMP[0]
  5: END
";

/// A vertex shader with a loop and an immediate nothing reads.
const VERTEX: &str = "VERT
DCL IN[0]
DCL OUT[0], POSITION
DCL TEMP[0]
DCL TEMP[1]
IMM[0] FLT32 {1.0, 0.0, 0.0, 0.0}
IMM[1] UINT32 {4, 0, 0, 0}
  0: MOV TEMP[0], IN[0]
  1: BGNLOOP
  2:   ADD TEMP[0].x, TEMP[0].xxxx, IMM[0].xxxx
  3:   BRK
  4: ENDLOOP
  5: MOV OUT[0], TEMP[0]
  6: END
";

/// A compute shader with one store.
const COMPUTE: &str = "COMP
DCL BUFFER[0]
DCL TEMP[0]
IMM[0] UINT32 {0, 7, 0, 0}
  0: STORE BUFFER[0].x, IMM[0].xxxx, IMM[0].yyyy
  1: END
";

/// The three shaders in `dir` (one in a subdirectory); returns `dir` as text.
fn three_shaders(dir: &Path) -> String {
    fs::create_dir_all(dir.join("frag")).unwrap();
    fs::write(dir.join("frag/a.tgsi"), FRAGMENT).unwrap();
    fs::write(dir.join("b.tgsi"), VERTEX).unwrap();
    fs::write(dir.join("c.tgsi"), COMPUTE).unwrap();
    fs::write(dir.join("notes.txt"), "not a shader").unwrap();
    // A link back up is not followed.
    std::os::unix::fs::symlink(dir, dir.join("frag/up")).unwrap();
    dir.to_str().unwrap().to_string()
}

#[test]
fn report_counts_a_directory_per_stage_in_every_form() {
    let dir = three_shaders(&scratch_dir("report_forms").join("shaders"));
    let text = success(&["report", &dir], b"");
    assert_eq!(
        text,
        "3 shader(s), 1 VERT, 1 FRAG, 1 COMP

              all  VERT  FRAG  COMP
instructions   12     6     5     1
temps           6     2     3     1
alu             5     3     2     0
texture         1     0     1     0
memory          1     0     0     1
flow            5     3     2     0
immediates      4     2     1     1
loops           1     1     0     0
"
    );
    let csv = success(&["report", "--format", "csv", &dir], b"");
    assert_eq!(
        csv,
        "file,stage,instructions,temps,alu,texture,memory,flow,immediates,loops
b.tgsi,VERT,6,2,3,0,0,3,2,1
c.tgsi,COMP,1,1,0,0,1,0,1,0
frag/a.tgsi,FRAG,5,3,2,1,0,2,1,0
"
    );
    let json = success(&["report", "--format", "json", &dir], b"");
    assert!(json.starts_with("{\n  \"shaders\": [\n    {\"file\": \"b.tgsi\", \"stage\": \"VERT\", \"stats\": {\"instructions\": 6, \"temps\": 2,"), "{json}");
    assert!(json.contains("\n  \"totals\": {\"instructions\": 12, \"temps\": 6, \"alu\": 5, \"texture\": 1, \"memory\": 1, \"flow\": 5, \"immediates\": 4, \"loops\": 1},\n"), "{json}");
    assert!(json.contains("\"COMP\": {\"shaders\": 1, \"totals\": {\"instructions\": 1,"), "{json}");
    // The same with any number of jobs, and for files named one by one.
    assert_eq!(success(&["report", "-j", "1", "--format", "csv", &dir], b""), csv);
    let one = success(&["report", "--format", "csv", &format!("{dir}/b.tgsi")], b"");
    assert_eq!(one.lines().nth(1), Some(format!("{dir}/b.tgsi,VERT,6,2,3,0,0,3,2,1").as_str()));
}

#[test]
fn report_compares_two_pipelines_in_shader_db_form() {
    let dir = three_shaders(&scratch_dir("report_pipelines").join("shaders"));
    let text = success(&["report", "--before=input", "--after=O1", &dir], b"");
    assert_eq!(
        text,
        "total temps in shared programs: 6 -> 2 (-66.67%)
temps in affected programs: 6 -> 2 (-66.67%)
helped: 3
HURT: 0

total immediates in shared programs: 4 -> 3 (-25.00%)
immediates in affected programs: 2 -> 1 (-50.00%)
helped: 1
HURT: 0

unchanged: instructions (12), alu (5), texture (1), memory (1), flow (5), loops (1)

shared programs: 3

most helped (temps):
      -2      3 -> 1      frag/a.tgsi
      -1      2 -> 1      b.tgsi
      -1      1 -> 0      c.tgsi

most helped (immediates):
      -1      2 -> 1      b.tgsi
"
    );
    let csv = success(&["report", "--before=input", "--after=O1", "--format", "csv", &dir], b"");
    assert!(csv.starts_with("file,stage,instructions_before,instructions_after,temps_before,temps_after,"), "{csv}");
    assert!(csv.contains("\nb.tgsi,VERT,6,6,2,1,3,3,0,0,0,0,3,3,2,1,1,1\n"), "{csv}");
    let json = success(&["report", "--before=input", "--after=O1", "--format", "json", &dir], b"");
    assert!(
        json.contains("{\"stat\": \"temps\", \"shared\": [6, 2], \"affected\": [6, 2], \"helped\": 3, \"hurt\": 0}"),
        "{json}"
    );
    assert!(json.ends_with("\"only_before\": [],\n  \"only_after\": []\n}\n"), "{json}");
}

#[test]
fn report_compares_directories_and_saved_reports_alike() {
    let root = scratch_dir("report_dirs");
    let before = three_shaders(&root.join("before"));
    let after = root.join("after");
    let files = [format!("{before}/b.tgsi"), format!("{before}/c.tgsi"), format!("{before}/frag/a.tgsi")];
    let mut args = vec!["opt", "-O", "--out-dir", after.to_str().unwrap()];
    args.extend(files.iter().map(String::as_str));
    success(&args, b"");
    let after = after.to_str().unwrap();
    let by_dirs = success(&["report", "--compare", &before, after], b"");
    assert_eq!(by_dirs, success(&["report", "--before=input", "--after=O1", &before], b""));
    // Reports saved as CSV compare the same, and a CSV may face a directory.
    let (old, new) = (root.join("before.csv"), root.join("after.csv"));
    success(&["report", "--format", "csv", "-o", old.to_str().unwrap(), &before], b"");
    success(&["report", "--format", "csv", "-o", new.to_str().unwrap(), after], b"");
    assert_eq!(success(&["report", "--compare", old.to_str().unwrap(), new.to_str().unwrap()], b""), by_dirs);
    assert_eq!(success(&["report", "--compare", old.to_str().unwrap(), after], b""), by_dirs);
    // Two shaders compare whatever their names.
    let (one, two) = (format!("{before}/b.tgsi"), format!("{after}/b.tgsi"));
    let renamed = root.join("renamed.tgsi");
    fs::copy(&two, &renamed).unwrap();
    let pair = success(&["report", "--compare", &one, renamed.to_str().unwrap()], b"");
    assert!(pair.contains("total temps in shared programs: 2 -> 1 (-50.00%)\n"), "{pair}");
    assert!(pair.contains("shared programs: 1\n"), "{pair}");
    // Shaders only one side has are named.
    fs::remove_file(root.join("after/c.tgsi")).unwrap();
    let text = success(&["report", "--compare", &before, after], b"");
    assert!(text.contains("shared programs: 2\nonly in the first set: 1 (c.tgsi)\n"), "{text}");
}

#[test]
fn report_goes_on_past_a_shader_it_cannot_read() {
    let dir = scratch_dir("report_bad").join("shaders");
    let dir_text = three_shaders(&dir);
    fs::write(dir.join("broken.tgsi"), "FRAG\n  0: MOV OUT[0, IN[0]\n  1: END\n").unwrap();
    let output = run(&["report", "--format", "csv", &dir_text], b"");
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(stdout(&output).lines().count(), 4, "{}", stdout(&output));
    let err = stderr(&output);
    assert!(err.contains("error: expected `]`, found `,`\n --> ") && err.contains("broken.tgsi:2:"), "{err}");
    assert!(err.ends_with("error: 1 of 4 files failed\n"), "{err}");
}

#[test]
fn report_usage_errors() {
    let dir = three_shaders(&scratch_dir("report_usage").join("shaders"));
    for args in [
        vec!["report", "--compare", dir.as_str()],
        vec!["report", "--before=O0", dir.as_str()],
        vec!["report", "--before=O0", "--after=O1", "-O", dir.as_str()],
        vec!["report", "--before=O0", "--after=nosuchpass", dir.as_str()],
        vec!["report"],
    ] {
        let output = run(&args, b"");
        assert_eq!(output.status.code(), Some(2), "{args:?}: {}", stderr(&output));
    }
    let csv = scratch_dir("report_usage").join("bad.csv");
    fs::write(&csv, "file,stage,instructions\na.tgsi,FRAG,many\n").unwrap();
    let output = run(&["report", "--compare", csv.to_str().unwrap(), csv.to_str().unwrap()], b"");
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    assert!(
        err.starts_with("error: cannot read the report `")
            && err.ends_with("bad.csv`: line 2: instructions `many` is not a whole number\n"),
        "{err}"
    );
}
