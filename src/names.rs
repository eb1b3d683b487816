//! Resource names → safe, unique file names. Names are data, not paths.
//!
//! This module owns the mapping from raw XPR2 resource names (arbitrary bytes: not
//! guaranteed UTF-8, unique, or safe) to file-name stems that are safe on every common
//! file system and as relative URIs:
//!
//! - only `[A-Za-z0-9._-]` survive from the input; every other byte (non-UTF-8, `/`, `\`,
//!   NUL, control bytes, spaces, ...) becomes `_`;
//! - leading dots are stripped (no `.`, `..` or hidden names), and trailing dots too:
//!   Windows drops them (and trailing spaces, which never survive), so `bar.` would be
//!   the folder `bar` there, silently merged with another container's;
//! - a name with nothing left of the original (empty, or only replacement `_`) becomes
//!   `res_<index>`;
//! - names longer than [`MAX_LEN`] bytes are cut and get `-<16 hex>` (BLAKE3 of the full
//!   original bytes) so that different long names stay different;
//! - Windows device names (`CON`, `PRN`, `AUX`, `NUL`, `COM0`–`COM9`, `LPT0`–`LPT9`,
//!   case-insensitive, also as the stem of `con.txt`) get a `_` prefix;
//! - [`unique_names`] appends `~<index>` to names equal (ASCII case-insensitively) to an
//!   earlier one. `~` never comes out of [`sanitize`], so suffixed names cannot collide
//!   with natural ones.
//!
//! Every output is made of `[A-Za-z0-9._~-]` only: all are URI "unreserved" characters,
//! so a stem can be used in a glTF `uri` without percent-encoding.

use std::collections::HashSet;

/// Longest output of [`sanitize`], in bytes.
pub const MAX_LEN: usize = 100;

/// Longest output of [`unique_names`], in bytes.
pub const MAX_UNIQUE_LEN: usize = 120;

/// Hex digits of the hash suffix added when a name is truncated.
const HASH_HEX: usize = 16;

/// Sanitize one name: `[A-Za-z0-9._-]` kept, everything else `_`; leading and trailing
/// dots stripped; empty, `.`/`..`-only,
/// Windows device names and over-long names handled; `res_<index>` when nothing is left.
pub fn sanitize(name: &[u8], index: u32) -> String {
    // Map bytes; remember which output bytes are original (not replacements).
    let mapped: Vec<(u8, bool)> = name
        .iter()
        .map(|&b| if is_kept(b) { (b, true) } else { (b'_', false) })
        .collect();
    let start = mapped.iter().position(|&(b, _)| b != b'.').unwrap_or(mapped.len());
    let end = mapped.iter().rposition(|&(b, _)| b != b'.').map_or(start, |i| i + 1);
    let body = &mapped[start..end.max(start)];
    if !body.iter().any(|&(_, original)| original) {
        return format!("res_{index}");
    }
    let mut out: String = body.iter().map(|&(b, _)| char::from(b)).collect();
    if out.len() > MAX_LEN {
        // Room for the separator, the hash and a possible device-name prefix.
        let keep = MAX_LEN - 1 - HASH_HEX - 1;
        let hash = blake3::hash(name).to_hex();
        out.truncate(keep);
        out.push('-');
        out.push_str(&hash[..HASH_HEX]);
    }
    if is_device_name(&out) {
        out.insert(0, '_');
    }
    out
}

/// Sanitize a container's names (given as (directory index, raw name)); duplicates after
/// sanitizing (case-insensitively) get `~<index>` appended. Output order = input order.
pub fn unique_names(names: &[(u32, &[u8])]) -> Vec<String> {
    let mut seen: HashSet<String> = HashSet::with_capacity(names.len());
    let mut out = Vec::with_capacity(names.len());
    for &(index, raw) in names {
        let base = sanitize(raw, index);
        let mut candidate = base.clone();
        let mut attempt: u64 = 0;
        while seen.contains(&candidate.to_ascii_lowercase()) {
            // First `~<index>`, then `~<index>_<n>` if even that is taken (e.g. the
            // same directory index listed twice).
            let suffix = if attempt == 0 {
                format!("~{index}")
            } else {
                format!("~{index}_{attempt}")
            };
            attempt += 1;
            let room = MAX_UNIQUE_LEN.saturating_sub(suffix.len());
            candidate = format!("{}{suffix}", &base[..base.len().min(room)]);
        }
        seen.insert(candidate.to_ascii_lowercase());
        out.push(candidate);
    }
    out
}

