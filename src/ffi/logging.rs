//! Logging as stock: `fil_logger` on stderr, configured by `RUST_LOG` and
//! `GOLOG_LOG_FMT=json`, initialised on the first call into the library; or on
//! a file descriptor, if `init_log_fd` is that first call.

use std::{fs::File, os::fd::FromRawFd, sync::Once};

use anyhow::{bail, Result};

use super::{
    boundary::{catch, respond, Errors},
    types::Result_void_t,
};

static INIT: Once = Once::new();

/// Never panics (a malformed `RUST_LOG` leaves logging off).
pub fn init() {
    INIT.call_once(|| {
        let _ = catch(fil_logger::maybe_init);
    });
}

/// Logs to `fd` (taking it over) if no logger was set up yet; never panics.
fn init_with_fd(fd: i32) -> Result<()> {
    if fd < 0 {
        bail!("log_fd: {fd} is not a file descriptor");
    }
    // SAFETY: F_GETFD only reads the descriptor's flags; any integer is allowed.
    if unsafe { libc::fcntl(fd, libc::F_GETFD) } == -1 {
        bail!("log_fd: file descriptor {fd} is not open: {}", std::io::Error::last_os_error());
    }
    let mut set = None;
    INIT.call_once(|| {
        // SAFETY: `fd` is open, and the caller hands it to the library for good
        // (stock's contract of `init_log_fd`); it is taken only here, once.
        let file = unsafe { File::from_raw_fd(fd) };
        set = Some(catch(|| fil_logger::init_with_file(file)).is_ok());
    });
    match set {
        Some(true) => Ok(()),
        Some(false) => bail!("logging to file descriptor {fd} could not be set up (is RUST_LOG valid?)"),
        None => bail!(
            "There is already an active logger. `init_log_fd()` needs to be called before any other FFI function is called."
        ),
    }
}

/// Sends the library's log to `log_fd`, which the library then owns. Works only
/// before every other call but the `get_*` accessors (as stock); later it fails
/// and leaves `log_fd` open.
/// Free with `destroy_init_log_fd_response`.
#[no_mangle]
pub extern "C" fn init_log_fd(log_fd: i32) -> *mut Result_void_t {
    let outcome = init_with_fd(log_fd);
    respond("init_log_fd", Errors::Chain, || outcome)
}
