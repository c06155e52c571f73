//! Text that Mermaid renders as written, whatever it holds.
//!
//! Labels are always emitted inside double quotes, and every character outside a small safe set
//! becomes a Mermaid entity (`#34;` for `"`, `#35;` for `#`, `#60;` for `<`, ...), so quotes,
//! brackets, braces, pipes, `%%`, backslashes, semicolons and any unicode render literally and
//! can never close the label or start a comment. A newline becomes `<br>`.
//! Ids are never user text: agc generates `n<index>` / `r<index>`, so names such as `end`,
//! `graph` or `subgraph` cannot collide with Mermaid keywords.

/// Escapes `text` for use between double quotes in a Mermaid label.
pub fn label(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            'a'..='z'
            | 'A'..='Z'
            | '0'..='9'
            | ' '
            | '_'
            | '-'
            | '.'
            | ','
            | '/'
            | ':'
            | '('
            | ')'
            | '='
            | '+'
            | '*'
            | '?'
            | '!'
            | '\'' => out.push(c),
            '\n' => out.push_str("<br>"),
            '\r' => {}
            _ => out.push_str(&format!("#{};", c as u32)),
        }
    }
    out
}

/// The diagram title as a YAML double-quoted scalar for Mermaid's front matter, on one line:
/// line breaks become spaces, `"` and `\` are escaped, and `<` / `>` are written as `\u003c` /
/// `\u003e` (Mermaid rewrites `<tag a="b">` in the whole text before it reads the front
/// matter; escaped, there is nothing for it to rewrite). Mermaid draws the title as plain text.
pub fn yaml_title(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.split_whitespace().collect::<Vec<_>>().join(" ").chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specials_become_entities() {
        assert_eq!(label("a\"b"), "a#34;b");
        assert_eq!(label("%%x"), "#37;#37;x");
        assert_eq!(label("[x]|{y}"), "#91;x#93;#124;#123;y#125;");
        assert_eq!(label("a<b>&"), "a#60;b#62;#38;");
        assert_eq!(label("é"), "#233;");
        assert_eq!(label("l1\nl2"), "l1<br>l2");
        assert_eq!(label("a;b#c\\d"), "a#59;b#35;c#92;d");
    }

    #[test]
    fn titles_are_one_quoted_yaml_line() {
        assert_eq!(
            yaml_title("A \"b\" \\ <c>\n  d\t%% #e"),
            r#""A \"b\" \\ \u003cc\u003e d %% #e""#
        );
    }
}
