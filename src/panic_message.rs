//! The one text a caught panic becomes, wherever it is caught: the C
//! boundary, the engine's workers.

use std::any::Any;

/// "Rust panic: " and the panic's message, as stock's boundary words it.
pub fn panic_message(payload: &(dyn Any + Send)) -> String {
    let text = payload.downcast_ref::<&str>().copied().or_else(|| payload.downcast_ref::<String>().map(String::as_str));
    format!("Rust panic: {}", text.unwrap_or("no unwind information"))
}

#[cfg(test)]
mod tests {
    use std::panic::{catch_unwind, panic_any};

    use super::panic_message;

    #[test]
    fn a_panic_says_its_message_whatever_its_payload() {
        let caught = |f: fn()| panic_message(catch_unwind(f).unwrap_err().as_ref());
        assert_eq!(caught(|| panic!("a literal")), "Rust panic: a literal");
        assert_eq!(caught(|| panic!("formatted {}", 7)), "Rust panic: formatted 7");
        assert_eq!(caught(|| panic_any(7u32)), "Rust panic: no unwind information");
    }
}
