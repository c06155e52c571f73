//! Fuzzes the jq parse wrapper: any text gives a program or diagnostics, never a panic, a
//! hang or a stack overflow, and every span stays inside the program.
#![no_main]

use agc::expr::jq::parse_jq;
use agc::source::FileId;
use agc::source::scalar::ScalarMap;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(src) = std::str::from_utf8(data) else { return };
    let map = ScalarMap::contiguous(FileId(0), 0, src.len());
    let spans: Vec<_> = match parse_jq(src, &map) {
        Ok(p) => p.paths.iter().map(|(_, s)| *s).chain(p.warnings.iter().filter_map(|d| d.span)).collect(),
        Err(d) => {
            assert!(!d.is_empty());
            d.iter().map(|d| d.span.expect("jq diagnostics have spans")).collect()
        }
    };
    for s in spans {
        assert!(s.start <= s.end && s.end as usize <= src.len(), "span {s:?} outside {}", src.len());
    }
});
