//! Resource names → safe, unique file names. Names are data, not paths.

/// Sanitize one name: `[A-Za-z0-9._-]` kept, everything else `_`; empty, `.`/`..`-only,
/// Windows device names and over-long names handled; `res_<index>` when nothing is left.
pub fn sanitize(name: &[u8], index: u32) -> String {
    let _ = (name, index);
    todo!("gltf helper")
}

/// Sanitize a container's names (given as (directory index, raw name)); duplicates after
/// sanitizing (case-insensitively) get `~<index>` appended. Output order = input order.
pub fn unique_names(names: &[(u32, &[u8])]) -> Vec<String> {
    let _ = names;
    todo!("gltf helper")
}
