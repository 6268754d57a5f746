//! Loading block configs from TOML files and presets.

use serde::de::DeserializeOwned;
use std::path::Path;
use switchcraft_core::ConfigError;

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

/// A config file that cannot be used: unreadable, not TOML, unknown key, or a rule broken.
#[derive(Debug)]
pub struct LoadError(pub String);

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for LoadError {}

/// Reads a TOML config whose keys are the field names of `T` (unknown keys are errors).
pub fn load_toml<T: DeserializeOwned>(path: &Path) -> Result<T, LoadError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| LoadError(format!("{}: cannot read: {e}", path.display())))?;
    parse_toml(&text, &path.display().to_string())
}

pub fn parse_toml<T: DeserializeOwned>(text: &str, name: &str) -> Result<T, LoadError> {
    toml::from_str(text).map_err(|e| {
        // toml's message already names the key and shows the line.
        LoadError(format!("{name}: {}", e.to_string().trim_end()))
    })
}
