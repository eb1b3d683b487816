//! XPR2 container parsing: any bytes give a container or a typed error, and every range
//! handed out lies inside the input.
#![no_main]

use libfuzzer_sys::fuzz_target;
use xbg7::container;

fuzz_target!(|data: &[u8]| {
    if let Ok(c) = container::parse(data) {
        assert!(c.data_start <= data.len());
        assert_eq!(c.data.len(), c.data_size as usize);
        // The directory cannot hold more entries than the header has room for.
        assert!(c.resources.len() as u64 * 16 <= c.header_size as u64);
        for r in &c.resources {
            assert!(r.name.len() <= container::MAX_NAME);
            assert!(!r.name.contains(&0));
            if r.problem.is_none() {
                assert!(r.descriptor_offset + r.descriptor.len() <= data.len());
            } else {
                assert!(r.descriptor.is_empty());
            }
            let _ = (r.tag_str(), r.name_lossy());
        }
    }
});
