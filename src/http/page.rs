//! The browser pages: the home page (one click to a table), the full form for a new table
//! (`/new`), a table's page (`/t/{id}`, or a page to create one when there is no such table)
//! and the statistics page (`/stats`): templates from `web/` compiled into the binary and
//! rendered in the language each request asks for ([`super::lang`], [`super::catalogue`]).
//! Their scripts and styles are served by [`super::assets`] under `/static/`.

use std::collections::HashMap;
use std::sync::LazyLock;

use axum::extract::{Path, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};

use super::catalogue::{self, escape};
use super::error::ApiError;
use super::lang::{Lang, PageLang};
use super::state::AppState;
use super::web_files;
use crate::table::registry::GetError;

/// A page template of `web/`: its path there and its compiled-in text.
#[derive(Clone, Copy)]
pub struct Template {
    pub path: &'static str,
    pub compiled: &'static str,
}

macro_rules! template {
    ($path:literal) => {
        Template {
            path: $path,
            compiled: include_str!(concat!("../../web/", $path)),
        }
    };
}

pub const HOME: Template = template!("index.html");
pub const NEW: Template = template!("new.html");
pub const TABLE: Template = template!("table.html");
pub const STATS: Template = template!("stats.html");
/// The page for a table id that does not exist: the site's style and a way to create one.
pub const MISSING: Template = template!("missing.html");
/// The page that says the table cannot be loaded just now and reloads itself.
pub const RETRY: Template = template!("retry.html");

/// Every template, for the tests and the first rendering.
pub const TEMPLATES: [Template; 6] = [HOME, NEW, TABLE, STATS, MISSING, RETRY];

/// Each template rendered in each language, once (unless the files are read from disk).
static RENDERED: LazyLock<HashMap<(&'static str, Lang), String>> = LazyLock::new(|| {
    let catalogues = catalogue::catalogues();
    TEMPLATES
        .iter()
        .flat_map(|template| Lang::ALL.map(|lang| (template, lang)))
        .map(|(template, lang)| {
            (
                (template.path, lang),
                catalogue::render(template.compiled, lang, &catalogues),
            )
        })
        .collect()
});

/// The template rendered in `lang`.
pub fn rendered(template: Template, lang: Lang) -> String {
    if web_files::from_disk() {
        let text = web_files::text(template.path, template.compiled);
        return catalogue::render(&text, lang, &catalogue::catalogues());
    }
    match RENDERED.get(&(template.path, lang)) {
        Some(html) => html.clone(),
        // A template of another module (the rules pages' frame), which caches what it makes.
        None => catalogue::render(template.compiled, lang, &catalogue::catalogues()),
    }
}

/// A page's HTML answer in its language: `Content-Language`, `Vary` (the language is chosen
/// from these headers) and, when `?lang=` chose it, the cookie that remembers the choice.
pub fn respond(lang: PageLang, status: StatusCode, html: String) -> Response {
    let mut response = (status, Html(html)).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_LANGUAGE, HeaderValue::from_static(lang.lang.code()));
    headers.insert(header::VARY, HeaderValue::from_static("Accept-Language, Cookie"));
    if lang.remember
        && let Ok(cookie) = HeaderValue::from_str(&lang.cookie())
    {
        headers.insert(header::SET_COOKIE, cookie);
    }
    response
}

fn page(lang: PageLang, template: Template) -> Response {
    respond(lang, StatusCode::OK, rendered(template, lang.lang))
}

/// `GET /`: the four games, each one click from a table with a friend or the computer.
pub async fn home(lang: PageLang) -> Response {
    page(lang, HOME)
}

/// `GET /new`: every setting of a new table (`?game=` chooses the game shown first).
pub async fn new_table_page(lang: PageLang) -> Response {
    page(lang, NEW)
}

/// `GET /stats`: the statistics of won games per game (the page asks `GET /api/stats/{game}`).
pub async fn stats_page(lang: PageLang) -> Response {
    page(lang, STATS)
}

