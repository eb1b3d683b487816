//! GPU endian swaps and Xenos 2D tiling (XGAddress2DTiledOffset, in blocks, row pitch
//! aligned to 32 blocks): the public formula (xenia `texture_address.h` /
//! `texture_conversion.cc`, UModel `GetTiledOffset`), split into a per-row and a
//! per-column part so a row's term is computed once.

/// GPU endian swap mode (fetch constant dword1 bits 6–7).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Endian {
    None,
    /// Swap the bytes of every u16.
    E8in16,
    /// Swap the bytes of every u32.
    E8in32,
    /// Swap the two u16 halves of every u32.
    E16in32,
}

impl Endian {
    pub const fn from_bits(v: u32) -> Endian {
        match v & 3 {
            0 => Endian::None,
            1 => Endian::E8in16,
            2 => Endian::E8in32,
            _ => Endian::E16in32,
        }
    }
}

/// log2 of a block size in bytes (2, 4, 8 or 16).
pub fn bpb_log2(block_bytes: u32) -> u32 {
    block_bytes.trailing_zeros()
}

/// The row-dependent part of the tiled byte offset of block row `y`
/// (`pitch` = row pitch in blocks, a multiple of 32).
pub fn tiled_row(y: u32, pitch: u32, log2: u32) -> u32 {
    let macro_ = ((y >> 5) * (pitch >> 5)) << (log2 + 7);
    let micro = ((y & 6) << 2) << log2;
    macro_ + ((micro & !0xF) << 1) + (micro & 0xF) + ((y & 8) << (3 + log2)) + ((y & 1) << 4)
}

/// The tiled byte offset of block `(x, y)` given its row term from [`tiled_row`].
/// Exact for blocks of 2 bytes or more (`log2 ≥ 1`).
pub fn tiled_column(x: u32, y: u32, log2: u32, row: u32) -> u32 {
    let macro_ = (x >> 5) << (log2 + 7);
    let micro = (x & 7) << log2;
    let off = row + macro_ + ((micro & !0xF) << 1) + (micro & 0xF);
    ((off & !0x1FF) << 3)
        + ((off & 0x1C0) << 2)
        + (off & 0x3F)
        + ((y & 16) << 7)
        + (((((y & 8) >> 2) + (x >> 3)) & 3) << 6)
}

/// Tiled byte offset of block `(x, y)` in a surface of `pitch` blocks per row.
pub fn tiled_offset(x: u32, y: u32, pitch: u32, log2: u32) -> u32 {
    tiled_column(x, y, log2, tiled_row(y, pitch, log2))
}

/// Bytes a 32×32-block tile spans from its tiled origin: 1 024 blocks, except for
/// 2-byte blocks, whose tiles interleave in pairs (the bank bit, `(y & 16) << 7`, is
/// 2 048 bytes, a whole tile) so one tile reaches 0xC00 bytes past its origin (xenia
/// `texture_util.cc` `GetTiledAddressUpperBound2D`).
pub fn tile_span(log2: u32) -> u32 {
    if log2 == 1 {
        0xC00
    } else {
        0x400 << log2
    }
}

/// Undo (= apply: every mode is an involution) a GPU endian swap in place. Trailing
/// bytes that do not fill a whole unit are left as they are. Eight bytes a step as one
/// word whose units are swapped by shifts and masks, a loop per mode ([`each_word`],
/// vectorised; inlined into the decode, a byte swap per unit was a scalar rotate per
/// unit), then the units after the last whole word.
pub fn endian_swap(buf: &mut [u8], endian: Endian) {
    let words = buf.len() / 8 * 8;
    let (head, tail) = buf.split_at_mut(words);
    match endian {
        Endian::None => return,
        Endian::E8in16 => each_word(head, |x| {
            ((x & 0x00FF_00FF_00FF_00FF) << 8) | ((x >> 8) & 0x00FF_00FF_00FF_00FF)
        }),
        // All eight bytes reversed, then the two 32-bit halves put back in place.
        Endian::E8in32 => each_word(head, |x| x.swap_bytes().rotate_left(32)),
        Endian::E16in32 => each_word(head, |x| {
            ((x & 0x0000_FFFF_0000_FFFF) << 16) | ((x >> 16) & 0x0000_FFFF_0000_FFFF)
        }),
    }
    endian_swap_units(tail, endian);
}

