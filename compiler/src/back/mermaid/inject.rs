//! Keeping diagrams in Markdown current: blocks marked
//! `<!-- agc:graph path/to/doc.yaml [--direction LR] [--collapse] -->` … `<!-- /agc:graph -->`
//! are refilled with a fresh ```` ```mermaid ```` block. Paths are relative to the Markdown file.
//! A marker counts only at the start of a line and outside fenced code blocks (```` ``` ```` or
//! `~~~`), so prose and examples that show the syntax are left alone.

/// One marked block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// The document path as written in the marker.
    pub path: String,
    /// Options after the path (`--direction LR`, `--collapse`).
    pub options: Vec<String>,
    /// Byte range of the content between the markers.
    pub content: std::ops::Range<usize>,
    /// 1-based line of the opening marker.
    pub line: usize,
}

const OPEN: &str = "<!-- agc:graph ";
const CLOSE: &str = "<!-- /agc:graph -->";

/// Finds every block; an opening marker without its closing one is an error (its line).
pub fn blocks(md: &str) -> Result<Vec<Block>, (usize, String)> {
    let mut out = Vec::new();
    let mut at = 0;
    let mut fence: Option<(char, usize)> = None;
    let mut scanned = 0;
    while let Some(i) = md[at..].find(OPEN) {
        let start = at + i;
        if start > 0 && !md[..start].ends_with('\n') {
            at = start + OPEN.len();
            continue;
        }
        track_fences(&md[scanned..start], &mut fence);
        scanned = start;
        if fence.is_some() {
            at = start + OPEN.len();
            continue;
        }
        let line = md[..start].matches('\n').count() + 1;
        let Some(end_rel) = md[start..].find("-->") else {
            return Err((
                line,
                "the `agc:graph` marker is not closed with `-->`".into(),
            ));
        };
        let marker = &md[start + OPEN.len()..start + end_rel];
        let mut words = marker.split_whitespace().map(str::to_string);
        let Some(path) = words.next() else {
            return Err((line, "the `agc:graph` marker names no document".into()));
        };
        let content_start = start + end_rel + 3;
        let Some(close_rel) = md[content_start..].find(CLOSE) else {
            return Err((line, format!("no `{CLOSE}` after this marker")));
        };
        if let Some(nested) = md[content_start..content_start + close_rel].find(OPEN) {
            let nl = md[..content_start + nested].matches('\n').count() + 1;
            return Err((nl, "an `agc:graph` block opens inside another".into()));
        }
        out.push(Block {
            path,
            options: words.collect(),
            content: content_start..content_start + close_rel,
            line,
        });
        at = content_start + close_rel + CLOSE.len();
        scanned = at;
    }
    Ok(out)
}

/// Follows fenced code blocks line by line: a line starting (after at most three spaces) with
/// three or more backticks or tildes opens a fence, closed by a run of the same character at
/// least as long (CommonMark).
fn track_fences(text: &str, fence: &mut Option<(char, usize)>) {
    for line in text.lines() {
        let indent = line.len() - line.trim_start_matches(' ').len();
        if indent > 3 {
            continue;
        }
        let rest = &line[indent..];
        let Some(c) = rest.chars().next().filter(|c| *c == '`' || *c == '~') else {
            continue;
        };
        let run = rest.chars().take_while(|x| *x == c).count();
        if run < 3 {
            continue;
        }
        match *fence {
            None => *fence = Some((c, run)),
            Some((open, len)) if open == c && run >= len && rest[run..].trim().is_empty() => {
                *fence = None
            }
            Some(_) => {}
        }
    }
}

/// What a block holds when it is current: `fresh` (a Mermaid text) in a ```` ```mermaid ````
/// fence, with the Markdown's own line endings (CRLF when its first line ends so).
pub fn block_text(md: &str, fresh: &str) -> String {
    let text = format!("\n```mermaid\n{fresh}```\n");
    let crlf = md.find('\n').is_some_and(|i| md[..i].ends_with('\r'));
    if crlf {
        text.replace('\n', "\r\n")
    } else {
        text
    }
}

