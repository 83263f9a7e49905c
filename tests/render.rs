//! `tgsi-opt render`: each of the founding text's fragment conventions
//! checked on pixel values computed here from the convention, on PNGs read
//! back with the `png` crate (no image goldens).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A fresh directory for one test's files.
fn scratch_dir(test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("render").join(test);
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).expect("creating a scratch directory");
    dir
}

/// Runs `tgsi-opt render` on `shader` (written to DIR/fs.tgsi) with
/// `args`, writing DIR/out.png.
fn render(dir: &Path, shader: &str, args: &[&str]) -> Output {
    let shader_path = dir.join("fs.tgsi");
    fs::write(&shader_path, shader).expect("writing the shader");
    let out = dir.join("out.png");
    let output = Command::new(env!("CARGO_BIN_EXE_tgsi-opt"))
        .arg("render")
        .arg(&shader_path)
        .arg("-o")
        .arg(&out)
        .args(args)
        .output()
        .expect("running tgsi-opt");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked"), "render {args:?} panicked:\n{stderr}");
    output
}

fn render_ok(dir: &Path, shader: &str, args: &[&str]) {
    let output = render(dir, shader, args);
    assert!(output.status.success(), "render {args:?} failed:\n{}", String::from_utf8_lossy(&output.stderr));
}

/// An RGBA8 image read back from a PNG: width, height, pixels by row from
/// the top.
struct Picture {
    width: u32,
    height: u32,
    rgba: Vec<u8>,
}

impl Picture {
    fn read(path: &Path) -> Picture {
        let file = fs::File::open(path).unwrap_or_else(|e| panic!("opening {}: {e}", path.display()));
        let mut reader = png::Decoder::new(std::io::BufReader::new(file)).read_info().expect("a PNG header");
        let mut rgba = vec![0; reader.output_buffer_size().expect("a size")];
        let info = reader.next_frame(&mut rgba).expect("the PNG's pixels");
        assert_eq!((info.color_type, info.bit_depth), (png::ColorType::Rgba, png::BitDepth::Eight));
        rgba.truncate(info.buffer_size());
        Picture { width: info.width, height: info.height, rgba }
    }

    fn pixel(&self, x: u32, y: u32) -> [u8; 4] {
        let at = (y * self.width + x) as usize * 4;
        self.rgba[at..at + 4].try_into().expect("four bytes")
    }

    /// Asserts every pixel is `expected(x, row)`.
    fn assert_pixels(&self, what: &str, expected: impl Fn(u32, u32) -> [u8; 4]) {
        for y in 0..self.height {
            for x in 0..self.width {
                assert_eq!(self.pixel(x, y), expected(x, y), "{what}: pixel ({x}, {y})");
            }
        }
    }
}

/// The conversion the command promises: clamp to [0, 1], times 255,
/// round to nearest; NaN is 0.
fn to_u8(value: f32) -> u8 {
    match value {
        v if v.is_nan() => 0,
        v => (v.clamp(0.0, 1.0) * 255.0).round() as u8,
    }
}

/// A shader writing (POSITION.x / W, POSITION.y / H, POSITION.z, POSITION.w)
/// under the given properties.
fn position_shader(properties: &str, width: u32, height: u32) -> String {
    format!(
        "FRAG\n{properties}DCL IN[0], POSITION, LINEAR\nDCL OUT[0], COLOR\n\
         IMM[0] FLT32 {{ {}, {}, 1.0, 1.0 }}\nMUL OUT[0], IN[0], IMM[0]\nEND\n",
        1.0 / width as f32,
        1.0 / height as f32
    )
}

#[test]
fn position_follows_origin_and_pixel_centre() {
    let dir = scratch_dir("position");
    // Odd sizes: quads over the right and bottom edges run but are not drawn.
    let (width, height) = (7u32, 5u32);
    for (origin, centre) in [("UPPER_LEFT", 0.5f32), ("LOWER_LEFT", 0.5), ("UPPER_LEFT", 0.0), ("LOWER_LEFT", 0.0)] {
        let pixel_centre = if centre == 0.5 { "HALF_INTEGER" } else { "INTEGER" };
        let properties = format!("PROPERTY FS_COORD_ORIGIN {origin}\nPROPERTY FS_COORD_PIXEL_CENTER {pixel_centre}\n");
        render_ok(&dir, &position_shader(&properties, width, height), &["--size", "7x5", "--z", "0.25", "--w", "0.75"]);
        let picture = Picture::read(&dir.join("out.png"));
        assert_eq!((picture.width, picture.height), (width, height));
        let (sx, sy) = (1.0 / width as f32, 1.0 / height as f32);
        picture.assert_pixels(&format!("{origin} {pixel_centre}"), |x, row| {
            // UPPER_LEFT: y grows downwards from the top row; LOWER_LEFT:
            // upwards from the bottom row.
            let y = if origin == "UPPER_LEFT" { row } else { height - 1 - row };
            [to_u8((x as f32 + centre) * sx), to_u8((y as f32 + centre) * sy), to_u8(0.25), to_u8(0.75)]
        });
    }
}

