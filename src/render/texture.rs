//! Textures a render binds from PNG images: the founding TGSI text's
//! texture formats ("Texture Sampling and Texture Formats", the Gallium
//! column) and mipmaps built from the image.
//!
//! An image is read as 8-bit RGBA (grey, grey-alpha, RGB and palette PNGs
//! expanded, 16-bit channels cut to their high byte; a missing alpha is
//! 255). A format takes its components from those channels:
//! `r`, `g`, `b` from red, green and blue; `a` from alpha; `l` (luminance),
//! `i` (intensity), `z` (depth) and `s` (stencil) from red, which is the
//! grey of a grey PNG. Each is `c / 255` as an f32, except `s`: the
//! stencil value `c` itself, an unsigned integer (a stencil texture holds
//! integers).

use std::io::Cursor;

use exec::TextureLevel;

/// A texture format of the founding text's table, with what a texel of
/// it reads as (x, y, z, w).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum TextureFormat {
    /// `(r, 0, 0, 1)`.
    R,
    /// `(r, g, 0, 1)`.
    Rg,
    /// `(r, g, b, 1)`.
    Rgb,
    /// `(r, g, b, a)`, the default.
    #[default]
    Rgba,
    /// `(0, 0, 0, a)`.
    A,
    /// `(l, l, l, 1)`.
    L,
    /// `(l, l, l, a)`.
    La,
    /// `(i, i, i, i)`.
    I,
    /// `(z, z, z, 1)`: the table leaves Gallium's column to be decided
    /// and gives OpenGL's default depth texture mode, which this follows.
    Z,
    /// `(s, s, s, s)`, `s` an unsigned integer.
    S,
}

impl TextureFormat {
    /// Every format with its name, in the table's order.
    pub const ALL: [(TextureFormat, &'static str); 10] = [
        (TextureFormat::R, "R"),
        (TextureFormat::Rg, "RG"),
        (TextureFormat::Rgb, "RGB"),
        (TextureFormat::Rgba, "RGBA"),
        (TextureFormat::A, "A"),
        (TextureFormat::L, "L"),
        (TextureFormat::La, "LA"),
        (TextureFormat::I, "I"),
        (TextureFormat::Z, "Z"),
        (TextureFormat::S, "S"),
    ];

    /// The format named `name` (`R`, `RG`, ... as in the table, in any
    /// case).
    pub fn from_name(name: &str) -> Option<TextureFormat> {
        Self::ALL.iter().find(|(_, n)| n.eq_ignore_ascii_case(name)).map(|&(f, _)| f)
    }

    /// The texel a pixel of the image gives, four channels of bits.
    pub fn texel(self, [r, g, b, a]: [u8; 4]) -> [u32; 4] {
        let unorm = |c: u8| f32::from(c) / 255.0;
        let (zero, one) = (0.0, 1.0);
        let floats = match self {
            TextureFormat::R => [unorm(r), zero, zero, one],
            TextureFormat::Rg => [unorm(r), unorm(g), zero, one],
            TextureFormat::Rgb => [unorm(r), unorm(g), unorm(b), one],
            TextureFormat::Rgba => [unorm(r), unorm(g), unorm(b), unorm(a)],
            TextureFormat::A => [zero, zero, zero, unorm(a)],
            TextureFormat::L | TextureFormat::Z => [unorm(r), unorm(r), unorm(r), one],
            TextureFormat::La => [unorm(r), unorm(r), unorm(r), unorm(a)],
            TextureFormat::I => [unorm(r); 4],
            TextureFormat::S => return [u32::from(r); 4],
        };
        floats.map(f32::to_bits)
    }
}

/// Why an image cannot be a texture.
#[derive(Debug, thiserror::Error)]
pub enum TextureError {
    /// Not a PNG the decoder reads.
    #[error("not a readable PNG: {0}")]
    Png(#[from] png::DecodingError),
    /// Wider or higher than a texture may be.
    #[error("a texture is 1 to {max} pixels wide and high, not {0}x{1}", max = exec::state::MAX_TEXTURE_SIZE)]
    Size(u32, u32),
}

/// An 8-bit RGBA image, row by row from the top.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RgbaImage {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width * height * 4` bytes.
    pub pixels: Vec<u8>,
}

impl RgbaImage {
    /// Reads a PNG as 8-bit RGBA (see the module docs), at most
    /// [`exec::state::MAX_TEXTURE_SIZE`] wide and high.
    pub fn from_png(bytes: &[u8]) -> Result<RgbaImage, TextureError> {
        let mut decoder = png::Decoder::new(Cursor::new(bytes));
        decoder.set_transformations(png::Transformations::normalize_to_color8());
        let mut reader = decoder.read_info()?;
        let (width, height) = reader.info().size();
        let max = exec::state::MAX_TEXTURE_SIZE;
        if !(1..=max).contains(&width) || !(1..=max).contains(&height) {
            return Err(TextureError::Size(width, height));
        }
        let size = reader.output_buffer_size().ok_or(TextureError::Size(width, height))?;
        let mut buffer = vec![0; size];
        let info = reader.next_frame(&mut buffer)?;
        let rows = buffer.chunks(info.line_size).take(height as usize);
        let mut pixels = Vec::with_capacity(width as usize * height as usize * 4);
        for row in rows {
            match info.color_type {
                png::ColorType::Grayscale => row.iter().for_each(|&l| pixels.extend([l, l, l, 255])),
                png::ColorType::GrayscaleAlpha => {
                    row.chunks_exact(2).for_each(|p| pixels.extend([p[0], p[0], p[0], p[1]]))
                }
                png::ColorType::Rgb => row.chunks_exact(3).for_each(|p| pixels.extend([p[0], p[1], p[2], 255])),
                // Palettes are expanded to RGB or RGBA.
                png::ColorType::Rgba | png::ColorType::Indexed => pixels.extend_from_slice(row),
            }
        }
        pixels.resize(width as usize * height as usize * 4, 0);
        Ok(RgbaImage { width, height, pixels })
    }

