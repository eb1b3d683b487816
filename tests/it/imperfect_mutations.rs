//! The mutation suite of issue #14: files of the perfect demo disc (seed 7), rewritten
//! byte-wise in ways FORMAT.md allows — an imperfect normal, a share of degenerate or
//! flipped triangles, a record-shaped tuple around the real records, another record
//! order, an undecodable owner next to a same-V sibling — with the expected truth mesh
//! recomputed for each change. Through `verify::check_container`: a decoder may lose a
//! mutated resource (a reject), but it must never decode one wrong; and the coverage
//! figures say how much it loses.
//!
//! Every mutated resource is tagged in the truth with its mutation's name (`family`), so
//! the report's family section is exactly the mutated resources.
//!
//! The assertions on 0 wrong and on coverage need the decoder of #14; until it is merged
//! they are `#[ignore]`d, and `mutation_table` prints what the current decoder gives.

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use half::f16;
use xbg7_export::config::Config;
use xbg7_export::verify::{check_container, Report};
use xbg7_synth::descriptor::{scan_markers, scan_records};
use xbg7_synth::hostile::{assemble, RawEntry};
use xbg7_synth::rng::Gen;
use xbg7_synth::vformat::{usage, EncType, VertexFormat};
use xbg7_synth::{FileSpec, SynthFile, SynthOptions, TruthContainer};

const SEED: u64 = 7;

fn disc() -> &'static Vec<(FileSpec, SynthFile)> {
    static D: OnceLock<Vec<(FileSpec, SynthFile)>> = OnceLock::new();
    D.get_or_init(|| xbg7_synth::build_disc(&SynthOptions::demo(SEED)))
}

fn u16be(b: &[u8], o: usize) -> u16 {
    u16::from_be_bytes([b[o], b[o + 1]])
}
fn u32be(b: &[u8], o: usize) -> u32 {
    u32::from_be_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]])
}
fn data_start(b: &[u8]) -> usize {
    12 + u32be(b, 4) as usize
}

/// (tag, descriptor range, name) of every directory entry.
fn entries(b: &[u8]) -> Vec<([u8; 4], usize, usize, Vec<u8>)> {
    let n = u32be(b, 0x0C) as usize;
    (0..n)
        .map(|k| {
            let e = 0x10 + 16 * k;
            let tag = [b[e], b[e + 1], b[e + 2], b[e + 3]];
            let off = 0x0C + u32be(b, e + 4) as usize;
            let size = u32be(b, e + 8) as usize;
            let name_at = 0x0C + u32be(b, e + 12) as usize;
            let end = name_at + b[name_at..].iter().position(|&c| c == 0).unwrap_or(0);
            (tag, off, size, b[name_at..end].to_vec())
        })
        .collect()
}

/// A mutated container: bytes and the truth a correct decoder must meet.
struct Mutated {
    bytes: Vec<u8>,
    truth: TruthContainer,
    count: usize,
}

impl Mutated {
    fn new(f: &SynthFile) -> Self {
        Mutated {
            bytes: f.bytes.clone(),
            truth: f.truth.clone(),
            count: 0,
        }
    }
    fn finish(mut self) -> Option<Mutated> {
        for r in self.truth.resources.iter_mut() {
            if r.digest.is_some() {
                r.digest = r.mesh.as_ref().map(|m| m.digest());
                if r.digest_unsplit.is_some() {
                    r.digest_unsplit = r.mesh.clone().map(|m| m.unsplit().digest());
                }
            }
        }
        self.truth.size = self.bytes.len() as u64;
        (self.count > 0).then_some(self)
    }
}

/// Plan format of truth resource `k` (names are unique within a container).
fn format_of<'a>(spec: &'a FileSpec, t: &TruthContainer, k: usize) -> &'a VertexFormat {
    let name = &t.resources[k].name;
    &spec
        .resources
        .iter()
        .find(|r| &r.name == name)
        .expect("plan resource")
        .format
}

