//! Vertex declarations (Xbox 360 D3DVERTEXELEMENT9) and the per-type element readers.
//!
//! Owns: parsing a declaration from descriptor bytes, the D3DDECLTYPE table (code, size,
//! components), and decoding one element's bytes to `[f32; 4]` with the documented
//! big-endian packing (FORMAT.md §4), including Xbox 360 extended-range halves.

use thiserror::Error;

/// `$body` with `$t` bound to the type `$ty`, in an arm of its own for each element type
/// vertex buffers use most, where `$t` is a constant: loops that decode one element per
/// vertex or per offset then have the readers' per-type `match` folded away (a type held
/// as a value is matched at every element). Other types share one arm.
macro_rules! per_common_type {
    ($ty:expr, |$t:ident| $body:expr) => {{
        use $crate::decl::DeclType as T;
        macro_rules! arm {
            ($c:expr) => {{
                #[allow(non_upper_case_globals)]
                const $t: T = $c;
                $body
            }};
        }
        match $ty {
            T::Float3 => arm!(T::Float3),
            T::Float2 => arm!(T::Float2),
            T::Float16_4 => arm!(T::Float16_4),
            T::Float16_2 => arm!(T::Float16_2),
            T::Dec3N => arm!(T::Dec3N),
            T::D3dColor => arm!(T::D3dColor),
            T::Short4N => arm!(T::Short4N),
            T::Ubyte4N => arm!(T::Ubyte4N),
            $t => $body,
        }
    }};
}
pub(crate) use per_common_type;

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

/// Bytes per D3DVERTEXELEMENT9 record.
pub const ELEMENT_SIZE: usize = 12;

/// Type code of the UNUSED element type (also the type word of END).
pub const UNUSED_CODE: u32 = 0xFFFF_FFFF;

