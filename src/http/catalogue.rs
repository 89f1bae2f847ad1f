//! The pages' words in each language: the catalogues `web/i18n/{en,sv,nb}.json` (flat dotted
//! keys; a value is a text with `{param}`s, or a plural object `{"one": …, "other": …}` that
//! only the browser's `Intl.PluralRules` chooses from), and the rendering of page templates.
//!
//! A template (`web/*.html`) writes its visible text as `{{key}}`, the page's language as
//! `{{lang}}` and the language switcher as `{{@switcher}}`; [`render`] fills them in, the text
//! HTML-escaped. The browser's share of a catalogue is served at `/static/i18n/{lang}.json`
//! ([`client_catalogue`]), every key English has present (a missing one filled from English),
//! for `web/js/i18n.js`; a page names the key groups it needs (`?only=common,home`). Tests check that every language has every key with the same
//! parameters and that every template's keys exist.

use std::collections::BTreeMap;
use std::sync::{Arc, LazyLock};

use axum::extract::{Path, Query};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::Value;

use super::lang::Lang;
use super::{assets, page, web_files};

/// Each language's catalogue file, compiled in.
const FILES: [(Lang, &str, &str); 3] = [
    (Lang::En, "i18n/en.json", include_str!("../../web/i18n/en.json")),
    (Lang::Sv, "i18n/sv.json", include_str!("../../web/i18n/sv.json")),
    (Lang::Nb, "i18n/nb.json", include_str!("../../web/i18n/nb.json")),
];

/// The three catalogues, each filled from English where it lacks a key.
pub struct Catalogues {
    /// By language, in the order of [`Lang::ALL`]: key → text or plural object.
    texts: [BTreeMap<String, Value>; 3],
    /// The browser's copy of each, as JSON, with its entity tag.
    client: [(String, HeaderValue); 3],
}

/// The catalogues parsed once (or on every call when the files are read from disk).
static COMPILED: LazyLock<Arc<Catalogues>> = LazyLock::new(|| Arc::new(Catalogues::load()));

/// The catalogues in force.
pub fn catalogues() -> Arc<Catalogues> {
    if web_files::from_disk() {
        Arc::new(Catalogues::load())
    } else {
        COMPILED.clone()
    }
}

fn index(lang: Lang) -> usize {
    Lang::ALL.iter().position(|l| *l == lang).unwrap_or(0)
}

/// One catalogue file's entries; a file that is not a JSON object has none (the tests fail).
fn parse(text: &str) -> BTreeMap<String, Value> {
    serde_json::from_str(text).unwrap_or_default()
}

impl Catalogues {
    fn load() -> Catalogues {
        let raw = FILES.map(|(_, path, compiled)| parse(&web_files::text(path, compiled)));
        let english = raw[0].clone();
        let texts = raw.map(|mut entries| {
            for (key, value) in &english {
                entries.entry(key.clone()).or_insert_with(|| value.clone());
            }
            entries
        });
        let client = texts.clone().map(|entries| {
            let json = serde_json::to_string(&entries).unwrap_or_else(|_| "{}".to_owned());
            let tag = assets::etag(&json);
            (json, tag)
        });
        Catalogues { texts, client }
    }

    /// The text of `key` in `lang` (English's when `lang` lacks it); a plural object gives
    /// its `other` form (templates have no count to choose by).
    pub fn text(&self, lang: Lang, key: &str) -> Option<&str> {
        match self.texts[index(lang)].get(key)? {
            Value::String(text) => Some(text),
            Value::Object(forms) => forms.get("other").and_then(Value::as_str),
            _ => None,
        }
    }
}

/// Text made safe to put between tags or in a quoted attribute.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Each language's name in itself, for the switcher (never translated).
fn native_name(lang: Lang) -> &'static str {
    match lang {
        Lang::En => "English",
        Lang::Sv => "Svenska",
        Lang::Nb => "Norsk",
    }
}

