//! A series' row written outside a game's end: a series its players left, ended early and
//! scored as it stands (`Series::end_early`). Every other change to a series is stored
//! with the result of the game that makes it, in the group commit.

use uuid::Uuid;

use super::{Store, StoreError};
use crate::table::series::SeriesResult;

impl Store {
    /// Marks the series `id` decided with `result`, if it still is in play (fenced with
    /// the table's lease like every write of a table).
    pub async fn end_series_early(&self, id: Uuid, result: SeriesResult) -> Result<(), StoreError> {
        let _timer = crate::metrics::DbWrite::start("end_series_early");
        let (table, node, epoch) = self.lease_args();
        let (result, winner) = match result {
            SeriesResult::Won { side } => ("win", Some(i16::from(side))),
            SeriesResult::Tie => ("tie", None),
        };
        sqlx::query(
            "UPDATE series SET status = 'decided', result = $2, winner = $3, ended_at = now()
              WHERE id = $1 AND status = 'playing' AND spelbord_hold_lease($4, $5, $6)",
        )
        .bind(id)
        .bind(result)
        .bind(winner)
        .bind(table)
        .bind(node)
        .bind(epoch)
        .execute(self.pool())
        .await
        .map_err(|err| self.write_error(err))?;
        Ok(())
    }
}
