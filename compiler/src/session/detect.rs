//! Load → detect → schema for one file: the steps every document takes before its front end,
//! whether it is the document checked or one it pulls in ([`load_document`]).
//!
//! Detection also gives the loader's codes the dialect's own names where the dialect has them
//! (AGS `AG005` for a duplicate key; Agent Graph `parse-failed`), so front ends and the
//! driver see the same codes for the same file.

use super::{CheckOptions, Files};
use crate::diag::Diagnostic;
use crate::dialect::{self, Dialect};
use crate::schema;
use crate::source::yaml::Loaded;
use crate::source::{Document, FileId, SourceMap};
use std::path::Path;

/// Detection of one loaded file: the document (when it loaded), its dialect (when detected or
/// forced), and the diagnostics of loading and detection, with the dialect's own codes for
/// the loader's findings.
pub fn detect(
    loaded: Loaded,
    opts: &CheckOptions,
) -> (Option<Document>, Option<Dialect>, Vec<Diagnostic>) {
    let Loaded { doc, mut diags } = loaded;
    let mut dialect = None;
    if let Some(doc) = &doc {
        match dialect::resolve(doc, opts.dialect) {
            Ok(d) => {
                dialect = Some(d);
                if d == Dialect::Ags {
                    for diag in &mut diags {
                        if diag.code == "AGC004" {
                            diag.code = "AG005";
                        }
                    }
                }
                if let Dialect::AgentGraph(_) = d {
                    agent_graph_parse_codes(&mut diags);
                }
            }
            Err(d) => diags.push(d),
        }
    }
    (doc, dialect, diags)
}

/// Agent Graph's own code for a file that does not parse: upstream parses with the npm `yaml`
/// package and reports syntax errors, duplicate keys and several documents in one file all as
/// `parse-failed`; agc's loader codes for those (AGC003, AGC004, AGC008) become it.
pub fn agent_graph_parse_codes(diags: &mut [Diagnostic]) {
    for d in diags {
        if matches!(d.code, "AGC003" | "AGC004" | "AGC008") {
            d.code = "parse-failed";
        }
    }
}

/// Detection and schema validation of one loaded file: the document (when it loaded), its
/// dialect (when detected or forced), whether the schema passed, and the diagnostics of
/// loading, detection and schema (detection as [`detect`] does it).
pub fn detect_and_validate(
    loaded: Loaded,
    opts: &CheckOptions,
) -> (Option<Document>, Option<Dialect>, bool, Vec<Diagnostic>) {
    let (doc, dialect, mut diags) = detect(loaded, opts);
    let mut schema_ok = false;
    if let (Some(doc), Some(d)) = (&doc, dialect) {
        let schema_diags = schema::validate(d, doc);
        schema_ok = !schema_diags.iter().any(Diagnostic::is_error);
        diags.extend(schema_diags);
    }
    (doc, dialect, schema_ok, diags)
}

/// Loads a file a document pulls in (through `files`, so overlays apply), detects its dialect
/// (`expect` forces one, as `--dialect` does) and validates it against its schema. Semantic
/// checks are the caller's.
pub fn load_document(
    sources: &mut SourceMap,
    files: &mut Files,
    opts: &CheckOptions,
    path: &Path,
    display: &str,
    expect: Option<Dialect>,
) -> LoadedDocument {
    match files.load(sources, path, display, opts.limits) {
        Ok((file, loaded)) => {
            let opts = CheckOptions {
                dialect: expect,
                ..opts.clone()
            };
            let (doc, dialect, schema_ok, diags) = detect_and_validate(loaded, &opts);
            LoadedDocument {
                file: Some(file),
                doc,
                dialect,
                schema_ok,
                diags,
            }
        }
        Err(d) => LoadedDocument {
            file: None,
            doc: None,
            dialect: None,
            schema_ok: false,
            diags: vec![d],
        },
    }
}

/// One file loaded through [`load_document`].
#[derive(Debug)]
pub struct LoadedDocument {
    /// `None` when the file could not be read (the diagnostic says why).
    pub file: Option<FileId>,
    pub doc: Option<Document>,
    pub dialect: Option<Dialect>,
    pub schema_ok: bool,
    pub diags: Vec<Diagnostic>,
}
