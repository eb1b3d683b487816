//! Hand-computed decodes for every Xbox 360 D3DDECLTYPE (FORMAT.md §4), the type table,
//! usages, extended-range halves and the unit-normal check.
//!
//! Bytes are written literally as they appear in the file (big-endian); the comment next
//! to each case derives the expected value by hand.

use xbg7::decl::{is_unit_normal, unit_tolerance, xenos_half_to_f32, xenos_half_to_f32_fast, DeclType, Usage};
use DeclType::*;

/// Decode, insisting the literal has exactly `size()` bytes.
fn dec(ty: DeclType, bytes: &[u8]) -> [f32; 4] {
    assert_eq!(bytes.len(), ty.size(), "{} test bytes", ty.name());
    ty.decode(bytes)
}

#[test]
fn table_codes_sizes_components_names() {
    // (type, code, size, components, name) — codes from Xbox 360 d3d9types.h.
    let table: [(DeclType, u32, usize, usize, &str); 47] = [
        (Float1, 0x2C83A4, 4, 1, "FLOAT1"),
        (Float2, 0x2C23A5, 8, 2, "FLOAT2"),
        (Float3, 0x2A23B9, 12, 3, "FLOAT3"),
        (Float4, 0x1A23A6, 16, 4, "FLOAT4"),
        (Int1, 0x2C83A1, 4, 1, "INT1"),
        (Int2, 0x2C23A2, 8, 2, "INT2"),
        (Int4, 0x1A23A3, 16, 4, "INT4"),
        (Uint1, 0x2C82A1, 4, 1, "UINT1"),
        (Uint2, 0x2C22A2, 8, 2, "UINT2"),
        (Uint4, 0x1A22A3, 16, 4, "UINT4"),
        (Int1N, 0x2C81A1, 4, 1, "INT1N"),
        (Int2N, 0x2C21A2, 8, 2, "INT2N"),
        (Int4N, 0x1A21A3, 16, 4, "INT4N"),
        (Uint1N, 0x2C80A1, 4, 1, "UINT1N"),
        (Uint2N, 0x2C20A2, 8, 2, "UINT2N"),
        (Uint4N, 0x1A20A3, 16, 4, "UINT4N"),
        (D3dColor, 0x182886, 4, 4, "D3DCOLOR"),
        (Ubyte4, 0x1A2286, 4, 4, "UBYTE4"),
        (Byte4, 0x1A2386, 4, 4, "BYTE4"),
        (Ubyte4N, 0x1A2086, 4, 4, "UBYTE4N"),
        (Byte4N, 0x1A2186, 4, 4, "BYTE4N"),
        (Short2, 0x2C2359, 4, 2, "SHORT2"),
        (Short4, 0x1A235A, 8, 4, "SHORT4"),
        (Ushort2, 0x2C2259, 4, 2, "USHORT2"),
        (Ushort4, 0x1A225A, 8, 4, "USHORT4"),
        (Short2N, 0x2C2159, 4, 2, "SHORT2N"),
        (Short4N, 0x1A215A, 8, 4, "SHORT4N"),
        (Ushort2N, 0x2C2059, 4, 2, "USHORT2N"),
        (Ushort4N, 0x1A205A, 8, 4, "USHORT4N"),
        (Udec3, 0x2A2287, 4, 3, "UDEC3"),
        (Dec3, 0x2A2387, 4, 3, "DEC3"),
        (Udec3N, 0x2A2087, 4, 3, "UDEC3N"),
        (Dec3N, 0x2A2187, 4, 3, "DEC3N"),
        (Udec4, 0x1A2287, 4, 4, "UDEC4"),
        (Dec4, 0x1A2387, 4, 4, "DEC4"),
        (Udec4N, 0x1A2087, 4, 4, "UDEC4N"),
        (Dec4N, 0x1A2187, 4, 4, "DEC4N"),
        (Uhend3, 0x2A2290, 4, 3, "UHEND3"),
        (Hend3, 0x2A2390, 4, 3, "HEND3"),
        (Uhend3N, 0x2A2090, 4, 3, "UHEND3N"),
        (Hend3N, 0x2A2190, 4, 3, "HEND3N"),
        (Udhen3, 0x2A2291, 4, 3, "UDHEN3"),
        (Dhen3, 0x2A2391, 4, 3, "DHEN3"),
        (Udhen3N, 0x2A2091, 4, 3, "UDHEN3N"),
        (Dhen3N, 0x2A2191, 4, 3, "DHEN3N"),
        (Float16_2, 0x2C235F, 4, 2, "FLOAT16_2"),
        (Float16_4, 0x1A2360, 8, 4, "FLOAT16_4"),
    ];
    for (i, &(ty, code, size, comps, name)) in table.iter().enumerate() {
        assert_eq!(DeclType::ALL[i], ty, "ALL order");
        assert_eq!(ty.code(), code, "{name} code");
        assert_eq!(ty.size(), size, "{name} size");
        assert_eq!(ty.components(), comps, "{name} components");
        assert_eq!(ty.name(), name);
        assert_eq!(DeclType::from_code(code), Some(ty));
    }
    // Codes are unique, UNUSED and near-misses are not types.
    assert_eq!(DeclType::from_code(0xFFFF_FFFF), None);
    assert_eq!(DeclType::from_code(0x2A23BA), None);
    assert_eq!(DeclType::from_code(0), None);
}

