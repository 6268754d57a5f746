//! Stimulus and trace files: JSON Lines, one object per cycle keyed by port name.
//!
//! A stimulus line holds input values; an input port that is omitted is 0 that cycle. Values are
//! JSON numbers or strings in hex (`"0x1f"`). A trace line holds every output port. Files are
//! written through [`OutputFile`](crate::output::OutputFile), so a failed run leaves no partial file behind.

use crate::error::shorten;
use crate::error::StimulusError;
use crate::port::{Dir, PortSchema};
use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;

/// Input values per cycle, in schema input order.
pub type Stimulus = Vec<Vec<u64>>;

/// Parses a stimulus file against `schema`.
pub fn read_stimulus(path: &Path, schema: &PortSchema) -> Result<Stimulus, StimulusError> {
    let file = path.display().to_string();
    let f = File::open(path).map_err(|source| StimulusError::Io {
        file: file.clone(),
        source,
    })?;
    parse_stimulus(BufReader::new(f), &file, schema)
}

pub fn parse_stimulus(
    reader: impl BufRead,
    file: &str,
    schema: &PortSchema,
) -> Result<Stimulus, StimulusError> {
    let mut cycles = Vec::new();
    for (k, line) in reader.lines().enumerate() {
        let line_no = k + 1;
        let err = |msg: String| StimulusError::Line {
            file: file.to_string(),
            line: line_no,
            msg,
        };
        let line = line.map_err(|e| err(format!("cannot read: {e}")))?;
        // A UTF-8 byte-order mark, as some editors write, is not part of the first object.
        let line: &str = match line_no {
            1 => line.strip_prefix('\u{feff}').unwrap_or(&line),
            _ => &line,
        };
        if line.trim().is_empty() {
            return Err(err(
                "empty line: each line is one cycle's JSON object (`{}` for a cycle without events)"
                    .into(),
            ));
        }
        let value: serde_json::Value =
            serde_json::from_str(line).map_err(|e| err(format!("bad JSON: {e}")))?;
        let obj = value
            .as_object()
            .ok_or_else(|| err("expected a JSON object keyed by port name".into()))?;
        let mut row = vec![0u64; schema.input_count()];
        for (name, v) in obj {
            let port = schema
                .ports
                .iter()
                .find(|p| &p.name == name)
                .ok_or_else(|| {
                    err(format!(
                        "unknown port `{}` (block {})",
                        shorten(name),
                        schema.block
                    ))
                })?;
            if port.dir != Dir::In {
                return Err(err(format!("`{name}` is an output port, not an input")));
            }
            let x = parse_value(v).map_err(|m| err(format!("port `{name}`: {m}")))?;
            if x > port.mask() {
                return Err(err(format!(
                    "port `{name}`: value {x} does not fit its {} bits",
                    port.width
                )));
            }
            row[schema.input_index(name).expect("input")] = x;
        }
        cycles.push(row);
    }
    Ok(cycles)
}

fn parse_value(v: &serde_json::Value) -> Result<u64, String> {
    match v {
        serde_json::Value::Number(n) => n
            .as_u64()
            .ok_or_else(|| format!("{n} is not an unsigned integer")),
        serde_json::Value::Bool(b) => Ok(*b as u64),
        serde_json::Value::String(s) => {
            let hex = s
                .strip_prefix("0x")
                .ok_or_else(|| format!("string value {s:?} is not hex (0x...)"))?;
            u64::from_str_radix(hex, 16).map_err(|_| format!("{s:?} is not a hex number"))
        }
        other => Err(format!("{other} is not a number")),
    }
}

