//! The download formats of a game record (`GET /api/games/{id}?format=…`): which formats
//! each game has, their content types and file names, and the PGN-style header every
//! text format begins with (tag pairs of players, settings and result).

use std::fmt::Write as _;

use time::OffsetDateTime;

use super::GameRecord;
use super::replay::ReplayError;
use crate::games::GameKind;
use crate::table::time_control::TimeControl;

/// A game exported in one format.
#[derive(Debug, Clone)]
pub struct Export {
    pub content_type: &'static str,
    /// The download's file name, e.g. `spelbord-q7XbT2mA-3.bpgn`.
    pub file_name: String,
    pub body: String,
}

/// Why a game could not be exported.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error("\"{format}\" is not a format of {game} records; use one of {known}.")]
    UnknownFormat {
        format: String,
        game: &'static str,
        known: String,
    },
    #[error(transparent)]
    Replay(#[from] ReplayError),
}

/// A download format: its name in `?format=`, file extension and content type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Format {
    pub name: &'static str,
    pub extension: &'static str,
    pub content_type: &'static str,
}

const TEXT: &str = "text/plain; charset=utf-8";
const PGN: &str = "application/x-chess-pgn; charset=utf-8";

/// Whether any game has a format of this name (`json` included): a request naming none can be
/// refused before its record is read.
pub fn any_game_has(format: &str) -> bool {
    format == "json"
        || GameKind::ALL
            .iter()
            .any(|&kind| formats(kind).iter().any(|f| f.name == format))
}

/// The text formats of each game (every game also has `json`, the records API itself).
pub fn formats(kind: GameKind) -> &'static [Format] {
    match kind {
        GameKind::Gomoku => &[
            Format {
                name: "text",
                extension: "txt",
                content_type: TEXT,
            },
            Format {
                name: "psq",
                extension: "psq",
                content_type: TEXT,
            },
        ],
        GameKind::LinesOfAction => &[Format {
            name: "pgn",
            extension: "pgn",
            content_type: PGN,
        }],
        GameKind::Krux => &[Format {
            name: "text",
            extension: "txt",
            content_type: TEXT,
        }],
        GameKind::Bughouse => &[
            Format {
                name: "bpgn",
                extension: "bpgn",
                content_type: TEXT,
            },
            Format {
                name: "pgn-a",
                extension: "pgn",
                content_type: PGN,
            },
            Format {
                name: "pgn-b",
                extension: "pgn",
                content_type: PGN,
            },
        ],
    }
}

/// Exports `record` as `format` (one of [`formats`]); `site` is the table's link.
pub fn export(record: &GameRecord, format: &str, site: &str) -> Result<Export, ExportError> {
    let kind = record.kind();
    let Some(chosen) = formats(kind).iter().find(|f| f.name == format) else {
        let known: Vec<String> = std::iter::once("json")
            .chain(formats(kind).iter().map(|f| f.name))
            .map(|name| format!("\"{name}\""))
            .collect();
        return Err(ExportError::UnknownFormat {
            format: format.to_owned(),
            game: kind.id(),
            known: known.join(", "),
        });
    };
    let body = match (kind, chosen.name) {
        (GameKind::Gomoku, "psq") => super::gomoku::psq(record)?,
        (GameKind::Gomoku, _) => super::gomoku::text(record, site)?,
        (GameKind::LinesOfAction, _) => super::lines_of_action::pgn(record, site)?,
        (GameKind::Krux, _) => super::krux::text(record, site)?,
        (GameKind::Bughouse, "bpgn") => super::bughouse::bpgn(record, site)?,
        (GameKind::Bughouse, "pgn-a") => super::bughouse::board_pgn(record, site, 0)?,
        (GameKind::Bughouse, _) => super::bughouse::board_pgn(record, site, 1)?,
    };
    let suffix = match chosen.name {
        "pgn-a" => "-A",
        "pgn-b" => "-B",
        _ => "",
    };
    Ok(Export {
        content_type: chosen.content_type,
        file_name: format!(
            "spelbord-{}-{}{suffix}.{}",
            record.summary.table, record.summary.number, chosen.extension
        ),
        body,
    })
}

/// PGN tag pairs, written in the order added.
#[derive(Debug, Default)]
pub struct Tags(String);

impl Tags {
    /// Adds `[name "value"]`, escaping `\` and `"` as PGN requires.
    pub fn add(&mut self, name: &str, value: impl AsRef<str>) -> &mut Tags {
        let value = value.as_ref().replace('\\', "\\\\").replace('"', "\\\"");
        let _ = writeln!(self.0, "[{name} \"{value}\"]");
        self
    }

