//! `parse_declaration`: the retail layouts, stride, UNUSED skipping and every error.

use xbg7::decl::{parse_declaration, DeclError, DeclType, Element, Usage, MAX_ELEMENTS};

const END: [u8; 12] = [0x00, 0xFF, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0];

/// One 12-byte record `[stream u16][offset u16][type u32][method][usage][index][pad]`.
fn rec(stream: u16, offset: u16, code: u32, method: u8, usage: u8, index: u8) -> [u8; 12] {
    let mut r = [0u8; 12];
    r[0..2].copy_from_slice(&stream.to_be_bytes());
    r[2..4].copy_from_slice(&offset.to_be_bytes());
    r[4..8].copy_from_slice(&code.to_be_bytes());
    r[8] = method;
    r[9] = usage;
    r[10] = index;
    r
}

fn el(offset: u16, ty: DeclType, usage: Usage) -> Element {
    Element {
        stream: 0,
        offset,
        ty,
        method: 0,
        usage,
        usage_index: 0,
    }
}

#[test]
fn retail_pos_normal_uv_stride_24() {
    // POSITION@0 FLOAT3, NORMAL@12 FLOAT16_4, TEXCOORD@20 FLOAT16_2, END, then junk.
    #[rustfmt::skip]
    let bytes = [
        0x00, 0x00, 0x00, 0x00,  0x00, 0x2A, 0x23, 0xB9,  0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x0C,  0x00, 0x1A, 0x23, 0x60,  0x00, 0x03, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x14,  0x00, 0x2C, 0x23, 0x5F,  0x00, 0x05, 0x00, 0x00,
        0x00, 0xFF, 0x00, 0x00,  0xFF, 0xFF, 0xFF, 0xFF,  0x00, 0x00, 0x00, 0x00,
        0xDE, 0xAD, 0xBE, 0xEF,
    ];
    let (d, used) = parse_declaration(&bytes).unwrap();
    assert_eq!(used, 48);
    // stride = max(0+12, 12+8, 20+4) = 24
    assert_eq!(d.stride, 24);
    assert_eq!(
        d.elements,
        vec![
            el(0, DeclType::Float3, Usage::Position),
            el(12, DeclType::Float16_4, Usage::Normal),
            el(20, DeclType::Float16_2, Usage::TexCoord),
        ]
    );
}

#[test]
fn retail_pos_normal_stride_20_any_order() {
    // NORMAL@12 listed before POSITION@0: order kept, stride = max(12+8, 0+12) = 20.
    let mut b = Vec::new();
    b.extend_from_slice(&rec(0, 12, 0x1A2360, 0, 3, 0));
    b.extend_from_slice(&rec(0, 0, 0x2A23B9, 0, 0, 0));
    b.extend_from_slice(&END);
    let (d, used) = parse_declaration(&b).unwrap();
    assert_eq!((d.stride, used), (20, 36));
    assert_eq!(d.elements[0], el(12, DeclType::Float16_4, Usage::Normal));
    assert_eq!(d.elements[1], el(0, DeclType::Float3, Usage::Position));
}

#[test]
fn fields_are_carried_through() {
    // stream 1, offset 0x102, D3DCOLOR, method 1, usage 14 (unknown), usage_index 2, pad 9
    let mut r = rec(1, 0x102, 0x182886, 1, 14, 2);
    r[11] = 9;
    let mut b = r.to_vec();
    b.extend_from_slice(&END);
    let (d, used) = parse_declaration(&b).unwrap();
    assert_eq!(used, 24);
    assert_eq!(d.stride, 0x102 + 4);
    assert_eq!(
        d.elements,
        vec![Element {
            stream: 1,
            offset: 0x102,
            ty: DeclType::D3dColor,
            method: 1,
            usage: Usage::Other(14),
            usage_index: 2,
        }]
    );
}

