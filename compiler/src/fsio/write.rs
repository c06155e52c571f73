//! The one file writer: every file a command writes on the user's behalf (a plan, a diagram,
//! a refreshed Markdown file, a run record, agh's resolved form, a generated crate's files)
//! goes through [`write`](fn@write) or [`write_with`], which
//!
//! - refuses an output that is one of the command's inputs (AGC018): the same file after
//!   symbolic links, compared by device and inode, so `agc build wf.yaml -o wf.yaml` (or
//!   `-o link-to-wf.yaml`) cannot replace the source with its plan;
//! - writes atomically: a temporary file in the output's folder, flushed to disk (fsync),
//!   then renamed over the output, and the folder synced. An interrupted or failed write
//!   leaves the old file whole, and two writers racing leave one whole file, never a mix;
//! - keeps an existing file's permissions (a new file gets the usual `0666` less the umask);
//! - writes through a symbolic link to the file it names (the link stays a link);
//! - writes straight into an output that is no regular file (`/dev/null`, `/dev/stdout`, a
//!   pipe): renaming over a device would replace the device. Every write and the final flush
//!   are checked, so `-o /dev/full` fails (AGC025) instead of passing silently.

use crate::diag::Diagnostic;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Why an output was not written.
#[derive(Debug)]
pub enum WriteError {
    /// The output is this input (AGC018).
    IsInput(PathBuf),
    /// The operating system's refusal, or the output is a folder (AGC025).
    Io(std::io::Error),
}

impl WriteError {
    pub fn code(&self) -> &'static str {
        match self {
            WriteError::IsInput(_) => "AGC018",
            WriteError::Io(_) => "AGC025",
        }
    }

    /// The message for the output shown as `display`.
    pub fn message(&self, display: &str) -> String {
        match self {
            WriteError::IsInput(input) => format!(
                "`{display}` is the input `{}`: writing it would replace what is read",
                input.display()
            ),
            WriteError::Io(e) => format!("cannot write `{display}`: {e}"),
        }
    }

    /// The coded diagnostic for the output shown as `display`.
    pub fn diagnostic(&self, display: &str) -> Diagnostic {
        let d = Diagnostic::error(self.code(), self.message(display));
        match self {
            WriteError::IsInput(_) => d.with_help("write the output to another file".to_string()),
            WriteError::Io(_) => d,
        }
    }

    /// The diagnostic printed as one line on stderr (for commands that print no other).
    pub fn line(&self, display: &str) -> String {
        format!("error[{}]: {}", self.code(), self.message(display))
    }
}

impl From<std::io::Error> for WriteError {
    fn from(e: std::io::Error) -> WriteError {
        WriteError::Io(e)
    }
}