#[test]
fn default_properties_are_upper_left_half_integer() {
    let dir = scratch_dir("position_default");
    render_ok(&dir, &position_shader("", 4, 4), &["--size", "4x4"]);
    let picture = Picture::read(&dir.join("out.png"));
    picture.assert_pixels("defaults", |x, y| {
        [to_u8((x as f32 + 0.5) / 4.0), to_u8((y as f32 + 0.5) / 4.0), to_u8(0.5), 255]
    });
    // Row 0 of the PNG is the top row: the darkest green.
    assert!(picture.pixel(0, 0)[1] < picture.pixel(0, 3)[1]);
}

#[test]
fn quads_give_derivatives_to_the_right_and_down() {
    let dir = scratch_dir("derivatives");
    // (DDX(x), DDY(y)) * 0.25 + 0.5: 1 to the right; +1 downwards under
    // UPPER_LEFT, -1 under LOWER_LEFT, where y grows upwards.
    for (origin, ddy) in [("UPPER_LEFT", 1.0f32), ("LOWER_LEFT", -1.0)] {
        let shader = format!(
            "FRAG\nPROPERTY FS_COORD_ORIGIN {origin}\nDCL IN[0], POSITION, LINEAR\nDCL OUT[0], COLOR\n\
             DCL TEMP[0]\nIMM[0] FLT32 {{ 0.25, 0.5, 1.0, 0.0 }}\nDDX TEMP[0].x, IN[0].xxxx\n\
             DDY TEMP[0].y, IN[0].yyyy\nMAD OUT[0].xy, TEMP[0].xyyy, IMM[0].xxxx, IMM[0].yyyy\n\
             MOV OUT[0].zw, IMM[0].wwwz\nEND\n"
        );
        render_ok(&dir, &shader, &["--size", "6x4"]);
        Picture::read(&dir.join("out.png"))
            .assert_pixels(origin, |_, _| [to_u8(0.75), to_u8(ddy * 0.25 + 0.5), 0, 255]);
    }
}

#[test]
fn face_input_and_system_value_say_front_or_back() {
    let dir = scratch_dir("face");
    // The input is +1 or -1 in x; the system value ~0 or 0.
    let input = "FRAG\nDCL IN[0], FACE, CONSTANT\nDCL OUT[0], COLOR\nIMM[0] FLT32 { 0.5, 0.5, 0.0, 1.0 }\n\
                 MAD OUT[0].x, IN[0].xxxx, IMM[0].xxxx, IMM[0].yyyy\nMOV OUT[0].yzw, IN[0].yyzw\nEND\n";
    let sysval = "FRAG\nDCL SV[0], FACE\nDCL OUT[0], COLOR\nIMM[0] FLT32 { 1.0, 0.0, 0.0, 1.0 }\n\
                  UCMP OUT[0], SV[0].xxxx, IMM[0].xyzw, IMM[0].yxzw\nEND\n";
    for (face, red) in [("front", 255), ("back", 0)] {
        render_ok(&dir, input, &["--size", "3x2", "--face", face]);
        Picture::read(&dir.join("out.png")).assert_pixels(&format!("FACE input, {face}"), |_, _| [red, 0, 0, 255]);
        render_ok(&dir, sysval, &["--size", "3x2", "--face", face]);
        Picture::read(&dir.join("out.png"))
            .assert_pixels(&format!("FACE system value, {face}"), |_, _| [red, 255 - red, 0, 255]);
    }
}

#[test]
fn color0_goes_to_every_buffer_with_the_property() {
    let dir = scratch_dir("cbufs");
    let shader = "FRAG\nPROPERTY FS_COLOR0_WRITES_ALL_CBUFS 1\nDCL OUT[0], COLOR\n\
                  IMM[0] FLT32 { 0.2, 0.4, 0.6, 0.8 }\nMOV OUT[0], IMM[0]\nEND\n";
    render_ok(&dir, shader, &["--size", "2x2", "--cbufs", "3"]);
    let expected = [to_u8(0.2), to_u8(0.4), to_u8(0.6), to_u8(0.8)];
    for name in ["out.png", "out.1.png", "out.2.png"] {
        Picture::read(&dir.join(name)).assert_pixels(name, |_, _| expected);
    }
    assert!(!dir.join("out.3.png").exists());
}

