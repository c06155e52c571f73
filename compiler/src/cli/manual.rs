//! `agc completions SHELL` and `agc man [-o DIR]`: shell completions (clap_complete) and
//! manual pages (clap_mangen), generated from the clap definitions that parse the command
//! line, so they list exactly the commands and options agc has.
//!
//! Both take the command's definition as a value (the caller passes `Cli::command()`), so this
//! file imports nothing from `cli/mod.rs`. Output is deterministic: the pages carry no date,
//! and their footer names the version `agc --version` prints.

use clap::Command;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub(crate) struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    shell: clap_complete::Shell,
}

#[derive(clap::Args, Debug)]
pub(crate) struct ManArgs {
    /// Write every page into this folder (created if needed): `agc.1`, and one per command
    /// and subcommand (`agc-check.1`, `agc-gen-rust.1`, ...). Without it, `agc.1` goes to
    /// standard output.
    #[arg(short, long, value_name = "DIR")]
    output: Option<PathBuf>,
}

/// Prints the completion script for `args.shell` (`agc completions bash > agc.bash`).
pub(crate) fn completions(args: CompletionsArgs, mut cmd: Command) -> i32 {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "agc", &mut script);
    crate::fsio::stdout::write(&script);
    0
}

/// Prints `agc.1`, or writes every page into `--output`.
pub(crate) fn man(args: ManArgs, cmd: Command) -> i32 {
    let pages = pages(cmd);
    let Some(dir) = args.output else {
        if let Some((_, text)) = pages.first() {
            crate::fsio::stdout::write(text);
        }
        return 0;
    };
    if let Err(e) = std::fs::create_dir_all(&dir) {
        eprintln!("error[AGC025]: cannot create `{}`: {e}", dir.display());
        return 2;
    }
    for (name, text) in &pages {
        let path = dir.join(name);
        if let Err(e) = crate::fsio::write::write(&path, &[], text) {
            eprintln!("{}", e.line(&path.to_string_lossy()));
            return 2;
        }
    }
    0
}

/// Every manual page, `agc.1` first, then each command's in definition order, depth first:
/// (file name, roff text). Hidden commands and `help` have none.
pub(crate) fn pages(cmd: Command) -> Vec<(String, Vec<u8>)> {
    let mut cmd = cmd
        .name("agc")
        .bin_name("agc")
        .disable_help_subcommand(true);
    cmd.build();
    let mut out = Vec::new();
    let mut todo = vec![cmd];
    while let Some(cmd) = todo.pop() {
        let subs: Vec<Command> = cmd
            .get_subcommands()
            .filter(|s| !s.is_hide_set())
            .cloned()
            .collect();
        let page = clap_mangen::Man::new(cmd);
        let mut text = Vec::new();
        // Rendering into a Vec cannot fail.
        let _ = page.render(&mut text);
        out.push((page.get_filename(), text));
        todo.extend(subs.into_iter().rev());
    }
    out
}
