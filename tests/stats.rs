//! `GET /api/stats/{game}`: won-game statistics over a seeded set of results stored
//! through the real store (every variant, reason and side; aborted games, set-up positions
//! and other games left out; bots filtered with `?humans=true`), exact to the count and the
//! tenth of a percent; unknown games and bad parameters refused.

mod common;

use common::{TestApp, spawn_app};
use serde_json::{Value, json};
use spelbord::games::{EndReason, GameResult, Outcome, Seat};
use spelbord::store::Store;
use spelbord::store::games::{PlayerRecord, ResultRecord};
use uuid::Uuid;

/// Stores finished games at one table, numbered from 1.
struct Seeder {
    store: Store,
    table: String,
    roles: &'static [&'static str],
    /// A bot's strength per seat (`None`: a person).
    bots: Vec<Option<&'static str>>,
    number: u32,
}

impl Seeder {
    async fn new(app: &TestApp, game: &str, settings: Value, roles: &'static [&'static str]) -> Seeder {
        let created = app.create_table(json!({"game": game, "settings": settings})).await;
        Seeder {
            store: Store::new(app.pool.clone()),
            table: created["id"].as_str().unwrap().to_owned(),
            roles,
            bots: vec![None; roles.len()],
            number: 0,
        }
    }

    /// Stores one game with its result: won by `winners`, or drawn (empty winners and
    /// `draw`), or aborted.
    async fn game(&mut self, result: GameResult, reason: EndReason) {
        self.number += 1;
        let id = Uuid::new_v4();
        let players: Vec<PlayerRecord> = self
            .roles
            .iter()
            .enumerate()
            .map(|(seat, role)| {
                let bot = self.bots[seat];
                PlayerRecord {
                    seat: seat as Seat,
                    role: (*role).to_owned(),
                    player_key: bot.is_none().then(|| vec![seat as u8; 32]),
                    name: format!("P{seat}"),
                    bot: bot.map(Into::into),
                    side: u8::from(seat % 3 != 0),
                }
            })
            .collect();
        let link = common::single_game_series(self.number);
        self.store
            .start_game(id, &self.table, self.number, &players, None, &link)
            .await
            .unwrap();
        let outcome = Outcome {
            result,
            reason,
            detail: Value::Null,
        };
        let record = ResultRecord {
            outcome: &outcome,
            move_count: 9,
            series: None,
            rating: None,
            rotation: None,
        };
        self.store.finish_game(id, record).await.unwrap();
    }
}

fn win(seats: &[Seat]) -> GameResult {
    GameResult::Win {
        winners: seats.to_vec(),
    }
}

async fn stats(app: &TestApp, path: &str) -> (u16, Value) {
    let response = reqwest::get(app.http(path)).await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap())
}

/// A share as the API gives it.
fn share(count: u64, percent: f64) -> Value {
    json!({"count": count, "percent": percent})
}

/// The variant of `stats` whose settings are `settings`.
fn variant(stats: &Value, settings: Value) -> &Value {
    stats["variants"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["settings"] == settings)
        .unwrap_or_else(|| panic!("no variant {settings} in {stats}"))
}

