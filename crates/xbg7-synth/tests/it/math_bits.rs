//! The generator's transcendental functions (`xbg7_synth::math`) give the bits recorded on
//! Linux (glibc) over sweeps of the arguments the generator uses. They were the platform's
//! C library's, which is not correctly rounded: the demo disc cross-built for Windows
//! differed from Linux's in 101 files, by the last bit of some of these results (issue
//! 41). They are now glibc's algorithms in Rust (`math::glibc`), so these bits are every
//! platform's. `synth_perfect_bytes` says *that* a disc moved; this says which function
//! rounds differently.

use xbg7_synth::math::Math;

/// Sweeps of the generator's argument ranges: angles (`tau * u`, `pi * t`, `3 pi t`, the
/// rotations), exponents of the log-uniform draws, the logarithms' arguments, and
/// `sin^0.6` of the wing profile.
fn f32_inputs(f: &str) -> Vec<(f32, f32)> {
    let n = 4096;
    let lerp = |lo: f32, hi: f32, i: usize| lo + (hi - lo) * (i as f32 / (n - 1) as f32);
    match f {
        "sin" | "cos" => (0..n).map(|i| (lerp(-10.0, 10.0, i), 0.0)).collect(),
        "exp" => (0..n).map(|i| (lerp(-10.0, 12.0, i), 0.0)).collect(),
        // Geometric, by exact multiplications (no math function makes the inputs).
        "ln" => std::iter::successors(Some(1e-3f32), |x| Some(x * 1.0041))
            .take(n)
            .map(|x| (x, 0.0))
            .collect(),
        "powf" => (0..n).map(|i| (lerp(0.0, 1.0, i), 0.6)).collect(),
        _ => unreachable!(),
    }
}

fn f64_inputs(f: &str) -> Vec<f64> {
    let n = 4096;
    let lerp = |lo: f64, hi: f64, i: usize| lo + (hi - lo) * (i as f64 / (n - 1) as f64);
    match f {
        "exp" => (0..n).map(|i| lerp(0.0, 20.0, i)).collect(),
        "ln" => (0..n).map(|i| (1 + i * 997) as f64).collect(),
        _ => unreachable!(),
    }
}

/// (function, first 4 results' bits, digest of all results' bits).
fn observed() -> Vec<(String, Vec<String>, String)> {
    let mut out = Vec::new();
    for f in ["sin", "cos", "exp", "ln", "powf"] {
        let bits: Vec<u32> = f32_inputs(f)
            .into_iter()
            .map(|(x, y)| {
                match f {
                    "sin" => x.m_sin(),
                    "cos" => x.m_cos(),
                    "exp" => x.m_exp(),
                    "ln" => x.m_ln(),
                    _ => x.m_powf(y),
                }
                .to_bits()
            })
            .collect();
        let mut h = blake3::Hasher::new();
        bits.iter().for_each(|b| {
            h.update(&b.to_le_bytes());
        });
        let first = bits[..4].iter().map(|b| format!("{b:#010x}")).collect();
        out.push((format!("f32 {f}"), first, h.finalize().to_hex()[..16].to_string()));
    }
    for f in ["exp", "ln"] {
        let bits: Vec<u64> = f64_inputs(f)
            .into_iter()
            .map(|x| if f == "exp" { x.m_exp() } else { x.m_ln() }.to_bits())
            .collect();
        let mut h = blake3::Hasher::new();
        bits.iter().for_each(|b| {
            h.update(&b.to_le_bytes());
        });
        let first = bits[..4].iter().map(|b| format!("{b:#018x}")).collect();
        out.push((format!("f64 {f}"), first, h.finalize().to_hex()[..16].to_string()));
    }
    out
}

/// Recorded on x86_64 Linux, glibc 2.36 (Debian 12), with std's functions (a CPU with FMA:
/// glibc's FMA build): each function's first 4 results and the digest (BLAKE3, first 16
/// hex digits) of all 4096 results' bits, little-endian.
const PINNED: &[(&str, [&str; 4], &str)] = &[
    (
        "f32 sin",
        ["0x3f0b44f8", "0x3f0a37fd", "0x3f092a1d", "0x3f081b73"],
        "a38914749497a6b2",
    ),
    (
        "f32 cos",
        ["0xbf56cd64", "0xbf577adb", "0xbf58270a", "0xbf58d1de"],
        "ab1d1800e772eda5",
    ),
    (
        "f32 exp",
        ["0x383e6bce", "0x383f7262", "0x38407a6d", "0x384183d8"],
        "04080623a190377d",
    ),
    (
        "f32 ln",
        ["0xc0dd0c55", "0xc0dcead0", "0xc0dcc94b", "0xc0dca7c7"],
        "9500601f37516bab",
    ),
    (
        "f32 powf",
        ["0x00000000", "0x3bdee4c0", "0x3c28ebf7", "0x3c577269"],
        "eaadafd313a81ed8",
    ),
    (
        "f64 exp",
        [
            "0x3ff0000000000000",
            "0x3ff0140dc6dc17b3",
            "0x3ff02834b035326f",
            "0x3ff03c74db8c10e1",
        ],
        "b4e1b233797f7a60",
    ),
    (
        "f64 ln",
        [
            "0x0000000000000000",
            "0x401b9f7dc97002a7",
            "0x401e64c2cb35943c",
            "0x402001e49e1cfc2d",
        ],
        "f17a985c94df3361",
    ),
];

#[test]
fn the_generators_math_gives_the_recorded_bits() {
    let seen = observed();
    // The rows of PINNED this platform gives (to record them anew, see the assertion).
    for (f, first, digest) in &seen {
        println!("    (\"{f}\", [\"{}\"], \"{digest}\"),", first.join("\", \""));
    }
    let mut differ = Vec::new();
    for (f, first, digest) in &seen {
        let Some((_, pf, pd)) = PINNED.iter().find(|(n, _, _)| n == f) else {
            differ.push(format!("{f}: not pinned"));
            continue;
        };
        if first != pf || digest != pd {
            differ.push(format!("{f}: {first:?} {digest} (recorded {pf:?} {pd})"));
        }
    }
    assert!(
        differ.is_empty(),
        "the generator's math gives other bits than the recording's \
         (the synthetic disc will differ): {differ:#?}"
    );
}
