//! Who a request comes from, and how many connections each client holds.
//!
//! The client is the peer of the TCP connection, unless that peer is one of the configured
//! `server.trusted_proxies`: then it is the address the proxy forwarded, read from the one
//! header `server.forwarded_header` names (`X-Forwarded-For`, or RFC 7239 `Forwarded`), and
//! the proxy also says whether the client used TLS. Nobody else's forwarded headers are
//! believed, so a client cannot pick its own address for the per-address limits.
//!
//! [`Clients`] counts open connections per client address (an IPv6 client by its /64, since
//! one host usually holds a whole /64) and in total. A direct connection is counted from
//! `accept` until its socket closes, WebSocket included. Behind a trusted proxy the
//! address is known only from a request's headers, so there each request (and each
//! WebSocket, for its lifetime) holds a place of its client's.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv6Addr, SocketAddr};
use std::sync::{Arc, Mutex, PoisonError};

use axum::extract::{ConnectInfo, FromRequestParts, Request, State};
use axum::http::HeaderMap;
use axum::http::request::Parts;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::error::ApiError;
use super::state::AppState;
pub use crate::config::network::{ForwardedHeader, TrustedProxies};

/// A request's client, as far as it can be believed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Client {
    /// The peer's address, or the one a trusted proxy forwarded.
    pub ip: IpAddr,
    /// Whether the client reached a trusted proxy over TLS (a direct client is plain HTTP).
    pub https: bool,
}

impl Client {
    /// The key of per-address limits: the address, or an IPv6 address's /64 network.
    pub fn limit_key(&self) -> IpAddr {
        limit_key(self.ip)
    }
}

/// The key of per-address limits for `ip`.
fn limit_key(ip: IpAddr) -> IpAddr {
    match ip.to_canonical() {
        IpAddr::V6(v6) => {
            let bits = u128::from(v6) & !((1u128 << 64) - 1);
            IpAddr::V6(Ipv6Addr::from(bits))
        }
        v4 => v4,
    }
}

impl FromRequestParts<AppState> for Client {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Client, ApiError> {
        let ConnectInfo(peer) = parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .copied()
            .ok_or_else(|| ApiError::internal("The peer address of the connection is unknown."))?;
        Ok(state.clients.client(peer, &parts.headers))
    }
}

/// Why a connection was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// The client address holds `connections_per_address` already.
    TooManyFromAddress,
    /// The server holds as many connections as its file descriptors allow.
    Busy,
}

/// The trusted proxies, and the open connections per client address and in total.
#[derive(Debug)]
pub struct Clients {
    proxies: TrustedProxies,
    header: ForwardedHeader,
    /// Connections one address may hold; 0: no cap.
    per_address: usize,
    /// Connections the server holds at most, so that file descriptors remain for the
    /// database and for answering.
    capacity: usize,
    counts: Mutex<Counts>,
}

#[derive(Debug, Default)]
struct Counts {
    total: usize,
    by_address: HashMap<IpAddr, usize>,
}

/// One place taken among the open connections; given back when dropped.
#[derive(Debug)]
pub struct ConnectionSlot {
    clients: Arc<Clients>,
    /// Counted in the total (a TCP connection, not a request behind a proxy).
    total: bool,
    /// The address whose count it holds, if any.
    address: Option<IpAddr>,
}

impl Drop for ConnectionSlot {
    fn drop(&mut self) {
        let mut counts = self.clients.lock();
        if self.total {
            counts.total = counts.total.saturating_sub(1);
        }
        if let Some(address) = self.address
            && let Some(count) = counts.by_address.get_mut(&address)
        {
            *count -= 1;
            if *count == 0 {
                counts.by_address.remove(&address);
            }
        }
    }
}

impl Clients {
    pub fn new(proxies: TrustedProxies, header: ForwardedHeader, per_address: usize, capacity: usize) -> Arc<Clients> {
        Arc::new(Clients {
            proxies,
            header,
            per_address,
            capacity,
            counts: Mutex::default(),
        })
    }

    /// Whether `peer` is a trusted proxy.
    pub fn trusts(&self, peer: IpAddr) -> bool {
        self.proxies.contains(peer)
    }