#[tokio::test]
async fn statistics_over_seeded_results_are_exact() {
    let app = spawn_app().await;
    const GOMOKU: &[&str] = &["X", "O"];
    // Free-style on 15 × 15, people only: two fives for X, a resignation by X, a draw, and
    // an aborted game (not counted).
    let mut free15 = Seeder::new(&app, "gomoku", json!({}), GOMOKU).await;
    free15.game(win(&[0]), EndReason::FiveInARow).await;
    free15.game(win(&[0]), EndReason::FiveInARow).await;
    free15.game(win(&[1]), EndReason::Resignation).await;
    free15.game(GameResult::Draw, EndReason::DrawAgreed).await;
    free15.game(GameResult::Aborted, EndReason::Aborted).await;
    // Free-style on 19 × 19: O on time, X by resignation.
    let mut free19 = Seeder::new(&app, "gomoku", json!({"board_size": 19}), GOMOKU).await;
    free19.game(win(&[1]), EndReason::Time).await;
    free19.game(win(&[0]), EndReason::Resignation).await;
    // Exactly five on 15 × 15 against the computer in seat 1: one five each.
    let mut exact5 = Seeder::new(
        &app,
        "gomoku",
        json!({"variant": "exact5", "seating": "chosen"}),
        GOMOKU,
    )
    .await;
    exact5.bots = vec![None, Some("easy")];
    exact5.game(win(&[0]), EndReason::FiveInARow).await;
    exact5.game(win(&[1]), EndReason::FiveInARow).await;
    // Another game's results do not count for Gomoku.
    let mut krux = Seeder::new(&app, "krux", json!({}), &["white", "black"]).await;
    krux.game(win(&[1]), EndReason::Hole).await;

    let (status, all) = stats(&app, "/api/stats/gomoku").await;
    assert_eq!(status, 200, "{all}");
    assert_eq!(all["game"], "gomoku");
    assert_eq!(all["humans_only"], false);
    assert_eq!(
        all["sides"],
        json!({"first": {"seats": [0], "roles": ["X"]}, "second": {"seats": [1], "roles": ["O"]}})
    );
    assert_eq!(all["variant_settings"], json!(["variant", "board_size"]));
    // 8 counted: X won 4, O won 3, one draw.
    let total = &all["total"];
    assert_eq!(total["games"], 8);
    assert_eq!(total["first_wins"], share(4, 50.0));
    assert_eq!(total["second_wins"], share(3, 37.5));
    assert_eq!(total["draws"], share(1, 12.5));
    assert_eq!(
        total["by_reason"],
        json!([
            {"reason": "five_in_a_row", "games": 4, "percent": 50.0, "first_wins": 3, "second_wins": 1, "draws": 0},
            {"reason": "resignation", "games": 2, "percent": 25.0, "first_wins": 1, "second_wins": 1, "draws": 0},
            {"reason": "draw_agreed", "games": 1, "percent": 12.5, "first_wins": 0, "second_wins": 0, "draws": 1},
            {"reason": "time", "games": 1, "percent": 12.5, "first_wins": 0, "second_wins": 1, "draws": 0},
        ])
    );
    assert_eq!(all["variants"].as_array().unwrap().len(), 3, "{all}");
    let free = variant(&all, json!({"variant": "free", "board_size": 15}));
    assert_eq!(free["games"], 4);
    assert_eq!(free["first_wins"], share(2, 50.0));
    assert_eq!(free["second_wins"], share(1, 25.0));
    assert_eq!(free["draws"], share(1, 25.0));
    assert_eq!(
        free["by_reason"][0],
        json!({"reason": "five_in_a_row", "games": 2, "percent": 50.0, "first_wins": 2, "second_wins": 0, "draws": 0})
    );
    let big = variant(&all, json!({"variant": "free", "board_size": 19}));
    assert_eq!(big["games"], 2);
    assert_eq!(big["first_wins"], share(1, 50.0));
    assert_eq!(big["second_wins"], share(1, 50.0));
    let exact = variant(&all, json!({"variant": "exact5", "board_size": 15}));
    assert_eq!(exact["games"], 2);
    assert_eq!(exact["draws"], share(0, 0.0));

    // Between people only: the games against the computer go.
    let (status, humans) = stats(&app, "/api/stats/gomoku?humans=true").await;
    assert_eq!(status, 200);
    assert_eq!(humans["humans_only"], true);
    assert_eq!(humans["total"]["games"], 6);
    assert_eq!(humans["total"]["first_wins"], share(3, 50.0));
    assert_eq!(humans["total"]["second_wins"], share(2, 33.3));
    assert_eq!(humans["total"]["draws"], share(1, 16.7));
    assert_eq!(humans["variants"].as_array().unwrap().len(), 2);

    // Krux counts only its own game; a game with no results has none.
    let (_, krux_stats) = stats(&app, "/api/stats/krux").await;
    assert_eq!(krux_stats["total"]["games"], 1);
    assert_eq!(krux_stats["total"]["second_wins"], share(1, 100.0));
    assert_eq!(krux_stats["variants"][0]["settings"], json!({}));
    let (status, none) = stats(&app, "/api/stats/lines-of-action").await;
    assert_eq!(status, 200);
    assert_eq!(none["total"]["games"], 0);
    assert_eq!(none["total"]["first_wins"], share(0, 0.0));
    assert_eq!(none["variants"], json!([]));
}

