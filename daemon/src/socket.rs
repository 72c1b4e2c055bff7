//! The daemon's unix socket: made with mode 0660 in a folder made if
//! missing, guarded by a lock file beside it (`<socket>.lock`), so that a
//! second daemon on the same path refuses to start while a socket left by a
//! daemon that is gone is replaced; removed at exit only while the path is
//! still the socket this daemon made.

use std::{
    fs::{self, File, OpenOptions},
    os::unix::{
        fs::{FileTypeExt, MetadataExt, PermissionsExt},
        io::AsRawFd,
    },
    path::{Path, PathBuf},
};

use anyhow::{bail, Context, Result};
use tokio::net::UnixListener;

/// Who may connect: the daemon's user and group.
const SOCKET_MODE: u32 = 0o660;

/// The socket this daemon listens on, and its lock, held until dropped.
pub struct Claimed {
    path: PathBuf,
    /// The socket file's device and inode, to tell it from a later one.
    id: (u64, u64),
    // Held while the daemon serves: the lock goes with it.
    _lock: File,
}

/// Listens on a unix socket at `path` as the module says.
pub fn claim(path: &Path) -> Result<(UnixListener, Claimed)> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        fs::create_dir_all(dir).with_context(|| format!("making the socket's folder {}", dir.display()))?;
    }
    let lock_path = PathBuf::from(format!("{}.lock", path.display()));
    let lock = OpenOptions::new().create(true).truncate(false).write(true).open(&lock_path).with_context(|| format!("opening {}", lock_path.display()))?;
    // SAFETY: flock on a descriptor `lock` owns, open for this call.
    if unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
        bail!("another cuzk-daemon serves {} (it holds {}): stop it, or listen on another path", path.display(), lock_path.display());
    }
    match fs::symlink_metadata(path) {
        // Ours now that we hold the lock: its daemon is gone.
        Ok(m) if m.file_type().is_socket() => fs::remove_file(path).with_context(|| format!("removing the stale socket {}", path.display()))?,
        Ok(_) => bail!("{} exists and is not a socket: not replaced", path.display()),
        Err(_) => {}
    }
    let listener = UnixListener::bind(path).with_context(|| format!("listening on {}", path.display()))?;
    fs::set_permissions(path, fs::Permissions::from_mode(SOCKET_MODE)).with_context(|| format!("setting the mode of {}", path.display()))?;
    let m = fs::metadata(path)?;
    Ok((listener, Claimed { path: path.to_owned(), id: (m.dev(), m.ino()), _lock: lock }))
}

impl Drop for Claimed {
    fn drop(&mut self) {
        if fs::symlink_metadata(&self.path).is_ok_and(|m| (m.dev(), m.ino()) == self.id) {
            let _ = fs::remove_file(&self.path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder(what: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("cuzk-daemon-socket-{}-{what}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        dir
    }

    #[tokio::test]
    async fn one_daemon_a_path_mode_0660_and_only_its_own_socket_removed() {
        let dir = folder("claim");
        let path = dir.join("run").join("cuzk.sock");
        let (_listener, first) = claim(&path).unwrap();
        assert_eq!(fs::metadata(&path).unwrap().permissions().mode() & 0o777, SOCKET_MODE);
        let e = format!("{:#}", claim(&path).err().unwrap());
        assert!(e.contains("another cuzk-daemon serves"), "{e}");
        assert!(path.exists(), "a refused daemon removed the live socket");
        drop(first);
        assert!(!path.exists(), "the socket outlived its daemon");

        // A socket left by a daemon that is gone is replaced.
        let stale = std::os::unix::net::UnixListener::bind(&path).unwrap();
        drop(stale);
        let (_listener, second) = claim(&path).unwrap();
        // A newer file at the path (another daemon's, say) is not removed.
        fs::remove_file(&path).unwrap();
        fs::write(&path, b"not ours").unwrap();
        drop(second);
        assert_eq!(fs::read(&path).unwrap(), b"not ours");
        let e = format!("{:#}", claim(&path).err().unwrap());
        assert!(e.contains("is not a socket"), "{e}");
        fs::remove_dir_all(&dir).unwrap();
    }
}