#[test]
fn each_color_output_has_its_own_buffer() {
    let dir = scratch_dir("colors");
    // COLOR[1] is declared first: buffers follow the semantic index.
    let shader = "FRAG\nDCL OUT[0], COLOR[1]\nDCL OUT[1], COLOR\nIMM[0] FLT32 { 1.0, 0.0, 0.5, 1.0 }\n\
                  MOV OUT[0], IMM[0].xyyw\nMOV OUT[1], IMM[0].yzxw\nEND\n";
    render_ok(&dir, shader, &["--size", "2x3", "--cbufs", "4"]);
    Picture::read(&dir.join("out.png")).assert_pixels("COLOR[0]", |_, _| [0, 128, 255, 255]);
    Picture::read(&dir.join("out.1.png")).assert_pixels("COLOR[1]", |_, _| [255, 0, 0, 255]);
    assert!(!dir.join("out.2.png").exists(), "--cbufs only matters with FS_COLOR0_WRITES_ALL_CBUFS");
}

#[test]
fn killed_pixels_get_the_clear_colour() {
    let dir = scratch_dir("kill");
    // Kills the left half (x < 2 of 4), keeps white elsewhere.
    let shader = "FRAG\nDCL IN[0], POSITION, LINEAR\nDCL OUT[0], COLOR\nDCL TEMP[0]\n\
                  IMM[0] FLT32 { 2.0, 1.0, 0.0, 0.0 }\nADD TEMP[0].x, IN[0].xxxx, -IMM[0].xxxx\n\
                  KILL_IF TEMP[0].xxxx\nMOV OUT[0], IMM[0].yyyy\nEND\n";
    for (args, clear) in [(vec![], [0, 0, 0, 0]), (vec!["--clear", "0.2,0.4,0.6,1.5"], [51, 102, 153, 255])] {
        let mut args = args;
        args.extend(["--size", "4x2"]);
        render_ok(&dir, shader, &args);
        Picture::read(&dir.join("out.png"))
            .assert_pixels("KILL_IF", |x, _| if x < 2 { clear } else { [255, 255, 255, 255] });
    }
}

#[test]
fn other_inputs_are_gradients_or_the_states_values() {
    let dir = scratch_dir("inputs");
    // OUT[0] = GENERIC[3], OUT[1] = COLOR[0] + CONST[0].
    let shader = "FRAG\nDCL IN[0], GENERIC[3], PERSPECTIVE\nDCL IN[1], COLOR, COLOR\nDCL OUT[0], COLOR\n\
                  DCL OUT[1], COLOR[1]\nDCL CONST[0]\nMOV OUT[0], IN[0]\nADD OUT[1], IN[1], CONST[0]\nEND\n";
    render_ok(&dir, shader, &["--size", "4x2"]);
    let u = |x: u32| (x as f32 + 0.5) / 4.0;
    let v = |y: u32| (y as f32 + 0.5) / 2.0;
    Picture::read(&dir.join("out.png"))
        .assert_pixels("GENERIC[3]", |x, y| [to_u8(u(x)), to_u8(v(y)), to_u8(3.0 / 8.0), 255]);
    Picture::read(&dir.join("out.1.png")).assert_pixels("COLOR", |x, y| [to_u8(u(x)), to_u8(v(y)), 0, 255]);

    let state = dir.join("s.state");
    // Per-lane lines mean nothing for pixels: only `*` lines count.
    fs::write(&state, "invocations 2\ninput 0 * 0.25 0.5 0.75 1\ninput 1 1 1 1 1 1\nconst 0 0 0 0 0.5 1\n")
        .expect("writing the state");
    render_ok(&dir, shader, &["--size", "4x2", "--state", state.to_str().expect("UTF-8 path")]);
    Picture::read(&dir.join("out.png")).assert_pixels("state input", |_, _| [64, 128, 191, 255]);
    Picture::read(&dir.join("out.1.png")).assert_pixels("state constant", |_, _| [0, 0, 128, 255]);
}

#[test]
fn passes_do_not_change_the_picture() {
    let dir = scratch_dir("passes");
    let shader = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/shaders/fragment_rings.tgsi"))
        .expect("the bundled example");
    render_ok(&dir, &shader, &["--size", "37x21"]);
    let plain = Picture::read(&dir.join("out.png")).rgba;
    render_ok(&dir, &shader, &["--size", "37x21", "-O"]);
    assert_eq!(Picture::read(&dir.join("out.png")).rgba, plain);
}