#[test]
fn normalized_flag() {
    let n: Vec<_> = DeclType::ALL
        .iter()
        .filter(|t| t.is_normalized())
        .map(|t| t.name())
        .collect();
    assert_eq!(
        n,
        [
            "INT1N", "INT2N", "INT4N", "UINT1N", "UINT2N", "UINT4N", "D3DCOLOR", "UBYTE4N", "BYTE4N", "SHORT2N",
            "SHORT4N", "USHORT2N", "USHORT4N", "UDEC3N", "DEC3N", "UDEC4N", "DEC4N", "UHEND3N", "HEND3N", "UDHEN3N",
            "DHEN3N"
        ]
    );
}

#[test]
fn float32_types() {
    // 3F800000 = 1.0
    assert_eq!(dec(Float1, &[0x3F, 0x80, 0, 0]), [1.0, 0.0, 0.0, 0.0]);
    // 3F800000 = 1.0, C0000000 = -2.0
    assert_eq!(dec(Float2, &[0x3F, 0x80, 0, 0, 0xC0, 0, 0, 0]), [1.0, -2.0, 0.0, 0.0]);
    // 40400000 = 3.0, BF000000 = -0.5, 0 = 0.0; w absent → 0
    assert_eq!(
        dec(Float3, &[0x40, 0x40, 0, 0, 0xBF, 0, 0, 0, 0, 0, 0, 0]),
        [3.0, -0.5, 0.0, 0.0]
    );
    // 1.0, 2.0 (40000000), 3.0 (40400000), 4.0 (40800000)
    assert_eq!(
        dec(
            Float4,
            &[0x3F, 0x80, 0, 0, 0x40, 0, 0, 0, 0x40, 0x40, 0, 0, 0x40, 0x80, 0, 0]
        ),
        [1.0, 2.0, 3.0, 4.0]
    );
}