/// A file's identity after symbolic links: device and inode (`None` when it does not exist
/// or cannot be asked).
#[cfg(unix)]
fn identity(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn identity(path: &Path) -> Option<PathBuf> {
    path.canonicalize().ok()
}

/// Refuses `out` when it is one of `inputs` (the same file after symbolic links). Inputs that
/// do not exist, and `-`, are no file to protect.
pub fn refuse_input(out: &Path, inputs: &[&Path]) -> Result<(), WriteError> {
    let Some(target) = identity(out) else {
        return Ok(());
    };
    match inputs
        .iter()
        .find(|i| !crate::fsio::read::is_stdin(i) && identity(i).as_ref() == Some(&target))
    {
        Some(input) => Err(WriteError::IsInput(input.to_path_buf())),
        None => Ok(()),
    }
}

/// Writes `bytes` to `out` as the module says, unless `out` is one of `inputs`.
pub fn write(out: &Path, inputs: &[&Path], bytes: &[u8]) -> Result<(), WriteError> {
    write_with(out, inputs, |w| w.write_all(bytes))
}

/// Writes to `out` what `fill` writes (streamed through a buffer), as the module says, unless
/// `out` is one of `inputs`. `fill`'s error leaves `out` as it was.
pub fn write_with(
    out: &Path,
    inputs: &[&Path],
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), WriteError> {
    refuse_input(out, inputs)?;
    // Through a symbolic link, to the file it names.
    let target = match std::fs::symlink_metadata(out) {
        Ok(m) if m.file_type().is_symlink() => match out.canonicalize() {
            Ok(t) => t,
            // A dangling link: the file it names is created.
            Err(_) => match std::fs::read_link(out) {
                Ok(t) => out.parent().unwrap_or(Path::new("")).join(t),
                Err(e) => return Err(e.into()),
            },
        },
        _ => out.to_path_buf(),
    };
    let existing = std::fs::metadata(&target).ok();
    if let Some(m) = &existing {
        if m.is_dir() {
            return Err(WriteError::Io(std::io::Error::other("it is a folder")));
        }
        if !m.is_file() {
            return write_in_place(&target, fill);
        }
    }
    let dir = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(".agc-").suffix(".tmp");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = existing.as_ref().map_or(0o666, |m| m.permissions().mode());
        builder.permissions(std::fs::Permissions::from_mode(mode));
    }
    let tmp = builder.tempfile_in(dir)?;
    {
        let mut w = std::io::BufWriter::new(tmp.as_file());
        fill(&mut w)?;
        w.flush()?;
    }
    tmp.as_file().sync_all()?;
    tmp.persist(&target).map_err(|e| e.error)?;
    sync_folder(dir);
    Ok(())
}

/// Writes into an existing file that is no regular file (a device, a pipe), checking every
/// write and the flush.
fn write_in_place(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), WriteError> {
    let file = std::fs::OpenOptions::new().write(true).open(path)?;
    let mut w = std::io::BufWriter::new(file);
    fill(&mut w)?;
    w.flush()?;
    Ok(())
}

/// Makes a rename in `dir` durable (best effort: not every file system can sync a folder).
pub(crate) fn sync_folder(dir: &Path) {
    #[cfg(unix)]
    if let Ok(f) = std::fs::File::open(dir) {
        let _ = f.sync_all();
    }
    #[cfg(not(unix))]
    let _ = dir;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_output_that_is_an_input_is_refused_through_a_symlink() {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("wf.yaml");
        std::fs::write(&src, "source").unwrap();
        let e = write(&src, &[&src], b"plan").unwrap_err();
        assert_eq!(e.code(), "AGC018");
        #[cfg(unix)]
        {
            let link = dir.path().join("link.yaml");
            std::os::unix::fs::symlink(&src, &link).unwrap();
            assert_eq!(write(&link, &[&src], b"plan").unwrap_err().code(), "AGC018");
        }
        assert_eq!(std::fs::read_to_string(&src).unwrap(), "source");
    }

    #[test]
    fn a_failed_fill_leaves_the_old_file_whole_and_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("plan.json");
        std::fs::write(&out, "old").unwrap();
        let e = write_with(&out, &[], |w| {
            w.write_all(b"half")?;
            Err(std::io::Error::other("stopped"))
        })
        .unwrap_err();
        assert_eq!(e.code(), "AGC025");
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "old");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        write(&out, &[], b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "new");
    }

    #[cfg(unix)]
    #[test]
    fn a_link_stays_a_link_and_permissions_stay() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.json");
        std::fs::write(&real, "old").unwrap();
        std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o640)).unwrap();
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        write(&link, &[], b"new").unwrap();
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(std::fs::read_to_string(&real).unwrap(), "new");
        let mode = std::fs::metadata(&real).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o640);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_full_device_is_an_error_and_stays_a_device() {
        let e = write(Path::new("/dev/full"), &[], &[b'x'; 100_000]).unwrap_err();
        assert_eq!(e.code(), "AGC025");
        use std::os::unix::fs::FileTypeExt;
        let t = std::fs::metadata("/dev/full").unwrap().file_type();
        assert!(t.is_char_device());
    }
}
