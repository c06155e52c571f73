//! Fuzzes the AGX parser, the template parser and the printer round trip.
//!
//! Run: `cargo +nightly fuzz run agx` from the repository root. Every input must give a result
//! or diagnostics with spans inside the input; never a panic, a hang or a stack overflow. A
//! successfully parsed expression must print to text that parses to the same tree.

#![no_main]

use agc::expr::{parse_agx, parse_template, print};
use agc::source::FileId;
use agc::source::scalar::ScalarMap;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(src) = std::str::from_utf8(data) else {
        return;
    };
    let map = ScalarMap::contiguous(FileId(0), 0, src.len());
    match parse_agx(src, &map) {
        Ok((expr, spans)) => {
            assert!(spans.iter().all(|s| s.end as usize <= src.len()));
            let printed = print(&expr);
            let map2 = ScalarMap::contiguous(FileId(0), 0, printed.len());
            let (again, _) = parse_agx(&printed, &map2).expect("printed expression parses");
            assert_eq!(print(&again), printed);
        }
        Err(diags) => {
            assert!(!diags.is_empty());
            for d in diags {
                let s = d.span.expect("expression diagnostics have spans");
                assert!(s.start <= s.end && s.end as usize <= src.len());
            }
        }
    }
    if let Err(diags) = parse_template(src, &map) {
        assert!(!diags.is_empty());
    }
});