#[test]
fn int32_types() {
    // FFFFFFFF as i32 = -1
    assert_eq!(dec(Int1, &[0xFF; 4]), [-1.0, 0.0, 0.0, 0.0]);
    // 1, 0x80000000 = i32::MIN = -2147483648
    assert_eq!(dec(Int2, &[0, 0, 0, 1, 0x80, 0, 0, 0]), [1.0, -2147483648.0, 0.0, 0.0]);
    // 0x0A = 10, 0xFFFFFFF6 = -10, 0x7FFFFFFF = 2147483647 → nearest f32 2147483648, 0
    assert_eq!(
        dec(
            Int4,
            &[0, 0, 0, 0x0A, 0xFF, 0xFF, 0xFF, 0xF6, 0x7F, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0]
        ),
        [10.0, -10.0, 2147483648.0, 0.0]
    );
    // FFFFFFFF unsigned = 4294967295 → nearest f32 4294967296
    assert_eq!(dec(Uint1, &[0xFF; 4]), [4294967296.0, 0.0, 0.0, 0.0]);
    // 1, 0x100 = 256
    assert_eq!(dec(Uint2, &[0, 0, 0, 1, 0, 0, 1, 0]), [1.0, 256.0, 0.0, 0.0]);
    // 0, 1, 0x10000 = 65536, 0x80000000 = 2147483648 (unsigned: no sign extension)
    assert_eq!(
        dec(Uint4, &[0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0x80, 0, 0, 0]),
        [0.0, 1.0, 65536.0, 2147483648.0]
    );
}

#[test]
fn int32_normalized_types() {
    // 0x7FFFFFFF / 2147483647 = 1
    assert_eq!(dec(Int1N, &[0x7F, 0xFF, 0xFF, 0xFF]), [1.0, 0.0, 0.0, 0.0]);
    // 0x80000000 = -2^31 → -1.0000000005 clamped to -1; 0x80000001 = -2147483647 → -1
    assert_eq!(dec(Int2N, &[0x80, 0, 0, 0, 0x80, 0, 0, 1]), [-1.0, -1.0, 0.0, 0.0]);
    // 0x40000000 = 2^30 → 0.50000000023 → f32 0.5; 0xC0000000 = -2^30 → -0.5; 0; 1
    assert_eq!(
        dec(
            Int4N,
            &[0x40, 0, 0, 0, 0xC0, 0, 0, 0, 0, 0, 0, 0, 0x7F, 0xFF, 0xFF, 0xFF]
        ),
        [0.5, -0.5, 0.0, 1.0]
    );
    // 0xFFFFFFFF / 4294967295 = 1
    assert_eq!(dec(Uint1N, &[0xFF; 4]), [1.0, 0.0, 0.0, 0.0]);
    // 0, 2^31 / (2^32-1) = 0.50000000012 → f32 0.5
    assert_eq!(dec(Uint2N, &[0, 0, 0, 0, 0x80, 0, 0, 0]), [0.0, 0.5, 0.0, 0.0]);
    // 1, 0, 0.5, 1/4294967295 ≈ 2.3283064e-10
    assert_eq!(
        dec(Uint4N, &[0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0, 0x80, 0, 0, 0, 0, 0, 0, 1]),
        [1.0, 0.0, 0.5, (1.0f64 / 4294967295.0) as f32]
    );
}

#[test]
fn d3dcolor_is_argb_to_rgba() {
    // file bytes A=0x80 R=0xFF G=0x00 B=0x33 → R 255/255 = 1, G 0, B 51/255 = 0.2,
    // A 128/255
    assert_eq!(dec(D3dColor, &[0x80, 0xFF, 0x00, 0x33]), [1.0, 0.0, 0.2, 128.0 / 255.0]);
}

