//! The header: encoding and decoding, with bounds checked on every read.

use byteorder::{ByteOrder, LittleEndian as LE, ReadBytesExt, WriteBytesExt};
use std::io::{Cursor, Read};
use std::path::Path;

#[cfg(test)]
use super::VALUE_CODES;
use super::{checksum, TableError, ALIGN, MAGIC, VERSION};

/// What a table file says about itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// Game id: `kbnk`, `mnk`.
    pub game: String,
    /// Table name (also the file stem): `kbnk`, `mnk-4x3-3`.
    pub name: String,
    /// Game parameters: `width = 4`, …
    pub params: Vec<(String, i64)>,
    /// The record arrays, in index order.
    pub sections: Vec<SectionInfo>,
}

/// One record array.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SectionInfo {
    pub name: String,
    /// Number of 2-byte records.
    pub records: u64,
    /// Byte offset of the first record (a multiple of [`ALIGN`]).
    pub offset: u64,
    /// xxh3-64 of the section's `2 * records` payload bytes.
    pub checksum: u64,
    /// How many records hold each value byte (see [`crate::game::Value::to_byte`]).
    pub histogram: Vec<u64>,
}

impl SectionInfo {
    /// Payload size in bytes (saturating: a crafted header must not overflow a reader).
    pub fn byte_len(&self) -> u64 {
        self.records.saturating_mul(2)
    }
}

/// Round `x` up to the payload alignment.
pub fn align_up(x: u64) -> u64 {
    x.div_ceil(ALIGN) * ALIGN
}

/// The header `h` (ending with its checksum) must hash to that checksum.
pub(super) fn check_header_sum(path: &Path, h: &[u8]) -> Result<(), TableError> {
    let n = h.len();
    let stored = LE::read_u64(&h[n - 8..]);
    let computed = checksum(&h[..n - 8]);
    if stored != computed {
        return Err(TableError::Checksum {
            path: path.to_path_buf(),
            part: "header".into(),
            stored,
            computed,
        });
    }
    Ok(())
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    out.write_u16::<LE>(s.len() as u16).expect("vec write");
    out.extend_from_slice(s.as_bytes());
}

fn get_str(c: &mut Cursor<&[u8]>) -> Result<String, String> {
    let n = c.read_u16::<LE>().map_err(|_| "string length cut off")? as usize;
    let mut buf = vec![0; n];
    c.read_exact(&mut buf).map_err(|_| "string cut off")?;
    String::from_utf8(buf).map_err(|_| "string is not UTF-8".to_string())
}

impl Header {
    /// The header bytes, with section offsets assigned (the `offset` fields are ignored and
    /// recomputed) and the checksum appended.
    pub fn encode(&mut self) -> Vec<u8> {
        // Offsets depend on the header length, which does not depend on the offsets.
        let body_len = self.encode_with_len(0).len() as u64;
        let mut at = align_up(body_len);
        for s in &mut self.sections {
            s.offset = at;
            at = align_up(at + s.byte_len());
        }
        self.encode_with_len(body_len as u32)
    }

