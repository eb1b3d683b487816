//! Layout decoders: where a resource's geometry block sits in the data section.
//! `sequential` = the documented model layout (first block at the data start);
//! `anchored` = content anchoring for everything without a stored offset.
pub mod anchored;
pub mod sequential;
