//! Where unit normals and index-like values are, in one pass over the data section: the
//! unit-normal bitmap per (normal type, byte parity) and its maximal and tolerant runs
//! per stride; the maximal runs of u16 values `< V` (the no-normal search's windows).

use crate::decl::{is_unit_normal, unit_tolerance, DeclType};

/// A bitmap of "unit normal decodes here" over offsets `2k + parity`.
pub struct UnitBitmap {
    parity: usize,
    bits: Vec<u64>,
    len: usize,
}

impl UnitBitmap {
    /// One pass over `data`.
    pub fn build(data: &[u8], ty: DeclType, parity: usize) -> UnitBitmap {
        let size = ty.size();
        let tol = unit_tolerance(ty);
        let n = if data.len() >= size + parity {
            (data.len() - size - parity) / 2 + 1
        } else {
            0
        };
        let mut bits = vec![0u64; n.div_ceil(64)];
        // Each common normal type gets a loop of its own, in which the reader's per-type
        // `match` folds away (a `ty` passed as a value was matched at every offset). Not
        // [`per_common_type`]: its eight arms here measured 15 % slower on the model files
        // (the inliner gave up on the larger function).
        // Every type but FLOAT16_4 (whose scan is its own) through the windowed scan
        // ([`Self::fill_windows`]) in an instance of its own, in which the reader's
        // per-type `match` folds away (a `ty` passed as a value was matched at every
        // offset, four to five times slower).
        macro_rules! typed {
            ($($t:ident),*) => {
                match ty {
                    DeclType::Float16_4 => Self::fill_half3(data, parity, n, tol, &mut bits),
                    $(DeclType::$t => Self::fill_windows::<{ DeclType::$t.size() }>(data, parity, n, &mut bits, |b| {
                        is_unit_normal(DeclType::$t, b, tol)
                    }),)*
                }
            };
        }
        typed!(
            Float1, Float2, Float3, Float4, Int1, Int2, Int4, Uint1, Uint2, Uint4, Int1N, Int2N, Int4N, Uint1N, Uint2N,
            Uint4N, D3dColor, Ubyte4, Byte4, Ubyte4N, Byte4N, Short2, Short4, Ushort2, Ushort4, Short2N, Short4N,
            Ushort2N, Ushort4N, Udec3, Dec3, Udec3N, Dec3N, Udec4, Dec4, Udec4N, Dec4N, Uhend3, Hend3, Uhend3N, Hend3N,
            Udhen3, Dhen3, Udhen3N, Dhen3N, Float16_2
        );
        UnitBitmap { parity, bits, len: n }
    }

    /// The bitmap of "the `SIZE` bytes at offset `2k + parity` pass `unit`" for `k < n`
    /// (`n` counts the offsets with `SIZE` bytes, at most 16, before the data's end), a
    /// word of 64 offsets at a time: the word's bytes as one fixed-size window (128 + 16
    /// bytes), each offset's `SIZE` bytes taken from it as an array (no bounds check, and
    /// `unit`'s length check folds away), a flag byte each, packed
    /// ([`crate::layout::byte_flags`]); a last word whose window would run past the data,
    /// offset by offset. Not inlined: one function per type, so `build` stays small
    /// enough for the inliner.
    #[inline(never)]
    fn fill_windows<const SIZE: usize>(
        data: &[u8],
        parity: usize,
        n: usize,
        bits: &mut [u64],
        unit: impl Fn(&[u8]) -> bool,
    ) {
        const WINDOW: usize = 128 + 16;
        for (w, word) in bits.iter_mut().enumerate() {
            let (lo, start) = (64 * w, 128 * w + parity);
            let window = data
                .get(start..start + WINDOW)
                .and_then(|b| <&[u8; WINDOW]>::try_from(b).ok());
            *word = match window {
                // A whole window holds the word's 64 offsets' elements (offset `lo + 63`
                // ends at byte `start + 126 + SIZE`), so all are below `n`.
                Some(win) => {
                    let mut flags = [0u8; 64];
                    for (i, f) in flags.iter_mut().enumerate() {
                        let b: &[u8; SIZE] = win[2 * i..2 * i + SIZE].try_into().expect("SIZE ≤ 16");
                        *f = unit(b) as u8;
                    }
                    crate::layout::byte_flags(&flags, 0)
                }
                _ => (lo..(lo + 64).min(n))
                    .filter(|&k| unit(&data[2 * k + parity..2 * k + parity + SIZE]))
                    .fold(0u64, |acc, k| acc | 1 << (k - lo)),
            };
        }
    }

