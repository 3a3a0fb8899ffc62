//! A version type with its trait impls in other files (issue 23's Rust shape).
mod display;
mod parse;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Version {
    pub major: u64,
    pub minor: u64,
}

pub enum Op {
    Exact,
    Greater,
}

impl Version {
    pub const fn new(major: u64, minor: u64) -> Self {
        Version { major, minor }
    }

    pub fn parse(text: &str) -> Result<Version, String> {
        text.parse()
    }
}
