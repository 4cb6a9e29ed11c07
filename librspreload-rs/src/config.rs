//! The preload_config rules: which sockets the preload moves to rsockets.
//!
//! The file (/etc/rdma/rsocket/preload_config) holds lines of four words,
//! `program domain type protocol`, each of which may be `*`. A line starting
//! with `#` is a comment. With no usable line at all, every socket is a
//! candidate; otherwise a socket is a candidate only when some line matches
//! it. This module only parses and matches; reading the file is the caller's.
//!
//! The parser reproduces upstream's reading exactly, quirks included, since
//! they decide which lines count: the file is read in pieces of at most 119
//! bytes (a longer line is read as several lines), a piece counts only if it
//! yields four words where the first word is cut at 63 bytes and the others
//! at 15 (the rest of a cut word becomes the next word), and a line with an
//! unknown domain, type or protocol word is skipped.

use libc::c_int;

/// Where upstream (configured with sysconfdir /etc, as Debian is) looks.
pub(crate) const CONFIG_PATH: &std::ffi::CStr = c"/etc/rdma/rsocket/preload_config";

/// Upstream reads with a 120-byte line buffer: at most 119 bytes a piece.
const PIECE_MAX: usize = 119;
/// The widths of the four words.
const WIDTHS: [usize; 4] = [63, 15, 15, 15];

/// One usable line. 0 in `domain`, `ty` or `protocol` and None in `program`
/// are the wildcard `*`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Rule {
    pub(crate) program: Option<Vec<u8>>,
    pub(crate) domain: c_int,
    pub(crate) ty: c_int,
    pub(crate) protocol: c_int,
}

/// C-locale isspace.
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// Splits `data` the way repeated reads with a 120-byte buffer do: each piece
/// ends after a newline or after 119 bytes, whichever comes first.
fn pieces(data: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut rest = data;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let limit = rest.len().min(PIECE_MAX);
        let end = match rest[..limit].iter().position(|&b| b == b'\n') {
            Some(nl) => nl + 1,
            None => limit,
        };
        let (piece, tail) = rest.split_at(end);
        rest = tail;
        Some(piece)
    })
}

/// The four words of a piece, each at most its width, as a `%63s%15s%15s%15s`
/// scan takes them; None unless all four are there. A NUL byte ends the text.
fn words(piece: &[u8]) -> Option<[&[u8]; 4]> {
    let text = match piece.iter().position(|&b| b == 0) {
        Some(n) => &piece[..n],
        None => piece,
    };
    let mut out: [&[u8]; 4] = [&[]; 4];
    let mut pos = 0;
    for (slot, &width) in out.iter_mut().zip(WIDTHS.iter()) {
        while pos < text.len() && is_space(text[pos]) {
            pos += 1;
        }
        if pos == text.len() {
            return None;
        }
        let start = pos;
        while pos < text.len() && pos - start < width && !is_space(text[pos]) {
            pos += 1;
        }
        *slot = &text[start..pos];
    }
    Some(out)
}

/// Maps a word to its value through a table of case-insensitive names; `*`
/// (exactly) is the wildcard 0; None for anything else.
fn lookup(word: &[u8], table: &[(&str, c_int)]) -> Option<c_int> {
    for (name, value) in table {
        if word.eq_ignore_ascii_case(name.as_bytes()) {
            return Some(*value);
        }
    }
    (word == b"*").then_some(0)
}