/// First u32 of the END element: stream 0x00FF, offset 0.
pub const END_HEAD: u32 = 0x00FF_0000;

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

    /// The Xbox 360 D3DDECLTYPE code (Xbox 360 `d3d9types.h`; the codes are the
    /// `MAKED3DDECLTYPE` packing of GPU vertex format, endian, sign, num-format, swizzle).
    pub fn code(self) -> u32 {
        use DeclType::*;
        match self {
            Float1 => 0x2C83A4,
            Float2 => 0x2C23A5,
            Float3 => 0x2A23B9,
            Float4 => 0x1A23A6,
            Int1 => 0x2C83A1,
            Int2 => 0x2C23A2,
            Int4 => 0x1A23A3,
            Uint1 => 0x2C82A1,
            Uint2 => 0x2C22A2,
            Uint4 => 0x1A22A3,
            Int1N => 0x2C81A1,
            Int2N => 0x2C21A2,
            Int4N => 0x1A21A3,
            Uint1N => 0x2C80A1,
            Uint2N => 0x2C20A2,
            Uint4N => 0x1A20A3,
            D3dColor => 0x182886,
            Ubyte4 => 0x1A2286,
            Byte4 => 0x1A2386,
            Ubyte4N => 0x1A2086,
            Byte4N => 0x1A2186,
            Short2 => 0x2C2359,
            Short4 => 0x1A235A,
            Ushort2 => 0x2C2259,
            Ushort4 => 0x1A225A,
            Short2N => 0x2C2159,
            Short4N => 0x1A215A,
            Ushort2N => 0x2C2059,
            Ushort4N => 0x1A205A,
            Udec3 => 0x2A2287,
            Dec3 => 0x2A2387,
            Udec3N => 0x2A2087,
            Dec3N => 0x2A2187,
            Udec4 => 0x1A2287,
            Dec4 => 0x1A2387,
            Udec4N => 0x1A2087,
            Dec4N => 0x1A2187,
            Uhend3 => 0x2A2290,
            Hend3 => 0x2A2390,
            Uhend3N => 0x2A2090,
            Hend3N => 0x2A2190,
            Udhen3 => 0x2A2291,
            Dhen3 => 0x2A2391,
            Udhen3N => 0x2A2091,
            Dhen3N => 0x2A2191,
            Float16_2 => 0x2C235F,
            Float16_4 => 0x1A2360,
        }
    }

    /// Type for a code; `None` for unknown codes (UNUSED 0xFFFFFFFF is handled by the parser).
    pub fn from_code(code: u32) -> Option<DeclType> {
        DeclType::ALL.iter().copied().find(|t| t.code() == code)
    }

    /// Size in bytes of one element of this type.
    pub const fn size(self) -> usize {
        use DeclType::*;
        match self {
            Float1 | Int1 | Uint1 | Int1N | Uint1N => 4,
            Float2 | Int2 | Uint2 | Int2N | Uint2N => 8,
            Float3 => 12,
            Float4 | Int4 | Uint4 | Int4N | Uint4N => 16,
            D3dColor | Ubyte4 | Byte4 | Ubyte4N | Byte4N => 4,
            Short2 | Ushort2 | Short2N | Ushort2N => 4,
            Short4 | Ushort4 | Short4N | Ushort4N => 8,
            Udec3 | Dec3 | Udec3N | Dec3N | Udec4 | Dec4 | Udec4N | Dec4N => 4,
            Uhend3 | Hend3 | Uhend3N | Hend3N | Udhen3 | Dhen3 | Udhen3N | Dhen3N => 4,
            Float16_2 => 4,
            Float16_4 => 8,
        }
    }

    /// Number of meaningful components (1..=4).
    pub fn components(self) -> usize {
        use DeclType::*;
        match self {
            Float1 | Int1 | Uint1 | Int1N | Uint1N => 1,
            Float2 | Int2 | Uint2 | Int2N | Uint2N => 2,
            Short2 | Ushort2 | Short2N | Ushort2N | Float16_2 => 2,
            Float3 => 3,
            Udec3 | Dec3 | Udec3N | Dec3N => 3,
            Uhend3 | Hend3 | Uhend3N | Hend3N | Udhen3 | Dhen3 | Udhen3N | Dhen3N => 3,
            Float4 | Int4 | Uint4 | Int4N | Uint4N => 4,
            D3dColor | Ubyte4 | Byte4 | Ubyte4N | Byte4N => 4,
            Short4 | Ushort4 | Short4N | Ushort4N | Float16_4 => 4,
            Udec4 | Dec4 | Udec4N | Dec4N => 4,
        }
    }

    /// Whether the decoded values are normalized to `[-1, 1]` (signed) or `[0, 1]`
    /// (unsigned): the `*N` types and D3DCOLOR.
    pub fn is_normalized(self) -> bool {
        use DeclType::*;
        matches!(
            self,
            Int1N
                | Int2N
                | Int4N
                | Uint1N
                | Uint2N
                | Uint4N
                | D3dColor
                | Ubyte4N
                | Byte4N
                | Short2N
                | Short4N
                | Ushort2N
                | Ushort4N
                | Udec3N
                | Dec3N
                | Udec4N
                | Dec4N
                | Uhend3N
                | Hend3N
                | Udhen3N
                | Dhen3N
        )
    }

    /// Decode one element from `self.size()` bytes (big-endian, FORMAT.md §4).
    ///
    /// Missing components: y and z are 0; w is 1 for the three-component packed families
    /// (UDEC3/DEC3(N), UHEND3/HEND3(N), UDHEN3/DHEN3(N)) as FORMAT.md specifies, and 0 for
    /// every other type with fewer than four components. (The GPU itself would expand
    /// e.g. FLOAT16_2 to `(x, y, 0, 1)`; we keep 0 so that only the documented w=1
    /// cases differ from "absent = 0". Consumers should use `components()` anyway.)
    ///
    /// Never panics: extra bytes are ignored, and if fewer than `size()` bytes are given
    /// the missing bytes read as zero (use [`DeclType::try_decode`] to reject short input).
    #[inline]
    pub fn decode(self, bytes: &[u8]) -> [f32; 4] {
        let mut buf = [0u8; 16];
        let n = bytes.len().min(self.size());
        buf[..n].copy_from_slice(&bytes[..n]);
        decode_exact(self, &buf)
    }

    /// Like [`DeclType::decode`] but `None` when `bytes` is shorter than `size()`.
    #[inline]
    pub fn try_decode(self, bytes: &[u8]) -> Option<[f32; 4]> {
        (bytes.len() >= self.size()).then(|| self.decode(bytes))
    }

    /// Stable display name, e.g. `"FLOAT16_4"` (the D3DDECLTYPE name without prefix).
    pub fn name(self) -> &'static str {
        use DeclType::*;
        match self {
            Float1 => "FLOAT1",
            Float2 => "FLOAT2",
            Float3 => "FLOAT3",
            Float4 => "FLOAT4",
            Int1 => "INT1",
            Int2 => "INT2",
            Int4 => "INT4",
            Uint1 => "UINT1",
            Uint2 => "UINT2",
            Uint4 => "UINT4",
            Int1N => "INT1N",
            Int2N => "INT2N",
            Int4N => "INT4N",
            Uint1N => "UINT1N",
            Uint2N => "UINT2N",
            Uint4N => "UINT4N",
            D3dColor => "D3DCOLOR",
            Ubyte4 => "UBYTE4",
            Byte4 => "BYTE4",
            Ubyte4N => "UBYTE4N",
            Byte4N => "BYTE4N",
            Short2 => "SHORT2",
            Short4 => "SHORT4",
            Ushort2 => "USHORT2",
            Ushort4 => "USHORT4",
            Short2N => "SHORT2N",
            Short4N => "SHORT4N",
            Ushort2N => "USHORT2N",
            Ushort4N => "USHORT4N",
            Udec3 => "UDEC3",
            Dec3 => "DEC3",
            Udec3N => "UDEC3N",
            Dec3N => "DEC3N",
            Udec4 => "UDEC4",
            Dec4 => "DEC4",
            Udec4N => "UDEC4N",
            Dec4N => "DEC4N",
            Uhend3 => "UHEND3",
            Hend3 => "HEND3",
            Uhend3N => "UHEND3N",
            Hend3N => "HEND3N",
            Udhen3 => "UDHEN3",
            Dhen3 => "DHEN3",
            Udhen3N => "UDHEN3N",
            Dhen3N => "DHEN3N",
            Float16_2 => "FLOAT16_2",
            Float16_4 => "FLOAT16_4",
        }
    }
}