#[test]
fn byte4_types_x_is_last_file_byte() {
    // u32 0x01020304: x = bits 0-7 = 0x04, y = 0x03, z = 0x02, w = 0x01
    assert_eq!(dec(Ubyte4, &[1, 2, 3, 4]), [4.0, 3.0, 2.0, 1.0]);
    // x = 0x01 = 1, y = 0x7F = 127, z = 0xFF = -1, w = 0x80 = -128 (sign extension)
    assert_eq!(dec(Byte4, &[0x80, 0xFF, 0x7F, 0x01]), [1.0, 127.0, -1.0, -128.0]);
    // x = 0x66 = 102/255 = 0.4, y = 0xFF → 1, z = 0x33 = 51/255 = 0.2, w = 0
    assert_eq!(dec(Ubyte4N, &[0x00, 0x33, 0xFF, 0x66]), [0.4, 1.0, 0.2, 0.0]);
    // x = 0x7F = 127/127 = 1, y = 0, z = 0x81 = -127 → -1, w = 0x80 = -128 → clamp -1
    assert_eq!(dec(Byte4N, &[0x80, 0x81, 0x00, 0x7F]), [1.0, 0.0, -1.0, -1.0]);
    // x = 0x40 = 64/127
    assert_eq!(dec(Byte4N, &[0, 0, 0, 0x40]), [64.0 / 127.0, 0.0, 0.0, 0.0]);
}

#[test]
fn short_types() {
    // 0x8000 = -32768, 0x7FFF = 32767
    assert_eq!(dec(Short2, &[0x80, 0x00, 0x7F, 0xFF]), [-32768.0, 32767.0, 0.0, 0.0]);
    // 0xFFFF = -1, 0x0001 = 1, 0x0100 = 256, 0xFF00 = -256
    assert_eq!(
        dec(Short4, &[0xFF, 0xFF, 0x00, 0x01, 0x01, 0x00, 0xFF, 0x00]),
        [-1.0, 1.0, 256.0, -256.0]
    );
    // 0xFFFF = 65535 (no sign), 2
    assert_eq!(dec(Ushort2, &[0xFF, 0xFF, 0x00, 0x02]), [65535.0, 2.0, 0.0, 0.0]);
    // 0, 0x8000 = 32768, 0x10 = 16, 0x1234 = 4660
    assert_eq!(
        dec(Ushort4, &[0, 0, 0x80, 0, 0, 0x10, 0x12, 0x34]),
        [0.0, 32768.0, 16.0, 4660.0]
    );
    // 0x7FFF → 1, 0x8000 = -32768 → -1.00003 clamped to -1
    assert_eq!(dec(Short2N, &[0x7F, 0xFF, 0x80, 0x00]), [1.0, -1.0, 0.0, 0.0]);
    // 0x8001 = -32767 → -1, 0, 0x4000 = 16384/32767, 0xC000 = -16384/32767
    assert_eq!(
        dec(Short4N, &[0x80, 0x01, 0, 0, 0x40, 0x00, 0xC0, 0x00]),
        [-1.0, 0.0, 16384.0 / 32767.0, -16384.0 / 32767.0]
    );
    // 0xFFFF → 1, 0
    assert_eq!(dec(Ushort2N, &[0xFF, 0xFF, 0, 0]), [1.0, 0.0, 0.0, 0.0]);
    // 32768/65535, 1/65535, 1, 0x3333 = 13107 = 65535/5 → 0.2
    assert_eq!(
        dec(Ushort4N, &[0x80, 0x00, 0x00, 0x01, 0xFF, 0xFF, 0x33, 0x33]),
        [32768.0 / 65535.0, 1.0 / 65535.0, 1.0, 0.2]
    );
}

#[test]
fn dec3_family_w_is_one() {
    // 0xFFF00801: x = 0x001 = 1, y = (0x801 >> 10) & 0x3FF = 2, z = bits 20-29 = 0x3FF
    // = 1023, bits 30-31 (set) ignored, w = 1
    assert_eq!(dec(Udec3, &[0xFF, 0xF0, 0x08, 0x01]), [1.0, 2.0, 1023.0, 1.0]);
    // 0x2007FFFF: x = 0x3FF = -1, y = 0x1FF = 511, z = 0x200 = -512
    assert_eq!(dec(Dec3, &[0x20, 0x07, 0xFF, 0xFF]), [-1.0, 511.0, -512.0, 1.0]);
    // 0x155003FF: x = 0x3FF → 1, y = 0, z = 0x155 = 341 → 341/1023 = 1/3
    assert_eq!(dec(Udec3N, &[0x15, 0x50, 0x03, 0xFF]), [1.0, 0.0, 1.0 / 3.0, 1.0]);
    // 0x201801FF: x = 0x1FF = 511 → 1, y = 0x200 = -512 → clamp -1, z = 0x201 = -511 → -1
    assert_eq!(dec(Dec3N, &[0x20, 0x18, 0x01, 0xFF]), [1.0, -1.0, -1.0, 1.0]);
    // 0x00000100: x = 256 → 256/511
    assert_eq!(dec(Dec3N, &[0, 0, 0x01, 0x00]), [256.0 / 511.0, 0.0, 0.0, 1.0]);
}