const DOMAINS: &[(&str, c_int)] = &[
    ("INET", libc::AF_INET),
    ("AF_INET", libc::AF_INET),
    ("PF_INET", libc::AF_INET),
    ("INET6", libc::AF_INET6),
    ("AF_INET6", libc::AF_INET6),
    ("PF_INET6", libc::AF_INET6),
    ("IB", AF_IB),
    ("AF_IB", AF_IB),
    ("PF_IB", AF_IB),
];
const TYPES: &[(&str, c_int)] = &[
    ("STREAM", libc::SOCK_STREAM),
    ("SOCK_STREAM", libc::SOCK_STREAM),
    ("DGRAM", libc::SOCK_DGRAM),
    ("SOCK_DGRAM", libc::SOCK_DGRAM),
];
const PROTOCOLS: &[(&str, c_int)] = &[
    ("TCP", libc::IPPROTO_TCP),
    ("IPPROTO_TCP", libc::IPPROTO_TCP),
    ("UDP", libc::IPPROTO_UDP),
    ("IPPROTO_UDP", libc::IPPROTO_UDP),
];

/// The InfiniBand address family (linux/socket.h).
pub(crate) const AF_IB: c_int = 27;

/// Parses the whole file's bytes into its usable rules, in file order. Short
/// of memory, the rules so far (upstream stops at its first failed
/// allocation too).
pub(crate) fn parse(data: &[u8]) -> Vec<Rule> {
    let mut rules = Vec::new();
    for piece in pieces(data) {
        if piece.first() == Some(&b'#') {
            continue;
        }
        let Some([prog, dom, ty, proto]) = words(piece) else { continue };
        let (Some(domain), Some(ty), Some(protocol)) =
            (lookup(dom, DOMAINS), lookup(ty, TYPES), lookup(proto, PROTOCOLS))
        else {
            continue;
        };
        let program = match prog {
            b"*" => None,
            p => match rdma_util::fallible::concat(&[p]) {
                Ok(p) => Some(p),
                Err(_) => break,
            },
        };
        if rdma_util::fallible::push(&mut rules, Rule { program, domain, ty, protocol }).is_err() {
            break;
        }
    }
    rules
}

/// Whether a `socket(domain, ty, protocol)` call by the program named
/// `program` (its short invocation name) is one to try on rsockets.
///
/// A rule's program word matches any program whose name starts with it
/// (ignoring ASCII case). Protocol 0 stands for TCP with SOCK_STREAM and for
/// UDP with SOCK_DGRAM; `ty` is compared as given, flags and all.
pub(crate) fn intercept(rules: &[Rule], program: &[u8], domain: c_int, ty: c_int, protocol: c_int) -> bool {
    if rules.is_empty() {
        return true;
    }
    let protocol = match (protocol, ty) {
        (0, libc::SOCK_STREAM) => libc::IPPROTO_TCP,
        (0, libc::SOCK_DGRAM) => libc::IPPROTO_UDP,
        (p, _) => p,
    };
    rules.iter().any(|r| {
        let name_ok = match &r.program {
            None => true,
            Some(name) => program.len() >= name.len() && program[..name.len()].eq_ignore_ascii_case(name),
        };
        name_ok
            && (r.domain == 0 || r.domain == domain)
            && (r.ty == 0 || r.ty == ty)
            && (r.protocol == 0 || r.protocol == protocol)
    })
}

