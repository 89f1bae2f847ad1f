//! Rotating Bughouse tables over real sockets: more people than seats, a queue in order
//! of arrival, who steps out after each game (`rotate`, `winners_stay`, bots and the away
//! first), the queue and the last game's seats kept across a restart, and each person's
//! standings.

mod common;

use std::collections::HashMap;

use common::{Client, TestApp, spawn_app};
use serde_json::{Value, json};

/// A rotating Bughouse table whose next game follows at once.
async fn rotating_table(app: &TestApp, rotation: &str, extra: Value) -> String {
    let mut settings = json!({"seating": "chosen", "rotation": rotation, "series_pause_seconds": 0});
    if let (Some(settings), Some(extra)) = (settings.as_object_mut(), extra.as_object()) {
        settings.extend(extra.clone());
    }
    let created = app
        .create_table(json!({"game": "bughouse", "settings": settings}))
        .await;
    created["id"].as_str().expect("id").to_owned()
}

/// A person at the table: their connection and token.
struct Person {
    client: Client,
    token: String,
}

/// Seats four people (named `names`, seats 0–3 in order) and returns them by name.
async fn seat_four(app: &TestApp, table: &str, names: [&str; 4]) -> HashMap<String, Person> {
    let mut people = HashMap::new();
    for (seat, name) in names.iter().enumerate() {
        let mut client = app.client(table).await;
        let token = client.hello().await;
        client.send(json!({"type": "sit", "seat": seat, "name": name})).await;
        client.until("seated").await;
        people.insert((*name).to_owned(), Person { client, token });
    }
    people
}

/// A person joins the queue under `name`; returns them after their place was confirmed.
async fn queue_up(app: &TestApp, table: &str, name: &str, place: u64) -> Person {
    let mut client = app.client(table).await;
    let token = client.hello().await;
    client.send(json!({"type": "join_queue", "name": name})).await;
    let welcome = client.until("welcome").await;
    assert_eq!(welcome["queue_place"], place, "{welcome}");
    Person { client, token }
}

/// The names in a list of seats, by seat.
fn seated(seats: &Value) -> Vec<String> {
    seats
        .as_array()
        .expect("seats")
        .iter()
        .map(|seat| seat["player"]["name"].as_str().unwrap_or("-").to_owned())
        .collect()
}

fn queue_names(queue: &Value) -> Vec<String> {
    queue
        .as_array()
        .expect("queue")
        .iter()
        .map(|w| w["name"].as_str().expect("name").to_owned())
        .collect()
}

/// Reads until a `queue` event lists exactly `names` (others may come before it, as
/// people come and go).
async fn until_queue(client: &mut Client, names: &[&str]) -> Value {
    loop {
        let queue = client.until("queue").await;
        if queue_names(&queue["queue"]) == names {
            return queue;
        }
    }
}

/// Reads everything each person's connection was sent so far (so none falls behind).
async fn drain(people: &mut HashMap<String, Person>) {
    for person in people.values_mut() {
        person.client.sync().await;
    }
}

