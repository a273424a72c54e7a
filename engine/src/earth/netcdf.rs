//! A small reader for netCDF-3 "classic" files (CDF-1 and CDF-2 64-bit offsets): header,
//! attributes and fixed-size variables, big-endian. Record (unlimited) variables are refused.
//! Written here because the format is ~a page of spec (Unidata "NetCDF Classic Format
//! Specification") and the crates that read it wrap the C library.

use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum NcError {
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: not a netCDF-3 classic file ({what})")]
    Format { path: PathBuf, what: String },
    #[error("{path}: no variable named {name}")]
    NoVariable { path: PathBuf, name: String },
}

/// netCDF external types (nc_type codes 1..6).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NcType {
    Byte,
    Char,
    Short,
    Int,
    Float,
    Double,
}

impl NcType {
    fn from_code(c: u32) -> Option<NcType> {
        Some(match c {
            1 => NcType::Byte,
            2 => NcType::Char,
            3 => NcType::Short,
            4 => NcType::Int,
            5 => NcType::Float,
            6 => NcType::Double,
            _ => return None,
        })
    }
    pub fn size(self) -> usize {
        match self {
            NcType::Byte | NcType::Char => 1,
            NcType::Short => 2,
            NcType::Int | NcType::Float => 4,
            NcType::Double => 8,
        }
    }
}

#[derive(Clone, Debug)]
pub struct NcDim {
    pub name: String,
    pub len: usize,
}

#[derive(Clone, Debug)]
pub struct NcAttr {
    pub name: String,
    pub ty: NcType,
    /// Numeric values as f64 (empty for text).
    pub values: Vec<f64>,
    pub text: String,
}

#[derive(Clone, Debug)]
pub struct NcVar {
    pub name: String,
    pub dims: Vec<usize>,
    pub attrs: Vec<NcAttr>,
    pub ty: NcType,
    /// Byte offset of the data in the file.
    pub begin: u64,
}

impl NcVar {
    pub fn attr(&self, name: &str) -> Option<&NcAttr> {
        self.attrs.iter().find(|a| a.name == name)
    }
}

pub struct NcFile {
    pub path: PathBuf,
    pub dims: Vec<NcDim>,
    pub attrs: Vec<NcAttr>,
    pub vars: Vec<NcVar>,
    bytes: Vec<u8>,
}

struct Cursor<'a> {
    b: &'a [u8],
    at: usize,
    path: &'a Path,
}

impl Cursor<'_> {
    fn err(&self, what: impl Into<String>) -> NcError {
        NcError::Format {
            path: self.path.to_path_buf(),
            what: format!("{} at byte {}", what.into(), self.at),
        }
    }
    fn take(&mut self, n: usize) -> Result<&[u8], NcError> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.b.len());
        let end = end.ok_or_else(|| self.err("truncated header"))?;
        let s = &self.b[self.at..end];
        self.at = end;
        Ok(s)
    }
    fn u32(&mut self) -> Result<u32, NcError> {
        let s = self.take(4)?;
        Ok(u32::from_be_bytes([s[0], s[1], s[2], s[3]]))
    }
    fn u64(&mut self) -> Result<u64, NcError> {
        let s = self.take(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(s);
        Ok(u64::from_be_bytes(a))
    }
    fn name(&mut self) -> Result<String, NcError> {
        let n = self.u32()? as usize;
        let s = self.take(n)?.to_vec();
        self.take((4 - n % 4) % 4)?;
        String::from_utf8(s).map_err(|_| self.err("name is not UTF-8"))
    }
    /// A list header: (tag, count); ABSENT (0, 0) gives count 0. Each entry takes at least
    /// `min_entry` bytes, so a count the rest of the file cannot hold is refused here, before
    /// anything is allocated for it.
    fn list(&mut self, tag: u32, min_entry: usize) -> Result<usize, NcError> {
        let (t, n) = (self.u32()?, self.u32()? as usize);
        if t == 0 && n == 0 {
            return Ok(0);
        }
        if t != tag {
            return Err(self.err(format!("expected list tag {tag:#x}, found {t:#x}")));
        }
        let left = self.b.len() - self.at;
        if n > left / min_entry {
            return Err(self.err(format!(
                "list claims {n} entries but only {left} bytes remain"
            )));
        }
        Ok(n)
    }
    fn attrs(&mut self) -> Result<Vec<NcAttr>, NcError> {
        // name length, type, count.
        let n = self.list(0x0C, 12)?;
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            let name = self.name()?;
            let code = self.u32()?;
            let ty = NcType::from_code(code).ok_or_else(|| self.err("bad attribute type"))?;
            let count = self.u32()? as usize;
            let len = count
                .checked_mul(ty.size())
                .ok_or_else(|| self.err("attribute too long"))?;
            let raw = self.take(len)?.to_vec();
            self.take((4 - len % 4) % 4)?;
            let (values, text) = if ty == NcType::Char {
                (Vec::new(), String::from_utf8_lossy(&raw).into_owned())
            } else {
                (decode(&raw, ty), String::new())
            };
            out.push(NcAttr {
                name,
                ty,
                values,
                text,
            });
        }
        Ok(out)
    }
}

