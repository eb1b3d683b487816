//! The decoder against the generator's ground truth, on the demo disc (seed 1): every
//! resource's outcome matches the expected one, and every decoded resource is
//! bit-identical to the truth (digest, counts, placement).

use std::collections::BTreeMap;
use xbg7_export::config::Config;
use xbg7_export::pipeline::{decode_container, kind_of};
use xbg7_export::synth::{build_file, file_plan, Scale, SynthOptions};

#[derive(Default, Debug)]
struct Tally {
    expected_decoded: usize,
    decoded_exact: usize,
    expected_rejected: usize,
    rejected: usize,
    wrong: Vec<String>,
    missed: Vec<String>,
}

fn run(seed: u64) -> BTreeMap<String, Tally> {
    let cfg = Config::default();
    let mut tallies: BTreeMap<String, Tally> = BTreeMap::new();
    for spec in file_plan(&SynthOptions {
        seed,
        scale: Scale::Demo,
    }) {
        let f = build_file(&spec);
        let name = f.rel_path.rsplit('/').next().unwrap().to_string();
        let d = decode_container(&f.bytes, kind_of(&name), &cfg).expect("container parses");
        assert_eq!(
            d.resources.len(),
            f.truth.resources.len(),
            "{name}: every XBG7 resource is reported"
        );
        for (got, want) in d.resources.iter().zip(&f.truth.resources) {
            assert_eq!(got.index, want.index);
            let t = tallies.entry(want.category.clone()).or_default();
            let label = format!("{name}#{} {} ({})", want.index, want.name, want.category);
            match (&got.result, want.expected.as_str()) {
                (Ok(dr), _) => {
                    let same = want.digest.as_deref() == Some(dr.mesh.digest().as_str());
                    if want.expected == "decoded" {
                        t.expected_decoded += 1;
                    }
                    if same {
                        t.decoded_exact += 1;
                        let has_twin = want.duplicate_of.is_some()
                            || f.truth.resources.iter().any(|r| r.duplicate_of == Some(want.index));
                        if !has_twin {
                            let offs: Vec<u64> = dr.placements.iter().map(|p| p.index_offset as u64).collect();
                            let truth: Vec<u64> = want.blocks.iter().map(|b| b.index_offset).collect();
                            assert_eq!(offs, truth, "{label}: placed at the true offsets");
                        }
                    } else {
                        t.wrong.push(label);
                    }
                }
                (Err(reason), "decoded") => {
                    t.expected_decoded += 1;
                    t.missed.push(format!("{label}: {reason}"));
                }
                (Err(_), _) => {
                    t.expected_rejected += 1;
                    t.rejected += 1;
                }
            }
        }
    }
    tallies
}

#[test]
fn demo_disc_decodes_exactly_as_the_truth_says() {
    let tallies = run(1);
    for (cat, t) in &tallies {
        eprintln!(
            "{cat:22} decoded exact {}/{} expected, rejected {}/{} expected, wrong {}",
            t.decoded_exact,
            t.expected_decoded,
            t.rejected,
            t.expected_rejected,
            t.wrong.len()
        );
        for m in t.missed.iter().take(5) {
            eprintln!("   missed: {m}");
        }
    }
    let wrong: Vec<&String> = tallies.values().flat_map(|t| &t.wrong).collect();
    assert!(
        wrong.is_empty(),
        "decoded resources that differ from the truth: {wrong:?}"
    );
    let missed: Vec<&String> = tallies.values().flat_map(|t| &t.missed).collect();
    assert!(
        missed.is_empty(),
        "expected-decoded resources that were rejected: {missed:?}"
    );
}
