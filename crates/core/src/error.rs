//! Errors for bad user input: each names the field or file:line and the rule broken.

use thiserror::Error;

/// `name` as shown in a message: at most 64 characters (an unknown key may be megabytes).
pub fn shorten(name: &str) -> String {
    match name.char_indices().nth(64) {
        Some((at, _)) => format!("{}...", &name[..at]),
        None => name.to_string(),
    }
}

/// `msg` with every word longer than 64 characters shortened by [`shorten`]: a parser's
/// message may quote a key or value of megabytes.
pub fn shorten_words(msg: &str) -> String {
    msg.split(' ').map(shorten).collect::<Vec<_>>().join(" ")
}

/// A configuration value that breaks a rule of the block.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("invalid config: {field} = {value}: {rule}")]
pub struct ConfigError {
    pub field: String,
    pub value: String,
    pub rule: String,
}

impl ConfigError {
    pub fn new(field: &str, value: impl std::fmt::Display, rule: impl Into<String>) -> Self {
        ConfigError {
            field: field.to_string(),
            value: value.to_string(),
            rule: rule.into(),
        }
    }
}

/// Bad user input of any kind (an unreadable or malformed file, an unknown key, a broken rule,
/// an unknown block or preset): one message naming the file:line or field and the rule.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{0}")]
pub struct InputError(pub String);

/// A malformed line of a stimulus file.
#[derive(Debug, Error)]
pub enum StimulusError {
    #[error("{file}:{line}: {msg}")]
    Line {
        file: String,
        line: usize,
        msg: String,
    },
    #[error("{file}: {source}")]
    Io {
        file: String,
        #[source]
        source: std::io::Error,
    },
}
