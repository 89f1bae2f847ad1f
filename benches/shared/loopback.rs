//! The one address both load generators accept: an `http://host:port` URL that resolves to
//! loopback only (they open thousands of sockets and must never aim them at another host).

use std::net::{SocketAddr, ToSocketAddrs};

/// The socket address of `url` (a path is ignored; no port means 80), preferring IPv4;
/// an error sentence when it is not `http://` or resolves to anything but loopback.
pub fn loopback_addr(url: &str) -> Result<SocketAddr, String> {
    let rest = url
        .strip_prefix("http://")
        .ok_or_else(|| format!("{url:?} must start with http://"))?;
    let host_port = rest.split('/').next().unwrap_or_default();
    let host_port = if host_port.contains(':') {
        host_port.to_owned()
    } else {
        format!("{host_port}:80")
    };
    let addrs: Vec<SocketAddr> = host_port
        .to_socket_addrs()
        .map_err(|err| format!("cannot resolve {host_port}: {err}"))?
        .collect();
    match addrs.iter().find(|addr| addr.is_ipv4()).or(addrs.first()) {
        Some(first) if addrs.iter().all(|addr| addr.ip().is_loopback()) => Ok(*first),
        _ => Err(format!("{url:?} must be a loopback address (127.0.0.0/8 or ::1)")),
    }
}