/// Resources a mutation may touch: expected decoded, not part of a duplicate pair (a
/// shared block would change two resources at once).
fn candidates(t: &TruthContainer) -> Vec<usize> {
    let twins: HashSet<u32> = t
        .resources
        .iter()
        .filter_map(|r| r.duplicate_of.map(|o| [o, r.index]))
        .flatten()
        .collect();
    (0..t.resources.len())
        .filter(|&k| t.resources[k].expected == "decoded" && !twins.contains(&t.resources[k].index))
        .collect()
}

fn normal_elem(fmt: &VertexFormat) -> Option<(u16, EncType)> {
    fmt.find(usage::NORMAL, 0)
        .filter(|e| e.stream == 0 && matches!(e.ty, EncType::Float16_4 | EncType::Float3 | EncType::Dec3N))
        .map(|e| (e.offset, e.ty))
}

fn read_normal(b: &[u8], o: usize, ty: EncType) -> [f32; 3] {
    match ty {
        EncType::Float16_4 => std::array::from_fn(|k| f16::from_bits(u16be(b, o + 2 * k)).to_f32()),
        EncType::Float3 => std::array::from_fn(|k| f32::from_bits(u32be(b, o + 4 * k))),
        _ => {
            let w = u32be(b, o);
            std::array::from_fn(|k| {
                let q = ((w >> (10 * k)) & 0x3FF) as i32;
                let q = if q >= 512 { q - 1024 } else { q };
                (q as f32 / 511.0).max(-1.0)
            })
        }
    }
}

/// Write `n` as `ty` at `o` (unspecified components untouched); returns what decodes.
fn write_normal(b: &mut [u8], o: usize, ty: EncType, n: [f32; 3]) -> [f32; 3] {
    match ty {
        EncType::Float16_4 => {
            for (k, c) in n.iter().enumerate() {
                b[o + 2 * k..o + 2 * k + 2].copy_from_slice(&f16::from_f32(*c).to_bits().to_be_bytes());
            }
        }
        EncType::Float3 => {
            for (k, c) in n.iter().enumerate() {
                b[o + 4 * k..o + 4 * k + 4].copy_from_slice(&c.to_bits().to_be_bytes());
            }
        }
        _ => {
            let mut w = u32be(b, o) & 0xC000_0000;
            for (k, &c) in n.iter().enumerate() {
                let q = ((c.clamp(-1.0, 1.0) * 511.0).round() as i32).clamp(-511, 511);
                w |= ((q as u32) & 0x3FF) << (10 * k);
            }
            b[o..o + 4].copy_from_slice(&w.to_be_bytes());
        }
    }
    read_normal(b, o, ty)
}

/// Set the normal of `vertex` in block `blk` of resource `k` (bytes and truth).
fn set_normal(m: &mut Mutated, spec: &FileSpec, k: usize, blk: usize, vertex: u32, f: impl Fn([f32; 3]) -> [f32; 3]) {
    let fmt = format_of(spec, &m.truth, k).clone();
    let Some((eo, ty)) = normal_elem(&fmt) else { return };
    let r = &m.truth.resources[k];
    let b = &r.blocks[blk];
    let base: u32 = r.blocks[..blk].iter().map(|b| b.vertex_count).sum();
    let o = data_start(&m.bytes) + b.vertex_offset as usize + vertex as usize * r.stride as usize + eo as usize;
    let old = read_normal(&m.bytes, o, ty);
    let got = write_normal(&mut m.bytes, o, ty, f(old));
    let r = &mut m.truth.resources[k];
    if let Some(ns) = r.mesh.as_mut().and_then(|m| m.normals.as_mut()) {
        ns[(base + vertex) as usize] = got;
    }
}

/// Rewrite triangle `tri` of block `blk` of resource `k` (bytes and truth).
fn set_triangle(m: &mut Mutated, k: usize, blk: usize, tri: usize, f: impl Fn([u16; 3]) -> [u16; 3]) {
    let ds = data_start(&m.bytes);
    let r = &m.truth.resources[k];
    let b = &r.blocks[blk];
    let vbase: u32 = r.blocks[..blk].iter().map(|b| b.vertex_count).sum();
    let ibase: usize = r.blocks[..blk].iter().map(|b| b.index_count as usize).sum();
    let o = ds + b.index_offset as usize + 6 * tri;
    let old = [u16be(&m.bytes, o), u16be(&m.bytes, o + 2), u16be(&m.bytes, o + 4)];
    let new = f(old);
    for (j, v) in new.iter().enumerate() {
        m.bytes[o + 2 * j..o + 2 * j + 2].copy_from_slice(&v.to_be_bytes());
    }
    let r = &mut m.truth.resources[k];
    if let Some(mesh) = r.mesh.as_mut() {
        for (j, v) in new.iter().enumerate() {
            mesh.indices[ibase + 3 * tri + j] = *v as u32 + vbase;
        }
    }
}

