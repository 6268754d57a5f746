//! Loading block configs from TOML files and presets.

use serde::de::DeserializeOwned;
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
        // toml's message already names the key and shows the line.
        InputError(format!("{name}: {}", e.to_string().trim_end()))
    })
}
