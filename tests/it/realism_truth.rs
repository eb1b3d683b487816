//! The decoder against the ground truth of the *realistic* demo discs (`synth --realism`,
//! issue #14): every imperfection family is on the disc, every decoded resource is
//! bit-identical to the truth (0 wrong anywhere), and per family the coverage the issue
//! asks for. Seeds 1–3.

use xbg7_export::verify::Report;
use xbg7_synth::realism::FAMILY_NAMES;

fn run(seed: u64) -> Report {
    crate::common::verify_demo(seed, true, false)
}

fn report(seed: u64) -> &'static Report {
    use std::sync::OnceLock;
    static R: [OnceLock<Report>; 3] = [OnceLock::new(), OnceLock::new(), OnceLock::new()];
    R[(seed - 1) as usize].get_or_init(|| {
        let r = run(seed);
        eprintln!("realism seed {seed}\n{}", r.table());
        r
    })
}

/// Every family is on each realism demo disc (what the tests cover does not depend on
/// the decoder).
#[test]
fn realism_demo_discs_carry_every_family() {
    for seed in 1..=3 {
        let r = report(seed);
        assert!(r.container_errors.is_empty(), "{:?}", r.container_errors);
        for f in FAMILY_NAMES {
            let t = r.families.get(f);
            assert!(
                t.is_some_and(|t| t.expected_decoded + t.expected_rejected > 0),
                "seed {seed}: family {f} not on the disc"
            );
        }
    }
}

fn assert_no_wrong(seed: u64) {
    let r = report(seed);
    let wrong: Vec<&String> = r.categories.values().flat_map(|t| &t.wrong).collect();
    assert!(wrong.is_empty(), "seed {seed}: {} wrong: {wrong:?}", wrong.len());
    assert_eq!(r.texture_wrong() + r.texture_rejected(), 0);
}

#[test]
fn realism_demo_seed_1_decodes_nothing_wrong() {
    assert_no_wrong(1);
}

#[test]
fn realism_demo_seed_2_decodes_nothing_wrong() {
    assert_no_wrong(2);
}

#[test]
fn realism_demo_seed_3_decodes_nothing_wrong() {
    assert_no_wrong(3);
}

/// Coverage per family (seed 1): imperfect normals and the degenerate / flipped /
/// unreferenced shares ≥ 98 % exact; record filler, record order and per-record blocks
/// all decode; every intact trap sibling decodes, owners and damaged siblings are
/// rejected (a multi-stream owner decodes exactly or is rejected); the resources without
/// a family as on the perfect disc.
#[test]
fn realism_demo_seed_1_family_coverage() {
    let r = report(1);
    let fam = |f: &str| r.families.get(f).cloned().unwrap_or_default();
    // A split that several orders of the records fit is undecidable (FORMAT.md does not
    // document the records' order): one primitive, counted exact by its unsplit digest.
    for f in [
        "imperfect_normals",
        "degenerate_share",
        "flipped_share",
        "unreferenced_share",
    ] {
        let t = fam(f);
        assert!(
            t.decoded_exact as f64 >= 0.98 * t.expected_decoded as f64,
            "{f}: {}/{} exact, missed {:?}",
            t.decoded_exact,
            t.expected_decoded,
            t.missed
        );
    }
    for f in [
        "record_filler",
        "record_order",
        "per_record_blocks",
        "owner_trap_sibling",
    ] {
        let t = fam(f);
        assert_eq!(t.decoded_exact, t.expected_decoded, "{f}: missed {:?}", t.missed);
    }
    for f in ["owner_trap_owner", "owner_trap_damaged"] {
        let t = fam(f);
        assert_eq!(
            t.rejected,
            t.expected_rejected + t.expected_either - t.decoded_exact,
            "{f}"
        );
        assert!(t.wrong.is_empty(), "{f}: {:?}", t.wrong);
    }
    // A multi-stream owner (its positions and normals placed) may decode, exactly.
    let owners = fam("owner_trap_owner");
    assert!(owners.expected_either > 0 && owners.decoded_exact > 0, "{owners:?}");
}

/// What the realism demo discs still miss, all of it undecidable: on seed 2 a body stored
/// as one block per record has two records of the same counts and declaration, whose
/// two (different) blocks could be either's. Anything else missed is a coverage
/// regression (this list was longer before a losing claim stopped taking others with
/// it, windows after degenerate triangles counted as inside a list, and a unit stopped
/// holding the claims it let go of).
#[test]
fn realism_demo_discs_miss_only_the_undecidable() {
    for (seed, want) in [(1u64, vec![]), (2, vec!["rou_e035"]), (3, vec![])] {
        let missed: Vec<String> = report(seed)
            .categories
            .values()
            .flat_map(|t| t.missed.iter().cloned())
            .collect();
        assert_eq!(missed.len(), want.len(), "seed {seed}: {missed:?}");
        for (m, w) in missed.iter().zip(&want) {
            assert!(m.contains(w), "seed {seed}: {missed:?}");
        }
    }
}
