//! The directly drawn box (`render/direct.rs`) against ariadne's, byte for byte, over reports
//! of every shape: the simple ones it draws and the ones it must leave to ariadne.

use super::*;
use crate::diag::render::{direct, human};

/// A small deterministic generator (xorshift), so a failure names a case that can be re-run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// A line of `len` characters: printable ASCII (spaces included, at the ends too), or for one
/// line in four, also tabs, carriage returns, control and multi-byte characters.
fn line(rng: &mut Rng, len: usize) -> String {
    let noisy = rng.below(4) == 0;
    (0..len)
        .map(|_| match rng.below(if noisy { 60 } else { 6_000 }) {
            0 => '\t',
            1 => '\r',
            2 => 'é',
            3 => '日',
            4 => '\u{1b}',
            5..=12 => ' ',
            n if n % 8 == 0 => ' ',
            _ => char::from(b'!' + rng.below(94) as u8),
        })
        .collect()
}

fn trimmed(s: &str) -> String {
    s.lines().map(str::trim_end).collect::<Vec<_>>().join("\n")
}

#[test]
fn the_direct_box_is_ariadnes_box() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    // Files whose lines number from 1 to 6 digits, so every margin width is drawn.
    let mut m = SourceMap::new();
    for (i, lines) in [1usize, 9, 120, 1_500, 12_000, 101_000]
        .into_iter()
        .enumerate()
    {
        let mut text = String::new();
        for _ in 0..lines {
            let len = match rng.below(10) {
                0 => 0,
                1 => 115 + rng.below(10), // around the long-line limit
                _ => rng.below(60),
            };
            text.push_str(&line(&mut rng, len));
            text.push('\n');
        }
        let name = if i == 2 {
            "odd\u{7}name.yaml"
        } else {
            "g.yaml"
        };
        m.add(SourceFile::new(format!("{i}/{name}"), text));
    }
    let labels = [
        "x",
        "output `result` of `n0` is never read",
        "",
        "  ",
        "two\nlines",
        "a\u{1b}b",
        "naïve → ok ",
    ];
    let mut cases = Vec::new();
    for _ in 0..6_000 {
        let id = FileId(rng.below(m.len()) as u32);
        let file = m.get(id);
        // The last file's far lines too, whose numbers have six digits.
        let lines = file.line_col(file.text.len() as u32).line as usize;
        let line_no = if rng.below(3) == 0 {
            lines - rng.below(lines.min(50))
        } else {
            1 + rng.below(lines)
        };
        let range = file.line_range(line_no as u32);
        let start = range.start + rng.below(range.len() + 1);
        let width = match rng.below(8) {
            0 => 0,
            1 => range.len() + 3, // over the line break
            _ => 1 + rng.below(12),
        };
        let span = Span::new(id, start, start + width);
        let mut d = Diagnostic::warning("AG904", "m").at(span);
        if rng.below(4) > 0 {
            d = d.with_label_text(labels[rng.below(labels.len())]);
        }
        if rng.below(10) == 0 {
            d = d.with_label(Span::new(id, range.start, range.start + 1), "second");
        }
        let opts = Options {
            color: rng.below(20) == 0,
        };
        cases.push((d, opts));
    }
    let ariadne = human::ariadne_boxes(&cases, &m);
    let (mut drawn, mut left) = (0, 0);
    for (case, ((d, opts), ariadne)) in cases.iter().zip(ariadne).enumerate() {
        let Some(direct) = direct::simple_box(d, &m, *opts, human::clean) else {
            left += 1;
            continue;
        };
        drawn += 1;
        let span = d.span.expect("a span");
        let file = m.get(span.file);
        assert_eq!(
            Some(trimmed(&direct)),
            ariadne.map(|s| trimmed(&s)),
            "case {case}: {span:?} in {}, line {:?}",
            file.name,
            &file.text[file.line_range(file.line_col(span.start).line)]
        );
    }
    // Both kinds occur often enough for the comparison to mean something.
    assert!(drawn > 1_000 && left > 1_000, "{drawn} drawn, {left} left");
}
