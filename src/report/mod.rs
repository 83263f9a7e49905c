//! Statistics of shaders, and the comparison of two sets of them in the
//! form of Mesa's shader-db `report.py`: what `tgsi-opt report` prints.
//!
//! ```
//! use tgsi_opt::{report::{Stat, Stats}, tgsi};
//!
//! let shader = tgsi::parse("FRAG\nDCL OUT[0], COLOR\nDCL TEMP[0..1]\nMOV OUT[0], TEMP[1]\nEND\n")?;
//! let stats = Stats::of(&shader);
//! assert_eq!((stats[Stat::Instructions], stats[Stat::Temps]), (1, 2));
//! # Ok::<(), tgsi::ParseError>(())
//! ```

mod compare;
mod csv;
mod render;

pub use compare::{Comparison, StatChange};
pub use csv::{read_csv, CsvError};
pub use render::{render_comparison, render_stats, Form};

use std::ops::{Index, IndexMut};

use tgsi::{flags, Opcode, Processor, Shader};

/// One statistic of a shader.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stat {
    /// Instructions, `END` aside (as `tgsistat.py` counts them).
    Instructions,
    /// Declared TEMP registers, arrays included (as `tgsistat.py` counts them).
    Temps,
    /// Arithmetic instructions: neither texture, memory nor control flow.
    Alu,
    /// Texture and resource-sampling instructions (`TEX`..., `SAMPLE`...).
    Texture,
    /// Memory instructions (`LOAD`, `STORE`, atomics, `RESQ`, `BARRIER`).
    Memory,
    /// Control-flow instructions (`IF`, `ENDIF`, loops, calls, `KILL`...;
    /// `END` aside).
    Flow,
    /// `IMM` declarations.
    Immediates,
    /// Loops (`BGNLOOP`).
    Loops,
}

impl Stat {
    /// Every statistic, in the order every output form lists them.
    pub const ALL: [Stat; 8] = [
        Stat::Instructions,
        Stat::Temps,
        Stat::Alu,
        Stat::Texture,
        Stat::Memory,
        Stat::Flow,
        Stat::Immediates,
        Stat::Loops,
    ];

    /// The name outputs use: a CSV column, a JSON key, a table row.
    pub fn name(self) -> &'static str {
        match self {
            Stat::Instructions => "instructions",
            Stat::Temps => "temps",
            Stat::Alu => "alu",
            Stat::Texture => "texture",
            Stat::Memory => "memory",
            Stat::Flow => "flow",
            Stat::Immediates => "immediates",
            Stat::Loops => "loops",
        }
    }

    /// The statistic called `name`.
    pub fn from_name(name: &str) -> Option<Stat> {
        Stat::ALL.into_iter().find(|s| s.name() == name)
    }
}

/// What one shader (or a set of them, summed) costs: a count per [`Stat`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats([u64; Stat::ALL.len()]);

impl Stats {
    /// Counts `shader`.
    pub fn of(shader: &Shader) -> Stats {
        let mut stats = Stats::default();
        stats[Stat::Temps] = shader.temp_registers().into();
        stats[Stat::Immediates] = shader.immediates().count() as u64;
        for inst in shader.instructions().filter(|i| i.opcode != Opcode::End) {
            let info = inst.opcode.info();
            stats[Stat::Instructions] += 1;
            let kind = if info.has(flags::CONTROL_FLOW) {
                Stat::Flow
            } else if info.has(flags::TEX) || info.has(flags::SAMPLE) {
                Stat::Texture
            } else if info.has(flags::MEMORY) || info.has(flags::STORE) {
                Stat::Memory
            } else {
                Stat::Alu
            };
            stats[kind] += 1;
            stats[Stat::Loops] += u64::from(inst.opcode == Opcode::Bgnloop);
        }
        stats
    }

    /// The sum of two counts.
    pub fn add(&self, other: &Stats) -> Stats {
        let mut sum = *self;
        for stat in Stat::ALL {
            sum[stat] += other[stat];
        }
        sum
    }
}

impl Index<Stat> for Stats {
    type Output = u64;
    fn index(&self, stat: Stat) -> &u64 {
        &self.0[stat as usize]
    }
}

impl IndexMut<Stat> for Stats {
    fn index_mut(&mut self, stat: Stat) -> &mut u64 {
        &mut self.0[stat as usize]
    }
}

/// One shader's statistics, under the name it is reported by.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShaderStats {
    /// The file, relative to the directory it was found in (or as given).
    pub file: String,
    /// The stage.
    pub stage: Processor,
    /// What it costs.
    pub stats: Stats,
}

/// The totals of a set of shaders: all of them, then each stage present
/// (in Mesa's stage order) with its shader count.
pub fn totals(shaders: &[ShaderStats]) -> (Stats, Vec<(Processor, usize, Stats)>) {
    let mut all = Stats::default();
    let mut stages: Vec<(Processor, usize, Stats)> = Vec::new();
    for shader in shaders {
        all = all.add(&shader.stats);
        match stages.iter_mut().find(|(stage, _, _)| *stage == shader.stage) {
            Some((_, count, stats)) => {
                *count += 1;
                *stats = stats.add(&shader.stats);
            }
            None => stages.push((shader.stage, 1, shader.stats)),
        }
    }
    stages.sort_by_key(|(stage, _, _)| *stage);
    (all, stages)
}