/// Big-endian values of type `ty` → f64.
fn decode(raw: &[u8], ty: NcType) -> Vec<f64> {
    let c = raw.chunks_exact(ty.size());
    match ty {
        NcType::Byte => raw.iter().map(|&b| b as i8 as f64).collect(),
        NcType::Char => raw.iter().map(|&b| b as f64).collect(),
        NcType::Short => c.map(|s| i16::from_be_bytes([s[0], s[1]]) as f64).collect(),
        NcType::Int => c
            .map(|s| i32::from_be_bytes([s[0], s[1], s[2], s[3]]) as f64)
            .collect(),
        NcType::Float => c
            .map(|s| f32::from_be_bytes([s[0], s[1], s[2], s[3]]) as f64)
            .collect(),
        NcType::Double => c
            .map(|s| f64::from_be_bytes([s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]]))
            .collect(),
    }
}

impl NcFile {
    pub fn open(path: &Path) -> Result<NcFile, NcError> {
        let bytes = std::fs::read(path).map_err(|source| NcError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        NcFile::from_bytes(path, bytes)
    }

    /// Parses a file's contents; `path` is for error messages.
    pub fn from_bytes(path: &Path, bytes: Vec<u8>) -> Result<NcFile, NcError> {
        let mut c = Cursor {
            b: &bytes,
            at: 0,
            path,
        };
        let magic = c.take(4)?;
        let offset64 = match magic {
            b"CDF\x01" => false,
            b"CDF\x02" => true,
            _ => return Err(c.err("bad magic")),
        };
        let _numrecs = c.u32()?;
        // name length, dimension length.
        let ndims = c.list(0x0A, 8)?;
        let mut dims = Vec::with_capacity(ndims);
        for _ in 0..ndims {
            let name = c.name()?;
            let len = c.u32()? as usize;
            dims.push(NcDim { name, len });
        }
        let attrs = c.attrs()?;
        // name length, rank, attribute list, type, size, begin.
        let nvars = c.list(0x0B, 28)?;
        let mut vars = Vec::with_capacity(nvars);
        for _ in 0..nvars {
            let name = c.name()?;
            let nd = c.u32()? as usize;
            let mut vd = Vec::with_capacity(nd.min(16));
            for _ in 0..nd {
                let id = c.u32()? as usize;
                match dims.get(id) {
                    Some(d) if d.len == 0 => return Err(c.err("record variables unsupported")),
                    Some(_) => vd.push(id),
                    None => return Err(c.err("bad dimension id")),
                }
            }
            let vattrs = c.attrs()?;
            let ty = NcType::from_code(c.u32()?).ok_or_else(|| c.err("bad variable type"))?;
            let _vsize = c.u32()?;
            let begin = if offset64 { c.u64()? } else { c.u32()? as u64 };
            vars.push(NcVar {
                name,
                dims: vd,
                attrs: vattrs,
                ty,
                begin,
            });
        }
        let header_end = c.at as u64;
        // Checked: corrupt dimension lengths or offsets must not wrap around to a range that
        // fits, or `raw` would slice out of bounds.
        for v in &vars {
            let bad = |what: &str| NcError::Format {
                path: path.to_path_buf(),
                what: format!("variable {} {what}", v.name),
            };
            let len = v.dims.iter().try_fold(v.ty.size() as u64, |n, &d| {
                n.checked_mul(dims[d].len as u64)
            });
            let end = len.and_then(|n| n.checked_add(v.begin));
            match end {
                _ if v.begin < header_end => return Err(bad("starts inside the header")),
                Some(end) if end <= bytes.len() as u64 => {}
                _ => return Err(bad("runs past the end of the file")),
            }
        }
        Ok(NcFile {
            path: path.to_path_buf(),
            dims,
            attrs,
            vars,
            bytes,
        })
    }

    pub fn var(&self, name: &str) -> Result<&NcVar, NcError> {
        self.vars
            .iter()
            .find(|v| v.name == name)
            .ok_or_else(|| NcError::NoVariable {
                path: self.path.clone(),
                name: name.to_string(),
            })
    }

    /// Number of values of a variable (product of its dimension lengths).
    pub fn len_of(&self, v: &NcVar) -> usize {
        v.dims.iter().map(|&d| self.dims[d].len).product()
    }

    /// Shape of a variable, slowest-varying dimension first.
    pub fn shape(&self, v: &NcVar) -> Vec<usize> {
        v.dims.iter().map(|&d| self.dims[d].len).collect()
    }

    /// The raw big-endian bytes of a variable's data.
    pub fn raw(&self, v: &NcVar) -> &[u8] {
        let start = v.begin as usize;
        &self.bytes[start..start + self.len_of(v) * v.ty.size()]
    }

    /// All values of a variable as f64.
    pub fn read_f64(&self, v: &NcVar) -> Vec<f64> {
        decode(self.raw(v), v.ty)
    }

    /// All values of a variable as f32 (exact for byte, short and float variables).
    pub fn read_f32(&self, v: &NcVar) -> Vec<f32> {
        if v.ty == NcType::Float {
            self.raw(v)
                .chunks_exact(4)
                .map(|s| f32::from_be_bytes([s[0], s[1], s[2], s[3]]))
                .collect()
        } else {
            self.read_f64(v).into_iter().map(|x| x as f32).collect()
        }
    }
}