    /// The client of a request that arrived from `peer` with `headers`.
    pub fn client(&self, peer: SocketAddr, headers: &HeaderMap) -> Client {
        let direct = Client {
            ip: peer.ip().to_canonical(),
            https: false,
        };
        if !self.trusts(direct.ip) {
            return direct;
        }
        match self.header {
            ForwardedHeader::XForwardedFor => {
                let hops: Vec<Option<IpAddr>> = header_values(headers, "x-forwarded-for")
                    .flat_map(|value| value.split(','))
                    .map(parse_hop)
                    .collect();
                let ip = self.walk_back(direct.ip, hops.iter().copied());
                let https = header_values(headers, "x-forwarded-proto")
                    .flat_map(|value| value.split(','))
                    .next()
                    .is_some_and(|proto| proto.trim().eq_ignore_ascii_case("https"));
                Client { ip, https }
            }
            ForwardedHeader::Forwarded => {
                let elements: Vec<(Option<IpAddr>, bool)> = header_values(headers, "forwarded")
                    .flat_map(split_unquoted)
                    .map(parse_forwarded_element)
                    .collect();
                // The client is named in the element the first untrusted hop wrote, so
                // its `proto` is the scheme the client used.
                let mut client = direct;
                for (ip, https) in elements.iter().rev() {
                    let Some(ip) = ip else { break };
                    client = Client { ip: *ip, https: *https };
                    if !self.trusts(*ip) {
                        break;
                    }
                }
                client
            }
        }
    }

    /// From the nearest hop back: the first address that is not a trusted proxy (or the
    /// last believable one when a hop cannot be read).
    fn walk_back(&self, peer: IpAddr, hops: impl DoubleEndedIterator<Item = Option<IpAddr>>) -> IpAddr {
        let mut client = peer;
        for hop in hops.rev() {
            let Some(ip) = hop else { break };
            client = ip;
            if !self.trusts(ip) {
                break;
            }
        }
        client
    }

    /// Counts a connection just accepted from `peer`: against its address, unless the
    /// peer is a trusted proxy (whose requests are counted one by one by their client).
    pub fn accept(self: &Arc<Self>, peer: IpAddr) -> Result<ConnectionSlot, Refusal> {
        let address = (!self.trusts(peer)).then(|| limit_key(peer));
        self.take(true, address)
    }

    /// Counts a request (or WebSocket) a trusted proxy forwarded for `client`.
    pub fn forwarded(self: &Arc<Self>, client: &Client) -> Result<ConnectionSlot, Refusal> {
        self.take(false, Some(client.limit_key()))
    }

    /// How many connections are open.
    pub fn open(&self) -> usize {
        self.lock().total
    }

