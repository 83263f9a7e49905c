//! `tgsi-opt render`: run a fragment shader over every pixel of a target
//! and write its colour buffers as PNG images.

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

use tgsi_opt::render::{self, ColorImage, Face, RenderOptions};

use crate::cli::{FaceArg, RenderArgs};
use crate::commands::opt::{build, run_pipeline};
use crate::diagnostics::Failure;
use crate::files::{read_state, Input};

/// Runs `render`.
pub fn run(args: &RenderArgs) -> Result<(), Failure> {
    let pipeline = args.pipeline.pipeline()?;
    let input = Input::from_arg(Some(&args.file));
    let (mut module, _) = build(&input, args.input_format)?;
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
        ..RenderOptions::new(width, height)
    };
    let images = render::render(&module, state.as_ref(), &options)
        .map_err(|source| Failure::Render { what: input.describe(), source })?;
    for image in &images {
        write_png(&buffer_path(&args.output, image.buffer), image)?;
    }
    Ok(())
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
