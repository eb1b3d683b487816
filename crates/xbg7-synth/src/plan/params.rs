//! The plan's per-scale knobs (vertex ranges, texture sizes, stage counts) and the
//! purposes its random streams are derived with.

use crate::spec::Scale;

/// Per-scale knobs.
pub(super) struct Params {
    pub(super) doc_v: (u32, u32),
    pub(super) multi_v: (u32, u32),
    pub(super) body_v: (u32, u32),
    pub(super) variant_v: (u32, u32),
    pub(super) opaque_v: (u32, u32),
    pub(super) stage_v: (u32, u32),
    pub(super) model_tex: (u32, u32),
    pub(super) body_tex: (u32, u32),
    pub(super) stage_tex: (u32, u32),
    pub(super) s07: u32,
    pub(super) stage_count: (u32, u32),
    pub(super) stage_total: (u32, u32),
}

const FULL: Params = Params {
    doc_v: (150, 3000),
    multi_v: (100, 2500),
    body_v: (3000, 12000),
    variant_v: (800, 6000),
    opaque_v: (400, 6000),
    stage_v: (90, 12000),
    model_tex: (8, 10),
    body_tex: (8, 10),
    stage_tex: (6, 10),
    s07: 378,
    stage_count: (100, 450),
    stage_total: (5000, 5700),
};

const DEMO: Params = Params {
    doc_v: (40, 400),
    multi_v: (30, 300),
    body_v: (300, 1500),
    variant_v: (100, 800),
    opaque_v: (60, 600),
    stage_v: (20, 1500),
    model_tex: (6, 6),
    body_tex: (6, 7),
    stage_tex: (6, 7),
    s07: 40,
    stage_count: (5, 40),
    stage_total: (0, u32::MAX),
};

pub(super) fn params(scale: Scale) -> &'static Params {
    match scale {
        Scale::Demo => &DEMO,
        Scale::Full => &FULL,
    }
}

pub(super) const PURPOSE_PLAN: u64 = 1;
pub(super) const PURPOSE_BUILD: u64 = 2;
pub(super) const PURPOSE_DISC: u64 = 3;
