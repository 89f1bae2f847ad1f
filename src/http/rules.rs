//! `GET /rules/{game}`: each game's rules for players, in the page's language: the Markdown
//! pages `web/rules/{game}.{lang}.md`, written for players, with their diagrams
//! (`![caption](diagram:name)` → `web/rules/diagrams/{name}.txt`, drawn as inline SVG by
//! [`super::diagram`]). Every file under `web/rules/` is compiled in (the list is made by
//! `build.rs`). Markdown is rendered with pulldown-cmark; raw HTML in a page is shown as text,
//! never passed through. The server's own decisions and wire formats, for developers, stay in
//! `docs/rules/`.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::LazyLock;

use axum::extract::Path;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};

use super::catalogue::{self, escape};
use super::lang::{Lang, PageLang};
use super::page::{self, Template};
use super::{diagram, web_files};
use crate::games::GameKind;

include!(concat!(env!("OUT_DIR"), "/rule_files.rs"));

/// The frame every rule page is shown in.
const FRAME: Template = Template {
    path: "rules.html",
    compiled: include_str!("../../web/rules.html"),
};

/// The text of a file under `web/rules/`, if there is one.
fn rule_file(path: &str) -> Option<Cow<'static, str>> {
    RULE_FILES
        .iter()
        .find(|(name, _)| *name == path)
        .map(|(name, compiled)| web_files::text(&format!("rules/{name}"), compiled))
}

/// Each game's page in each language, rendered once (unless the files are read from disk).
static PAGES: LazyLock<HashMap<(GameKind, Lang), String>> = LazyLock::new(|| {
    GameKind::ALL
        .iter()
        .flat_map(|&kind| Lang::ALL.map(|lang| (kind, lang)))
        .filter_map(|(kind, lang)| page_of(kind, lang).map(|html| ((kind, lang), html)))
        .collect()
});

/// `GET /rules/{game}`; `404` for a game the server does not know.
pub async fn rules_page(Path(game): Path<String>, lang: PageLang) -> Response {
    let Some(kind) = GameKind::from_id(&game) else {
        return page::not_found().await.into_response();
    };
    let html = if web_files::from_disk() {
        page_of(kind, lang.lang)
    } else {
        PAGES.get(&(kind, lang.lang)).cloned()
    };
    match html {
        Some(html) => page::respond(lang, StatusCode::OK, html),
        None => page::not_found().await.into_response(),
    }
}

/// A whole page: the game's rules in `lang` in the site's frame; `None` without a page.
fn page_of(kind: GameKind, lang: Lang) -> Option<String> {
    let markdown = rule_file(&format!("{}.{}.md", kind.id(), lang.code()))?;
    let rendered = render(&markdown);
    let frame = page::rendered(FRAME, lang);
    let catalogues = catalogue::catalogues();
    let play = catalogues.text(lang, "rules.play").unwrap_or("Play");
    Some(
        frame
            .replace("%TITLE%", &escape(&rendered.title))
            .replace("%GAME%", kind.id())
            .replace("%PLAY%", &escape(play))
            .replace("%BODY%", &rendered.html),
    )
}

/// A rule page rendered: its first heading (the page's title) and its HTML.
struct Rendered {
    title: String,
    html: String,
}

/// Markdown to HTML: raw HTML becomes text; each `diagram:` image becomes its drawn figure
/// (or, should a diagram fail to draw, a line saying so, which the tests forbid).
fn render(markdown: &str) -> Rendered {
    let mut options = Options::empty();
    options.insert(Options::ENABLE_TABLES);
    let mut events = Vec::new();
    let mut title = String::new();
    let mut in_title = false;
    // While inside a `diagram:` image: its name and the caption read so far.
    let mut figure: Option<(String, String)> = None;
    let mut figures = 0;
    for event in Parser::new_ext(markdown, options) {
        if let Some((name, caption)) = figure.as_mut() {
            match event {
                Event::End(TagEnd::Image) => {
                    figures += 1;
                    events.push(Event::Html(figure_html(name, caption, figures).into()));
                    figure = None;
                }
                Event::Text(text) | Event::Code(text) => caption.push_str(&text),
                Event::SoftBreak | Event::HardBreak => caption.push(' '),
                _ => {}
            }
            continue;
        }
        match event {
            Event::Start(Tag::Image { ref dest_url, .. }) if dest_url.starts_with("diagram:") => {
                figure = Some((dest_url["diagram:".len()..].to_owned(), String::new()));
            }
            Event::Start(Tag::Heading {
                level: HeadingLevel::H1,
                ..
            }) if title.is_empty() => {
                in_title = true;
                events.push(event);
            }
            Event::End(TagEnd::Heading(HeadingLevel::H1)) if in_title => {
                in_title = false;
                events.push(event);
            }
            Event::Text(ref text) if in_title => {
                title.push_str(text);
                events.push(event);
            }
            Event::Html(raw) | Event::InlineHtml(raw) => events.push(Event::Text(raw)),
            other => events.push(other),
        }
    }
    let mut html = String::with_capacity(markdown.len() * 2);
    pulldown_cmark::html::push_html(&mut html, events.into_iter());
    // A diagram alone in its paragraph is a figure of its own, not inside a `<p>`.
    let html = html
        .replace("<p><figure", "<figure")
        .replace("</figure></p>", "</figure>");
    Rendered { title, html }
}