#[test]
fn dec4_family_two_bit_w() {
    // 0xC0000005: x = 5, w = bits 30-31 = 3
    assert_eq!(dec(Udec4, &[0xC0, 0, 0, 0x05]), [5.0, 0.0, 0.0, 3.0]);
    // 0x800003FD: x = 0x3FD = -3, w = 0b10 = -2
    assert_eq!(dec(Dec4, &[0x80, 0, 0x03, 0xFD]), [-3.0, 0.0, 0.0, -2.0]);
    // w = 0b01 = 1, w = 0b11 = -1
    assert_eq!(dec(Dec4, &[0x40, 0, 0, 0]), [0.0, 0.0, 0.0, 1.0]);
    assert_eq!(dec(Dec4, &[0xC0, 0, 0, 0]), [0.0, 0.0, 0.0, -1.0]);
    // 0x400007FF: x = 0x3FF → 1, y = 1 → 1/1023, w = 1 → 1/3
    assert_eq!(
        dec(Udec4N, &[0x40, 0x00, 0x07, 0xFF]),
        [1.0, 1.0 / 1023.0, 0.0, 1.0 / 3.0]
    );
    // 0xC0000000: w = 3 → 1
    assert_eq!(dec(Udec4N, &[0xC0, 0, 0, 0]), [0.0, 0.0, 0.0, 1.0]);
    // 0x80000600: x = 0x200 = -512 → -1, y = 1 → 1/511, w = -2 → ÷1 clamp -1
    assert_eq!(dec(Dec4N, &[0x80, 0x00, 0x06, 0x00]), [-1.0, 1.0 / 511.0, 0.0, -1.0]);
    // w = 0b11 = -1 → -1; w = 0b01 = 1 → 1
    assert_eq!(dec(Dec4N, &[0xC0, 0, 0, 0]), [0.0, 0.0, 0.0, -1.0]);
    assert_eq!(dec(Dec4N, &[0x40, 0, 0, 0]), [0.0, 0.0, 0.0, 1.0]);
}

#[test]
fn hend3_family_11_11_10() {
    // 0xFFC00FFF: x = [10:0] = 0x7FF = 2047, y = [21:11] = 1, z = [31:22] = 0x3FF = 1023
    assert_eq!(dec(Uhend3, &[0xFF, 0xC0, 0x0F, 0xFF]), [2047.0, 1.0, 1023.0, 1.0]);
    // 0x803FFC00: x = 0x400 = -1024, y = 0x7FF = -1, z = 0x200 = -512
    assert_eq!(dec(Hend3, &[0x80, 0x3F, 0xFC, 0x00]), [-1024.0, -1.0, -512.0, 1.0]);
    // 0xFFC007FF: x = 2047/2047 = 1, y = 0, z = 1023/1023 = 1
    assert_eq!(dec(Uhend3N, &[0xFF, 0xC0, 0x07, 0xFF]), [1.0, 0.0, 1.0, 1.0]);
    // x = 1 → 1/2047 (11-bit divisor); z = 1 (0x00400000) → 1/1023 (10-bit divisor)
    assert_eq!(
        dec(Uhend3N, &[0, 0x40, 0, 0x01]),
        [1.0 / 2047.0, 0.0, 1.0 / 1023.0, 1.0]
    );
    // 0x7FE003FF: x = 0x3FF = 1023 → 1, y = 0x400 = -1024 → clamp -1, z = 0x1FF = 511 → 1
    assert_eq!(dec(Hend3N, &[0x7F, 0xE0, 0x03, 0xFF]), [1.0, -1.0, 1.0, 1.0]);
    // 0x80500000: y = 0x200 = 512 → 512/1023, z = 0x201 = -511 → -1
    assert_eq!(dec(Hend3N, &[0x80, 0x50, 0x00, 0x00]), [0.0, 512.0 / 1023.0, -1.0, 1.0]);
    // 0x80000000: z = 0x200 = -512 → clamp -1
    assert_eq!(dec(Hend3N, &[0x80, 0, 0, 0]), [0.0, 0.0, -1.0, 1.0]);
}

