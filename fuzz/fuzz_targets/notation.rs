//! The position notations: Lines of Action's, Krux's and a Bughouse board's FEN, each read,
//! printed canonically and read back (see `spelbord_fuzz::fuzz_notation`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Some((selector, text)) = spelbord_fuzz::selector_and_text(data) {
        spelbord_fuzz::fuzz_notation(selector, text);
    }
});
