//! Text that Mermaid renders as written, whatever it holds.
//!
//! Labels are always emitted inside double quotes, and every character outside a small safe set
//! becomes a Mermaid entity (`#34;` for `"`, `#35;` for `#`, `#60;` for `<`, ...), so quotes,
//! brackets, braces, pipes, `%%`, backslashes, semicolons and any unicode render literally and
//! can never close the label or start a comment. A newline becomes `<br>`; a backslash is
//! followed by a word joiner (Mermaid would read `\n` as a line break); control characters are
//! drawn as their Unicode pictures (`␀`, `␛`), which Mermaid would show as empty boxes.
//! Ids are never user text: agc generates `n<index>` / `r<index>`, so names such as `end`,
//! `graph` or `subgraph` cannot collide with Mermaid keywords.

/// Words that Mermaid acts on even inside a quoted label, each with its first letter written as
/// an entity so that they render as written: `direction TB` in a label makes Mermaid drop the
/// whole label, and a label holding `style …:…#…;` (or `classDef`) loses its last `;` to a
/// pre-pass meant for style statements, which breaks the entity it ended.
const DEFUSED: [(&str, &str); 3] = [
    ("direction", "#100;irection"),
    ("style", "#115;tyle"),
    ("classDef", "#99;lassDef"),
];

/// Escapes `text` for use between double quotes in a Mermaid label.
pub fn label(text: &str) -> String {
    let mut out = escape_chars(text);
    for (word, defused) in DEFUSED {
        if out.contains(word) {
            out = out.replace(word, defused);
        }
    }
    out
}

fn escape_chars(text: &str) -> String {
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
            // Mermaid reads `\n` in a label (however the backslash is written) as a line
            // break: a word joiner after each backslash keeps it two characters.
            '\\' => out.push_str("#92;#8288;"),
            c => out.push_str(&format!("#{};", visible(c) as u32)),
        }
    }
    out
}

/// A control character as its Unicode picture (`␀`, `␇`, `␛`, `␡`: Mermaid draws the
/// characters themselves as empty boxes, or not at all); tabs are spaces; others as they are.
pub fn visible(c: char) -> char {
    match c {
        '\t' => ' ',
        '\u{0}'..='\u{1f}' => char::from_u32(0x2400 + c as u32).unwrap_or('?'),
        '\u{7f}' => '\u{2421}',
        c => c,
    }
}

/// The diagram title as a YAML double-quoted scalar for Mermaid's front matter, on one line:
/// line breaks become spaces, `"` and `\` are escaped. Mermaid strips anything that looks like
/// an HTML tag from the title and shows entities as written, so `<` and `>` (however escaped)
/// cannot survive: they are drawn as `‹` and `›`.
pub fn yaml_title(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
    {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '<' => out.push('‹'),
            '>' => out.push('›'),
            c if c.is_control() => out.push(visible(c)),
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
        assert_eq!(label("a;b#c\\d"), "a#59;b#35;c#92;#8288;d");
        // A literal backslash-n stays two characters; control characters show as pictures.
        assert_eq!(label("a\\nb"), "a#92;#8288;nb");
        assert_eq!(
            label("\u{0}\u{7}\u{1b}\u{7f}\t"),
            "#9216;#9223;#9243;#9249;#32;"
        );
    }

    #[test]
    fn words_mermaid_acts_on_inside_labels_are_defused() {
        assert_eq!(label("direction LR"), "#100;irection LR");
        assert_eq!(
            label("end; style x fill:#f00;"),
            "end#59; #115;tyle x fill:#35;f00#59;"
        );
        assert_eq!(label("classDef x"), "#99;lassDef x");
        assert_eq!(label("lifestyle"), "life#115;tyle");
    }

    #[test]
    fn titles_are_one_quoted_yaml_line() {
        assert_eq!(
            yaml_title("A \"b\" \\ <c>\n  d\t%% #e"),
            r#""A \"b\" \\ ‹c› d %% #e""#
        );
    }
}
