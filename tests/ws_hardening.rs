//! WebSocket hardening, as a hostile (or just unlucky) client finds it: a resume across a
//! long gap, a spectator storm, floods of frames of every kind, the close codes, and a
//! shutdown with many connections open.
//!
//! The spectator storm drives a table actor through its handle under paused time (see
//! `common::actor`), so that "at most one count a second" is exact; everything else talks
//! to the real server over real sockets.

mod common;

use std::time::Duration;

use common::actor::{Seat, paused_store, tables, two_players};
use common::{CLOSE_WITHIN, Client, TestApp, close_code, spawn_app, spawn_app_with};
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio::time::advance;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::frame::Frame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::{Data, OpCode};
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// Opens a WebSocket to `path` (under the server's address) without reading anything.
async fn open(app: &TestApp, path: &str) -> Socket {
    let url = format!("ws://{}{path}", app.addr);
    tokio_tungstenite::connect_async(url)
        .await
        .expect("WebSocket connects")
        .0
}

/// A server whose rate limit the tests' fast senders never reach.
async fn unlimited_app() -> TestApp {
    spawn_app_with(|settings| {
        settings.limits.messages_per_second = 10_000;
        settings.limits.message_burst = 10_000;
        settings.limits.chat_burst = 100_000;
    })
    .await
}

/// The version of the last event `client` has seen (it has read everything before a pong).
async fn seen_version(client: &mut Client) -> u64 {
    client.send(json!({"type": "ping", "ref": "seen"})).await;
    let pong = client.until("pong").await;
    pong["version"].as_u64().expect("a version")
}

// ----- defect 4: spectator churn costs O(1) frames per join -----

/// Every `spectators` event a seat has been sent so far (the table answers a ping after
/// everything it queued before it).
async fn spectator_counts(seat: &mut Seat) -> Vec<u64> {
    seat.sync()
        .await
        .iter()
        .filter(|message| message["type"] == "spectators")
        .map(|message| message["count"].as_u64().expect("a count"))
        .collect()
}

/// Lets a second (and a little more: the timer wheel counts whole milliseconds) pass.
async fn a_second_later() {
    advance(Duration::from_millis(1_010)).await;
}

#[tokio::test]
async fn a_spectator_storm_costs_a_frame_or_two_per_join_and_players_stay_immediate() {
    const STORM: u64 = 200;
    let database = common::TestDb::create().await;
    let store = paused_store(&database).await;
    tokio::time::pause();
    let tables = tables(store).await;
    let (table, first, mut second) = two_players(&tables, "gomoku", json!({"opening": "free"})).await;
    advance(Duration::from_secs(5)).await;
    second.sync().await;

    // 200 spectators arrive within the same instant.
    let mut crowd = Vec::new();
    for n in 0..STORM {
        crowd.push(Seat::join(&table, 100 + n).await);
    }
    let mut during = 0;
    for seat in crowd.iter_mut() {
        during += spectator_counts(seat).await.len();
    }
    during += spectator_counts(&mut second).await.len();
    // The first change after a quiet second is announced at once (to the few connected
    // then); everything after it waits for the next second.
    assert!(during <= 3, "{during} spectator counts sent during the storm");

    // A second later, one count for everyone, with the final number.
    a_second_later().await;
    let mut after = 0;
    for seat in crowd.iter_mut().chain(std::iter::once(&mut second)) {
        let counts = spectator_counts(seat).await;
        assert_eq!(counts, vec![STORM], "one count, the final one");
        after += counts.len();
    }
    let total = u64::try_from(during + after).expect("small");
    assert!(
        total <= 2 * (STORM + 1),
        "{total} spectator frames for {STORM} joins (one per join and connection would be {})",
        STORM * (STORM + 1) / 2
    );

    // A player's own presence is still announced at once, storm or not.
    first.leave().await;
    let away = second.until("presence").await;
    assert_eq!(
        (away["seat"].clone(), away["connected"].clone()),
        (json!(0), json!(false))
    );

    // And the crowd leaving is one count again.
    let leaving: Vec<Seat> = crowd.drain(..150).collect();
    for seat in leaving {
        seat.leave().await;
    }
    a_second_later().await;
    for seat in crowd.iter_mut() {
        assert_eq!(spectator_counts(seat).await, vec![STORM - 150]);
    }
}

// ----- defect 2: a resume across a long gap completes -----

/// Sends chat messages from `client` until the table's version is at least `target` (a
/// spectator count, sent a second after the last change, may land among them: chat lines are
/// stored before they are sent, so the filling can take that long).
async fn chat_until(client: &mut Client, target: u64) {
    let now = seen_version(client).await;
    assert!(now <= target, "already at {now}, past {target}");
    for n in now..target {
        client
            .send(json!({"type": "chat", "text": format!("filler {n}")}))
            .await;
    }
    let reached = seen_version(client).await;
    assert!(
        (target..=target + 2).contains(&reached),
        "at {reached}, wanted {target}"
    );
}

