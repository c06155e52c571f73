//! Any text: `parse_cel` returns (never panics, never overflows), every span lies inside the
//! text, and whatever parses prints to text that parses back to the same tree.
#![no_main]

use agc::expr::{parse_cel, print_cel};
use agc::source::FileId;
use agc::source::scalar::ScalarMap;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(src) = std::str::from_utf8(data) else {
        return;
    };
    let map = ScalarMap::contiguous(FileId(0), 0, src.len());
    match parse_cel(src, &map) {
        Ok((expr, spans)) => {
            assert!(spans.iter().all(|s| s.start <= s.end && s.end as usize <= src.len()));
            let printed = print_cel(&expr);
            let map2 = ScalarMap::contiguous(FileId(0), 0, printed.len());
            let (again, _) = parse_cel(&printed, &map2)
                .unwrap_or_else(|d| panic!("{printed:?} (printed from {src:?}) fails: {d:?}"));
            assert_eq!(again, expr, "round trip of {src:?} via {printed:?}");
        }
        Err(diags) => {
            assert!(!diags.is_empty());
            for d in diags {
                let s = d.span.expect("every CEL diagnostic has a span");
                assert!(s.start <= s.end && s.end as usize <= src.len(), "{d:?}");
            }
        }
    }
});
