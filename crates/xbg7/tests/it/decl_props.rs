//! Property tests for the element readers and the declaration parser, with a tiny
//! test-only encoder for every D3DDECLTYPE.

use proptest::prelude::*;
use xbg7::decl::{is_unit_normal, parse_declaration, unit_tolerance, DeclType};
use DeclType::*;

/// Where a component lives in the element.
#[derive(Clone, Copy, Debug)]
enum Slot {
    /// Big-endian value of `bytes` bytes at byte offset `off`.
    Seq { off: usize, bytes: usize },
    /// Bits `[shift + width - 1 : shift]` of the element read as one big-endian u32.
    Bits { shift: u32, width: u32 },
}

#[derive(Clone, Copy, Debug)]
enum Kind {
    F32,
    F16,
    Int { signed: bool, norm: bool },
}

#[derive(Clone, Copy, Debug)]
struct Field {
    slot: Slot,
    kind: Kind,
}

impl Field {
    fn width(&self) -> u32 {
        match self.slot {
            Slot::Seq { bytes, .. } => 8 * bytes as u32,
            Slot::Bits { width, .. } => width,
        }
    }
    /// Integer range of the stored value.
    fn int_range(&self, signed: bool) -> (i64, i64) {
        let w = self.width();
        if signed {
            (-(1i64 << (w - 1)), (1i64 << (w - 1)) - 1)
        } else {
            (0, (1i64 << w) - 1)
        }
    }
    /// D3D divisor for normalized values: 2^(w-1)-1 signed, 2^w-1 unsigned.
    fn divisor(&self, signed: bool) -> f64 {
        let w = self.width();
        if signed {
            ((1u64 << (w - 1)) - 1) as f64
        } else {
            ((1u64 << w) - 1) as f64
        }
    }
    /// The range of real values to generate for a round trip.
    fn value_range(&self) -> (f64, f64) {
        match self.kind {
            Kind::F32 => (-1e6, 1e6),
            Kind::F16 => (-65504.0, 65504.0),
            Kind::Int { signed, norm: true } => (if signed { -1.0 } else { 0.0 }, 1.0),
            Kind::Int { signed, norm: false } => {
                let (lo, hi) = self.int_range(signed);
                // i32/u32 → f32 is exact only up to 2^24.
                let cap = (1i64 << 24) as f64;
                ((lo as f64).max(-cap), (hi as f64).min(cap))
            }
        }
    }
    /// Largest allowed |decoded − value|: half a quantum, plus f32 output rounding.
    fn tolerance(&self, v: f64) -> f64 {
        let f32_round = v.abs() * f32::EPSILON as f64 + 1e-12;
        match self.kind {
            Kind::F32 => 0.0,
            Kind::F16 => {
                let a = v.abs();
                let spacing = if a < 2f64.powi(-14) {
                    2f64.powi(-24)
                } else {
                    2f64.powi(a.log2().floor() as i32 - 10)
                };
                spacing / 2.0 + f32_round
            }
            Kind::Int { signed, norm: true } => 0.5 / self.divisor(signed) + f32_round,
            Kind::Int { norm: false, .. } => 0.5 + f32_round,
        }
    }
}

fn seq(kind: Kind, bytes: usize, n: usize) -> Vec<Field> {
    (0..n)
        .map(|i| Field {
            slot: Slot::Seq { off: i * bytes, bytes },
            kind,
        })
        .collect()
}

fn bits(kind: Kind, layout: &[(u32, u32)]) -> Vec<Field> {
    layout
        .iter()
        .map(|&(shift, width)| Field {
            slot: Slot::Bits { shift, width },
            kind,
        })
        .collect()
}

