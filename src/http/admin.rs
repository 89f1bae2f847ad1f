//! The admin API, `/api/admin/…` (docs/operations.md, "Moderation"): tables by activity,
//! a table's stored chat, closing a table, freeing a seat, chat mutes, and the chat lines
//! players reported.
//!
//! Never open to the public, nor to loopback clients alone (it changes state): every
//! request presents `Authorization: Bearer <token>`, `admin.token`, or, while that is
//! empty, `metrics.token` (compared as [`super::metrics`] compares it). With neither set
//! every request is refused (`403`). Each action is logged with who did it (the optional
//! `X-Admin-Name` header), which token opened it and the client's address, and stored in
//! `admin_actions`.
//!
//! Actions on a table reach it through the registry as any request for the table does, so
//! in a cluster they run on the node serving it (the proxy hashes the id in
//! `/api/admin/tables/{id}/…` as in `/api/tables/{id}`; a table elsewhere is handed over).

use axum::Json;
use axum::extract::{FromRequestParts, Path, Query, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode};
use serde::Deserialize;
use serde_json::{Value, json};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use super::client::Client;
use super::error::ApiError;
use super::metrics::bearer_matches;
use super::state::AppState;
use super::tables::JsonBody;
use crate::config::Settings;
use crate::identity::{PlayerKey, hex_of};
use crate::store::StoreError;
use crate::store::moderation::{AdminAction, MuteNotice};
use crate::table::msg::{Moderated, Moderation, ModerationError};

/// The header an operator names themself in (free text, logged and stored).
pub const NAME_HEADER: &str = "x-admin-name";

/// The longest `X-Admin-Name`, in characters.
pub const NAME_MAX_CHARS: usize = 64;

/// The longest reason of a mute, in characters.
pub const MUTE_REASON_MAX_CHARS: usize = 500;

/// The longest mute with an end: a year, in minutes (without `minutes`: until lifted).
pub const MUTE_MAX_MINUTES: i64 = 366 * 24 * 60;

/// The most rows a list answers at once.
pub const LIST_MAX: i64 = 500;

/// Which configured token opened a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenKind {
    Admin,
    Metrics,
}

impl TokenKind {
    pub fn as_str(self) -> &'static str {
        match self {
            TokenKind::Admin => "admin",
            TokenKind::Metrics => "metrics",
        }
    }
}

/// Which token `headers` present, if one that opens the admin API (see the module doc).
pub fn token_kind(settings: &Settings, headers: &HeaderMap) -> Option<TokenKind> {
    if !settings.admin.token.is_empty() {
        return bearer_matches(headers, &settings.admin.token).then_some(TokenKind::Admin);
    }
    bearer_matches(headers, &settings.metrics.token).then_some(TokenKind::Metrics)
}

/// An operator's request, admitted: who (as they say), with which token, from where.
#[derive(Debug, Clone)]
pub struct Operator {
    /// The `X-Admin-Name` given (`""` when none was): who did it, as they say.
    pub name: String,
    /// Which token opened the request (recorded: a metrics token moderating is worth seeing).
    pub token: TokenKind,
    /// The client's address, behind trusted proxies the forwarded one.
    pub address: std::net::IpAddr,
}

impl FromRequestParts<AppState> for Operator {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Operator, ApiError> {
        let client = Client::from_request_parts(parts, state).await?;
        let settings = &state.settings;
        let Some(token) = token_kind(settings, &parts.headers) else {
            tracing::warn!(address = %client.ip, path = %parts.uri.path(), "an admin request was refused");
            let message = if settings.admin.token.is_empty() && settings.metrics.token.is_empty() {
                "The admin API is off: set admin.token (or metrics.token) to use it; see docs/operations.md."
            } else {
                "The admin API needs the configured bearer token; see docs/operations.md."
            };
            return Err(ApiError {
                status: StatusCode::FORBIDDEN,
                code: "forbidden",
                message: message.into(),
                field: None,
            });
        };
        let name = match parts.headers.get(NAME_HEADER) {
            None => String::new(),
            Some(value) => {
                let name = value.to_str().map(str::trim).unwrap_or("\u{0}");
                if name.chars().count() > NAME_MAX_CHARS || name.chars().any(char::is_control) {
                    return Err(ApiError::bad_request(
                        "bad_admin_name",
                        format!("X-Admin-Name is at most {NAME_MAX_CHARS} printable ASCII characters."),
                        Some("X-Admin-Name".into()),
                    ));
                }
                name.to_owned()
            }
        };
        Ok(Operator {
            name,
            token,
            address: client.ip,
        })
    }
}