fn tag(m: &mut Mutated, k: usize, name: &str) {
    m.truth.resources[k].family = Some(name.to_string());
    m.count += 1;
}

/// One zero normal per block: at vertex 0 (`at_zero`) or at a random vertex.
fn zero_normal(spec: &FileSpec, f: &SynthFile, gen: &mut Gen, at_zero: bool, name: &str) -> Option<Mutated> {
    let mut m = Mutated::new(f);
    for k in candidates(&f.truth) {
        if normal_elem(format_of(spec, &f.truth, k)).is_none() {
            continue;
        }
        for blk in 0..f.truth.resources[k].blocks.len() {
            let v = f.truth.resources[k].blocks[blk].vertex_count;
            let at = if at_zero { 0 } else { gen.range(0, v - 1) };
            set_normal(&mut m, spec, k, blk, at, |_| [0.0; 3]);
        }
        tag(&mut m, k, name);
    }
    m.finish()
}

/// One normal of length 0.97 per block, at a random vertex.
fn short_normal(spec: &FileSpec, f: &SynthFile, gen: &mut Gen) -> Option<Mutated> {
    let mut m = Mutated::new(f);
    for k in candidates(&f.truth) {
        if normal_elem(format_of(spec, &f.truth, k)).is_none() {
            continue;
        }
        for blk in 0..f.truth.resources[k].blocks.len() {
            let v = f.truth.resources[k].blocks[blk].vertex_count;
            let at = gen.range(0, v - 1);
            set_normal(&mut m, spec, k, blk, at, |n| n.map(|c| c * 0.97));
        }
        tag(&mut m, k, "normal_length_0.97");
    }
    m.finish()
}

/// `share` of the triangles of every block rewritten by `f` (blocks with too few
/// triangles for one are left alone); the first triangle included when `first`.
fn triangle_share(
    f: &SynthFile,
    gen: &mut Gen,
    share: f64,
    name: &str,
    op: fn([u16; 3]) -> [u16; 3],
) -> Option<Mutated> {
    let mut m = Mutated::new(f);
    for k in candidates(&f.truth) {
        let mut any = false;
        for blk in 0..f.truth.resources[k].blocks.len() {
            let t = f.truth.resources[k].blocks[blk].index_count as usize / 3;
            let n = (share * t as f64).floor() as usize;
            let mut order: Vec<usize> = (0..t).collect();
            gen.shuffle(&mut order);
            for &tri in &order[..n] {
                set_triangle(&mut m, k, blk, tri, op);
                any = true;
            }
        }
        if any {
            tag(&mut m, k, name);
        }
    }
    m.finish()
}

/// Re-assemble the container with every XBG7 descriptor edited by `edit` (data section
/// untouched: every data-relative offset stays valid).
fn rebuild(f: &SynthFile, name: &str, edit: impl Fn(&[u8]) -> Option<Vec<u8>>) -> Option<Mutated> {
    let mut m = Mutated::new(f);
    let b = &f.bytes;
    let ds = data_start(b);
    let mut raw = Vec::new();
    let mut edited: Vec<u32> = Vec::new();
    for (i, (tag, off, size, nm)) in entries(b).into_iter().enumerate() {
        let desc = &b[off..off + size];
        let desc = if &tag == b"XBG7" {
            match edit(desc) {
                Some(d) => {
                    edited.push(i as u32);
                    d
                }
                None => desc.to_vec(),
            }
        } else {
            desc.to_vec()
        };
        raw.push(RawEntry { tag, desc, name: nm });
    }
    m.bytes = assemble(&raw, &b[ds..]);
    for k in 0..m.truth.resources.len() {
        if edited.contains(&m.truth.resources[k].index) && m.truth.resources[k].expected != "rejected" {
            tag(&mut m, k, name);
        }
    }
    m.finish()
}

