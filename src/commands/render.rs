//! `tgsi-opt render`: run a fragment shader over every pixel of a target
//! and write its colour buffers as PNG images.

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

use tgsi_opt::ir;
use tgsi_opt::render::{self, BoundTexture, ColorImage, Face, RenderOptions, RgbaImage};

use crate::cli::{FaceArg, RenderArgs, TextureArg};
use crate::commands::opt::{build, run_pipeline};
use crate::diagnostics::Failure;
use crate::files::{read_state, write_output, Input};

/// Runs `render`.
pub fn run(args: &RenderArgs) -> Result<(), Failure> {
    let pipeline = args.pipeline.pipeline()?;
    if args.compare.is_some() && args.pipeline.passes.is_empty() && args.pipeline.opt_level.is_none() {
        return Err(Failure::Usage("--compare needs passes to compare: --passes=LIST or -O".into()));
    }
    let input = Input::from_arg(Some(&args.file));
    let (mut module, _) = build(&input, args.input_format)?;
    let unoptimized = args.compare.is_some().then(|| module.clone());
    // Always verified: a broken pass must not give a plausible wrong picture.
    let options = passes::Options { verify_each: true, ..passes::Options::default() };
    run_pipeline(&pipeline, &mut module, options, &input)?;
    let state = args.state.as_deref().map(read_state).transpose()?;
    let (width, height) = args.size;
    let options = RenderOptions {
        z: args.z,
        w: args.w,
        face: match args.face {
            FaceArg::Front => Face::Front,
            FaceArg::Back => Face::Back,
        },
        cbufs: args.cbufs,
        clear: args.clear,
        threads: args.threads,
        backend: crate::cli::BackendArg::tier(args.backend),
        samples: args.samples,
        per_sample: args.per_sample,
        textures: args.textures.iter().map(read_texture).collect::<Result<_, _>>()?,
        samplers: args.samplers.clone(),
        ..RenderOptions::new(width, height)
    };
    let render = |module: &ir::Module| {
        render::render(module, state.as_ref(), &options)
            .map_err(|source| Failure::Render { what: input.describe(), source })
    };
    let frame = render(&module)?;
    for image in &frame.colors {
        write_png(&buffer_path(&args.output, image.buffer), image)?;
    }
    if let Some(path) = &args.depth {
        let depth = frame
            .depth
            .as_ref()
            .ok_or_else(|| Failure::Render { what: input.describe(), source: render::RenderError::NoDepth })?;
        write_png(path, depth)?;
    }
    if let (Some(path), Some(unoptimized)) = (&args.compare, unoptimized) {
        let comparison = render::compare(&render(&unoptimized)?, &frame);
        for image in &comparison.differences {
            write_png(&buffer_path(path, image.buffer), image)?;
        }
        if let Some(first) = comparison.first {
            return Err(Failure::PixelsDiffer { count: comparison.differing, first: first.to_string() });
        }
        let line = format!("no pixel differs: {} colour buffer(s) of {width}x{height}\n", comparison.differences.len());
        write_output(None, line.as_bytes())?;
    }
    Ok(())
}

/// Reads a `--texture` image.
fn read_texture(arg: &TextureArg) -> Result<BoundTexture, Failure> {
    let what = format!("`{}`", arg.path.display());
    let bytes = std::fs::read(&arg.path).map_err(|source| Failure::Read { what: what.clone(), source })?;
    let image = RgbaImage::from_png(&bytes).map_err(|source| Failure::Texture { what, source })?;
    Ok(BoundTexture { unit: arg.unit, image, format: arg.format })
}

/// The file of colour buffer `buffer`: `output` itself for buffer 0,
/// else `.i` inserted before its extension (`out.png` -> `out.2.png`,
/// `out` -> `out.2`).
fn buffer_path(output: &Path, buffer: u32) -> PathBuf {
    if buffer == 0 {
        return output.to_path_buf();
    }
    let stem = output.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let name = match output.extension() {
        Some(ext) => format!("{stem}.{buffer}.{}", ext.to_string_lossy()),
        None => format!("{stem}.{buffer}"),
    };
    output.with_file_name(name)
}

fn write_png(path: &Path, image: &ColorImage) -> Result<(), Failure> {
    let what = format!("`{}`", path.display());
    let file = File::create(path).map_err(|source| Failure::Write { what: what.clone(), source })?;
    image.write_png(BufWriter::new(file)).map_err(|err| Failure::Write { what, source: png_io_error(err) })
}

/// A PNG encoding error as the I/O error it almost always is (the image's
/// size and format are valid by construction).
fn png_io_error(err: png::EncodingError) -> std::io::Error {
    match err {
        png::EncodingError::IoError(err) => err,
        other => std::io::Error::other(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_past_the_first_get_their_index_before_the_extension() {
        assert_eq!(buffer_path(Path::new("dir/out.png"), 0), Path::new("dir/out.png"));
        assert_eq!(buffer_path(Path::new("dir/out.png"), 3), Path::new("dir/out.3.png"));
        assert_eq!(buffer_path(Path::new("out"), 1), Path::new("out.1"));
    }
}
