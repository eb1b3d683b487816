//! Vertex formats as the generator writes them: its own D3DDECLTYPE encoder table (codes,
//! sizes and big-endian packing, written from FORMAT.md §4 alone), declarations with their
//! 12-byte element encoding, vertex-buffer encoding (junk in uncovered bytes) and the exact
//! value a correct decoder reads back from every encoded component (the ground truth).

use half::f16;

use super::rng::Gen;

/// The declaration types the generator emits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EncType {
    Float1,
    Float2,
    Float3,
    Float4,
    D3dColor,
    Short4N,
    Dec3N,
    Float16_2,
    Float16_4,
}

impl EncType {
    /// Xbox 360 D3DDECLTYPE code.
    pub const fn code(self) -> u32 {
        match self {
            EncType::Float1 => 0x2C83A4,
            EncType::Float2 => 0x2C23A5,
            EncType::Float3 => 0x2A23B9,
            EncType::Float4 => 0x1A23A6,
            EncType::D3dColor => 0x182886,
            EncType::Short4N => 0x1A215A,
            EncType::Dec3N => 0x2A2187,
            EncType::Float16_2 => 0x2C235F,
            EncType::Float16_4 => 0x1A2360,
        }
    }

    /// Size of one element of this type in bytes.
    pub const fn size(self) -> usize {
        match self {
            EncType::Float1 | EncType::D3dColor | EncType::Dec3N | EncType::Float16_2 => 4,
            EncType::Float2 | EncType::Short4N | EncType::Float16_4 => 8,
            EncType::Float3 => 12,
            EncType::Float4 => 16,
        }
    }

    /// Number of components a decoder yields.
    pub const fn components(self) -> usize {
        match self {
            EncType::Float1 => 1,
            EncType::Float2 | EncType::Float16_2 => 2,
            EncType::Float3 | EncType::Dec3N => 3,
            EncType::Float4 | EncType::D3dColor | EncType::Short4N | EncType::Float16_4 => 4,
        }
    }
}

/// D3DDECLUSAGE values used by the generator.
pub mod usage {
    pub const POSITION: u8 = 0;
    pub const BLENDWEIGHT: u8 = 1;
    pub const NORMAL: u8 = 3;
    pub const TEXCOORD: u8 = 5;
    pub const TANGENT: u8 = 6;
    pub const BINORMAL: u8 = 7;
    pub const COLOR: u8 = 10;
}

/// First u32 of the END element (stream 0x00FF, offset 0) and its type word.
pub const END_WORD0: u32 = 0x00FF_0000;
pub const END_WORD1: u32 = 0xFFFF_FFFF;

/// One vertex element as written in the declaration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ElemSpec {
    pub stream: u16,
    pub offset: u16,
    pub ty: EncType,
    pub usage: u8,
    pub usage_index: u8,
}

/// A vertex declaration: elements in declaration (file) order.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct VertexFormat {
    pub elements: Vec<ElemSpec>,
}

impl VertexFormat {
    /// `POSITION@0 FLOAT3, NORMAL@12 FLOAT16_4` (+ `TEXCOORD@20 FLOAT16_2`): stride 20 / 24.
    pub fn documented(with_uv: bool) -> Self {
        let mut elements = vec![
            ElemSpec {
                stream: 0,
                offset: 0,
                ty: EncType::Float3,
                usage: usage::POSITION,
                usage_index: 0,
            },
            ElemSpec {
                stream: 0,
                offset: 12,
                ty: EncType::Float16_4,
                usage: usage::NORMAL,
                usage_index: 0,
            },
        ];
        if with_uv {
            elements.push(ElemSpec {
                stream: 0,
                offset: 20,
                ty: EncType::Float16_2,
                usage: usage::TEXCOORD,
                usage_index: 0,
            });
        }
        VertexFormat { elements }
    }

    /// Largest `offset + size` over the elements of `stream` (0 when it has none).
    pub fn stride(&self, stream: u16) -> usize {
        self.elements
            .iter()
            .filter(|e| e.stream == stream)
            .map(|e| e.offset as usize + e.ty.size())
            .max()
            .unwrap_or(0)
    }

