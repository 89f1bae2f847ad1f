//! The HTTP edge of the real server as a hostile or careless client meets it: silent and
//! half-sent connections are closed, one address cannot hold every connection, a server
//! out of file descriptors keeps answering, forwarded headers are believed only from
//! trusted proxies, and the details of creating tables, links, security headers and
//! WebSocket origins.

mod common;

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::Duration;

use common::{Client, TestApp, spawn_app, spawn_app_with};
use serde_json::{Value, json};
use spelbord::http::client::{ForwardedHeader, TrustedProxies};
use spelbord::http::security::AllowedOrigins;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpSocket, TcpStream};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tokio_tungstenite::{MaybeTlsStream, tungstenite};

/// The longest a test waits for something that takes a fraction of it (a guard against
/// hangs, not a measure of speed).
const PATIENCE: Duration = Duration::from_secs(20);

const LOCALHOST: IpAddr = IpAddr::V4(Ipv4Addr::LOCALHOST);
/// Another client address on the same machine (all of 127.0.0.0/8 is the loopback).
const OTHER_LOCAL: IpAddr = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2));

/// Reads until the server closes the connection (EOF or reset); fails after [`PATIENCE`].
async fn closed_by_server(stream: &mut TcpStream) -> Vec<u8> {
    let mut received = Vec::new();
    tokio::time::timeout(PATIENCE, async {
        let mut buf = [0u8; 4096];
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => received.extend_from_slice(&buf[..n]),
            }
        }
    })
    .await
    .expect("the server closes the connection within the limit");
    received
}

