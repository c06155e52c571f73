//! The arguments several commands share (`--root`, `--graph`, `--max-file-size`, the
//! diagnostic format and colour).

use crate::check::CheckOptions;
use clap::ValueEnum;

/// The workspace root shared by the commands that follow references.
#[derive(clap::Args, Debug, Clone)]
pub(crate) struct RootArg {
    /// Workspace root: referenced files are read only below it. Default: the nearest folder
    /// above the document holding `.git`, `.hg`, `.jj` or `.agc-root`, else the document's
    /// own folder.
    #[arg(long, value_name = "DIR", value_parser = existing_folder)]
    pub(crate) root: Option<std::path::PathBuf>,
    /// agh: an extension manifest (`extension.json`/`.toml`) declaring tool schemas
    /// (repeatable; the one beside the Loop is found without it).
    #[arg(long = "extension", value_name = "MANIFEST")]
    pub(crate) extensions: Vec<std::path::PathBuf>,
    #[command(flatten)]
    pub(crate) limit: LimitArg,
}

/// `--graph ID`: which graph of a document holding several (an Agent Graph Provider) the
/// command takes; shared by `build` and `graph`.
#[derive(clap::Args, Debug, Clone)]
pub(crate) struct GraphPick {
    /// The graph to take from a document holding several (an Agent Graph Provider).
    #[arg(long = "graph", value_name = "ID")]
    pub(crate) id: Option<String>,
}

/// `--max-file-size`: the size limit of every file a command reads (documents, the files
/// they reference, params, scripts, outputs, inputs), and of standard input.
#[derive(clap::Args, Debug, Clone, Copy)]
pub(crate) struct LimitArg {
    /// Largest file (or standard input) accepted, in bytes; anything larger is refused
    /// (AGC012) before it is loaded.
    #[arg(long = "max-file-size", value_name = "BYTES", default_value_t = crate::fsio::DEFAULT_MAX_BYTES)]
    pub(crate) bytes: usize,
}

/// `--root`'s value: a folder that exists (a missing or mistyped root would otherwise show up
/// later as "outside the workspace root" on every reference, a misleading AGC081).
fn existing_folder(s: &str) -> Result<std::path::PathBuf, String> {
    let p = std::path::PathBuf::from(s);
    match std::fs::metadata(&p) {
        Ok(m) if m.is_dir() => Ok(p),
        Ok(_) => Err(format!("`{s}` is a file, not a folder")),
        Err(e) => Err(format!("`{s}` cannot be read as a folder ({e})")),
    }
}

impl RootArg {
    pub(crate) fn options(&self) -> CheckOptions {
        let mut opts = CheckOptions {
            root: self.root.clone(),
            extensions: self.extensions.clone(),
            ..CheckOptions::default()
        };
        opts.limits.max_file_bytes = self.limit.bytes;
        opts
    }
}

/// How the commands that report diagnostics show them (`check`, `build`, `graph`, `gen`):
/// one definition of the two flags, flattened into each command's arguments.
#[derive(clap::Args, Clone, Copy, Debug)]
pub(crate) struct DiagArgs {
    /// Output format of the diagnostics.
    #[arg(long, value_enum, default_value_t = FormatArg::Human)]
    pub(crate) format: FormatArg,
    /// When to colour human output.
    #[arg(long, value_enum, default_value_t = ColorArg::Auto)]
    pub(crate) color: ColorArg,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub(crate) enum FormatArg {
    Human,
    Json,
    Sarif,
    Github,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub(crate) enum ColorArg {
    Auto,
    Always,
    Never,
}