/// Unsigned bit field `[shift + width - 1 : shift]` of `v`.
#[inline(always)]
fn ufield(v: u32, shift: u32, width: u32) -> u32 {
    (v >> shift) & ((1u32 << width) - 1)
}

/// Sign-extended (two's complement) bit field `[shift + width - 1 : shift]` of `v`.
#[inline(always)]
fn sfield(v: u32, shift: u32, width: u32) -> i32 {
    ((v << (32 - shift - width)) as i32) >> (32 - width)
}

/// Signed normalization: `v / max`, with the one value below `-max` clamped to −1
/// (D3D "FRACTION" rule: −512 in 10 bits reads as −1, not −1.002).
#[inline(always)]
fn snorm(v: i32, max: f32) -> f32 {
    (v as f32 / max).max(-1.0)
}

#[inline(always)]
fn unorm(v: u32, max: f32) -> f32 {
    v as f32 / max
}

/// One packed bit field: the raw integer, or normalised by its width (÷(2^w − 1)
/// unsigned, ÷(2^(w−1) − 1) signed with the most negative value clamped to −1).
#[inline(always)]
fn field(v: u32, (shift, width): (u32, u32), signed: bool, normalized: bool) -> f32 {
    match (signed, normalized) {
        (false, false) => ufield(v, shift, width) as f32,
        (true, false) => sfield(v, shift, width) as f32,
        (false, true) => unorm(ufield(v, shift, width), ((1u32 << width) - 1) as f32),
        (true, true) => snorm(sfield(v, shift, width), ((1u32 << (width - 1)) - 1) as f32),
    }
}

/// Three packed fields and a stored w (or 1.0).
#[inline(always)]
fn packed(v: u32, xyz: [(u32, u32); 3], w: Option<(u32, u32)>, signed: bool, normalized: bool) -> [f32; 4] {
    // Spelled out, not `xyz.map(..)`: this runs at every offset of a data section (the
    // unit-normal scan of a packed type), and whether the array's `map` was inlined
    // changed with unrelated edits elsewhere in the crate (+13 % on an export once).
    let f = |k: usize| field(v, xyz[k], signed, normalized);
    [f(0), f(1), f(2), w.map_or(1.0, |f| field(v, f, signed, normalized))]
}

