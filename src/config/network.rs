//! The network settings' own types: trusted proxies, the forwarded header they use, the
//! origins allowed to open WebSockets, and the host and origin forms they are checked in.
//! The HTTP layer applies them (`http::client`, `http::security`); configuration only
//! reads and validates them.

use std::net::IpAddr;

use ipnet::IpNet;
use serde::Deserialize;

/// The reverse proxies whose forwarded headers are believed: addresses or networks.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustedProxies(Vec<IpNet>);

impl TrustedProxies {
    /// Reads entries such as `127.0.0.1`, `::1` or `10.0.0.0/8`.
    pub fn parse<S: AsRef<str>>(entries: &[S]) -> Result<TrustedProxies, String> {
        entries
            .iter()
            .map(|entry| entry.as_ref().trim())
            .filter(|entry| !entry.is_empty())
            .map(|entry| {
                entry
                    .parse::<IpNet>()
                    .or_else(|_| entry.parse::<IpAddr>().map(IpNet::from))
                    .map_err(|_| {
                        format!(
                            "server.trusted_proxies: \"{entry}\" is neither an IP address nor a network such as 10.0.0.0/8"
                        )
                    })
            })
            .collect::<Result<_, _>>()
            .map(TrustedProxies)
    }

    pub fn contains(&self, ip: IpAddr) -> bool {
        let ip = ip.to_canonical();
        self.0.iter().any(|net| net.contains(&ip))
    }
}

/// A list in the configuration files, or one comma-separated string (as an environment
/// variable can only be).
#[derive(Deserialize)]
#[serde(untagged)]
enum ListSetting {
    Many(Vec<String>),
    One(String),
}

impl ListSetting {
    fn entries(self) -> Vec<String> {
        match self {
            ListSetting::Many(entries) => entries,
            ListSetting::One(text) => text.split(',').map(str::to_owned).collect(),
        }
    }
}

impl<'de> Deserialize<'de> for TrustedProxies {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let entries = ListSetting::deserialize(deserializer)?.entries();
        TrustedProxies::parse(&entries).map_err(serde::de::Error::custom)
    }
}

/// The header a trusted proxy names the client in.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ForwardedHeader {
    /// `X-Forwarded-For: client, proxy1` with `X-Forwarded-Proto: https`.
    #[default]
    XForwardedFor,
    /// RFC 7239: `Forwarded: for=192.0.2.7;proto=https, for="[2001:db8::1]"`.
    Forwarded,
}

/// The name (lowercase) and port of a plain `host[:port]`.
pub fn split_host(host: &str) -> Option<(String, Option<u16>)> {
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
pub fn normalize_origin(origin: &str) -> Option<String> {
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
    pub any: bool,
    /// Normalised origins.
    pub origins: Vec<String>,
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
