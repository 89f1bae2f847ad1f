//! The browser client as the server serves it: the pages (home, table, statistics), every ES module they import
//! (followed from the page's `<script type="module">` through each `import … from`) and
//! their style sheets, with the right content types; and nothing outside the list.

mod common;

use std::collections::BTreeSet;

use common::{TestApp, spawn_app};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// GETs `path` and returns its status, content type and body.
async fn fetch(app: &TestApp, path: &str) -> (u16, String, String) {
    let response = reqwest::get(app.http(path)).await.expect("GET");
    let status = response.status().as_u16();
    let kind = response
        .headers()
        .get("content-type")
        .map(|value| value.to_str().expect("an ASCII content type").to_owned())
        .unwrap_or_default();
    (status, kind, response.text().await.expect("a text body"))
}

/// The values of `attribute="…"` in `html` that start with `/static/`.
fn static_links(html: &str, attribute: &str) -> Vec<String> {
    let marker = format!("{attribute}=\"/static/");
    html.match_indices(&marker)
        .map(|(at, _)| {
            let rest = &html[at + marker.len() - "/static/".len()..];
            rest[..rest.find('"').expect("a closing quote")].to_owned()
        })
        .collect()
}

/// The specifiers of a module's imports: static (`import … from "./dom.js";`, `import
/// "./flip.js";`) and dynamic with a literal (`import("./boards/krux.js")`).
fn imports(module: &str) -> Vec<String> {
    let mut specifiers: Vec<String> = module
        .lines()
        .filter(|line| line.starts_with("import "))
        .filter_map(|line| {
            line.split_once(" from \"")
                .map(|(_, rest)| rest)
                .or_else(|| line.strip_prefix("import \""))
        })
        .map(|rest| rest[..rest.find('"').expect("a closing quote")].to_owned())
        .collect();
    for piece in module.split("import(\"").skip(1) {
        if let Some((specifier, _)) = piece.split_once('"') {
            specifiers.push(specifier.to_owned());
        }
    }
    specifiers
}

/// `specifier` resolved against the module at `base` (both absolute URL paths).
fn resolve(base: &str, specifier: &str) -> String {
    assert!(
        specifier.starts_with("./") || specifier.starts_with("../"),
        "a relative import: {specifier}"
    );
    let mut parts: Vec<&str> = base.split('/').collect();
    parts.pop(); // the importing file itself
    for part in specifier.split('/') {
        match part {
            "." => {}
            ".." => {
                parts.pop();
            }
            _ => parts.push(part),
        }
    }
    parts.join("/")
}

/// Fetches the module at `path` and, recursively, everything it imports; checks each one's
/// status, content type and cache headers on the way. Returns the paths seen.
async fn module_graph(app: &TestApp, entry: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut pending = vec![entry.to_owned()];
    while let Some(path) = pending.pop() {
        if !seen.insert(path.clone()) {
            continue;
        }
        let response = reqwest::get(app.http(&path)).await.expect("GET a module");
        assert_eq!(response.status().as_u16(), 200, "{path}");
        let headers = response.headers().clone();
        assert_eq!(headers["content-type"], "text/javascript; charset=utf-8", "{path}");
        assert_eq!(headers["cache-control"], "no-cache", "{path}");
        assert!(headers.contains_key("etag"), "{path}");
        let body = response.text().await.expect("a module's text");
        pending.extend(imports(&body).iter().map(|specifier| resolve(&path, specifier)));
    }
    seen
}

#[tokio::test]
async fn the_table_page_its_modules_and_its_style_sheet_are_served() {
    let app = spawn_app().await;
    let id = app.gomoku_table(json!({})).await;
    let (status, kind, page) = fetch(&app, &format!("/t/{id}")).await;
    assert_eq!(status, 200);
    assert!(kind.starts_with("text/html"), "{kind}");
    assert_eq!(static_links(&page, "src"), ["/static/js/table.js"], "one module script");
    assert!(page.contains("data-game=\"gomoku\""), "the page names its game's board");
    assert_eq!(
        static_links(&page, "href"),
        ["/static/css/common.css", "/static/css/table.css"]
    );

    let modules = module_graph(&app, "/static/js/table.js").await;
    for module in [
        "/static/js/table.js",
        "/static/js/dom.js",
        "/static/js/net.js",
        "/static/js/clock.js",
        "/static/js/input.js",
        "/static/js/boards/square.js",
        "/static/js/boards/gomoku.js",
        "/static/js/boards/loa.js",
        "/static/js/boards/krux.js",
        "/static/js/boards/bughouse.js",
        "/static/js/boards/generic.js",
        "/static/js/series.js",
    ] {
        assert!(modules.contains(module), "{module} is imported: {modules:?}");
    }

    let (status, kind, css) = fetch(&app, "/static/css/table.css").await;
    assert_eq!((status, kind.as_str()), (200, "text/css; charset=utf-8"));
    assert!(css.contains(".sqboard"), "the table's styles");
}

