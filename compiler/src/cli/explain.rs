//! `agc explain CODE`: the registry's explanation of a code.

use crate::diag::codes;

pub fn run(code: Option<&str>, list: bool) -> i32 {
    if list || code.is_none() {
        for c in codes::all() {
            super::out(&format!(
                "{:<8} {:<8} {:<8} {}\n",
                c.code,
                c.origin,
                c.severity.as_str(),
                c.summary
            ));
        }
        return 0;
    }
    let code = code.unwrap_or_default();
    match codes::lookup(code) {
        Some(c) => {
            super::out(&format!(
                "{} ({}, {}): {}\n\n{}\n",
                c.code,
                c.origin,
                c.severity.as_str(),
                c.summary,
                c.explanation
            ));
            0
        }
        None => {
            eprintln!("error: unknown code `{code}`; `agc explain --list` lists every code");
            2
        }
    }
}