impl Operator {
    /// Logs an action done and stores it in `admin_actions` (a failure to store is logged:
    /// the action itself is done).
    async fn record(&self, state: &AppState, action: &'static str, table: Option<&str>, details: Value) {
        tracing::info!(
            actor = %self.name,
            token = self.token.as_str(),
            address = %self.address,
            action,
            table = table.unwrap_or(""),
            details = %details,
            "admin action"
        );
        let record = AdminAction {
            actor: &self.name,
            token_kind: self.token.as_str(),
            address: self.address.to_string(),
            action,
            table_id: table,
            details,
        };
        if let Err(err) = state.store.record_admin_action(&record).await {
            tracing::error!(error = %err, action, "could not store an admin action");
        }
    }
}

/// A time as the API shows it (RFC 3339).
fn rfc3339(at: OffsetDateTime) -> String {
    at.format(&Rfc3339).unwrap_or_default()
}

fn database(err: StoreError) -> ApiError {
    tracing::error!(error = %err, "an admin request could not read or write the database");
    ApiError::unavailable("The database is not answering; nothing changed. Please try again shortly.")
}

/// A list's query, read as pairs (so that every mistake is answered in the API's shape):
/// each of `known` at most once, nothing else; the values by name.
fn query<'a>(pairs: &'a [(String, String)], known: &[&str]) -> Result<Vec<(&'a str, &'a str)>, ApiError> {
    let mut seen: Vec<(&str, &str)> = Vec::new();
    for (name, value) in pairs {
        if !known.contains(&name.as_str()) {
            return Err(ApiError::bad_request(
                "bad_request",
                format!("Unknown parameter \"{name}\"; known: {}.", known.join(", ")),
                Some(name.clone()),
            ));
        }
        if seen.iter().any(|(other, _)| other == name) {
            return Err(ApiError::bad_request(
                "bad_request",
                format!("Give {name} once."),
                Some(name.clone()),
            ));
        }
        seen.push((name, value));
    }
    Ok(seen)
}

/// The value of `name` in a query read by [`query`].
fn param<'a>(pairs: &[(&str, &'a str)], name: &str) -> Option<&'a str> {
    pairs.iter().find(|(other, _)| *other == name).map(|(_, value)| *value)
}

/// A list's `limit` (default 50, 1 to [`LIST_MAX`]).
fn list_limit(limit: Option<&str>) -> Result<i64, ApiError> {
    let Some(limit) = limit else { return Ok(50) };
    match limit.parse::<i64>() {
        Ok(limit) if (1..=LIST_MAX).contains(&limit) => Ok(limit),
        _ => Err(ApiError::bad_request(
            "bad_request",
            format!("limit is a number from 1 to {LIST_MAX}."),
            Some("limit".into()),
        )),
    }
}

/// `GET /api/admin/tables?order=activity&limit=N`: the tables by their latest activity.
pub async fn tables(
    State(state): State<AppState>,
    _operator: Operator,
    Query(pairs): Query<Vec<(String, String)>>,
) -> Result<Json<Value>, ApiError> {
    let pairs = query(&pairs, &["order", "limit"])?;
    if param(&pairs, "order").is_some_and(|order| order != "activity") {
        return Err(ApiError::bad_request(
            "bad_request",
            "order is \"activity\" (the only order there is).",
            Some("order".into()),
        ));
    }
    let limit = list_limit(param(&pairs, "limit"))?;
    let rows = state.store.tables_by_activity(limit).await.map_err(database)?;
    let mut tables = Vec::with_capacity(rows.len());
    for row in rows {
        let status = match (row.closed_at, row.game_status.as_deref()) {
            (Some(_), _) => "closed",
            (None, Some(status)) => status,
            (None, None) => "waiting",
        };
        let id = row.id;
        let mut entry = json!({
            "id": id,
            "game": row.game,
            "status": status,
            "games": row.games,
            "players": row.players,
            "created_at": rfc3339(row.created_at),
            "active_at": rfc3339(row.active_at),
            "last_move_at": row.last_move_at.map(rfc3339),
            "last_chat_at": row.last_chat_at.map(rfc3339),
            "closed_at": row.closed_at.map(rfc3339),
            "served_here": false,
        });
        // What only the node serving the table knows: who is connected.
        if let Some(handle) = state.tables.serving(&id)
            && let Ok(snapshot) = handle.snapshot().await
        {
            entry["served_here"] = json!(true);
            entry["status"] = json!(snapshot.status.as_str());
            entry["spectators"] = json!(snapshot.spectators);
            entry["seats"] = json!(snapshot.seats);
        }
        tables.push(entry);
    }
    Ok(Json(json!({ "tables": tables })))
}