#[test]
fn dhen3_family_10_11_11() {
    // 0x003FFFFF: x = [9:0] = 1023, y = [20:10] = 0x7FF = 2047, z = [31:21] = 1
    assert_eq!(dec(Udhen3, &[0x00, 0x3F, 0xFF, 0xFF]), [1023.0, 2047.0, 1.0, 1.0]);
    // 0xFFF00200: x = 0x200 = -512, y = 0x400 = -1024, z = 0x7FF = -1
    assert_eq!(dec(Dhen3, &[0xFF, 0xF0, 0x02, 0x00]), [-512.0, -1024.0, -1.0, 1.0]);
    // 0x001FFC01: x = 1 → 1/1023, y = 0x7FF → 1, z = 0
    assert_eq!(dec(Udhen3N, &[0x00, 0x1F, 0xFC, 0x01]), [1.0 / 1023.0, 1.0, 0.0, 1.0]);
    // z = 1 (0x00200000) → 1/2047 (11-bit divisor)
    assert_eq!(dec(Udhen3N, &[0x00, 0x20, 0, 0]), [0.0, 0.0, 1.0 / 2047.0, 1.0]);
    // 0x802FFE00: x = 0x200 = -512 → clamp -1, y = 0x3FF = 1023 → 1, z = 0x401 = -1023 → -1
    assert_eq!(dec(Dhen3N, &[0x80, 0x2F, 0xFE, 0x00]), [-1.0, 1.0, -1.0, 1.0]);
    // 0x80000000: z = 0x400 = -1024 → clamp -1
    assert_eq!(dec(Dhen3N, &[0x80, 0, 0, 0]), [0.0, 0.0, -1.0, 1.0]);
    // 0x00000100: x = 256 → 256/511
    assert_eq!(dec(Dhen3N, &[0, 0, 0x01, 0x00]), [256.0 / 511.0, 0.0, 0.0, 1.0]);
}

#[test]
fn float16_types() {
    // 0x3C00 = 1.0, 0xC000 = -2.0
    assert_eq!(dec(Float16_2, &[0x3C, 0x00, 0xC0, 0x00]), [1.0, -2.0, 0.0, 0.0]);
    // 0x7C00: exponent 31 → 2^16 = 65536 (not +Inf); 0xFFFF → -2^16·(1+1023/1024) =
    // -131008 (not NaN); 0x3800 = 0.5; 0x0001 = 2^-24 (subnormal)
    assert_eq!(
        dec(Float16_4, &[0x7C, 0x00, 0xFF, 0xFF, 0x38, 0x00, 0x00, 0x01]),
        [65536.0, -131008.0, 0.5, 5.960_464_5e-8]
    );
}

