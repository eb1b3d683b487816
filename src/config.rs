//! TODO config