fn failure(dir: &Path, shader: &str, args: &[&str]) -> (i32, String) {
    let output = render(dir, shader, args);
    (output.status.code().unwrap_or(-1), String::from_utf8_lossy(&output.stderr).into_owned())
}

#[test]
fn bad_requests_are_clear_errors() {
    let dir = scratch_dir("errors");
    let fragment = position_shader("", 1, 1);
    for size in ["0x4", "4x0", "8193x1", "1x8193", "4", "4x-1", "axb"] {
        let (code, message) = failure(&dir, &fragment, &["--size", size]);
        assert_eq!(code, 2, "--size {size}: {message}");
        assert!(message.contains("1 to 8192"), "--size {size}: {message}");
    }
    let (code, message) = failure(&dir, &fragment, &["--size", "2x2", "--clear", "1,2,3"]);
    assert_eq!(code, 2, "{message}");
    let (code, message) = failure(&dir, &fragment, &["--size", "2x2", "--cbufs", "9"]);
    assert_eq!(code, 2, "{message}");

    let vertex = "VERT\nDCL IN[0]\nDCL OUT[0], POSITION\nMOV OUT[0], IN[0]\nEND\n";
    let (code, message) = failure(&dir, vertex, &["--size", "2x2"]);
    assert_eq!(code, 1, "{message}");
    assert!(message.contains("fragment shaders (FRAG), not VERT shaders"), "{message}");

    let no_color = "FRAG\nDCL OUT[0], POSITION\nEND\n";
    let (code, message) = failure(&dir, no_color, &["--size", "2x2"]);
    assert_eq!(code, 1, "{message}");
    assert!(message.contains("no COLOR output"), "{message}");

    let shader_path = dir.join("writes_colour.tgsi");
    fs::write(&shader_path, &fragment).expect("writing the shader");
    let output = Command::new(env!("CARGO_BIN_EXE_tgsi-opt"))
        .args(["render", shader_path.to_str().expect("UTF-8"), "--size", "2x2", "-o"])
        .arg(dir.join("no/such/dir/out.png"))
        .output()
        .expect("running tgsi-opt");
    let message = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{message}");
    assert!(message.contains("cannot write") && message.contains("out.png"), "{message}");
    assert!(!message.contains("panicked"));
}

/// Every fragment shader of the shared corpus renders (or fails with an
/// error, never a panic), and -O1 leaves every picture as it was.
#[test]
fn corpus_fragment_shaders_render_the_same_after_o1() {
    use tgsi_opt::{ir, passes, render, tgsi};
    let Some(files) = testdata::corpus_files() else { return };
    let options = render::RenderOptions::new(5, 3);
    let mut rendered = 0;
    for path in files {
        let text = fs::read_to_string(&path).expect("a corpus file");
        let Ok(shader) = tgsi::parse(&text) else { continue };
        if shader.processor != tgsi::Processor::Fragment {
            continue;
        }
        let Ok(mut module) = ir::from_tgsi(&shader) else { continue };
        let Ok(before) = render::render(&module, None, &options) else { continue };
        let mut manager = passes::PassManager::new(passes::Options { verify_each: true, ..Default::default() });
        manager.run(&passes::Pipeline::o1(), &mut module).expect("-O1 runs");
        let after = render::render(&module, None, &options).expect("renders after -O1 as before");
        assert_eq!(before, after, "{}", path.display());
        rendered += 1;
    }
    assert!(rendered > 200, "only {rendered} fragment shaders rendered");
}

/// The pictures docs/cli.md shows are what its commands make now.
#[test]
fn the_documented_pictures_are_current() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let pictures: [(&str, &[&str]); 2] = [
        ("fragment_rings", &["--size", "128x128", "--clear", "0.1,0.1,0.1,1"]),
        ("fragment_plasma", &["--size", "128x128", "-O"]),
    ];
    for (name, args) in pictures {
        let shader = fs::read_to_string(root.join(format!("examples/shaders/{name}.tgsi"))).expect("the example");
        let dir = scratch_dir(&format!("documented_{name}"));
        render_ok(&dir, &shader, args);
        let made = fs::read(dir.join("out.png")).expect("the picture");
        let shown = fs::read(root.join(format!("docs/images/{name}.png"))).expect("the documented picture");
        assert!(made == shown, "docs/images/{name}.png is stale: render it again with {args:?}");
    }
}
