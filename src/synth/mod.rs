//! Synthetic disc generator (see module docs in the submodules).