    /// The hot case (FLOAT16_4 normals): one 64-bit word of the bitmap (64 offsets) at a
    /// time, the squares of its 66 halves computed branch-free from the bits
    /// ([`half_square`]) into a small buffer, then three adds and a compare per offset —
    /// all of which the compiler vectorises (a 256 KiB table of squares, the previous
    /// method, spent its time in cache misses). Same answer as `is_unit_normal` (tested),
    /// from the same decoded components.
    pub(super) fn fill_half3(data: &[u8], parity: usize, n: usize, tol: f32, bits: &mut [u64]) {
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2 (checked just above).
            return unsafe { Self::fill_half3_avx2(data, parity, n, tol, bits) };
        }
        Self::fill_half3_plain(data, parity, n, tol, bits)
    }

    /// [`Self::fill_half3_plain`] compiled for AVX2, each word from [`unit_word_avx2`].
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn fill_half3_avx2(data: &[u8], parity: usize, n: usize, tol: f32, bits: &mut [u64]) {
        Self::fill_half3_with(data, parity, n, tol, bits, |cur, lo2, hi2| {
            unit_word_avx2(cur, lo2, hi2)
        })
    }

    #[inline(always)]
    pub(super) fn fill_half3_plain(data: &[u8], parity: usize, n: usize, tol: f32, bits: &mut [u64]) {
        Self::fill_half3_with(data, parity, n, tol, bits, unit_word)
    }

    /// The scan of [`Self::fill_half3`], `word` making a bitmap word from the squares of
    /// its 66 halves and the bounds of a unit square.
    #[inline(always)]
    fn fill_half3_with(
        data: &[u8],
        parity: usize,
        n: usize,
        tol: f32,
        bits: &mut [u64],
        word: impl Fn(&[f32; 66], f32, f32) -> u64,
    ) {
        let (lo2, hi2) = ((1.0 - tol).powi(2), (1.0 + tol).powi(2));
        // The squares of a word are summed one word later than they are computed: the
        // sums read them back shifted by one and two halves, and a read that straddles
        // stores still in flight stalls on store forwarding.
        let (mut buf_a, mut buf_b) = ([0f32; 66], [0f32; 66]);
        let (mut cur, mut next) = (&mut buf_a, &mut buf_b);
        if !bits.is_empty() {
            Self::squares(data, parity, 0, cur);
        }
        for w in 0..bits.len() {
            if w + 1 < bits.len() {
                Self::squares(data, parity, w + 1, next);
            }
            let cnt = (n - w * 64).min(64);
            bits[w] = word(cur, lo2, hi2) & (u64::MAX >> (64 - cnt));
            std::mem::swap(&mut cur, &mut next);
        }
    }

    /// The squares of the 66 halves at byte offsets `2k + parity`, `k` from `64w` on
    /// (x, y, z of the word's 64 offsets); past the data: infinity (never unit).
    #[inline(always)]
    fn squares(data: &[u8], parity: usize, w: usize, out: &mut [f32; 66]) {
        let base = 128 * w + parity;
        match data.get(base..base + 132).and_then(|b| <&[u8; 132]>::try_from(b).ok()) {
            // The whole file but its last word: fixed-size, branch-free, vectorised.
            Some(b) => {
                for (j, slot) in out.iter_mut().enumerate() {
                    *slot = half_square(u16::from_be_bytes([b[2 * j], b[2 * j + 1]]));
                }
            }
            None => {
                for (j, slot) in out.iter_mut().enumerate() {
                    let q = base + 2 * j;
                    *slot = match data.get(q..q + 2) {
                        Some(b) => half_square(u16::from_be_bytes([b[0], b[1]])),
                        None => f32::INFINITY,
                    };
                }
            }
        }
    }

    /// Is the normal at byte offset `q` unit? (false outside the data or on the other parity)
    #[inline]
    pub fn get(&self, q: usize) -> bool {
        if q % 2 != self.parity {
            return false;
        }
        let k = q / 2;
        k < self.len && self.bits[k / 64] >> (k % 64) & 1 == 1
    }

    /// Set offsets, descending.
    pub fn iter_rev(&self) -> impl Iterator<Item = usize> + '_ {
        self.bits.iter().enumerate().rev().flat_map(move |(w, &word)| {
            let mut x = word;
            std::iter::from_fn(move || {
                if x == 0 {
                    return None;
                }
                let b = 63 - x.leading_zeros() as usize;
                x &= !(1 << b);
                Some(2 * (w * 64 + b) + self.parity)
            })
        })
    }

    /// Set offsets, ascending.
    #[cfg(test)]
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.bits.iter().enumerate().flat_map(move |(w, &word)| {
            let mut x = word;
            std::iter::from_fn(move || {
                if x == 0 {
                    return None;
                }
                let b = x.trailing_zeros() as usize;
                x &= x - 1;
                Some(2 * (w * 64 + b) + self.parity)
            })
        })
    }
}