/// 32-bit signed normalization, computed in f64 so the result is the correctly rounded f32.
#[inline(always)]
fn snorm32(v: u32) -> f32 {
    ((v as i32 as f64) / 2_147_483_647.0).max(-1.0) as f32
}

#[inline(always)]
fn unorm32(v: u32) -> f32 {
    (v as f64 / 4_294_967_295.0) as f32
}

/// Decode from a zero-padded 16-byte buffer (the largest element is 16 bytes).
#[inline(always)]
fn decode_exact(ty: DeclType, b: &[u8; 16]) -> [f32; 4] {
    use DeclType::*;
    let w = |i: usize| u32::from_be_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]]);
    let h = |i: usize| u16::from_be_bytes([b[2 * i], b[2 * i + 1]]);
    let f = |i: usize| f32::from_bits(w(i));
    let xh = |i: usize| xenos_half_to_f32_fast(h(i));
    let si = |i: usize| w(i) as i32 as f32;
    let ui = |i: usize| w(i) as f32;
    let s16 = |i: usize| h(i) as i16 as i32;
    let u16v = |i: usize| h(i) as u32;
    match ty {
        Float1 => [f(0), 0.0, 0.0, 0.0],
        Float2 => [f(0), f(1), 0.0, 0.0],
        Float3 => [f(0), f(1), f(2), 0.0],
        Float4 => [f(0), f(1), f(2), f(3)],
        Int1 => [si(0), 0.0, 0.0, 0.0],
        Int2 => [si(0), si(1), 0.0, 0.0],
        Int4 => [si(0), si(1), si(2), si(3)],
        Uint1 => [ui(0), 0.0, 0.0, 0.0],
        Uint2 => [ui(0), ui(1), 0.0, 0.0],
        Uint4 => [ui(0), ui(1), ui(2), ui(3)],
        Int1N => [snorm32(w(0)), 0.0, 0.0, 0.0],
        Int2N => [snorm32(w(0)), snorm32(w(1)), 0.0, 0.0],
        Int4N => [snorm32(w(0)), snorm32(w(1)), snorm32(w(2)), snorm32(w(3))],
        Uint1N => [unorm32(w(0)), 0.0, 0.0, 0.0],
        Uint2N => [unorm32(w(0)), unorm32(w(1)), 0.0, 0.0],
        Uint4N => [unorm32(w(0)), unorm32(w(1)), unorm32(w(2)), unorm32(w(3))],
        D3dColor => {
            // 0xAARRGGBB → (R, G, B, A).
            let v = w(0);
            [
                unorm(ufield(v, 16, 8), 255.0),
                unorm(ufield(v, 8, 8), 255.0),
                unorm(ufield(v, 0, 8), 255.0),
                unorm(ufield(v, 24, 8), 255.0),
            ]
        }
        Ubyte4 | Ubyte4N => {
            let v = w(0);
            let c = |s| ufield(v, s, 8);
            if ty == Ubyte4 {
                [c(0) as f32, c(8) as f32, c(16) as f32, c(24) as f32]
            } else {
                [
                    unorm(c(0), 255.0),
                    unorm(c(8), 255.0),
                    unorm(c(16), 255.0),
                    unorm(c(24), 255.0),
                ]
            }
        }
        Byte4 | Byte4N => {
            let v = w(0);
            let c = |s| sfield(v, s, 8);
            if ty == Byte4 {
                [c(0) as f32, c(8) as f32, c(16) as f32, c(24) as f32]
            } else {
                [
                    snorm(c(0), 127.0),
                    snorm(c(8), 127.0),
                    snorm(c(16), 127.0),
                    snorm(c(24), 127.0),
                ]
            }
        }
        Short2 => [s16(0) as f32, s16(1) as f32, 0.0, 0.0],
        Short4 => [s16(0) as f32, s16(1) as f32, s16(2) as f32, s16(3) as f32],
        Ushort2 => [u16v(0) as f32, u16v(1) as f32, 0.0, 0.0],
        Ushort4 => [u16v(0) as f32, u16v(1) as f32, u16v(2) as f32, u16v(3) as f32],
        Short2N => [snorm(s16(0), 32767.0), snorm(s16(1), 32767.0), 0.0, 0.0],
        Short4N => [
            snorm(s16(0), 32767.0),
            snorm(s16(1), 32767.0),
            snorm(s16(2), 32767.0),
            snorm(s16(3), 32767.0),
        ],
        Ushort2N => [unorm(u16v(0), 65535.0), unorm(u16v(1), 65535.0), 0.0, 0.0],
        Ushort4N => [
            unorm(u16v(0), 65535.0),
            unorm(u16v(1), 65535.0),
            unorm(u16v(2), 65535.0),
            unorm(u16v(3), 65535.0),
        ],
        // The packed families, one table: DEC 10:10:10(:2) — x [9:0], y [19:10], z [29:20],
        // w [31:30] for DEC4; HEND 11:11:10 — x [10:0], y [21:11], z [31:22]; DHEN 10:11:11 —
        // x [9:0], y [20:10], z [31:21]. No stored w reads as 1.
        Udec3 | Dec3 | Udec3N | Dec3N | Udec4 | Dec4 | Udec4N | Dec4N | Uhend3 | Hend3 | Uhend3N | Hend3N | Udhen3
        | Dhen3 | Udhen3N | Dhen3N => {
            const DEC: [(u32, u32); 3] = [(0, 10), (10, 10), (20, 10)];
            const HEND: [(u32, u32); 3] = [(0, 11), (11, 11), (22, 10)];
            const DHEN: [(u32, u32); 3] = [(0, 10), (10, 11), (21, 11)];
            let xyz = match ty {
                Uhend3 | Hend3 | Uhend3N | Hend3N => HEND,
                Udhen3 | Dhen3 | Udhen3N | Dhen3N => DHEN,
                _ => DEC,
            };
            let stored_w = matches!(ty, Udec4 | Dec4 | Udec4N | Dec4N).then_some((30, 2));
            let signed = matches!(ty, Dec3 | Dec3N | Dec4 | Dec4N | Hend3 | Hend3N | Dhen3 | Dhen3N);
            let normalized = matches!(
                ty,
                Udec3N | Dec3N | Udec4N | Dec4N | Uhend3N | Hend3N | Udhen3N | Dhen3N
            );
            packed(w(0), xyz, stored_w, signed, normalized)
        }
        Float16_2 => [xh(0), xh(1), 0.0, 0.0],
        Float16_4 => [xh(0), xh(1), xh(2), xh(3)],
    }
}