#[tokio::test]
async fn the_home_page_its_module_and_its_style_sheet_are_served() {
    let app = spawn_app().await;
    let (status, kind, page) = fetch(&app, "/").await;
    assert_eq!(status, 200);
    assert!(kind.starts_with("text/html"), "{kind}");
    assert_eq!(static_links(&page, "src"), ["/static/js/home.js"]);
    assert_eq!(
        static_links(&page, "href"),
        ["/static/css/common.css", "/static/css/home.css"]
    );
    module_graph(&app, "/static/js/home.js").await;
    // The full form, one click deeper.
    let (status, _, form) = fetch(&app, "/new").await;
    assert_eq!(status, 200);
    assert_eq!(static_links(&form, "src"), ["/static/js/new-table.js"]);
    let modules = module_graph(&app, "/static/js/new-table.js").await;
    for module in ["/static/js/dom.js", "/static/js/i18n.js"] {
        assert!(modules.contains(module), "{module}: {modules:?}");
    }
    let (status, kind, _) = fetch(&app, "/static/css/home.css").await;
    assert_eq!((status, kind.as_str()), (200, "text/css; charset=utf-8"));
}

#[tokio::test]
async fn an_unknown_table_has_a_styled_page_with_a_way_to_create_one() {
    let app = spawn_app().await;
    // An id of the right shape that the database does not know, and one of the wrong shape.
    let (status, _, other) = fetch(&app, "/t/x").await;
    assert_eq!(status, 404);
    let response = reqwest::get(app.http("/t/q7XbT2mA")).await.expect("GET");
    assert_eq!(response.status().as_u16(), 404, "still a 404");
    let csp = response.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(
        csp.contains("style-src 'self'") && !csp.contains("unsafe-inline"),
        "{csp}"
    );
    let page = response.text().await.expect("a body");
    assert_eq!(
        static_links(&page, "href"),
        ["/static/css/common.css", "/static/css/home.css"],
        "the site's own style"
    );
    assert!(
        page.contains("<a class=\"button\" href=\"/\">Start a table</a>"),
        "{page}"
    );
    // No code and no styles inline (the policy would block them).
    assert!(
        !page.contains("<script") && !page.contains("<style") && !page.contains(" style="),
        "{page}"
    );
    assert_eq!(other, page);
}

#[tokio::test]
async fn the_statistics_page_its_module_and_its_style_sheets_are_served() {
    let app = spawn_app().await;
    let (status, kind, page) = fetch(&app, "/stats").await;
    assert_eq!(status, 200);
    assert!(kind.starts_with("text/html"), "{kind}");
    assert_eq!(static_links(&page, "src"), ["/static/js/stats.js"]);
    assert_eq!(
        static_links(&page, "href"),
        [
            "/static/css/common.css",
            "/static/css/home.css",
            "/static/css/stats.css"
        ]
    );
    let modules = module_graph(&app, "/static/js/stats.js").await;
    assert!(modules.contains("/static/js/dom.js"), "{modules:?}");
    let (status, kind, css) = fetch(&app, "/static/css/stats.css").await;
    assert_eq!((status, kind.as_str()), (200, "text/css; charset=utf-8"));
    assert!(css.contains("table.stats"));
}