    /// The most connections the server holds.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    fn take(self: &Arc<Self>, total: bool, address: Option<IpAddr>) -> Result<ConnectionSlot, Refusal> {
        let mut counts = self.lock();
        if total && counts.total >= self.capacity {
            return Err(Refusal::Busy);
        }
        if let Some(address) = address {
            let count = counts.by_address.get(&address).copied().unwrap_or(0);
            if self.per_address != 0 && count >= self.per_address {
                return Err(Refusal::TooManyFromAddress);
            }
            counts.by_address.insert(address, count + 1);
        }
        if total {
            counts.total += 1;
        }
        Ok(ConnectionSlot {
            clients: Arc::clone(self),
            total,
            address,
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Counts> {
        self.counts.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A place a forwarded request holds among its client's connections; a WebSocket keeps a
/// clone for as long as it is open.
#[derive(Debug, Clone)]
pub struct ForwardedSlot(#[allow(dead_code)] Arc<ConnectionSlot>);

/// Middleware: a request from a trusted proxy takes a place among its client's
/// connections (as a direct connection does on `accept`), or is answered `429`.
pub async fn admit_forwarded(State(state): State<AppState>, mut request: Request, next: Next) -> Response {
    let Some(ConnectInfo(peer)) = request.extensions().get::<ConnectInfo<SocketAddr>>().copied() else {
        return next.run(request).await;
    };
    if !state.clients.trusts(peer.ip()) {
        return next.run(request).await;
    }
    let client = state.clients.client(peer, request.headers());
    match state.clients.forwarded(&client) {
        Ok(slot) => {
            request.extensions_mut().insert(ForwardedSlot(Arc::new(slot)));
            next.run(request).await
        }
        Err(refusal) => ApiError::refused(refusal).into_response(),
    }
}

/// The text of every `name` header, in order (unreadable ones skipped).
fn header_values<'a>(headers: &'a HeaderMap, name: &'static str) -> impl Iterator<Item = &'a str> {
    headers.get_all(name).iter().filter_map(|value| value.to_str().ok())
}

/// One `X-Forwarded-For` hop: an address, perhaps with a port (`[v6]:port`, `v4:port`).
fn parse_hop(hop: &str) -> Option<IpAddr> {
    let hop = hop.trim().trim_matches('"');
    if let Ok(ip) = hop.parse::<IpAddr>() {
        return Some(ip.to_canonical());
    }
    if let Ok(addr) = hop.parse::<SocketAddr>() {
        return Some(addr.ip().to_canonical());
    }
    hop.strip_prefix('[')
        .and_then(|rest| rest.strip_suffix(']'))
        .and_then(|inner| inner.parse::<IpAddr>().ok())
        .map(|ip| ip.to_canonical())
}

/// Splits a `Forwarded` value into its elements at commas outside quoted strings.
fn split_unquoted(value: &str) -> impl Iterator<Item = &str> {
    let mut elements = Vec::new();
    let mut start = 0;
    let mut quoted = false;
    let mut escaped = false;
    for (at, c) in value.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if quoted => escaped = true,
            '"' => quoted = !quoted,
            ',' if !quoted => {
                elements.push(&value[start..at]);
                start = at + 1;
            }
            _ => {}
        }
    }
    elements.push(&value[start..]);
    elements.into_iter()
}

/// The `for` address (if it is one: `unknown` and obfuscated names are not) and whether
/// `proto=https`, of one `Forwarded` element such as `for="[2001:db8::1]:80";proto=https`.
fn parse_forwarded_element(element: &str) -> (Option<IpAddr>, bool) {
    let mut ip = None;
    let mut https = false;
    for pair in element.split(';') {
        let Some((key, value)) = pair.split_once('=') else {
            continue;
        };
        let value = value.trim().trim_matches('"');
        match key.trim().to_ascii_lowercase().as_str() {
            "for" => ip = parse_hop(value),
            "proto" => https = value.eq_ignore_ascii_case("https"),
            _ => {}
        }
    }
    (ip, https)
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn clients(proxies: &[&str], header: ForwardedHeader) -> Arc<Clients> {
        Clients::new(TrustedProxies::parse(proxies).unwrap(), header, 2, 3)
    }

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(*name, HeaderValue::from_str(value).unwrap());
        }
        map
    }

    fn peer(ip: &str) -> SocketAddr {
        SocketAddr::new(ip.parse().unwrap(), 40000)
    }

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn proxies_are_addresses_or_networks() {
        let proxies = TrustedProxies::parse(&["127.0.0.1", " 10.0.0.0/8 ", "::1"]).unwrap();
        assert!(proxies.contains(ip("127.0.0.1")));
        assert!(proxies.contains(ip("10.20.30.40")));
        assert!(proxies.contains(ip("::1")));
        assert!(proxies.contains(ip("::ffff:10.1.2.3")), "a v4-mapped address is its v4");
        assert!(!proxies.contains(ip("11.0.0.1")));
        let err = TrustedProxies::parse(&["proxy.local"]).unwrap_err();
        assert!(err.contains("proxy.local"), "{err}");
    }

    #[test]
    fn forwarded_headers_from_anyone_else_are_ignored() {
        let clients = clients(&[], ForwardedHeader::XForwardedFor);
        let forged = headers(&[("x-forwarded-for", "203.0.113.9"), ("x-forwarded-proto", "https")]);
        assert_eq!(
            clients.client(peer("198.51.100.1"), &forged),
            Client {
                ip: ip("198.51.100.1"),
                https: false
            }
        );
    }

    #[test]
    fn x_forwarded_for_is_read_from_the_right_past_trusted_hops() {
        let clients = clients(&["10.0.0.0/8"], ForwardedHeader::XForwardedFor);
        // The client forged the first entry; the proxies appended the real one and themselves.
        let chain = headers(&[
            ("x-forwarded-for", "1.2.3.4, 203.0.113.9"),
            ("x-forwarded-for", "10.0.0.2"),
            ("x-forwarded-proto", "https"),
        ]);
        let client = clients.client(peer("10.0.0.1"), &chain);
        assert_eq!(client.ip, ip("203.0.113.9"));
        assert!(client.https);
        // With ports, in brackets.
        let ported = headers(&[("x-forwarded-for", "[2001:db8::7]:4711")]);
        assert_eq!(clients.client(peer("10.0.0.1"), &ported).ip, ip("2001:db8::7"));
        // An unreadable hop stops the walk at the last believable address.
        let garbage = headers(&[("x-forwarded-for", "203.0.113.9, nonsense, 10.0.0.3")]);
        assert_eq!(clients.client(peer("10.0.0.1"), &garbage).ip, ip("10.0.0.3"));
        // No header: the proxy itself.
        assert_eq!(clients.client(peer("10.0.0.1"), &HeaderMap::new()).ip, ip("10.0.0.1"));
        // A `Forwarded` header is not read in this mode.
        let other = headers(&[("forwarded", "for=203.0.113.9")]);
        assert_eq!(clients.client(peer("10.0.0.1"), &other).ip, ip("10.0.0.1"));
    }

    #[test]
    fn forwarded_elements_name_the_client_and_its_scheme() {
        let clients = clients(&["10.0.0.0/8"], ForwardedHeader::Forwarded);
        let chain = headers(&[(
            "forwarded",
            r#"for=1.2.3.4;proto=http, for="[2001:db8:cafe::17]:4711";proto=https;by=10.0.0.2, for=10.0.0.3"#,
        )]);
        let client = clients.client(peer("10.0.0.1"), &chain);
        assert_eq!(client.ip, ip("2001:db8:cafe::17"));
        assert!(client.https);
        let hidden = headers(&[("forwarded", "for=unknown, for=10.0.0.5")]);
        assert_eq!(clients.client(peer("10.0.0.1"), &hidden).ip, ip("10.0.0.5"));
        let quoted = headers(&[("forwarded", r#"for="203.0.113.1";host="a,b""#)]);
        assert_eq!(clients.client(peer("10.0.0.1"), &quoted).ip, ip("203.0.113.1"));
        let xff = headers(&[("x-forwarded-for", "203.0.113.9")]);
        assert_eq!(clients.client(peer("10.0.0.1"), &xff).ip, ip("10.0.0.1"));
    }

    #[test]
    fn an_ipv6_client_is_limited_by_its_64() {
        let clients = clients(&[], ForwardedHeader::XForwardedFor);
        let _a = clients.accept(ip("2001:db8:1:2::1")).unwrap();
        let _b = clients.accept(ip("2001:db8:1:2:ffff::9")).unwrap();
        assert_eq!(
            clients.accept(ip("2001:db8:1:2::3")).unwrap_err(),
            Refusal::TooManyFromAddress
        );
        assert!(clients.accept(ip("2001:db8:1:3::1")).is_ok(), "another /64");
    }

    #[test]
    fn places_are_given_back_and_the_total_is_capped() {
        let clients = clients(&["10.0.0.1"], ForwardedHeader::XForwardedFor);
        let a = clients.accept(ip("192.0.2.1")).unwrap();
        let _b = clients.accept(ip("192.0.2.1")).unwrap();
        assert_eq!(
            clients.accept(ip("192.0.2.1")).unwrap_err(),
            Refusal::TooManyFromAddress
        );
        drop(a);
        let _c = clients.accept(ip("192.0.2.1")).unwrap();
        let _proxy = clients.accept(ip("10.0.0.1")).unwrap();
        assert_eq!(clients.accept(ip("192.0.2.2")).unwrap_err(), Refusal::Busy);
        assert_eq!(clients.open(), 3, "a refused connection holds nothing");
        // Requests through a proxy count by their client, not in the total.
        let forwarded = Client {
            ip: ip("192.0.2.2"),
            https: false,
        };
        let _d = clients.forwarded(&forwarded).unwrap();
        let _e = clients.forwarded(&forwarded).unwrap();
        assert_eq!(clients.forwarded(&forwarded).unwrap_err(), Refusal::TooManyFromAddress);
    }
}
