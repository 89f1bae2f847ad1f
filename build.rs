//! Rebuild when a migration changes: `sqlx::migrate!()` embeds the `migrations/` folder.
fn main() {
    println!("cargo:rerun-if-changed=migrations");
}