#[tokio::test]
async fn six_people_play_ten_games_in_turn_and_everyone_plays() {
    let app = spawn_app().await;
    let table = rotating_table(&app, "rotate", json!({})).await;
    let mut watcher = app.client(&table).await;
    let mut people = seat_four(&app, &table, ["Ada", "Bo", "Cy", "Di"]).await;
    let mut seats = seated(&watcher.until("game_started").await["seats"]);
    for (name, place) in [("Eve", 1), ("Fay", 2)] {
        let person = queue_up(&app, &table, name, place).await;
        people.insert(name.to_owned(), person);
    }
    let mut queue = vec!["Eve".to_owned(), "Fay".to_owned()];
    let mut in_a_row: HashMap<String, u32> = seats.iter().map(|n| (n.clone(), 1)).collect();
    let mut played: HashMap<String, u32> = seats.iter().map(|n| (n.clone(), 1)).collect();
    for game in 1..=10 {
        // The player in seat 0 resigns: seats 1 and 2 win.
        let resigner = people.get_mut(&seats[0]).expect("seat 0's person");
        resigner.client.send(json!({"type": "resign", "seat": 0})).await;
        let over = watcher.until("game_over").await;
        assert_eq!(over["result"]["winners"], json!([1, 2]), "game {game}: {over}");
        let rotated = watcher.until("rotated").await;
        // The two who played the most games in a row stepped out (the lower seat first
        // among equals) and the first two waiting came in.
        let mut longest: Vec<(usize, &String)> = seats.iter().enumerate().collect();
        longest.sort_by(|a, b| in_a_row[b.1].cmp(&in_a_row[a.1]).then(a.0.cmp(&b.0)));
        let expected_out: Vec<String> = longest.iter().take(2).map(|(_, n)| (*n).clone()).collect();
        assert_eq!(rotated["stepped_out"], json!(expected_out), "game {game}: {rotated}");
        assert_eq!(rotated["came_in"], json!(queue[..2]), "game {game}: {rotated}");
        let next = seated(&rotated["seats"]);
        let next_queue: Vec<String> = queue[2..].iter().cloned().chain(expected_out.iter().cloned()).collect();
        assert_eq!(queue_names(&rotated["queue"]), next_queue, "game {game}");
        // Each standing counts this game.
        let standings = rotated["standings"].as_array().expect("standings");
        let total: u64 = standings.iter().map(|s| s["played"].as_u64().expect("played")).sum();
        assert_eq!(total, 4 * game, "game {game}: {rotated}");
        if game == 10 {
            break;
        }
        let started = watcher.until("game_started").await;
        assert_eq!(seated(&started["seats"]), next, "game {}", game + 1);
        for name in &next {
            *played.entry(name.clone()).or_default() += 1;
            let streak = in_a_row.entry(name.clone()).or_default();
            *streak = if seats.contains(name) { *streak + 1 } else { 1 };
        }
        in_a_row.retain(|name, _| next.contains(name));
        seats = next;
        queue = next_queue;
        drain(&mut people).await;
    }
    // Everyone played, and nobody twice as often as another.
    assert_eq!(played.len(), 6, "{played:?}");
    let (fewest, most) = (played.values().min().copied(), played.values().max().copied());
    assert!(fewest >= Some(6) && most <= Some(7), "{played:?}");
    // The table's standings: every person, 40 places in ten games, wins and losses alike.
    let snapshot = app.snapshot(&table).await;
    let standings = snapshot["rotation"]["standings"].as_array().expect("standings").clone();
    assert_eq!(standings.len(), 6, "{snapshot}");
    let won: u64 = standings.iter().map(|s| s["won"].as_u64().expect("won")).sum();
    let lost: u64 = standings.iter().map(|s| s["lost"].as_u64().expect("lost")).sum();
    assert_eq!((won, lost), (20, 20));
    let points: Vec<u64> = standings
        .iter()
        .map(|s| s["points"].as_u64().expect("points"))
        .collect();
    assert!(points.windows(2).all(|w| w[0] >= w[1]), "best first: {points:?}");
    assert_eq!(snapshot["rotation"]["mode"], "rotate");
}

