//! The simulator's manual (README.md, "Where the documents are silent" and
//! "Not simulated") records the choices the simulator makes where the
//! documents are silent: each row checked here must stay written down.

/// (the row's topic, a phrase its text must hold).
const ROWS: &[(&str, &str)] = &[
    ("Sort keys", "An analytics report sorts by any field of its rows but an array"),
    (
        "Filter items",
        "Every analytics operation that reads `filters` takes the same items per edition",
    ),
    (
        "Viewing situation `parameter`",
        "It names one field of the edition's situation item",
    ),
    ("CSV import jobs", "A job's `name` is `import-{id}`"),
    (
        "Analytics finality (`golden`)",
        "says `golden: true` when its period ended more than `SimConfig::analytics_settle_days` (2) days before today",
    ),
    (
        "Analytics basic window",
        "refuses a wider window with 400 `INVALID_REQUEST`",
    ),
    (
        "One analytics quota for both editions",
        "The simulator has one account and one quota: basic (`/v1`) and cloud (`/v2`)",
    ),
    (
        "What counts against the analytics limits",
        "whether it then answers 200 or 408: a 408 counts",
    ),
    (
        "Viewing page `status`",
        "any other value (`public`, `PRIVATE`) answers 403",
    ),
    (
        "Query parameters an operation does not read",
        "camelCase `startInterval` and `endInterval` change nothing",
    ),
    (
        "Files sent as base64",
        "several subtitles cannot carry content in one registration",
    ),
    (
        "Parameters sent in the other place",
        "A play parameter in the other place is dropped silently",
    ),
    (
        "Parameters sent in the other place",
        "`create_parents` or `rename_children` in the body is refused",
    ),
    (
        "Signed page URLs",
        "`version=1` and no `version` are both accepted with the same signature",
    ),
    (
        "Partial task registration",
        "Documented, not simulated: the registration answer has `failure_count`",
    ),
    ("Partial task registration", "`failure_count` is always 0"),
    (
        "Deleting physical files",
        "Documented (deleting a content, stream, subtitle, poster or document also deletes its physical file), not observable here",
    ),
];

#[test]
fn the_manual_records_the_choices_where_the_documents_are_silent() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/simulator.md");
    let readme = std::fs::read_to_string(path).unwrap_or_else(|error| panic!("{path}: {error}"));
    let missing: Vec<String> = ROWS
        .iter()
        .filter(|(topic, phrase)| {
            let row = format!("| {topic} |");
            !readme
                .lines()
                .any(|line| line.starts_with(&row) && line.contains(phrase))
        })
        .map(|(topic, phrase)| format!("row `{topic}`: {phrase}"))
        .collect();
    assert!(
        missing.is_empty(),
        "the book's simulator tables (docs/simulator.md) lack:\n{}",
        missing.join("\n")
    );
}
