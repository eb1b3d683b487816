//! TODO walker
