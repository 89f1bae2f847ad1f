//! Bughouse's move decoder and rules: random move sequences from the fuzz input, checked
//! against the invariants of `spelbord_fuzz::Checked` (a refused move changes nothing,
//! replaying the normalised moves reproduces the game, nothing panics).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| spelbord_fuzz::fuzz_game("bughouse", data));