/// `atoi` as the C library does it: leading white space, an optional sign,
/// decimal digits up to the first other byte; a value beyond `long` sticks at
/// its limit and is then truncated to `int`.
pub(crate) fn atoi(s: &[u8]) -> c_int {
    let mut i = 0;
    while i < s.len() && is_space(s[i]) {
        i += 1;
    }
    let mut neg = false;
    if i < s.len() && (s[i] == b'+' || s[i] == b'-') {
        neg = s[i] == b'-';
        i += 1;
    }
    let mut v: i64 = 0;
    let mut overflow = false;
    while i < s.len() && s[i].is_ascii_digit() {
        let d = i64::from(s[i] - b'0');
        match v.checked_mul(10).and_then(|x| if neg { x.checked_sub(d) } else { x.checked_add(d) }) {
            Some(x) => v = x,
            None => overflow = true,
        }
        i += 1;
    }
    if overflow {
        v = if neg { i64::MIN } else { i64::MAX };
    }
    v as c_int
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RS_SQ_SIZE, RS_RQ_SIZE, RS_INLINE and the config file's numbers go
    /// through atoi: on random text it must agree with the C library's.
    #[test]
    fn fuzz_atoi_agrees_with_the_c_library() {
        rdma_util::fuzz::run(
            "atoi",
            20_000,
            |r| {
                const CHARS: &[u8] = b" \t\n\x0b\x0c\r+-0123456789x";
                let n = r.below(30);
                (0..n).map(|_| CHARS[r.below(CHARS.len())]).collect::<Vec<u8>>()
            },
            |text| {
                let c = std::ffi::CString::new(text.clone()).unwrap();
                // SAFETY: c is NUL-terminated.
                assert_eq!(atoi(text), unsafe { libc::atoi(c.as_ptr()) }, "atoi({:?})", String::from_utf8_lossy(text));
            },
        );
    }

    /// The preload's config file, mutated from a valid one and random:
    /// parsing must not panic, and every rule it keeps names a program
    /// without blanks.
    #[test]
    fn fuzz_config_files() {
        let valid = b"# only these\nrstream * * *\n* INET DGRAM UDP\ntcp_xfer INET STREAM SCTP\nredis-server INET6 STREAM 0\n";
        rdma_util::fuzz::run(
            "preload config",
            20_000,
            |r| if r.below(2) == 0 { r.mutate(valid) } else { let n = r.below(120); r.bytes(n) },
            |text| {
                for rule in parse(text) {
                    if let Some(p) = &rule.program {
                        assert!(!p.is_empty() && !p.iter().any(|&b| is_space(b)));
                    }
                }
            },
        );
    }

    fn rule(p: Option<&str>, d: c_int, t: c_int, pr: c_int) -> Rule {
        Rule { program: p.map(|s| s.as_bytes().to_vec()), domain: d, ty: t, protocol: pr }
    }

    #[test]
    fn parses_names_aliases_wildcards_and_comments() {
        let text = b"# comment line\n\
            nginx INET STREAM TCP\n\
            * af_inet6 sock_dgram ipproto_udp\n\
            \t memcached   PF_IB  *  *  \n\
            redis * DGRAM UDP\n";
        assert_eq!(
            parse(text),
            vec![
                rule(Some("nginx"), libc::AF_INET, libc::SOCK_STREAM, libc::IPPROTO_TCP),
                rule(None, libc::AF_INET6, libc::SOCK_DGRAM, libc::IPPROTO_UDP),
                rule(Some("memcached"), AF_IB, 0, 0),
                rule(Some("redis"), 0, libc::SOCK_DGRAM, libc::IPPROTO_UDP),
            ]
        );
    }

    #[test]
    fn skips_lines_with_unknown_words_or_too_few_words() {
        let text = b"a UNIX STREAM TCP\nb INET RAW TCP\nc INET STREAM SCTP\nd INET STREAM\n\
            e INET STREAM TCP extra\n e2 ** STREAM TCP\n";
        // Only the 5th line is usable: a fifth word is ignored.
        assert_eq!(parse(text), vec![rule(Some("e"), libc::AF_INET, libc::SOCK_STREAM, libc::IPPROTO_TCP)]);
    }

    #[test]
    fn a_comment_mark_counts_only_in_the_first_column() {
        assert_eq!(parse(b" #x INET STREAM TCP\n").len(), 1);
        assert_eq!(parse(b"#x INET STREAM TCP\n").len(), 0);
    }

    #[test]
    fn long_words_spill_into_the_next_word_as_a_width_limited_scan_does() {
        // 63 'a's then "INET": the program word is cut at 63, and the next
        // word starts right after it.
        let mut line = vec![b'a'; 63];
        line.extend_from_slice(b"INET STREAM TCP\n");
        let r = parse(&line);
        assert_eq!(r, vec![rule(Some(&"a".repeat(63)), libc::AF_INET, libc::SOCK_STREAM, libc::IPPROTO_TCP)]);
        // A domain word longer than 15 is cut: "AF_INET" + 9 more letters.
        assert!(parse(b"p AF_INETxxxxxxxxx STREAM TCP UDP\n").is_empty());
    }

    #[test]
    fn lines_are_read_in_pieces_of_119_bytes() {
        // 110 spaces, then a rule: the first piece is 119 bytes and holds only
        // "prog" and part of the next word; the rest is read as a new line.
        let mut text = vec![b' '; 110];
        text.extend_from_slice(b"prog INET STREAM TCP\nx INET6 * *\n");
        // Piece 1 = 110 spaces + "prog INE" (119 bytes): 2 words, unusable.
        // Piece 2 = "T STREAM TCP\n": 3 words, unusable. Piece 3 is usable.
        assert_eq!(parse(&text), vec![rule(Some("x"), libc::AF_INET6, 0, 0)]);
        // A cut can also land inside a word: 100 spaces + "firstword INET
        // STRE" is the first piece (3 words); the second piece begins "AM",
        // which is no domain. Neither is usable.
        let mut text = vec![b' '; 100];
        text.extend_from_slice(b"firstword INET STREAM TCP q INET STREAM TCP\n");
        let r = parse(&text);
        assert!(r.is_empty(), "{r:?}");
    }

    #[test]
    fn nul_ends_a_line_for_the_scan() {
        assert!(parse(b"p INET\0 STREAM TCP\n").is_empty());
    }

    #[test]
    fn no_rules_means_every_socket_is_a_candidate() {
        assert!(intercept(&[], b"anything", libc::AF_UNIX, libc::SOCK_STREAM, 0));
    }

    #[test]
    fn matching_by_prefix_and_fields() {
        let rules = parse(b"tcp_x INET STREAM TCP\n");
        assert!(intercept(&rules, b"tcp_xfer", libc::AF_INET, libc::SOCK_STREAM, 0));
        assert!(intercept(&rules, b"TCP_X", libc::AF_INET, libc::SOCK_STREAM, libc::IPPROTO_TCP));
        // A shorter program name than the rule's word does not match.
        assert!(!intercept(&rules, b"tcp", libc::AF_INET, libc::SOCK_STREAM, 0));
        assert!(!intercept(&rules, b"xtcp_x", libc::AF_INET, libc::SOCK_STREAM, 0));
        assert!(!intercept(&rules, b"tcp_xfer", libc::AF_INET6, libc::SOCK_STREAM, 0));
        assert!(!intercept(&rules, b"tcp_xfer", libc::AF_INET, libc::SOCK_DGRAM, 0));
        // Type flags are not masked: SOCK_STREAM|SOCK_CLOEXEC is another type
        // and gets no default protocol.
        assert!(!intercept(&rules, b"tcp_xfer", libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0));
        let any = parse(b"* * * *\n");
        assert!(intercept(&any, b"x", libc::AF_UNIX, 99, 0));
        let udp = parse(b"* * * UDP\n");
        assert!(intercept(&udp, b"x", libc::AF_INET, libc::SOCK_DGRAM, 0));
        assert!(!intercept(&udp, b"x", libc::AF_INET, libc::SOCK_STREAM, 0));
        assert!(!intercept(&udp, b"x", libc::AF_INET, libc::SOCK_CLOEXEC | libc::SOCK_DGRAM, 0));
    }

    #[test]
    fn atoi_like_c() {
        assert_eq!(atoi(b"128"), 128);
        assert_eq!(atoi(b"  -7x"), -7);
        assert_eq!(atoi(b"+12 3"), 12);
        assert_eq!(atoi(b"abc"), 0);
        assert_eq!(atoi(b""), 0);
        // strtol sticks at LONG_MAX, and (int)LONG_MAX is -1.
        assert_eq!(atoi(b"99999999999999999999999"), -1);
        assert_eq!(atoi(b"4294967297"), 1);
    }
}