#[tokio::test]
async fn bughouse_is_counted_by_team_and_set_up_positions_are_left_out() {
    let app = spawn_app().await;
    const BUGHOUSE: &[&str] = &["A-white", "A-black", "B-white", "B-black"];
    let mut bughouse = Seeder::new(&app, "bughouse", json!({}), BUGHOUSE).await;
    bughouse.game(win(&[1, 2]), EndReason::Checkmate).await;
    bughouse.game(win(&[1, 2]), EndReason::Time).await;
    bughouse.game(win(&[0, 3]), EndReason::Checkmate).await;
    // Lines of Action: one game from the standard start, one from a set-up position.
    const LOA: &[&str] = &["black", "white"];
    let mut standard = Seeder::new(&app, "lines-of-action", json!({"simultaneous": "mover-wins"}), LOA).await;
    standard.game(win(&[1]), EndReason::Repetition).await;
    // The standard start with white to move: a set-up position, whose games are not counted.
    let position = ".bbbbbb.w......ww......ww......ww......ww......ww......w.bbbbbb. w";
    let settings = json!({"simultaneous": "mover-wins", "start_position": position});
    let mut problem = Seeder::new(&app, "lines-of-action", settings, LOA).await;
    problem.game(win(&[0]), EndReason::Connected).await;

    let (_, bug) = stats(&app, "/api/stats/bughouse").await;
    assert_eq!(
        bug["sides"],
        json!({"first": {"seats": [0, 3], "roles": ["A-white", "B-black"]},
               "second": {"seats": [1, 2], "roles": ["A-black", "B-white"]}})
    );
    assert_eq!(bug["total"]["games"], 3);
    assert_eq!(bug["total"]["first_wins"], share(1, 33.3));
    assert_eq!(bug["total"]["second_wins"], share(2, 66.7));
    assert_eq!(bug["total"]["by_reason"][0]["reason"], "checkmate");
    assert_eq!(bug["total"]["by_reason"][0]["first_wins"], 1);
    assert_eq!(bug["total"]["by_reason"][0]["second_wins"], 1);

    let (_, loa) = stats(&app, "/api/stats/lines-of-action").await;
    assert_eq!(loa["total"]["games"], 1, "{loa}");
    assert_eq!(loa["total"]["second_wins"], share(1, 100.0));
    assert_eq!(loa["variants"][0]["settings"], json!({"simultaneous": "mover-wins"}));
    assert_eq!(loa["total"]["by_reason"][0]["reason"], "repetition");
}

#[tokio::test]
async fn unknown_games_and_bad_parameters_are_refused() {
    let app = spawn_app().await;
    let (status, body) = stats(&app, "/api/stats/chess").await;
    assert_eq!(status, 404);
    assert_eq!(body["error"]["code"], "unknown_game");
    assert!(body["error"]["message"].as_str().unwrap().contains("gomoku"), "{body}");
    let (status, body) = stats(&app, "/api/stats/gomoku?humans=maybe").await;
    assert_eq!(status, 400);
    assert_eq!(body["error"]["code"], "bad_query");
    assert_eq!(body["error"]["field"], "humans");
    let (status, body) = stats(&app, "/api/stats/gomoku?bots=false").await;
    assert_eq!(status, 400);
    assert_eq!(body["error"]["field"], "bots");
    // The page that shows them.
    let page = reqwest::get(app.http("/stats")).await.unwrap();
    assert_eq!(page.status(), 200);
    assert!(page.text().await.unwrap().contains("/static/js/stats.js"));
    let home = reqwest::get(app.http("/")).await.unwrap().text().await.unwrap();
    assert!(home.contains("href=\"/stats\""));
}

/// The trigger that keeps the counts (migration 0016) groups games by the same settings as
/// `variant_settings` names, for every game.
#[tokio::test]
async fn the_stored_counts_group_by_the_variant_settings_the_code_names() {
    let app = spawn_app().await;
    for game in spelbord::games::GameKind::ALL {
        let settings = json!({
            "variant": "free", "board_size": 15, "simultaneous": "draw",
            "time_control": {"kind": "none"}, "rated": false, "seating": "random",
        });
        let variant: Value = sqlx::query_scalar("SELECT spelbord_stats_variant($1, $2)")
            .bind(game.id())
            .bind(&settings)
            .fetch_one(&app.pool)
            .await
            .expect("the variant function");
        let mut keys: Vec<&str> = variant
            .as_object()
            .expect("an object")
            .keys()
            .map(String::as_str)
            .collect();
        keys.sort_unstable();
        let mut expected = spelbord::store::stats::variant_settings(*game).to_vec();
        expected.sort_unstable();
        assert_eq!(keys, expected, "{}", game.id());
    }
}
