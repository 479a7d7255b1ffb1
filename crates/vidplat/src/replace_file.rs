//! Writing a file whole, as the profiles and the machine's quota store do:
//! a new file renamed over the old, so a reader never sees half of it and a
//! symbolic link at the path is replaced, never followed; a private file is
//! readable by its owner only before a byte is written.

use std::io::Write as _;
use std::path::Path;

/// Writes `bytes` to `path` through a new file renamed over it (mode 0600 when `private`).
pub(crate) fn replace_file(path: &Path, bytes: &[u8], private: bool) -> std::io::Result<()> {
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
    // A temporary file a killed writer left behind.
    let _ = std::fs::remove_file(&temporary);
    let written = options.open(&temporary).and_then(|mut file| {
        file.write_all(bytes)?;
        file.sync_all()
    });
    written
        .and_then(|()| std::fs::rename(&temporary, path))
        .inspect_err(|_| {
            let _ = std::fs::remove_file(&temporary);
        })
}
