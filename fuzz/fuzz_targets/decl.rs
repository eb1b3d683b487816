//! Vertex declarations and element decoding: any bytes give a declaration or a typed
//! error, and every element of a parsed declaration decodes from any bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use xbg7::decl::{self, DeclType};

fuzz_target!(|data: &[u8]| {
    if let Ok((d, used)) = decl::parse_declaration(data) {
        assert!(used <= data.len());
        assert!(used % decl::ELEMENT_SIZE == 0);
        assert!(!d.elements.is_empty() && d.elements.len() < decl::MAX_ELEMENTS);
        for e in &d.elements {
            assert!(e.offset as usize + e.ty.size() <= d.stride);
            let _ = e.ty.decode(data);
            let _ = e.ty.try_decode(&data[used.min(data.len())..]);
            let _ = decl::is_unit_normal(e.ty, data, decl::unit_tolerance(e.ty));
        }
    }
    // Every reader on every short or long slice.
    for ty in DeclType::ALL {
        let _ = ty.decode(data);
        assert_eq!(ty.try_decode(data).is_some(), data.len() >= ty.size());
        let _ = decl::is_unit_normal(ty, data, decl::unit_tolerance(ty));
    }
    if data.len() >= 2 {
        let bits = u16::from_be_bytes([data[0], data[1]]);
        let (a, b) = (decl::xenos_half_to_f32(bits), decl::xenos_half_to_f32_fast(bits));
        assert_eq!(a.to_bits(), b.to_bits());
    }
});
