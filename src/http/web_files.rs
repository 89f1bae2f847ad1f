//! Where the files of `web/` come from: compiled into the binary, so a release serves exactly
//! the files it was built with; or, for working on the client, read from a folder on every
//! request when `SPELBORD_WEB_DIR` names one (e.g. `SPELBORD_WEB_DIR=web cargo run`), so an
//! edited page, module, style sheet or catalogue shows on the next reload without a rebuild.
//! Only files the binary already knows are read from there: the folder adds no paths.

use std::borrow::Cow;
use std::path::PathBuf;
use std::sync::LazyLock;

/// The folder named by `SPELBORD_WEB_DIR`, when set and not empty.
static DEV_DIR: LazyLock<Option<PathBuf>> = LazyLock::new(|| {
    std::env::var_os("SPELBORD_WEB_DIR")
        .filter(|dir| !dir.is_empty())
        .map(PathBuf::from)
});

/// Whether files are read from `SPELBORD_WEB_DIR` (nothing may then be cached).
pub fn from_disk() -> bool {
    DEV_DIR.is_some()
}

/// The text of `path` (relative to `web/`): the compiled-in text, or the folder's file when
/// `SPELBORD_WEB_DIR` is set (the compiled-in text if that file cannot be read).
pub fn text(path: &str, compiled: &'static str) -> Cow<'static, str> {
    match DEV_DIR.as_ref() {
        Some(dir) => std::fs::read_to_string(dir.join(path)).map_or(Cow::Borrowed(compiled), Cow::Owned),
        None => Cow::Borrowed(compiled),
    }
}