/// `GET /api/admin/tables/{id}/chat`: every stored line of the table, team lines too.
pub async fn chat(
    State(state): State<AppState>,
    _operator: Operator,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    if state.store.table_closed(&id).await.map_err(database)?.is_none() {
        return Err(ApiError::table_not_found(&id));
    }
    let rows = state.store.admin_chat(&id).await.map_err(database)?;
    let lines: Vec<Value> = rows
        .into_iter()
        .map(|row| {
            json!({
                "id": row.id,
                "seat": row.seat,
                "name": row.name,
                "text": row.text,
                "team": row.team,
                "player_key": row.player_key.as_deref().map(hex_of),
                "sent_at": rfc3339(row.sent_at),
            })
        })
        .collect();
    Ok(Json(json!({ "table": id, "lines": lines })))
}

/// Has the table's actor carry out `action` (loading the table here if needed).
async fn moderate(state: &AppState, id: &str, action: Moderation) -> Result<Moderated, ApiError> {
    let handle = state
        .tables
        .get(id)
        .await
        .map_err(|err| ApiError::table_lookup(id, &err))?;
    let answer = handle.moderate(action).await.map_err(|_| {
        ApiError::unavailable(format!(
            "The table \"{id}\" stopped before it answered (it may have moved to another server); try again."
        ))
    })?;
    answer.map_err(|err| match err {
        ModerationError::NoSuchSeat { .. } => ApiError {
            status: StatusCode::NOT_FOUND,
            code: "no_such_seat",
            message: format!("{}.", capitalised(&err.to_string())),
            field: Some("seat".into()),
        },
        ModerationError::SeatFree(_) => ApiError {
            status: StatusCode::CONFLICT,
            code: "seat_free",
            message: format!("{}: nobody to remove.", capitalised(&err.to_string())),
            field: Some("seat".into()),
        },
        ModerationError::Storage => {
            ApiError::unavailable("The change could not be stored; nothing changed. Please try again.")
        }
    })
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// `POST /api/admin/tables/{id}/close`: aborts any game in play, tells everyone, closes the
/// table's sockets (4000); the table is not served again (`410 table_closed`).
pub async fn close(
    State(state): State<AppState>,
    operator: Operator,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let done = moderate(&state, &id, Moderation::Close).await?;
    let details = json!({"game_aborted": done.game_aborted, "series_ended": done.series_ended});
    operator.record(&state, "close_table", Some(&id), details.clone()).await;
    Ok(Json(
        json!({"table": id, "closed": true, "game_aborted": done.game_aborted, "series_ended": done.series_ended}),
    ))
}

/// `POST /api/admin/tables/{id}/seats/{seat}/remove[?bar=true]`: frees the seat (a game in
/// play is aborted and an undecided series ends); the person is told (`removed`), and with
/// `bar` may not sit down or queue at the table again.
pub async fn remove_seat(
    State(state): State<AppState>,
    operator: Operator,
    Path((id, seat)): Path<(String, String)>,
    Query(pairs): Query<Vec<(String, String)>>,
) -> Result<Json<Value>, ApiError> {
    let pairs = query(&pairs, &["bar"])?;
    let bar = match param(&pairs, "bar") {
        None | Some("false") => false,
        Some("true") => true,
        Some(_) => {
            return Err(ApiError::bad_request(
                "bad_request",
                "bar is true or false.",
                Some("bar".into()),
            ));
        }
    };
    let seat: u8 = seat.parse().map_err(|_| {
        ApiError::bad_request(
            "bad_seat",
            format!("\"{seat}\" is not a seat number (0, 1, …)."),
            Some("seat".into()),
        )
    })?;
    let done = moderate(&state, &id, Moderation::RemoveSeat { seat, bar }).await?;
    let (name, key) = done.removed.clone().unwrap_or_default();
    let key = key.map(|key| key.to_hex());
    let details = json!({
        "seat": seat,
        "name": name,
        "player_key": key,
        "barred": done.barred,
        "game_aborted": done.game_aborted,
        "series_ended": done.series_ended,
    });
    operator.record(&state, "remove_seat", Some(&id), details.clone()).await;
    Ok(Json(json!({
        "table": id,
        "seat": seat,
        "removed": {"name": name, "player_key": key},
        "barred": done.barred,
        "game_aborted": done.game_aborted,
        "series_ended": done.series_ended,
    })))
}

/// `DELETE /api/admin/tables/{id}/bars/{key}`: lets a person an operator barred from the
/// table's seats sit down there again (`404 not_barred` when they were not barred).
pub async fn unbar(
    State(state): State<AppState>,
    operator: Operator,
    Path((id, key)): Path<(String, String)>,
) -> Result<Json<Value>, ApiError> {
    let key = player_key(&key, "key")?;
    let done = moderate(&state, &id, Moderation::Unbar { key }).await?;
    if !done.unbarred {
        return Err(ApiError {
            status: StatusCode::NOT_FOUND,
            code: "not_barred",
            message: "This player is not barred from the table's seats.".into(),
            field: None,
        });
    }
    let answer = json!({"table": id, "player_key": key.to_hex(), "unbarred": true});
    operator.record(&state, "unbar", Some(&id), answer.clone()).await;
    Ok(Json(answer))
}

/// The body of `POST /api/admin/mutes`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct MuteBody {
    player_key: String,
    reason: String,
    minutes: Option<i64>,
}

