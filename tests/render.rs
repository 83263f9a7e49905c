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

    for (flag, value, says) in [
        ("--samples", "3", "1, 2, 4, 8 or 16"),
        ("--texture", "0=t.png:UV", "unknown texture format `UV`"),
        ("--texture", "x=t.png", "UNIT=FILE[:FORMAT]"),
        ("--sampler", "0=cubic,repeat", "nearest|linear"),
        ("--sampler", "0=linear", "nearest|linear"),
    ] {
        let (code, message) = failure(&dir, &fragment, &["--size", "2x2", flag, value]);
        assert_eq!(code, 2, "{flag} {value}: {message}");
        assert!(message.contains(says), "{flag} {value}: {message}");
    }
    let not_png = dir.join("not.png");
    fs::write(&not_png, "no PNG here").expect("writing a file");
    for (texture, says) in
        [(format!("0={}", not_png.display()), "not a readable PNG"), ("0=none.png".into(), "cannot read")]
    {
        let (code, message) = failure(&dir, &fragment, &["--size", "2x2", "--texture", &texture]);
        assert_eq!(code, 1, "{texture}: {message}");
        assert!(message.contains(says), "{texture}: {message}");
    }

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
/// error, never a panic) with mipmapped textures bound, and -O1 leaves
/// every picture as it was.
#[test]
fn corpus_fragment_shaders_render_the_same_after_o1() {
    use tgsi_opt::{ir, passes, render, tgsi};
    let Some(files) = testdata::corpus_files() else { return };
    // Every unit a mipmapped 8x8 texture, half of them filtered linearly,
    // so that sampling, level selection, fetches and queries run too.
    let pixels: Vec<u8> = (0..8 * 8 * 4).map(|k| (k * 37 % 251) as u8).collect();
    let image = render::RgbaImage { width: 8, height: 8, pixels };
    let linear = tgsi_opt::exec::Sampler { filter: tgsi_opt::exec::Filter::Linear, wrap: tgsi_opt::exec::Wrap::Clamp };
    let options = render::RenderOptions {
        textures: (0..16)
            .map(|unit| render::BoundTexture { unit, image: image.clone(), format: render::TextureFormat::Rgba })
            .collect(),
        samplers: (0..16).step_by(2).map(|unit| (unit, linear)).collect(),
        ..render::RenderOptions::new(5, 3)
    };
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
    // 274 of the corpus' fragment shaders render.
    testdata::assert_checked("corpus_fragment_shaders_render_the_same_after_o1", "fragment shaders", rendered, 260);
}

/// The pictures docs/cli.md shows, and the bundled texture, are what
/// their commands make now.
#[test]
fn the_documented_pictures_are_current() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let checker = root.join("examples/textures/checker16.png");
    let texture = format!("0={}", checker.display());
    let pictures: [(&str, &str, &[&str]); 6] = [
        ("fragment_rings", "docs/images/fragment_rings.png", &["--size", "128x128", "--clear", "0.1,0.1,0.1,1"]),
        ("fragment_plasma", "docs/images/fragment_plasma.png", &["--size", "128x128", "-O"]),
        ("fragment_checker", "examples/textures/checker16.png", &["--size", "16x16"]),
        (
            "fragment_textured",
            "docs/images/fragment_textured.png",
            &["--size", "256x160", "--texture", &texture, "--sampler", "0=linear,repeat"],
        ),
        ("fragment_zoneplate", "docs/images/fragment_zoneplate.png", &["--size", "128x128"]),
        ("fragment_zoneplate", "docs/images/fragment_zoneplate_8x.png", &["--size", "128x128", "--samples", "8"]),
    ];
    for (name, image, args) in pictures {
        let shader = fs::read_to_string(root.join(format!("examples/shaders/{name}.tgsi"))).expect("the example");
        let dir = scratch_dir(&format!("documented_{}", image.replace('/', "_")));
        render_ok(&dir, &shader, args);
        let made = fs::read(dir.join("out.png")).expect("the picture");
        let shown = fs::read(root.join(image)).expect("the documented picture");
        assert!(made == shown, "{image} is stale: render {name}.tgsi again with {args:?}");
    }
}

