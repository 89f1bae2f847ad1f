//! `GET /metrics`: the process's metrics in the Prometheus text format (see
//! [`crate::metrics`] for what is counted, and docs/operations.md, "Metrics").
//!
//! Served on the main port, but not to everyone: to a client connecting straight from a
//! loopback address (a request that names a forwarded client came through a proxy, which
//! may be passing on anyone's request, so it is not one), and, when `metrics.token` is
//! set, to whoever sends `Authorization: Bearer <token>`. Everyone else gets `403`.
//! With `metrics.enabled = false` the route answers `404` like any unknown path.

use std::net::{IpAddr, SocketAddr};

use axum::extract::{ConnectInfo, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};

use super::error::ApiError;
use super::page;
use super::state::AppState;
use crate::config::MetricsSettings;

/// The content type of the Prometheus text format.
const TEXT_FORMAT: &str = "text/plain; version=0.0.4; charset=utf-8";

/// Headers by which a proxy names the client it forwards for.
const FORWARDING_HEADERS: [&str; 3] = ["forwarded", "x-forwarded-for", "x-real-ip"];

pub async fn metrics(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
) -> Response {
    let Some(handle) = &state.metrics else {
        return page::not_found().await.into_response();
    };
    if !may_read(&state.settings.metrics, peer.ip(), &headers) {
        return ApiError {
            status: StatusCode::FORBIDDEN,
            code: "forbidden",
            message:
                "Metrics are served to loopback clients, or with the configured bearer token; see docs/operations.md."
                    .into(),
            field: None,
        }
        .into_response();
    }
    crate::metrics::record_pool(state.store.pool());
    crate::metrics::record_connections(state.clients.open(), state.clients.capacity());
    let body = handle.render();
    ([(header::CONTENT_TYPE, HeaderValue::from_static(TEXT_FORMAT))], body).into_response()
}

/// Whether this request may read the metrics (see the module doc).
fn may_read(settings: &MetricsSettings, peer: IpAddr, headers: &HeaderMap) -> bool {
    let forwarded = FORWARDING_HEADERS.iter().any(|name| headers.contains_key(*name));
    if peer.to_canonical().is_loopback() && !forwarded {
        return true;
    }
    bearer_matches(headers, &settings.token)
}

/// Whether the request presents `Authorization: Bearer <token>` with this `token` (never
/// when `token` is empty). The admin API checks its tokens with this too.
pub(super) fn bearer_matches(headers: &HeaderMap, token: &str) -> bool {
    if token.is_empty() {
        return false;
    }
    let presented = headers
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "))
        .map(str::trim);
    // Compared as digests, so the time taken says nothing about how much of it matched.
    presented.is_some_and(|presented| Sha256::digest(presented.as_bytes()) == Sha256::digest(token.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(token: &str) -> MetricsSettings {
        MetricsSettings {
            enabled: true,
            token: token.into(),
        }
    }

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, HeaderValue::from_str(value).unwrap());
        }
        map
    }

    #[test]
    fn loopback_clients_read_and_others_do_not() {
        let open = settings("");
        assert!(may_read(&open, "127.0.0.1".parse().unwrap(), &HeaderMap::new()));
        assert!(may_read(&open, "::1".parse().unwrap(), &HeaderMap::new()));
        assert!(may_read(&open, "::ffff:127.0.0.1".parse().unwrap(), &HeaderMap::new()));
        assert!(!may_read(&open, "203.0.113.7".parse().unwrap(), &HeaderMap::new()));
    }

    #[test]
    fn a_request_through_a_proxy_on_the_same_host_is_not_local() {
        let open = settings("");
        for name in FORWARDING_HEADERS {
            let forwarded = headers(&[(name, "203.0.113.7")]);
            assert!(!may_read(&open, "127.0.0.1".parse().unwrap(), &forwarded), "{name}");
        }
    }

    #[test]
    fn the_bearer_token_opens_it_to_any_address() {
        let secured = settings("s3cret-scraper");
        let remote: IpAddr = "203.0.113.7".parse().unwrap();
        assert!(may_read(
            &secured,
            remote,
            &headers(&[("authorization", "Bearer s3cret-scraper")])
        ));
        assert!(!may_read(
            &secured,
            remote,
            &headers(&[("authorization", "Bearer wrong")])
        ));
        assert!(!may_read(
            &secured,
            remote,
            &headers(&[("authorization", "s3cret-scraper")])
        ));
        assert!(!may_read(&secured, remote, &HeaderMap::new()));
        // An empty token never matches an empty presentation.
        assert!(!may_read(
            &settings(""),
            remote,
            &headers(&[("authorization", "Bearer ")])
        ));
    }
}
