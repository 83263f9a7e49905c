//! Targets of real drivers, and of 64-bit opcode sets for
//! `legalize-doubles`. Each driver's values are what its
//! `get_shader_param` returned in Mesa of early 2019 (the drivers'
//! shader compilers that `docs/targets.md` judges with are of that time);
//! `docs/targets.md` cites the file and line of each.

use tgsi::{Opcode, Processor};

use crate::{Caps, Target, Wide64};

/// A named target.
#[derive(Clone, Copy, Debug)]
pub struct Preset {
    /// The name `--target` takes.
    pub name: &'static str,
    /// One line for help and errors.
    pub description: &'static str,
    /// Whether the preset is a 64-bit opcode set (what `legalize-doubles`
    /// is checked against) on stages with every other capability, not a
    /// driver.
    pub wide64_set: bool,
    build: fn() -> Target,
    wide: Option<fn() -> Wide64>,
}

impl Preset {
    /// The target.
    pub fn target(&self) -> Target {
        let mut target = (self.build)().named(self.name);
        if let Some(wide) = self.wide {
            target.wide = wide();
        }
        target
    }
}

/// Every preset, in the order help texts list them: drivers first, then
/// the 64-bit opcode sets (each with every other capability).
pub const PRESETS: &[Preset] = &[
    driver("softpipe", "softpipe: Gallium's reference rasterizer (tgsi_exec)", softpipe),
    driver("llvmpipe", "llvmpipe: Gallium's LLVM rasterizer (gallivm)", llvmpipe),
    driver("virgl", "virgl on a desktop GL 4.3 host: no SQRT, no indirect input addressing", virgl),
    driver("svga", "svga, VGPU10 (VMware): no doubles, no 64-bit integers", svga),
    driver("nvc0", "nouveau nvc0 (Fermi to Volta, GK104 here)", nvc0),
    driver("nv50", "nouveau nv50 (Tesla): no subroutines, no doubles", nv50),
    driver("nv30", "nouveau nv30 (GeForce FX): no integers, no flow control, 13 vertex TEMPs", nv30),
    driver("nv40", "nouveau nv40 (GeForce 6/7): no integers, no flow control", nv40),
    driver("r300", "r300 (Radeon 9500 to X850): no integers, no SQRT, no fragment flow control, 32 TEMPs", r300),
    driver("r500", "r500 (Radeon X1000): no integers, no SQRT, 128 fragment TEMPs", r500),
    driver("i915", "i915 (GMA 900 to 3150): fragment only, no integers, no flow control, 12 TEMPs", i915),
    driver("etnaviv-gc2000", "etnaviv, Vivante GC2000: no integers, no subroutines, 64 TEMPs", etnaviv),
    driver("etnaviv-halti2", "etnaviv, a HALTI2 GPU: the same capabilities as GC2000 in the TGSI back end", etnaviv),
    wide64("full", "every 64-bit opcode native: nothing changes", Wide64::full),
    wide64("one-double", "every 64-bit opcode native, one double per instruction", || {
        let mut wide = Wide64::full();
        wide.one_double = true;
        wide
    }),
    wide64("no-fp64-div", "no DDIV, DRCP, DSQRT, DRSQ (Newton-Raphson from an f32 seed)", || {
        Wide64::full().without(&[Opcode::Ddiv, Opcode::Drcp, Opcode::Dsqrt, Opcode::Drsq])
    }),
    wide64(
        "fp64-basic",
        "only DADD, DMUL, DFMA, DSLT, DSGE, DSEQ, DSNE and the double conversions are native doubles",
        Wide64::fp64_basic,
    ),
    wide64("no-fp64", "no double and no 64-bit integer opcode", Wide64::none),
    wide64("no-int64", "doubles native, 64-bit integer opcodes emulated with 32-bit ones", Wide64::doubles_only),
];

/// A driver's preset.
const fn driver(name: &'static str, description: &'static str, build: fn() -> Target) -> Preset {
    Preset { name, description, wide64_set: false, build, wide: None }
}

