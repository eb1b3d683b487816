//! TODO manifest
