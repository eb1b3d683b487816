//! The units to place and their claims: a [`Unit`] (one resource's or sub-mesh record's
//! block to place), a [`Claim`] (a place its block can be, by structure) with its block
//! read and gated on first use ([`Block`]), and what the pinning of one unit located
//! ([`Located`]), and why nothing was placed ([`no_candidate`]). Shared by the search
//! (which makes claims) and the resolution (which decides between them).

use super::super::{gate_block, read_block, Decoded, Placement};
use crate::decl::Declaration;
use crate::gates::GateConfig;
use crate::reason::{Code, Reason};
use crate::vertex::AttributeMap;
use std::collections::BTreeSet;
use std::ops::Range;
use std::rc::Rc;

/// Most candidate blocks one unit may keep for global resolution; more is
/// `ambiguous_anchor` (a real disc has a handful; a hostile file could otherwise make
/// every one of thousands of resources hold thousands of candidates).
pub const MAX_CANDIDATES: usize = 512;

/// One thing to place: a resource's block, or one sub-mesh record's block.
#[derive(Clone, Copy, Debug)]
pub struct Unit<'a> {
    pub decl: &'a Declaration,
    pub map: &'a AttributeMap,
    pub vertex_count: u32,
    pub index_count: u32,
    /// Whether the resource can be decoded at all (an undecodable one still claims its
    /// block; whether its reading passes the gates is no evidence either way).
    pub decodable: bool,
}

/// A claim: a place where the unit's block can be, by structure (an index window of
/// `I` values `< V` that references at least the gates' `min_referenced_fraction` of the `V`
/// vertices, before a vertex run), whether or not the block there passes the gates.
/// A claim that fails the gates still owns its bytes: a block belongs to its owner
/// whether or not the owner decodes (FORMAT.md §6).
#[derive(Clone, Debug)]
pub(super) struct Claim {
    pub(super) range: Range<usize>,
    /// The gated block, or why the block here fails the gates, gated on first use (most
    /// claims lose to another before anyone asks). Shared: the same block is a claim of
    /// every unit with the same counts.
    pub(super) block: Rc<Block>,
    /// How much the window looks like the start of a real index buffer:
    /// 2 × (cannot be extended backwards by a real triangle) + (starts with a real
    /// triangle). A preference, not a proof (FORMAT.md §6).
    pub(super) strength: u8,
    /// Triangles at the window's edge that do not belong where a list starts: real
    /// triangles before it that read as the same list (`edges::preceding_triangles`) and
    /// degenerate ones opening it (`edges::leading_degenerate`); 0 at the start of a buffer.
    pub(super) preceding: u32,
    /// Vertex slots before the first referenced vertex or after the last whose normal is
    /// unlike the block's (`search::stray_slots`).
    pub(super) stray: u32,
    /// Vertices whose declared normal decodes to a unit vector (0 without a NORMAL),
    /// counted by the resolution for the claims that take part (`resolve::assign_owners`'s firmest of
    /// their unit) only: 0 until then.
    pub(super) unit_normals: u32,
}

impl Claim {
    /// The block gated (read from `data`, the section it was claimed in, on first use).
    pub(super) fn result(&self, data: &[u8]) -> &Result<Rc<Decoded>, Reason> {
        self.block.result(data)
    }

    pub(super) fn ok(&self, data: &[u8]) -> Option<&Decoded> {
        self.result(data).as_ref().ok().map(|d| d.as_ref())
    }

    /// Whether the block passed the gates, if it has been gated.
    pub(super) fn passes(&self) -> Option<bool> {
        self.block.result.get().map(|r| r.is_ok())
    }
}

/// How one search's claimed blocks are read and gated: the declaration, its attribute
/// map and the gates (one per search, shared by its claims).
#[derive(Debug)]
pub(super) struct Reading {
    pub(super) decl: Declaration,
    pub(super) map: AttributeMap,
    pub(super) cfg: GateConfig,
}

/// What a claimed block needs to be read and gated: its place and how.
#[derive(Debug)]
struct Pending {
    pl: Placement,
    how: Rc<Reading>,
}

/// A block at a claim's place, read and gated when its result is first asked for.
#[derive(Debug)]
pub(super) struct Block {
    pending: std::cell::RefCell<Option<Pending>>,
    result: std::cell::OnceCell<Result<Rc<Decoded>, Reason>>,
}

impl Block {
    pub(super) fn gated(d: Decoded) -> Rc<Block> {
        Rc::new(Block {
            pending: std::cell::RefCell::new(None),
            result: Ok(Rc::new(d)).into(),
        })
    }

    pub(super) fn read(pl: Placement, how: &Rc<Reading>) -> Rc<Block> {
        Rc::new(Block {
            pending: std::cell::RefCell::new(Some(Pending { pl, how: how.clone() })),
            result: std::cell::OnceCell::new(),
        })
    }

    fn result(&self, data: &[u8]) -> &Result<Rc<Decoded>, Reason> {
        self.result.get_or_init(|| match self.pending.borrow_mut().take() {
            Some(Pending { pl, how }) => read_block(data, pl, &how.decl, &how.map)
                .and_then(|mesh| gate_block(pl, mesh, &how.cfg))
                .map(Rc::new),
            // Unreachable: a block is built either gated or pending, and gated once.
            None => Err(Reason::new(Code::NoValidAnchor, "internal: block gated twice")),
        })
    }
}

/// Whether two byte ranges share a byte.
pub(crate) fn overlaps(a: &Range<usize>, b: &Range<usize>) -> bool {
    a.start < b.end && b.start < a.end
}

/// What the pinning of one unit located: its claims, and the windows that are none.
#[derive(Default)]
pub(super) struct Located {
    pub(super) claims: Vec<Claim>,
    /// Windows with plausible indices whose block failed a gate.
    pub(super) failures: Vec<(usize, Reason)>,
}

/// Why nothing was placed. When every window with plausible indices failed the same
/// gate, that gate's code is the reason (e.g. `position_out_of_bounds`); otherwise
/// `no_valid_anchor` with a summary.
pub(super) fn no_candidate(unit: &Unit<'_>, after: Option<usize>, failures: &[(usize, Reason)]) -> Reason {
    let place = after.map(|a| format!(" after {a:#x}")).unwrap_or_default();
    let what = format!(
        "{} vertices (stride {}) preceded by {} valid indices{place}",
        unit.vertex_count, unit.decl.stride, unit.index_count
    );
    match failures {
        [] if unit.map.normal.is_none() => Reason::new(
            Code::NoAnchorElement,
            format!("no NORMAL element, and no index window fits a block of {what}"),
        ),
        [] => Reason::new(Code::NoValidAnchor, format!("no vertex run of {what}")),
        [(at, first), rest @ ..] if rest.iter().all(|(_, r)| r.code == first.code) => Reason::new(
            first.code,
            format!(
                "{} block(s) of {what} fail this gate; at {at:#x}: {}",
                failures.len(),
                first.detail
            ),
        ),
        _ => {
            let codes: BTreeSet<&str> = failures.iter().map(|(_, r)| r.code.as_str()).collect();
            let codes: Vec<&str> = codes.into_iter().collect();
            Reason::new(
                Code::NoValidAnchor,
                format!(
                    "{} block(s) of {what} fail the gates ({})",
                    failures.len(),
                    codes.join(", ")
                ),
            )
        }
    }
}
