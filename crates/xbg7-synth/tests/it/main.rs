//! Integration tests of the synthetic disc generator `xbg7-synth`: truth, sizes, pinned bytes.
//!
//! One test binary per crate (each module below was a binary of its own: linking one
//! instead of many is most of the test build's time).

mod math_bits;
mod synth_disc;
mod synth_perfect_bytes;
mod synth_sizes;
