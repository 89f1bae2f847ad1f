//! `GET /static/{*path}`: the browser client's ES modules and style sheets (`web/js/`,
//! `web/css/`), compiled into the binary from a fixed list, so the server serves exactly
//! these files and nothing else from the disk.
//!
//! A path is looked up in the list as it is; there is no file system behind it, so
//! `..`, encoded slashes or absolute paths can only miss and answer `404`. The file names
//! carry no version, so each answer says `Cache-Control: no-cache` with an `ETag` (a hash of
//! the file): the browser keeps its copy and revalidates it with `If-None-Match`, a `304`
//! while the binary is the same, and never mixes modules of two releases.

use std::sync::LazyLock;

use axum::extract::Path;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};

use super::{page, web_files};

/// One file of `web/` served under `/static/`.
struct Asset {
    /// Its path under `web/`, which is also its path under `/static/`, e.g. `js/table.js`.
    path: &'static str,
    /// Its text, compiled in.
    body: &'static str,
}

/// The list of assets from their paths under `web/`, each file compiled in with `include_str!`.
macro_rules! assets {
    ($($path:literal),* $(,)?) => {
        &[$(Asset { path: $path, body: include_str!(concat!("../../web/", $path)) }),*]
    };
}

/// Every file served under `/static/`. A new file in `web/js/` or `web/css/` is added here;
/// a test checks that this list and those folders agree.
const ASSETS: &[Asset] = assets![
    "css/common.css",
    "css/home.css",
    "css/rules.css",
    "css/stats.css",
    "css/table.css",
    "js/a11y.js",
    "js/boards/bughouse.js",
    "js/boards/generic.js",
    "js/boards/gomoku.js",
    "js/boards/krux.js",
    "js/boards/loa.js",
    "js/boards/square.js",
    "js/clock.js",
    "js/dom.js",
    "js/flip.js",
    "js/home.js",
    "js/i18n.js",
    "js/input.js",
    "js/lobby.js",
    "js/net.js",
    "js/new-table.js",
    "js/records.js",
    "js/rotation.js",
    "js/series.js",
    "js/sound.js",
    "js/stats.js",
    "js/table.js",
];

/// Each asset's `ETag`, in the order of [`ASSETS`]: computed once, on the first request.
static ETAGS: LazyLock<Vec<HeaderValue>> = LazyLock::new(|| ASSETS.iter().map(|asset| etag(asset.body)).collect());

/// A strong entity tag: the first 128 bits of the text's SHA-256, in hex and quotes.
pub(super) fn etag(body: &str) -> HeaderValue {
    let digest = Sha256::digest(body.as_bytes());
    let hex: String = digest[..16].iter().map(|byte| format!("{byte:02x}")).collect();
    HeaderValue::from_str(&format!("\"{hex}\"")).expect("hex in quotes is a valid header value")
}

/// The `Content-Type` for a path, from its extension (the list holds only these two kinds).
fn content_type(path: &str) -> &'static str {
    match path.rsplit_once('.').map(|(_, ext)| ext) {
        Some("js") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        _ => "application/octet-stream",
    }
}

/// Whether an `If-None-Match` header names this tag (or `*`); a weak tag matches too.
pub(super) fn matches(if_none_match: &HeaderValue, tag: &HeaderValue) -> bool {
    let Ok(list) = if_none_match.to_str() else {
        return false;
    };
    let tag = tag.to_str().unwrap_or_default();
    list.split(',')
        .map(str::trim)
        .any(|candidate| candidate == "*" || candidate.trim_start_matches("W/") == tag)
}

/// `GET /static/{*path}`: the asset with its content type, or `304` when the client's copy
/// is current, or the JSON `404` of any unknown path.
pub async fn asset(Path(path): Path<String>, headers: HeaderMap) -> Response {
    let Some(index) = ASSETS.iter().position(|asset| asset.path == path) else {
        return page::not_found().await.into_response();
    };
    let asset = &ASSETS[index];
    let body = web_files::text(asset.path, asset.body);
    let tag = if web_files::from_disk() {
        etag(&body)
    } else {
        ETAGS[index].clone()
    };
    let cache = [
        (header::ETAG, tag.clone()),
        (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
    ];
    if headers
        .get(header::IF_NONE_MATCH)
        .is_some_and(|value| matches(value, &tag))
    {
        return (StatusCode::NOT_MODIFIED, cache).into_response();
    }
    let kind = [
        (header::CONTENT_TYPE, HeaderValue::from_static(content_type(asset.path))),
        (header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff")),
    ];
    (kind, cache, body.into_owned()).into_response()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::path::{Path, PathBuf};

    use super::*;

    /// Every file under `dir`, as paths relative to `web/` with `/` separators.
    fn files_under(web: &Path, dir: &Path, out: &mut BTreeSet<String>) {
        for entry in std::fs::read_dir(dir).expect("read a web/ folder") {
            let path = entry.expect("a folder entry").path();
            if path.is_dir() {
                files_under(web, &path, out);
            } else {
                let relative = path.strip_prefix(web).expect("under web/");
                let parts: Vec<_> = relative
                    .iter()
                    .map(|part| part.to_string_lossy().into_owned())
                    .collect();
                out.insert(parts.join("/"));
            }
        }
    }

    #[test]
    fn the_list_holds_every_module_and_style_sheet_and_nothing_else() {
        let web = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("web");
        let mut on_disk = BTreeSet::new();
        files_under(&web, &web.join("js"), &mut on_disk);
        files_under(&web, &web.join("css"), &mut on_disk);
        let listed: BTreeSet<String> = ASSETS.iter().map(|asset| asset.path.to_owned()).collect();
        assert_eq!(
            listed, on_disk,
            "ASSETS in src/http/assets.rs and the files in web/js and web/css differ"
        );
        assert_eq!(listed.len(), ASSETS.len(), "a path is listed twice");
    }

    #[test]
    fn every_asset_has_a_text_content_type() {
        for asset in ASSETS {
            assert!(content_type(asset.path).starts_with("text/"), "{}", asset.path);
        }
    }

    #[test]
    fn if_none_match_accepts_the_tag_in_a_list_weak_or_any() {
        let tag = etag("export {};");
        let header = |text: &str| HeaderValue::from_str(text).unwrap();
        let quoted = tag.to_str().unwrap();
        assert!(matches(&header(quoted), &tag));
        assert!(matches(&header(&format!("\"other\", W/{quoted}")), &tag));
        assert!(matches(&header("*"), &tag));
        assert!(!matches(&header("\"other\""), &tag));
        assert_ne!(etag("export {};"), etag("export { x };"));
    }
}
