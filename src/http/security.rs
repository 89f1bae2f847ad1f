//! What the server asks of browsers, and what it checks of a request's `Host` and `Origin`.
//!
//! - Every answer carries a `Content-Security-Policy` that lets a page load only the
//!   server's own scripts, style sheets and images (and `data:` images: the pages' icon),
//!   and connect only to its own origin (the API and the table's WebSocket); no page may
//!   be framed (`frame-ancestors 'none'`, and `X-Frame-Options: DENY` for older browsers);
//!   no content type is guessed (`nosniff`); and no `Referer` is sent: a table's link is
//!   the key to the table, and it is not told to other sites.
//! - A `Host` header goes into a link only if it is a plain `host[:port]`.
//! - A WebSocket upgrade from a browser (one with an `Origin` header) must come from the
//!   server's own origin or one of `server.allowed_origins`, so another site cannot open
//!   a table's socket in its visitors' browsers. Requests without `Origin` (bots, tests,
//!   command-line clients) are allowed: only browsers send it, and a program that is not
//!   a browser could send any `Origin` it liked anyway.

use axum::http::{HeaderMap, HeaderName, HeaderValue, Uri, header};
use axum::response::Response;

pub use crate::config::network::{AllowedOrigins, origin_of_url};
use crate::config::network::{normalize_origin, split_host};

/// The policy of every page: only this origin's scripts, styles, images and connections.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self'; style-src 'self'; \
     img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; \
     form-action 'self'; frame-ancestors 'none'";

/// The headers added to every answer (unless the handler set them).
const HEADERS: [(HeaderName, &str); 4] = [
    (header::CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY),
    (header::X_FRAME_OPTIONS, "DENY"),
    (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
    (header::REFERRER_POLICY, "no-referrer"),
];

/// Adds the security headers to an answer (a `map_response` middleware).
pub async fn add_headers(mut response: Response) -> Response {
    let headers = response.headers_mut();
    for (name, value) in HEADERS {
        headers.entry(name).or_insert(HeaderValue::from_static(value));
    }
    response
}

/// The request's host: its `Host` header, or the authority of its URI (HTTP/2).
pub fn request_host<'a>(headers: &'a HeaderMap, uri: &'a Uri) -> Option<&'a str> {
    match headers.get(header::HOST) {
        Some(value) => value.to_str().ok(),
        None => uri.authority().map(|authority| authority.as_str()),
    }
}

/// Whether `host` is a plain `host[:port]`: a DNS name, an IPv4 address or a bracketed
/// IPv6 address, and a port of 1–65535.
pub fn is_plain_host(host: &str) -> bool {
    split_host(host).is_some()
}

/// Which browser origins may open WebSockets.
#[derive(Debug, Clone)]
pub struct OriginPolicy {
    /// The origin of `server.public_url`, when set: the server's own origin. Otherwise the
    /// request's `Host` is, whatever the scheme (a TLS proxy may stand in front).
    own: Option<String>,
    allowed: AllowedOrigins,
}

impl OriginPolicy {
    pub fn new(public_url: &str, allowed: AllowedOrigins) -> OriginPolicy {
        OriginPolicy {
            own: origin_of_url(public_url),
            allowed,
        }
    }

    /// Whether a request with these headers may open a WebSocket.
    pub fn allows(&self, headers: &HeaderMap, uri: &Uri) -> bool {
        let Some(origin) = headers.get(header::ORIGIN) else {
            return true;
        };
        if self.allowed.any {
            return true;
        }
        let Some(origin) = origin.to_str().ok().and_then(normalize_origin) else {
            return false;
        };
        if self.allowed.origins.contains(&origin) {
            return true;
        }
        if let Some(own) = &self.own {
            return *own == origin;
        }
        let Some(host) = request_host(headers, uri).and_then(split_host) else {
            return false;
        };
        let (scheme, authority) = origin.split_once("://").unwrap_or_default();
        let default_port = if scheme == "https" { 443 } else { 80 };
        let host = match host {
            (name, Some(port)) if port != default_port => format!("{name}:{port}"),
            (name, _) => name,
        };
        host == authority
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_hosts() {
        for good in [
            "localhost",
            "play.example.org",
            "play.example.org:8080",
            "127.0.0.1:3000",
            "[::1]:8080",
            "[2001:db8::1]",
            "my_service",
        ] {
            assert!(is_plain_host(good), "{good}");
        }
        for bad in [
            "",
            "evil.org/path",
            "user@evil.org",
            "evil.org:",
            "evil.org:99999",
            "evil.org:0",
            "a..b",
            "[::1",
            "[nonsense]:80",
            "evil.org:80:80",
            "evil.org\"><script>",
            "ex ample.org",
        ] {
            assert!(!is_plain_host(bad), "{bad}");
        }
    }

    #[test]
    fn origins_are_normalised() {
        assert_eq!(
            normalize_origin("HTTPS://Play.Example.org:443").as_deref(),
            Some("https://play.example.org")
        );
        assert_eq!(
            normalize_origin("http://localhost:8080/").as_deref(),
            Some("http://localhost:8080")
        );
        assert_eq!(normalize_origin("null"), None);
        assert_eq!(normalize_origin("file://"), None);
        assert_eq!(
            origin_of_url("https://play.example.org/games/").as_deref(),
            Some("https://play.example.org")
        );
        assert!(AllowedOrigins::parse(&["not an origin"]).is_err());
    }

    fn with(pairs: &[(HeaderName, &str)]) -> HeaderMap {
        pairs
            .iter()
            .map(|(name, value)| (name.clone(), HeaderValue::from_str(value).unwrap()))
            .collect()
    }

    #[test]
    fn the_own_origin_is_the_host_unless_a_public_url_is_set() {
        let uri = Uri::from_static("/ws/tables/x");
        let by_host = OriginPolicy::new("", AllowedOrigins::default());
        let host = (header::HOST, "play.example.org");
        assert!(
            by_host.allows(&with(std::slice::from_ref(&host)), &uri),
            "no Origin: not a browser"
        );
        assert!(by_host.allows(
            &with(&[host.clone(), (header::ORIGIN, "https://play.example.org")]),
            &uri
        ));
        assert!(by_host.allows(
            &with(&[host.clone(), (header::ORIGIN, "http://play.example.org")]),
            &uri
        ));
        assert!(!by_host.allows(&with(&[host.clone(), (header::ORIGIN, "https://evil.example")]), &uri));
        assert!(!by_host.allows(&with(&[host.clone(), (header::ORIGIN, "null")]), &uri));
        let ported = (header::HOST, "127.0.0.1:8080");
        assert!(by_host.allows(
            &with(&[ported.clone(), (header::ORIGIN, "http://127.0.0.1:8080")]),
            &uri
        ));
        assert!(!by_host.allows(&with(&[ported, (header::ORIGIN, "http://127.0.0.1:9090")]), &uri));

        let configured = OriginPolicy::new(
            "https://play.example.org/",
            AllowedOrigins::parse(&["https://friends.example.net"]).unwrap(),
        );
        let at = |origin| with(&[(header::HOST, "internal:8080"), (header::ORIGIN, origin)]);
        assert!(configured.allows(&at("https://play.example.org"), &uri));
        assert!(configured.allows(&at("https://friends.example.net"), &uri));
        assert!(
            !configured.allows(&at("http://internal:8080"), &uri),
            "the public URL wins"
        );

        let any = OriginPolicy::new("", AllowedOrigins::parse(&["*"]).unwrap());
        assert!(any.allows(&at("https://anywhere.example"), &uri));
    }
}
