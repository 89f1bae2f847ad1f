//! Bughouse over the table protocol: four players and a spectator on real WebSockets,
//! moves on both boards, a capture travelling to the partner, a drop, a mate that ends
//! the whole match, the team channel, the default clock, and a table's house rules.

mod common;

use common::{Client, TestApp, spawn_app};
use serde_json::{Value, json};

/// A Bughouse table (seating chosen) with all four seats taken and a spectator, after
/// everyone has seen the match start.
async fn match_table(app: &TestApp) -> (Vec<Client>, Client) {
    let (table, mut players, spectator) = app.bughouse_match().await;
    let snapshot = app.snapshot(&table).await;
    assert_eq!(
        snapshot["settings"]["time_control"],
        json!({"kind": "sudden_death", "base_seconds": 180})
    );
    assert_eq!(snapshot["to_move"], json!([0, 2]), "white moves first on both boards");
    assert_eq!(snapshot["clocks"]["running"], json!([0, 2]), "two clocks run at once");
    for player in &mut players {
        player.until("game_started").await;
    }
    (players, spectator)
}

/// Plays `uci` for `seat` and returns the `moved` event the spectator sees.
async fn play(players: &mut [Client], spectator: &mut Client, seat: usize, uci: &str) -> Value {
    players[seat].send(json!({"type": "move", "move": {"uci": uci}})).await;
    let moved = spectator.until("moved").await;
    assert_eq!(
        (moved["seat"].clone(), moved["move"]["uci"].clone()),
        (json!(seat), json!(uci)),
        "{moved}"
    );
    moved
}

#[tokio::test]
async fn a_match_with_a_transfer_a_drop_and_a_mate() {
    let app = spawn_app().await;
    let (mut players, mut spectator) = match_table(&app).await;
    let p = &mut players;
    let s = &mut spectator;
    // The boards run side by side.
    play(p, s, 0, "e2e4").await;
    play(p, s, 2, "e2e4").await;
    play(p, s, 1, "e7e5").await;
    play(p, s, 3, "d7d5").await;
    play(p, s, 0, "f1c4").await;
    // B-white takes a black pawn: it goes to A-black, B-white's partner, still black.
    let moved = play(p, s, 2, "e4d5").await;
    assert_eq!(moved["state"]["A"]["pockets"]["black"], "p");
    assert_eq!(moved["state"]["B"]["pockets"]["white"], "");
    play(p, s, 1, "b8c6").await;
    play(p, s, 0, "d1h5").await;
    // A-black drops the pawn it received.
    let moved = play(p, s, 1, "P@f6").await;
    assert_eq!(moved["state"]["A"]["pockets"]["black"], "");
    // A pawn cannot be dropped on the first rank (refused, nothing changes).
    p[3].send(json!({"type": "move", "move": {"uci": "P@d1"}})).await;
    let refused = p[3].until("error").await;
    assert_eq!(refused["code"], "illegal_move");
    // Queen takes f7: a contact check no drop can block, protected by the bishop: mate.
    play(p, s, 0, "h5f7").await;
    let over = s.until("game_over").await;
    assert_eq!(over["result"]["outcome"], "win");
    assert_eq!(
        over["result"]["winners"],
        json!([0, 3]),
        "A-white and B-black win together"
    );
    assert_eq!(over["result"]["reason"], "checkmate");
    assert_eq!(over["result"]["detail"]["board"], "A");
    let (reason, winners, detail): (String, Vec<i16>, Value) =
        sqlx::query_as("SELECT reason, winners, detail FROM results")
            .fetch_one(&app.pool)
            .await
            .expect("stored");
    assert_eq!((reason.as_str(), winners), ("checkmate", vec![0, 3]));
    assert_eq!(detail["board"], "A");
    let moves: i64 = sqlx::query_scalar("SELECT count(*) FROM moves")
        .fetch_one(&app.pool)
        .await
        .expect("count");
    assert_eq!(moves, 10);
}

#[tokio::test]
async fn team_messages_reach_only_the_partner() {
    let app = spawn_app().await;
    let (mut players, mut spectator) = match_table(&app).await;
    players[0].send(json!({"type": "team_chat", "text": "need N"})).await;
    let heard = players[3].until("team_chat").await;
    assert_eq!(
        (heard["seat"].clone(), heard["text"].clone()),
        (json!(0), json!("need N"))
    );
    assert_eq!(
        players[0].until("team_chat").await["text"],
        "need N",
        "the sender's own tabs see it"
    );
    let [_, opponent_a, opponent_b, _] = &mut players[..] else {
        unreachable!("four players")
    };
    for client in [opponent_a, opponent_b, &mut spectator] {
        let seen = client.sync().await;
        assert!(seen.iter().all(|m| m["type"] != "team_chat"), "{seen:?}");
    }
}