fn player_key(text: &str, field: &str) -> Result<PlayerKey, ApiError> {
    PlayerKey::from_hex(text).ok_or_else(|| {
        ApiError::bad_request(
            "bad_player_key",
            "A player key is 64 hexadecimal digits (as the admin API lists them).",
            Some(field.into()),
        )
    })
}

/// `POST /api/admin/mutes` `{player_key, reason, minutes?}`: the player's chat lines are
/// refused at every table (`chat_muted`) until `minutes` have passed, or until lifted.
/// Muting again replaces the earlier mute.
pub async fn mute(
    State(state): State<AppState>,
    operator: Operator,
    JsonBody(body): JsonBody,
) -> Result<Json<Value>, ApiError> {
    let body: MuteBody = serde_json::from_slice(&body)
        .map_err(|err| ApiError::bad_request("bad_request", format!("The body does not read: {err}."), None))?;
    let key = player_key(&body.player_key, "player_key")?;
    let reason = body.reason.trim();
    if reason.is_empty()
        || reason.chars().count() > MUTE_REASON_MAX_CHARS
        || reason.chars().any(|c| c.is_control() && c != '\n')
    {
        return Err(ApiError::bad_request(
            "bad_request",
            format!("reason is 1 to {MUTE_REASON_MAX_CHARS} characters, without control characters."),
            Some("reason".into()),
        ));
    }
    let until = match body.minutes {
        None => None,
        Some(minutes) if (1..=MUTE_MAX_MINUTES).contains(&minutes) => {
            Some(OffsetDateTime::now_utc() + time::Duration::minutes(minutes))
        }
        Some(_) => {
            return Err(ApiError::bad_request(
                "bad_request",
                format!("minutes is 1 to {MUTE_MAX_MINUTES} (leave it out for a mute until lifted)."),
                Some("minutes".into()),
            ));
        }
    };
    let notice = MuteNotice {
        player_key: key.to_hex(),
        muted: true,
        reason: reason.to_owned(),
        until: until.map(rfc3339),
    };
    state
        .store
        .mute(key.as_bytes(), &notice, until, &operator.name)
        .await
        .map_err(database)?;
    let answer = json!({"player_key": notice.player_key, "reason": notice.reason, "until": notice.until});
    operator.record(&state, "mute", None, answer.clone()).await;
    Ok(Json(answer))
}

