//! The decoder's one orchestrator and its entry point, [`Xpr`]: a container parsed once,
//! then its XBG7 resources decoded ([`Xpr::meshes`]) and its TX2D resources
//! ([`Xpr::textures`]). The order of the rounds is here; every decision is in the
//! modules it calls: [`crate::described`] reads the descriptors, `layout::plan`
//! decides which decoder places which block, [`crate::layout::anchored`] places blocks
//! by content, `layout::assemble` makes resources of them. Pure over the bytes.

use crate::config::DecodeConfig;
use crate::container::{self, Container, TAG_TX2D};
use crate::described::parse_resources;
use crate::layout::plan::{self, Planned};
use crate::layout::{anchored, assemble, Decoded};
use crate::outcome::{ContainerDecode, ResourceOutcome};
use crate::reason::Reason;
use crate::texture::resource::{decode_resource, TextureDecode};
use crate::vocab::Kind;
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

    /// Every TX2D resource decoded to RGBA (the base level), or why not, in directory order.
    pub fn textures(&self) -> Vec<TextureDecode> {
        let c = &self.container;
        c.resources
            .iter()
            .filter(|r| r.is(TAG_TX2D))
            .map(|r| decode_resource(r, c.data))
            .collect()
    }
}

/// Decode every XBG7 resource of a parsed container, in rounds: (1) the documented
/// layout, then one anchoring unit per other resource, placed together by the ownership
/// solver; (2) bodies whose one block was not found, one unit per record, off every claim
/// of round 1; (3) each resource assembled from its blocks (a multi-stream resource's
/// other buffers placed off every other claim), buffers two resources placed on the
/// same bytes rejected, materials named.
fn decode_parsed(c: &Container<'_>, kind: Kind, cfg: &DecodeConfig) -> ContainerDecode {
    let data = c.data;
    let parsed = parse_resources(c, kind);
    let mut scanner = anchored::Scanner::new(data);

    let Planned {
        plans,
        units,
        mut claimed,
    } = plan::plan(&mut scanner, data, &parsed, kind, cfg);
    let first = anchored::anchor(&mut scanner, &units, &claimed, &cfg.gates);
    let mut placed: Vec<Option<Result<Rc<Decoded>, Reason>>> = first.results.into_iter().map(Some).collect();
    // What a multi-stream resource's other buffers must keep off: every claimed block,
    // with the unit that claimed it, and every block placed per record. Only built where
    // a resource has several streams: a stage holds many claims.
    let multi = parsed.iter().any(|p| matches!(&p.desc, Ok(r) if r.streams.is_some()));
    let mut taken = if multi {
        plan::claims_by_unit(&claimed, &first.claim_units, &first.claims)
    } else {
        Vec::new()
    };
    claimed.extend(first.claims);

    let mut per_record = plan::per_record_blocks(&mut scanner, &parsed, &plans, &placed, &claimed, cfg);
    if multi {
        plan::add_per_record_blocks(&mut taken, &per_record, &parsed);
    }
    // The scanner's cache holds every claimed block; without it the placed blocks are
    // the only holders and move into the resources uncopied.
    drop(scanner);

    let mut resources = Vec::with_capacity(parsed.len());
    for ((k, p), plan) in parsed.iter().enumerate().zip(plans) {
        let result = assemble::resource(data, plan, &p.desc, per_record[k].take(), &mut placed, &taken, cfg);
        resources.push(ResourceOutcome {
            index: p.index,
            name: p.name.to_vec(),
            result,
        });
    }
    assemble::reject_shared_streams(&mut resources);
    assemble::name_all_materials(c, &mut resources, &parsed);
    ContainerDecode { resources }
}
