//! Batch probing input: one position per line on standard input, read in blocks.
//!
//! A line is bytes up to `\n`. A line that is not UTF-8, or longer than [`MAX_LINE`] bytes,
//! becomes a [`Line::Bad`] naming its line number, answered with an error like any other
//! bad position: the run goes on and keeps every answer. A long line is skipped without
//! being held in memory.

use std::io::BufRead;

/// The longest line accepted, in bytes (a FEN is under 100; the largest boards a few
/// hundred).
pub const MAX_LINE: usize = 4096;
/// Lines per block: answered in parallel while the next block is read.
pub const BLOCK: usize = 1 << 14;

/// One input line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Line {
    /// A line's text, trimmed, with its 1-based number.
    Text { number: u64, text: String },
    /// A line that cannot be a position, with what is wrong and the input as far as it can
    /// be shown.
    Bad {
        number: u64,
        error: String,
        input: String,
    },
}

/// Reads lines, numbering them.
pub struct Reader<R> {
    input: R,
    number: u64,
}

impl<R: BufRead> Reader<R> {
    pub fn new(input: R) -> Self {
        Reader { input, number: 0 }
    }

    /// The next line's raw bytes (without `\n`), at most `MAX_LINE + 1` kept; `None` at
    /// the end. The `bool` says whether the line was longer than `MAX_LINE`.
    fn raw_line(&mut self) -> std::io::Result<Option<(Vec<u8>, bool)>> {
        let mut buf = Vec::new();
        let mut long = false;
        let mut any = false;
        loop {
            let chunk = match self.input.fill_buf() {
                Ok(c) => c,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if chunk.is_empty() {
                return Ok(any.then_some((buf, long)));
            }
            any = true;
            let (take, end) = match chunk.iter().position(|&b| b == b'\n') {
                Some(i) => (i, true),
                None => (chunk.len(), false),
            };
            let room = (MAX_LINE + 1).saturating_sub(buf.len());
            buf.extend_from_slice(&chunk[..take.min(room)]);
            long |= buf.len() > MAX_LINE;
            self.input.consume(if end { take + 1 } else { take });
            if end {
                return Ok(Some((buf, long)));
            }
        }
    }

    /// The next non-empty line, or `None` at the end of the input.
    pub fn next_line(&mut self) -> std::io::Result<Option<Line>> {
        while let Some((bytes, long)) = self.raw_line()? {
            self.number += 1;
            let number = self.number;
            let shown = |b: &[u8]| {
                let s = String::from_utf8_lossy(&b[..b.len().min(80)]);
                s.trim().to_string()
            };
            if long {
                return Ok(Some(Line::Bad {
                    number,
                    error: format!("line {number} is longer than {MAX_LINE} bytes"),
                    input: shown(&bytes),
                }));
            }
            match String::from_utf8(bytes) {
                Ok(s) => {
                    let text = s.trim();
                    if !text.is_empty() {
                        return Ok(Some(Line::Text {
                            number,
                            text: text.to_string(),
                        }));
                    }
                }
                Err(e) => {
                    return Ok(Some(Line::Bad {
                        number,
                        error: format!(
                            "line {number} is not valid UTF-8 (bad byte at column {})",
                            e.utf8_error().valid_up_to() + 1
                        ),
                        input: shown(e.as_bytes()),
                    }))
                }
            }
        }
        Ok(None)
    }

    /// Up to [`BLOCK`] lines (fewer only at the end).
    pub fn block(&mut self) -> std::io::Result<Vec<Line>> {
        let mut lines = Vec::with_capacity(BLOCK);
        while lines.len() < BLOCK {
            match self.next_line()? {
                Some(l) => lines.push(l),
                None => break,
            }
        }
        Ok(lines)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(input: &[u8]) -> Vec<Line> {
        let mut r = Reader::new(std::io::BufReader::with_capacity(16, input));
        let mut out = Vec::new();
        while let Some(l) = r.next_line().unwrap() {
            out.push(l);
        }
        out
    }

    #[test]
    fn bad_lines_are_numbered_and_reading_goes_on() {
        let mut input = b"a\n\n  b  \r\n\xff\xfe\n".to_vec();
        input.extend(std::iter::repeat_n(b'x', MAX_LINE + 1));
        input.extend(b"\nc");
        let lines = all(&input);
        assert_eq!(lines.len(), 5, "{lines:?}");
        assert_eq!(
            lines[0],
            Line::Text {
                number: 1,
                text: "a".into()
            }
        );
        assert_eq!(
            lines[1],
            Line::Text {
                number: 3,
                text: "b".into()
            }
        );
        assert!(matches!(&lines[2], Line::Bad { number: 4, error, .. } if error.contains("UTF-8")));
        assert!(
            matches!(&lines[3], Line::Bad { number: 5, error, .. } if error.contains("longer than"))
        );
        assert_eq!(
            lines[4],
            Line::Text {
                number: 6,
                text: "c".into()
            }
        );
    }

    #[test]
    fn a_line_of_exactly_the_limit_is_accepted() {
        let input = vec![b'y'; MAX_LINE];
        assert!(matches!(&all(&input)[..], [Line::Text { number: 1, .. }]));
    }
}
