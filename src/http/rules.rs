//! `GET /rules/{game}`: each game's rules page for players, rendered from the project's
//! rule documents (`docs/rules/*.md`, compiled into the binary) so that the page a player
//! reads is the page the server enforces. The table page links to it. Markdown is rendered
//! with pulldown-cmark; raw HTML in the documents is shown as text, never passed through.

use std::sync::LazyLock;

use axum::extract::Path;
use axum::response::{Html, IntoResponse, Response};
use pulldown_cmark::{Event, Options, Parser};

use super::page;
use crate::games::GameKind;

/// Each game's rule document, by game id.
const DOCUMENTS: [(GameKind, &str); 4] = [
    (GameKind::Gomoku, include_str!("../../docs/rules/gomoku.md")),
    (
        GameKind::LinesOfAction,
        include_str!("../../docs/rules/lines-of-action.md"),
    ),
    (GameKind::Krux, include_str!("../../docs/rules/krux.md")),
    (GameKind::Bughouse, include_str!("../../docs/rules/bughouse.md")),
];

/// The rendered pages, in the order of [`DOCUMENTS`]: rendered once, on the first request.
static PAGES: LazyLock<Vec<(GameKind, String)>> = LazyLock::new(|| {
    DOCUMENTS
        .iter()
        .map(|(kind, markdown)| (*kind, page_of(*kind, markdown)))
        .collect()
});

/// `GET /rules/{game}`; `404` for a game the server does not know.
pub async fn rules_page(Path(game): Path<String>) -> Response {
    let found = GameKind::from_id(&game).and_then(|kind| PAGES.iter().find(|(k, _)| *k == kind));
    match found {
        Some((_, html)) => Html(html.clone()).into_response(),
        None => page::not_found().await.into_response(),
    }
}

/// The site's icon, as the other pages have it (no request for `/favicon.ico`).
const ICON: &str = "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'%3E%3Ccircle cx='8' cy='8' r='7' fill='%23222'/%3E%3C/svg%3E";

/// A whole page: the document's HTML in the site's frame.
fn page_of(kind: GameKind, markdown: &str) -> String {
    format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <link rel=\"icon\" href=\"{ICON}\">\n<title>Rules: {} — spelbord</title>\n<link rel=\"stylesheet\" href=\"/static/css/rules.css\">\n</head>\n\
         <body>\n<header><a href=\"/\">spelbord</a> · rules of {}</header>\n<main>\n{}</main>\n</body>\n</html>\n",
        kind.id(),
        kind.id(),
        render(markdown)
    )
}

/// Markdown to HTML; raw HTML in the source becomes text.
fn render(markdown: &str) -> String {
    let mut options = Options::empty();
    options.insert(Options::ENABLE_TABLES);
    let events = Parser::new_ext(markdown, options).map(|event| match event {
        Event::Html(raw) | Event::InlineHtml(raw) => Event::Text(raw),
        other => other,
    });
    let mut html = String::with_capacity(markdown.len() * 2);
    pulldown_cmark::html::push_html(&mut html, events);
    html
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_html_is_shown_as_text() {
        let html = render("A <script>alert(1)</script> and **bold**\n\n| a | b |\n|---|---|\n| 1 | 2 |\n");
        assert!(html.contains("&lt;script&gt;"), "{html}");
        assert!(!html.contains("<script>"), "{html}");
        assert!(
            html.contains("<strong>bold</strong>") && html.contains("<table>"),
            "{html}"
        );
    }

    #[test]
    fn every_game_has_a_page() {
        for &kind in GameKind::ALL {
            assert!(
                PAGES.iter().any(|(k, html)| *k == kind && html.contains("<h1>")),
                "{kind:?}"
            );
        }
    }
}