#[tokio::test]
async fn the_queue_survives_a_restart_a_person_leaving_it_is_dropped_and_the_losers_step_out() {
    let app = spawn_app().await;
    let table = rotating_table(&app, "winners_stay", json!({})).await;
    let people = seat_four(&app, &table, ["Ada", "Bo", "Cy", "Di"]).await;
    let mut waiting = Vec::new();
    for (place, name) in ["Eve", "Fay", "Gus"].iter().enumerate() {
        waiting.push(queue_up(&app, &table, name, place as u64 + 1).await);
    }
    let tokens: HashMap<String, String> = people
        .iter()
        .map(|(name, p)| (name.clone(), p.token.clone()))
        .chain(
            ["Eve", "Fay", "Gus"]
                .iter()
                .zip(&waiting)
                .map(|(n, p)| ((*n).to_owned(), p.token.clone())),
        )
        .collect();
    drop(people);
    drop(waiting);
    let app = app.restart().await;
    let snapshot = app.snapshot(&table).await;
    assert_eq!(
        queue_names(&snapshot["rotation"]["queue"]),
        ["Eve", "Fay", "Gus"],
        "{snapshot}"
    );
    assert_eq!(snapshot["status"], "playing");
    // Everyone comes back with their token.
    let mut back: HashMap<String, Client> = HashMap::new();
    for name in ["Ada", "Bo", "Cy", "Di", "Eve", "Fay", "Gus"] {
        let mut client = app.client(&table).await;
        client.send(json!({"type": "hello", "token": tokens[name]})).await;
        let welcome = client.until("welcome").await;
        if name == "Fay" {
            assert_eq!(welcome["queue_place"], 2, "{welcome}");
        }
        back.insert(name.to_owned(), client);
    }
    // Fay leaves the queue: she is dropped and Gus moves up.
    let fay = back.get_mut("Fay").expect("Fay");
    fay.send(json!({"type": "leave_queue"})).await;
    until_queue(fay, &["Eve", "Gus"]).await;
    assert!(fay.until("welcome").await.get("queue_place").is_none());
    fay.send(json!({"type": "leave_queue"})).await;
    fay.expect_error("not_queued").await;
    // Seat 0 (Ada, with Di) resigns: the losers step out, Eve and Gus take their seats.
    let ada = back.get_mut("Ada").expect("Ada");
    ada.send(json!({"type": "resign", "seat": 0})).await;
    let rotated = ada.until("rotated").await;
    assert_eq!(seated(&rotated["seats"]), ["Eve", "Bo", "Cy", "Gus"], "{rotated}");
    assert_eq!(queue_names(&rotated["queue"]), ["Ada", "Di"]);
    let started = ada.until("game_started").await;
    assert_eq!(seated(&started["seats"]), ["Eve", "Bo", "Cy", "Gus"]);
    // Stored: a second restart reads the same queue and seats.
    drop(back);
    let app = app.restart().await;
    let snapshot = app.snapshot(&table).await;
    assert_eq!(queue_names(&snapshot["rotation"]["queue"]), ["Ada", "Di"]);
    assert_eq!(seated(&snapshot["seats"]), ["Eve", "Bo", "Cy", "Gus"]);
    // Standings read back from the games: Bo and Cy won one, Ada and Di lost one.
    let standings = snapshot["rotation"]["standings"].as_array().expect("standings").clone();
    let record: HashMap<&str, (u64, u64)> = standings
        .iter()
        .map(|s| {
            (
                s["name"].as_str().expect("name"),
                (s["won"].as_u64().expect("won"), s["played"].as_u64().expect("played")),
            )
        })
        .collect();
    assert_eq!(record.get("Bo"), Some(&(1, 1)));
    assert_eq!(record.get("Ada"), Some(&(0, 1)));
    assert_eq!(record.len(), 4, "{standings:?}");
}

