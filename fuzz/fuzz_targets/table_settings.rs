//! The table-settings reader (`TableSettings::read`) on any `settings` object of any game
//! id: accepted settings read back identically from their stored form (see
//! `spelbord_fuzz::fuzz_table_settings`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| spelbord_fuzz::fuzz_table_settings(data));