/// The bundled texture is the checker its shader says: 4x4 squares of
/// 4x4 pixels, orange where exactly one of column / 4 and row / 4 is odd,
/// dark blue elsewhere.
#[test]
fn the_bundled_texture_is_a_checker() {
    let picture = Picture::read(&Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/textures/checker16.png"));
    assert_eq!((picture.width, picture.height), (16, 16));
    let orange = [0.95, 0.6, 0.15, 1.0].map(to_u8);
    let blue = [0.1, 0.15, 0.35, 1.0].map(to_u8);
    picture.assert_pixels("checker", |x, y| if (x / 4 + y / 4) % 2 == 1 { orange } else { blue });
}

/// Writes an 8-bit PNG of `color` type.
fn write_png(path: &Path, (width, height): (u32, u32), color: png::ColorType, data: &[u8]) {
    let file = fs::File::create(path).expect("creating a PNG");
    let mut encoder = png::Encoder::new(std::io::BufWriter::new(file), width, height);
    encoder.set_color(color);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().expect("a PNG header");
    writer.write_image_data(data).expect("the PNG's pixels");
}

/// Samples unit 0 at GENERIC[0] (the gradient: pixel centres).
const TEXTURED: &str = "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL SAMP[0]\n\
                        TEX OUT[0], IN[0], SAMP[0], 2D\nEND\n";

/// A 2x2 RGBA image with four different values in every channel.
const RGBA_2X2: [u8; 16] = [10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120, 130, 140, 150, 160];

#[test]
fn each_texture_format_reads_as_the_tables_gallium_column() {
    let dir = scratch_dir("formats");
    let png = dir.join("t.png");
    write_png(&png, (2, 2), png::ColorType::Rgba, &RGBA_2X2);
    let unorm = |c: u8| to_u8(c as f32 / 255.0);
    // The table's Gallium column with r, g, b, a the PNG's channels and l,
    // i, z the red one; Z as OpenGL's (z, z, z, 1).
    type Column = fn([u8; 4]) -> [u8; 4];
    let formats: [(&str, Column); 9] = [
        ("R", |[r, ..]| [r, 0, 0, 255]),
        ("RG", |[r, g, ..]| [r, g, 0, 255]),
        ("RGB", |[r, g, b, _]| [r, g, b, 255]),
        ("RGBA", |p| p),
        ("A", |[.., a]| [0, 0, 0, a]),
        ("L", |[l, ..]| [l, l, l, 255]),
        ("LA", |[l, _, _, a]| [l, l, l, a]),
        ("I", |[i, ..]| [i, i, i, i]),
        ("Z", |[z, ..]| [z, z, z, 255]),
    ];
    for (name, expected) in formats {
        let texture = format!("0={}:{name}", png.display());
        render_ok(&dir, TEXTURED, &["--size", "2x2", "--texture", &texture]);
        Picture::read(&dir.join("out.png")).assert_pixels(name, |x, y| {
            let at = (y * 2 + x) as usize * 4;
            expected(RGBA_2X2[at..at + 4].try_into().expect("4 bytes")).map(unorm)
        });
    }
    // No format is RGBA.
    render_ok(&dir, TEXTURED, &["--size", "2x2", "--texture", &format!("0={}", png.display())]);
    Picture::read(&dir.join("out.png"))
        .assert_pixels("default", |x, y| [0, 1, 2, 3].map(|c| RGBA_2X2[(y * 2 + x) as usize * 4 + c]));
}

#[test]
fn stencil_texels_are_unsigned_integers() {
    let dir = scratch_dir("stencil");
    let png = dir.join("s.png");
    write_png(&png, (2, 2), png::ColorType::Rgba, &RGBA_2X2);
    // (s, s, s, s) as integers: U2F then / 255 shows s itself.
    const SCALE: &str = "0.00392156886";
    let shader = format!(
        "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL SAMP[0]\nDCL TEMP[0]\n\
         IMM[0] FLT32 {{ {SCALE}, 0.0, 0.0, 0.0 }}\nTEX TEMP[0], IN[0], SAMP[0], 2D\n\
         U2F TEMP[0], TEMP[0]\nMUL OUT[0], TEMP[0], IMM[0].xxxx\nEND\n"
    );
    let scale: f32 = SCALE.parse().expect("a float");
    render_ok(&dir, &shader, &["--size", "2x2", "--texture", &format!("0={}:S", png.display())]);
    Picture::read(&dir.join("out.png")).assert_pixels("S", |x, y| {
        let s = RGBA_2X2[(y * 2 + x) as usize * 4];
        [to_u8(s as f32 * scale); 4]
    });
}

#[test]
fn grey_pngs_give_luminance_and_alpha() {
    let dir = scratch_dir("grey");
    let png = dir.join("la.png");
    write_png(&png, (2, 1), png::ColorType::GrayscaleAlpha, &[40, 200, 90, 7]);
    render_ok(&dir, TEXTURED, &["--size", "2x1", "--texture", &format!("0={}:LA", png.display())]);
    Picture::read(&dir.join("out.png"))
        .assert_pixels("LA", |x, _| if x == 0 { [40, 40, 40, 200] } else { [90, 90, 90, 7] });
}

#[test]
fn samplers_filter_and_wrap() {
    let dir = scratch_dir("sampler");
    let png = dir.join("bw.png");
    write_png(&png, (2, 1), png::ColorType::Rgba, &[0, 0, 0, 255, 255, 255, 255, 255]);
    let texture = format!("0={}", png.display());
    // 4 pixels over 2 texels: u * 2 - 0.5 = -0.25, 0.25, 0.75, 1.25.
    // clamp: black, a = 0.25, a = 0.75, white; repeat wraps the ends:
    // lerp(white, black, 0.75) and lerp(white, black, 0.25).
    let grey = |f: f32| [to_u8(f), to_u8(f), to_u8(f), 255];
    for (sampler, expected) in [
        ("0=linear,clamp", [0.0, 0.25, 0.75, 1.0]),
        ("0=linear,repeat", [0.25, 0.25, 0.75, 0.75]),
        ("0=nearest,clamp", [0.0, 0.0, 1.0, 1.0]),
    ] {
        render_ok(&dir, TEXTURED, &["--size", "4x1", "--texture", &texture, "--sampler", sampler]);
        Picture::read(&dir.join("out.png")).assert_pixels(sampler, |x, _| grey(expected[x as usize]));
    }
}

/// A 2x2 RGBA texture of red, green, blue and white: its level 1 is the
/// rounded mean, (128, 128, 128, 255).
fn two_level_texture(dir: &Path) -> String {
    let png = dir.join("rgbw.png");
    let data = [255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255, 255, 255, 255];
    write_png(&png, (2, 2), png::ColorType::Rgba, &data);
    format!("0={}", png.display())
}

#[test]
fn mip_levels_follow_the_scale_or_the_level_asked() {
    let dir = scratch_dir("mipmaps");
    let texture = two_level_texture(&dir);
    let level1 = [128, 128, 128, 255];
    let level0 = |x: u32, y: u32| match (x, y) {
        (0, 0) => [255, 0, 0, 255],
        (1, 0) => [0, 255, 0, 255],
        (0, 1) => [0, 0, 255, 255],
        _ => [255; 4],
    };
    // 2x2 pixels over 2x2 texels: scale 1, level 0.
    render_ok(&dir, TEXTURED, &["--size", "2x2", "--texture", &texture]);
    Picture::read(&dir.join("out.png")).assert_pixels("scale 1", level0);
    // One pixel: its quad's coordinates step by 1, two texels: level 1.
    render_ok(&dir, TEXTURED, &["--size", "1x1", "--texture", &texture]);
    Picture::read(&dir.join("out.png")).assert_pixels("scale 2", |_, _| level1);
    // TXL: the level in w; TXB: the bias in w (GENERIC[8].w = 1).
    for op in ["TXL", "TXB"] {
        let shader = TEXTURED.replace("GENERIC[0]", "GENERIC[8]").replace("TEX ", &format!("{op} "));
        render_ok(&dir, &shader, &["--size", "2x2", "--texture", &texture]);
        Picture::read(&dir.join("out.png")).assert_pixels(op, |_, _| level1);
    }
    // TXQ of level 1: (1, 1, 0, 2 levels), as floats / 4.
    let txq = "FRAG\nDCL OUT[0], COLOR\nDCL SAMP[0]\nDCL TEMP[0]\nIMM[0] UINT32 { 1, 0, 0, 0 }\n\
               IMM[1] FLT32 { 0.25, 0.0, 0.0, 0.0 }\nTXQ TEMP[0], IMM[0].xxxx, SAMP[0], 2D\n\
               U2F TEMP[0], TEMP[0]\nMUL OUT[0], TEMP[0], IMM[1].xxxx\nEND\n";
    render_ok(&dir, txq, &["--size", "2x2", "--texture", &texture]);
    Picture::read(&dir.join("out.png")).assert_pixels("TXQ", |_, _| [to_u8(0.25), to_u8(0.25), 0, to_u8(0.5)]);
}

/// Direct3D's standard 4-sample pattern, sixteenths of a pixel from its
/// centre, y downwards.
const D3D_4X: [(f32, f32); 4] = [(-2.0, -6.0), (6.0, -2.0), (-6.0, 2.0), (2.0, 6.0)];

/// The resolve: the rounded mean of the samples' 8-bit values.
fn resolve(values: &[u8]) -> u8 {
    let n = values.len() as u32;
    ((values.iter().map(|&v| u32::from(v)).sum::<u32>() + n / 2) / n) as u8
}

#[test]
fn four_samples_at_the_standard_positions() {
    let dir = scratch_dir("samples");
    let sample = |k: usize| (0.5 + D3D_4X[k].0 / 16.0, 0.5 + D3D_4X[k].1 / 16.0);
    // (SAMPLEPOS.xy, SAMPLEPOS.x squared, 1): shaded per sample, averaged
    // (the square's mean is not the centre's square).
    let samplepos = "FRAG\nDCL SV[0], SAMPLEPOS\nDCL OUT[0], COLOR\nIMM[0] FLT32 { 1.0, 0.0, 0.0, 0.0 }\n\
                     MOV OUT[0].xy, SV[0].xyyy\nMUL OUT[0].z, SV[0].xxxx, SV[0].xxxx\nMOV OUT[0].w, IMM[0].xxxx\nEND\n";
    render_ok(&dir, samplepos, &["--size", "3x2", "--samples", "4"]);
    let per_sample =
        |f: &dyn Fn(f32, f32) -> f32| resolve(&(0..4).map(|k| to_u8(f(sample(k).0, sample(k).1))).collect::<Vec<_>>());
    let mean = [per_sample(&|x, _| x), per_sample(&|_, y| y), per_sample(&|x, _| x * x), 255];
    assert_eq!(mean, [128, 128, 84, 255], "the known means");
    Picture::read(&dir.join("out.png")).assert_pixels("SAMPLEPOS", |_, _| mean);
    // SAMPLEID picks one sample of four: a quarter white.
    let one = "FRAG\nDCL SV[0], SAMPLEID\nDCL OUT[0], COLOR\nDCL TEMP[0]\nIMM[0] UINT32 { 1, 0, 0, 0 }\n\
               IMM[1] FLT32 { 1.0, 0.0, 0.0, 0.0 }\nUSEQ TEMP[0].x, SV[0].xxxx, IMM[0].xxxx\n\
               UCMP OUT[0], TEMP[0].xxxx, IMM[1].xxxx, IMM[1].yyyy\nEND\n";
    render_ok(&dir, one, &["--size", "2x2", "--samples", "4"]);
    Picture::read(&dir.join("out.png")).assert_pixels("SAMPLEID", |_, _| [resolve(&[255, 0, 0, 0]); 4]);
    // SAMPLE_POS of sample k on the render target: the table's entry
    // (every sample computes the same value, so the mean is that value).
    for k in 0..4 {
        let shader = format!(
            "FRAG\nDCL OUT[0], COLOR\nDCL TEMP[0]\nIMM[0] UINT32 {{ {k}, 0, 0, 0 }}\n\
             SAMPLE_POS OUT[0], TEMP[0], IMM[0].xxxx\nEND\n"
        );
        render_ok(&dir, &shader, &["--size", "2x2", "--samples", "4", "--per-sample"]);
        let (x, y) = sample(k);
        Picture::read(&dir.join("out.png")).assert_pixels("SAMPLE_POS", |_, _| [to_u8(x), to_u8(y), 0, 0]);
    }
    // POSITION is the sample's: its fraction is the sample's position.
    let fraction = "FRAG\nDCL IN[0], POSITION, LINEAR\nDCL SV[0], SAMPLEID\nDCL OUT[0], COLOR\nDCL TEMP[0]\n\
                    IMM[0] FLT32 { 1.0, 0.0, 0.0, 0.0 }\nFRC TEMP[0].xy, IN[0].xyyy\nMOV OUT[0].xy, TEMP[0].xyyy\n\
                    MUL OUT[0].z, TEMP[0].xxxx, TEMP[0].xxxx\nMOV OUT[0].w, IMM[0].xxxx\nEND\n";
    render_ok(&dir, fraction, &["--size", "2x2", "--samples", "4"]);
    Picture::read(&dir.join("out.png")).assert_pixels("POSITION", |_, _| mean);
    // Killing the samples left of the centre: half white, half clear.
    let kill = "FRAG\nDCL SV[0], SAMPLEPOS\nDCL OUT[0], COLOR\nDCL TEMP[0]\nIMM[0] FLT32 { 0.5, 1.0, 0.0, 0.0 }\n\
                ADD TEMP[0].x, SV[0].xxxx, -IMM[0].xxxx\nKILL_IF TEMP[0].xxxx\nMOV OUT[0], IMM[0].yyyy\nEND\n";
    render_ok(&dir, kill, &["--size", "2x2", "--samples", "4"]);
    let kept: Vec<u8> = (0..4).map(|k| if sample(k).0 < 0.5 { 0 } else { 255 }).collect();
    Picture::read(&dir.join("out.png")).assert_pixels("coverage", |_, _| [resolve(&kept); 4]);
}

#[test]
fn shading_once_per_pixel_covers_every_sample() {
    // No per-sample input: the pixel-centre colour fills every sample, so
    // the picture is the one-sample picture; SAMPLE_INFO says 1.
    let dir = scratch_dir("samples_per_pixel");
    let shader = "FRAG\nDCL IN[0], POSITION, LINEAR\nDCL OUT[0], COLOR\nDCL OUT[1], COLOR[1]\nDCL TEMP[0]\n\
                  IMM[0] FLT32 { 0.25, 0.0, 0.0, 1.0 }\nMUL OUT[0], IN[0].xyxw, IMM[0].xxyw\n\
                  SAMPLE_INFO TEMP[0], TEMP[0], IMM[0].xxxx\nU2F TEMP[0], TEMP[0]\n\
                  MUL OUT[1], TEMP[0].xxxx, IMM[0].xxxx\nEND\n";
    render_ok(&dir, shader, &["--size", "4x3"]);
    let single = Picture::read(&dir.join("out.png")).rgba;
    render_ok(&dir, shader, &["--size", "4x3", "--samples", "8"]);
    assert_eq!(Picture::read(&dir.join("out.png")).rgba, single);
    Picture::read(&dir.join("out.1.png")).assert_pixels("SAMPLE_INFO", |_, _| [to_u8(0.25); 4]);
    render_ok(&dir, shader, &["--size", "4x3", "--samples", "8", "--per-sample"]);
    Picture::read(&dir.join("out.1.png")).assert_pixels("SAMPLE_INFO per sample", |_, _| [to_u8(2.0); 4]);
}

#[test]
fn depth_is_written_as_grey() {
    let dir = scratch_dir("depth");
    // Depth = u of GENERIC[0]; the right column is killed (depth 1.0).
    let shader = "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL OUT[1], POSITION\nDCL TEMP[0]\n\
                  IMM[0] FLT32 { 0.8, 1.0, 0.0, 0.0 }\nADD TEMP[0].x, IMM[0].xxxx, -IN[0].xxxx\n\
                  KILL_IF TEMP[0].xxxx\nMOV OUT[0], IMM[0].yyyy\nMOV OUT[1].z, IN[0].xxxx\nEND\n";
    let depth = dir.join("depth.png");
    render_ok(&dir, shader, &["--size", "5x2", "--depth", depth.to_str().expect("UTF-8")]);
    Picture::read(&depth).assert_pixels("depth", |x, _| {
        let u = (x as f32 + 0.5) / 5.0;
        let z = if u > 0.8 { 255 } else { to_u8(u) };
        [z, z, z, 255]
    });
    let (code, message) = failure(&dir, TEXTURED, &["--size", "2x2", "--depth", "d.png"]);
    assert_eq!(code, 1, "{message}");
    assert!(message.contains("no POSITION output"), "{message}");
}

#[test]
fn compare_writes_where_the_passes_change_the_picture() {
    let dir = scratch_dir("compare");
    let shader = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/shaders/fragment_rings.tgsi"))
        .expect("the bundled example");
    let diff = dir.join("diff.png");
    let diff_arg = diff.to_str().expect("UTF-8");
    let output = render(&dir, &shader, &["--size", "9x7", "-O", "--compare", diff_arg]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(String::from_utf8_lossy(&output.stdout).contains("no pixel differs"));
    Picture::read(&diff).assert_pixels("no difference", |_, _| [0, 0, 0, 255]);
    let (code, message) = failure(&dir, &shader, &["--size", "9x7", "--compare", diff_arg]);
    assert_eq!(code, 2, "{message}");
    assert!(message.contains("--compare needs passes"), "{message}");
}

/// A wrong pass, for the tests only: the first `mul` becomes an `add`.
struct Planted;

impl tgsi_opt::passes::Pass for Planted {
    fn name(&self) -> &'static str {
        "planted"
    }

    fn description(&self) -> &'static str {
        "turns the first mul into an add"
    }

    fn run(&self, module: &mut tgsi_opt::ir::Module) -> tgsi_opt::passes::PassResult {
        let func = &mut module.function;
        for block in func.blocks_in_order() {
            for inst in func.blocks[block].insts.clone() {
                if let tgsi_opt::ir::Op::Alu { opcode: opcode @ tgsi_opt::tgsi::Opcode::Mul, .. } =
                    &mut func.insts[inst].op
                {
                    *opcode = tgsi_opt::tgsi::Opcode::Add;
                    return tgsi_opt::passes::PassResult { changed: true, ..Default::default() };
                }
            }
        }
        tgsi_opt::passes::PassResult::default()
    }
}