/// The figure of diagram `name` with `caption`, the `number`th on its page.
fn figure_html(name: &str, caption: &str, number: usize) -> String {
    let id = format!("fig-{number}");
    let drawn = rule_file(&format!("diagrams/{name}.txt"))
        .ok_or_else(|| format!("no diagram named {name}"))
        .and_then(|source| diagram::render(&source, caption, &id).map_err(|error| format!("{name}: {error}")));
    match drawn {
        Ok(svg) => svg,
        Err(problem) => format!("<p class=\"diagram-error\">{}</p>", escape(&problem)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_html_is_shown_as_text() {
        let html = render("# T\n\nA <script>alert(1)</script> and **bold**\n\n| a | b |\n|---|---|\n| 1 | 2 |\n").html;
        assert!(html.contains("&lt;script&gt;"), "{html}");
        assert!(!html.contains("<script>"), "{html}");
        assert!(
            html.contains("<strong>bold</strong>") && html.contains("<table>"),
            "{html}"
        );
    }

    #[test]
    fn a_missing_diagram_is_said_not_hidden() {
        let html = render("# T\n\n![A board](diagram:no-such-diagram)\n").html;
        assert!(
            html.contains("diagram-error") && html.contains("no-such-diagram"),
            "{html}"
        );
    }

    #[test]
    fn every_game_has_a_page_in_every_language_with_its_diagrams_drawn() {
        for &kind in GameKind::ALL {
            for lang in Lang::ALL {
                let html = page_of(kind, lang).unwrap_or_else(|| panic!("no rules page for {kind:?} in {lang:?}"));
                assert!(html.contains("<h1>"), "{kind:?} {lang:?}: no title");
                assert!(
                    html.contains(&format!("<html lang=\"{}\"", lang.code())),
                    "{kind:?} {lang:?}"
                );
                assert!(
                    !html.contains("diagram-error"),
                    "{kind:?} {lang:?}: a diagram failed:\n{html}"
                );
                assert!(html.contains("<svg"), "{kind:?} {lang:?}: no diagram");
                assert!(
                    !html.contains('%') || !html.contains("%BODY%"),
                    "{kind:?} {lang:?}: the frame is unfilled"
                );
            }
        }
    }

    #[test]
    fn every_language_draws_the_same_diagrams_and_every_diagram_is_used() {
        let names = |markdown: &str| -> Vec<String> {
            markdown
                .split("](diagram:")
                .skip(1)
                .filter_map(|rest| rest.split_once(')').map(|(name, _)| name.to_owned()))
                .collect()
        };
        let mut used = std::collections::BTreeSet::new();
        for &kind in GameKind::ALL {
            let english = names(&rule_file(&format!("{}.en.md", kind.id())).expect("the English page"));
            for lang in Lang::ALL {
                let page = rule_file(&format!("{}.{}.md", kind.id(), lang.code())).expect("the page");
                assert_eq!(
                    names(&page),
                    english,
                    "{kind:?} {lang:?} draws other diagrams than English"
                );
            }
            used.extend(english);
        }
        let files: std::collections::BTreeSet<String> = RULE_FILES
            .iter()
            .filter_map(|(path, _)| path.strip_prefix("diagrams/")?.strip_suffix(".txt").map(str::to_owned))
            .collect();
        assert_eq!(files, used, "diagram files and the diagrams the pages use differ");
    }
}