#[tokio::test]
async fn an_unchanged_module_is_not_sent_again() {
    let app = spawn_app().await;
    let client = reqwest::Client::new();
    let first = client.get(app.http("/static/js/net.js")).send().await.expect("GET");
    let tag = first.headers()["etag"].clone();
    let again = client
        .get(app.http("/static/js/net.js"))
        .header("if-none-match", tag.clone())
        .send()
        .await
        .expect("GET again");
    assert_eq!(again.status().as_u16(), 304);
    assert_eq!(again.headers()["etag"], tag);
    let other = client
        .get(app.http("/static/js/net.js"))
        .header("if-none-match", "\"something else\"")
        .send()
        .await
        .expect("GET with another tag");
    assert_eq!(other.status().as_u16(), 200);
}

/// Sends `GET {target}` as written (no client normalises the dots away) and returns the
/// status code and the body.
async fn raw_get(app: &TestApp, target: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(app.addr).await.expect("connect");
    let request = format!("GET {target} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.expect("send the request");
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).await.expect("read the answer");
    let answer = String::from_utf8_lossy(&answer).into_owned();
    let status = answer
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("a status line: {answer}"));
    (status, answer)
}

#[tokio::test]
async fn nothing_outside_the_list_is_served() {
    let app = spawn_app().await;
    for target in [
        "/static/../Cargo.toml",
        "/static/../../Cargo.toml",
        "/static/js/../../../Cargo.toml",
        "/static/%2e%2e/%2e%2e/Cargo.toml",
        "/static/..%2f..%2fCargo.toml",
        "/static/js/..%2F..%2F..%2Fsrc%2Fmain.rs",
        "/static//etc/passwd",
        "/static/%2Fetc%2Fpasswd",
        "/static/../index.html",
        "/static/README.md",
        "/static/table.html",
        "/static/js/nosuch.js",
        "/static/js/",
        "/static/js",
        "/static/",
    ] {
        let (status, answer) = raw_get(&app, target).await;
        assert_eq!(status, 404, "{target}: {answer}");
        assert!(
            answer.contains("\"not_found\""),
            "{target} answers the JSON 404: {answer}"
        );
        assert!(
            !answer.contains("[package]") && !answer.contains("root:"),
            "{target} leaked a file: {answer}"
        );
    }
}