/// A 64-bit opcode set on stages with every other capability.
const fn wide64(name: &'static str, description: &'static str, wide: fn() -> Wide64) -> Preset {
    Preset { name, description, wide64_set: true, build: everything, wide: Some(wide) }
}

/// Every stage, every capability, every 64-bit opcode.
fn everything() -> Target {
    Target::uniform("", Caps::ALL, Wide64::full())
}

/// The preset called `name`.
pub(crate) fn find(name: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|p| p.name == name)
}

/// The preset names, comma-separated (for error messages).
pub(crate) fn names() -> String {
    PRESETS.iter().map(|p| p.name).collect::<Vec<_>>().join(", ")
}

// The drivers. Each value is what the driver's `get_shader_param` (and
// `get_param` for the 64-bit opcodes) returned in Mesa of early 2019;
// docs/targets.md cites the file and line of each. A bound the driver
// computes at run time from the hardware (sampler counts of some) is left
// unbounded here.

/// What no driver below bounds: every stage cap on, no count limit.
const ANY: Caps = Caps::ALL;

/// No driver of 2019 reads outputs (`PIPE_CAP_TGSI_CAN_READ_OUTPUTS` 0).
const DRIVER: Caps = Caps { can_read_outputs: false, ..ANY };

/// `tgsi_exec_get_shader_param` (tgsi_exec.h): softpipe's stages, and
/// draw's vertex and geometry stages without LLVM.
const TGSI_EXEC: Caps = Caps {
    max_temps: 4096,
    max_control_flow_depth: 32,
    max_instructions: i32::MAX as u32,
    max_const_buffers: 32,
    ..DRIVER
};

/// `gallivm_get_shader_param` (lp_bld_limits.h): llvmpipe's stages.
const GALLIVM: Caps =
    Caps { max_temps: 4096, max_control_flow_depth: 66, max_instructions: 1 << 20, max_const_buffers: 16, ..DRIVER };

/// No integers, no SQRT, no indirect addressing, no subroutines, no flow
/// control, one constant buffer: what nv30, r300 and i915 share.
const FLOAT_ONLY: Caps = Caps {
    integers: false,
    max_control_flow_depth: 0,
    indirect_temp_addr: false,
    indirect_const_addr: false,
    indirect_input_addr: false,
    indirect_output_addr: false,
    subroutines: false,
    sqrt: false,
    max_const_buffers: 1,
    ..DRIVER
};

/// softpipe (sp_screen.c, tgsi_exec.h): vertex, geometry, fragment and
/// compute shaders.
pub(crate) fn softpipe() -> Target {
    let mut t = Target::uniform("softpipe", TGSI_EXEC, Wide64::full());
    t.drop_stages(&[Processor::TessCtrl, Processor::TessEval]);
    t
}

/// A driver running vertex, geometry and fragment shaders with `caps`.
fn no_tess_or_compute(name: &str, caps: Caps, wide: Wide64) -> Target {
    let mut t = Target::uniform(name, caps, wide);
    t.drop_stages(&[Processor::TessCtrl, Processor::TessEval, Processor::Compute]);
    t
}

fn llvmpipe() -> Target {
    no_tess_or_compute("llvmpipe", GALLIVM, Wide64::full())
}

fn virgl() -> Target {
    let caps =
        Caps { max_temps: 256, indirect_input_addr: false, sqrt: false, max_instructions: i32::MAX as u32, ..DRIVER };
    no_tess_or_compute("virgl", caps, Wide64::doubles_only())
}

fn svga() -> Target {
    let caps = Caps {
        max_temps: 4096,
        max_control_flow_depth: 64,
        max_instructions: 64 * 1024,
        max_const_buffers: 14,
        ..DRIVER
    };
    no_tess_or_compute("svga", caps, Wide64::none())
}

