//! TODO gates
