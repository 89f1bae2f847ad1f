//! The protocol decoder (`spelbord::protocol::parse_client_msg`) on any text frame; a
//! `move` or `premove` it accepts is played on a fresh game of every kind.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // The server reads text frames only, and a text frame is UTF-8.
    if let Ok(text) = std::str::from_utf8(data) {
        spelbord_fuzz::fuzz_protocol(text);
    }
});
