use crate::Version;
use std::str::FromStr;

impl FromStr for Version {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let mut parts = text.split('.');
        let major = parts.next().ok_or("empty")?.parse().map_err(|_| "major")?;
        let minor = parts.next().ok_or("no minor")?.parse().map_err(|_| "minor")?;
        Ok(Version::new(major, minor))
    }
}

pub fn parse_op(text: &str) -> Option<crate::Op> {
    match text {
        "=" => Some(crate::Op::Exact),
        ">" => Some(crate::Op::Greater),
        _ => None,
    }
}
