//! The lobby's pools: the time controls offered per game for quick pairing and open
//! challenges (docs/protocol.md, 7.1), and the settings of the tables they make.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{Value, json};

use crate::bots::BotChoice;
use crate::games::{GameKind, Seat, SettingError};
use crate::table::TableSettings;

/// One game with one clock.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Pool {
    /// `{game}/{time control label}`, e.g. `gomoku/5+3`.
    pub id: &'static str,
    #[serde(serialize_with = "game_id")]
    pub game: GameKind,
    pub time_control: &'static str,
    /// People a table of the pool seats (Bughouse four, the others two).
    pub players: u8,
    /// Base minutes and increment seconds; `None` untimed.
    #[serde(skip)]
    clock: Option<(u64, u64)>,
}

fn game_id<S: serde::Serializer>(game: &GameKind, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(game.id())
}

const fn pool(id: &'static str, game: GameKind, time_control: &'static str, clock: Option<(u64, u64)>) -> Pool {
    let players = match game {
        GameKind::Bughouse => 4,
        _ => 2,
    };
    Pool {
        id,
        game,
        time_control,
        players,
        clock,
    }
}

/// Every pool, in the order the lobby shows them.
pub const POOLS: [Pool; 10] = [
    pool("gomoku/untimed", GameKind::Gomoku, "untimed", None),
    pool("gomoku/5+3", GameKind::Gomoku, "5+3", Some((5, 3))),
    pool("gomoku/10+0", GameKind::Gomoku, "10+0", Some((10, 0))),
    pool("lines-of-action/5+3", GameKind::LinesOfAction, "5+3", Some((5, 3))),
    pool("lines-of-action/10+5", GameKind::LinesOfAction, "10+5", Some((10, 5))),
    pool("krux/untimed", GameKind::Krux, "untimed", None),
    pool("krux/10+0", GameKind::Krux, "10+0", Some((10, 0))),
    pool("bughouse/2+0", GameKind::Bughouse, "2+0", Some((2, 0))),
    pool("bughouse/3+0", GameKind::Bughouse, "3+0", Some((3, 0))),
    pool("bughouse/5+0", GameKind::Bughouse, "5+0", Some((5, 0))),
];

impl Pool {
    /// The pool with this id.
    pub fn find(id: &str) -> Option<&'static Pool> {
        POOLS.iter().find(|pool| pool.id == id)
    }

    /// The settings of a table the pool makes: its clock, seats drawn by lot, listed in
    /// the lobby, everything else the game's defaults; the computer in `bots` (never
    /// rated, docs/ratings.md).
    pub fn table_settings(&self, rated: bool, bots: &BTreeMap<Seat, BotChoice>) -> Result<TableSettings, SettingError> {
        let time_control = match self.clock {
            None => json!({"kind": "none"}),
            Some((minutes, 0)) => json!({"kind": "sudden_death", "base_seconds": minutes * 60}),
            Some((minutes, increment)) => {
                json!({"kind": "fischer", "base_seconds": minutes * 60, "increment_seconds": increment})
            }
        };
        let bots: serde_json::Map<String, Value> = bots
            .iter()
            .map(|(seat, choice)| (seat.to_string(), Value::from(choice.id().into_owned())))
            .collect();
        let settings = json!({
            "time_control": time_control,
            "seating": "random",
            "rated": rated && bots.is_empty(),
            "listed": true,
            "bots": bots,
        });
        let settings = TableSettings::read(self.game.id(), Some(settings))?;
        settings.check_new_table()?;
        Ok(settings)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pool_makes_a_valid_table_whose_clock_matches_its_label() {
        for pool in &POOLS {
            for rated in [false, true] {
                let settings = pool.table_settings(rated, &BTreeMap::new()).expect(pool.id);
                assert_eq!(settings.time_control.label(), pool.time_control, "{}", pool.id);
                assert_eq!(settings.rated, rated);
                assert!(settings.listed);
                assert_eq!(settings.game.seat_count(), usize::from(pool.players));
                assert_eq!(pool.id, format!("{}/{}", pool.game.id(), pool.time_control));
            }
        }
    }

    #[test]
    fn a_table_with_the_computer_is_casual() {
        let pool = Pool::find("bughouse/3+0").expect("a pool");
        let bots = BTreeMap::from([
            (2, crate::bots::Strength::Medium.into()),
            (3, crate::bots::Strength::Medium.into()),
        ]);
        let settings = pool.table_settings(true, &bots).expect("settings");
        assert!(!settings.rated);
        assert_eq!(settings.bots.len(), 2);
    }

    #[test]
    fn unknown_pools_are_not_found() {
        assert!(Pool::find("gomoku/1+0").is_none());
        assert!(Pool::find("chess/5+3").is_none());
    }
}
