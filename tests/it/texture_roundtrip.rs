//! Textures: the generator's encoder (`synth::texture`, written independently of the
//! decoder) against the exporter's decoder (`texture`): every format, tiled and linear,
//! decodes exactly to the generator's reference decode and within the codec's error of
//! the source image (exactly for 8_8_8_8 / 5_6_5); the tiling formula matches a
//! hand-checked vector; the textures of the synthetic disc round-trip from its files.

use proptest::prelude::*;
use serde_json::Value;
use xbg7::container::{self, TAG_TX2D};
use xbg7::texture::{self, resource::decode_resource, tiling, Format, Image, TextureCode};
use xbg7_export::manifest::{Status, TextureEntry};
use xbg7_synth::texture::{
    encode_texture, reference_image, source_image, tiled_block_index, tx2d_descriptor, TexFormat, TexPlan,
};
use xbg7_synth::{build_file, file_plan, FileKind, SynthOptions};

fn plan(name: &str, format: TexFormat, width: u32, height: u32) -> TexPlan {
    TexPlan {
        name: name.to_string(),
        format,
        width,
        height,
        tiled: true,
    }
}

fn linear(t: TexPlan) -> TexPlan {
    TexPlan { tiled: false, ..t }
}

fn pixels(img: &Image) -> Vec<[u8; 4]> {
    img.rgba.chunks_exact(4).map(|c| [c[0], c[1], c[2], c[3]]).collect()
}

/// PSNR over all four channels (∞ when equal).
fn psnr(a: &[[u8; 4]], b: &[[u8; 4]]) -> f64 {
    let se: f64 = a
        .iter()
        .zip(b)
        .flat_map(|(p, q)| (0..4).map(move |k| (p[k] as f64 - q[k] as f64).powi(2)))
        .sum();
    let mse = se / (4 * a.len()) as f64;
    if mse == 0.0 {
        f64::INFINITY
    } else {
        10.0 * (255.0f64 * 255.0 / mse).log10()
    }
}

/// Decode `t` as stored by the generator at data offset 0.
fn decode_plan(t: &TexPlan) -> (texture::TextureHeader, Image) {
    let desc = tx2d_descriptor(t, 0);
    texture::decode(&desc, &encode_texture(t)).unwrap_or_else(|r| panic!("{}: {r}", t.name))
}

#[test]
fn every_format_round_trips_tiled_and_linear() {
    for f in TexFormat::ALL {
        // Whole tiles, and sizes whose blocks are padded to 32 on one or both sides.
        for (w, h) in [(128, 128), (256, 128), (64, 64), (128, 64), (64, 256), (96, 40)] {
            let names = ["grad_col", "checker_col", "label_col", "x_spc", "y_gls", "z_lum"];
            for name in names {
                for t in [plan(name, f, w, h), linear(plan(name, f, w, h))] {
                    let (hdr, img) = decode_plan(&t);
                    assert_eq!(hdr.format.map(Format::name), Some(f.name()));
                    assert_eq!(hdr.tiled, t.tiled, "{}", f.name());
                    assert_eq!((img.width, img.height), (w, h));
                    let got = pixels(&img);
                    let want = reference_image(&t);
                    let how = if t.tiled { "tiled" } else { "linear" };
                    assert!(
                        got == want,
                        "{} {w}×{h} {name} {how}: not the reference decode",
                        f.name()
                    );
                    let p = psnr(&got, &source_image(&t));
                    match f {
                        TexFormat::Argb8 | TexFormat::Rgb565 => assert_eq!(got, source_image(&t)),
                        _ => assert!(p >= 35.0, "{} {w}×{h} {name}: PSNR {p:.1} dB", f.name()),
                    }
                }
            }
        }
    }
}

