//! WebSocket hardening, as a hostile (or just unlucky) client finds it: a spectator storm.
//!
//! The spectator storm drives a table actor through its handle under paused time (see
//! `common::actor`), so that "at most one count a second" is exact.

mod common;

use std::time::Duration;

use common::actor::{Seat, paused_store, tables, two_players};
use serde_json::json;
use tokio::time::advance;

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
    let tables = tables(store);
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