fn insert_tuple(desc: &[u8], at: usize) -> Vec<u8> {
    let mut out = desc[..at].to_vec();
    for w in [4u32, 0, 6, 1] {
        out.extend_from_slice(&w.to_be_bytes());
    }
    out.extend_from_slice(&desc[at..]);
    out
}

/// Records of every resource with ≥ 2 records sharing one block, written in reverse.
fn reverse_records(f: &SynthFile) -> Option<Mutated> {
    let mut m = Mutated::new(f);
    let ents = entries(&f.bytes);
    for k in candidates(&f.truth) {
        let r = &f.truth.resources[k];
        if r.blocks.len() != 1 {
            continue;
        }
        let (_, off, size, _) = &ents[r.index as usize];
        let desc = &f.bytes[*off..off + size];
        let recs = scan_records(desc, 4);
        if recs.len() < 2 {
            continue;
        }
        let vals: Vec<Vec<u8>> = recs.iter().map(|&o| desc[o..o + 16].to_vec()).collect();
        if vals.iter().rev().eq(vals.iter()) {
            continue;
        }
        for (o, v) in recs.iter().zip(vals.iter().rev()) {
            m.bytes[off + o..off + o + 16].copy_from_slice(v);
        }
        tag(&mut m, k, "record_order_reversed");
    }
    m.finish()
}

/// Same-V pairs (A with more indices, B) of one-block documented stride-20/24 resources of
/// equal stride in a stage, each resource in one pair at most.
fn same_v_pairs(spec: &FileSpec, t: &TruthContainer) -> Vec<(usize, usize)> {
    let doc = |k: usize| {
        let f = format_of(spec, t, k);
        f.find(usage::POSITION, 0)
            .is_some_and(|e| e.offset == 0 && e.ty == EncType::Float3 && e.stream == 0)
            && f.find(usage::NORMAL, 0)
                .is_some_and(|e| e.offset == 12 && e.ty == EncType::Float16_4)
            && f.streams() == [0]
    };
    let mut by_v: HashMap<(u32, u32), Vec<usize>> = HashMap::new();
    for k in candidates(t) {
        let r = &t.resources[k];
        if r.blocks.len() == 1 && doc(k) {
            by_v.entry((r.vertex_count, r.stride)).or_default().push(k);
        }
    }
    let mut keys: Vec<_> = by_v.keys().copied().collect();
    keys.sort_unstable();
    let mut out = Vec::new();
    for key in keys {
        let mut v = by_v[&key].clone();
        v.sort_by_key(|&k| std::cmp::Reverse(t.resources[k].index_count));
        for p in v.chunks_exact(2) {
            if t.resources[p[0]].index_count > t.resources[p[1]].index_count {
                out.push((p[0], p[1]));
            }
        }
    }
    out
}

/// Declaration of resource `k`: (descriptor offset in the file, element offsets).
fn decl_elements(b: &[u8], t: &TruthContainer, k: usize) -> Vec<usize> {
    let ents = entries(b);
    let (_, off, size, _) = &ents[t.resources[k].index as usize];
    let desc = &b[*off..off + size];
    let m = scan_markers(desc, 4)[0];
    let mut out = Vec::new();
    let mut e = m + 8;
    while u32be(desc, e) != 0x00FF_0000 {
        out.push(off + e);
        e += 12;
    }
    out
}

enum OwnerBreak {
    /// POSITION becomes SHORT4N (quantized), or a non-position element moves to stream 1.
    Declaration,
    /// A's block gets 25 % degenerate triangles (a hard gate fails).
    Gate,
}