#[tokio::test]
async fn a_person_away_when_called_is_skipped_and_the_game_goes_on() {
    let app = spawn_app().await;
    let table = rotating_table(&app, "winners_stay", json!({})).await;
    let mut watcher = app.client(&table).await;
    let mut people = seat_four(&app, &table, ["Ada", "Bo", "Cy", "Di"]).await;
    watcher.until("game_started").await;
    let eve = queue_up(&app, &table, "Eve", 1).await;
    let mut fay = queue_up(&app, &table, "Fay", 2).await;
    // Eve, first in the queue, goes away; so does Bo, a winner of the game to come.
    eve.client.close().await;
    // Everyone sees that Eve is away.
    let away = json!([{"name": "Eve", "connected": false}, {"name": "Fay", "connected": true}]);
    while watcher.until("queue").await["queue"] != away {}
    if let Some(bo) = people.remove("Bo") {
        bo.client.close().await;
    }
    let ada = people.get_mut("Ada").expect("Ada");
    ada.client.send(json!({"type": "resign", "seat": 0})).await;
    // Only Fay is here to come in: she takes the seat of the loser in the lower seat
    // (Ada); Eve keeps her place.
    let rotated = watcher.until("rotated").await;
    assert_eq!(seated(&rotated["seats"]), ["Fay", "Bo", "Cy", "Di"], "{rotated}");
    assert_eq!(queue_names(&rotated["queue"]), ["Eve", "Ada"]);
    // Bo is away when the next game is called: it waits for him once, then Ada (the
    // first here in the queue) takes his seat.
    let call = watcher.until("next_game_in").await;
    assert_eq!(call["ms"], 0, "{call}");
    let grace = watcher.until("next_game_in").await;
    assert_eq!(grace["ms"], 10_000, "{grace}");
    let rotated = watcher.until("rotated").await;
    assert_eq!(rotated["stepped_out"], json!(["Bo"]));
    assert_eq!(seated(&rotated["seats"]), ["Fay", "Ada", "Cy", "Di"]);
    assert_eq!(queue_names(&rotated["queue"]), ["Eve"]);
    let started = watcher.until("game_started").await;
    assert_eq!(seated(&started["seats"]), ["Fay", "Ada", "Cy", "Di"]);
    fay.client.until("game_started").await;
}

#[tokio::test]
async fn a_bot_steps_out_for_a_person_who_waits() {
    let app = spawn_app().await;
    let table = rotating_table(&app, "winners_stay", json!({"bots": {"3": "easy"}})).await;
    let mut watcher = app.client(&table).await;
    let mut people = HashMap::new();
    for (seat, name) in ["Ada", "Bo", "Cy"].iter().enumerate() {
        let mut client = app.client(&table).await;
        client.hello().await;
        client.send(json!({"type": "sit", "seat": seat, "name": name})).await;
        client.until("seated").await;
        people.insert(*name, client);
    }
    watcher.until("game_started").await;
    let _eve = queue_up(&app, &table, "Eve", 1).await;
    // Bo's team (seats 1 and 2) resigns: the bot was on the winning side, and still
    // steps out first; no loser has to.
    let bo = people.get_mut("Bo").expect("Bo");
    bo.send(json!({"type": "resign", "seat": 1})).await;
    let rotated = watcher.until("rotated").await;
    assert_eq!(seated(&rotated["seats"]), ["Ada", "Bo", "Cy", "Eve"], "{rotated}");
    assert_eq!(rotated["stepped_out"], json!(["Computer (easy)"]));
    assert_eq!(rotated["queue"], json!([]));
    let started = watcher.until("game_started").await;
    assert!(started["seats"][3]["player"].get("bot").is_none(), "{started}");
}