/// The bitmap word of 64 offsets from the squares of their 66 halves: bit `j` when
/// `cur[j] + cur[j + 1] + cur[j + 2]` (summed in that order) lies in `[lo2, hi2]`.
#[inline(always)]
pub(super) fn unit_word(cur: &[f32; 66], lo2: f32, hi2: f32) -> u64 {
    let mut unit = [0u8; 64];
    for (j, u) in unit.iter_mut().enumerate() {
        let v = cur[j] + cur[j + 1] + cur[j + 2];
        *u = (v >= lo2 && v <= hi2) as u8;
    }
    crate::layout::byte_flags(&unit, 0)
}

/// [`unit_word`] under AVX2: the 64 sums compared eight at a time, the compare masks
/// taken as the bits (`movemask`) instead of packed from flag bytes (that packing was
/// nearly half of the scan). The same sums in the same order and the same ordered
/// comparisons (false on NaN), so the same word (tested on arbitrary squares).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub(super) fn unit_word_avx2(cur: &[f32; 66], lo2: f32, hi2: f32) -> u64 {
    use std::arch::x86_64::{
        _mm256_add_ps, _mm256_and_ps, _mm256_cmp_ps, _mm256_loadu_ps, _mm256_movemask_ps, _mm256_set1_ps, _CMP_GE_OQ,
        _CMP_LE_OQ,
    };
    let (lo, hi) = (_mm256_set1_ps(lo2), _mm256_set1_ps(hi2));
    let mut word = 0u64;
    for g in 0..8 {
        // Three overlapping loads inside the 66 squares (8g + 2 + 8 <= 66).
        let at = |k: usize| {
            let lanes: &[f32; 8] = cur[8 * g + k..8 * g + k + 8].try_into().expect("eight lanes");
            // SAFETY: `lanes` is eight readable f32s; the load is unaligned.
            unsafe { _mm256_loadu_ps(lanes.as_ptr()) }
        };
        let v = _mm256_add_ps(_mm256_add_ps(at(0), at(1)), at(2));
        let unit = _mm256_and_ps(_mm256_cmp_ps::<_CMP_GE_OQ>(v, lo), _mm256_cmp_ps::<_CMP_LE_OQ>(v, hi));
        word |= u64::from(_mm256_movemask_ps(unit) as u8) << (8 * g);
    }
    word
}

/// The square of a Xenos half, branch-free: `xenos_half_to_f32_fast` without the sign
/// (which a square does not need), so the same value `is_unit_normal` squares.
#[inline(always)]
pub(super) fn half_square(h: u16) -> f32 {
    let em = (h & 0x7FFF) as u32;
    let normal = f32::from_bits((em << 13) + (112 << 23));
    let sub = em as f32 * (1.0 / 16_777_216.0);
    let m = if em >= 0x0400 { normal } else { sub };
    m * m
}

/// Most consecutive non-unit slots a tolerant run ([`tolerant_runs_by_offset`]) bridges: a few
/// zero or off-unit normals inside a vertex buffer do not cut it.
pub const MAX_RUN_GAP: usize = 3;

/// Fewest unit slots of a tolerant run that [`tolerant_runs_by_offset`] keeps: a unit looks only
/// at runs holding half of its vertices and at least two (a lone unit-normal slot is what
/// junk decodes to every few hundred bytes; it anchors nothing).
pub const MIN_RUN_UNITS: usize = 2;

/// `(start offset, slots spanned, unit slots)` of a tolerant run.
pub type TolerantRun = (usize, usize, usize);

