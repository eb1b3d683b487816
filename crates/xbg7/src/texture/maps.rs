//! Material maps by name: a material is named after one of its TX2D names, whose
//! `_col` / `_spc` / `_gls` / `_lum` suffix says which map it is; the glTF writer and the
//! previews find a material's textures through these names.

use std::collections::BTreeMap;

/// TX2D resource name (lossy UTF-8) → image URI relative to the container's output
/// folder (`textures/<name>.png`), for decoded textures only.
pub type TextureLinks = BTreeMap<String, String>;

/// Suffix of a `_gls` texture's derived roughness map, in its link key
/// (`<name>~roughness`) and its file (`textures/<file>~roughness.png`; `~` never comes
/// out of the exporter's safe names, so it cannot collide with a texture's own file).
pub const ROUGHNESS_KEY: &str = "~roughness";

/// Suffix of the albedo (colour) map.
pub const ALBEDO_SUFFIX: &str = "_col";

/// Suffix of the gloss map.
pub const GLOSS_SUFFIX: &str = "_gls";

/// A material's (TX2D) name without its map suffix.
pub fn map_base(material: &str) -> &str {
    MAP_SUFFIXES
        .iter()
        .find_map(|s| material.strip_suffix(s))
        .unwrap_or(material)
}

/// The albedo of a material named after one of its TX2D names: `<base>_col` (the
/// texture the glTF writer makes its `baseColorTexture`, see [`material_maps`]).
pub fn albedo_for<'a, T>(material: &str, albedos: &'a BTreeMap<String, T>) -> Option<&'a T> {
    albedos.get(&albedo_name(material))
}

/// The TX2D name of a material's albedo: its name without a map suffix, plus `_col`.
pub fn albedo_name(material: &str) -> String {
    let base = MAP_SUFFIXES
        .iter()
        .find_map(|s| material.strip_suffix(s))
        .unwrap_or(material);
    format!("{base}{ALBEDO_SUFFIX}")
}

/// The map suffixes a material can use, with the `extras.maps` key each goes under.
pub const MAP_SUFFIXES: [&str; 4] = ["_col", "_spc", "_gls", "_lum"];

/// The texture set of a material named after one of its TX2D names: the name without
/// its `_col`/`_spc`/`_gls`/`_lum` suffix, then every linked `<base><suffix>`, keyed by
/// suffix without the underscore (`col`, `spc`, `gls`, `lum`).
pub fn material_maps<'a>(material: &str, links: &'a TextureLinks) -> BTreeMap<&'static str, &'a str> {
    let base = MAP_SUFFIXES
        .iter()
        .find_map(|s| material.strip_suffix(s))
        .unwrap_or(material);
    MAP_SUFFIXES
        .iter()
        .filter_map(|s| links.get(&format!("{base}{s}")).map(|u| (&s[1..], u.as_str())))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_group_by_base_name() {
        let links: TextureLinks = [
            ("a_col", "textures/a_col.png"),
            ("a_lum", "textures/a_lum.png"),
            ("a_gls", "textures/a_gls.png"),
            ("ab_col", "textures/ab_col.png"),
        ]
        .into_iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
        let m = material_maps("a_col", &links);
        assert_eq!(
            m.into_iter().collect::<Vec<_>>(),
            [
                ("col", "textures/a_col.png"),
                ("gls", "textures/a_gls.png"),
                ("lum", "textures/a_lum.png")
            ]
        );
        assert_eq!(material_maps("a_spc", &links).len(), 3);
        assert!(material_maps("zz_mat0", &links).is_empty());
    }
}