#[test]
fn tiled_textures_pad_their_footprint_to_whole_tiles() {
    // 64×64 DXT1: 16×16 blocks, stored as one 32×32-block tile (8 KiB, not 2 KiB).
    let t = plan("pad_col", TexFormat::Dxt1, 64, 64);
    assert_eq!(t.payload_size(), 32 * 32 * 8);
    // Linear rows are padded to 32 blocks too.
    assert_eq!(linear(t.clone()).payload_size(), 32 * 16 * 8);
    let (hdr, img) = decode_plan(&t);
    let f = hdr.format.unwrap();
    assert_eq!((hdr.pitch_blocks(f), hdr.base_size(f)), (32, 32 * 32 * 8));
    assert!(pixels(&img) == reference_image(&t));
    // Blocks live in the padding (block (0, 8) is block 528 of the tile): cut to the
    // linear size, the payload is a range reject, not a wrong image.
    let payload = encode_texture(&t);
    let cut = texture::decode(&tx2d_descriptor(&t, 0), &payload[..16 * 16 * 8]);
    assert_eq!(cut.unwrap_err().code, TextureCode::BadRange);
    // Non-square: 256×64 DXT4_5 = 64×16 blocks → 64×32 blocks; 64×256 → 32×64.
    for (w, h, size) in [(256, 64, 64 * 32 * 16), (64, 256, 32 * 64 * 16)] {
        let t = plan("wide_col", TexFormat::Dxt5, w, h);
        assert_eq!(t.payload_size(), size);
        let payload = encode_texture(&t);
        assert_eq!(payload.len(), size);
        let (_, img) = texture::decode(&tx2d_descriptor(&t, 0), &payload).unwrap();
        assert!(pixels(&img) == reference_image(&t), "{w}×{h}");
    }
    // The disc keeps about one texture in eight linear (by name).
    let names: Vec<String> = (0..800).map(|k| format!("t{k}_col")).collect();
    let lin = names.iter().filter(|n| !TexPlan::tiled_by_name(n)).count();
    assert!((60..=140).contains(&lin), "{lin} of 800 linear");
}

#[test]
fn tiling_matches_the_hand_checked_vector() {
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string("tests/fixtures/tiled_dxt1_64x64.json").unwrap()).unwrap();
    let pitch = v["pitch_blocks"].as_u64().unwrap() as u32;
    let bpb = v["block_bytes"].as_u64().unwrap() as u32;
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 4);
    for (y, row) in rows.iter().enumerate() {
        for (x, want) in row.as_array().unwrap().iter().enumerate() {
            let want = want.as_u64().unwrap() as u32;
            let (x, y) = (x as u32, y as u32);
            assert_eq!(tiling::tiled_offset(x, y, pitch, 3) / bpb, want, "decoder ({x},{y})");
            assert_eq!(tiled_block_index(x, y, 16, 3), want, "generator ({x},{y})");
        }
    }
}

proptest! {
    #[test]
    fn decoder_and_generator_tiling_agree(x in 0u32..256, y in 0u32..256, width in 1u32..256, log2 in 1u32..5) {
        prop_assume!(x < width);
        let pitch = width.div_ceil(32) * 32;
        let bytes = 1u32 << log2;
        prop_assert_eq!(tiling::tiled_offset(x, y, pitch, log2), tiled_block_index(x, y, width, log2) * bytes);
    }

    #[test]
    fn decoding_arbitrary_bytes_never_panics(desc in proptest::collection::vec(any::<u8>(), 0..64),
                                             data in proptest::collection::vec(any::<u8>(), 0..4096)) {
        let _ = texture::decode(&desc, &data);
    }
}

