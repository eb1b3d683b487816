//! The decoder's one orchestrator and its entry point, [`Xpr`]: a container parsed once,
//! then its XBG7 resources decoded ([`Xpr::meshes`]) and its TX2D resources
//! ([`Xpr::textures`]). The order of the rounds is here; every decision is in the
//! modules it calls: [`crate::described`] reads the descriptors, `layout::plan`
//! decides which decoder places which block, [`crate::layout::anchored`] places blocks
//! by content, `layout::assemble` makes resources of them. Pure over the bytes.

use crate::config::DecodeConfig;
use crate::container::{self, Container, TAG_TX2D, TAG_XBG7};
use crate::described::parse_resources;
use crate::layout::plan::{self, Plan, Planned};
use crate::layout::streams::{ContainerSearches, NormalRunCache};
use crate::layout::{anchored, assemble, tied, Decoded, Placement};
use crate::outcome::{ContainerDecode, ResourceOutcome};
use crate::reason::{Code, Reason};
use crate::texture::budget::TextureBudget;
use crate::texture::resource::{decode_within, TextureDecode};
use crate::vocab::Kind;
use std::collections::hash_map::{Entry, HashMap};
use std::rc::Rc;

/// One parsed XPR2 container: its directory and data section, ready to decode.
#[derive(Clone, Debug)]
pub struct Xpr<'a> {
    container: Container<'a>,
}

impl<'a> Xpr<'a> {
    /// Parse the XPR2 header and directory of `bytes` (a whole `.xpr` file). A directory
    /// entry with a bad range is kept and rejected when decoded; a header that does not
    /// parse is the container's [`Reason`].
    pub fn parse(bytes: &'a [u8]) -> Result<Xpr<'a>, Reason> {
        Ok(Xpr {
            container: container::parse(bytes)?,
        })
    }

    /// The parsed directory and data section.
    pub fn container(&self) -> &Container<'a> {
        &self.container
    }

    /// The parsed directory and data section, owned.
    pub fn into_container(self) -> Container<'a> {
        self.container
    }

    /// Every XBG7 resource's outcome, in directory order: a gated mesh or why not. `kind`
    /// says which layouts apply ([`Kind::from_file_name`]).
    pub fn meshes(&self, kind: Kind, cfg: &DecodeConfig) -> ContainerDecode {
        decode_parsed(&self.container, kind, cfg)
    }

    /// Every TX2D resource decoded to RGBA (the base level), or why not, in directory
    /// order; together within the container's [`TextureBudget`] (16× its bytes + 16 MiB:
    /// a texture past it is `output_budget`).
    pub fn textures(&self) -> Vec<TextureDecode> {
        let c = &self.container;
        let mut budget = TextureBudget::of(c);
        c.resources
            .iter()
            .filter(|r| r.is(TAG_TX2D))
            .map(|r| decode_within(r, c.data, &mut budget))
            .collect()
    }
}

/// Decode every XBG7 resource of a parsed container, in rounds: (1) the documented
/// layout, then one anchoring unit per other resource, placed together by the ownership
/// solver; (2) bodies whose one block was not found, one unit per record, off every claim
/// of round 1; (3) each resource assembled from its blocks (a multi-stream resource's
/// other buffers placed off every other claim), buffers two resources placed on the
/// same bytes rejected, materials named.
///
/// A descriptor the directory lists several times (the same tag, descriptor offset and
/// size) is decoded once, at its first listing: the later listings are the same resource
/// and get its outcome with [`ResourceOutcome::same_as`] set, so the cost is linear in
/// the listings (every round weighs each resource against the others).
fn decode_parsed(c: &Container<'_>, kind: Kind, cfg: &DecodeConfig) -> ContainerDecode {
    let firsts = first_listings(c);
    let mut decoded = if firsts.iter().any(Option::is_some) {
        let mut unique = c.clone();
        unique.resources = c
            .resources
            .iter()
            .zip(&firsts)
            .filter(|(_, f)| f.is_none())
            .map(|(r, _)| r.clone())
            .collect();
        let decoded = decode_unique(&unique, kind, cfg);
        expand_listings(c, &firsts, decoded)
    } else {
        decode_unique(c, kind, cfg)
    };
    same_results(c, &mut decoded);
    decoded
}