impl Usage {
    /// D3DDECLUSAGE byte → usage; values above 13 are kept as `Other(v)`.
    pub fn from_u8(v: u8) -> Usage {
        use Usage::*;
        match v {
            0 => Position,
            1 => BlendWeight,
            2 => BlendIndices,
            3 => Normal,
            4 => PSize,
            5 => TexCoord,
            6 => Tangent,
            7 => Binormal,
            8 => TessFactor,
            9 => PositionT,
            10 => Color,
            11 => Fog,
            12 => Depth,
            13 => Sample,
            other => Other(other),
        }
    }

    /// The D3DDECLUSAGE byte (inverse of [`Usage::from_u8`]).
    pub fn to_u8(self) -> u8 {
        use Usage::*;
        match self {
            Position => 0,
            BlendWeight => 1,
            BlendIndices => 2,
            Normal => 3,
            PSize => 4,
            TexCoord => 5,
            Tangent => 6,
            Binormal => 7,
            TessFactor => 8,
            PositionT => 9,
            Color => 10,
            Fog => 11,
            Depth => 12,
            Sample => 13,
            Other(v) => v,
        }
    }

    /// D3DDECLUSAGE name without prefix, e.g. `"TEXCOORD"`; `"OTHER"` for unknown values.
    pub fn name(self) -> &'static str {
        use Usage::*;
        match self {
            Position => "POSITION",
            BlendWeight => "BLENDWEIGHT",
            BlendIndices => "BLENDINDICES",
            Normal => "NORMAL",
            PSize => "PSIZE",
            TexCoord => "TEXCOORD",
            Tangent => "TANGENT",
            Binormal => "BINORMAL",
            TessFactor => "TESSFACTOR",
            PositionT => "POSITIONT",
            Color => "COLOR",
            Fog => "FOG",
            Depth => "DEPTH",
            Sample => "SAMPLE",
            Other(_) => "OTHER",
        }
    }
}