    /// The distinct streams used, ascending.
    pub fn streams(&self) -> Vec<u16> {
        let mut s: Vec<u16> = self.elements.iter().map(|e| e.stream).collect();
        s.sort_unstable();
        s.dedup();
        s
    }

    pub fn find(&self, usage: u8, usage_index: u8) -> Option<&ElemSpec> {
        self.elements
            .iter()
            .find(|e| e.usage == usage && e.usage_index == usage_index)
    }

    /// The declaration bytes: 12 bytes per element, then the END element.
    pub fn decl_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(12 * (self.elements.len() + 1));
        for e in &self.elements {
            out.extend_from_slice(&e.stream.to_be_bytes());
            out.extend_from_slice(&e.offset.to_be_bytes());
            out.extend_from_slice(&e.ty.code().to_be_bytes());
            out.extend_from_slice(&[0, e.usage, e.usage_index, 0]);
        }
        out.extend_from_slice(&END_WORD0.to_be_bytes());
        out.extend_from_slice(&END_WORD1.to_be_bytes());
        out.extend_from_slice(&0u32.to_be_bytes());
        out
    }
}

/// Source attributes of a vertex set (before quantisation). `tangents`, `uvs` and
/// `colors` may be shorter than `positions` only when the format does not use them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct VertexData {
    pub positions: Vec<[f32; 3]>,
    /// Unit vectors.
    pub normals: Vec<[f32; 3]>,
    /// Unit vectors.
    pub tangents: Vec<[f32; 3]>,
    /// One Vec per texcoord set (index = usage_index).
    pub uvs: Vec<Vec<[f32; 2]>>,
    /// RGBA bytes.
    pub colors: Vec<[u8; 4]>,
}

/// What to store in components whose meaning is unspecified (normal w, DEC3N bits 30–31).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnknownFill {
    /// 0: 0.0, 1: 1.0, 2: random in [-1, 1] per vertex.
    pub normal_w: u8,
    /// 0: zero, 1: ones, 2: random per vertex.
    pub dec_w: u8,
}

/// Replace values a FLOAT16 cannot hold as a finite normal-range half: subnormal-range
/// magnitudes become 0, large ones are clamped, NaN becomes 0.
pub fn f16_safe(v: f32) -> f32 {
    if !v.is_finite() {
        return 0.0;
    }
    if v.abs() < 6.2e-5 {
        return 0.0;
    }
    v.clamp(-65504.0, 65504.0)
}

fn f16_bits(v: f32) -> u16 {
    f16::from_f32(f16_safe(v)).to_bits()
}

fn f16_value(v: f32) -> f32 {
    f16::from_f32(f16_safe(v)).to_f32()
}

fn snorm10(v: f32) -> i32 {
    let v = if v.is_finite() { v.clamp(-1.0, 1.0) } else { 0.0 };
    ((v * 511.0).round() as i32).clamp(-511, 511)
}

fn snorm16(v: f32) -> i32 {
    let v = if v.is_finite() { v.clamp(-1.0, 1.0) } else { 0.0 };
    ((v * 32767.0).round() as i32).clamp(-32767, 32767)
}

/// Encode one element's four components (`v`) as `ty` into `out` (len ≥ `ty.size()`).
/// `colors` are used by D3DCOLOR (RGBA bytes); `dec_w` fills DEC3N bits 30–31.
fn encode_elem(ty: EncType, v: [f32; 4], color: [u8; 4], dec_w: u32, out: &mut [u8]) {
    match ty {
        EncType::Float1 | EncType::Float2 | EncType::Float3 | EncType::Float4 => {
            for k in 0..ty.components() {
                out[4 * k..4 * k + 4].copy_from_slice(&v[k].to_bits().to_be_bytes());
            }
        }
        EncType::Float16_2 | EncType::Float16_4 => {
            for k in 0..ty.components() {
                out[2 * k..2 * k + 2].copy_from_slice(&f16_bits(v[k]).to_be_bytes());
            }
        }
        EncType::Short4N => {
            for k in 0..4 {
                out[2 * k..2 * k + 2].copy_from_slice(&(snorm16(v[k]) as i16).to_be_bytes());
            }
        }
        EncType::Dec3N => {
            let pack = |q: i32| (q as u32) & 0x3FF;
            let word =
                pack(snorm10(v[0])) | (pack(snorm10(v[1])) << 10) | (pack(snorm10(v[2])) << 20) | ((dec_w & 3) << 30);
            out[..4].copy_from_slice(&word.to_be_bytes());
        }
        EncType::D3dColor => {
            let [r, g, b, a] = color;
            out[..4].copy_from_slice(&[a, r, g, b]);
        }
    }
}