    /// The pixel at column `x`, row `y` (inside the image).
    fn pixel(&self, x: u32, y: u32) -> [u8; 4] {
        let at = (y as usize * self.width as usize + x as usize) * 4;
        self.pixels.get(at..at + 4).and_then(|p| p.try_into().ok()).unwrap_or_default()
    }

    /// The next level down: half the size (rounded down, at least 1),
    /// each pixel the mean of the 2x2 block it covers, rounded to nearest
    /// (a box filter; a side of 1 takes its one texel twice, and the last
    /// column or row of an odd side is dropped).
    pub fn half(&self) -> RgbaImage {
        let (width, height) = ((self.width / 2).max(1), (self.height / 2).max(1));
        let mut pixels = Vec::with_capacity(width as usize * height as usize * 4);
        for y in 0..height {
            let (y0, y1) = (2 * y, (2 * y + 1).min(self.height - 1));
            for x in 0..width {
                let (x0, x1) = (2 * x, (2 * x + 1).min(self.width - 1));
                let block = [self.pixel(x0, y0), self.pixel(x1, y0), self.pixel(x0, y1), self.pixel(x1, y1)];
                for c in 0..4 {
                    let sum: u32 = block.iter().map(|p| u32::from(p[c])).sum();
                    pixels.push(((sum + 2) / 4) as u8);
                }
            }
        }
        RgbaImage { width, height, pixels }
    }

    /// The image and every level below it, down to 1x1.
    pub fn mip_chain(&self) -> Vec<RgbaImage> {
        let mut chain = vec![self.clone()];
        while let Some(last) = chain.last().filter(|l| (l.width, l.height) != (1, 1)) {
            let next = last.half();
            chain.push(next);
        }
        chain
    }
}

/// A texture a render binds to a unit: an image read in a format, with
/// its mipmaps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoundTexture {
    /// The sampler (and view) unit.
    pub unit: u32,
    /// Level 0.
    pub image: RgbaImage,
    /// How its pixels read.
    pub format: TextureFormat,
}

impl BoundTexture {
    /// Every level, level 0 first, as the backend takes them.
    pub fn levels(&self) -> Vec<TextureLevel> {
        self.image
            .mip_chain()
            .iter()
            .map(|level| TextureLevel {
                width: level.width,
                height: level.height,
                texels: level.pixels.chunks_exact(4).map(|p| self.format.texel([p[0], p[1], p[2], p[3]])).collect(),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_halve_down_to_one_by_one_with_rounded_means() {
        let image = RgbaImage { width: 3, height: 1, pixels: vec![0, 10, 255, 1, 1, 20, 255, 2, 9, 9, 9, 9] };
        let chain = image.mip_chain();
        let sizes: Vec<_> = chain.iter().map(|l| (l.width, l.height)).collect();
        assert_eq!(sizes, [(3, 1), (1, 1)]);
        // Columns 0 and 1 (column 2 dropped), row 0 twice: (0+1)*2/4 = 0.5
        // -> 1 (halves up), (10+20)*2/4 = 15, 255, (1+2)*2/4 = 1.5 -> 2.
        assert_eq!(chain[1].pixels, [1, 15, 255, 2]);
        let square = RgbaImage { width: 4, height: 4, pixels: vec![7; 64] };
        assert_eq!(square.mip_chain().len(), 3);
    }

    #[test]
    fn formats_read_by_name_in_any_case() {
        assert_eq!(TextureFormat::from_name("la"), Some(TextureFormat::La));
        assert_eq!(TextureFormat::from_name("RGBA"), Some(TextureFormat::Rgba));
        assert_eq!(TextureFormat::from_name("UV"), None);
    }
}