#[tokio::test]
async fn queue_requests_out_of_place_are_refused_and_change_nothing() {
    let app = spawn_app().await;
    // A table where the same players play on has no queue.
    let fixed = app
        .create_table(json!({"game": "bughouse", "settings": {"seating": "chosen"}}))
        .await;
    let mut visitor = app.client(fixed["id"].as_str().expect("id")).await;
    visitor.send(json!({"type": "join_queue", "name": "Eve"})).await;
    visitor.expect_error("no_queue").await;

    let table = rotating_table(&app, "rotate", json!({})).await;
    let mut early = app.client(&table).await;
    early.hello().await;
    early.send(json!({"type": "join_queue"})).await;
    early.expect_error("seat_free").await;
    let mut people = seat_four(&app, &table, ["Ada", "Bo", "Cy", "Di"]).await;
    let ada = people.get_mut("Ada").expect("Ada");
    ada.client.sync().await;
    ada.client.send(json!({"type": "join_queue"})).await;
    ada.client.expect_error("already_seated").await;
    early.sync().await;
    early.send(json!({"type": "join_queue", "name": "ada"})).await;
    // A name already at the table is told apart.
    let queue = early.until("queue").await;
    assert_eq!(queue_names(&queue["queue"]), ["ada (2)"]);
    // Waiting is not watching: nobody here only watches.
    assert_eq!(app.snapshot(&table).await["spectators"], 0);
    early.sync().await;
    early.send(json!({"type": "join_queue"})).await;
    early.expect_error("already_queued").await;
    // A person waiting chats with the table (no seat); one only watching does not.
    early.send(json!({"type": "chat", "text": "next!"})).await;
    let line = ada.client.until("chat").await;
    assert_eq!(
        (line["seat"].clone(), line["name"].clone()),
        (Value::Null, json!("ada (2)")),
        "{line}"
    );
    let mut watcher = app.client(&table).await;
    watcher.hello().await;
    watcher.send(json!({"type": "chat", "text": "hi"})).await;
    watcher.expect_error("not_seated").await;
    early.sync().await;
    early.send(json!({"type": "leave_queue"})).await;
    early.until("queue").await;
    early.sync().await;
    early.send(json!({"type": "leave_queue"})).await;
    early.expect_error("not_queued").await;
    let snapshot = app.snapshot(&table).await;
    assert_eq!(snapshot["rotation"]["queue"], json!([]));
    assert_eq!(snapshot["status"], "playing");
    // Bad settings are refused with the field named.
    let refused = app
        .refused_table(json!({"game": "gomoku", "settings": {"rotation": "rotate"}}))
        .await;
    assert_eq!(refused["error"]["field"], "settings.rotation", "{refused}");
}

/// A `winners_stay` table with a two-minute pause between games: Ada, Bo and Cy in seats
/// 0–2 and an easy bot in seat 3, their first game started. The table, a watcher's
/// connection and the three people's.
async fn three_people_and_a_bot(app: &TestApp) -> (String, Client, Vec<Client>) {
    let table = rotating_table(
        app,
        "winners_stay",
        json!({"bots": {"3": "easy"}, "series_pause_seconds": 120}),
    )
    .await;
    let mut watcher = app.client(&table).await;
    let mut people = Vec::new();
    for (seat, name) in (0u8..).zip(["Ada", "Bo", "Cy"]) {
        let mut client = app.client(&table).await;
        client.hello().await;
        client.sit(seat, name).await;
        people.push(client);
    }
    watcher.until("game_started").await;
    (table, watcher, people)
}

#[tokio::test]
async fn between_games_a_snapshot_keeps_the_seats_that_played_the_last_game() {
    let app = spawn_app().await;
    let (table, mut watcher, mut people) = three_people_and_a_bot(&app).await;
    assert!(
        app.snapshot(&table).await["rotation"].get("result_seats").is_none(),
        "not during a game"
    );
    let mut eve = queue_up(&app, &table, "Eve", 1).await;
    people[1].send(json!({"type": "resign", "seat": 1})).await;
    let rotated = watcher.until("rotated").await;
    assert_eq!(seated(&rotated["seats"]), ["Ada", "Bo", "Cy", "Eve"], "{rotated}");
    // A page loaded now: today's seats, and the seats of the game whose result it shows.
    let snapshot = app.snapshot(&table).await;
    assert_eq!(seated(&snapshot["seats"]), ["Ada", "Bo", "Cy", "Eve"], "{snapshot}");
    assert_eq!(
        seated(&snapshot["rotation"]["result_seats"]),
        ["Ada", "Bo", "Cy", "Computer (easy)"],
        "{snapshot}"
    );
    assert!(snapshot["result"].is_object(), "{snapshot}");
    // Everyone ready: the next game starts and the old seats are gone from the snapshot.
    for client in people.iter_mut().chain(std::iter::once(&mut eve.client)) {
        client.send(json!({"type": "ready"})).await;
    }
    watcher.until("game_started").await;
    assert!(app.snapshot(&table).await["rotation"].get("result_seats").is_none());
}