#[test]
fn the_synthetic_disc_textures_round_trip_from_the_files() {
    let plan_ = file_plan(&SynthOptions::demo(7));
    // A few models and the smallest stage: several formats, tiled and linear.
    let stage = plan_
        .iter()
        .filter(|f| f.kind == FileKind::Stage)
        .min_by_key(|f| f.estimated_size())
        .unwrap();
    let specs: Vec<_> = plan_
        .iter()
        .filter(|f| f.kind == FileKind::Model)
        .take(6)
        .chain([stage])
        .collect();
    let mut seen = std::collections::BTreeSet::new();
    for spec in specs {
        let file = build_file(spec);
        let c = container::parse(&file.bytes).unwrap();
        let tex: Vec<_> = c.resources.iter().filter(|r| r.is(TAG_TX2D)).collect();
        assert_eq!(tex.len(), spec.textures.len());
        for r in tex {
            let t = spec.textures.iter().find(|t| t.name.as_bytes() == r.name).unwrap();
            let d = decode_resource(r, c.data);
            let e = TextureEntry::of(&d);
            assert_eq!(e.status, Some(Status::Decoded), "{}: {:?}", t.name, e.reason);
            assert_eq!(e.format.as_deref(), Some(t.format.name()));
            assert_eq!(e.tiled, Some(t.tiled));
            assert_eq!((e.width, e.height), (Some(t.width), Some(t.height)));
            assert!(pixels(&d.result.unwrap()) == reference_image(t), "{}", t.name);
            seen.insert((t.format.name(), t.tiled));
        }
    }
    for want in [
        ("DXT1", true),
        ("DXT1", false),
        ("8_8_8_8", false),
        ("5_6_5", true),
        ("DXN", true),
    ] {
        assert!(seen.contains(&want), "{want:?} not on the disc sample: {seen:?}");
    }
}

#[test]
fn endian_modes_decode_the_same_texture() {
    let t = plan("e_col", TexFormat::Argb8, 64, 64);
    let payload = encode_texture(&t); // 8in32
    let mut desc = tx2d_descriptor(&t, 0);
    let (_, want) = texture::decode(&desc, &payload).unwrap();
    // Same texels stored 16in32 after un-doing 8in32: bytes (B G R A) → (R A B G).
    let mut other = payload.clone();
    for c in other.chunks_exact_mut(4) {
        let le = [c[3], c[2], c[1], c[0]];
        c.copy_from_slice(&[le[2], le[3], le[0], le[1]]);
    }
    desc[0x23] = (desc[0x23] & !0xC0) | (3 << 6);
    let (_, got) = texture::decode(&desc, &other).unwrap();
    assert_eq!(got, want);
}

#[test]
fn bad_headers_and_ranges_are_rejects() {
    let t = plan("r_col", TexFormat::Dxt1, 128, 128);
    let payload = encode_texture(&t);
    let desc = tx2d_descriptor(&t, 0);
    let code = |d: &[u8], data: &[u8]| texture::decode(d, data).unwrap_err().code;
    assert_eq!(code(&desc, &payload[..payload.len() - 8]), TextureCode::BadRange);
    assert_eq!(code(&tx2d_descriptor(&t, 0x1000), &payload), TextureCode::BadRange);
    assert_eq!(code(&desc[..40], &payload), TextureCode::BadDescriptor);
    let mut unknown = desc;
    unknown[0x23] = (unknown[0x23] & 0xC0) | 7;
    assert_eq!(code(&unknown, &payload), TextureCode::UnknownFormat);
    let small = plan("s_col", TexFormat::Dxt1, 16, 16);
    let mut packed = tx2d_descriptor(&small, 0);
    packed[0x32] |= 1 << 3; // dword5 bit 11
    assert_eq!(code(&packed, &[0; 4096]), TextureCode::PackedMipTail);
}

/// Not a check: writes the demo disc to `$XBG7_TEX_DISC` (to compare its `truth.json`
/// with another build's: textures must change payload bytes only).
#[test]
#[ignore]
fn write_demo_disc_for_comparison() {
    let Some(dir) = std::env::var_os("XBG7_TEX_DISC") else {
        return;
    };
    xbg7_synth::write_disc(std::path::Path::new(&dir), &SynthOptions::demo(1)).unwrap();
}
