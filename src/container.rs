//! TODO container