    fn encode_with_len(&self, len: u32) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(&MAGIC);
        out.write_u32::<LE>(VERSION).expect("vec write");
        out.write_u32::<LE>(len).expect("vec write");
        put_str(&mut out, &self.game);
        put_str(&mut out, &self.name);
        out.write_u16::<LE>(self.params.len() as u16)
            .expect("vec write");
        for (k, v) in &self.params {
            put_str(&mut out, k);
            out.write_i64::<LE>(*v).expect("vec write");
        }
        out.write_u16::<LE>(self.sections.len() as u16)
            .expect("vec write");
        for s in &self.sections {
            put_str(&mut out, &s.name);
            out.write_u64::<LE>(s.records).expect("vec write");
            out.write_u64::<LE>(s.offset).expect("vec write");
            out.write_u64::<LE>(s.checksum).expect("vec write");
            let used: Vec<(usize, u64)> = s
                .histogram
                .iter()
                .copied()
                .enumerate()
                .filter(|&(_, n)| n > 0)
                .collect();
            out.write_u16::<LE>(used.len() as u16).expect("vec write");
            for (code, n) in used {
                out.write_u16::<LE>(code as u16).expect("vec write");
                out.write_u64::<LE>(n).expect("vec write");
            }
        }
        let sum = checksum(&out);
        out.write_u64::<LE>(sum).expect("vec write");
        out
    }

    /// Parse the header after magic, version and length were checked; `bytes` is exactly
    /// the header including its checksum. Errors are plain descriptions.
    pub fn decode(bytes: &[u8]) -> Result<Header, String> {
        let mut c = Cursor::new(bytes);
        c.set_position(16);
        let game = get_str(&mut c)?;
        let name = get_str(&mut c)?;
        let n = c.read_u16::<LE>().map_err(|_| "parameter count cut off")?;
        let mut params = Vec::new();
        for _ in 0..n {
            let k = get_str(&mut c)?;
            let v = c.read_i64::<LE>().map_err(|_| "parameter cut off")?;
            params.push((k, v));
        }
        // The metric fixes what the records and the histogram codes mean.
        let bins = super::Metric::of_params(&params)?.codes();
        let n = c.read_u16::<LE>().map_err(|_| "section count cut off")?;
        let mut sections = Vec::new();
        for _ in 0..n {
            let name = get_str(&mut c)?;
            let mut f = || c.read_u64::<LE>().map_err(|_| "section entry cut off");
            let (records, offset, checksum) = (f()?, f()?, f()?);
            let used = c.read_u16::<LE>().map_err(|_| "histogram cut off")?;
            let mut histogram = vec![0u64; bins];
            for _ in 0..used {
                let code = c.read_u16::<LE>().map_err(|_| "histogram cut off")? as usize;
                let slot = histogram
                    .get_mut(code)
                    .ok_or_else(|| format!("histogram value code {code} out of range"))?;
                *slot = c.read_u64::<LE>().map_err(|_| "histogram cut off")?;
            }
            sections.push(SectionInfo {
                name,
                records,
                offset,
                checksum,
                histogram,
            });
        }
        if c.position() as usize + 8 != bytes.len() {
            return Err("header length does not match its contents".into());
        }
        Ok(Header {
            game,
            name,
            params,
            sections,
        })
    }

    /// A parameter's value.
    pub fn param(&self, key: &str) -> Option<i64> {
        self.params.iter().find(|(k, _)| k == key).map(|&(_, v)| v)
    }

    /// Total records over all sections.
    pub fn records(&self) -> u64 {
        self.sections.iter().map(|s| s.records).sum()
    }

    /// The file size this header implies.
    pub fn file_len(&self) -> u64 {
        self.sections
            .last()
            .map(|s| s.offset + s.byte_len())
            .unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header() -> Header {
        Header {
            game: "g".into(),
            name: "n".into(),
            params: vec![("k".into(), 3)],
            sections: vec![SectionInfo {
                name: "all".into(),
                records: 10,
                offset: 0,
                checksum: 7,
                histogram: {
                    let mut h = vec![0; VALUE_CODES];
                    h[1] = 7;
                    // The last code: a loss in 127 moves.
                    h[256] = 3;
                    h
                },
            }],
        }
    }

    #[test]
    fn round_trip_and_aligned_offsets() {
        let mut h = header();
        let bytes = h.encode();
        assert_eq!(h.sections[0].offset % ALIGN, 0);
        assert_eq!(Header::decode(&bytes).unwrap(), h);
        assert_eq!(h.file_len(), h.sections[0].offset + 20);
    }

    #[test]
    fn every_truncation_is_an_error_not_a_panic() {
        let bytes = header().encode();
        for cut in 16..bytes.len() - 8 {
            let mut b = bytes[..cut].to_vec();
            b.extend_from_slice(&[0; 8]); // a checksum slot, so decode reads the body only
            assert!(Header::decode(&b).is_err(), "cut at {cut}");
        }
    }

    #[test]
    fn a_histogram_code_beyond_the_last_is_an_error() {
        let mut bytes = header().encode();
        // The last histogram entry (code 256, count 3) sits just before the checksum.
        let at = bytes.len() - 8 - 8 - 2;
        assert_eq!(&bytes[at..at + 2], &256u16.to_le_bytes());
        bytes[at..at + 2].copy_from_slice(&257u16.to_le_bytes());
        let e = Header::decode(&bytes).unwrap_err();
        assert!(e.contains("histogram value code 257 out of range"), "{e}");
    }
}
