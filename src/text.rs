//! Disc text shown to a reader (terminal, Markdown, HTML): control characters made
//! visible. Shared by the `diff` renderings and the HTML `report`.

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
