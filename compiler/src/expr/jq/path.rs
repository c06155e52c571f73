//! State paths read by a jq program: `.steps[].kind`, `.items[0]`, `.a[.i]`.

use std::fmt;

/// One step of a [`JqPath`].
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Seg {
    /// `.name`, `."name"`, `.["name"]`
    Field(String),
    /// `.[3]`, `.[-1]` (negative counts from the end)
    Index(i64),
    /// `.[]`: every element (or every value of an object)
    Iterate,
    /// `.[a:b]`: a sub-array or sub-string of the value at the path so far
    Slice,
    /// `.[expr]` where `expr` is not a literal: some field or index, unknown statically
    Dynamic,
}

/// A path from the jq input (the workflow state) to a value, e.g. `.steps[].model`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct JqPath(pub Vec<Seg>);

impl JqPath {
    /// The first field, if the path starts with one: the top-level state key it reads.
    pub fn root_field(&self) -> Option<&str> {
        match self.0.first() {
            Some(Seg::Field(f)) => Some(f),
            _ => None,
        }
    }

    pub(crate) fn with(&self, seg: Seg) -> JqPath {
        let mut p = self.clone();
        p.0.push(seg);
        p
    }
}

fn is_ident(s: &str) -> bool {
    let mut c = s.chars();
    matches!(c.next(), Some(ch) if ch.is_ascii_alphabetic() || ch == '_')
        && c.all(|ch| ch.is_ascii_alphanumeric() || ch == '_')
}

/// jq syntax: `.a.b`, `.["x y"]`, `.[0]`, `.[]`, `.[a:b]` written `[:]`, dynamic as `[?]`.
impl fmt::Display for JqPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str(".");
        }
        for (i, seg) in self.0.iter().enumerate() {
            match seg {
                Seg::Field(name) if is_ident(name) => write!(f, ".{name}")?,
                Seg::Field(name) => {
                    let quoted = serde_json::to_string(name).map_err(|_| fmt::Error)?;
                    if i == 0 {
                        f.write_str(".")?;
                    }
                    write!(f, "[{quoted}]")?
                }
                other => {
                    if i == 0 {
                        f.write_str(".")?;
                    }
                    match other {
                        Seg::Index(n) => write!(f, "[{n}]")?,
                        Seg::Iterate => f.write_str("[]")?,
                        Seg::Slice => f.write_str("[:]")?,
                        _ => f.write_str("[?]")?,
                    }
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn displays_in_jq_syntax() {
        let p = JqPath(vec![
            Seg::Field("steps".into()),
            Seg::Iterate,
            Seg::Field("a b".into()),
            Seg::Index(-1),
            Seg::Slice,
            Seg::Dynamic,
        ]);
        assert_eq!(p.to_string(), r#".steps[]["a b"][-1][:][?]"#);
        assert_eq!(JqPath(vec![Seg::Iterate]).to_string(), ".[]");
        assert_eq!(
            JqPath(vec![Seg::Field("x-y".into())]).to_string(),
            r#".["x-y"]"#
        );
        assert_eq!(JqPath::default().to_string(), ".");
    }
}