/// An undecodable owner A next to its same-V sibling B; B's own block damaged (indices
/// ≥ V: it cannot be anchored) or given one zero normal (intact: a correct decoder
/// anchors it, a decoder that needs every normal unit does not — and must not take A's
/// bytes instead).
fn owner_trap(
    spec: &FileSpec,
    f: &SynthFile,
    gen: &mut Gen,
    how: OwnerBreak,
    damage_b: bool,
    name: &str,
) -> Option<Mutated> {
    if spec.kind.as_str() != "stage" {
        return None;
    }
    let mut m = Mutated::new(f);
    let ds = data_start(&f.bytes);
    for (n, (a, b)) in same_v_pairs(spec, &f.truth).into_iter().enumerate() {
        match how {
            OwnerBreak::Declaration => {
                let els = decl_elements(&m.bytes, &m.truth, a);
                let quantize = n % 2 == 0;
                for &e in &els {
                    let usage_byte = m.bytes[e + 9];
                    if quantize && usage_byte == usage::POSITION {
                        m.bytes[e + 4..e + 8].copy_from_slice(&0x001A_215Au32.to_be_bytes());
                    }
                }
                if !quantize {
                    // TEXCOORD (stream 0 stays exactly POSITION+NORMAL) or else NORMAL.
                    let pick = els
                        .iter()
                        .find(|&&e| m.bytes[e + 9] == usage::TEXCOORD)
                        .or_else(|| els.iter().find(|&&e| m.bytes[e + 9] == usage::NORMAL))
                        .copied();
                    if let Some(e) = pick {
                        m.bytes[e..e + 2].copy_from_slice(&1u16.to_be_bytes());
                    }
                }
            }
            OwnerBreak::Gate => {
                let t = m.truth.resources[a].index_count as usize / 3;
                let mut order: Vec<usize> = (1..t).collect();
                gen.shuffle(&mut order);
                for &tri in &order[..t / 4] {
                    set_triangle(&mut m, a, 0, tri, |x| [x[0], x[0], x[1]]);
                }
            }
        }
        m.truth.resources[a].expected = "rejected".into();
        m.truth.resources[a].digest = None;
        tag(&mut m, a, &format!("{name}:owner"));
        if damage_b {
            let r = &m.truth.resources[b];
            let (io, ic, v) = (
                r.blocks[0].index_offset as usize,
                r.index_count as usize,
                r.vertex_count,
            );
            for j in 0..ic {
                let x = gen.range(v, 65535) as u16;
                m.bytes[ds + io + 2 * j..ds + io + 2 * j + 2].copy_from_slice(&x.to_be_bytes());
            }
            m.truth.resources[b].expected = "rejected".into();
            m.truth.resources[b].digest = None;
            tag(&mut m, b, &format!("{name}:sibling_damaged"));
        } else {
            let v = m.truth.resources[b].vertex_count;
            let at = gen.range(0, v - 1);
            set_normal(&mut m, spec, b, 0, at, |_| [0.0; 3]);
            tag(&mut m, b, &format!("{name}:sibling_zero_normal"));
        }
    }
    m.finish()
}

const MUTATIONS: [&str; 12] = [
    "zero_normal_vertex_0",
    "zero_normal_random_vertex",
    "normal_length_0.97",
    "degenerate_3pct",
    "flipped_5pct",
    "tuple_after_records",
    "tuple_before_records",
    "record_order_reversed",
    "owner_decl",
    "owner_decl_damaged",
    "owner_gate",
    "owner_gate_damaged",
];

fn mutate(which: &str, spec: &FileSpec, f: &SynthFile, gen: &mut Gen) -> Option<Mutated> {
    match which {
        "zero_normal_vertex_0" => zero_normal(spec, f, gen, true, which),
        "zero_normal_random_vertex" => zero_normal(spec, f, gen, false, which),
        "normal_length_0.97" => short_normal(spec, f, gen),
        "degenerate_3pct" => triangle_share(f, gen, 0.03, which, |t| [t[0], t[0], t[1]]),
        "flipped_5pct" => triangle_share(f, gen, 0.05, which, |t| [t[0], t[2], t[1]]),
        "tuple_after_records" => rebuild(f, which, |d| {
            let r = scan_records(d, 4);
            r.last().map(|&o| insert_tuple(d, o + 16))
        }),
        "tuple_before_records" => rebuild(f, which, |d| {
            let r = scan_records(d, 4);
            r.first().map(|&o| insert_tuple(d, o))
        }),
        "record_order_reversed" => reverse_records(f),
        "owner_decl" => owner_trap(spec, f, gen, OwnerBreak::Declaration, false, which),
        "owner_decl_damaged" => owner_trap(spec, f, gen, OwnerBreak::Declaration, true, which),
        "owner_gate" => owner_trap(spec, f, gen, OwnerBreak::Gate, false, which),
        "owner_gate_damaged" => owner_trap(spec, f, gen, OwnerBreak::Gate, true, which),
        _ => None,
    }
}