/// Writes one JSON object of `(name, value)` pairs for the ports of direction `dir`.
pub fn write_line(
    w: &mut impl Write,
    schema: &PortSchema,
    dir: Dir,
    values: &[u64],
) -> std::io::Result<()> {
    w.write_all(b"{")?;
    for (k, (p, v)) in schema
        .ports
        .iter()
        .filter(|p| p.dir == dir)
        .zip(values)
        .enumerate()
    {
        if k > 0 {
            w.write_all(b",")?;
        }
        write!(w, "\"{}\":{}", p.name, v)?;
    }
    w.write_all(b"}\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::port::Port;

    fn schema() -> PortSchema {
        PortSchema::new(
            "t",
            vec![
                Port::input("a", 4, ""),
                Port::input("b", 8, ""),
                Port::output("y", 3, ""),
            ],
        )
    }

    fn parse(text: &str) -> Result<Stimulus, StimulusError> {
        parse_stimulus(text.as_bytes(), "s.jsonl", &schema())
    }

    #[test]
    fn a_byte_order_mark_is_skipped_and_long_keys_are_shortened() {
        let s = parse("\u{feff}{\"b\":7}\n{}\n").unwrap();
        assert_eq!(s, vec![vec![0, 7], vec![0, 0]]);
        let long = "k".repeat(100_000);
        let e = parse(&format!("{{\"{long}\":1}}\n"))
            .unwrap_err()
            .to_string();
        assert!(e.len() < 200, "{} characters", e.len());
        assert!(e.contains(&format!("`{}...`", "k".repeat(64))), "{e}");
    }

    #[test]
    fn omitted_inputs_are_zero() {
        let s = parse("{\"b\":7}\n{}\n{\"a\":\"0xf\",\"b\":255}\n").unwrap();
        assert_eq!(s, vec![vec![0, 7], vec![0, 0], vec![15, 255]]);
    }

    #[test]
    fn errors_name_file_line_and_rule() {
        let cases = [
            (
                "{}\n{\"a\":16}\n",
                "s.jsonl:2: port `a`: value 16 does not fit its 4 bits",
            ),
            ("{\"zz\":1}\n", "s.jsonl:1: unknown port `zz`"),
            (
                "{}\n\n{}\n",
                "s.jsonl:2: empty line: each line is one cycle's JSON object",
            ),
            ("{}\n   \n", "s.jsonl:2: empty line"),
            ("{\"y\":1}\n", "s.jsonl:1: `y` is an output port"),
            ("{\"a\":\n", "s.jsonl:1: bad JSON"),
            ("[1]\n", "s.jsonl:1: expected a JSON object"),
            (
                "{\"a\":-1}\n",
                "s.jsonl:1: port `a`: -1 is not an unsigned integer",
            ),
            (
                "{\"a\":\"12\"}\n",
                "s.jsonl:1: port `a`: string value \"12\" is not hex",
            ),
        ];
        for (text, want) in cases {
            let e = parse(text).unwrap_err().to_string();
            assert!(e.starts_with(want), "{e:?} should start with {want:?}");
        }
    }

    #[test]
    fn write_line_keys_by_port_name() {
        let mut out = Vec::new();
        write_line(&mut out, &schema(), Dir::In, &[3, 4]).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "{\"a\":3,\"b\":4}\n");
    }

    #[test]
    fn output_file_is_absent_unless_committed() {
        let dir = std::env::temp_dir().join(format!("sc-of-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("x.jsonl");
        {
            let mut f = crate::output::OutputFile::create(&p).unwrap();
            f.write_all(b"half").unwrap();
        }
        assert!(!p.exists());
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
        let mut f = crate::output::OutputFile::create(&p).unwrap();
        f.write_all(b"whole").unwrap();
        f.commit().unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "whole");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Threads writing one path at once each commit a whole file (the tests of one block
    /// package the same preset concurrently); the result is one writer's complete content.
    #[test]
    fn concurrent_writers_of_one_path_all_commit() {
        let dir = std::env::temp_dir().join(format!("sc-of-race-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("same.v");
        let body = "x".repeat(64 * 1024);
        std::thread::scope(|s| {
            for _ in 0..8 {
                s.spawn(|| {
                    for _ in 0..50 {
                        let mut f = crate::output::OutputFile::create(&p).unwrap();
                        f.write_all(body.as_bytes()).unwrap();
                        f.commit().unwrap();
                    }
                });
            }
        });
        assert_eq!(std::fs::read_to_string(&p).unwrap(), body);
        assert_eq!(
            std::fs::read_dir(&dir).unwrap().count(),
            1,
            "no temporary left"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
