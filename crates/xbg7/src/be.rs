//! Bounds-checked big-endian reads over byte slices. Every parser reads through these:
//! an out-of-range read is `None`, never a panic.

#[inline]
pub fn u32_at(b: &[u8], off: usize) -> Option<u32> {
    let s = b.get(off..off.checked_add(4)?)?;
    Some(u32::from_be_bytes([s[0], s[1], s[2], s[3]]))
}

/// The NUL-terminated byte string starting at `off` (without the NUL); `None` when `off`
/// is out of range or no NUL occurs within `max` bytes / before the end.
pub fn cstr_at(b: &[u8], off: usize, max: usize) -> Option<&[u8]> {
    let tail = b.get(off..)?;
    let lim = tail.len().min(max);
    let end = tail[..lim].iter().position(|&c| c == 0)?;
    Some(&tail[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_are_big_endian_and_bounded() {
        let b = [0x12, 0x34, 0x56, 0x78, 0x3F, 0x80, 0, 0];
        assert_eq!(u32_at(&b, 0), Some(0x1234_5678));
        assert_eq!(u32_at(&b, 4), Some(0x3F80_0000));
        assert_eq!(u32_at(&b, 5), None);
        assert_eq!(u32_at(&b, usize::MAX), None);
        assert_eq!(cstr_at(b"ab\0cd", 0, 10), Some(&b"ab"[..]));
        assert_eq!(cstr_at(b"abcd", 0, 10), None);
        assert_eq!(cstr_at(b"abcd\0", 0, 2), None);
    }
}