/// The components a correct decoder reads back from `encode_elem(ty, v, color, ..)`
/// (unused trailing components are 0).
pub fn decoded(ty: EncType, v: [f32; 4], color: [u8; 4]) -> [f32; 4] {
    let mut o = [0.0f32; 4];
    match ty {
        EncType::Float1 | EncType::Float2 | EncType::Float3 | EncType::Float4 => {
            o[..ty.components()].copy_from_slice(&v[..ty.components()]);
        }
        EncType::Float16_2 | EncType::Float16_4 => {
            for k in 0..ty.components() {
                o[k] = f16_value(v[k]);
            }
        }
        EncType::Short4N => {
            for k in 0..4 {
                o[k] = snorm16(v[k]) as f32 / 32767.0;
            }
        }
        EncType::Dec3N => {
            for k in 0..3 {
                o[k] = snorm10(v[k]) as f32 / 511.0;
            }
        }
        EncType::D3dColor => {
            for k in 0..4 {
                o[k] = color[k] as f32 / 255.0;
            }
        }
    }
    o
}

/// The four source components of element `e` for vertex `i` (w per `fill`).
fn source(e: &ElemSpec, data: &VertexData, i: usize, w_normal: f32, quant_scale: f32) -> [f32; 4] {
    let get3 = |v: &Vec<[f32; 3]>| v.get(i).copied().unwrap_or([0.0; 3]);
    match e.usage {
        usage::POSITION => {
            let p = get3(&data.positions);
            if e.ty == EncType::Short4N {
                [p[0] / quant_scale, p[1] / quant_scale, p[2] / quant_scale, 1.0]
            } else {
                [p[0], p[1], p[2], 1.0]
            }
        }
        usage::NORMAL => {
            let n = get3(&data.normals);
            [n[0], n[1], n[2], w_normal]
        }
        usage::TANGENT | usage::BINORMAL => {
            let t = get3(&data.tangents);
            [t[0], t[1], t[2], 1.0]
        }
        usage::TEXCOORD => {
            let uv = data
                .uvs
                .get(e.usage_index as usize)
                .and_then(|s| s.get(i))
                .copied()
                .unwrap_or([0.0; 2]);
            [uv[0], uv[1], 0.0, 1.0]
        }
        _ => {
            let p = get3(&data.positions);
            [p[0] * 0.01, p[1] * 0.01, 0.5, 1.0]
        }
    }
}

/// Scale that maps a SHORT4N position into [-1, 1] for this vertex set.
pub fn quant_scale(data: &VertexData) -> f32 {
    let m = data
        .positions
        .iter()
        .flat_map(|p| p.iter())
        .fold(0.0f32, |a, &c| a.max(c.abs()));
    if m > 0.0 {
        m * 1.01
    } else {
        1.0
    }
}

/// Encode the vertex buffer of `stream` (`V × stride` bytes). Bytes not covered by an
/// element are random junk; unspecified components follow `fill`.
pub fn encode_stream(fmt: &VertexFormat, stream: u16, data: &VertexData, fill: UnknownFill, gen: &mut Gen) -> Vec<u8> {
    let stride = fmt.stride(stream);
    let n = data.positions.len();
    let mut buf = gen.bytes(stride * n);
    let qs = quant_scale(data);
    let elems: Vec<&ElemSpec> = fmt.elements.iter().filter(|e| e.stream == stream).collect();
    for i in 0..n {
        let base = i * stride;
        for e in &elems {
            let w = match fill.normal_w {
                0 => 0.0,
                1 => 1.0,
                _ => gen.f32_in(-1.0, 1.0),
            };
            let dec_w = match fill.dec_w {
                0 => 0,
                1 => 3,
                _ => gen.u32() & 3,
            };
            let v = source(e, data, i, w, qs);
            let color = data.colors.get(i).copied().unwrap_or([255; 4]);
            let off = base + e.offset as usize;
            encode_elem(e.ty, v, color, dec_w, &mut buf[off..off + e.ty.size()]);
        }
    }
    buf
}