/// The Markdown with each block's content replaced by `fresh[i]` (a Mermaid text).
pub fn fill(md: &str, blocks: &[Block], fresh: &[String]) -> String {
    let mut out = String::with_capacity(md.len());
    let mut at = 0;
    for (b, text) in blocks.iter().zip(fresh) {
        out.push_str(&md[at..b.content.start]);
        out.push_str(&block_text(md, text));
        at = b.content.end;
    }
    out.push_str(&md[at..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_and_refills_blocks() {
        let md = "# T\n<!-- agc:graph a.yaml --collapse -->\nold\n<!-- /agc:graph -->\ntext\n<!-- agc:graph b.yaml -->\n<!-- /agc:graph -->\n";
        let b = blocks(md).unwrap();
        assert_eq!(b.len(), 2);
        assert_eq!(b[0].path, "a.yaml");
        assert_eq!(b[0].options, ["--collapse"]);
        assert_eq!(b[0].line, 2);
        assert_eq!(b[1].line, 6);
        let out = fill(md, &b, &["flowchart TB\n".into(), "flowchart LR\n".into()]);
        assert_eq!(
            out,
            "# T\n<!-- agc:graph a.yaml --collapse -->\n```mermaid\nflowchart TB\n```\n<!-- /agc:graph -->\ntext\n<!-- agc:graph b.yaml -->\n```mermaid\nflowchart LR\n```\n<!-- /agc:graph -->\n"
        );
        // Filling is idempotent.
        let again = fill(
            &out,
            &blocks(&out).unwrap(),
            &["flowchart TB\n".into(), "flowchart LR\n".into()],
        );
        assert_eq!(again, out);
    }

    #[test]
    fn a_crlf_file_keeps_its_line_endings() {
        let md = "# T\r\n<!-- agc:graph a.yaml -->\r\n<!-- /agc:graph -->\r\n";
        let b = blocks(md).unwrap();
        let out = fill(md, &b, &["flowchart TB\n    n0\n".into()]);
        assert_eq!(
            out,
            "# T\r\n<!-- agc:graph a.yaml -->\r\n```mermaid\r\nflowchart TB\r\n    n0\r\n```\r\n<!-- /agc:graph -->\r\n"
        );
        assert!(!out.replace("\r\n", "").contains('\n'), "{out:?}");
        // Current as written: refilling changes nothing.
        assert_eq!(
            fill(
                &out,
                &blocks(&out).unwrap(),
                &["flowchart TB\n    n0\n".into()]
            ),
            out
        );
    }

    #[test]
    fn markers_count_only_at_line_start() {
        let md = "use `<!-- agc:graph x.yaml -->` to mark\n<!-- agc:graph a.yaml -->\n<!-- /agc:graph -->\n";
        let b = blocks(md).unwrap();
        assert_eq!(b.len(), 1);
        assert_eq!(b[0].path, "a.yaml");
    }

    #[test]
    fn markers_inside_fenced_code_are_examples() {
        let md = "```text\n<!-- agc:graph x.yaml -->\n<!-- /agc:graph -->\n```\n~~~~\n<!-- agc:graph y.yaml -->\n~~~\nstill code\n~~~~\n<!-- agc:graph a.yaml -->\n<!-- /agc:graph -->\n";
        let b = blocks(md).unwrap();
        assert_eq!(b.len(), 1);
        assert_eq!(b[0].path, "a.yaml");
        assert_eq!(b[0].line, 10);
        // A filled block's own Mermaid fence does not hide the next marker.
        let filled = fill(md, &b, &["flowchart TB\n".into()]);
        let again = format!("{filled}<!-- agc:graph b.yaml -->\n<!-- /agc:graph -->\n");
        assert_eq!(blocks(&again).unwrap().len(), 2);
    }

    #[test]
    fn unclosed_blocks_are_errors() {
        assert_eq!(
            blocks("<!-- agc:graph a.yaml -->\nno end").unwrap_err().0,
            1
        );
        assert!(blocks("x\n<!-- agc:graph -->\n<!-- /agc:graph -->").is_err());
    }
}
