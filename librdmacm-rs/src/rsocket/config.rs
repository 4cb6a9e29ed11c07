//! The defaults under /etc/rdma/rsocket, read once per process (on the
//! first rsocket call), as upstream does; missing or unreadable files leave
//! the built-in defaults. Each file holds one number.

use std::sync::OnceLock;

use super::proto::{scale_to_value, value_to_scale, RS_SNDLOWAT};

/// Where upstream (and Debian) look: `RS_CONF_DIR`.
const RS_CONF_DIR: &str = "/etc/rdma/rsocket";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Config {
    /// Microseconds to spin on completions before sleeping.
    pub(crate) polling_time: u32,
    /// Longest sleep of rpoll between rechecks (ms).
    pub(crate) wake_up_interval: i32,
    pub(crate) inline_default: u16,
    pub(crate) sqsize_default: u16,
    pub(crate) rqsize_default: u16,
    /// Receive buffer bytes.
    pub(crate) mem_default: u32,
    /// Send buffer bytes.
    pub(crate) wmem_default: u32,
    pub(crate) iomap_size: u16,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            polling_time: 10,
            wake_up_interval: 5000,
            inline_default: 64,
            sqsize_default: 384,
            rqsize_default: 384,
            mem_default: 1 << 17,
            wmem_default: 1 << 17,
            iomap_size: 0,
        }
    }
}

/// The leading number of a file, as fscanf would read it (leading white
/// space skipped, an optional sign, digits). None: no number.
fn leading_number(text: &[u8]) -> Option<i64> {
    let t = text.trim_ascii_start();
    let (neg, digits) = match t.first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let end = digits.iter().position(|b| !b.is_ascii_digit()).unwrap_or(digits.len());
    if end == 0 {
        return None;
    }
    // ASCII digits only: valid UTF-8.
    let digits = core::str::from_utf8(&digits[..end]).unwrap_or("");
    let v: i64 = digits.parse().unwrap_or(i64::MAX);
    Some(if neg { v.wrapping_neg() } else { v })
}

impl Config {
    /// Reads `dir`'s files over the defaults.
    pub(crate) fn load(dir: &str) -> Config {
        let mut c = Config::default();
        // The start of each file (on the stack: nothing here can fail for
        // want of memory); a number that blank space pushes past it reads
        // as none.
        let read = |name: &str| -> Option<Option<i64>> {
            let mut buf = [0u8; 256];
            let n = rdma_util::fallible::read_head(rdma_util::fallible::path(&[dir.as_bytes(), b"/", name.as_bytes()])?.as_bytes(), &mut buf)?;
            Some(leading_number(&buf[..n]))
        };
        if let Some(Some(v)) = read("polling_time") {
            c.polling_time = v as u32;
        }
        if let Some(Some(v)) = read("wake_up_interval") {
            c.wake_up_interval = v as i32;
        }
        if let Some(Some(v)) = read("inline_default") {
            c.inline_default = v as u16;
        }
        if let Some(Some(v)) = read("sqsize_default") {
            c.sqsize_default = v as u16;
        }
        if let Some(Some(v)) = read("rqsize_default") {
            c.rqsize_default = v as u16;
        }
        if let Some(r) = read("mem_default") {
            if let Some(v) = r {
                c.mem_default = v as u32;
            }
            if c.mem_default < 1 {
                c.mem_default = 1;
            }
        }
        if let Some(r) = read("wmem_default") {
            if let Some(v) = r {
                c.wmem_default = v as u32;
            }
            if c.wmem_default < RS_SNDLOWAT {
                c.wmem_default = RS_SNDLOWAT << 1;
            }
        }
        if let Some(r) = read("iomap_size") {
            if let Some(v) = r {
                c.iomap_size = v as u16;
            }
            // Only sizes the 8-bit scale can express.
            c.iomap_size = value_to_scale(scale_to_value(c.iomap_size as i32, 8) as u16 as i32, 8) as u8 as u16;
        }
        c
    }
}

static CONFIG: OnceLock<Config> = OnceLock::new();

/// The process's configuration (read on first use).
pub(crate) fn get() -> &'static Config {
    CONFIG.get_or_init(|| Config::load(RS_CONF_DIR))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// /etc/rdma/rsocket's files, each holding random or mutated text:
    /// loading must not panic, and the limits it enforces must hold.
    #[test]
    fn fuzz_config_files() {
        let d = std::env::temp_dir().join(format!("rsconf-fuzz-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let names = ["polling_time", "wake_up_interval", "inline_default", "sqsize_default", "rqsize_default", "mem_default", "wmem_default", "iomap_size"];
        rdma_util::fuzz::run(
            "rsocket config",
            2_000,
            |r| {
                names
                    .iter()
                    .map(|_| if r.below(2) == 0 { r.mutate(b"  -42\n") } else { let n = r.below(40); r.bytes(n) })
                    .collect::<Vec<_>>()
            },
            |files| {
                for (n, text) in names.iter().zip(files) {
                    std::fs::write(d.join(n), text).unwrap();
                }
                let c = Config::load(d.to_str().unwrap());
                assert!(c.mem_default >= 1);
                assert!(c.wmem_default >= RS_SNDLOWAT);
                for text in files {
                    let _ = leading_number(text);
                }
            },
        );
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn files_override_defaults_and_are_clamped() {
        let d = std::env::temp_dir().join(format!("rsconf-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("polling_time"), "250\n").unwrap();
        std::fs::write(d.join("inline_default"), " 128").unwrap();
        std::fs::write(d.join("wmem_default"), "100").unwrap();
        std::fs::write(d.join("mem_default"), "0").unwrap();
        std::fs::write(d.join("sqsize_default"), "junk").unwrap();
        let c = Config::load(d.to_str().unwrap());
        assert_eq!(c.polling_time, 250);
        assert_eq!(c.inline_default, 128);
        assert_eq!(c.wmem_default, RS_SNDLOWAT << 1);
        assert_eq!(c.mem_default, 1);
        assert_eq!(c.sqsize_default, 384, "unparsable file keeps the default");
        assert_eq!(c.rqsize_default, 384);
        std::fs::remove_dir_all(&d).unwrap();
        assert_eq!(Config::load("/nonexistent/rsocket"), Config::default());
    }
}
