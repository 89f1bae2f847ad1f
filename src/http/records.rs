//! The records API: a table's games (`GET /api/tables/{id}/games`) and one game with
//! every move and the position after it, or exported in one of its game's formats
//! (`GET /api/games/{game_id}?format=…`). A game id is a random UUID handed out only in
//! its table's list, so a game is as private as its table's link. Shapes: docs/records.md.

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde_json::Value;
use uuid::Uuid;

use super::client::Client;
use super::error::ApiError;
use super::state::AppState;
use super::tables::public_base;
use crate::records::export::{ExportError, any_game_has, export, formats};
use crate::records::replay::{LineMove, replay};
use crate::records::{GameRecord, GameSummary, Record};
use crate::store::StoreError;
use crate::store::records::GamesPage;

/// Games a page of `GET /api/tables/{id}/games` lists when `?limit=` is not given.
pub const DEFAULT_GAMES_PAGE: u32 = 100;
/// The most games one page lists (`?limit=` above it is refused).
pub const MAX_GAMES_PAGE: u32 = 200;

/// `GET /api/tables/{id}/games`.
#[derive(Debug, Serialize)]
pub struct TableGames {
    table: String,
    games: Vec<GameSummary>,
    /// The `?before=` that lists the games before these; `null` when these begin with the
    /// table's first game.
    earlier: Option<i32>,
}

/// The games list's query: `?before=` (a game number) and `?limit=`, each at most once.
fn games_page(pairs: &[(String, String)]) -> Result<GamesPage, ApiError> {
    let mut page = GamesPage {
        before: None,
        limit: DEFAULT_GAMES_PAGE,
    };
    let mut seen: Vec<&str> = Vec::new();
    for (name, value) in pairs {
        let bad = |message: String| ApiError::bad_request("bad_query", message, Some(name.clone()));
        if seen.contains(&name.as_str()) {
            return Err(bad(format!("Give ?{name}= once.")));
        }
        seen.push(name);
        match name.as_str() {
            "before" => {
                let before = value
                    .parse::<u32>()
                    .ok()
                    .filter(|before| *before >= 1)
                    .ok_or_else(|| bad("?before= is a game number, 1 or more.".to_owned()))?;
                page.before = Some(before);
            }
            "limit" => {
                page.limit = value
                    .parse::<u32>()
                    .ok()
                    .filter(|limit| (1..=MAX_GAMES_PAGE).contains(limit))
                    .ok_or_else(|| bad(format!("?limit= is a number from 1 to {MAX_GAMES_PAGE}.")))?;
            }
            _ => {
                return Err(bad(format!(
                    "There is no ?{name}=; the games list takes ?before= and ?limit=."
                )));
            }
        }
    }
    Ok(page)
}

/// `GET /api/games/{game_id}` as JSON.
#[derive(Debug, Serialize)]
struct GameView<'a> {
    #[serde(flatten)]
    summary: &'a GameSummary,
    /// The game's settings as the table was created with them.
    settings: &'a crate::games::AnySettings,
    /// Every value `?format=` takes for this game.
    formats: Vec<&'static str>,
    /// The position before the first move (the game's view).
    start: Value,
    /// The line of play (take-backs applied), each move with the position after it.
    moves: Vec<LineMove<'a>>,
    /// Every stored record in order, take-backs included.
    records: &'a [Record],
    /// The position as the game ended (or stands, while it is played): the last move's
    /// position with the stored result applied.
    end: Value,
}

/// The records API's query: `?format=`, at most once (read as a list of pairs so that a
/// repeated one is answered in the API's JSON error shape, not axum's plain text).
#[derive(Debug, Default)]
pub struct FormatQuery {
    format: Option<String>,
}

impl FormatQuery {
    fn parse(pairs: Vec<(String, String)>) -> Result<FormatQuery, ApiError> {
        let mut formats = pairs
            .into_iter()
            .filter(|(name, _)| name == "format")
            .map(|(_, value)| value);
        let format = formats.next();
        if formats.next().is_some() {
            return Err(ApiError::bad_request(
                "bad_format",
                "Give ?format= once.".to_owned(),
                Some("format".into()),
            ));
        }
        Ok(FormatQuery { format })
    }
}