/// `DELETE /api/admin/mutes/{key}`: lifts a mute (`404 not_muted` when there is none).
pub async fn unmute(
    State(state): State<AppState>,
    operator: Operator,
    Path(key): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let key = player_key(&key, "key")?;
    let notice = MuteNotice {
        player_key: key.to_hex(),
        muted: false,
        reason: String::new(),
        until: None,
    };
    if !state.store.unmute(key.as_bytes(), &notice).await.map_err(database)? {
        return Err(ApiError {
            status: StatusCode::NOT_FOUND,
            code: "not_muted",
            message: "This player is not muted.".into(),
            field: None,
        });
    }
    let answer = json!({"player_key": notice.player_key, "unmuted": true});
    operator.record(&state, "unmute", None, answer.clone()).await;
    Ok(Json(answer))
}

/// `POST /api/admin/drain`: stops the node that answers as SIGTERM does (docs/operations.md,
/// "Upgrades"): with other nodes alive it drains first, then the process exits. Sent to a
/// node itself (not through the proxy, which picks any node). `202`, and again while the
/// node drains (nothing more happens).
pub async fn drain(State(state): State<AppState>, operator: Operator) -> (StatusCode, Json<Value>) {
    let alone = state.tables.is_alone();
    let already = state.tables.is_draining();
    let answer = json!({"node": &*state.node_name, "draining": !alone, "already": already});
    if !already {
        operator.record(&state, "drain", None, answer.clone()).await;
        let stopper = state.stopper.clone();
        tokio::spawn(async move { stopper.stop().await });
    }
    (StatusCode::ACCEPTED, Json(answer))
}

/// `GET /api/admin/reports?limit=N`: the reported chat lines, newest report first.
pub async fn reports(
    State(state): State<AppState>,
    _operator: Operator,
    Query(pairs): Query<Vec<(String, String)>>,
) -> Result<Json<Value>, ApiError> {
    let pairs = query(&pairs, &["limit"])?;
    let limit = list_limit(param(&pairs, "limit"))?;
    let rows = state.store.reports(limit).await.map_err(database)?;
    let reports: Vec<Value> = rows
        .into_iter()
        .map(|row| {
            json!({
                "id": row.id,
                "table": row.table_id,
                "reporter_key": hex_of(&row.reporter),
                "reason": row.reason,
                "reported_at": rfc3339(row.reported_at),
                "line": {
                    "id": row.line_id,
                    "seat": row.seat,
                    "name": row.name,
                    "player_key": row.speaker_key.as_deref().map(hex_of),
                    "text": row.text,
                    "team": row.team,
                    "sent_at": rfc3339(row.sent_at),
                },
            })
        })
        .collect();
    Ok(Json(json!({ "reports": reports })))
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn settings(admin: &str, metrics: &str) -> Settings {
        let mut settings = Settings::defaults().expect("defaults");
        settings.admin.token = admin.into();
        settings.metrics.token = metrics.into();
        settings
    }

    fn bearer(token: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        let value = HeaderValue::from_str(&format!("Bearer {token}")).expect("a header value");
        headers.insert("authorization", value);
        headers
    }

    #[test]
    fn the_admin_token_or_else_the_metrics_token_opens_it() {
        let both = settings("adm1n", "scr4pe");
        assert_eq!(token_kind(&both, &bearer("adm1n")), Some(TokenKind::Admin));
        assert_eq!(
            token_kind(&both, &bearer("scr4pe")),
            None,
            "a scraper's token moderates nothing"
        );
        let metrics_only = settings("", "scr4pe");
        assert_eq!(token_kind(&metrics_only, &bearer("scr4pe")), Some(TokenKind::Metrics));
        assert_eq!(token_kind(&metrics_only, &bearer("wrong")), None);
        let neither = settings("", "");
        assert_eq!(token_kind(&neither, &bearer("")), None);
        assert_eq!(token_kind(&neither, &HeaderMap::new()), None);
    }
}
