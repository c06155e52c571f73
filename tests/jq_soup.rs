//! Random token soup through `parse_jq`: never a panic, and every span inside the program.
//! (A deterministic complement to the cargo-fuzz target `fuzz/fuzz_targets/jq.rs`.)

use agc::expr::jq::parse_jq;
use agc::source::FileId;
use agc::source::scalar::ScalarMap;

const TOKENS: &[&str] = &[
    ".", "..", ".a", ".b", "[", "]", "(", ")", "{", "}", "|", ",", ":", ";", "?", "//", "=", "|=",
    "+=", "==", "-", "+", "and", "or", "as", "$x", "$y", "if", "then", "elif", "else", "end",
    "try", "catch", "reduce", "foreach", "def", "f", "map", "select", "\"s\"", "\"\\(", "\"", "1",
    "0", "#c\n", " ", "@base64", "label", "break", "empty", "[]", "\\", "ü",
];

#[test]
fn token_soup_never_panics() {
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut parsed = 0;
    for _ in 0..3000 {
        let len = (next() % 24) as usize;
        let src: String = (0..len)
            .map(|_| TOKENS[(next() % TOKENS.len() as u64) as usize])
            .collect();
        let map = ScalarMap::contiguous(FileId(0), 0, src.len());
        let spans: Vec<_> = match parse_jq(&src, &map) {
            Ok(p) => {
                parsed += 1;
                p.paths.iter().map(|(_, s)| *s).collect()
            }
            Err(d) => {
                assert!(!d.is_empty(), "`{src}`: an error without diagnostics");
                d.iter().map(|d| d.span.expect("span")).collect()
            }
        };
        for s in spans {
            assert!(
                s.start <= s.end && s.end as usize <= src.len(),
                "`{src}`: {s:?}"
            );
        }
    }
    assert!(
        parsed > 10,
        "only {parsed} programs parsed; the soup is too thin"
    );
}

/// A small random generator of *valid* programs, to exercise the path locator.
fn program(next: &mut impl FnMut() -> u64, depth: u32) -> String {
    let pick = if depth == 0 { next() % 6 } else { next() % 22 };
    let mut t = || program(next, depth.saturating_sub(1));
    match pick {
        0 => ".a".into(),
        1 => ".[]".into(),
        2 => ".b[0]".into(),
        3 => "\"s\"".into(),
        4 => ".".into(),
        5 => "1".into(),
        6 => format!("{} | {}", t(), t()),
        7 => format!("({})", t()),
        8 => format!("[{}]", t()),
        9 => format!("{{a: ({}), b}}", t()),
        10 => format!("if {} then {} else {} end", t(), t(), t()),
        11 => format!("{} as $x | $x.c, {}", t(), t()),
        12 => format!("select({})", t()),
        13 => format!("map({})", t()),
        14 => format!("try ({}) catch ({})", t(), t()),
        15 => format!("\"s\\({})\"", t()),
        16 => format!("reduce .[] as $x (0; {})", t()),
        17 => format!(".a[{}]", t()),
        18 => format!(". as [$x, {{b: $y}}] | $y.z, {}", t()),
        19 => format!("{} // {}", t(), t()),
        20 => format!(".\"k k\"[]?.d # c\n | {}", t()),
        _ => format!("def g: {}; g, {}", t(), t()),
    }
}

#[test]
fn generated_programs_have_located_paths() {
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for _ in 0..300 {
        let src = program(&mut next, 4);
        let map = ScalarMap::contiguous(FileId(0), 0, src.len());
        let prog = parse_jq(&src, &map).unwrap_or_else(|d| panic!("`{src}`: {d:?}"));
        for (p, s) in &prog.paths {
            let text = &src[s.range()];
            let first = text.chars().next().unwrap_or(' ');
            assert!(
                matches!(first, '.' | '$' | '"') || first.is_ascii_alphabetic(),
                "`{src}`: path {p} at `{text}`"
            );
            assert_eq!(text.trim(), text, "`{src}`: path {p} at `{text}`");
        }
    }
}