/// Bytes that survive sanitizing unchanged.
fn is_kept(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-')
}

/// Whether Windows would treat `name` (or its stem before the first `.`) as a device.
pub fn is_device_name(name: &str) -> bool {
    let stem = name.split('.').next().unwrap_or(name).to_ascii_uppercase();
    match stem.as_bytes() {
        b"CON" | b"PRN" | b"AUX" | b"NUL" => true,
        [b'C', b'O', b'M', d] | [b'L', b'P', b'T', d] => d.is_ascii_digit(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn keeps_safe_and_replaces_the_rest() {
        assert_eq!(sanitize(b"rou_f001_wep_00", 0), "rou_f001_wep_00");
        assert_eq!(sanitize(b"a b/c\\d\0e\x01f", 0), "a_b_c_d_e_f");
        assert_eq!(sanitize(b"caf\xc3\xa9", 0), "caf__");
        assert_eq!(sanitize(b"Mesh-1.v2", 0), "Mesh-1.v2");
        assert_eq!(sanitize(b"\xff", 0), "res_0");
    }

    #[test]
    fn strips_leading_dots() {
        assert_eq!(sanitize(b".hidden", 1), "hidden");
        assert_eq!(sanitize(b"..", 2), "res_2");
        assert_eq!(sanitize(b".", 3), "res_3");
        assert_eq!(sanitize(b"../etc", 4), "_etc");
        assert_eq!(sanitize(b"a..b", 4), "a..b");
    }

    /// Windows drops trailing dots and spaces (`bar.` is `bar` there): none is left, and
    /// names that differ only by them are made distinct by [`unique_names`].
    #[test]
    fn strips_trailing_dots_and_never_ends_in_a_space() {
        for (raw, want) in [
            (&b"bar."[..], "bar"),
            (b"bar..", "bar"),
            (b"a..b.", "a..b"),
            (b"bar ", "bar_"),
            (b"bar. ", "bar._"),
            (b"bar .", "bar_"),
            (b".bar.", "bar"),
            (b"...", "res_6"),
            (b" .", "res_6"),
            (b"_.", "_"),
            (b"con.", "_con"),
            (b"CON..txt.", "_CON..txt"),
        ] {
            assert_eq!(sanitize(raw, 6), want, "{}", String::from_utf8_lossy(raw));
        }
        let input: Vec<(u32, &[u8])> = vec![(0, b"bar"), (1, b"bar."), (2, b"bar.."), (3, b"BAR. ")];
        assert_eq!(unique_names(&input), ["bar", "bar~1", "bar~2", "BAR._"]);
        // A long name cut just after a dot still ends in its hash.
        let mut long = vec![b'a'; 81];
        long.extend([b'.'; 100]);
        long.push(b'z');
        let s = sanitize(&long, 0);
        assert!(s.ends_with(&blake3::hash(&long).to_hex()[..16]), "{s}");
    }

    #[test]
    fn empty_or_nothing_original_gives_res_index() {
        assert_eq!(sanitize(b"", 7), "res_7");
        assert_eq!(sanitize(b"   ", 8), "res_8");
        assert_eq!(sanitize(b"\0\0", 9), "res_9");
        // Original underscores are content.
        assert_eq!(sanitize(b"__", 10), "__");
        assert_eq!(sanitize(b"._", 11), "_");
    }

    #[test]
    fn device_names_get_prefix() {
        assert_eq!(sanitize(b"CON", 0), "_CON");
        assert_eq!(sanitize(b"con.txt", 0), "_con.txt");
        assert_eq!(sanitize(b"nul", 0), "_nul");
        assert_eq!(sanitize(b"Com1", 0), "_Com1");
        assert_eq!(sanitize(b"lpt9.a.b", 0), "_lpt9.a.b");
        assert_eq!(sanitize(b"COM10", 0), "COM10");
        assert_eq!(sanitize(b"CONSOLE", 0), "CONSOLE");
        assert_eq!(sanitize(b"aux_", 0), "aux_");
    }

    #[test]
    fn long_names_truncate_with_stable_distinct_hash() {
        let a = vec![b'a'; 300];
        let mut b = a.clone();
        b[299] = b'b';
        let sa = sanitize(&a, 0);
        let sb = sanitize(&b, 0);
        assert_eq!(sa.len(), 99);
        assert_eq!(&sa[..82], &"a".repeat(82)[..]);
        assert_eq!(&sa[82..83], "-");
        assert_eq!(&sa[83..], &blake3::hash(&a).to_hex()[..16]);
        assert_ne!(sa, sb);
        assert_eq!(sa, sanitize(&a, 5));
        // Exactly MAX_LEN is not truncated.
        assert_eq!(sanitize(&[b'x'; 100], 0), "x".repeat(100));
        // A truncated device stem still gets its prefix.
        let mut con = b"con.".to_vec();
        con.extend([b'z'; 200]);
        let s = sanitize(&con, 0);
        assert!(s.starts_with("_con.zzz"));
        assert_eq!(s.len(), 100);
    }

    #[test]
    fn unique_names_suffixes_case_insensitive_duplicates() {
        let input: Vec<(u32, &[u8])> = vec![
            (0, b"ship"),
            (1, b"SHIP"),
            (2, b"ship"),
            (3, b"sh/p"),
            (4, b"sh p"),
            (5, b""),
            (6, b"res_5"),
        ];
        assert_eq!(
            unique_names(&input),
            ["ship", "SHIP~1", "ship~2", "sh_p", "sh_p~4", "res_5", "res_5~6"]
        );
    }

    #[test]
    fn unique_names_survive_repeated_indices() {
        let input: Vec<(u32, &[u8])> = vec![(3, b"a"), (3, b"a"), (3, b"A"), (3, b"a")];
        assert_eq!(unique_names(&input), ["a", "a~3", "A~3_1", "a~3_2"]);
    }

    fn check_safe(s: &str, max: usize) {
        assert!(!s.is_empty());
        assert!(s.len() <= max, "{s} too long");
        assert!(s.bytes().all(|b| is_kept(b) || b == b'~'), "{s} has unsafe bytes");
        assert!(!s.starts_with('.'), "{s} starts with a dot");
        assert!(!s.ends_with(['.', ' ']), "{s} ends with a dot or a space");
        assert!(!is_device_name(s), "{s} is a device name");
    }

    fn device_like() -> impl Strategy<Value = Vec<u8>> {
        (
            prop::sample::select(vec!["con", "PRN", "Aux", "nul", "com3", "LPT1", "com"]),
            prop::collection::vec(any::<u8>(), 0..4),
        )
            .prop_map(|(d, tail)| {
                let mut v = d.as_bytes().to_vec();
                v.extend(tail);
                v
            })
    }

    fn raw_name() -> impl Strategy<Value = Vec<u8>> {
        prop_oneof![
            prop::collection::vec(any::<u8>(), 0..300),
            prop::collection::vec(prop::sample::select(b"aA._-~/ \0.".to_vec()), 0..8),
            device_like(),
        ]
    }

    proptest! {
        #[test]
        fn sanitize_is_always_safe(name in raw_name(), index in any::<u32>()) {
            let s = sanitize(&name, index);
            check_safe(&s, MAX_LEN);
            prop_assert!(!s.contains('~'));
            prop_assert_eq!(&s, &sanitize(&name, index));
        }

        #[test]
        fn unique_names_are_safe_and_distinct(
            names in prop::collection::vec((0u32..6, raw_name()), 0..24)
        ) {
            let input: Vec<(u32, &[u8])> =
                names.iter().map(|(i, n)| (*i, n.as_slice())).collect();
            let out = unique_names(&input);
            prop_assert_eq!(out.len(), input.len());
            let mut seen = HashSet::new();
            for s in &out {
                check_safe(s, MAX_UNIQUE_LEN);
                prop_assert!(seen.insert(s.to_ascii_lowercase()), "duplicate {}", s);
            }
        }
    }
}
