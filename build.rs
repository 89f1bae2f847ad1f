//! Build steps that embed folders: rebuild when a migration changes (`sqlx::migrate!()` embeds
//! `migrations/`), and list the player rule pages and their diagrams (`web/rules/`) for
//! `src/http/rules.rs`, each compiled in with `include_str!`, so a new page or diagram needs no
//! code change.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    println!("cargo:rerun-if-changed=migrations");
    println!("cargo:rerun-if-changed=web/rules");
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let rules = root.join("web/rules");
    let mut files = Vec::new();
    collect(&rules, &rules, &mut files);
    files.sort();
    let mut code = String::from(
        "/// Every file under `web/rules/`: its path there and its text.\npub const RULE_FILES: &[(&str, &str)] = &[\n",
    );
    for (relative, absolute) in &files {
        println!("cargo:rerun-if-changed={}", absolute.display());
        let _ = writeln!(
            code,
            "    ({relative:?}, include_str!({:?})),",
            absolute.display().to_string()
        );
    }
    code.push_str("];\n");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("rule_files.rs");
    std::fs::write(out, code).expect("write the rule files' list");
}

/// The files under `dir` (recursively), as (path relative to `base` with `/`, absolute path).
fn collect(base: &Path, dir: &Path, out: &mut Vec<(String, PathBuf)>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(base, &path, out);
        } else if let Ok(relative) = path.strip_prefix(base) {
            let parts: Vec<String> = relative.iter().map(|p| p.to_string_lossy().into_owned()).collect();
            out.push((parts.join("/"), path));
        }
    }
}
