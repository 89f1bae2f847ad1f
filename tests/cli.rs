//! The `perft` subcommand of the real binary.

use std::process::Command;

const BINARY: &str = env!("CARGO_BIN_EXE_spelbord");

fn perft(args: &[&str]) -> (bool, String, String) {
    let output = Command::new(BINARY)
        .arg("perft")
        .args(args)
        .output()
        .expect("run spelbord");
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).trim().to_owned(),
        String::from_utf8_lossy(&output.stderr).trim().to_owned(),
    )
}

#[test]
fn lines_of_action_from_the_start() {
    assert_eq!(
        perft(&["lines-of-action", "--depth", "1"]),
        (true, "36".into(), String::new())
    );
}

#[test]
fn lines_of_action_from_a_position() {
    // The standard start written out in the notation counts the same as the default.
    let start = ".bbbbbb.w......ww......ww......ww......ww......ww......w.bbbbbb. b";
    assert_eq!(perft(&["lines-of-action", "--depth", "1", "--position", start]).1, "36");
}

#[test]
fn krux_one_turn_from_the_start() {
    assert_eq!(perft(&["krux", "--depth", "1"]).1, "2132");
}

#[test]
fn an_invalid_position_is_refused_with_the_reason() {
    let (ok, out, err) = perft(&["lines-of-action", "--position", "bbbb w"]);
    assert!(!ok && out.is_empty(), "{out}");
    assert!(err.starts_with("spelbord perft: invalid position"), "{err}");
}

#[test]
fn bughouse_one_board_with_pockets() {
    assert_eq!(perft(&["bughouse", "--depth", "2"]).1, "400");
    let fen = "4k3/2p5/8/3p4/4P3/2N5/8/4K3[Nb] w - - 0 1";
    assert_eq!(perft(&["bughouse", "--depth", "2", "--position", fen]).1, "4553");
}
