//! Textures, samplers and the render target's sample positions set in
//! code: what a render binds that the text format has no line for
//! (mipmapped textures, multisampled targets).

use super::{Sampler, State, Texels, Texture, MAX_TEXTURE_SIZE};

/// One level of a texture given to [`State::set_texture`]: its size and
/// its texels row by row from row 0, four 32-bit channels each.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextureLevel {
    /// Width in texels.
    pub width: u32,
    /// Height in texels.
    pub height: u32,
    /// `width * height` texels, row-major.
    pub texels: Vec<[u32; 4]>,
}

/// A level of a mipmapped texture past level 0 (always dense: it was
/// given whole).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Level {
    pub(super) width: u32,
    pub(super) height: u32,
    texels: Vec<[u32; 4]>,
}

impl Level {
    pub(super) fn texel(&self, x: u32, y: u32) -> [u32; 4] {
        if x >= self.width {
            return [0; 4];
        }
        self.texels.get(y as usize * self.width as usize + x as usize).copied().unwrap_or_default()
    }
}

/// Levels [`State::set_texture`] does not take.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TextureLevels {
    /// No level at all.
    #[error("a texture has at least one level")]
    Empty,
    /// Level 0 is 0 or above [`MAX_TEXTURE_SIZE`] wide or high.
    #[error("a texture is 1 to {MAX_TEXTURE_SIZE} texels wide and high, not {0}x{1}")]
    Size(u32, u32),
    /// A level is not half the one before (rounded down, at least 1), or
    /// comes after a 1x1 level.
    #[error("level {level} is {width}x{height}; it must be half of the level before, rounded down, at least 1")]
    LevelSize { level: u32, width: u32, height: u32 },
    /// A level's texels are not `width * height`.
    #[error("level {level} has {found} texels, not {expected}")]
    Texels { level: u32, found: usize, expected: usize },
}

impl State {
    /// Binds a texture of one or more levels to sampler or view `unit`,
    /// replacing what it had: level 0 first, each next level half the size
    /// of the one before (rounded down, at least 1), down to 1x1 at most.
    /// The unit's sampler applies. With several levels, sampling picks
    /// the level nearest to the level of detail (`lambda = log2(rho)`,
    /// `rho` the largest scale of texels to pixels, as Mesa's softpipe
    /// computes it, plus the bias or replaced by the explicit level;
    /// level `int(lambda + 0.5)` clamped to the levels), and fetches and
    /// size queries read their level operand; a texture of one level
    /// samples exactly as a `texsize` one.
    ///
    /// ```
    /// let mut state = exec::State::new(1).unwrap();
    /// let level = |w: u32, h: u32| exec::TextureLevel { width: w, height: h, texels: vec![[7; 4]; (w * h) as usize] };
    /// state.set_texture(0, vec![level(4, 2), level(2, 1), level(1, 1)]).unwrap();
    /// let texture = state.texture(0).unwrap();
    /// assert_eq!((texture.levels(), texture.level_size(1), texture.level_texel(2, 0, 0)), (3, Some((2, 1)), [7; 4]));
    /// assert!(state.set_texture(0, vec![level(4, 2), level(2, 2)]).is_err());
    /// ```
    pub fn set_texture(&mut self, unit: u32, levels: Vec<TextureLevel>) -> Result<(), TextureLevels> {
        let mut levels = levels.into_iter();
        let base = levels.next().ok_or(TextureLevels::Empty)?;
        let (width, height) = (base.width, base.height);
        if !(1..=MAX_TEXTURE_SIZE).contains(&width) || !(1..=MAX_TEXTURE_SIZE).contains(&height) {
            return Err(TextureLevels::Size(width, height));
        }
        check_texels(0, &base)?;
        let mut mips = Vec::new();
        let (mut w, mut h) = (width, height);
        for (level, given) in (1..).zip(levels) {
            let (width, height) = (given.width, given.height);
            if (w, h) == (1, 1) || (width, height) != ((w / 2).max(1), (h / 2).max(1)) {
                return Err(TextureLevels::LevelSize { level, width, height });
            }
            check_texels(level, &given)?;
            (w, h) = (width, height);
            mips.push(Level { width, height, texels: given.texels });
        }
        let sampler = self.sampler(unit);
        let texels = Texels::Dense(base.texels);
        self.textures.insert(unit, Texture { width, height, texels, sampler, mips });
        Ok(())
    }