/// The language switcher: a link to this page in each language, the current one marked.
fn switcher(catalogues: &Catalogues, lang: Lang) -> String {
    let label = escape(catalogues.text(lang, "site.language").unwrap_or("Language"));
    let links: Vec<String> = Lang::ALL
        .iter()
        .map(|&other| {
            let current = if other == lang { " aria-current=\"true\"" } else { "" };
            format!(
                "<a href=\"?lang={code}\" lang=\"{code}\" hreflang=\"{code}\"{current}>{name}</a>",
                code = other.code(),
                name = native_name(other)
            )
        })
        .collect();
    format!(
        "<nav class=\"lang-switch\" aria-label=\"{label}\">{}</nav>",
        links.join("")
    )
}

/// The template with its `{{…}}` filled in for `lang`. An unknown key is left as
/// `{{key}}` (visible, and caught by the tests).
pub fn render(template: &str, lang: Lang, catalogues: &Catalogues) -> String {
    let mut out = String::with_capacity(template.len() + template.len() / 4);
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find("}}") else {
            out.push_str(&rest[start..]);
            return out;
        };
        let key = after[..end].trim();
        match key {
            "lang" => out.push_str(lang.code()),
            "@switcher" => out.push_str(&switcher(catalogues, lang)),
            _ => match catalogues.text(lang, key) {
                Some(text) => out.push_str(&escape(text)),
                None => out.push_str(&rest[start..start + 2 + end + 2]),
            },
        }
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    out
}

/// The `{{key}}`s of a template (not `lang` or `@…`).
pub fn template_keys(template: &str) -> Vec<&str> {
    template
        .split("{{")
        .skip(1)
        .filter_map(|piece| piece.split_once("}}").map(|(key, _)| key.trim()))
        .filter(|key| *key != "lang" && !key.starts_with('@'))
        .collect()
}

/// The query of a catalogue request: `?only=common,home` asks for the keys of those groups (a
/// key's group is the text before its first dot), so a page loads only what it shows.
#[derive(Debug, Default, Deserialize)]
pub struct CatalogueQuery {
    only: Option<String>,
}

/// The most groups one request may name.
const MAX_GROUPS: usize = 32;

impl Catalogues {
    /// The browser's catalogue of `lang` restricted to the groups in `only`, with its tag;
    /// `None` when `only` is malformed.
    fn client_part(&self, lang: Lang, only: &str) -> Option<(String, HeaderValue)> {
        let groups: Vec<&str> = only.split(',').collect();
        let well_formed =
            |group: &&str| !group.is_empty() && group.bytes().all(|b| b.is_ascii_lowercase() || b == b'-');
        if groups.len() > MAX_GROUPS || !groups.iter().all(well_formed) {
            return None;
        }
        let part: BTreeMap<&String, &Value> = self.texts[index(lang)]
            .iter()
            .filter(|(key, _)| groups.contains(&key.split('.').next().unwrap_or_default()))
            .collect();
        let json = serde_json::to_string(&part).ok()?;
        let tag = assets::etag(&json);
        Some((json, tag))
    }
}