#[tokio::test]
async fn a_restart_between_games_keeps_the_seats_that_played_the_last_game() {
    let app = spawn_app().await;
    let (table, mut watcher, mut people) = three_people_and_a_bot(&app).await;
    let eve = queue_up(&app, &table, "Eve", 1).await;
    people[1].send(json!({"type": "resign", "seat": 1})).await;
    let rotated = watcher.until("rotated").await;
    assert_eq!(seated(&rotated["seats"]), ["Ada", "Bo", "Cy", "Eve"], "{rotated}");
    drop((watcher, people, eve));
    // Restarted in the pause: the seats of the game whose result the page shows are read
    // back from the stored game (names and bots), beside today's seats.
    let app = app.restart().await;
    let snapshot = app.snapshot(&table).await;
    assert_eq!(seated(&snapshot["seats"]), ["Ada", "Bo", "Cy", "Eve"], "{snapshot}");
    let played = &snapshot["rotation"]["result_seats"];
    assert_eq!(seated(played), ["Ada", "Bo", "Cy", "Computer (easy)"], "{snapshot}");
    assert_eq!(played[3]["player"]["bot"], "easy", "{snapshot}");
    assert_eq!(played[0]["role"], snapshot["seats"][0]["role"], "{snapshot}");
    assert!(played[0]["player"].get("bot").is_none(), "{snapshot}");
    assert!(snapshot["result"].is_object(), "{snapshot}");
}

/// Makes every write of a seat fail in the app's database (`on`), or stops that.
async fn refuse_seat_writes(app: &TestApp, on: bool) {
    let statements: &[&'static str] = if on {
        &[
            "CREATE FUNCTION refuse_seat() RETURNS trigger LANGUAGE plpgsql AS
             $$ BEGIN RAISE EXCEPTION 'seat writes refused by the test'; END $$",
            "CREATE TRIGGER refuse_seat BEFORE INSERT ON seats FOR EACH ROW EXECUTE FUNCTION refuse_seat()",
        ]
    } else {
        &["DROP TRIGGER refuse_seat ON seats", "DROP FUNCTION refuse_seat()"]
    };
    for statement in statements {
        sqlx::query(*statement).execute(&app.pool).await.expect(statement);
    }
}

#[tokio::test]
async fn a_game_ends_only_with_its_rotation_stored_so_a_restart_never_seats_the_same_four_again() {
    let app = spawn_app().await;
    let (table, mut watcher, mut people) = three_people_and_a_bot(&app).await;
    let eve = queue_up(&app, &table, "Eve", 1).await;
    // The next seating cannot be stored: neither is the result, and the game goes on.
    refuse_seat_writes(&app, true).await;
    people[1].send(json!({"type": "resign", "seat": 1})).await;
    let refused = people[1].until("error").await;
    assert_eq!(refused["code"], "storage_unavailable", "{refused}");
    let snapshot = app.snapshot(&table).await;
    assert_eq!(snapshot["status"], "playing", "{snapshot}");
    assert_eq!(seated(&snapshot["seats"]), ["Ada", "Bo", "Cy", "Computer (easy)"]);
    refuse_seat_writes(&app, false).await;
    // Now it can: the resignation ends the game and the bot steps out for Eve.
    people[1].send(json!({"type": "resign", "seat": 1})).await;
    watcher.until("game_over").await;
    let rotated = watcher.until("rotated").await;
    assert_eq!(seated(&rotated["seats"]), ["Ada", "Bo", "Cy", "Eve"], "{rotated}");
    drop((watcher, people, eve));
    // Whatever moment a restart comes, the result and the seating it led to come back
    // together.
    let app = app.restart().await;
    let snapshot = app.snapshot(&table).await;
    assert!(snapshot["result"].is_object(), "{snapshot}");
    assert_eq!(seated(&snapshot["seats"]), ["Ada", "Bo", "Cy", "Eve"], "{snapshot}");
    assert_eq!(
        queue_names(&snapshot["rotation"]["queue"]),
        Vec::<String>::new(),
        "{snapshot}"
    );
}