#[tokio::test]
async fn a_resume_hundreds_of_events_behind_completes_and_the_player_plays_on() {
    let app = unlimited_app().await;
    for gap in [10, 100, 255, 256, 300] {
        let table = app.gomoku_table(json!({"seating": "chosen"})).await;
        let ((mut x, x_token), (mut o, _)) = app.two_seated(&table).await;
        let epoch = app.snapshot(&table).await["epoch"].as_u64().expect("an epoch");
        let seen = seen_version(&mut x).await;
        x.close().await;
        o.until("presence").await;
        chat_until(&mut o, seen + gap).await;

        // X comes back `gap` events behind: it is sent them (and `resumed`) or a snapshot,
        // and is never dropped for it.
        let ws = open(&app, &format!("/ws/tables/{table}?since={seen}&epoch={epoch}")).await;
        let mut x = Client::from_stream(ws);
        let mut replayed = 0;
        let caught_up = loop {
            let message = x.recv().await;
            match message["type"].as_str() {
                Some("resumed" | "snapshot") => break message,
                _ => replayed += 1,
            }
        };
        if caught_up["type"] == "resumed" {
            assert!(replayed >= gap, "{gap} behind, {replayed} events replayed");
        }
        if gap == 10 {
            // Ten chat lines fit the table's history (4 KiB): replayed, not a snapshot.
            assert_eq!(caught_up["type"], "resumed", "a short gap is replayed");
        }
        x.send(json!({"type": "hello", "token": x_token})).await;
        assert_eq!(x.until("welcome").await["seats"], json!([0]), "{gap} behind");
        x.send(json!({"type": "move", "move": {"at": "H8"}})).await;
        assert_eq!(x.until("moved").await["move"]["at"], "H8", "{gap} behind");
    }
}

// ----- defect 5: every incoming frame counts against the rate limit -----

/// Sends `flood` on a fresh connection (default limits) while reading, then (a second
/// later, so the limiter has room again) a ping, and returns every text message the
/// server sent before its pong.
async fn replies_to(app: &TestApp, table: &str, flood: Vec<Message>) -> Vec<Value> {
    let (mut sink, mut stream) = open(app, &format!("/ws/tables/{table}")).await.split();
    let reader = tokio::spawn(async move {
        let mut replies = Vec::new();
        loop {
            let frame = tokio::time::timeout(CLOSE_WITHIN, stream.next())
                .await
                .expect("the server answers in time")
                .expect("the connection stays open")
                .expect("a frame");
            if let Message::Text(text) = frame {
                let message: Value = serde_json::from_str(text.as_str()).expect("JSON");
                if message["type"] == "pong" && message["ref"] == "after" {
                    return replies;
                }
                replies.push(message);
            }
        }
    });
    for frame in flood {
        sink.send(frame).await.expect("send a frame");
    }
    tokio::time::sleep(Duration::from_secs(1)).await;
    let ping = json!({"type": "ping", "ref": "after"}).to_string();
    sink.send(Message::text(ping)).await.expect("send a frame");
    reader.await.expect("the reader")
}

#[tokio::test]
async fn a_binary_flood_is_rate_limited_like_any_other() {
    let app = spawn_app().await;
    let table = app.gomoku_table(json!({})).await;
    let flood = (0..5_000).map(|_| Message::binary(vec![1, 2, 3])).collect();
    let replies = replies_to(&app, &table, flood).await;
    let refused = replies.iter().filter(|m| m["code"] == "malformed_json").count();
    let limited = replies.iter().filter(|m| m["code"] == "rate_limited").count();
    assert!(limited >= 1, "the flood was rate limited");
    // The snapshot and a few counts aside, a reply per frame the limiter let through
    // (a burst of 40, then 20 a second while the flood lasts) and one per run of refusals.
    assert!(
        replies.len() < 500,
        "{} replies to 5,000 binary frames ({refused} refused as binary, {limited} rate limited)",
        replies.len()
    );
}

#[tokio::test]
async fn pings_and_pongs_count_against_the_rate_limit_too() {
    let app = spawn_app().await;
    let table = app.gomoku_table(json!({})).await;
    let mut client = app.client(&table).await;
    // WebSocket pings and pongs from the client: well over the burst of 40, at once.
    for _ in 0..50 {
        client.send_frame(Message::Ping(Default::default())).await;
        client.send_frame(Message::Pong(Default::default())).await;
    }
    client.send(json!({"type": "ping", "ref": 1})).await;
    client.expect_error("rate_limited").await;
}

#[tokio::test]
async fn a_text_flood_gets_one_rate_limited_error_per_run_not_one_per_message() {
    let app = spawn_app().await;
    let table = app.gomoku_table(json!({})).await;
    let flood = (0..2_000)
        .map(|n| Message::text(json!({"type": "ping", "ref": n}).to_string()))
        .collect();
    let replies = replies_to(&app, &table, flood).await;
    let pongs = replies.iter().filter(|m| m["type"] == "pong").count();
    let limited = replies.iter().filter(|m| m["code"] == "rate_limited").count();
    assert!(pongs >= 40, "the burst is answered: {pongs} pongs");
    assert!(
        limited >= 1 && limited <= pongs,
        "{limited} rate_limited errors for {pongs} pongs"
    );
}