/// Attributes as a correct decoder reads them (FORMAT.md §4 mapping into `Mesh`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DecodedAttrs {
    pub positions: Vec<[f32; 3]>,
    pub normals: Option<Vec<[f32; 3]>>,
    pub texcoords: Vec<Vec<[f32; 2]>>,
    pub colors: Option<Vec<[f32; 4]>>,
}

/// Decoded attributes of `data` written with `fmt` (POSITION 0 xyz, NORMAL 0 xyz,
/// TEXCOORD sets by usage index, COLOR 0 RGBA).
pub fn decoded_attrs(fmt: &VertexFormat, data: &VertexData) -> DecodedAttrs {
    let n = data.positions.len();
    let qs = quant_scale(data);
    let read = |e: &ElemSpec, i: usize| {
        let color = data.colors.get(i).copied().unwrap_or([255; 4]);
        decoded(e.ty, source(e, data, i, 0.0, qs), color)
    };
    let mut out = DecodedAttrs::default();
    if let Some(e) = fmt.find(usage::POSITION, 0) {
        out.positions = (0..n)
            .map(|i| {
                let v = read(e, i);
                [v[0], v[1], v[2]]
            })
            .collect();
    }
    if let Some(e) = fmt.find(usage::NORMAL, 0) {
        out.normals = Some(
            (0..n)
                .map(|i| {
                    let v = read(e, i);
                    [v[0], v[1], v[2]]
                })
                .collect(),
        );
    }
    let mut tc: Vec<&ElemSpec> = fmt.elements.iter().filter(|e| e.usage == usage::TEXCOORD).collect();
    tc.sort_by_key(|e| e.usage_index);
    for e in tc {
        out.texcoords.push(
            (0..n)
                .map(|i| {
                    let v = read(e, i);
                    [v[0], v[1]]
                })
                .collect(),
        );
    }
    if let Some(e) = fmt.find(usage::COLOR, 0) {
        out.colors = Some((0..n).map(|i| read(e, i)).collect());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(ty: EncType, v: [f32; 4], color: [u8; 4], dec_w: u32) -> Vec<u8> {
        let mut b = vec![0u8; ty.size()];
        encode_elem(ty, v, color, dec_w, &mut b);
        b
    }

    #[test]
    fn packing_matches_format_md() {
        assert_eq!(
            one(EncType::Float3, [1.0, -2.0, 0.5, 0.0], [0; 4], 0),
            vec![0x3F, 0x80, 0, 0, 0xC0, 0, 0, 0, 0x3F, 0, 0, 0]
        );
        assert_eq!(
            one(EncType::Float16_2, [1.0, -2.0, 0.0, 0.0], [0; 4], 0),
            vec![0x3C, 0x00, 0xC0, 0x00]
        );
        // DEC3N: x bits 0-9, y 10-19, z 20-29; 1.0 -> 511, -1.0 -> -511 (0x201).
        let w = u32::from_be_bytes(
            one(EncType::Dec3N, [1.0, -1.0, 0.0, 0.0], [0; 4], 2)
                .try_into()
                .unwrap(),
        );
        assert_eq!(w & 0x3FF, 511);
        assert_eq!((w >> 10) & 0x3FF, 0x201);
        assert_eq!((w >> 20) & 0x3FF, 0);
        assert_eq!(w >> 30, 2);
        // D3DCOLOR file bytes A, R, G, B.
        assert_eq!(one(EncType::D3dColor, [0.0; 4], [1, 2, 3, 4], 0), vec![4, 1, 2, 3]);
        assert_eq!(
            decoded(EncType::D3dColor, [0.0; 4], [255, 0, 51, 255]),
            [1.0, 0.0, 0.2, 1.0]
        );
        assert_eq!(
            one(EncType::Short4N, [1.0, -1.0, 0.0, 0.5], [0; 4], 0),
            vec![0x7F, 0xFF, 0x80, 0x01, 0, 0, 0x40, 0x00]
        );
    }

    #[test]
    fn decoded_values_match_reference_conversions() {
        let v = [0.3f32, -0.7, 0.648_074, 0.0];
        let d = decoded(EncType::Float16_4, v, [0; 4]);
        assert_eq!(d[0], f16::from_f32(0.3).to_f32());
        assert_eq!(d[1], f16::from_f32(-0.7).to_f32());
        let d = decoded(EncType::Dec3N, v, [0; 4]);
        assert_eq!(d[0], (0.3f32 * 511.0).round() / 511.0);
        assert_eq!(d[1], -358.0 / 511.0);
        // Subnormal-range halves are flushed to zero before encoding.
        assert_eq!(f16_safe(1e-6), 0.0);
        assert_eq!(
            decoded(EncType::Float16_2, [1e-6, 2.0, 0.0, 0.0], [0; 4])[..2],
            [0.0, 2.0]
        );
    }

    use proptest::prelude::*;

    proptest! {
        /// Bytes decoded by an independent bit-level reader equal `decoded()`.
        #[test]
        fn encoded_bytes_decode_to_the_truth(x in -1.0f32..1.0, y in -1.0f32..1.0, z in -1.0f32..1.0, w in 0u32..4) {
            let v = [x, y, z, 0.5];
            let d = decoded(EncType::Dec3N, v, [0; 4]);
            let word = u32::from_be_bytes(one(EncType::Dec3N, v, [0; 4], w).try_into().unwrap());
            let field = |s: u32| {
                let q = ((word >> s) & 0x3FF) as i32;
                let q = if q >= 512 { q - 1024 } else { q };
                (q as f32 / 511.0).max(-1.0)
            };
            prop_assert_eq!([d[0], d[1], d[2]], [field(0), field(10), field(20)]);
            prop_assert_eq!(word >> 30, w);
            let b = one(EncType::Float16_4, v, [0; 4], 0);
            let h = |k: usize| f16::from_bits(u16::from_be_bytes([b[2 * k], b[2 * k + 1]])).to_f32();
            let d = decoded(EncType::Float16_4, v, [0; 4]);
            prop_assert_eq!([d[0], d[1], d[2], d[3]], [h(0), h(1), h(2), h(3)]);
            let b = one(EncType::Float2, v, [0; 4], 0);
            prop_assert_eq!(f32::from_be_bytes(b[4..8].try_into().unwrap()).to_bits(), y.to_bits());
        }
    }

    #[test]
    fn declaration_bytes_and_stride() {
        let f = VertexFormat::documented(true);
        assert_eq!(f.stride(0), 24);
        assert_eq!(VertexFormat::documented(false).stride(0), 20);
        let b = f.decl_bytes();
        assert_eq!(b.len(), 48);
        assert_eq!(&b[12..24], &[0, 0, 0, 12, 0, 0x1A, 0x23, 0x60, 0, 3, 0, 0]);
        assert_eq!(&b[36..48], &[0, 0xFF, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0]);
    }

    #[test]
    fn stream_encoding_places_elements_and_junk() {
        let f = VertexFormat::documented(false);
        let data = VertexData {
            positions: vec![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]],
            normals: vec![[0.0, 0.0, 1.0], [0.0, 1.0, 0.0]],
            ..Default::default()
        };
        let mut g = Gen::new(3);
        let b = encode_stream(&f, 0, &data, UnknownFill { normal_w: 1, dec_w: 0 }, &mut g);
        assert_eq!(b.len(), 40);
        assert_eq!(&b[20..24], &4.0f32.to_be_bytes());
        assert_eq!(&b[12..20], &[0, 0, 0, 0, 0x3C, 0, 0x3C, 0]);
        let d = decoded_attrs(&f, &data);
        assert_eq!(d.positions, data.positions);
        assert_eq!(d.normals, Some(data.normals.clone()));
        assert!(d.texcoords.is_empty() && d.colors.is_none());
    }
}