/// `f` applied to each little-endian 8-byte word of `head` (whole words), in place; a
/// loop of its own per `f`, so `f` is inlined and the loop vectorised.
#[inline(always)]
fn each_word(head: &mut [u8], f: impl Fn(u64) -> u64) {
    for c in head.chunks_exact_mut(8) {
        let x = u64::from_le_bytes(c.try_into().expect("8 bytes"));
        c.copy_from_slice(&f(x).to_le_bytes());
    }
}

/// [`endian_swap`] a unit at a time.
fn endian_swap_units(buf: &mut [u8], endian: Endian) {
    match endian {
        Endian::None => {}
        Endian::E8in16 => buf.chunks_exact_mut(2).for_each(|c| c.swap(0, 1)),
        Endian::E8in32 => buf.chunks_exact_mut(4).for_each(|c| c.reverse()),
        Endian::E16in32 => buf.chunks_exact_mut(4).for_each(|c| {
            c.swap(0, 2);
            c.swap(1, 3);
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Any bytes, any length, every mode: the word-wise swap is the unit-wise one.
        #[test]
        fn the_word_swap_is_the_unit_swap(buf in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..80)) {
            for endian in [Endian::None, Endian::E8in16, Endian::E8in32, Endian::E16in32] {
                let (mut words, mut units) = (buf.clone(), buf.clone());
                endian_swap(&mut words, endian);
                endian_swap_units(&mut units, endian);
                proptest::prop_assert_eq!(words, units, "{:?}", endian);
            }
        }
    }

    #[test]
    fn first_dxt1_blocks_of_a_tiled_surface() {
        // 8-byte blocks, pitch 32 blocks.
        let at = |x, y| tiled_offset(x, y, 32, 3) / 8;
        // (Hand-checked: see tests/fixtures/tiled_dxt1_64x64.json.)
        assert_eq!([at(0, 0), at(1, 0), at(2, 0), at(7, 0), at(8, 0)], [0, 1, 4, 37, 8]);
        assert_eq!([at(0, 1), at(0, 2), at(0, 3), at(0, 8)], [2, 64, 66, 528]);
        assert_eq!([at(16, 0), at(0, 16), at(32, 0)], [16, 256, 1024]);
    }

    #[test]
    fn tiling_is_a_bijection_on_a_32x32_tile() {
        for (bytes, log2) in [(2u32, 1u32), (4, 2), (8, 3), (16, 4)] {
            let mut seen = vec![false; 64 * 64];
            for y in 0..64 {
                for x in 0..64 {
                    let o = tiled_offset(x, y, 64, log2);
                    assert_eq!(o % bytes, 0);
                    let b = (o / bytes) as usize;
                    assert!(!seen[b], "block {x},{y} collides");
                    seen[b] = true;
                }
            }
        }
    }

    #[test]
    fn one_tile_of_2_byte_blocks_spans_0xc00_bytes() {
        let end = (0..32)
            .flat_map(|y| (0..32).map(move |x| tiled_offset(x, y, 32, 1) + 2))
            .max();
        assert_eq!(end, Some(tile_span(1)));
        for log2 in 2..=4 {
            let end = (0..32)
                .flat_map(|y| (0..32).map(move |x| tiled_offset(x, y, 32, log2) + (1 << log2)))
                .max();
            assert_eq!(end, Some(tile_span(log2)));
        }
    }

    #[test]
    fn endian_modes() {
        let mut b = [1, 2, 3, 4, 5];
        endian_swap(&mut b, Endian::E8in16);
        assert_eq!(b, [2, 1, 4, 3, 5]);
        let mut b = [1, 2, 3, 4];
        endian_swap(&mut b, Endian::E8in32);
        assert_eq!(b, [4, 3, 2, 1]);
        let mut b = [1, 2, 3, 4];
        endian_swap(&mut b, Endian::E16in32);
        assert_eq!(b, [3, 4, 1, 2]);
        endian_swap(&mut b, Endian::None);
        assert_eq!(b, [3, 4, 1, 2]);
        assert_eq!(bpb_log2(16), 4);
    }
}