#[tokio::test]
async fn each_game_has_a_rules_page_and_the_table_links_to_it() {
    let app = spawn_app().await;
    for (game, phrase) in [
        ("gomoku", "five"),
        ("lines-of-action", "connected"),
        ("krux", "hole"),
        ("bughouse", "partner"),
    ] {
        let response = reqwest::get(app.http(&format!("/rules/{game}"))).await.unwrap();
        assert_eq!(response.status(), 200, "{game}");
        assert!(
            response.headers()["content-type"]
                .to_str()
                .unwrap()
                .starts_with("text/html")
        );
        assert!(response.headers().contains_key("content-security-policy"));
        let page = response.text().await.unwrap();
        assert!(page.contains("<h1>") && page.contains(phrase), "{game}: {page}");
        assert!(
            !page.contains("<script") && !page.contains("style="),
            "{game}: nothing inline"
        );
        assert!(page.contains("/static/css/rules.css"));
    }
    let css = reqwest::get(app.http("/static/css/rules.css")).await.unwrap();
    assert_eq!(css.status(), 200);
    assert_eq!(reqwest::get(app.http("/rules/chess")).await.unwrap().status(), 404);
    let table_js = reqwest::get(app.http("/static/js/table.js"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        table_js.contains("/rules/${encodeURIComponent(table.game)}"),
        "the table page links to its game's rules"
    );
}

#[tokio::test]
async fn pages_and_modules_are_gzipped_for_browsers_that_accept_it() {
    let app = spawn_app().await;
    let client = reqwest::Client::new();
    for path in ["/static/js/table.js", "/static/css/table.css", "/", "/rules/krux"] {
        let plain = client.get(app.http(path)).send().await.unwrap();
        assert!(plain.headers().get("content-encoding").is_none(), "{path}");
        let plain_len = plain.bytes().await.unwrap().len();
        let zipped = client
            .get(app.http(path))
            .header("accept-encoding", "gzip")
            .send()
            .await
            .unwrap();
        assert_eq!(zipped.status(), 200, "{path}");
        assert_eq!(zipped.headers()["content-encoding"], "gzip", "{path}");
        let zipped_len = zipped.bytes().await.unwrap().len();
        assert!(zipped_len * 2 < plain_len, "{path}: {zipped_len} of {plain_len} bytes");
    }
}

/// GETs `path` with the request headers given; returns the answer.
async fn fetch_with(app: &TestApp, path: &str, headers: &[(&str, &str)]) -> reqwest::Response {
    let mut request = reqwest::Client::new().get(app.http(path));
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request.send().await.expect("GET")
}

/// The `lang` of a page's `<html>`.
fn html_lang(page: &str) -> &str {
    let rest = &page[page.find("<html lang=\"").expect("an <html lang>") + "<html lang=\"".len()..];
    &rest[..rest.find('"').expect("a closing quote")]
}

#[tokio::test]
async fn every_page_speaks_the_language_asked_for_and_remembers_a_choice() {
    let app = spawn_app().await;
    let id = app.gomoku_table(json!({})).await;
    let pages = [
        "/".to_owned(),
        "/new".to_owned(),
        "/stats".to_owned(),
        format!("/t/{id}"),
        "/t/q7XbT2mA".to_owned(),
        "/rules/gomoku".to_owned(),
        "/rules/lines-of-action".to_owned(),
        "/rules/krux".to_owned(),
        "/rules/bughouse".to_owned(),
    ];
    for path in &pages {
        // The browser's languages, by quality; English when none is ours.
        for (accept, lang) in [
            ("sv-SE,sv;q=0.9,en;q=0.5", "sv"),
            ("de, nb;q=0.8", "nb"),
            ("fi", "en"),
            ("", "en"),
        ] {
            let response = fetch_with(&app, path, &[("accept-language", accept)]).await;
            assert_eq!(response.headers()["content-language"], lang, "{path} for {accept:?}");
            let vary: Vec<_> = response
                .headers()
                .get_all("vary")
                .iter()
                .map(|v| v.to_str().unwrap().to_lowercase())
                .collect();
            assert!(
                vary.iter()
                    .any(|v| v.contains("accept-language") && v.contains("cookie")),
                "{path}: {vary:?}"
            );
            assert!(
                response.headers().get("set-cookie").is_none(),
                "{path}: nothing chosen, nothing remembered"
            );
            let page = response.text().await.unwrap();
            assert_eq!(html_lang(&page), lang, "{path} for {accept:?}");
            assert!(!page.contains("{{"), "{path} ({lang}) keeps a placeholder");
            assert!(
                page.contains("class=\"lang-switch\""),
                "{path} has the language switcher"
            );
        }
        // ?lang= wins over the browser's languages and is remembered in a cookie…
        let chosen = fetch_with(&app, &format!("{path}?lang=nb"), &[("accept-language", "sv")]).await;
        let cookie = chosen.headers()["set-cookie"].to_str().unwrap().to_owned();
        assert!(
            cookie.starts_with("lang=nb;") && cookie.contains("Path=/"),
            "{path}: {cookie}"
        );
        assert_eq!(html_lang(&chosen.text().await.unwrap()), "nb", "{path}");
        // …which wins over the browser's languages on the next visit.
        let remembered = fetch_with(&app, path, &[("accept-language", "sv"), ("cookie", "x=1; lang=nb")]).await;
        assert_eq!(
            html_lang(&remembered.text().await.unwrap()),
            "nb",
            "{path}: the remembered choice"
        );
        // An unknown ?lang= changes nothing and is not remembered.
        let unknown = fetch_with(&app, &format!("{path}?lang=xx"), &[("accept-language", "sv")]).await;
        assert!(unknown.headers().get("set-cookie").is_none(), "{path}");
        assert_eq!(html_lang(&unknown.text().await.unwrap()), "sv", "{path}");
    }
}

#[tokio::test]
async fn the_catalogues_are_served_to_the_browser_and_revalidated() {
    let app = spawn_app().await;
    let english: serde_json::Map<String, serde_json::Value> = reqwest::get(app.http("/static/i18n/en.json"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    for lang in ["en", "sv", "nb"] {
        let response = reqwest::get(app.http(&format!("/static/i18n/{lang}.json")))
            .await
            .unwrap();
        assert_eq!(response.status(), 200, "{lang}");
        assert_eq!(response.headers()["content-type"], "application/json; charset=utf-8");
        assert_eq!(response.headers()["cache-control"], "no-cache");
        let tag = response.headers()["etag"].clone();
        let catalogue: serde_json::Map<String, serde_json::Value> = response.json().await.unwrap();
        for key in english.keys() {
            assert!(catalogue.contains_key(key), "{lang} lacks {key}");
        }
        let again = fetch_with(
            &app,
            &format!("/static/i18n/{lang}.json"),
            &[("if-none-match", tag.to_str().unwrap())],
        )
        .await;
        assert_eq!(again.status(), 304, "{lang}");
    }
    assert_eq!(
        reqwest::get(app.http("/static/i18n/fi.json")).await.unwrap().status(),
        404
    );
    let swedish: serde_json::Map<String, serde_json::Value> = reqwest::get(app.http("/static/i18n/sv.json"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(swedish["common.skip_to_content"], "Hoppa till innehåll");

    // A page asks for the groups it shows: those keys, all of them, and no other.
    let part: serde_json::Map<String, serde_json::Value> =
        reqwest::get(app.http("/static/i18n/sv.json?only=common,home"))
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
    let wanted: Vec<&String> = swedish
        .keys()
        .filter(|key| key.starts_with("common.") || key.starts_with("home."))
        .collect();
    assert!(!wanted.is_empty());
    assert_eq!(part.keys().collect::<Vec<_>>(), wanted);
    for bad in ["", "Common", "common,,home", "a/b", "common;home"] {
        let response = reqwest::get(app.http(&format!("/static/i18n/sv.json?only={bad}")))
            .await
            .unwrap();
        assert_eq!(response.status(), 404, "only={bad:?}");
    }
}

/// The modules a module imports, statically or with `import("…")`, as paths under `web/js/`.
fn module_imports(path: &str, text: &str) -> Vec<String> {
    let base = format!("/static/js/{path}");
    imports(text)
        .iter()
        .map(|specifier| resolve(&base, specifier).trim_start_matches("/static/js/").to_owned())
        .collect()
}

/// The catalogue keys a module names literally: `t("group.key"` and `has("group.key"`.
fn literal_keys(text: &str) -> Vec<String> {
    let mut keys = Vec::new();
    for call in ["t(\"", "has(\""] {
        for (at, _) in text.match_indices(call) {
            // The function itself, not the end of another name (`closest("…"`).
            let before = text[..at].chars().next_back();
            if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '$') {
                continue;
            }
            let rest = &text[at + call.len()..];
            if let Some((key, _)) = rest.split_once('"')
                && key.contains('.')
                && !key.starts_with('.')
                && key.chars().all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))
            {
                keys.push(key.to_owned());
            }
        }
    }
    keys
}

/// Every key a page's modules name literally exists in English, and lies in a group the page
/// loads (`<html data-catalogue>`), so no page shows a key instead of its text.
#[test]
fn every_literal_key_of_a_page_is_in_the_catalogue_and_in_the_groups_it_loads() {
    let web = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("web");
    let english: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(web.join("i18n/en.json")).unwrap()).unwrap();
    let mut problems = Vec::new();
    let mut checked = 0;
    for page in ["index.html", "new.html", "stats.html", "table.html"] {
        let html = std::fs::read_to_string(web.join(page)).unwrap();
        let groups: Option<Vec<&str>> = html
            .split("data-catalogue=\"")
            .nth(1)
            .and_then(|rest| rest.split_once('"'))
            .map(|(list, _)| list.split_whitespace().collect());
        let mut pending: Vec<String> = static_links(&html, "src")
            .iter()
            .map(|src| src.trim_start_matches("/static/js/").to_owned())
            .collect();
        let mut seen = BTreeSet::new();
        while let Some(module) = pending.pop() {
            if !seen.insert(module.clone()) {
                continue;
            }
            let text = std::fs::read_to_string(web.join("js").join(&module)).unwrap();
            for key in literal_keys(&text) {
                checked += 1;
                if !english.contains_key(&key) {
                    problems.push(format!("{page} → js/{module}: {key} is not in the catalogue"));
                }
                let group = key.split('.').next().unwrap_or_default();
                if groups.as_ref().is_some_and(|groups| !groups.contains(&group)) {
                    problems.push(format!("{page} → js/{module}: {key}'s group is not loaded"));
                }
            }
            pending.extend(module_imports(&module, &text));
        }
    }
    assert!(checked > 300, "only {checked} keys found: is the scan broken?");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