    /// The tags every record starts with: event, site, dates, round (the game at its
    /// table, with its place in a series), the game's settings as JSON, how it ended.
    pub fn common(record: &GameRecord, site: &str) -> Tags {
        let summary = &record.summary;
        let mut tags = Tags::default();
        tags.add("Event", format!("spelbord {} table {}", summary.game, summary.table));
        tags.add("Site", site);
        tags.add("Date", pgn_date(summary.started_at));
        tags.add("Round", round(record));
        tags
    }

    /// The tags that end the header: time control, the stored end, rated, settings.
    pub fn closing(&mut self, record: &GameRecord) -> &mut Tags {
        let summary = &record.summary;
        self.add("TimeControl", pgn_time_control(record.settings.time_control));
        if let Some(result) = &summary.result {
            self.add("Termination", &result.reason);
        }
        if let Some(ended) = summary.ended_at {
            self.add("EndDate", pgn_date(ended));
        }
        self.add("Rated", if summary.rated { "yes" } else { "no" });
        let settings = serde_json::to_string(&record.settings.game).unwrap_or_default();
        self.add("Settings", settings)
    }

    pub fn finish(&self) -> String {
        format!("{}\n", self.0)
    }
}

/// The game's number at its table, and in its series: `3` or `3 (best_of_3 1, game 2)`.
fn round(record: &GameRecord) -> String {
    let summary = &record.summary;
    match &summary.series {
        Some(series) if series.format != "single" => format!(
            "{} ({} {}, game {})",
            summary.number, series.format, series.number, series.game
        ),
        _ => summary.number.to_string(),
    }
}

/// `YYYY.MM.DD`, as PGN dates are written (UTC).
pub fn pgn_date(at: OffsetDateTime) -> String {
    let at = at.to_offset(time::UtcOffset::UTC);
    format!("{:04}.{:02}.{:02}", at.year(), u8::from(at.month()), at.day())
}

/// The PGN `TimeControl` value: `-` untimed, `180` sudden death, `180+2` Fischer,
/// `*30` seconds per move (correspondence likewise, in seconds).
pub fn pgn_time_control(control: TimeControl) -> String {
    match control {
        TimeControl::None => "-".into(),
        TimeControl::SuddenDeath { base } => base.as_secs().to_string(),
        TimeControl::Fischer { base, increment } => format!("{}+{}", base.as_secs(), increment.as_secs()),
        TimeControl::PerMove { per_move } | TimeControl::Correspondence { per_move, .. } => {
            format!("*{}", per_move.as_secs())
        }
    }
}

/// The PGN result of a two-sided game: `1-0` when `first` won, `0-1` when the other side
/// did, `1/2-1/2` for a draw, `*` while playing or when aborted.
pub fn pgn_result(record: &GameRecord, first: &[u8]) -> &'static str {
    match &record.summary.result {
        Some(result) if result.outcome == "win" => {
            if result.winners.iter().any(|seat| first.contains(seat)) {
                "1-0"
            } else {
                "0-1"
            }
        }
        Some(result) if result.outcome == "draw" => "1/2-1/2",
        _ => "*",
    }
}

/// Wraps movetext at 80 columns, as PGN export format asks.
pub fn wrap(tokens: &[String]) -> String {
    let mut out = String::new();
    let mut column = 0;
    for token in tokens {
        if column > 0 && column + 1 + token.len() > 80 {
            out.push('\n');
            column = 0;
        } else if column > 0 {
            out.push(' ');
            column += 1;
        }
        out.push_str(token);
        column += token.len();
    }
    out.push('\n');
    out
}

/// A player's name for a header: the name, `Computer (hard)` style for a bot as stored.
pub fn player_name(record: &GameRecord, seat: u8) -> String {
    record
        .player(seat)
        .map(|player| player.name.clone())
        .unwrap_or_else(|| "?".into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn time_controls_read_as_pgn() {
        assert_eq!(pgn_time_control(TimeControl::None), "-");
        let base = Duration::from_secs(180);
        assert_eq!(pgn_time_control(TimeControl::SuddenDeath { base }), "180");
        let increment = Duration::from_secs(2);
        assert_eq!(pgn_time_control(TimeControl::Fischer { base, increment }), "180+2");
        let per_move = Duration::from_secs(30);
        assert_eq!(pgn_time_control(TimeControl::PerMove { per_move }), "*30");
    }

    #[test]
    fn tags_escape_quotes_and_backslashes() {
        let mut tags = Tags::default();
        tags.add("White", r#"Anna "A\B""#);
        assert_eq!(tags.finish(), "[White \"Anna \\\"A\\\\B\\\"\"]\n\n");
    }

    #[test]
    fn movetext_wraps_at_80_columns() {
        let tokens: Vec<String> = (1..=40).map(|n| format!("{n}. e4")).collect();
        let text = wrap(&tokens);
        assert!(text.lines().all(|line| line.len() <= 80), "{text}");
        assert_eq!(text.split_whitespace().count(), 80);
    }
}