/// Tolerant runs at stride `s`: from every start of a maximal run of unit normals (the
/// slot one stride before is not unit), the chain of unit-normal slots at most
/// `MAX_RUN_GAP` non-unit slots apart, as `(start, slots spanned, unit slots)`, those of
/// at least [`MIN_RUN_UNITS`] unit slots, most unit slots first (then by offset). Slots of a buffer at another stride fall apart
/// into single slots here, so a unit of stride `s` looks at real runs only.
///
/// A chain is a function of the slot it has reached: from a unit slot it goes on to the
/// next unit slot of the same residue mod `s` if that is at most `MAX_RUN_GAP + 1`
/// strides on. So the slots are walked once, from the last: per residue, the chain of
/// the slot met last (the next one up) gives this slot's chain in O(1) (linear in the
/// bitmap, no per-start walks; chains bridging gaps used to be walked once per start
/// inside them, quadratic on buffers whose normals are often off-unit).
#[cfg(test)]
pub fn tolerant_runs(bm: &UnitBitmap, s: usize) -> Vec<TolerantRun> {
    with_extra(&tolerant_runs_by_offset(bm, s), |_| ())
        .into_iter()
        .map(|(r, ())| r)
        .collect()
}

/// The tolerant runs at stride `s` in descending order of their starts (the walk's own
/// order; [`with_extra`] sorts them). Independent of where in a vertex the normal is, so
/// one walk serves every normal offset of that stride.
pub fn tolerant_runs_by_offset(bm: &UnitBitmap, s: usize) -> Vec<TolerantRun> {
    if s == 0 {
        return Vec::new(); // every slot is its own predecessor: no run starts
    }
    let reach = (MAX_RUN_GAP + 1) * s;
    // Per residue mod `s`: (the lowest unit slot seen so far, its chain's last slot,
    // its chain's unit slots).
    let mut next: Vec<(usize, usize, usize)> = vec![(usize::MAX, 0, 0); s];
    let mut out: Vec<TolerantRun> = Vec::new();
    let residue = Residue::new(s);
    for q in bm.iter_rev() {
        let slot = &mut next[residue.of(q)];
        let (end, units) = match slot.0.checked_sub(q) {
            Some(d) if d <= reach => (slot.1, slot.2 + 1),
            _ => (q, 1),
        };
        *slot = (q, end, units);
        // Starts only (the slot one stride before is not unit). Most are one stray
        // unit-normal slot of junk: they chain on (a real run may pass through them)
        // but are never a run a unit looks at.
        if units >= MIN_RUN_UNITS && !(q >= s && bm.get(q - s)) {
            out.push((q, (end - q) / s + 1, units));
        }
    }
    out
}

/// Runs from [`tolerant_runs_by_offset`], each with `extra(start)` (called in their
/// order, descending starts, so reading data near each start walks memory in order,
/// not at random), most unit slots first (then by offset).
pub fn with_extra<X>(runs: &[TolerantRun], mut extra: impl FnMut(usize) -> X) -> Vec<(TolerantRun, X)> {
    let mut out: Vec<(TolerantRun, X)> = runs.iter().map(|&r| (r, extra(r.0))).collect();
    // Offsets are distinct, so (units descending, offset) is a total order and the
    // unstable sort gives the same list as a stable one.
    out.sort_unstable_by_key(|(r, _)| (std::cmp::Reverse(r.2), r.0));
    out
}

/// `q mod s` by one multiplication (Lemire, Kaser and Kurz, "Faster remainder by direct
/// computation", 2019) instead of a division per unit-normal slot: exact for every
/// `q, s < 2³²`; larger values (no data section is that large) take the division.
#[derive(Clone, Copy)]
pub(super) struct Residue {
    s: u64,
    m: u64,
}

impl Residue {
    pub(super) fn new(s: usize) -> Residue {
        let m = match u32::try_from(s) {
            Ok(d) if d > 1 => u64::MAX / d as u64 + 1,
            _ => 0,
        };
        Residue { s: s as u64, m }
    }

    #[inline(always)]
    pub(super) fn of(self, q: usize) -> usize {
        match u32::try_from(q) {
            Ok(q) if self.m != 0 => {
                let low = self.m.wrapping_mul(q as u64);
                ((low as u128 * self.s as u128) >> 64) as usize
            }
            _ => (q as u64 % self.s) as usize,
        }
    }
}

