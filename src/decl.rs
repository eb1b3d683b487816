//! Vertex declarations (Xbox 360 D3DVERTEXELEMENT9) and the per-type element readers.
//!
//! Owns: parsing a declaration from descriptor bytes, the D3DDECLTYPE table (code, size,
//! components), and decoding one element's bytes to `[f32; 4]` with the documented
//! big-endian packing (FORMAT.md §4), including Xbox 360 extended-range halves.

use thiserror::Error;

/// Xbox 360 D3DDECLTYPE.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DeclType {
    Float1,
    Float2,
    Float3,
    Float4,
    Int1,
    Int2,
    Int4,
    Uint1,
    Uint2,
    Uint4,
    Int1N,
    Int2N,
    Int4N,
    Uint1N,
    Uint2N,
    Uint4N,
    D3dColor,
    Ubyte4,
    Byte4,
    Ubyte4N,
    Byte4N,
    Short2,
    Short4,
    Ushort2,
    Ushort4,
    Short2N,
    Short4N,
    Ushort2N,
    Ushort4N,
    Udec3,
    Dec3,
    Udec3N,
    Dec3N,
    Udec4,
    Dec4,
    Udec4N,
    Dec4N,
    Uhend3,
    Hend3,
    Uhend3N,
    Hend3N,
    Udhen3,
    Dhen3,
    Udhen3N,
    Dhen3N,
    Float16_2,
    Float16_4,
}

/// Element usage (D3DDECLUSAGE).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Usage {
    Position,
    BlendWeight,
    BlendIndices,
    Normal,
    PSize,
    TexCoord,
    Tangent,
    Binormal,
    TessFactor,
    PositionT,
    Color,
    Fog,
    Depth,
    Sample,
    Other(u8),
}

/// One D3DVERTEXELEMENT9.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Element {
    pub stream: u16,
    pub offset: u16,
    pub ty: DeclType,
    pub method: u8,
    pub usage: Usage,
    pub usage_index: u8,
}

/// A parsed declaration: its elements in file order (UNUSED elements dropped) and stride.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Declaration {
    pub elements: Vec<Element>,
    /// Largest `offset + size(type)` over the elements (0 for none).
    pub stride: usize,
}

#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum DeclError {
    #[error("declaration element {index} has unknown type code {code:#010x}")]
    UnknownType { index: usize, code: u32 },
    #[error("declaration has no END element within {available} bytes")]
    Unterminated { available: usize },
    #[error("declaration has no elements")]
    Empty,
}

/// Upper bound on elements in one declaration (D3D allows 64 incl. END).
pub const MAX_ELEMENTS: usize = 64;

impl DeclType {
    /// Every type, for tests and tables.
    pub const ALL: [DeclType; 47] = [
        DeclType::Float1,
        DeclType::Float2,
        DeclType::Float3,
        DeclType::Float4,
        DeclType::Int1,
        DeclType::Int2,
        DeclType::Int4,
        DeclType::Uint1,
        DeclType::Uint2,
        DeclType::Uint4,
        DeclType::Int1N,
        DeclType::Int2N,
        DeclType::Int4N,
        DeclType::Uint1N,
        DeclType::Uint2N,
        DeclType::Uint4N,
        DeclType::D3dColor,
        DeclType::Ubyte4,
        DeclType::Byte4,
        DeclType::Ubyte4N,
        DeclType::Byte4N,
        DeclType::Short2,
        DeclType::Short4,
        DeclType::Ushort2,
        DeclType::Ushort4,
        DeclType::Short2N,
        DeclType::Short4N,
        DeclType::Ushort2N,
        DeclType::Ushort4N,
        DeclType::Udec3,
        DeclType::Dec3,
        DeclType::Udec3N,
        DeclType::Dec3N,
        DeclType::Udec4,
        DeclType::Dec4,
        DeclType::Udec4N,
        DeclType::Dec4N,
        DeclType::Uhend3,
        DeclType::Hend3,
        DeclType::Uhend3N,
        DeclType::Hend3N,
        DeclType::Udhen3,
        DeclType::Dhen3,
        DeclType::Udhen3N,
        DeclType::Dhen3N,
        DeclType::Float16_2,
        DeclType::Float16_4,
    ];

    /// The Xbox 360 D3DDECLTYPE code.
    pub fn code(self) -> u32 {
        todo!("decl helper")
    }

    /// Type for a code; `None` for unknown codes (UNUSED 0xFFFFFFFF is handled by the parser).
    pub fn from_code(code: u32) -> Option<DeclType> {
        DeclType::ALL.iter().copied().find(|t| t.code() == code)
    }

    /// Size in bytes of one element of this type.
    pub fn size(self) -> usize {
        todo!("decl helper")
    }

    /// Number of meaningful components (1..=4).
    pub fn components(self) -> usize {
        todo!("decl helper")
    }

    /// Decode one element from exactly `self.size()` bytes (caller guarantees the length).
    /// Missing components are 0 except w, which is 1 where FORMAT.md says so (DEC3 family)
    /// and 0 otherwise.
    pub fn decode(self, bytes: &[u8]) -> [f32; 4] {
        let _ = bytes;
        todo!("decl helper")
    }

    /// Stable display name, e.g. `"FLOAT16_4"`.
    pub fn name(self) -> &'static str {
        todo!("decl helper")
    }
}

impl Usage {
    pub fn from_u8(v: u8) -> Usage {
        let _ = v;
        todo!("decl helper")
    }
    pub fn name(self) -> &'static str {
        todo!("decl helper")
    }
}

/// Xbox 360 half → f32: IEEE binary16 except that exponent 31 is an ordinary number
/// (2^16 · (1 + m/1024)), never Inf/NaN.
pub fn xenos_half_to_f32(bits: u16) -> f32 {
    let _ = bits;
    todo!("decl helper")
}

/// Parse a declaration from `bytes` (starting at the first element). Returns the
/// declaration and the number of bytes consumed including the END element.
pub fn parse_declaration(bytes: &[u8]) -> Result<(Declaration, usize), DeclError> {
    let _ = bytes;
    todo!("decl helper")
}

/// Is the xyz decoded from `bytes` a unit vector within `tol`?
pub fn is_unit_normal(ty: DeclType, bytes: &[u8], tol: f32) -> bool {
    let _ = (ty, bytes, tol);
    todo!("decl helper")
}

/// Tolerance for unit vectors stored in this type's precision.
pub fn unit_tolerance(ty: DeclType) -> f32 {
    let _ = ty;
    todo!("decl helper")
}
