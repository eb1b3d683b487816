//! The bound on a container's decoded texture bytes ([`TextureBudget`]): what its TX2D
//! descriptors may make the decoder (and the exporter) allocate and write, however many
//! of them there are.
//!
//! *Argument.* A base level decodes to `width × height × 4` bytes of RGBA, at most 8× the
//! bytes of its visible blocks (4 bits per texel: DXT1, DXT5A, CTX1), and those blocks
//! are inside the container (the decoder checks that before it allocates, see
//! [`super::base::decoded_bytes`]). Textures whose base levels read disjoint bytes
//! therefore decode to at most 8× the container's bytes together, and to 16× with a
//! derived map of the same size for each (the exporter's roughness maps). Past that, the
//! descriptors re-read the same bytes: 1 000 descriptors that differ (a format, a size,
//! an offset) over one 512 KiB block decode to 1 000 images of up to 4 MiB each, from a
//! file of 0.6 MB. So each texture is charged its decoded bytes, in directory order,
//! before it is decoded, and one that would take the container past
//! [`BUDGET_FACTOR`] × its bytes + [`BUDGET_FLOOR`] is not decoded
//! ([`TextureCode::OutputBudget`], the detail stating the bound). The floor leaves a
//! small container room for a few descriptors that share their bytes.

use super::reject::{Reject, TextureCode};
use crate::container::Container;

/// A container's decoded textures may take this many times its bytes (header and data
/// section) …
pub const BUDGET_FACTOR: u64 = 16;
/// … plus this many bytes (16 MiB).
pub const BUDGET_FLOOR: u64 = 16 << 20;

/// What is left of a container's texture budget.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextureBudget {
    /// The container's bytes the bound is stated on.
    container: u64,
    /// The bound, in bytes.
    limit: u64,
    /// Charged so far.
    spent: u64,
}

impl TextureBudget {
    /// The budget of a container of `bytes` bytes: [`BUDGET_FACTOR`] × `bytes` +
    /// [`BUDGET_FLOOR`].
    pub fn for_bytes(bytes: u64) -> TextureBudget {
        TextureBudget {
            container: bytes,
            limit: bytes.saturating_mul(BUDGET_FACTOR).saturating_add(BUDGET_FLOOR),
            spent: 0,
        }
    }

    /// The budget of `c`, on its header and data section.
    pub fn of(c: &Container<'_>) -> TextureBudget {
        TextureBudget::for_bytes((c.data_start + c.data.len()) as u64)
    }

    /// The bound, in bytes.
    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// Bytes charged so far.
    pub fn spent(&self) -> u64 {
        self.spent
    }

    /// Charge `bytes` (one texture's decoded output); past the bound nothing is charged
    /// and the reject says so, with the bound.
    pub fn charge(&mut self, bytes: u64) -> Result<(), Reject> {
        match self.spent.checked_add(bytes).filter(|&t| t <= self.limit) {
            Some(total) => {
                self.spent = total;
                Ok(())
            }
            None => Err(Reject::new(
                TextureCode::OutputBudget,
                format!(
                    "{bytes} decoded bytes past the container's texture bound: {BUDGET_FACTOR} × \
                     its {} bytes + {} MiB = {} bytes, {} taken",
                    self.container,
                    BUDGET_FLOOR >> 20,
                    self.limit,
                    self.spent
                ),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn charges_up_to_the_bound_and_refuses_past_it_naming_it() {
        let mut b = TextureBudget::for_bytes(1000);
        assert_eq!(b.limit(), 16_000 + (16 << 20));
        b.charge(b.limit() - 10).unwrap();
        let r = b.charge(11).unwrap_err();
        assert_eq!(r.code, TextureCode::OutputBudget);
        assert!(
            r.detail.contains("16 × its 1000 bytes + 16 MiB = 16793216 bytes"),
            "{}",
            r.detail
        );
        // A refused charge takes nothing: a smaller texture still fits.
        b.charge(10).unwrap();
        assert_eq!(b.spent(), b.limit());
        assert!(b.charge(1).is_err());
        assert!(b.charge(0).is_ok());
        // No overflow on absurd sizes.
        assert!(TextureBudget::for_bytes(u64::MAX).charge(u64::MAX).is_ok());
        assert!(b.charge(u64::MAX).is_err());
    }
}
