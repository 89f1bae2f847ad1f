//! A series' row written outside a game's end: a series its players left, ended early and
//! scored as it stands (`Series::end_early`). Every other change to a series is stored
//! with the result of the game that makes it, in the group commit.

use uuid::Uuid;

use super::leases::Fenced;
use super::{Store, StoreError};

impl Store {
    /// Marks the series `id` decided, won by side `winner` (`None`: a tie), if it still is
    /// in play (fenced with the table's lease like every write of a table).
    pub async fn end_series_early(&self, id: Uuid, winner: Option<u8>) -> Result<(), StoreError> {
        let _timer = crate::metrics::DbWrite::start("end_series_early");
        let (result, winner) = match winner {
            Some(side) => ("win", Some(i16::from(side))),
            None => ("tie", None),
        };
        sqlx::query(
            "UPDATE series SET status = 'decided', result = $2, winner = $3, ended_at = now()
              WHERE id = $1 AND status = 'playing' AND spelbord_hold_lease($4, $5, $6)",
        )
        .bind(id)
        .bind(result)
        .bind(winner)
        .write_fenced(self)
        .await?;
        Ok(())
    }
}