#[test]
fn xenos_halves() {
    assert_eq!(xenos_half_to_f32(0x0000), 0.0);
    assert!(xenos_half_to_f32(0x8000).is_sign_negative() && xenos_half_to_f32(0x8000) == 0.0);
    assert_eq!(xenos_half_to_f32(0x3C00), 1.0);
    assert_eq!(xenos_half_to_f32(0xBC00), -1.0);
    assert_eq!(xenos_half_to_f32(0x3555), 0.333_251_95); // 2^-2·(1+341/1024)
    assert_eq!(xenos_half_to_f32(0x0400), 6.103_515_6e-5); // 2^-14, smallest normal
    assert_eq!(xenos_half_to_f32(0x03FF), 1023.0 * 2f32.powi(-24)); // largest subnormal
    assert_eq!(xenos_half_to_f32(0x7BFF), 65504.0); // IEEE max
    assert_eq!(xenos_half_to_f32(0x7C00), 65536.0); // 2^16 · 1
    assert_eq!(xenos_half_to_f32(0x7E00), 98304.0); // 2^16 · 1.5
    assert_eq!(xenos_half_to_f32(0x7FFF), 131008.0); // 2^16 · (1 + 1023/1024)
    assert_eq!(xenos_half_to_f32(0xFC00), -65536.0);
    assert_eq!(xenos_half_to_f32(0xFFFF), -131008.0);
}

#[test]
fn xenos_halves_exhaustive_monotone_and_symmetric() {
    // Every positive pattern decodes to a finite value, strictly increasing with the bits
    // (exponent 31 just continues the normal range), and the sign bit only negates.
    let mut prev = -1.0f32;
    for bits in 0u16..=0x7FFF {
        let v = xenos_half_to_f32(bits);
        assert!(v.is_finite() && v > prev, "{bits:#06x}");
        assert_eq!(xenos_half_to_f32(bits | 0x8000), -v);
        if bits & 0x7C00 != 0x7C00 {
            assert_eq!(v, half::f16::from_bits(bits).to_f32());
        }
        prev = v;
    }
}

#[test]
fn fast_half_is_bit_identical() {
    for bits in 0u16..=0xFFFF {
        assert_eq!(
            xenos_half_to_f32_fast(bits).to_bits(),
            xenos_half_to_f32(bits).to_bits(),
            "{bits:#06x}"
        );
    }
}

#[test]
fn short_input_never_panics() {
    // Missing bytes read as zero; try_decode rejects them.
    // 3F 80 + zero padding → 0x3F800000 = 1.0; 40 → 0x40000000 = 2.0
    assert_eq!(Float3.decode(&[0x3F, 0x80]), [1.0, 0.0, 0.0, 0.0]);
    assert_eq!(Float3.decode(&[0x3F, 0x80, 0, 0, 0x40]), [1.0, 2.0, 0.0, 0.0]);
    assert_eq!(Float3.try_decode(&[0x3F, 0x80, 0, 0]), None);
    assert_eq!(Float16_4.decode(&[]), [0.0; 4]);
    assert_eq!(Udec3.decode(&[]), [0.0, 0.0, 0.0, 1.0]);
    // Extra bytes are ignored.
    assert_eq!(
        Float16_2.try_decode(&[0x3C, 0, 0x3C, 0, 0xFF]),
        Some([1.0, 1.0, 0.0, 0.0])
    );
}

#[test]
fn usages() {
    let names = [
        "POSITION",
        "BLENDWEIGHT",
        "BLENDINDICES",
        "NORMAL",
        "PSIZE",
        "TEXCOORD",
        "TANGENT",
        "BINORMAL",
        "TESSFACTOR",
        "POSITIONT",
        "COLOR",
        "FOG",
        "DEPTH",
        "SAMPLE",
    ];
    for (i, n) in names.iter().enumerate() {
        let u = Usage::from_u8(i as u8);
        assert_eq!(u.name(), *n);
        assert_eq!(u.to_u8(), i as u8);
        assert!(!matches!(u, Usage::Other(_)));
    }
    assert_eq!(Usage::from_u8(0), Usage::Position);
    assert_eq!(Usage::from_u8(3), Usage::Normal);
    assert_eq!(Usage::from_u8(5), Usage::TexCoord);
    assert_eq!(Usage::from_u8(13), Usage::Sample);
    assert_eq!(Usage::from_u8(14), Usage::Other(14));
    assert_eq!(Usage::from_u8(0xFF), Usage::Other(0xFF));
    assert_eq!(Usage::Other(200).name(), "OTHER");
    assert_eq!(Usage::Other(200).to_u8(), 200);
}

