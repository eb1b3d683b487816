//! TODO pipeline