fn nvc0() -> Target {
    let caps = Caps {
        max_temps: 128,
        max_control_flow_depth: 16,
        max_instructions: 16384,
        max_const_buffers: 14,
        max_texture_samplers: 32,
        ..DRIVER
    };
    let mut t = Target::uniform("nvc0", caps, Wide64::full());
    t.set_stage(Processor::Fragment, Caps { indirect_output_addr: false, ..caps });
    t.tuning.early_output_stores = true;
    t.tuning.predicated_branches = true;
    t.tuning.zeros_from_temps = true;
    t
}

fn nv50() -> Target {
    // MAX_TEMPS is max_tls_space / 16 bytes, at most 64 KiB / 16.
    let caps = Caps {
        max_temps: 4096,
        max_control_flow_depth: 4,
        subroutines: false,
        max_instructions: 16384,
        max_const_buffers: 14,
        max_texture_samplers: 16,
        ..DRIVER
    };
    let mut t = no_tess_or_compute("nv50", caps, Wide64::none());
    t.set_stage(Processor::Fragment, Caps { indirect_output_addr: false, ..caps });
    t.tuning.early_output_stores = true;
    t.tuning.predicated_branches = true;
    t.tuning.zeros_from_temps = true;
    t
}

/// nv30 and nv40 fragment shaders (nv30_screen.c).
const NV30_FRAGMENT: Caps = Caps { max_temps: 32, max_instructions: 4096, max_texture_samplers: 16, ..FLOAT_ONLY };

fn nv30() -> Target {
    let vertex = Caps { max_temps: 13, max_instructions: 256, max_texture_samplers: 0, ..FLOAT_ONLY };
    Target::vertex_fragment("nv30", vertex, NV30_FRAGMENT, Wide64::none())
}

fn nv40() -> Target {
    let vertex = Caps { max_temps: 32, max_instructions: 512, max_texture_samplers: 0, ..FLOAT_ONLY };
    Target::vertex_fragment("nv40", vertex, NV30_FRAGMENT, Wide64::none())
}

/// r300 and r500 vertex shaders (r300_screen.c, hardware vertex
/// processing): constants may be indexed, nothing else.
const R300_VERTEX: Caps = Caps { max_temps: 32, indirect_const_addr: true, max_texture_samplers: 0, ..FLOAT_ONLY };

fn r300() -> Target {
    let vertex = Caps { max_instructions: 256, ..R300_VERTEX };
    let fragment = Caps { max_temps: 32, max_instructions: 96, ..FLOAT_ONLY };
    let mut t = Target::vertex_fragment("r300", vertex, fragment, Wide64::none());
    t.tuning.early_output_stores = true;
    t.tuning.source_channels = true;
    t
}

fn r500() -> Target {
    let vertex = Caps { max_instructions: 1024, max_control_flow_depth: 4, ..R300_VERTEX };
    let fragment = Caps { max_temps: 128, max_instructions: 512, max_control_flow_depth: 64, ..FLOAT_ONLY };
    let mut t = Target::vertex_fragment("r500", vertex, fragment, Wide64::none());
    t.tuning.early_output_stores = true;
    t
}

fn i915() -> Target {
    // Vertex shaders run in draw, on the CPU, with gallivm's capabilities.
    // The fragment stage says INDIRECT_*_ADDR 1, but its compiler ignores
    // the index of an indirect operand: none here.
    let fragment = Caps { max_temps: 12, max_instructions: 96, max_texture_samplers: 8, ..FLOAT_ONLY };
    let mut t = Target::vertex_fragment("i915", GALLIVM, fragment, Wide64::none());
    t.tuning.whole_texture_writes = true;
    t
}

fn etnaviv() -> Target {
    let caps = Caps {
        integers: false,
        max_temps: 64,
        max_control_flow_depth: 32,
        subroutines: false,
        max_instructions: 2048,
        max_const_buffers: 1,
        ..DRIVER
    };
    let mut t = Target::vertex_fragment("etnaviv", caps, caps, Wide64::none());
    t.tuning.outputs_through_temps = true;
    t.tuning.zeros_from_temps = true;
    t
}