pub async fn table_games(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Query(pairs): Query<Vec<(String, String)>>,
) -> Result<Json<TableGames>, ApiError> {
    let page = games_page(&pairs)?;
    let listed = state
        .store
        .table_games(&id, page)
        .await
        .map_err(|err| unavailable(&err))?
        .ok_or_else(|| ApiError::table_not_found(&id))?;
    let games = listed
        .games
        .into_iter()
        .map(|(row, players)| GameSummary::from_row(row, players))
        .collect();
    Ok(Json(TableGames {
        table: id,
        games,
        earlier: listed.earlier,
    }))
}

pub async fn game(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Query(pairs): Query<Vec<(String, String)>>,
    client: Client,
    headers: HeaderMap,
    uri: Uri,
) -> Result<Response, ApiError> {
    let not_found = || ApiError {
        status: StatusCode::NOT_FOUND,
        code: "game_not_found",
        message: format!("There is no game \"{id}\"."),
        field: None,
    };
    let query = FormatQuery::parse(pairs)?;
    // A format no game has is refused before the record is read (the game's own formats
    // are checked once it is known).
    if let Some(format) = query.format.as_deref()
        && !any_game_has(format)
    {
        return Err(ApiError::bad_request(
            "bad_format",
            format!("There is no format \"{format}\"; each game lists its formats in its record's \"formats\"."),
            Some("format".into()),
        ));
    }
    let game_id = Uuid::parse_str(&id).map_err(|_| not_found())?;
    let row = state
        .store
        .game_record(game_id)
        .await
        .map_err(|err| unavailable(&err))?
        .ok_or_else(not_found)?;
    let record = GameRecord::from_row(row).map_err(|err| {
        tracing::error!(game = %game_id, error = %err, "a stored game cannot be read back");
        ApiError::internal("The game is stored but cannot be read back.")
    })?;
    match query.format.as_deref() {
        None | Some("json") => game_json(&record),
        Some(format) => {
            let base = public_base(&state, &client, &headers, &uri)?;
            let site = format!("{base}/t/{}", record.summary.table);
            let exported = export(&record, format, &site).map_err(|err| match err {
                ExportError::UnknownFormat { .. } => {
                    ApiError::bad_request("bad_format", err.to_string(), Some("format".into()))
                }
                ExportError::Replay(err) => unreplayable(game_id, &err),
            })?;
            let disposition = format!("attachment; filename=\"{}\"", exported.file_name);
            let mut response = exported.body.into_response();
            let headers = response.headers_mut();
            headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(exported.content_type));
            if let Ok(value) = HeaderValue::from_str(&disposition) {
                headers.insert(header::CONTENT_DISPOSITION, value);
            }
            Ok(response)
        }
    }
}

fn game_json(record: &GameRecord) -> Result<Response, ApiError> {
    let replay = replay(record).map_err(|err| unreplayable(record.summary.id, &err))?;
    let view = GameView {
        summary: &record.summary,
        settings: &record.settings.game,
        formats: std::iter::once("json")
            .chain(formats(record.kind()).iter().map(|f| f.name))
            .collect(),
        start: replay.start.clone(),
        moves: replay.line(),
        records: &record.records,
        end: replay.final_view(),
    };
    Ok(Json(view).into_response())
}

fn unreplayable(game_id: Uuid, err: &crate::records::replay::ReplayError) -> ApiError {
    tracing::error!(game = %game_id, error = %err, "a stored game no longer replays");
    ApiError::internal("The game is stored but its moves no longer replay.")
}

fn unavailable(err: &StoreError) -> ApiError {
    tracing::warn!(error = %err, "records could not be read");
    ApiError::unavailable("Records cannot be read right now (the database is not answering); please try again shortly.")
}