/// How long the "try again" page waits before it reloads itself.
const RETRY_SECONDS: u32 = 10;

/// The "try again shortly" page: `reason_key` says why, and it reloads itself after `seconds`.
fn retry(lang: PageLang, reason_key: &str, seconds: u32) -> Response {
    let catalogues = catalogue::catalogues();
    let reason = catalogues.text(lang.lang, reason_key).unwrap_or(reason_key);
    let html = rendered(RETRY, lang.lang)
        .replace("%SECONDS%", &seconds.to_string())
        .replace("%REASON%", &escape(reason));
    let mut response = respond(lang, StatusCode::SERVICE_UNAVAILABLE, html);
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
    response
}

/// `GET /t/{id}`: the table's page; the page itself connects to the table's WebSocket.
/// `404` only when the database says there is no such table; while it cannot be asked, a
/// `503` page that says to try again (and does so by itself).
pub async fn table_page(State(state): State<AppState>, Path(id): Path<String>, lang: PageLang) -> Response {
    match state.tables.get(&id).await {
        // The page loads the board of the table's game only (`<html data-game>`).
        Ok(table) => respond(
            lang,
            StatusCode::OK,
            rendered(TABLE, lang.lang).replacen("%GAME%", table.kind().id(), 1),
        ),
        Err(GetError::NotFound) => respond(lang, StatusCode::NOT_FOUND, rendered(MISSING, lang.lang)),
        // An operator closed it: gone for good, shown as a table that is not there.
        Err(GetError::Closed) => respond(lang, StatusCode::GONE, rendered(MISSING, lang.lang)),
        Err(GetError::Unavailable(_)) => retry(lang, "retry.database", RETRY_SECONDS),
        // Another node is handing the table over: a moment, not ten seconds.
        Err(GetError::Moving) => retry(lang, "retry.moving", 1),
        Err(GetError::Unreadable(_)) => {
            let catalogues = catalogue::catalogues();
            let text = |key: &str| escape(catalogues.text(lang.lang, key).unwrap_or(key));
            let html = format!(
                "<!doctype html><html lang=\"{}\"><title>{}</title><p>{} <a href=\"/\">{}</a></p></html>",
                lang.lang.code(),
                text("unreadable.title"),
                text("unreadable.text"),
                text("unreadable.link"),
            );
            respond(lang, StatusCode::INTERNAL_SERVER_ERROR, html)
        }
    }
}

pub async fn not_found() -> ApiError {
    ApiError {
        status: StatusCode::NOT_FOUND,
        code: "not_found",
        message: "No such route; see docs/protocol.md.".into(),
        field: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_of_every_template_is_in_the_catalogue() {
        let catalogues = catalogue::catalogues();
        let mut missing = Vec::new();
        for template in TEMPLATES {
            for key in catalogue::template_keys(template.compiled) {
                if catalogues.text(Lang::En, key).is_none() {
                    missing.push(format!("{}: {key}", template.path));
                }
            }
        }
        for key in [
            "retry.database",
            "retry.moving",
            "unreadable.title",
            "unreadable.text",
            "unreadable.link",
        ] {
            if catalogues.text(Lang::En, key).is_none() {
                missing.push(format!("src/http/page.rs: {key}"));
            }
        }
        assert!(
            missing.is_empty(),
            "keys not in web/i18n/en.json:\n{}",
            missing.join("\n")
        );
    }

    #[test]
    fn every_page_is_rendered_with_its_language_and_no_placeholder_left() {
        for template in TEMPLATES {
            for lang in Lang::ALL {
                let html = rendered(template, lang);
                assert!(
                    html.contains(&format!("<html lang=\"{}\"", lang.code())),
                    "{} {lang:?}",
                    template.path
                );
                assert!(!html.contains("{{"), "{} {lang:?} keeps a placeholder", template.path);
            }
        }
    }
}