/// Opens a WebSocket to `table` from `from` with extra request headers.
async fn ws_connect(
    app: &TestApp,
    table: &str,
    headers: &[(&'static str, &str)],
    from: IpAddr,
) -> Result<Client, tungstenite::Error> {
    let mut request = app.ws(table).into_client_request().expect("a WebSocket URL");
    for (name, value) in headers {
        request
            .headers_mut()
            .insert(*name, HeaderValue::from_str(value).expect("a header value"));
    }
    let socket = TcpSocket::new_v4().expect("a socket");
    socket.bind(SocketAddr::new(from, 0)).expect("bind a loopback address");
    let stream = socket.connect(app.addr).await.map_err(tungstenite::Error::Io)?;
    let (ws, _) = tokio_tungstenite::client_async(request, MaybeTlsStream::Plain(stream)).await?;
    let mut client = Client::from_stream(ws);
    assert_eq!(client.recv().await["type"], "snapshot");
    Ok(client)
}

/// The HTTP status a refused WebSocket upgrade was answered with, if it got that far.
fn refused_status(result: Result<Client, tungstenite::Error>) -> Option<u16> {
    match result {
        Ok(_) => panic!("the connection was accepted"),
        Err(tungstenite::Error::Http(response)) => Some(response.status().as_u16()),
        Err(_) => None,
    }
}

/// `POST /api/tables` with a Gomoku body and extra headers; the status and JSON answer.
async fn create_with(app: &TestApp, headers: &[(&str, &str)]) -> (u16, Value) {
    let mut request = reqwest::Client::new()
        .post(app.http("/api/tables"))
        .json(&json!({"game": "gomoku"}));
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.send().await.expect("POST");
    let status = response.status().as_u16();
    (status, response.json().await.expect("a JSON body"))
}

/// Whether `html` has an attribute such as ` onclick=`.
fn has_event_handler_attribute(html: &str) -> bool {
    html.match_indices(" on").any(|(at, _)| {
        let rest = &html[at + 3..];
        let name_len = rest.bytes().take_while(u8::is_ascii_lowercase).count();
        name_len > 0 && rest[name_len..].starts_with('=')
    })
}

async fn stored_tables(app: &TestApp) -> i64 {
    sqlx::query_scalar("SELECT count(*) FROM tables")
        .fetch_one(&app.pool)
        .await
        .expect("count the tables")
}

// ------------------------------------------------------------------ defect 1: connections

#[tokio::test]
async fn silent_half_sent_and_idle_connections_are_closed() {
    let app = spawn_app_with(|settings| settings.limits.request_read_timeout_ms = 300).await;
    let mut silent = TcpStream::connect(app.addr).await.expect("connect");
    let mut half = TcpStream::connect(app.addr).await.expect("connect");
    half.write_all(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n")
        .await
        .expect("send half a request");
    let mut body_missing = TcpStream::connect(app.addr).await.expect("connect");
    body_missing
        .write_all(b"POST /api/tables HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{")
        .await
        .expect("send a head and a bit of the body");
    let mut kept_alive = TcpStream::connect(app.addr).await.expect("connect");
    kept_alive
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .await
        .expect("send a request");

    // A body dribbled in a byte at a time still has to arrive within the limit.
    let mut dribbled = TcpStream::connect(app.addr).await.expect("connect");
    dribbled
        .write_all(b"POST /api/tables HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n")
        .await
        .expect("send a head");
    let (mut reader, mut writer) = dribbled.into_split();
    let dribble = tokio::spawn(async move {
        for _ in 0..200 {
            if writer.write_all(b" ").await.is_err() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    });
    let mut answer = Vec::new();
    tokio::time::timeout(PATIENCE, reader.read_to_end(&mut answer))
        .await
        .expect("the server closes the dribbling connection")
        .ok();
    let answer = String::from_utf8_lossy(&answer).into_owned();
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    dribble.abort();

    assert!(closed_by_server(&mut silent).await.is_empty());
    assert!(
        !String::from_utf8_lossy(&closed_by_server(&mut half).await).contains("200 OK"),
        "half a request is never answered"
    );
    let answer = String::from_utf8_lossy(&closed_by_server(&mut body_missing).await).into_owned();
    assert!(!answer.contains("201"), "no table from a cut-off body: {answer}");
    let answer = String::from_utf8_lossy(&closed_by_server(&mut kept_alive).await).into_owned();
    assert!(
        answer.starts_with("HTTP/1.1 200"),
        "answered, then closed when idle: {answer}"
    );
    assert_eq!(stored_tables(&app).await, 0);

    // A WebSocket, once upgraded, is not cut by the limit on reading requests.
    let table = app.gomoku_table(json!({})).await;
    let mut watcher = app.client(&table).await;
    tokio::time::sleep(Duration::from_millis(900)).await;
    watcher.sync().await;
}

#[tokio::test]
async fn one_address_holds_at_most_its_connections_and_others_still_get_in() {
    let app = spawn_app_with(|settings| settings.limits.connections_per_address = 2).await;
    let table = app.gomoku_table(json!({})).await;
    let mut first = ws_connect(&app, &table, &[], LOCALHOST).await.expect("first");
    let second = ws_connect(&app, &table, &[], LOCALHOST).await.expect("second");
    let status = refused_status(ws_connect(&app, &table, &[], LOCALHOST).await);
    assert!(matches!(status, None | Some(429)), "{status:?}");
    // Another address still gets in, and the open connections still work.
    let mut other = ws_connect(&app, &table, &[], OTHER_LOCAL)
        .await
        .expect("another address");
    other.sync().await;
    first.sync().await;
    // A closed connection gives its place back.
    second.close().await;
    let deadline = tokio::time::Instant::now() + PATIENCE;
    let mut again = loop {
        match ws_connect(&app, &table, &[], LOCALHOST).await {
            Ok(client) => break client,
            Err(_) if tokio::time::Instant::now() < deadline => tokio::time::sleep(Duration::from_millis(20)).await,
            Err(err) => panic!("the place was not given back: {err}"),
        }
    };
    again.sync().await;
}

/// The real binary with file descriptors for 256 files, as in the report: 300 silent
/// connections no longer keep `/healthz` from answering.
#[tokio::test]
async fn a_server_short_of_file_descriptors_keeps_answering() {
    let database = common::TestDb::create().await;
    let mut server = tokio::process::Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -n 256 && exec {}", env!("CARGO_BIN_EXE_spelbord")))
        .env("DATABASE_URL", database.url())
        .env("PORT", "0")
        .env("APP_CONFIG_DIR", "/nonexistent")
        .env("APP__LIMITS__REQUEST_READ_TIMEOUT_MS", "1000")
        .env("APP__LIMITS__CONNECTIONS_PER_ADDRESS", "0")
        .env("APP__DATABASE__MAX_CONNECTIONS", "4")
        .env("RUST_LOG", "info")
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("start the server");
    let mut lines = BufReader::new(server.stdout.take().expect("its output")).lines();
    let addr = tokio::time::timeout(PATIENCE, async {
        while let Some(line) = lines.next_line().await.expect("a log line") {
            if let Some((_, rest)) = line.split_once("listening on http://") {
                let addr = rest.split_whitespace().next().expect("an address");
                return addr.parse::<SocketAddr>().expect("a socket address");
            }
        }
        panic!("the server stopped before listening");
    })
    .await
    .expect("the server listens");
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });

    let mut silent = Vec::new();
    for _ in 0..300 {
        silent.push(TcpStream::connect(addr).await.expect("connect"));
    }
    let http = reqwest::Client::builder()
        .timeout(Duration::from_secs(3))
        .build()
        .expect("a client");
    let healthy = tokio::time::timeout(PATIENCE, async {
        loop {
            match http.get(format!("http://{addr}/healthz")).send().await {
                Ok(response) if response.status() == 200 => return,
                _ => tokio::time::sleep(Duration::from_millis(100)).await,
            }
        }
    })
    .await;
    assert!(healthy.is_ok(), "/healthz answers while 300 silent connections arrive");
    drop(silent);
    server.kill().await.ok();
}

// ------------------------------------------------------------- defect 8: trusted proxies

#[tokio::test]
async fn forwarded_addresses_count_only_from_trusted_proxies() {
    // Not trusted: a forged X-Forwarded-For does not buy a fresh allowance.
    let direct = spawn_app_with(|settings| settings.limits.tables_per_minute = 1).await;
    assert_eq!(create_with(&direct, &[("x-forwarded-for", "203.0.113.5")]).await.0, 201);
    let (status, body) = create_with(&direct, &[("x-forwarded-for", "203.0.113.6")]).await;
    assert_eq!((status, body["error"]["code"].clone()), (429, json!("rate_limited")));

    // Behind a trusted proxy, each forwarded client has its own allowance.
    let proxied = spawn_app_with(|settings| {
        settings.limits.tables_per_minute = 1;
        settings.server.trusted_proxies = TrustedProxies::parse(&["127.0.0.1"]).unwrap();
    })
    .await;
    assert_eq!(
        create_with(&proxied, &[("x-forwarded-for", "203.0.113.5")]).await.0,
        201
    );
    assert_eq!(
        create_with(&proxied, &[("x-forwarded-for", "203.0.113.5")]).await.0,
        429
    );
    assert_eq!(
        create_with(&proxied, &[("x-forwarded-for", "198.51.100.1, 203.0.113.6")])
            .await
            .0,
        201,
        "the hop the proxy appended is the client, not what the client claimed"
    );
}

#[tokio::test]
async fn link_schemes_are_believed_only_from_trusted_proxies() {
    let https = [("host", "play.example.org"), ("x-forwarded-proto", "https")];
    let direct = spawn_app().await;
    let (_, created) = create_with(&direct, &https).await;
    assert!(
        created["url"]
            .as_str()
            .unwrap()
            .starts_with("http://play.example.org/t/"),
        "{created}"
    );

    let proxied = spawn_app_with(|settings| {
        settings.server.trusted_proxies = TrustedProxies::parse(&["127.0.0.0/8"]).unwrap();
        settings.server.forwarded_header = ForwardedHeader::Forwarded;
    })
    .await;
    let (_, created) = create_with(&proxied, &https).await;
    assert!(
        created["url"].as_str().unwrap().starts_with("http://"),
        "X-Forwarded-Proto is not read when the proxies send Forwarded: {created}"
    );
    let (_, created) = create_with(
        &proxied,
        &[
            ("host", "play.example.org"),
            ("forwarded", "for=203.0.113.5;proto=https"),
        ],
    )
    .await;
    let id = created["id"].as_str().unwrap();
    assert_eq!(created["url"], format!("https://play.example.org/t/{id}"));
    assert_eq!(created["websocket"], format!("wss://play.example.org/ws/tables/{id}"));
}

#[tokio::test]
async fn behind_a_trusted_proxy_the_connection_cap_is_per_forwarded_client() {
    let app = spawn_app_with(|settings| {
        settings.limits.connections_per_address = 1;
        settings.server.trusted_proxies = TrustedProxies::parse(&["127.0.0.1"]).unwrap();
    })
    .await;
    let table = app.gomoku_table(json!({})).await;
    let alice = [("x-forwarded-for", "203.0.113.5")];
    let mut first = ws_connect(&app, &table, &alice, LOCALHOST).await.expect("alice");
    let status = refused_status(ws_connect(&app, &table, &alice, LOCALHOST).await);
    assert_eq!(status, Some(429), "alice's second socket");
    let mut bob = ws_connect(&app, &table, &[("x-forwarded-for", "203.0.113.6")], LOCALHOST)
        .await
        .expect("bob, through the same proxy");
    bob.sync().await;
    first.sync().await;
}

// ----------------------------------------------------------------- defect 7: HTTP details

#[tokio::test]
async fn a_body_over_the_limit_is_refused_in_the_json_shape() {
    let app = spawn_app().await;
    let padding = "x".repeat(100 * 1024);
    let response = reqwest::Client::new()
        .post(app.http("/api/tables"))
        .header("content-type", "application/json")
        .body(format!(r#"{{"game": "gomoku", "pad": "{padding}"}}"#))
        .send()
        .await
        .expect("POST");
    assert_eq!(response.status().as_u16(), 413);
    let body: Value = response.json().await.expect("a JSON body");
    assert_eq!(body["error"]["code"], "payload_too_large", "{body}");
}

#[tokio::test]
async fn tables_are_created_from_json_only() {
    let app = spawn_app().await;
    for (kind, body) in [
        (Some("application/x-www-form-urlencoded"), "game=gomoku"),
        (Some("text/plain"), r#"{"game": "gomoku"}"#),
        (Some("multipart/form-data; boundary=x"), "--x--"),
        (None, r#"{"game": "gomoku"}"#),
    ] {
        let mut request = reqwest::Client::new()
            .post(app.http("/api/tables"))
            .body(body.to_owned());
        if let Some(kind) = kind {
            request = request.header("content-type", kind);
        }
        let response = request.send().await.expect("POST");
        assert_eq!(response.status().as_u16(), 415, "{kind:?}");
        let body: Value = response.json().await.expect("a JSON body");
        assert_eq!(body["error"]["code"], "unsupported_media_type", "{body}");
    }
    assert_eq!(stored_tables(&app).await, 0, "nothing was created");
    let (status, _) = create_with(&app, &[("content-type", "Application/JSON; charset=utf-8")]).await;
    assert_eq!(status, 201);
}

#[tokio::test]
async fn links_use_a_checked_host_or_the_public_url() {
    let app = spawn_app().await;
    for host in ["evil.example/phish?", "user@evil.example", "evil.example:99999"] {
        let (status, body) = create_with(&app, &[("host", host)]).await;
        assert_eq!(
            (status, body["error"]["code"].clone()),
            (400, json!("bad_host")),
            "{host}"
        );
    }
    assert_eq!(stored_tables(&app).await, 0, "nothing was created");
    let (status, created) = create_with(&app, &[("host", "play.example.org:8443")]).await;
    assert_eq!(status, 201);
    let id = created["id"].as_str().unwrap();
    assert_eq!(created["url"], format!("http://play.example.org:8443/t/{id}"));

    let configured = spawn_app_with(|settings| settings.server.public_url = "https://play.example.org".into()).await;
    let (status, created) = create_with(&configured, &[("host", "evil.example/phish?")]).await;
    assert_eq!(status, 201, "the public URL wins; the Host is not used");
    let id = created["id"].as_str().unwrap();
    assert_eq!(created["url"], format!("https://play.example.org/t/{id}"));
}

#[tokio::test]
async fn pages_and_assets_carry_the_security_headers_and_need_no_inline_code() {
    let app = spawn_app().await;
    let table = app.gomoku_table(json!({})).await;
    for path in [
        "/".to_owned(),
        format!("/t/{table}"),
        "/static/js/table.js".to_owned(),
        "/static/css/table.css".to_owned(),
        format!("/api/tables/{table}"),
        "/no/such/page".to_owned(),
    ] {
        let response = reqwest::get(app.http(&path)).await.expect("GET");
        let headers = response.headers();
        let csp = headers["content-security-policy"].to_str().unwrap();
        for directive in [
            "default-src 'self'",
            "script-src 'self'",
            "style-src 'self'",
            "connect-src 'self'",
            "frame-ancestors 'none'",
        ] {
            assert!(csp.contains(directive), "{path}: {csp}");
        }
        assert!(!csp.contains("unsafe-inline"), "{path}: {csp}");
        assert_eq!(headers["x-frame-options"], "DENY", "{path}");
        assert_eq!(headers["x-content-type-options"], "nosniff", "{path}");
        assert_eq!(headers["referrer-policy"], "no-referrer", "{path}");
    }
    // The policy forbids inline scripts and styles: the pages have none.
    for path in [
        "/".to_owned(),
        "/new".to_owned(),
        format!("/t/{table}"),
        "/stats".to_owned(),
        "/rules/krux".to_owned(),
        "/t/q7XbT2mA".to_owned(),
    ] {
        let page = reqwest::get(app.http(&path)).await.unwrap().text().await.unwrap();
        assert!(!page.contains("<style"), "{path} has a <style> element");
        assert!(!page.contains(" style="), "{path} has a style attribute");
        for script in page.split("<script").skip(1) {
            assert!(
                script.split('>').next().unwrap().contains("src="),
                "{path}: an inline script"
            );
        }
        assert!(
            !has_event_handler_attribute(&page),
            "{path} has an inline event handler"
        );
    }
}

#[tokio::test]
async fn websocket_origins_are_checked() {
    let app = spawn_app_with(|settings| {
        settings.server.allowed_origins = AllowedOrigins::parse(&["https://friends.example.net"]).unwrap();
    })
    .await;
    let table = app.gomoku_table(json!({})).await;
    let status = refused_status(ws_connect(&app, &table, &[("origin", "https://evil.example")], LOCALHOST).await);
    assert_eq!(status, Some(403), "a forged origin");
    let own = format!("http://{}", app.addr);
    ws_connect(&app, &table, &[("origin", &own)], LOCALHOST)
        .await
        .expect("the server's own origin")
        .sync()
        .await;
    ws_connect(&app, &table, &[("origin", "https://friends.example.net")], LOCALHOST)
        .await
        .expect("an allowed origin");
    ws_connect(&app, &table, &[], LOCALHOST)
        .await
        .expect("no Origin: not a browser");

    let configured = spawn_app_with(|settings| settings.server.public_url = "https://play.example.org".into()).await;
    let table = configured.gomoku_table(json!({})).await;
    ws_connect(
        &configured,
        &table,
        &[("origin", "https://play.example.org")],
        LOCALHOST,
    )
    .await
    .expect("the public URL's origin");
    let own = format!("http://{}", configured.addr);
    let status = refused_status(ws_connect(&configured, &table, &[("origin", &own)], LOCALHOST).await);
    assert_eq!(status, Some(403), "with a public URL, that is the server's origin");
}