/// Per mutation: the report over the mutated containers and how many resources it touched.
fn results() -> &'static Vec<(&'static str, Report, usize)> {
    static R: OnceLock<Vec<(&'static str, Report, usize)>> = OnceLock::new();
    R.get_or_init(|| {
        let cfg = Config::default();
        MUTATIONS
            .iter()
            .enumerate()
            .map(|(i, &which)| {
                let mut gen = Gen::new(0x0014_0000 + i as u64);
                let mut report = Report::default();
                let mut touched = 0;
                for (spec, f) in disc() {
                    if let Some(m) = mutate(which, spec, f, &mut gen) {
                        touched += m.count;
                        report = report.merge(check_container(&m.bytes, &m.truth, &cfg));
                    }
                }
                (which, report, touched)
            })
            .collect()
    })
}

fn family(r: &Report, name: &str) -> xbg7_export::verify::Tally {
    r.families.get(name).cloned().unwrap_or_default()
}

#[test]
fn mutation_table() {
    for (which, r, touched) in results() {
        eprintln!("=== {which}: {touched} resources mutated\n{}", r.table());
        for line in r.categories.values().flat_map(|t| &t.wrong).take(5) {
            eprintln!("  wrong: {line}");
        }
        assert!(*touched > 0, "{which}: nothing mutated");
        assert!(r.container_errors.is_empty(), "{which}: {:?}", r.container_errors);
    }
}

#[test]
fn mutations_never_decode_wrong() {
    for (which, r, _) in results() {
        let wrong: Vec<&String> = r.categories.values().flat_map(|t| &t.wrong).collect();
        assert!(wrong.is_empty(), "{which}: {} wrong: {wrong:?}", wrong.len());
    }
}

#[test]
fn mutation_coverage() {
    // Splits that several orders of the records fit are undecidable whatever the mutation
    // (FORMAT.md does not document the records' order): one primitive, counted exact by
    // the truth's unsplit digest.
    for (which, r, _) in results() {
        match *which {
            "zero_normal_vertex_0"
            | "zero_normal_random_vertex"
            | "normal_length_0.97"
            | "degenerate_3pct"
            | "flipped_5pct" => {
                let t = family(r, which);
                assert!(
                    t.decoded_exact as f64 >= 0.98 * t.expected_decoded as f64,
                    "{which}: {}/{} exact: {:?}",
                    t.decoded_exact,
                    t.expected_decoded,
                    t.missed
                );
            }
            "tuple_after_records" | "tuple_before_records" | "record_order_reversed" => {
                // The same resources decode as without the change: all of them.
                let t = family(r, which);
                assert!(t.missed.is_empty(), "{which}: {:?}", t.missed);
                for cat in ["documented", "multi_submesh"] {
                    if let Some(c) = r.categories.get(cat) {
                        assert_eq!(c.decoded_exact, c.expected_decoded, "{which}: {cat} {:?}", c.missed);
                    }
                }
            }
            _ => {
                // Every sibling whose own block is intact decodes; damaged ones and the
                // owners are rejected (0 wrong is checked above).
                let t = family(r, &format!("{which}:sibling_zero_normal"));
                assert_eq!(t.decoded_exact, t.expected_decoded, "{which}: {:?}", t.missed);
            }
        }
    }
    let doc = results()
        .iter()
        .find(|(w, _, _)| *w == "tuple_after_records")
        .and_then(|(_, r, _)| r.categories.get("documented").cloned())
        .unwrap_or_default();
    assert_eq!((doc.decoded_exact, doc.expected_decoded), (36, 36));
}
