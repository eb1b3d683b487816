//! TODO descriptor