/// Values per group of [`IndexMaxima`].
pub const GROUP: usize = 16;

/// The largest big-endian u16 value of every aligned group of [`GROUP`] values of a data
/// section (values at even offsets; a last partial group holds the values left), and of
/// every aligned pair, four, … of groups above it (a pyramid of maxima: a quarter of the
/// section's size in all), computed once and shared by every unit's window search: "are
/// these values all `< V`" is then one comparison for any `V`, at any of those sizes, so
/// a further `(V, I)` costs a pass over the units of the largest size that every run of
/// `I` values must hold whole (`I / 2` values or so) instead of another pass over the
/// data.
pub struct IndexMaxima {
    /// `levels[j][u]`: the largest value of the `GROUP · 2^j` values from `u · GROUP · 2^j`
    /// (fewer in the last unit).
    levels: Vec<Vec<u16>>,
}

impl IndexMaxima {
    pub fn build(data: &[u8]) -> IndexMaxima {
        let groups = data.len() / (2 * GROUP);
        let mut max = vec![0u16; groups];
        fill_group_maxima(&data[..2 * GROUP * groups], &mut max);
        let tail = &data[2 * GROUP * groups..data.len() / 2 * 2];
        if !tail.is_empty() {
            max.push(
                tail.chunks_exact(2)
                    .map(|c| u16::from_be_bytes([c[0], c[1]]))
                    .fold(0, u16::max),
            );
        }
        let mut levels = vec![max];
        while levels.last().is_some_and(|l| l.len() > 1) {
            let up: Vec<u16> = levels
                .last()
                .expect("a level")
                .chunks(2)
                .map(|p| p.iter().copied().fold(0, u16::max))
                .collect();
            levels.push(up);
        }
        IndexMaxima { levels }
    }

    /// The level [`IndexMaxima::runs`] reads for runs of at least `min_len` values.
    fn level(&self, min_len: usize) -> usize {
        (0..self.levels.len())
            .take_while(|&j| 2 * (GROUP << j) - 1 <= min_len)
            .last()
            .unwrap_or(0)
    }

    /// How many values or units [`IndexMaxima::runs`] reads for runs of at least
    /// `min_len` values of `data` before growing them (the cost of its pass).
    pub fn pass_len(&self, data: &[u8], min_len: usize) -> usize {
        if min_len < 2 * GROUP - 1 {
            data.len() / 2
        } else {
            self.levels[self.level(min_len)].len()
        }
    }

    /// The largest big-endian u16 of the values `a..b` of `data` (the section these
    /// maxima were built from; 0 when empty): whole units of the largest aligned sizes
    /// inside the range, values one by one at its ends (fewer than `2·GROUP`).
    pub fn range_max(&self, data: &[u8], a: usize, b: usize) -> u16 {
        let val = |k: usize| u16::from_be_bytes([data[2 * k], data[2 * k + 1]]);
        let (mut m, mut k) = (0u16, a);
        while k < b && k % GROUP != 0 {
            m = m.max(val(k));
            k += 1;
        }
        while k + GROUP <= b {
            let mut j = 0;
            while j + 1 < self.levels.len() && k % (GROUP << (j + 1)) == 0 && k + (GROUP << (j + 1)) <= b {
                j += 1;
            }
            m = m.max(self.levels[j][k / (GROUP << j)]);
            k += GROUP << j;
        }
        while k < b {
            m = m.max(val(k));
            k += 1;
        }
        m
    }

    #[cfg(test)]
    pub(super) fn max_values(&self, data: &[u8]) -> &[u16] {
        &self.levels[0][..data.len() / (2 * GROUP)]
    }

    /// Maximal runs `(first u16 index, length)` of big-endian u16 values `< v` at even
    /// offsets of `data` (the section these maxima were built from), length ≥ `min_len`.
    /// A run of at least `2·U − 1` values holds a whole aligned unit of `U`, so only the
    /// units (of the largest size `U` that short) whose maximum is `< v` start a run; it
    /// is grown backwards value by value (fewer than `U` steps) and forwards a whole unit
    /// at a time while the units are below `v`. Runs shorter than `2·GROUP − 1` take the
    /// plain scan ([`index_runs`]).
    pub fn runs(&self, data: &[u8], v: u32, min_len: usize) -> Vec<(usize, usize)> {
        if min_len < 2 * GROUP - 1 {
            return index_runs(data, v, min_len);
        }
        let j = self.level(min_len);
        let level = &self.levels[j];
        let valid = |k: usize| (u16::from_be_bytes([data[2 * k], data[2 * k + 1]]) as u32) < v;
        let below = |u: usize| (level[u] as u32) < v;
        grow_runs(data.len() / 2, GROUP << j, level.len(), below, valid, min_len)
    }
}