/// Later resources with an earlier one's descriptor bytes and decoded to its very result
/// (the same blocks, so the same mesh and facts): the same output, written once, so they
/// get [`ResourceOutcome::same_as`] like a later listing of one descriptor. Identical
/// descriptors may own different blocks (duplicates with their own copies): those keep
/// their own outcomes; only an equal result is shared. Linear: one lookup per resource,
/// one comparison with the first of its key.
fn same_results(c: &Container<'_>, d: &mut ContainerDecode) {
    let descriptors: HashMap<u32, &[u8]> = c.resources.iter().map(|r| (r.index, r.descriptor)).collect();
    let mut first: HashMap<(&[u8], Vec<Placement>), usize> = HashMap::new();
    for k in 0..d.resources.len() {
        let o = &d.resources[k];
        let (None, Ok(dr), Some(&desc)) = (o.same_as, &o.result, descriptors.get(&o.index)) else {
            continue;
        };
        let shared = match first.entry((desc, dr.placements.clone())) {
            Entry::Vacant(e) => {
                e.insert(k);
                None
            }
            Entry::Occupied(e) => {
                let f = &d.resources[*e.get()];
                (f.result == o.result).then_some(f.index)
            }
        };
        if shared.is_some() {
            d.resources[k].same_as = shared;
        }
    }
}

/// Per directory entry: the directory index of the first XBG7 entry listing the same
/// descriptor (tag, descriptor offset and size), or None for a first listing (and for
/// every other tag and every entry with a bad range).
pub fn first_listings(c: &Container<'_>) -> Vec<Option<u32>> {
    let mut first: HashMap<(usize, usize), u32> = HashMap::new();
    c.resources
        .iter()
        .map(|r| {
            if !r.is(TAG_XBG7) || r.problem.is_some() {
                return None;
            }
            match first.entry((r.descriptor_offset, r.descriptor.len())) {
                Entry::Occupied(e) => Some(*e.get()),
                Entry::Vacant(e) => {
                    e.insert(r.index);
                    None
                }
            }
        })
        .collect()
}

/// The outcomes of every XBG7 entry of `c` from those of its first listings: a later
/// listing gets its own index and name, its first listing's result, and `same_as`.
fn expand_listings(c: &Container<'_>, firsts: &[Option<u32>], decoded: ContainerDecode) -> ContainerDecode {
    let mut own: HashMap<u32, ResourceOutcome> = decoded.resources.into_iter().map(|o| (o.index, o)).collect();
    let mut at: HashMap<u32, usize> = HashMap::new();
    let mut resources: Vec<ResourceOutcome> = Vec::with_capacity(firsts.len());
    for (r, first) in c.resources.iter().zip(firsts) {
        match first {
            Some(f) => {
                let result = match at.get(f).and_then(|&k| resources.get(k)) {
                    Some(o) => o.result.clone(),
                    None => Err(Reason::new(Code::NoValidAnchor, "internal: first listing not decoded")),
                };
                resources.push(ResourceOutcome {
                    index: r.index,
                    name: r.name.to_vec(),
                    result,
                    same_as: Some(*f),
                });
            }
            None => {
                if let Some(o) = own.remove(&r.index) {
                    at.insert(r.index, resources.len());
                    resources.push(o);
                }
            }
        }
    }
    ContainerDecode { resources }
}

/// A multi-stream resource that may be searched again off other resources' buffers:
/// its position among the container's resources, its anchoring unit and that unit's
/// first-round result.
struct SearchAgain {
    at: usize,
    unit: usize,
    first: Option<Result<Rc<Decoded>, Reason>>,
}