/// The stored components of `ty`, in decoded order (x, y, z, w).
fn fields(ty: DeclType) -> Vec<Field> {
    let i = |signed, norm| Kind::Int { signed, norm };
    const B4: [(u32, u32); 4] = [(0, 8), (8, 8), (16, 8), (24, 8)];
    const DEC3: [(u32, u32); 3] = [(0, 10), (10, 10), (20, 10)];
    const DEC4: [(u32, u32); 4] = [(0, 10), (10, 10), (20, 10), (30, 2)];
    const HEND: [(u32, u32); 3] = [(0, 11), (11, 11), (22, 10)];
    const DHEN: [(u32, u32); 3] = [(0, 10), (10, 11), (21, 11)];
    match ty {
        Float1 => seq(Kind::F32, 4, 1),
        Float2 => seq(Kind::F32, 4, 2),
        Float3 => seq(Kind::F32, 4, 3),
        Float4 => seq(Kind::F32, 4, 4),
        Int1 => seq(i(true, false), 4, 1),
        Int2 => seq(i(true, false), 4, 2),
        Int4 => seq(i(true, false), 4, 4),
        Uint1 => seq(i(false, false), 4, 1),
        Uint2 => seq(i(false, false), 4, 2),
        Uint4 => seq(i(false, false), 4, 4),
        Int1N => seq(i(true, true), 4, 1),
        Int2N => seq(i(true, true), 4, 2),
        Int4N => seq(i(true, true), 4, 4),
        Uint1N => seq(i(false, true), 4, 1),
        Uint2N => seq(i(false, true), 4, 2),
        Uint4N => seq(i(false, true), 4, 4),
        // R, G, B, A live at bits 16, 8, 0, 24 (0xAARRGGBB).
        D3dColor => bits(i(false, true), &[(16, 8), (8, 8), (0, 8), (24, 8)]),
        Ubyte4 => bits(i(false, false), &B4),
        Byte4 => bits(i(true, false), &B4),
        Ubyte4N => bits(i(false, true), &B4),
        Byte4N => bits(i(true, true), &B4),
        Short2 => seq(i(true, false), 2, 2),
        Short4 => seq(i(true, false), 2, 4),
        Ushort2 => seq(i(false, false), 2, 2),
        Ushort4 => seq(i(false, false), 2, 4),
        Short2N => seq(i(true, true), 2, 2),
        Short4N => seq(i(true, true), 2, 4),
        Ushort2N => seq(i(false, true), 2, 2),
        Ushort4N => seq(i(false, true), 2, 4),
        Udec3 => bits(i(false, false), &DEC3),
        Dec3 => bits(i(true, false), &DEC3),
        Udec3N => bits(i(false, true), &DEC3),
        Dec3N => bits(i(true, true), &DEC3),
        Udec4 => bits(i(false, false), &DEC4),
        Dec4 => bits(i(true, false), &DEC4),
        Udec4N => bits(i(false, true), &DEC4),
        Dec4N => bits(i(true, true), &DEC4),
        Uhend3 => bits(i(false, false), &HEND),
        Hend3 => bits(i(true, false), &HEND),
        Uhend3N => bits(i(false, true), &HEND),
        Hend3N => bits(i(true, true), &HEND),
        Udhen3 => bits(i(false, false), &DHEN),
        Dhen3 => bits(i(true, false), &DHEN),
        Udhen3N => bits(i(false, true), &DHEN),
        Dhen3N => bits(i(true, true), &DHEN),
        Float16_2 => seq(Kind::F16, 2, 2),
        Float16_4 => seq(Kind::F16, 2, 4),
    }
}

/// Test-only encoder: quantise `values` (one per field, real numbers) into element bytes.
fn encode(ty: DeclType, values: &[f64]) -> Vec<u8> {
    let mut out = vec![0u8; ty.size()];
    let mut packed = 0u32;
    let mut any_packed = false;
    for (f, &v) in fields(ty).iter().zip(values) {
        let raw: u64 = match f.kind {
            Kind::F32 => (v as f32).to_bits() as u64,
            Kind::F16 => half::f16::from_f64(v).to_bits() as u64,
            Kind::Int { signed, norm } => {
                let (lo, hi) = f.int_range(signed);
                let scaled = if norm { v * f.divisor(signed) } else { v };
                let q = (scaled.round() as i64).clamp(lo, hi);
                (q as u64) & ((1u64 << f.width()) - 1)
            }
        };
        match f.slot {
            Slot::Seq { off, bytes } => {
                let be = raw.to_be_bytes();
                out[off..off + bytes].copy_from_slice(&be[8 - bytes..]);
            }
            Slot::Bits { shift, .. } => {
                any_packed = true;
                packed |= (raw as u32) << shift;
            }
        }
    }
    if any_packed {
        out[..4].copy_from_slice(&packed.to_be_bytes());
    }
    out
}