/// Maximal runs `(first value, length)`, length ≥ `min_len`, of the `n` values for which
/// `valid` holds, found from `units` aligned units of `len` values of which `whole(u)`
/// says that all are valid: every run of at least `2·len − 1` values holds a whole unit,
/// so only whole units start a run (the caller sees that `min_len` is that long). A run
/// grows backwards value by value (fewer than `len` steps: the unit before is not
/// whole, or holds the end of the run found last), forwards a whole unit at a time and
/// then value by value.
fn grow_runs(
    n: usize,
    len: usize,
    units: usize,
    whole: impl Fn(usize) -> bool,
    valid: impl Fn(usize) -> bool,
    min_len: usize,
) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut u = 0;
    while u < units {
        if !whole(u) {
            u += 1;
            continue;
        }
        let mut start = (len * u).min(n);
        while start > 0 && valid(start - 1) {
            start -= 1;
        }
        let mut next = u + 1;
        while next < units && whole(next) {
            next += 1;
        }
        let mut end = (len * next).min(n);
        while end < n && valid(end) {
            end += 1;
        }
        if end - start >= min_len.max(1) {
            out.push((start, end - start));
        }
        // The unit holding `end` has an invalid value: it is not whole.
        u = end / len + 1;
    }
    out
}

/// `max[g]` = the largest big-endian u16 of `data[32g..32g + 32]` (`data` holds exactly
/// `max.len()` groups). The same loop compiled for AVX2 where the CPU has it (the
/// byte swap and unsigned maximum are one instruction each there), plain otherwise.
fn fill_group_maxima(data: &[u8], max: &mut [u16]) {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2 (checked just above).
        return unsafe { fill_group_maxima_avx2(data, max) };
    }
    fill_group_maxima_plain(data, max)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn fill_group_maxima_avx2(data: &[u8], max: &mut [u16]) {
    fill_group_maxima_plain(data, max)
}

#[inline(always)]
pub(super) fn fill_group_maxima_plain(data: &[u8], max: &mut [u16]) {
    for (m, c) in max.iter_mut().zip(data.chunks_exact(2 * GROUP)) {
        let c: &[u8; 2 * GROUP] = c.try_into().expect("whole groups");
        let mut top = 0u16;
        for j in 0..GROUP {
            top = top.max(u16::from_be_bytes([c[2 * j], c[2 * j + 1]]));
        }
        *m = top;
    }
}

/// Maximal runs `(first u16 index, length)` of big-endian u16 values `< v` at even
/// offsets, length ≥ `min_len`, in one pass. A run of at least `2B − 1` values contains
/// a whole aligned block of `B`, so for the usual lengths only blocks whose `B` values
/// are all valid are looked at closely (counted with a compare-and-add the compiler
/// vectorises); the run is then grown both ways value by value.
pub fn index_runs(data: &[u8], v: u32, min_len: usize) -> Vec<(usize, usize)> {
    match min_len {
        127.. => blocked_runs::<64>(data, v, min_len),
        31.. => blocked_runs::<16>(data, v, min_len),
        7.. => blocked_runs::<4>(data, v, min_len),
        _ => blocked_runs::<1>(data, v, min_len),
    }
}

pub(super) fn blocked_runs<const B: usize>(data: &[u8], v: u32, min_len: usize) -> Vec<(usize, usize)> {
    let valid = |k: usize| (u16::from_be_bytes([data[2 * k], data[2 * k + 1]]) as u32) < v;
    let n = data.len() / 2;
    let full = |b: usize| {
        let c = &data[2 * B * b..2 * B * (b + 1)];
        c.chunks_exact(2)
            .map(|x| ((u16::from_be_bytes([x[0], x[1]]) as u32) < v) as u32)
            .sum::<u32>()
            == B as u32
    };
    grow_runs(n, B, n / B, full, valid, min_len)
}
