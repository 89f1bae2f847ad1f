//! `legal_moves` over real WebSockets: a player asks which moves their seat may play now
//! and only that connection is answered — in Bughouse (the 20 opening moves, drops once a
//! capture has reached the partner's pocket, nothing out of turn), refused for a seat the
//! connection does not hold, and for any other game too (Gomoku's centre opening).

mod common;

use common::{Client, TestApp, spawn_app};
use serde_json::{Value, json};

/// Asks for `seat`'s legal moves (with a `ref`) and returns the answer.
async fn ask(client: &mut Client, seat: u8) -> Value {
    client
        .send(json!({"type": "legal_moves", "seat": seat, "ref": format!("lm-{seat}")}))
        .await;
    let answer = client.until("legal_moves").await;
    assert_eq!(answer["seat"], seat, "{answer}");
    assert_eq!(answer["ref"], format!("lm-{seat}"), "the ref is echoed: {answer}");
    assert!(answer["version"].is_u64(), "{answer}");
    answer
}

/// The answer's moves as UCI strings, sorted.
fn ucis(answer: &Value) -> Vec<String> {
    let mut moves: Vec<String> = answer["moves"]
        .as_array()
        .expect("a list of moves")
        .iter()
        .map(|m| m["uci"].as_str().expect("a Bughouse payload").to_owned())
        .collect();
    moves.sort();
    moves
}

/// Plays `uci` for `seat` and waits until the spectator has seen it.
async fn play(players: &mut [Client], spectator: &mut Client, seat: usize, uci: &str) {
    players[seat].send(json!({"type": "move", "move": {"uci": uci}})).await;
    let moved = spectator.until("moved").await;
    assert_eq!(moved["move"]["uci"], uci, "{moved}");
}

/// A Bughouse match under way: the four players (who have read the start and their
/// `welcome` with the seats it gave them) and a spectator.
async fn started_match(app: &TestApp) -> (Vec<Client>, Client) {
    let (_table, mut players, spectator) = app.bughouse_match().await;
    for player in &mut players {
        player.until("game_started").await;
        player.until("welcome").await;
    }
    (players, spectator)
}

#[tokio::test]
async fn bughouse_lists_moves_and_drops_for_the_seat_to_move_only() {
    let app = spawn_app().await;
    let (mut players, mut spectator) = started_match(&app).await;
    // White on board A has the chess start's 20 moves; black, not to move, has none.
    let white = ask(&mut players[0], 0).await;
    assert_eq!(ucis(&white).len(), 20, "{white}");
    assert!(ucis(&white).contains(&"g1f3".to_owned()));
    assert!(
        ucis(&white).iter().all(|m| !m.contains('@')),
        "no drops with empty pockets"
    );
    assert_eq!(ask(&mut players[1], 1).await["moves"], json!([]));

    // Only the asker is answered: nobody else hears of it.
    for other in [&mut players[1], &mut spectator] {
        let seen = other.sync().await;
        assert!(seen.iter().all(|m| m["type"] != "legal_moves"), "{seen:?}");
    }

    // B-white takes a pawn on board B: it reaches A-black, who may now drop it.
    let (p, s) = (&mut players, &mut spectator);
    play(p, s, 2, "e2e4").await;
    play(p, s, 3, "d7d5").await;
    play(p, s, 2, "e4d5").await;
    play(p, s, 0, "e2e4").await;
    let black = ucis(&ask(&mut p[1], 1).await);
    let drops: Vec<&String> = black.iter().filter(|m| m.starts_with("P@")).collect();
    // Every empty square of ranks 2 to 7: the 31 of ranks 3–6 left free by e4, and e2.
    assert_eq!(drops.len(), 32, "{drops:?}");
    assert!(black.contains(&"P@e2".to_owned()) && black.contains(&"P@d4".to_owned()));
    assert!(!black.contains(&"P@e4".to_owned()), "not onto a piece");
    assert_eq!(black.len(), 20 + 32, "the 20 piece moves and the drops");
    // Board B's black, who lost the pawn, has no drop.
    assert!(ucis(&ask(&mut p[3], 3).await).iter().all(|m| !m.contains('@')));
}

#[tokio::test]
async fn a_seat_the_connection_does_not_hold_is_refused() {
    let app = spawn_app().await;
    let (mut players, mut spectator) = started_match(&app).await;
    players[1]
        .send(json!({"type": "legal_moves", "seat": 0, "ref": 5}))
        .await;
    let refused = players[1].expect_error("not_your_seat").await;
    assert_eq!(refused["ref"], 5, "{refused}");
    spectator.send(json!({"type": "legal_moves"})).await;
    spectator.expect_error("not_seated").await;
    // Without a seat the connection's only seat is meant.
    players[2].send(json!({"type": "legal_moves"})).await;
    let answer = players[2].until("legal_moves").await;
    assert_eq!(
        (answer["seat"].clone(), answer["moves"].as_array().map(Vec::len)),
        (json!(2), Some(20))
    );
}

#[tokio::test]
async fn other_games_answer_too_and_a_finished_game_has_no_moves() {
    let app = spawn_app().await;
    let table = app.gomoku_table(json!({"seating": "chosen"})).await;
    let ((mut x, _), (mut o, _)) = app.two_seated(&table).await;
    // The centre opening: X's only move is the centre.
    assert_eq!(ask(&mut x, 0).await["moves"], json!([{"at": "H8"}]));
    assert_eq!(ask(&mut o, 1).await["moves"], json!([]));
    x.send(json!({"type": "move", "move": {"at": "H8"}})).await;
    o.until("moved").await;
    assert_eq!(ask(&mut o, 1).await["moves"].as_array().map(Vec::len), Some(224));
    o.send(json!({"type": "resign"})).await;
    o.until("game_over").await;
    assert_eq!(ask(&mut o, 1).await["moves"], json!([]));
}
