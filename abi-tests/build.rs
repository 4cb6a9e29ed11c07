//! Turns the scenario lists (abi-tests/scenarios/{host,vm}.sh) into one
//! `#[test]` per scenario, so `cargo test` reports each scenario by name and a
//! new scenario needs only its line in the list.
//!
//! VM scenarios are `#[ignore]`d unless RDMA_VM_TESTS=1 when the tests are
//! built (booting the VM takes a minute or more); scenarios marked
//! `--pending "issue N"` are ignored unless RDMA_SCENARIOS_PENDING=1.
use std::fmt::Write as _;
use std::path::PathBuf;

/// Splits a shell command line into words (quotes and backslashes as bash
/// reads them; no expansions). Enough for the scenario lists.
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                for c in chars.by_ref() {
                    if c == '\'' {
                        break;
                    }
                    cur.push(c);
                }
            }
            '"' => {
                in_word = true;
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => cur.extend(chars.next()),
                        c => cur.push(c),
                    }
                }
            }
            '\\' => {
                in_word = true;
                cur.extend(chars.next());
            }
            '#' if !in_word => break,
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    words
}

struct Scenario {
    name: String,
    pending: Option<String>,
}

fn scenarios(list: &str) -> Vec<Scenario> {
    // Join backslash-continued lines first.
    let joined = list.replace("\\\n", " ");
    let mut out = Vec::new();
    for line in joined.lines() {
        let words = shell_words(line);
        if words.len() < 2 || !matches!(words[0].as_str(), "compare" | "pair" | "loaded") {
            continue;
        }
        let pending = words
            .windows(2)
            .find(|w| w[0] == "--pending")
            .map(|w| w[1].clone());
        out.push(Scenario {
            name: words[1].clone(),
            pending,
        });
    }
    out
}

fn test_fn_name(name: &str) -> String {
    let mut s: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert_str(0, "s_");
    }
    s
}

fn main() {
    let dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    println!("cargo:rerun-if-env-changed=RDMA_VM_TESTS");
    println!("cargo:rerun-if-env-changed=RDMA_SCENARIOS_PENDING");
    let vm_enabled = std::env::var("RDMA_VM_TESTS").as_deref() == Ok("1");
    let pending_enabled = std::env::var("RDMA_SCENARIOS_PENDING").as_deref() == Ok("1");

    for mode in ["host", "vm"] {
        let list = dir.join("scenarios").join(format!("{mode}.sh"));
        println!("cargo:rerun-if-changed={}", list.display());
        let text =
            std::fs::read_to_string(&list).unwrap_or_else(|e| panic!("{}: {e}", list.display()));
        let mut code = String::new();
        for s in scenarios(&text) {
            let ignore = if let Some(why) = s.pending.as_ref().filter(|_| !pending_enabled) {
                Some(format!("pending ({why}); RDMA_SCENARIOS_PENDING=1 runs it"))
            } else if mode == "vm" && !vm_enabled {
                Some("boots the Soft-RoCE VM; RDMA_VM_TESTS=1 runs it".to_string())
            } else {
                None
            };
            writeln!(
                code,
                "/// Scenario `{}` of abi-tests/scenarios/{mode}.sh.",
                s.name
            )
            .unwrap();
            writeln!(code, "#[test]").unwrap();
            if let Some(why) = ignore {
                writeln!(code, "#[ignore = {why:?}]").unwrap();
            }
            writeln!(
                code,
                "fn {}() {{ scenario({:?}); }}\n",
                test_fn_name(&s.name),
                s.name
            )
            .unwrap();
        }
        std::fs::write(out.join(format!("{mode}_scenarios.rs")), code).unwrap();
    }
}
