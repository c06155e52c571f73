//! Any text: `parse_gotmpl` returns (never panics, never overflows), spans lie inside it.
#![no_main]

use agc::expr::parse_gotmpl;
use agc::source::FileId;
use agc::source::scalar::ScalarMap;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(src) = std::str::from_utf8(data) else {
        return;
    };
    let map = ScalarMap::contiguous(FileId(0), 0, src.len());
    match parse_gotmpl(src, &map) {
        Ok((_, spans)) => {
            assert!(spans.iter().all(|s| s.start <= s.end && s.end as usize <= src.len()));
        }
        Err(diags) => {
            for d in diags {
                let s = d.span.expect("every template diagnostic has a span");
                assert!(s.start <= s.end && s.end as usize <= src.len(), "{d:?}");
            }
        }
    }
});
