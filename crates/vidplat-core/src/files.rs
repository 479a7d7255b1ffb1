//! Files the SDK and its tools write in directories others may share (the
//! profiles, the machine's quota store, the exporter's partitions and
//! state): a file is written under a name of its own and renamed over the
//! old, so a reader never sees half of it, two writers never share one
//! file, and a symbolic link or a FIFO planted at either name is replaced or
//! refused, never followed; a private file is readable by its owner only
//! before a byte is written.

use std::fs::File;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// Writes `bytes` to `path` through a new file renamed over it (mode 0600 when `private`).
pub fn replace_file(path: &Path, bytes: &[u8], private: bool) -> std::io::Result<()> {
    let (temporary, file) = new_beside(path, private)?;
    let written = Ok(file).and_then(|mut file: File| {
        file.write_all(bytes)?;
        file.sync_all()
    });
    written
        .and_then(|()| std::fs::rename(&temporary, path))
        .inspect_err(|_| {
            let _ = std::fs::remove_file(&temporary);
        })
}

/// A new, empty file beside `path`, under a name of this process's
/// (`.{name}.{pid}.tmp`): created only if nothing is there, so a link
/// planted at that name is never followed (what a killed run of this
/// process id left there is removed first). Rename it over `path` once
/// written; remove it otherwise.
pub fn new_beside(path: &Path, private: bool) -> std::io::Result<(PathBuf, File)> {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("file");
    let temporary = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.mode(if private { 0o600 } else { 0o644 });
    }
    #[cfg(not(unix))]
    let _ = private;
    let _ = std::fs::remove_file(&temporary);
    let file = options.open(&temporary)?;
    Ok((temporary, file))
}

/// Removes every file [`new_beside`] made for `path`, whichever process
/// made it: what killed runs left. A writer still at work on one finds its
/// file gone when it renames it, and fails rather than commits.
pub fn clear_beside(path: &Path) -> std::io::Result<()> {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name().and_then(|n| n.to_str())) else {
        return Ok(());
    };
    let prefix = format!(".{name}.");
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let file_name = entry.file_name();
        let Some(file_name) = file_name.to_str() else { continue };
        let ours = file_name
            .strip_prefix(&prefix)
            .and_then(|rest| rest.strip_suffix(".tmp"))
            .is_some_and(|pid| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()));
        if ours {
            // A link is removed itself, never what it points to.
            let _ = std::fs::remove_file(entry.path());
        }
    }
    Ok(())
}

/// `dir` as a directory of its own: made if missing; refused when something
/// else is there, a symbolic link to a directory elsewhere among them.
pub fn own_dir(dir: &Path) -> std::io::Result<()> {
    match std::fs::symlink_metadata(dir) {
        Ok(meta) if meta.is_dir() => Ok(()),
        Ok(_) => Err(std::io::Error::new(
            std::io::ErrorKind::AlreadyExists,
            format!(
                "{} is not a directory of its own (a link or a file is there)",
                dir.display()
            ),
        )),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => std::fs::create_dir(dir),
        Err(e) => Err(e),
    }
}

/// Whether [`open_file`] follows a symbolic link at its path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Links {
    /// Opens what the link names (a file the user named).
    Follow,
    /// Refuses the link (a file in a directory others may write: a link
    /// planted there would make the program read or write another file).
    Refuse,
}

/// `path` opened with `options` when it is a regular file; anything else
/// there is refused once open, and the open itself never waits (on unix it
/// is non-blocking, which a FIFO with no writer would otherwise hold
/// forever), so what the path names cannot change between the check and
/// the use.
pub fn open_file(path: &Path, options: &mut std::fs::OpenOptions, links: Links) -> std::io::Result<File> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        let no_follow = if links == Links::Refuse { libc::O_NOFOLLOW } else { 0 };
        options.custom_flags(libc::O_NONBLOCK | no_follow);
    }
    let file = options.open(path).map_err(|e| {
        #[cfg(unix)]
        if links == Links::Refuse && e.raw_os_error() == Some(libc::ELOOP) {
            return std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("{} is a symbolic link, which is not followed", path.display()),
            );
        }
        e
    })?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("{} is not a regular file", path.display()),
        ));
    }
    Ok(file)
}

/// The text of `path`, read as [`open_file`] opens it, when it is a regular
/// file of at most `max` bytes; `None` when there is none. A larger one is
/// refused, not cut: what follows its first `max` bytes would be lost.
pub fn read_text(path: &Path, max: u64, links: Links) -> std::io::Result<Option<String>> {
    use std::io::Read as _;
    let file = match open_file(path, std::fs::OpenOptions::new().read(true), links) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let mut text = String::new();
    file.take(max.saturating_add(1)).read_to_string(&mut text)?;
    if text.len() as u64 > max {
        let size = match max {
            m if m >= 1 << 20 && m % (1 << 20) == 0 => format!("{} MiB", m >> 20),
            m if m >= 1 << 10 && m % (1 << 10) == 0 => format!("{} KiB", m >> 10),
            m => format!("{m} bytes"),
        };
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("larger than {size}"),
        ));
    }
    Ok(Some(text))
}
