//! TODO reason
