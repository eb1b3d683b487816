//! XBG7 descriptor parsing: any bytes give a descriptor or a typed error; every offset it
//! reports lies inside the input.
#![no_main]

use libfuzzer_sys::fuzz_target;
use xbg7::descriptor;

fuzz_target!(|data: &[u8]| {
    if let Ok(d) = descriptor::parse(data) {
        assert!(d.marker_offset >= 32);
        assert!(d.decl_end <= data.len());
        assert!(d.marker_offset + 8 < d.decl_end);
        assert!(d.vertex_count > 0);
        assert!(d.index_count > 0 && d.index_count % 3 == 0);
        for r in &d.records {
            assert!(r.offset + 16 <= data.len());
        }
    }
    let _ = descriptor::scan_records(data);
    let _ = descriptor::strings(data);
});