fn decode_unique(c: &Container<'_>, kind: Kind, cfg: &DecodeConfig) -> ContainerDecode {
    let data = c.data;
    let parsed = parse_resources(c, kind);
    let mut scanner = anchored::Scanner::new(data);

    let Planned {
        plans,
        units,
        mut claimed,
    } = plan::plan(&mut scanner, data, &parsed, kind, cfg);
    let first = anchored::anchor(&mut scanner, &units, &claimed, &cfg.gates);
    let multi = parsed.iter().any(|p| matches!(&p.desc, Ok(r) if r.streams.is_some()));
    let searched = if multi {
        plan::searched_units(&parsed, &plans, units.len())
    } else {
        Vec::new()
    };
    // The multi-stream searches share one budget, in directory order, and the runs.
    let mut apart = ContainerSearches::new(data.len(), NormalRunCache::default());
    // A multi-stream resource tied with another's block is searched apart first; where
    // it has a reading there, the container is anchored again without its claims.
    let settled = if multi {
        tied::settle(
            &mut scanner,
            data,
            &parsed,
            &plans,
            &units,
            &searched,
            &claimed,
            first,
            cfg,
            &mut apart,
        )
    } else {
        tied::Settled::untied(first)
    };
    let apart_buffers = settled.buffers();
    let (first, mut placed_apart, closed) = (settled.anchored, settled.apart, settled.closed);
    let mut placed: Vec<Option<Result<Rc<Decoded>, Reason>>> = first.results.into_iter().map(Some).collect();
    // What a multi-stream resource's other buffers must keep off: every claimed block,
    // with the unit that claimed it (but the claims of multi-stream resources, decided
    // by their own searches: `plan::claims_by_unit`), and every block placed per record.
    // Only built where a resource has several streams: a stage holds many claims.
    let mut taken = if multi {
        plan::open_to_searches(&mut placed, &first.rivals, &searched);
        plan::claims_by_unit(&claimed, &first.claim_units, &first.claims, &searched)
    } else {
        Vec::new()
    };
    claimed.extend(first.claims);
    claimed.extend(apart_buffers);

    let mut per_record = plan::per_record_blocks(&mut scanner, &parsed, &plans, &placed, &claimed, cfg);
    if multi {
        plan::add_per_record_blocks(&mut taken, &per_record, &parsed);
    }
    // The scanner's cache holds every claimed block; without it the placed blocks are
    // the only holders and move into the resources uncopied. Its unit-normal bitmaps
    // and runs serve the multi-stream searches (kept only where there are some).
    let runs = scanner.into_normal_runs();
    if multi {
        apart.read = NormalRunCache::with_normal_runs(runs);
    }

    let mut resources = Vec::with_capacity(parsed.len());
    // A multi-stream resource of one unit can be searched again (below): its unit's
    // first-round result is kept for that.
    let mut again: Vec<SearchAgain> = Vec::new();
    for ((k, p), plan) in parsed.iter().enumerate().zip(plans) {
        let searched_unit = plan::searched_unit(p, &plan);
        if let (Some(unit), None) = (searched_unit.filter(|u| !closed.contains(u)), &per_record[k]) {
            again.push(SearchAgain {
                at: k,
                unit,
                first: placed[unit].clone(),
            });
        }
        let settled = searched_unit.and_then(|u| placed_apart.remove(&u));
        let result = match settled {
            Some(result) => result,
            None => assemble::resource(
                data,
                plan,
                &p.desc,
                per_record[k].take(),
                &mut placed,
                &taken,
                cfg,
                &mut apart,
            ),
        };
        resources.push(ResourceOutcome {
            index: p.index,
            name: p.name.to_vec(),
            result,
            same_as: None,
        });
    }
    // Each buffer has one owner: resources on shared bytes are rejected, and one that
    // found rivals or gave up is searched again off the buffers of those placed on their
    // sole readings (assemble::one_owner_per_buffer).
    let ks: Vec<usize> = again.iter().map(|a| a.at).collect();
    assemble::one_owner_per_buffer(&mut resources, &ks, |j, others| {
        let a = &again[j];
        let mut taken = taken.clone();
        taken.extend(others.iter().map(|r| (None, r.clone())));
        placed[a.unit] = a.first.clone();
        assemble::resource(
            data,
            Some(Plan::Whole { unit: a.unit }),
            &parsed[a.at].desc,
            None,
            &mut placed,
            &taken,
            cfg,
            &mut apart,
        )
    });
    assemble::name_all_materials(c, &mut resources, &parsed);
    ContainerDecode { resources }
}