#[tokio::test]
async fn a_blockable_check_is_not_mate_and_everyone_must_agree_to_a_draw() {
    let app = spawn_app().await;
    let (mut players, mut spectator) = match_table(&app).await;
    let p = &mut players;
    let s = &mut spectator;
    // Fool's mate on board B is only check in bughouse: a drop could block on f2 or g3.
    play(p, s, 2, "f2f3").await;
    play(p, s, 3, "e7e5").await;
    play(p, s, 2, "g2g4").await;
    let moved = play(p, s, 3, "d8h4").await;
    assert_eq!(moved["state"]["B"]["check"], true);
    assert_eq!(
        moved["to_move"],
        json!([0, 2]),
        "B-white waits for a piece, clock running"
    );
    // Three of four agreeing is not a draw; the fourth makes it one.
    p[0].send(json!({"type": "offer_draw"})).await;
    s.until("draw_offered").await;
    for seat in [1, 2] {
        p[seat].send(json!({"type": "accept_draw"})).await;
        assert_eq!(s.until("draw_offered").await["seat"], seat);
    }
    p[3].send(json!({"type": "accept_draw"})).await;
    let over = s.until("game_over").await;
    assert_eq!(
        (over["result"]["outcome"].clone(), over["result"]["reason"].clone()),
        (json!("draw"), json!("draw_agreed"))
    );
}

/// Issue 35: a table's house rules travel in its settings, show in the snapshot, and the
/// table refuses the drops they forbid with the rule, changing nothing.
#[tokio::test]
async fn a_table_s_house_rules_refuse_the_drops_they_forbid() {
    let app = spawn_app().await;
    // Board A: a smothered mate is one knight drop away (N@f7); board B as usual.
    let start = json!({
        "A": "6rk/6pp/8/8/8/8/8/4K3[NN] w - - 0 1",
        "B": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    });
    let settings = json!({"seating": "chosen", "start_position": start, "drop_checks": "no_mate",
                          "captured_promoted": "piece"});
    let created = app
        .create_table(json!({"game": "bughouse", "settings": settings}))
        .await;
    let created_settings = &created["table"]["settings"];
    assert_eq!(created_settings["drop_checks"], "no_mate", "{created}");
    assert_eq!(created_settings["captured_promoted"], "piece");
    assert!(
        created_settings.get("pawn_drops_on_seventh").is_none(),
        "defaults are not written"
    );
    let table = created["id"].as_str().expect("an id").to_owned();
    let mut players = app.seat_bughouse(&table).await;
    players[0].until("game_started").await;
    players[0].send(json!({"type": "move", "move": {"uci": "N@f7"}})).await;
    let refused = players[0].until("error").await;
    assert_eq!(refused["rule"], "drop_gives_mate", "{refused}");
    let legal = app.snapshot(&table).await;
    assert_eq!(legal["moves"], json!([]), "nothing changed");
    // A checking drop that does not mate is allowed.
    players[0].send(json!({"type": "move", "move": {"uci": "N@g6"}})).await;
    let moved = players[1].until("moved").await;
    assert_eq!(moved["move"]["uci"], "N@g6", "{moved}");
    assert_eq!(moved["state"]["A"]["check"], true);
    // Invalid values are refused at creation, naming the field.
    let response = reqwest::Client::new()
        .post(app.http("/api/tables"))
        .json(&json!({"game": "bughouse", "settings": {"drop_checks": "sometimes"}}))
        .send()
        .await
        .expect("POST");
    assert_eq!(response.status(), 400);
    let body: Value = response.json().await.expect("JSON");
    assert_eq!(body["error"]["field"], "settings.drop_checks", "{body}");
}

/// Issue 35: a Bughouse 960 table shows the position its first game will start from before
/// anyone sits, starts both boards from it, castles king-takes-rook, and a restart rebuilds
/// the game on the same position with its moves.
#[tokio::test]
async fn a_960_table_draws_its_start_shows_it_and_keeps_it_across_a_restart() {
    let app = spawn_app().await;
    let created = app
        .create_table(json!({"game": "bughouse", "settings": {"seating": "chosen", "chess960": true}}))
        .await;
    let table = created["id"].as_str().expect("an id").to_owned();
    let before = &created["table"]["state"];
    let number = before["chess960"].as_u64().expect("the position to come");
    assert!(number < 960, "{before}");
    assert_eq!(before["A"]["fen"], before["B"]["fen"]);
    let mut players = app.seat_bughouse(&table).await;
    let started = players[0].until("game_started").await;
    assert_eq!(started["state"]["chess960"], json!(number), "{started}");
    assert_eq!(
        started["state"]["A"]["fen"], before["A"]["fen"],
        "the start shown before"
    );
    // A pawn move on each board, then the app restarts.
    for (seat, uci) in [(0, "b2b3"), (2, "g2g3")] {
        players[seat].send(json!({"type": "move", "move": {"uci": uci}})).await;
        players[seat].until("moved").await;
    }
    let fen_a = app.snapshot(&table).await["state"]["A"]["fen"].clone();
    drop(players);
    let app = app.restart().await;
    let after = app.snapshot(&table).await;
    assert_eq!(after["state"]["chess960"], json!(number), "{after}");
    assert_eq!(after["state"]["A"]["fen"], fen_a, "the same position and moves");
    assert_eq!(after["moves"].as_array().map(Vec::len), Some(2));
}
