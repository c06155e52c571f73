//! Fixture harness: every `tests/fixtures/**/*.yaml` (and `*.json` that starts so) starts with
//! `# EXPECT: CODE` and optionally
//! `# AT: LINE:COL` on the next line. The file is checked with `check_text`; the errors it
//! produces must all carry that code (at least one), and, when `AT` is given, one of them must
//! start at that line and column. `# EXPECT: AG101 AG001` names a code and the codes that
//! must stand beside it (the AGS reference validators' codes agc also gives, `agc explain`):
//! every one of them must be given, and no other; `AT` is the first one's.
//!
//! Fixtures are named after the code they trigger; other phases add theirs to the same folder.

use agc::check::{CheckOptions, check_text};
use agc::source::SourceMap;
use std::path::{Path, PathBuf};

/// A `.json` file that starts with the fixture header (a loose-JSON fixture: strict JSON has
/// no comments). Other `.json` files under `tests/fixtures/` are data of other fixtures.
fn is_json_fixture(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "json")
        && std::fs::read_to_string(path).is_ok_and(|t| t.starts_with("# EXPECT:"))
}

fn fixture_files(root: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("fixture dir readable") {
            let path = entry.expect("dir entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "yaml") || is_json_fixture(&path) {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

struct Expect {
    code: String,
    /// Codes that must stand beside `code`.
    beside: Vec<String>,
    at: Option<(u32, u32)>,
}

fn parse_header(text: &str) -> Result<Expect, String> {
    let mut lines = text.lines();
    let mut codes = lines
        .next()
        .and_then(|l| l.strip_prefix("# EXPECT:"))
        .map(|c| c.split_whitespace().map(str::to_string).collect::<Vec<_>>())
        .filter(|c| !c.is_empty())
        .ok_or("first line must be `# EXPECT: CODE`")?;
    let code = codes.remove(0);
    let beside = codes;
    let at = match lines.next().and_then(|l| l.strip_prefix("# AT:")) {
        None => None,
        Some(pos) => {
            let (l, c) = pos.trim().split_once(':').ok_or("`# AT: LINE:COL`")?;
            Some((
                l.parse().map_err(|_| "bad AT line")?,
                c.parse().map_err(|_| "bad AT column")?,
            ))
        }
    };
    Ok(Expect { code, beside, at })
}

/// Checks one fixture; `Err` describes the mismatch.
fn run(root: &Path, path: &Path) -> Result<String, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let expect = parse_header(&text)?;
    let name = path
        .strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string();
    let mut sources = SourceMap::new();
    let diags = check_text(&mut sources, &name, text, &CheckOptions::default());
    let errors: Vec<_> = diags.iter().filter(|d| d.is_error()).collect();
    let show = |d: &agc::diag::Diagnostic| {
        let pos = d.span.map(|s| {
            let lc = sources.get(s.file).line_col(s.start);
            format!("{}:{}", lc.line, lc.column)
        });
        format!("{} at {} {}", d.code, pos.unwrap_or_default(), d.message)
    };
    let listing = errors
        .iter()
        .map(|d| show(d))
        .collect::<Vec<_>>()
        .join("\n    ");
    // A warning code's fixture must raise no error at all, and the warning itself.
    let warning = agc::diag::codes::lookup(&expect.code)
        .is_some_and(|c| c.severity == agc::diag::Severity::Warning);
    let errors: Vec<_> = if warning {
        if !errors.is_empty() {
            return Err(format!(
                "expected warning {} and no errors, got:\n    {listing}",
                expect.code
            ));
        }
        diags.iter().filter(|d| d.code == expect.code).collect()
    } else {
        let (own, beside): (Vec<_>, Vec<_>) =
            errors.into_iter().partition(|d| d.code == expect.code);
        for code in &expect.beside {
            if !beside.iter().any(|d| d.code == code) {
                return Err(format!(
                    "expected {code} beside {}, got:\n    {listing}",
                    expect.code
                ));
            }
        }
        if beside
            .iter()
            .any(|d| !expect.beside.iter().any(|c| c == d.code))
        {
            return Err(format!(
                "expected only {} errors, got:\n    {listing}",
                expect.code
            ));
        }
        own
    };
    if errors.is_empty() || errors.iter().any(|d| d.code != expect.code) {
        return Err(format!(
            "expected only {} errors, got:\n    {listing}",
            expect.code
        ));
    }
    if let Some((line, col)) = expect.at {
        let hit = errors.iter().any(|d| {
            d.span.is_some_and(|s| {
                let lc = sources.get(s.file).line_col(s.start);
                (lc.line, lc.column) == (line, col)
            })
        });
        if !hit {
            return Err(format!(
                "expected {} at {line}:{col}, got:\n    {listing}",
                expect.code
            ));
        }
    }
    Ok(expect.code)
}

#[test]
fn fixtures_produce_their_expected_code() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let files = fixture_files(&root);
    assert!(!files.is_empty(), "no fixtures under {}", root.display());
    let failures: Vec<String> = files
        .iter()
        .filter_map(|p| run(&root, p).err().map(|e| format!("{}: {e}", p.display())))
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
