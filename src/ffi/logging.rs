//! Logging as stock: `fil_logger` on stderr, configured by `RUST_LOG` and
//! `GOLOG_LOG_FMT=json`, initialised on the first call into the library.

use std::sync::Once;

static INIT: Once = Once::new();

pub fn init() {
    INIT.call_once(|| {
        let _ = fil_logger::maybe_init();
    });
}