// ----- defect 6: the documented close codes -----

#[tokio::test]
async fn an_oversize_message_is_closed_with_1009() {
    let app = spawn_app().await;
    let table = app.gomoku_table(json!({})).await;
    let mut ws = open(&app, &format!("/ws/tables/{table}")).await;
    let chat = json!({"type": "chat", "text": "x".repeat(20_000)}).to_string();
    ws.send(Message::text(chat)).await.expect("send");
    assert_eq!(close_code(&mut ws).await, Some(1009));
}

#[tokio::test]
async fn after_its_1012_the_server_reads_on_until_the_clients_close_and_resets_nothing() {
    let app = unlimited_app().await;
    let table = app.gomoku_table(json!({})).await;
    let mut ws = open(&app, &format!("/ws/tables/{table}")).await;
    // Two megabytes of pongs (read and ignored by the server) still on their way as the
    // server shuts down, and one more frame after its close frame. Had the server dropped
    // the socket with frames unread, the kernel would have reset the connection and that
    // frame would fail; the server reads on until the client's close (the closing
    // handshake), for up to a second.
    for _ in 0..20_000 {
        ws.feed(Message::Pong(vec![b'p'; 100].into())).await.expect("feed");
    }
    ws.flush().await.expect("flush");
    app.shut_down();
    tokio::time::sleep(Duration::from_millis(100)).await;
    ws.send(Message::Pong(vec![b'p'; 100].into()))
        .await
        .expect("a frame sent after the server's close is not reset");
    assert_eq!(close_code(&mut ws).await, Some(1012));
}

#[tokio::test]
async fn invalid_utf8_is_closed_with_1007() {
    let app = spawn_app().await;
    let table = app.gomoku_table(json!({})).await;
    let mut ws = open(&app, &format!("/ws/tables/{table}")).await;
    let text = Frame::message(vec![b'{', 0xff, 0xfe, b'}'], OpCode::Data(Data::Text), true);
    ws.send(Message::Frame(text)).await.expect("send");
    assert_eq!(close_code(&mut ws).await, Some(1007));
}

#[tokio::test]
async fn a_client_that_stops_reading_for_long_is_closed_with_1013_when_it_reads_again() {
    // Long chat lines: every line is stored before it is sent, so the socket's buffers must
    // fill in few lines, well within the silence timeout.
    let app = spawn_app_with(|settings| {
        settings.limits.messages_per_second = 10_000;
        settings.limits.message_burst = 10_000;
        settings.limits.chat_burst = 100_000;
        settings.limits.chat_max_chars = 12_000;
    })
    .await;
    let table = app.gomoku_table(json!({"seating": "chosen"})).await;
    let ((x, _), (mut o, _)) = app.two_seated(&table).await;
    // X stops reading; O chats until the table lets X go as too slow (X's seat is then
    // announced as away).
    let text = "y".repeat(12_000);
    let mut dropped = false;
    for _ in 0..200 {
        for _ in 0..100 {
            o.send(json!({"type": "chat", "text": text})).await;
        }
        let seen = o.sync().await;
        if seen
            .iter()
            .any(|m| m["type"] == "presence" && m["seat"] == 0 && m["connected"] == false)
        {
            dropped = true;
            break;
        }
    }
    assert!(dropped, "20,000 chats did not fill X's queue");
    // X reads again only after the server gave up waiting to write to it (10 s): it finds
    // everything queued before, then the close.
    tokio::time::sleep(Duration::from_secs(11)).await;
    let mut ws = x.into_stream();
    assert_eq!(close_code(&mut ws).await, Some(1013));
}

#[tokio::test]
async fn a_client_that_closes_gets_its_close_answered() {
    let app = spawn_app().await;
    let table = app.gomoku_table(json!({})).await;
    let mut ws = open(&app, &format!("/ws/tables/{table}")).await;
    let bye = tokio_tungstenite::tungstenite::protocol::CloseFrame {
        code: 1000.into(),
        reason: "bye".into(),
    };
    ws.send(Message::Close(Some(bye))).await.expect("send");
    assert_eq!(close_code(&mut ws).await, Some(1000));
}

// ----- defect 10: a shutdown closes every connection with 1012 -----

#[tokio::test]
async fn on_shutdown_every_one_of_48_connections_is_told_1012() {
    let app = spawn_app().await;
    let mut sockets = Vec::new();
    for _ in 0..4 {
        let table = app.gomoku_table(json!({})).await;
        for _ in 0..12 {
            sockets.push(open(&app, &format!("/ws/tables/{table}")).await);
        }
    }
    app.shut_down();
    let codes = futures_util::future::join_all(sockets.iter_mut().map(close_code)).await;
    let wrong: Vec<_> = codes.iter().filter(|code| **code != Some(1012)).collect();
    assert!(wrong.is_empty(), "{} of 48 closed otherwise: {wrong:?}", wrong.len());
}