/// Xbox 360 half → f32: IEEE binary16 except that exponent 31 is an ordinary number
/// (2^16 · (1 + m/1024)), never Inf/NaN. So the largest magnitude is 131008 and every
/// bit pattern decodes to a finite value.
#[inline]
pub fn xenos_half_to_f32(bits: u16) -> f32 {
    if bits & 0x7C00 == 0x7C00 {
        // Exponent 31: rebias 31 − 15 + 127 = 143 and keep the mantissa, exactly as an
        // ordinary normal number would be widened.
        let sign = ((bits & 0x8000) as u32) << 16;
        let mant = ((bits & 0x03FF) as u32) << 13;
        f32::from_bits(sign | (143 << 23) | mant)
    } else {
        half::f16::from_bits(bits).to_f32()
    }
}

/// Parse a declaration from `bytes` (starting at the first element). Returns the
/// declaration and the number of bytes consumed including the END element.
///
/// Element records are read until END (first u32 `0x00FF0000`, type `0xFFFFFFFF`);
/// at most [`MAX_ELEMENTS`] records (END included) are examined. Non-END records with
/// type UNUSED are skipped. `UnknownType::index` is the record's position in the file
/// (counting skipped UNUSED records). Never panics; allocates at most `MAX_ELEMENTS`.
pub fn parse_declaration(bytes: &[u8]) -> Result<(Declaration, usize), DeclError> {
    let mut elements = Vec::new();
    let mut stride = 0usize;
    for (index, rec) in bytes.chunks_exact(ELEMENT_SIZE).take(MAX_ELEMENTS).enumerate() {
        let head = u32::from_be_bytes([rec[0], rec[1], rec[2], rec[3]]);
        let code = u32::from_be_bytes([rec[4], rec[5], rec[6], rec[7]]);
        if code == UNUSED_CODE {
            if head == END_HEAD {
                if elements.is_empty() {
                    return Err(DeclError::Empty);
                }
                let consumed = (index + 1) * ELEMENT_SIZE;
                return Ok((Declaration { elements, stride }, consumed));
            }
            continue;
        }
        let ty = DeclType::from_code(code).ok_or(DeclError::UnknownType { index, code })?;
        let offset = u16::from_be_bytes([rec[2], rec[3]]);
        stride = stride.max(offset as usize + ty.size());
        elements.push(Element {
            stream: u16::from_be_bytes([rec[0], rec[1]]),
            offset,
            ty,
            method: rec[8],
            usage: Usage::from_u8(rec[9]),
            usage_index: rec[10],
        });
    }
    Err(DeclError::Unterminated {
        available: bytes.len().min(MAX_ELEMENTS * ELEMENT_SIZE),
    })
}

/// Length tolerance for a unit vector stored in `ty` by rounding each component of an
/// exactly unit vector to the nearest representable value.
///
/// Justification: if each of the three components is off by at most half a quantum `q/2`,
/// the error vector has length ≤ √3·q/2 ≈ 0.87·q, and by the triangle inequality so does
/// the length error. The tolerances below are that bound times a safety factor of about
/// 3–4 (authoring tools may renormalise in low precision, or quantise with truncation
/// instead of rounding, which doubles the bound), i.e. ≈ 2√3·q:
///
/// - FLOAT*, INT*N/UINT*N (f32 output, q ≈ 2^-24 near 1): 1e-5 — essentially exact, with
///   room for f32 renormalisation (a few ulp) by the exporter that wrote the file;
/// - FLOAT16_*: largest spacing in [0.5, 1) is 2^-11 ≈ 4.9e-4, bound 4.2e-4 → 2e-3;
/// - 10-bit signed (DEC3N/DEC4N, and the 10-bit axis of HEND3N/DHEN3N), q = 1/511:
///   bound 1.7e-3 → 6e-3;
/// - 10-bit unsigned (UDEC3N/UDEC4N, UHEND3N/UDHEN3N coarsest axis), q = 1/1023 → 3e-3;
/// - BYTE4N, q = 1/127: bound 6.8e-3 → 2e-2;  UBYTE4N / D3DCOLOR, q = 1/255 → 1e-2;
/// - SHORT*N (q = 1/32767, bound 2.6e-5) and USHORT*N (q = 1/65535) → 1e-4;
/// - non-normalized integer types (UBYTE4, SHORT2, DEC3, ...) can only hold axis-aligned
///   unit vectors, which they store exactly: 1e-5.
pub fn unit_tolerance(ty: DeclType) -> f32 {
    use DeclType::*;
    match ty {
        Float16_2 | Float16_4 => 2e-3,
        Dec3N | Dec4N | Hend3N | Dhen3N => 6e-3,
        Udec3N | Udec4N | Uhend3N | Udhen3N => 3e-3,
        Byte4N => 2e-2,
        Ubyte4N | D3dColor => 1e-2,
        Short2N | Short4N | Ushort2N | Ushort4N => 1e-4,
        Float1 | Float2 | Float3 | Float4 => 1e-5,
        Int1N | Int2N | Int4N | Uint1N | Uint2N | Uint4N => 1e-5,
        Int1 | Int2 | Int4 | Uint1 | Uint2 | Uint4 => 1e-5,
        Ubyte4 | Byte4 | Short2 | Short4 | Ushort2 | Ushort4 => 1e-5,
        Udec3 | Dec3 | Udec4 | Dec4 => 1e-5,
        Uhend3 | Hend3 | Udhen3 | Dhen3 => 1e-5,
    }
}

