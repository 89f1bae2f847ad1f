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
use serde::Deserialize;

use super::client::ListSetting;

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

/// The name (lowercase) and port of a plain `host[:port]`.
fn split_host(host: &str) -> Option<(String, Option<u16>)> {
    let (name, port) = if let Some(rest) = host.strip_prefix('[') {
        let (inner, after) = rest.split_once(']')?;
        inner.parse::<std::net::Ipv6Addr>().ok()?;
        let port = match after {
            "" => None,
            _ => Some(after.strip_prefix(':')?),
        };
        (&host[..inner.len() + 2], port)
    } else {
        match host.split_once(':') {
            Some((name, port)) => (name, Some(port)),
            None => (host, None),
        }
    };
    let port = match port {
        None => None,
        Some(digits) if (1..=5).contains(&digits.len()) && digits.bytes().all(|b| b.is_ascii_digit()) => {
            Some(digits.parse::<u16>().ok().filter(|port| *port != 0)?)
        }
        Some(_) => return None,
    };
    let is_name = name.len() <= 253
        && name.split('.').all(|label| {
            (1..=63).contains(&label.len())
                && label
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        });
    (name.starts_with('[') || is_name).then(|| (name.to_ascii_lowercase(), port))
}

/// `scheme://host[:port]` in lowercase without the scheme's default port, from an origin
/// such as `https://Play.example.org:443`; `None` unless it is an `http(s)` origin.
fn normalize_origin(origin: &str) -> Option<String> {
    let origin = origin.trim().trim_end_matches('/');
    let (scheme, authority) = origin.split_once("://")?;
    let scheme = scheme.to_ascii_lowercase();
    let default_port = match scheme.as_str() {
        "http" => 80,
        "https" => 443,
        _ => return None,
    };
    let (name, port) = split_host(authority)?;
    Some(match port {
        Some(port) if port != default_port => format!("{scheme}://{name}:{port}"),
        _ => format!("{scheme}://{name}"),
    })
}

/// The origin of an `http(s)` URL such as `https://play.example.org/games` (for
/// `server.public_url`).
pub fn origin_of_url(url: &str) -> Option<String> {
    let (scheme, rest) = url.trim().split_once("://")?;
    let authority = rest.split(['/', '?', '#']).next()?;
    normalize_origin(&format!("{scheme}://{authority}"))
}

/// `server.allowed_origins`: origins whose pages may open WebSockets here.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AllowedOrigins {
    /// `*` was listed: any origin.
    any: bool,
    /// Normalised origins.
    origins: Vec<String>,
}

impl AllowedOrigins {
    /// Reads entries such as `https://games.example.org` or `*`.
    pub fn parse<S: AsRef<str>>(entries: &[S]) -> Result<AllowedOrigins, String> {
        let mut allowed = AllowedOrigins::default();
        for entry in entries.iter().map(|entry| entry.as_ref().trim()) {
            match entry {
                "" => {}
                "*" => allowed.any = true,
                _ => allowed.origins.push(normalize_origin(entry).ok_or_else(|| {
                    format!("server.allowed_origins: \"{entry}\" is not an origin such as https://games.example.org")
                })?),
            }
        }
        Ok(allowed)
    }
}

impl<'de> Deserialize<'de> for AllowedOrigins {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let entries = ListSetting::deserialize(deserializer)?.entries();
        AllowedOrigins::parse(&entries).map_err(serde::de::Error::custom)
    }
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
