//! The caller's file descriptors, read and written in place and never closed
//! here (stock's `FileDescriptorRef`).

use std::{fs::File, mem::ManuallyDrop, ops::Deref, os::fd::FromRawFd};

use anyhow::{bail, Result};

/// A `File` over a descriptor the caller keeps owning.
pub struct BorrowedFile(ManuallyDrop<File>);

impl Deref for BorrowedFile {
    type Target = File;
    fn deref(&self) -> &File {
        &self.0
    }
}

/// Borrows `fd`, or an error naming `what` when it is negative or not open.
///
/// # Safety
/// `fd` must not be closed (or reused) by anyone else while the result lives.
pub unsafe fn borrow(fd: i32, what: &str) -> Result<BorrowedFile> {
    if fd < 0 {
        bail!("{what}: {fd} is not a file descriptor");
    }
    // SAFETY: F_GETFD only reads the descriptor's flags; any integer is allowed.
    if unsafe { libc::fcntl(fd, libc::F_GETFD) } == -1 {
        bail!("{what}: file descriptor {fd} is not open: {}", std::io::Error::last_os_error());
    }
    // SAFETY: `fd` is open and, by the contract above, stays so; `ManuallyDrop`
    // never closes it, so ownership stays with the caller.
    Ok(BorrowedFile(ManuallyDrop::new(unsafe { File::from_raw_fd(fd) })))
}
