//! JSON errors of the REST API: `{"error": {"code", "message", "field"}}` with a status.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Serialize;

use crate::table::registry::GetError;

/// The code of a `503` for a table another node serves until it hands it over; answered
/// with `Retry-After: 1`.
pub const TABLE_MOVING: &str = "table_moving";

/// An error answer of the REST API.
#[derive(Debug, Clone)]
pub struct ApiError {
    pub status: StatusCode,
    pub code: &'static str,
    pub message: String,
    /// The request field at fault, e.g. `settings.board_size`.
    pub field: Option<String>,
}

#[derive(Serialize)]
struct Body<'a> {
    error: Inner<'a>,
}

#[derive(Serialize)]
struct Inner<'a> {
    code: &'a str,
    message: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    field: Option<&'a str>,
}

impl ApiError {
    pub fn bad_request(code: &'static str, message: impl Into<String>, field: Option<String>) -> ApiError {
        ApiError {
            status: StatusCode::BAD_REQUEST,
            code,
            message: message.into(),
            field,
        }
    }

    pub fn table_not_found(id: &str) -> ApiError {
        ApiError {
            status: StatusCode::NOT_FOUND,
            code: "table_not_found",
            message: format!("There is no table \"{id}\"."),
            field: None,
        }
    }

    /// The answer when looking up table `id` failed: `404` only when the database says
    /// there is no such table, `503` when it cannot be asked.
    pub fn table_lookup(id: &str, err: &GetError) -> ApiError {
        match err {
            GetError::NotFound => ApiError::table_not_found(id),
            GetError::Closed => ApiError {
                status: StatusCode::GONE,
                code: "table_closed",
                message: format!("The table \"{id}\" was closed by a moderator."),
                field: None,
            },
            GetError::Unavailable(_) => ApiError::unavailable(format!(
                "The table \"{id}\" cannot be loaded right now (the database is not answering); please try again shortly."
            )),
            GetError::Unreadable(_) => {
                ApiError::internal(format!("The table \"{id}\" is stored but cannot be rebuilt."))
            }
            GetError::Moving => ApiError {
                status: StatusCode::SERVICE_UNAVAILABLE,
                code: TABLE_MOVING,
                message: format!("The table \"{id}\" is moving between servers; try again in a second."),
                field: None,
            },
        }
    }

    pub fn internal(message: impl Into<String>) -> ApiError {
        ApiError {
            status: StatusCode::INTERNAL_SERVER_ERROR,
            code: "internal",
            message: message.into(),
            field: None,
        }
    }

    /// Too many connections: from one address (`429`), or in all (`503`).
    pub fn refused(refusal: super::client::Refusal) -> ApiError {
        crate::metrics::rate_limited(crate::metrics::Limit::Connections);
        match refusal {
            super::client::Refusal::TooManyFromAddress => ApiError {
                status: StatusCode::TOO_MANY_REQUESTS,
                code: "too_many_connections",
                message: "Too many connections from this address; close some and try again.".into(),
                field: None,
            },
            super::client::Refusal::Busy => ApiError {
                status: StatusCode::SERVICE_UNAVAILABLE,
                code: "unavailable",
                message: "The server holds as many connections as it can; please try again shortly.".into(),
                field: None,
            },
        }
    }

    /// This answer as raw HTTP/1.1 bytes that close the connection, for refusing a
    /// connection before any request was read.
    pub fn to_http1_bytes(&self) -> Vec<u8> {
        let body = self.body_json();
        format!(
            "HTTP/1.1 {} {}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            self.status.as_u16(),
            self.status.canonical_reason().unwrap_or(""),
            body.len()
        )
        .into_bytes()
    }

    fn body_json(&self) -> String {
        let body = Body {
            error: Inner {
                code: self.code,
                message: &self.message,
                field: self.field.as_deref(),
            },
        };
        serde_json::to_string(&body).unwrap_or_default()
    }

    pub fn unavailable(message: impl Into<String>) -> ApiError {
        ApiError {
            status: StatusCode::SERVICE_UNAVAILABLE,
            code: "unavailable",
            message: message.into(),
            field: None,
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = Body {
            error: Inner {
                code: self.code,
                message: &self.message,
                field: self.field.as_deref(),
            },
        };
        let mut response = (self.status, Json(body)).into_response();
        if self.code == TABLE_MOVING {
            response.headers_mut().insert(
                axum::http::header::RETRY_AFTER,
                axum::http::HeaderValue::from_static("1"),
            );
        }
        response
    }
}
