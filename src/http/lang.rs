//! The language of a page: Swedish, Norwegian bokmål or English, chosen for each request from
//! `?lang=`, then the choice remembered in the `lang` cookie, then the browser's
//! `Accept-Language`, with English as the fallback. A page asked for with a valid `?lang=`
//! remembers it: the answer sets the cookie (see [`PageLang::remember`]).

use std::convert::Infallible;

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{HeaderMap, header};

/// A language the pages are written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Lang {
    En,
    Sv,
    Nb,
}

impl Lang {
    /// Every language, English (the fallback) first.
    pub const ALL: [Lang; 3] = [Lang::En, Lang::Sv, Lang::Nb];

    /// The BCP 47 code, as in `<html lang>` and the catalogue's file name.
    pub fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Sv => "sv",
            Lang::Nb => "nb",
        }
    }

    /// The language a code names by its primary subtag, case-insensitively: `sv-SE` is
    /// Swedish; `nb`, `no` (Norwegian) and `nn` (nynorsk, closer to bokmål than to the others)
    /// are bokmål.
    pub fn from_tag(tag: &str) -> Option<Lang> {
        let primary = tag.split(['-', '_']).next().unwrap_or_default();
        match primary.to_ascii_lowercase().as_str() {
            "en" => Some(Lang::En),
            "sv" => Some(Lang::Sv),
            "nb" | "no" | "nn" => Some(Lang::Nb),
            _ => None,
        }
    }
}

/// The name of the cookie that remembers a chosen language.
pub const COOKIE: &str = "lang";

/// The language of the page being asked for, and whether the request chose it with `?lang=`
/// (so the answer remembers it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PageLang {
    pub lang: Lang,
    /// `?lang=` named this language: the answer sets the cookie.
    pub remember: bool,
}

impl PageLang {
    /// Chooses from the query string, the `Cookie` and the `Accept-Language` headers.
    pub fn choose(query: Option<&str>, headers: &HeaderMap) -> PageLang {
        if let Some(lang) = query.and_then(query_lang) {
            return PageLang { lang, remember: true };
        }
        let remembered = headers
            .get_all(header::COOKIE)
            .iter()
            .filter_map(|value| value.to_str().ok())
            .find_map(cookie_lang);
        let lang = remembered
            .or_else(|| {
                headers
                    .get(header::ACCEPT_LANGUAGE)
                    .and_then(|value| value.to_str().ok())
                    .and_then(accepted)
            })
            .unwrap_or(Lang::En);
        PageLang { lang, remember: false }
    }

    /// The `Set-Cookie` value that remembers this language for a year.
    pub fn cookie(self) -> String {
        format!("{COOKIE}={}; Path=/; Max-Age=31536000; SameSite=Lax", self.lang.code())
    }
}

impl<S: Send + Sync> FromRequestParts<S> for PageLang {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        Ok(PageLang::choose(parts.uri.query(), &parts.headers))
    }
}

/// The language named by a `lang=` parameter of a query string, if it names one we have.
fn query_lang(query: &str) -> Option<Lang> {
    query
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .find(|(name, _)| *name == "lang")
        .and_then(|(_, value)| Lang::from_tag(value))
}

/// The language remembered in a `Cookie` header's `lang` cookie.
fn cookie_lang(cookies: &str) -> Option<Lang> {
    cookies
        .split(';')
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == COOKIE)
        .and_then(|(_, value)| Lang::from_tag(value.trim_matches('"')))
}

/// The first language we have in an `Accept-Language` list, by quality (`q`, 1 when absent;
/// equal qualities in the list's order); `q=0` means "not this one".
fn accepted(list: &str) -> Option<Lang> {
    let mut ranges: Vec<(f32, &str)> = list
        .split(',')
        .filter_map(|item| {
            let mut parts = item.split(';');
            let tag = parts.next()?.trim();
            let quality = parts
                .filter_map(|param| param.trim().strip_prefix("q="))
                .find_map(|q| q.trim().parse::<f32>().ok())
                .unwrap_or(1.0);
            (!tag.is_empty() && quality > 0.0).then_some((quality, tag))
        })
        .collect();
    ranges.sort_by(|a, b| b.0.total_cmp(&a.0));
    ranges.into_iter().find_map(|(_, tag)| Lang::from_tag(tag))
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;

    use super::*;

    fn headers(pairs: &[(header::HeaderName, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(name.clone(), HeaderValue::from_str(value).unwrap());
        }
        map
    }

    #[test]
    fn the_query_wins_and_is_remembered() {
        let h = headers(&[(header::COOKIE, "lang=nb"), (header::ACCEPT_LANGUAGE, "en")]);
        assert_eq!(
            PageLang::choose(Some("x=1&lang=sv"), &h),
            PageLang {
                lang: Lang::Sv,
                remember: true
            }
        );
    }

    #[test]
    fn an_unknown_query_language_falls_through_to_the_cookie() {
        let h = headers(&[(header::COOKIE, "a=b; lang=nb"), (header::ACCEPT_LANGUAGE, "sv")]);
        assert_eq!(
            PageLang::choose(Some("lang=fi"), &h),
            PageLang {
                lang: Lang::Nb,
                remember: false
            }
        );
    }

    #[test]
    fn accept_language_by_quality_then_order() {
        let choose = |value: &str| PageLang::choose(None, &headers(&[(header::ACCEPT_LANGUAGE, value)])).lang;
        assert_eq!(choose("sv-SE,sv;q=0.9,en;q=0.8"), Lang::Sv);
        assert_eq!(choose("de, en;q=0.5, nb;q=0.7"), Lang::Nb);
        assert_eq!(choose("no"), Lang::Nb);
        assert_eq!(choose("nn-NO"), Lang::Nb);
        assert_eq!(choose("sv;q=0, en"), Lang::En);
        assert_eq!(choose("fr, de"), Lang::En);
        assert_eq!(choose(""), Lang::En);
    }

    #[test]
    fn nothing_at_all_is_english() {
        assert_eq!(PageLang::choose(None, &HeaderMap::new()).lang, Lang::En);
    }

    #[test]
    fn the_cookie_names_the_code() {
        let cookie = PageLang {
            lang: Lang::Nb,
            remember: true,
        }
        .cookie();
        assert!(cookie.starts_with("lang=nb;"), "{cookie}");
        assert_eq!(cookie_lang(&cookie), Some(Lang::Nb));
    }
}