#[test]
fn unused_elements_are_skipped_not_end() {
    // UNUSED at offset 40 (stream 0) must not count toward stride; an END look-alike with
    // stream 0xFF but offset 4 is also just UNUSED.
    let mut b = Vec::new();
    b.extend_from_slice(&rec(0, 40, 0xFFFF_FFFF, 0, 0, 0));
    b.extend_from_slice(&rec(0, 0, 0x2A23B9, 0, 0, 0));
    b.extend_from_slice(&rec(0xFF, 4, 0xFFFF_FFFF, 0, 0, 0));
    b.extend_from_slice(&END);
    let (d, used) = parse_declaration(&b).unwrap();
    assert_eq!(used, 48);
    assert_eq!(d.stride, 12);
    assert_eq!(d.elements, vec![el(0, DeclType::Float3, Usage::Position)]);
}

#[test]
fn stream_ff_with_real_type_is_an_element() {
    let mut b = rec(0xFF, 0, 0x2C235F, 0, 5, 1).to_vec();
    b.extend_from_slice(&END);
    let (d, _) = parse_declaration(&b).unwrap();
    assert_eq!(d.elements.len(), 1);
    assert_eq!(d.elements[0].stream, 0xFF);
    assert_eq!(d.elements[0].usage_index, 1);
    assert_eq!(d.stride, 4);
}

#[test]
fn unknown_type_reports_record_index_and_code() {
    let mut b = Vec::new();
    b.extend_from_slice(&rec(0, 0, 0x2A23B9, 0, 0, 0));
    b.extend_from_slice(&rec(0, 0, 0xFFFF_FFFF, 0, 0, 0)); // skipped, still counted
    b.extend_from_slice(&rec(0, 12, 0x0012_3456, 0, 3, 0));
    b.extend_from_slice(&END);
    assert_eq!(
        parse_declaration(&b),
        Err(DeclError::UnknownType {
            index: 2,
            code: 0x0012_3456
        })
    );
}

#[test]
fn empty_declarations() {
    assert_eq!(parse_declaration(&END), Err(DeclError::Empty));
    let mut b = rec(0, 0, 0xFFFF_FFFF, 0, 0, 0).to_vec();
    b.extend_from_slice(&END);
    assert_eq!(parse_declaration(&b), Err(DeclError::Empty));
}

#[test]
fn unterminated_by_slice_end() {
    assert_eq!(parse_declaration(&[]), Err(DeclError::Unterminated { available: 0 }));
    let mut b = Vec::new();
    b.extend_from_slice(&rec(0, 0, 0x2A23B9, 0, 0, 0));
    b.extend_from_slice(&rec(0, 12, 0x1A2360, 0, 3, 0));
    assert_eq!(parse_declaration(&b), Err(DeclError::Unterminated { available: 24 }));
    // END cut short: 6 of its 12 bytes present.
    b.extend_from_slice(&END[..6]);
    assert_eq!(parse_declaration(&b), Err(DeclError::Unterminated { available: 30 }));
}

#[test]
fn unterminated_by_element_limit() {
    // 64 real records then END: END is record 65, beyond MAX_ELEMENTS (64 incl. END).
    let mut b = Vec::new();
    for i in 0..MAX_ELEMENTS {
        b.extend_from_slice(&rec(0, (i * 4) as u16, 0x2C83A4, 0, 5, i as u8));
    }
    b.extend_from_slice(&END);
    assert_eq!(
        parse_declaration(&b),
        Err(DeclError::Unterminated {
            available: MAX_ELEMENTS * 12
        })
    );
    // 63 records + END = 64 records: accepted.
    let mut b = Vec::new();
    for i in 0..MAX_ELEMENTS - 1 {
        b.extend_from_slice(&rec(0, (i * 4) as u16, 0x2C83A4, 0, 5, i as u8));
    }
    b.extend_from_slice(&END);
    let (d, used) = parse_declaration(&b).unwrap();
    assert_eq!(d.elements.len(), 63);
    assert_eq!(used, 64 * 12);
    // stride = last offset 62·4 + FLOAT1 size 4 = 252
    assert_eq!(d.stride, 252);
}

#[test]
fn stride_reaches_max_offset() {
    // FLOAT4 at offset 0xFFFF: stride 0xFFFF + 16 (no overflow).
    let mut b = rec(0, 0xFFFF, 0x1A23A6, 0, 0, 0).to_vec();
    b.extend_from_slice(&END);
    assert_eq!(parse_declaration(&b).unwrap().0.stride, 0xFFFF + 16);
}