/// Value of a decoded component that has no field: w = 1 for the 3-component packed
/// families, 0 otherwise.
fn absent(ty: DeclType, comp: usize) -> f32 {
    let three_packed = matches!(
        ty,
        Udec3 | Dec3 | Udec3N | Dec3N | Uhend3 | Hend3 | Uhend3N | Hend3N | Udhen3 | Dhen3 | Udhen3N | Dhen3N
    );
    if comp == 3 && three_packed {
        1.0
    } else {
        0.0
    }
}

fn any_type() -> impl Strategy<Value = DeclType> {
    (0..DeclType::ALL.len()).prop_map(|i| DeclType::ALL[i])
}

/// Types that can hold a unit vector: at least xyz, and float or normalized.
fn unit_type() -> impl Strategy<Value = DeclType> {
    let types: Vec<DeclType> = DeclType::ALL
        .into_iter()
        .filter(|&t| {
            let fs = fields(t);
            fs.len() >= 3 && matches!(fs[0].kind, Kind::F32 | Kind::F16 | Kind::Int { norm: true, .. })
        })
        .collect();
    proptest::sample::select(types)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn decode_never_panics_any_length(ty in any_type(), bytes in proptest::collection::vec(any::<u8>(), 0..24)) {
        let v = ty.decode(&bytes);
        prop_assert_eq!(ty.try_decode(&bytes).is_some(), bytes.len() >= ty.size());
        if bytes.len() >= ty.size() {
            // Extra bytes never matter.
            prop_assert_eq!(v.map(f32::to_bits), ty.decode(&bytes[..ty.size()]).map(f32::to_bits));
        }
        // Only FLOAT* can produce non-finite values (from the f32 bits themselves).
        if !matches!(ty, Float1 | Float2 | Float3 | Float4) {
            prop_assert!(v.iter().all(|c| c.is_finite()), "{} {:?}", ty.name(), v);
        }
    }

    #[test]
    fn normalized_types_stay_in_range(ty in any_type(), bytes in proptest::array::uniform16(any::<u8>())) {
        let v = ty.decode(&bytes[..ty.size()]);
        if ty.is_normalized() {
            for c in v {
                prop_assert!((-1.0..=1.0).contains(&c), "{} {:?}", ty.name(), v);
            }
            // Unsigned types never go negative.
            if ty.name().starts_with('U') || ty == D3dColor {
                prop_assert!(v.iter().all(|&c| c >= 0.0), "{} {:?}", ty.name(), v);
            }
        }
        for (k, &c) in v.iter().enumerate().skip(fields(ty).len()) {
            prop_assert_eq!(c, absent(ty, k), "{} component {}", ty.name(), k);
        }
    }

    #[test]
    fn round_trip_within_half_a_quantum(ty in any_type(), t in proptest::array::uniform4(0.0f64..=1.0)) {
        let fs = fields(ty);
        prop_assert_eq!(fs.len(), if ty.components() == 3 { 3 } else { ty.components() });
        let values: Vec<f64> = fs.iter().zip(t).map(|(f, t)| {
            let (lo, hi) = f.value_range();
            lo + (hi - lo) * t
        }).collect();
        let bytes = encode(ty, &values);
        prop_assert_eq!(bytes.len(), ty.size());
        let d = ty.decode(&bytes);
        for (k, (f, &v)) in fs.iter().zip(&values).enumerate() {
            let expect = if matches!(f.kind, Kind::F32) { v as f32 as f64 } else { v };
            let err = (d[k] as f64 - expect).abs();
            prop_assert!(err <= f.tolerance(v), "{} comp {}: {} vs {} (err {})", ty.name(), k, d[k], v, err);
        }
    }

    #[test]
    fn quantised_unit_vectors_pass_is_unit_normal(ty in unit_type(), t in proptest::array::uniform3(-1.0f64..=1.0)) {
        let fs = fields(ty);
        let signed_or_float = matches!(fs[0].kind, Kind::F32 | Kind::F16 | Kind::Int { signed: true, .. });
        let len = (t[0] * t[0] + t[1] * t[1] + t[2] * t[2]).sqrt();
        prop_assume!(len > 0.1);
        let mut u: Vec<f64> = t.iter().map(|c| c / len).collect();
        if !signed_or_float {
            // Unsigned types can only hold the positive octant.
            u.iter_mut().for_each(|c| *c = c.abs());
        }
        u.push(0.0);
        let bytes = encode(ty, &u);
        prop_assert!(
            is_unit_normal(ty, &bytes, unit_tolerance(ty)),
            "{} {:?} -> {:?}", ty.name(), u, ty.decode(&bytes)
        );
        // A float vector 5 tolerances too long fails (normalized integer types would clamp).
        if matches!(fs[0].kind, Kind::F32 | Kind::F16) {
            let scale = 1.0 + 5.0 * unit_tolerance(ty) as f64;
            let long: Vec<f64> = u.iter().map(|c| c * scale).collect();
            prop_assert!(!is_unit_normal(ty, &encode(ty, &long), unit_tolerance(ty)), "{} long", ty.name());
        }
    }

    #[test]
    fn is_unit_normal_agrees_with_decode(ty in any_type(), bytes in proptest::array::uniform16(any::<u8>()), tol in 0.0f32..0.5) {
        let v = ty.decode(&bytes[..ty.size()]);
        let len = ((v[0] as f64).powi(2) + (v[1] as f64).powi(2) + (v[2] as f64).powi(2)).sqrt();
        let got = is_unit_normal(ty, &bytes[..ty.size()], tol);
        if len.is_finite() && ((len - 1.0).abs() - tol as f64).abs() > 1e-5 {
            prop_assert_eq!(got, (len - 1.0).abs() <= tol as f64, "{} len {}", ty.name(), len);
        }
        if !len.is_finite() {
            prop_assert!(!got);
        }
    }

    #[test]
    fn parse_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..900)) {
        if let Ok((d, used)) = parse_declaration(&bytes) {
            prop_assert!(used <= bytes.len());
            prop_assert_eq!(used % 12, 0);
            prop_assert!(!d.elements.is_empty() && d.elements.len() < 64);
            let stride = d.elements.iter().map(|e| e.offset as usize + e.ty.size()).max().unwrap();
            prop_assert_eq!(d.stride, stride);
            prop_assert_eq!(&bytes[used - 12..used - 4], &[0, 0xFF, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF]);
        }
    }

    #[test]
    fn parse_structured_declarations(
        els in proptest::collection::vec((0usize..47, any::<u16>(), 0u8..16, any::<bool>()), 0..70),
        junk in proptest::collection::vec(any::<u8>(), 0..40),
    ) {
        // Valid records (some UNUSED) then END then junk: parses iff it fits the limit.
        let mut b = Vec::new();
        let mut expect = Vec::new();
        for &(t, off, usage, unused) in &els {
            let code = if unused { 0xFFFF_FFFF } else { DeclType::ALL[t].code() };
            b.extend_from_slice(&0u16.to_be_bytes());
            b.extend_from_slice(&off.to_be_bytes());
            b.extend_from_slice(&code.to_be_bytes());
            b.extend_from_slice(&[0, usage, 0, 0]);
            if !unused {
                expect.push((DeclType::ALL[t], off));
            }
        }
        b.extend_from_slice(&[0, 0xFF, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0]);
        b.extend_from_slice(&junk);
        let r = parse_declaration(&b);
        if els.len() + 1 > 64 {
            prop_assert!(r.is_err());
        } else if expect.is_empty() {
            prop_assert_eq!(r, Err(xbg7::decl::DeclError::Empty));
        } else {
            let (d, used) = r.unwrap();
            prop_assert_eq!(used, 12 * (els.len() + 1));
            let got: Vec<_> = d.elements.iter().map(|e| (e.ty, e.offset)).collect();
            prop_assert_eq!(got, expect);
        }
    }
}
