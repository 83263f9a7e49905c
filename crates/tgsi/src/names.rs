//! The named enumerations of TGSI, each with Mesa's numbering (the value
//! stored in binary tokens) and Mesa's spelling (the text the parser accepts
//! and `tgsi_dump` prints).

/// Declares a `#[repr(u8)]` enum whose discriminants are Mesa's numbers and
/// whose `name()` is Mesa's spelling.
macro_rules! named_enum {
    ($(#[$meta:meta])* $vis:vis enum $name:ident { $($(#[$vmeta:meta])* $variant:ident = $text:literal,)* }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u8)]
        $vis enum $name { $($(#[$vmeta])* $variant,)* }

        impl $name {
            /// Every value, in Mesa's numeric order.
            pub const ALL: &'static [$name] = &[$($name::$variant,)*];

            /// Mesa's spelling.
            pub fn name(self) -> &'static str {
                match self { $($name::$variant => $text,)* }
            }

            /// The value with Mesa's number `n`, if there is one.
            pub fn from_index(n: u32) -> Option<Self> {
                Self::ALL.get(n as usize).copied()
            }

            /// Mesa's number for this value.
            pub fn index(self) -> u32 {
                self as u32
            }

            /// Looks a name up, ignoring ASCII case as Mesa's parser does.
            pub fn from_name(text: &str) -> Option<Self> {
                Self::ALL.iter().copied().find(|v| v.name().eq_ignore_ascii_case(text))
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}

named_enum! {
    /// The shader stage (`tgsi_processor`, Mesa's `MESA_SHADER_*` numbering).
    pub enum Processor {
        Vertex = "VERT",
        TessCtrl = "TESS_CTRL",
        TessEval = "TESS_EVAL",
        Geometry = "GEOM",
        Fragment = "FRAG",
        Compute = "COMP",
    }
}

named_enum! {
    /// A register file (`TGSI_FILE_*`).
    pub enum File {
        Null = "NULL",
        Constant = "CONST",
        Input = "IN",
        Output = "OUT",
        Temporary = "TEMP",
        Sampler = "SAMP",
        Address = "ADDR",
        Immediate = "IMM",
        SystemValue = "SV",
        Image = "IMAGE",
        SamplerView = "SVIEW",
        Buffer = "BUFFER",
        Memory = "MEMORY",
        ConstBuf = "CONSTBUF",
        HwAtomic = "HWATOMIC",
    }
}

named_enum! {
    /// A declaration's semantic name (`TGSI_SEMANTIC_*`).
    pub enum SemanticName {
        Position = "POSITION",
        Color = "COLOR",
        BColor = "BCOLOR",
        Fog = "FOG",
        PSize = "PSIZE",
        Generic = "GENERIC",
        Normal = "NORMAL",
        Face = "FACE",
        EdgeFlag = "EDGEFLAG",
        PrimId = "PRIM_ID",
        InstanceId = "INSTANCEID",
        VertexId = "VERTEXID",
        Stencil = "STENCIL",
        ClipDist = "CLIPDIST",
        ClipVertex = "CLIPVERTEX",
        GridSize = "GRID_SIZE",
        BlockId = "BLOCK_ID",
        BlockSize = "BLOCK_SIZE",
        ThreadId = "THREAD_ID",
        TexCoord = "TEXCOORD",
        PCoord = "PCOORD",
        ViewportIndex = "VIEWPORT_INDEX",
        Layer = "LAYER",
        SampleId = "SAMPLEID",
        SamplePos = "SAMPLEPOS",
        SampleMask = "SAMPLEMASK",
        InvocationId = "INVOCATIONID",
        VertexIdNoBase = "VERTEXID_NOBASE",
        BaseVertex = "BASEVERTEX",
        Patch = "PATCH",
        TessCoord = "TESSCOORD",
        TessOuter = "TESSOUTER",
        TessInner = "TESSINNER",
        VerticesIn = "VERTICESIN",
        HelperInvocation = "HELPER_INVOCATION",
        BaseInstance = "BASEINSTANCE",
        DrawId = "DRAWID",
        WorkDim = "WORK_DIM",
        SubgroupSize = "SUBGROUP_SIZE",
        SubgroupInvocation = "SUBGROUP_INVOCATION",
        SubgroupEqMask = "SUBGROUP_EQ_MASK",
        SubgroupGeMask = "SUBGROUP_GE_MASK",
        SubgroupGtMask = "SUBGROUP_GT_MASK",
        SubgroupLeMask = "SUBGROUP_LE_MASK",
        SubgroupLtMask = "SUBGROUP_LT_MASK",
        CsUserDataAmd = "CS_USER_DATA_AMD",
        ViewportMask = "VIEWPORT_MASK",
    }
}

named_enum! {
    /// A texture target (`TGSI_TEXTURE_*`).
    pub enum TextureTarget {
        Buffer = "BUFFER",
        T1D = "1D",
        T2D = "2D",
        T3D = "3D",
        Cube = "CUBE",
        Rect = "RECT",
        Shadow1D = "SHADOW1D",
        Shadow2D = "SHADOW2D",
        ShadowRect = "SHADOWRECT",
        Array1D = "1D_ARRAY",
        Array2D = "2D_ARRAY",
        Shadow1DArray = "SHADOW1D_ARRAY",
        Shadow2DArray = "SHADOW2D_ARRAY",
        ShadowCube = "SHADOWCUBE",
        Msaa2D = "2D_MSAA",
        ArrayMsaa2D = "2D_ARRAY_MSAA",
        CubeArray = "CUBEARRAY",
        ShadowCubeArray = "SHADOWCUBEARRAY",
        Unknown = "UNKNOWN",
    }
}

named_enum! {
    /// A sampler view's return type (`TGSI_RETURN_TYPE_*`).
    pub enum ReturnType {
        Unorm = "UNORM",
        Snorm = "SNORM",
        Sint = "SINT",
        Uint = "UINT",
        Float = "FLOAT",
    }
}

named_enum! {
    /// An interpolation mode (`TGSI_INTERPOLATE_*`).
    pub enum InterpolateMode {
        Constant = "CONSTANT",
        Linear = "LINEAR",
        Perspective = "PERSPECTIVE",
        Color = "COLOR",
    }
}

named_enum! {
    /// An interpolation location (`TGSI_INTERPOLATE_LOC_*`).
    pub enum InterpolateLocation {
        Center = "CENTER",
        Centroid = "CENTROID",
        Sample = "SAMPLE",
    }
}

named_enum! {
    /// The kind of a `MEMORY` declaration (`TGSI_MEMORY_TYPE_*`).
    pub enum MemoryType {
        Global = "GLOBAL",
        Shared = "SHARED",
        Private = "PRIVATE",
        Input = "INPUT",
    }
}

named_enum! {
    /// The type of an immediate's data (`TGSI_IMM_*`).
    pub enum ImmediateType {
        Float32 = "FLT32",
        Uint32 = "UINT32",
        Int32 = "INT32",
        Float64 = "FLT64",
        Uint64 = "UINT64",
        Int64 = "INT64",
    }
}

impl ImmediateType {
    /// Whether each value takes two 32-bit words.
    pub fn is_64bit(self) -> bool {
        matches!(self, Self::Float64 | Self::Uint64 | Self::Int64)
    }
}

named_enum! {
    /// A property name (`TGSI_PROPERTY_*`).
    pub enum PropertyName {
        GsInputPrimitive = "GS_INPUT_PRIMITIVE",
        GsOutputPrimitive = "GS_OUTPUT_PRIMITIVE",
        GsMaxOutputVertices = "GS_MAX_OUTPUT_VERTICES",
        FsCoordOrigin = "FS_COORD_ORIGIN",
        FsCoordPixelCenter = "FS_COORD_PIXEL_CENTER",
        FsColor0WritesAllCbufs = "FS_COLOR0_WRITES_ALL_CBUFS",
        FsDepthLayout = "FS_DEPTH_LAYOUT",
        VsProhibitUcps = "VS_PROHIBIT_UCPS",
        GsInvocations = "GS_INVOCATIONS",
        VsWindowSpacePosition = "VS_WINDOW_SPACE_POSITION",
        TcsVerticesOut = "TCS_VERTICES_OUT",
        TesPrimMode = "TES_PRIM_MODE",
        TesSpacing = "TES_SPACING",
        TesVertexOrderCw = "TES_VERTEX_ORDER_CW",
        TesPointMode = "TES_POINT_MODE",
        NumClipdistEnabled = "NUM_CLIPDIST_ENABLED",
        NumCulldistEnabled = "NUM_CULLDIST_ENABLED",
        FsEarlyDepthStencil = "FS_EARLY_DEPTH_STENCIL",
        FsPostDepthCoverage = "FS_POST_DEPTH_COVERAGE",
        NextShader = "NEXT_SHADER",
        CsFixedBlockWidth = "CS_FIXED_BLOCK_WIDTH",
        CsFixedBlockHeight = "CS_FIXED_BLOCK_HEIGHT",
        CsFixedBlockDepth = "CS_FIXED_BLOCK_DEPTH",
        LegacyMathRules = "LEGACY_MATH_RULES",
        VsBlitSgprsAmd = "VS_BLIT_SGPRS_AMD",
        CsUserDataComponentsAmd = "CS_USER_DATA_COMPONENTS_AMD",
        LayerViewportRelative = "LAYER_VIEWPORT_RELATIVE",
        FsBlendEquationAdvanced = "FS_BLEND_EQUATION_ADVANCED",
        SeparableProgram = "SEPARABLE_PROGRAM",
    }
}

/// How a property's value is spelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PropertyValueKind {
    /// A primitive name (`TRIANGLES`, ...).
    Primitive,
    /// `UPPER_LEFT` or `LOWER_LEFT`.
    CoordOrigin,
    /// `HALF_INTEGER` or `INTEGER`.
    PixelCenter,
    /// A processor name (`FRAG`, ...).
    Processor,
    /// A plain unsigned integer.
    Uint,
}

impl PropertyName {
    /// How this property's value is written in text.
    pub fn value_kind(self) -> PropertyValueKind {
        match self {
            Self::GsInputPrimitive | Self::GsOutputPrimitive => PropertyValueKind::Primitive,
            Self::FsCoordOrigin => PropertyValueKind::CoordOrigin,
            Self::FsCoordPixelCenter => PropertyValueKind::PixelCenter,
            Self::NextShader => PropertyValueKind::Processor,
            _ => PropertyValueKind::Uint,
        }
    }
}

named_enum! {
    /// A primitive type (`MESA_PRIM_*`), the value of the GS primitive properties.
    pub enum Primitive {
        Points = "POINTS",
        Lines = "LINES",
        LineLoop = "LINE_LOOP",
        LineStrip = "LINE_STRIP",
        Triangles = "TRIANGLES",
        TriangleStrip = "TRIANGLE_STRIP",
        TriangleFan = "TRIANGLE_FAN",
        Quads = "QUADS",
        QuadStrip = "QUAD_STRIP",
        Polygon = "POLYGON",
        LinesAdjacency = "LINES_ADJACENCY",
        LineStripAdjacency = "LINE_STRIP_ADJACENCY",
        TrianglesAdjacency = "TRIANGLES_ADJACENCY",
        TriangleStripAdjacency = "TRIANGLE_STRIP_ADJACENCY",
        Patches = "PATCHES",
    }
}

impl Primitive {
    /// How many vertices one primitive of this type has as geometry-shader
    /// input (Mesa's `mesa_vertices_per_prim`).
    pub fn vertices(self) -> u32 {
        match self {
            Self::Points => 1,
            Self::Lines | Self::LineLoop | Self::LineStrip => 2,
            Self::Triangles | Self::TriangleStrip | Self::TriangleFan => 3,
            Self::LinesAdjacency | Self::LineStripAdjacency => 4,
            Self::TrianglesAdjacency | Self::TriangleStripAdjacency => 6,
            // Mesa answers 0 for these; a following `[]` then has no size.
            Self::Quads | Self::QuadStrip | Self::Polygon | Self::Patches => 0,
        }
    }
}

named_enum! {
    /// `FS_COORD_ORIGIN` values.
    pub enum CoordOrigin {
        UpperLeft = "UPPER_LEFT",
        LowerLeft = "LOWER_LEFT",
    }
}

named_enum! {
    /// `FS_COORD_PIXEL_CENTER` values.
    pub enum PixelCenter {
        HalfInteger = "HALF_INTEGER",
        Integer = "INTEGER",
    }
}

named_enum! {
    /// A memory access qualifier bit (`TGSI_MEMORY_*`): the bit is `1 << index`.
    pub enum MemoryQualifier {
        Coherent = "COHERENT",
        Restrict = "RESTRICT",
        Volatile = "VOLATILE",
        StreamCachePolicy = "STREAM_CACHE_POLICY",
    }
}

/// The component letters, in order.
pub const SWIZZLE_NAMES: [char; 4] = ['x', 'y', 'z', 'w'];
