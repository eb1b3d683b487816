//! Text shown to a reader (terminal, Markdown, HTML): disc text with control characters
//! made visible (shared by the `diff` renderings and the HTML `report`), and counted words
//! ("1 sub-mesh", "2 sub-meshes") for every message that counts.

/// Replace control characters (terminal escapes, NUL, newlines) with visible escapes
/// (shared by the diff renderings and the HTML report).
pub fn clean(s: &str) -> String {
    if !s.chars().any(char::is_control) {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// `n` and its noun, singular for exactly one ("1 container", "0 containers", "2
/// sub-meshes"): the one rule for every counted word the tool prints.
pub fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counted_words_are_singular_for_exactly_one() {
        assert_eq!(plural(0, "container", "containers"), "0 containers");
        assert_eq!(plural(1, "container", "containers"), "1 container");
        assert_eq!(plural(2, "sub-mesh", "sub-meshes"), "2 sub-meshes");
        assert_eq!(plural(1, "sub-mesh", "sub-meshes"), "1 sub-mesh");
        assert_eq!(plural(1, "vertex", "vertices"), "1 vertex");
    }
}