#[test]
fn unit_normal_check() {
    let t = unit_tolerance(Float16_4);
    // (1, 0, 0, w=anything)
    assert!(is_unit_normal(Float16_4, &[0x3C, 0, 0, 0, 0, 0, 0x7C, 0], t));
    // (0.6, 0.8, 0) in halves: 0x38CD = 0.60009766, 0x3A66 = 0.7998047 → len ≈ 1.00003
    assert!(is_unit_normal(Float16_4, &[0x38, 0xCD, 0x3A, 0x66, 0, 0, 0, 0], t));
    // (1, 1, 0): len √2
    assert!(!is_unit_normal(Float16_4, &[0x3C, 0, 0x3C, 0, 0, 0, 0, 0], t));
    // (0, 0, 0)
    assert!(!is_unit_normal(Float16_4, &[0; 8], t));
    // too short
    assert!(!is_unit_normal(Float16_4, &[0x3C, 0, 0, 0, 0, 0], t));
    // FLOAT3 (0, 0, -1) vs NaN / Inf components
    let f3 = |x: f32, y: f32, z: f32| {
        let mut b = Vec::new();
        for v in [x, y, z] {
            b.extend_from_slice(&v.to_be_bytes());
        }
        b
    };
    let tf = unit_tolerance(Float3);
    assert!(is_unit_normal(Float3, &f3(0.0, 0.0, -1.0), tf));
    assert!(is_unit_normal(Float3, &f3(0.0, 0.0, -1.000_009), tf));
    assert!(!is_unit_normal(Float3, &f3(0.0, 0.0, -1.000_02), tf));
    assert!(!is_unit_normal(Float3, &f3(f32::NAN, 0.0, 1.0), tf));
    assert!(!is_unit_normal(Float3, &f3(f32::INFINITY, 0.0, 0.0), tf));
    assert!(!is_unit_normal(Float3, &f3(1e30, 1e30, 0.0), tf));
    // FLOAT4 uses only xyz
    let mut f4 = f3(1.0, 0.0, 0.0);
    f4.extend_from_slice(&5.0f32.to_be_bytes());
    assert!(is_unit_normal(Float4, &f4, tf));
    // DEC3N (0, 0, 1): z = 511 → 0x1FF << 20 = 0x1FF00000
    assert!(is_unit_normal(Dec3N, &[0x1F, 0xF0, 0, 0], unit_tolerance(Dec3N)));
    // BYTE4N x = 0x7F → 1 (w byte ignored)
    assert!(is_unit_normal(Byte4N, &[0x7F, 0, 0, 0x7F], unit_tolerance(Byte4N)));
    assert!(!is_unit_normal(Byte4N, &[0x7F, 0, 0, 0x40], unit_tolerance(Byte4N)));
    // huge tolerance accepts zero length instead of squaring a negative bound
    assert!(is_unit_normal(Float16_4, &[0; 8], 1.5));
}

#[test]
fn tolerances() {
    assert_eq!(unit_tolerance(Float3), 1e-5);
    assert_eq!(unit_tolerance(Float16_4), 2e-3);
    assert_eq!(unit_tolerance(Dec3N), 6e-3);
    assert_eq!(unit_tolerance(Byte4N), 2e-2);
    assert_eq!(unit_tolerance(Short4N), 1e-4);
    for ty in DeclType::ALL {
        let t = unit_tolerance(ty);
        assert!(t > 0.0 && t <= 2e-2, "{}", ty.name());
    }
}
