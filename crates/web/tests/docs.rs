//! docs/web.md says what the server does: its error table names every
//! error code the server sends.

use std::path::Path;

/// Every code the API's errors carry (`{"error": ..., "code": ...}`).
const CODES: &[&str] = &[
    "bad_body",
    "bad_content_type",
    "bad_delay",
    "bad_direction",
    "bad_field",
    "bad_json",
    "bad_path",
    "bad_position",
    "bad_query",
    "bad_seed",
    "build_running",
    "busy",
    "cross_origin",
    "game_over",
    "internal",
    "method_not_allowed",
    "no_randomness",
    "no_tables_folder",
    "not_found",
    "nothing_moves",
    "nothing_to_undo",
    "slow_body",
    "tables_built",
    "tables_unavailable",
    "too_large",
    "unknown_game",
    "unknown_preset",
    "weights_unavailable",
    "wrong_host",
];

/// The string literals of the server's sources that look like error codes
/// (lowercase words joined by underscores).
fn code_like_literals() -> Vec<String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut found = Vec::new();
    for entry in std::fs::read_dir(&src).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        for (i, piece) in text.split('"').enumerate() {
            let code_like = piece.contains('_')
                && piece
                    .split('_')
                    .all(|w| !w.is_empty() && w.bytes().all(|b| b.is_ascii_lowercase()));
            if i % 2 == 1 && code_like {
                found.push(piece.to_owned());
            }
        }
    }
    found
}

/// Every error code the API can send is in docs/web.md's table, so that a
/// client's author can look up any code they get (one was once missing).
#[test]
fn the_error_table_names_every_code() {
    let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/web.md");
    let docs = std::fs::read_to_string(docs).unwrap();
    let table: Vec<&str> =
        docs.lines().filter(|l| l.starts_with("| 4") || l.starts_with("| 5")).collect();
    for code in CODES {
        let row = format!("| `{code}` |");
        assert!(table.iter().any(|l| l.contains(&row)), "docs/web.md's error table lacks {code}");
    }
    for literal in code_like_literals() {
        assert!(
            CODES.contains(&literal.as_str()),
            "{literal} looks like a new error code: add it to CODES and to docs/web.md"
        );
    }
}