/// Branch-light Xenos half → f32 for the scan hot path; bit-identical to
/// [`xenos_half_to_f32`] for all 65536 inputs (exhaustively tested).
///
/// For exponent 1..=31 the f32 is the half's exponent and mantissa rebiased by
/// 127 − 15 = 112 (exponent 31 thus becomes 2^16, the Xenos reading); exponent 0 is
/// `m · 2^-24`, exact in f32.
#[inline(always)]
pub fn xenos_half_to_f32_fast(bits: u16) -> f32 {
    let sign = ((bits & 0x8000) as u32) << 16;
    let em = (bits & 0x7FFF) as u32;
    let mag = if em >= 0x0400 {
        f32::from_bits((em << 13) + (112 << 23))
    } else {
        em as f32 * (1.0 / 16_777_216.0)
    };
    f32::from_bits(mag.to_bits() | sign)
}

/// The x, y, z of one element, without the full decode for the hot types.
#[inline(always)]
fn xyz(ty: DeclType, b: &[u8]) -> [f32; 3] {
    match ty {
        DeclType::Float16_4 if b.len() >= 6 => [
            xenos_half_to_f32_fast(u16::from_be_bytes([b[0], b[1]])),
            xenos_half_to_f32_fast(u16::from_be_bytes([b[2], b[3]])),
            xenos_half_to_f32_fast(u16::from_be_bytes([b[4], b[5]])),
        ],
        DeclType::Float3 | DeclType::Float4 if b.len() >= 12 => [
            f32::from_bits(u32::from_be_bytes([b[0], b[1], b[2], b[3]])),
            f32::from_bits(u32::from_be_bytes([b[4], b[5], b[6], b[7]])),
            f32::from_bits(u32::from_be_bytes([b[8], b[9], b[10], b[11]])),
        ],
        _ => {
            // Zero-copy when 16 bytes are available (the common case inside a file).
            let v = match b.get(..16).and_then(|s| <&[u8; 16]>::try_from(s).ok()) {
                Some(full) => decode_exact(ty, full),
                None => ty.decode(b),
            };
            [v[0], v[1], v[2]]
        }
    }
}

/// Whether the xyz decoded from `bytes` (at least `ty.size()` bytes; shorter → false)
/// has length within `tol` of 1. False for non-finite components. Allocation-free and
/// branch-light: meant to be called at every even offset of a whole file.
#[inline]
pub fn is_unit_normal(ty: DeclType, bytes: &[u8], tol: f32) -> bool {
    if bytes.len() < ty.size() {
        return false;
    }
    let [x, y, z] = xyz(ty, bytes);
    let len2 = x * x + y * y + z * z;
    // |len − 1| ≤ tol  ⇔  (1 − tol)² ≤ len² ≤ (1 + tol)² for len ≥ 0. NaN fails both
    // comparisons; an infinite component gives len² = ∞ > hi (or NaN), so false too.
    let lo = (1.0 - tol).max(0.0);
    let hi = 1.0 + tol;
    len2 >= lo * lo && len2 <= hi * hi
}