/// `GET /static/i18n/{lang}.json[?only=group,…]`: the browser's catalogue (or the groups a page
/// asks for), revalidated like the assets.
pub async fn client_catalogue(
    Path(file): Path<String>,
    Query(query): Query<CatalogueQuery>,
    headers: HeaderMap,
) -> Response {
    let Some(lang) = file
        .strip_suffix(".json")
        .and_then(|code| Lang::ALL.into_iter().find(|l| l.code() == code))
    else {
        return page::not_found().await.into_response();
    };
    let catalogues = catalogues();
    let part;
    let (json, tag) = match query.only.as_deref() {
        None => &catalogues.client[index(lang)],
        Some(only) => match catalogues.client_part(lang, only) {
            Some(found) => {
                part = found;
                &part
            }
            None => return page::not_found().await.into_response(),
        },
    };
    let cache = [
        (header::ETAG, tag.clone()),
        (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
    ];
    if headers
        .get(header::IF_NONE_MATCH)
        .is_some_and(|value| assets::matches(value, tag))
    {
        return (StatusCode::NOT_MODIFIED, cache).into_response();
    }
    let kind = [
        (
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json; charset=utf-8"),
        ),
        (header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff")),
    ];
    (kind, cache, json.clone()).into_response()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    /// The `{param}` names of a text or of every form of a plural.
    fn params(value: &Value) -> BTreeSet<String> {
        let texts: Vec<&str> = match value {
            Value::String(text) => vec![text],
            Value::Object(forms) => forms.values().filter_map(Value::as_str).collect(),
            _ => vec![],
        };
        texts
            .iter()
            .flat_map(|text| text.split('{').skip(1))
            .filter_map(|piece| piece.split_once('}').map(|(name, _)| name))
            .filter(|name| !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
            .map(str::to_owned)
            .collect()
    }

    #[test]
    fn every_language_has_every_key_with_the_same_parameters_and_no_other() {
        let raw = FILES.map(|(lang, _, text)| (lang, serde_json::from_str::<BTreeMap<String, Value>>(text)));
        let mut problems = Vec::new();
        let english = match &raw[0].1 {
            Ok(entries) => entries.clone(),
            Err(error) => panic!("web/i18n/en.json is not a JSON object: {error}"),
        };
        assert!(!english.is_empty(), "the English catalogue is empty");
        for (lang, entries) in &raw {
            let entries = match entries {
                Ok(entries) => entries,
                Err(error) => panic!("web/i18n/{}.json is not a JSON object: {error}", lang.code()),
            };
            for (key, value) in entries {
                match value {
                    Value::String(text) if !text.trim().is_empty() => {}
                    Value::Object(forms)
                        if forms.contains_key("other")
                            && forms.iter().all(|(form, text)| {
                                ["zero", "one", "two", "few", "many", "other"].contains(&form.as_str())
                                    && text.as_str().is_some_and(|t| !t.trim().is_empty())
                            }) => {}
                    _ => problems.push(format!(
                        "{}: {key} is neither a text nor a plural with 'other'",
                        lang.code()
                    )),
                }
                match english.get(key) {
                    None => problems.push(format!("{}: {key} is not in English", lang.code())),
                    Some(en) if params(en) != params(value) => problems.push(format!(
                        "{}: {key} has parameters {:?}, English {:?}",
                        lang.code(),
                        params(value),
                        params(en)
                    )),
                    Some(_) => {}
                }
            }
            for key in english.keys() {
                if !entries.contains_key(key) {
                    problems.push(format!("{}: {key} is missing", lang.code()));
                }
            }
        }
        assert!(problems.is_empty(), "catalogue problems:\n{}", problems.join("\n"));
    }

    #[test]
    fn rendering_fills_keys_escaped_the_language_and_the_switcher() {
        let catalogues = Catalogues {
            texts: [
                BTreeMap::from([("a.b".to_owned(), Value::from("Tom & <Jerry>"))]),
                BTreeMap::from([("a.b".to_owned(), Value::from("Tom och Jerry"))]),
                BTreeMap::new(),
            ],
            client: std::array::from_fn(|_| (String::new(), HeaderValue::from_static("\"x\""))),
        };
        let template = "<html lang=\"{{lang}}\"><p title=\"{{ a.b }}\">{{a.b}}</p>{{@switcher}}{{nope}}";
        let en = render(template, Lang::En, &catalogues);
        assert!(en.contains("lang=\"en\""), "{en}");
        assert!(
            en.contains("<p title=\"Tom &amp; &lt;Jerry&gt;\">Tom &amp; &lt;Jerry&gt;</p>"),
            "{en}"
        );
        assert!(en.contains("href=\"?lang=sv\""), "{en}");
        assert!(en.contains("hreflang=\"en\" aria-current=\"true\""), "{en}");
        assert!(en.ends_with("{{nope}}"), "an unknown key stays visible: {en}");
        let sv = render(template, Lang::Sv, &catalogues);
        assert!(sv.contains(">Tom och Jerry<"), "{sv}");
        assert_eq!(template_keys(template), vec!["a.b", "a.b", "nope"]);
    }

    #[test]
    fn a_language_lacking_a_key_falls_back_to_english_and_plurals_give_other() {
        let catalogues = catalogues();
        let english_keys: Vec<String> = catalogues.texts[0].keys().cloned().collect();
        for key in english_keys {
            for lang in Lang::ALL {
                assert!(catalogues.texts[index(lang)].contains_key(&key), "{key} in {lang:?}");
            }
        }
    }
}