#[test]
fn compare_names_the_first_pixel_a_planted_pass_changes() {
    use tgsi_opt::passes::Pass;
    use tgsi_opt::{ir, render, tgsi};
    // Red = u * 0.25 before the planted pass, u + 0.25 after: every pixel differs.
    let text = "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nIMM[0] FLT32 { 0.25, 0.0, 0.0, 1.0 }\n\
                MUL OUT[0].x, IN[0].xxxx, IMM[0].xxxx\nMOV OUT[0].yzw, IMM[0].yyzw\nEND\n";
    let module = ir::from_tgsi(&tgsi::parse(text).expect("parses")).expect("builds");
    let mut broken = module.clone();
    assert!(Planted.run(&mut broken).changed);
    let options = render::RenderOptions::new(4, 2);
    let before = render::render(&module, None, &options).expect("renders");
    let after = render::render(&broken, None, &options).expect("renders");
    let comparison = render::compare(&before, &after);
    assert_eq!(comparison.differing, 8);
    let first = comparison.first.expect("a difference");
    assert_eq!((first.buffer, first.x, first.y), (0, 0, 0));
    // u = 0.125: 0.03125 before, 0.375 after.
    assert_eq!((first.before, first.after), ([to_u8(0.03125), 0, 0, 255], [to_u8(0.375), 0, 0, 255]));
    assert_eq!(first.to_string(), "COLOR[0] at (0, 0): [8, 0, 0, 255] before, [96, 0, 0, 255] after");
    assert!(comparison.differences[0].pixels.chunks(4).all(|p| p == [255; 4]));
    assert_eq!(render::compare(&before, &before).differing, 0);
}
