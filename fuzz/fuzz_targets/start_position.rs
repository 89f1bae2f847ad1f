//! The `start_position` settings of Lines of Action, Krux and Bughouse, read through
//! `TableSettings::read`, stored, read back, and played from (see
//! `spelbord_fuzz::fuzz_start_position`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| spelbord_fuzz::fuzz_start_position(data));
