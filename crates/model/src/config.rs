//! Loading block configs from TOML files and presets.

use serde::de::DeserializeOwned;
use switchcraft_core::error::{shorten, shorten_words};
use switchcraft_core::{ConfigError, InputError};

/// The rule every config states for a bounded field: `v` in `lo..=hi`.
pub fn in_range(field: &str, v: u64, lo: u64, hi: u64) -> Result<(), ConfigError> {
    if v < lo || v > hi {
        Err(ConfigError::new(
            field,
            v,
            format!("must be in {lo}..={hi}"),
        ))
    } else {
        Ok(())
    }
}

/// Parses a TOML config whose keys are the field names of `T` (unknown keys are errors).
pub fn parse_toml<T: DeserializeOwned>(text: &str, name: &str) -> Result<T, InputError> {
    toml::from_str(text).map_err(|e| {
        // file:line:column and toml's message (which names the key), not toml's display of the
        // source line: a key or value may be megabytes long.
        let mut msg = shorten_words(e.message().trim_end());
        let at = match e.span() {
            Some(span) => {
                let before = text.get(..span.start).unwrap_or(text);
                let line = before.matches('\n').count() + 1;
                let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
                // A bad value's message does not name its key: the line does.
                let key = text.lines().nth(line - 1).and_then(|l| l.split_once('='));
                if let Some((key, _)) = key {
                    let key = key.trim();
                    if !e.message().contains(key) {
                        msg = format!("{}: {msg}", shorten(key));
                    }
                }
                format!("{line}:{column}:")
            }
            None => String::new(),
        };
        InputError(format!("{name}:{at} {msg}"))
    })
}
