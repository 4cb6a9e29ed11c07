//! No work-log words in the project: users never saw our working sessions or
//! our tracker's numbers, so code, comments, test names, scripts and docs name
//! the feature, the scenario or the reason instead. This fails on any tracked
//! file with "session", "stop" or "issue" (or their plurals) followed by a
//! number, the same lines as
//! `git grep -nIiE '\b(session|stop)s? [0-9]+|\bissues? [0-9]+'`.
use std::path::Path;
use std::process::Command;

/// The words that, followed by a space and a digit, make a work-log phrase.
const WORDS: [&str; 3] = ["session", "stop", "issue"];

/// Does `line` hold a work-log phrase? Case-insensitive; the word must start
/// at a word boundary and may take a plural "s".
fn has_worklog_phrase(line: &str) -> bool {
    let lower = line.to_ascii_lowercase();
    let b = lower.as_bytes();
    let is_word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    for word in WORDS {
        let mut from = 0;
        while let Some(pos) = lower[from..].find(word) {
            let start = from + pos;
            from = start + 1;
            if start > 0 && is_word(b[start - 1]) {
                continue;
            }
            let mut end = start + word.len();
            if b.get(end) == Some(&b's') {
                end += 1;
            }
            if b.get(end) == Some(&b' ') && b.get(end + 1).is_some_and(u8::is_ascii_digit) {
                return true;
            }
        }
    }
    false
}

#[test]
fn the_matcher_finds_work_log_phrases_and_nothing_else() {
    // Written with '#' for the number, so that this file passes its own check.
    for hit in [
        "see Session # in the docs",
        "(issue #, wire compatibility)",
        "ISSUES # and 4",
        "stop # landed",
        "sessions #-10 measured it",
    ] {
        let hit = hit.replace('#', "12");
        assert!(has_worklog_phrase(&hit), "not caught: {hit}");
    }
    for miss in [
        "a session opens the device",
        "issue a command 3 times",
        "nonstop 5",
        "stop_2 is a label",
        "session_12",
        "the issue: 4 bytes",
    ] {
        assert!(!has_worklog_phrase(miss), "wrongly caught: {miss}");
    }
}

#[test]
fn no_tracked_file_has_work_log_words() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let out = Command::new("git")
        .args(["ls-files", "-z"])
        .current_dir(&root)
        .output()
        .expect("git ls-files");
    if !out.status.success() {
        // Not a git checkout (a release tarball): nothing is tracked.
        eprintln!("not a git checkout; skipped");
        return;
    }
    let mut found = Vec::new();
    for name in out.stdout.split(|&c| c == 0).filter(|n| !n.is_empty()) {
        let name = String::from_utf8_lossy(name).into_owned();
        if name == "Cargo.lock" {
            continue;
        }
        let Ok(bytes) = std::fs::read(root.join(&name)) else { continue };
        if bytes.contains(&0) {
            continue; // binary
        }
        for (i, line) in String::from_utf8_lossy(&bytes).lines().enumerate() {
            if has_worklog_phrase(line) {
                found.push(format!("{name}:{}: {}", i + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "work-log words (name the feature, scenario or reason instead):\n{}",
        found.join("\n")
    );
}