    /// Sets the sampler of `unit`, as a `sampler` line does (also for a
    /// texture bound already).
    pub fn set_sampler(&mut self, unit: u32, sampler: Sampler) {
        self.samplers.insert(unit, sampler);
        if let Some(texture) = self.textures.get_mut(&unit) {
            texture.sampler = sampler;
        }
    }

    /// Says that per-sample shading of a multisampled render target is in
    /// effect, with these sample positions (x, y in [0, 1] of the pixel,
    /// 0.5 its centre, y downwards), by sample index; an empty list says it
    /// is not (the default). `SAMPLE_INFO` and `SAMPLE_POS` on the render
    /// target (a `TEMP` operand) answer from it: the count and
    /// `(x, y, 0, 0)`; without per-sample shading `(1, 0, 0, 0)` and
    /// `(0, 0, 0, 0)`, as the 2015 sample-query text says.
    pub fn set_sample_positions(&mut self, positions: Vec<[f32; 2]>) {
        self.sample_positions = positions.into_iter().map(|p| p.map(f32::to_bits)).collect();
    }
}

fn check_texels(level: u32, given: &TextureLevel) -> Result<(), TextureLevels> {
    let expected = given.width as usize * given.height as usize;
    if given.texels.len() != expected {
        return Err(TextureLevels::Texels { level, found: given.texels.len(), expected });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn level(width: u32, height: u32) -> TextureLevel {
        TextureLevel { width, height, texels: vec![[0; 4]; (width * height) as usize] }
    }

    #[test]
    fn levels_must_halve_down_to_one_by_one_with_their_texels() {
        let mut state = State::new(1).unwrap();
        assert_eq!(state.set_texture(0, vec![]), Err(TextureLevels::Empty));
        assert_eq!(state.set_texture(0, vec![level(0, 2)]), Err(TextureLevels::Size(0, 2)));
        let too_wide = TextureLevel { width: MAX_TEXTURE_SIZE + 1, height: 1, texels: Vec::new() };
        assert_eq!(state.set_texture(0, vec![too_wide]), Err(TextureLevels::Size(MAX_TEXTURE_SIZE + 1, 1)));
        // 5x3 halves to 2x1, then 1x1, then nothing.
        assert!(state.set_texture(0, vec![level(5, 3), level(2, 1), level(1, 1)]).is_ok());
        let past = state.set_texture(0, vec![level(2, 1), level(1, 1), level(1, 1)]);
        assert_eq!(past, Err(TextureLevels::LevelSize { level: 2, width: 1, height: 1 }));
        let short = TextureLevel { width: 2, height: 2, texels: vec![[0; 4]; 3] };
        assert_eq!(state.set_texture(0, vec![short]), Err(TextureLevels::Texels { level: 0, found: 3, expected: 4 }));
        // A failed call leaves the unit as it was.
        assert_eq!(state.texture(0).map(Texture::levels), Some(3));
    }

    #[test]
    fn a_sampler_set_later_reaches_the_texture() {
        let mut state = State::new(1).unwrap();
        state.set_texture(3, vec![level(1, 1)]).unwrap();
        let linear = Sampler { filter: crate::Filter::Linear, wrap: crate::Wrap::Clamp };
        state.set_sampler(3, linear);
        assert_eq!(state.texture(3).map(Texture::sampler), Some(linear));
        assert_eq!(state.sample_count(), 0);
        state.set_sample_positions(vec![[0.25, 0.75]]);
        assert_eq!(
            (state.sample_count(), state.sample_position(0), state.sample_position(1)),
            (1, Some([0.25, 0.75]), None)
        );
    }
}
