//! Numbers in the form of ECMAScript's `Number.prototype.toString` (ECMA-262 §6.1.6.1.20),
//! which RFC 8785 §3.2.2.3 requires.
//!
//! The digits come from Rust's shortest round-trip formatting (`{:e}`), which yields the
//! fewest significant digits `k` that read back to the same double and, among those, the
//! closest to it: the `k`, `s` and `n` of the ECMAScript algorithm. One difference remains and
//! is corrected here: when the double lies exactly halfway between two closest candidates,
//! ECMAScript takes the even one, Rust the upper one (RFC 8785's own vector
//! `1424953923781206.2` for `0x43143ff3c1cb0959`, which Rust spells `...206.3`). Such ties need
//! at least 16 digits, so the exact check runs only for 16- and 17-digit results ending in an
//! odd digit whose neighbour also round-trips. The layout (plain, leading `0.`, or exponent
//! with an explicit `+`) is done here too.

use std::fmt::Write as _;

/// Formats a finite double as ECMAScript does: `1`, `0.5`, `1e+21`, `1e-7`, `-5e-324`, and `0`
/// for negative zero. `None` for NaN and the infinities, which have no JSON form.
pub fn format_number(x: f64) -> Option<String> {
    let mut out = String::new();
    write_number(&mut out, x).then_some(out)
}

/// Appends the ECMAScript form of `x` to `out`; `false` (and nothing written) when `x` is not
/// finite.
pub(crate) fn write_number(out: &mut String, x: f64) -> bool {
    if !x.is_finite() {
        return false;
    }
    if x == 0.0 {
        out.push('0');
        return true;
    }
    if x < 0.0 {
        out.push('-');
    }
    // The value is 0.d1d2...dk × 10^n.
    let (digits, n) = shortest(x.abs());
    let k = digits.len() as i32;
    if k <= n && n <= 21 {
        // Integer: the digits followed by n - k zeros.
        out.push_str(&digits);
        out.extend(std::iter::repeat_n('0', (n - k) as usize));
    } else if 0 < n && n <= 21 {
        // Decimal point inside the digits.
        out.push_str(&digits[..n as usize]);
        out.push('.');
        out.push_str(&digits[n as usize..]);
    } else if -6 < n && n <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', (-n) as usize));
        out.push_str(&digits);
    } else {
        out.push_str(&digits[..1]);
        if k > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        out.push('e');
        out.push(if n - 1 < 0 { '-' } else { '+' });
        let _ = write!(out, "{}", (n - 1).unsigned_abs());
    }
    true
}

/// Splits Rust's `{:e}` text (`d[.ddd]e[-]x`) into significant digits and `n`, where the
/// value is `0.digits × 10^n`.
fn split_sci(sci: &str) -> (String, i32) {
    let (mantissa, exp) = sci.split_once('e').unwrap_or((sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    (
        mantissa.chars().filter(char::is_ascii_digit).collect(),
        exp + 1,
    )
}

/// The ECMAScript digits and exponent of a finite `x > 0`.
fn shortest(x: f64) -> (String, i32) {
    let mut sci = String::with_capacity(32);
    let _ = write!(sci, "{x:e}");
    let (digits, n) = split_sci(&sci);
    let odd_last = digits.as_bytes().last().is_some_and(|d| d % 2 == 1);
    if digits.len() >= 16
        && odd_last
        && let Some(even) = even_tie_partner(x, &digits, n)
    {
        return even;
    }
    (digits, n)
}

/// When `x` lies exactly halfway between `digits` (odd last digit) and a neighbour one unit in
/// the last place away that also reads back as `x`, that neighbour (its last digit is even).
fn even_tie_partner(x: f64, digits: &str, n: i32) -> Option<(String, i32)> {
    let k = digits.len();
    let last = digits.as_bytes()[k - 1] - b'0';
    let down = format!("{}{}", &digits[..k - 1], last - 1);
    let up = increment(digits, n);
    let reads_back = |d: &str, n: i32| format!("0.{d}e{n}").parse::<f64>().ok() == Some(x);
    let down_ok = reads_back(&down, n);
    let up_ok = reads_back(&up.0, up.1);
    if !down_ok && !up_ok {
        return None;
    }
    // The exact decimal expansion of a double has at most 767 significant digits.
    let mut exact = String::with_capacity(820);
    let _ = write!(exact, "{x:.800e}");
    let (mut exact_digits, exact_n) = split_sci(&exact);
    while exact_digits.ends_with('0') {
        exact_digits.pop();
    }
    if exact_n != n || exact_digits.len() != k + 1 || !exact_digits.ends_with('5') {
        return None;
    }
    let below = &exact_digits[..k];
    if up_ok && below == digits {
        Some(trim_zeros(up))
    } else if down_ok && below == down {
        Some(trim_zeros((down, n)))
    } else {
        None
    }
}

/// `0.digits × 10^n` plus one unit in the last place, with carry (`0.99e2` becomes `0.100e3`).
fn increment(digits: &str, n: i32) -> (String, i32) {
    let mut bytes = digits.as_bytes().to_vec();
    for b in bytes.iter_mut().rev() {
        if *b == b'9' {
            *b = b'0';
        } else {
            *b += 1;
            return (String::from_utf8(bytes).unwrap_or_default(), n);
        }
    }
    let mut s = String::from("1");
    s.push_str(&String::from_utf8(bytes).unwrap_or_default());
    (s, n + 1)
}

fn trim_zeros((mut d, n): (String, i32)) -> (String, i32) {
    while d.len() > 1 && d.ends_with('0') {
        d.pop();
    }
    (d, n)
}

// The test literals spell exact values on purpose (RFC inputs, halfway cases).
#[allow(clippy::excessive_precision)]
#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write as _;
    use std::process::{Command, Stdio};

    fn f(x: f64) -> String {
        format_number(x).expect("finite")
    }

    #[test]
    fn layout_table() {
        let cases: &[(f64, &str)] = &[
            (0.0, "0"),
            (-0.0, "0"),
            (1.0, "1"),
            (-1.0, "-1"),
            (1.5, "1.5"),
            (-1.5, "-1.5"),
            (0.1, "0.1"),
            (100.0, "100"),
            (123456789.0, "123456789"),
            (1e20, "100000000000000000000"),
            (1e21, "1e+21"),
            (1.5e21, "1.5e+21"),
            (1e22, "1e+22"),
            (1e-6, "0.000001"),
            (1.5e-6, "0.0000015"),
            (1e-7, "1e-7"),
            (1.25e-7, "1.25e-7"),
            (0.001, "0.001"),
            (4.5, "4.5"),
            (2e-3, "0.002"),
            (1e30, "1e+30"),
            (1e-27, "1e-27"),
            (333333333.33333329, "333333333.3333333"),
            (9007199254740992.0, "9007199254740992"),
            (9007199254740993.0, "9007199254740992"),
            (-9007199254740992.0, "-9007199254740992"),
            (18446744073709551615.0, "18446744073709552000"),
            (f64::MAX, "1.7976931348623157e+308"),
            (f64::MIN_POSITIVE, "2.2250738585072014e-308"),
            (f64::EPSILON, "2.220446049250313e-16"),
            (0.30000000000000004, "0.30000000000000004"),
            (123.456, "123.456"),
            (1234567890123456789.0, "1234567890123456800"),
        ];
        for &(x, want) in cases {
            assert_eq!(f(x), want, "formatting {x:?}");
        }
    }

    /// RFC 8785 Appendix B: IEEE 754 bit patterns and their required spelling.
    #[test]
    fn rfc8785_appendix_b() {
        let cases: &[(u64, &str)] = &[
            (0x0000000000000000, "0"),
            (0x8000000000000000, "0"),
            (0x0000000000000001, "5e-324"),
            (0x8000000000000001, "-5e-324"),
            (0x7fefffffffffffff, "1.7976931348623157e+308"),
            (0xffefffffffffffff, "-1.7976931348623157e+308"),
            (0x4340000000000000, "9007199254740992"),
            (0xc340000000000000, "-9007199254740992"),
            (0x4430000000000000, "295147905179352830000"),
            (0x44b52d02c7e14af5, "9.999999999999997e+22"),
            (0x44b52d02c7e14af6, "1e+23"),
            (0x44b52d02c7e14af7, "1.0000000000000001e+23"),
            (0x444b1ae4d6e2ef4e, "999999999999999700000"),
            (0x444b1ae4d6e2ef4f, "999999999999999900000"),
            (0x444b1ae4d6e2ef50, "1e+21"),
            (0x3eb0c6f7a0b5ed8c, "9.999999999999997e-7"),
            (0x3eb0c6f7a0b5ed8d, "0.000001"),
            (0x41b3de4355555553, "333333333.3333332"),
            (0x41b3de4355555554, "333333333.33333325"),
            (0x41b3de4355555555, "333333333.3333333"),
            (0x41b3de4355555556, "333333333.3333334"),
            (0x41b3de4355555557, "333333333.33333343"),
            (0xbecbf647612f3696, "-0.0000033333333333333333"),
            (0x43143ff3c1cb0959, "1424953923781206.2"),
        ];
        for &(bits, want) in cases {
            assert_eq!(f(f64::from_bits(bits)), want, "bits {bits:016x}");
        }
    }

    #[test]
    fn halfway_ties_take_the_even_digit() {
        // 1424953923781206.25 and .75 are exact doubles (ulp 0.25), halfway between two
        // 17-digit candidates.
        assert_eq!(f(1424953923781206.25), "1424953923781206.2");
        assert_eq!(f(1424953923781206.75), "1424953923781206.8");
        assert_eq!(f(-1424953923781206.25), "-1424953923781206.2");
        assert_eq!(increment("1299", 4), ("1300".to_string(), 4));
        assert_eq!(increment("999", 4), ("1000".to_string(), 5));
    }

    #[test]
    fn non_finite_has_no_form() {
        for x in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            assert_eq!(format_number(x), None);
        }
        assert_eq!(format_number(f64::from_bits(0x7fffffffffffffff)), None);
        assert_eq!(format_number(f64::from_bits(0x7ff0000000000000)), None);
    }

    /// Differential check against a real ECMAScript engine (`node`), over bit patterns from a
    /// fixed xorshift sequence plus integers and short decimals. Skips when node is absent.
    #[test]
    fn agrees_with_node() {
        let mut xs: Vec<f64> = Vec::new();
        let mut s: u64 = 0x9e3779b97f4a7c15;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        while xs.len() < 4000 {
            let x = f64::from_bits(next());
            if x.is_finite() {
                xs.push(x);
            }
        }
        for i in 0..1000u64 {
            let r = next();
            xs.push((r % 100_000) as f64 / 10f64.powi((r >> 40) as i32 % 12));
            xs.push((r >> 11) as f64 * if i % 2 == 0 { 1.0 } else { -1.0 });
            xs.push(10f64.powi((i % 60) as i32 - 30));
            // Exact halfway cases between two 17-digit candidates (ulp 0.25 and 16).
            xs.push(2f64.powi(50) + (r >> 20) as f64 * 0.25);
            xs.push(2f64.powi(56) + (r >> 12) as f64 * 16.0);
        }
        let child = Command::new("node")
            .args([
                "-e",
                "const l=require('fs').readFileSync(0,'utf8').trim().split('\\n');\
                 const b=Buffer.alloc(8);\
                 process.stdout.write(l.map(h=>{b.writeBigUInt64BE(BigInt('0x'+h));\
                 return String(b.readDoubleBE(0));}).join('\\n'));",
            ])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn();
        let Ok(mut child) = child else {
            eprintln!("note: `node` not found; skipping the ECMAScript differential test");
            return;
        };
        let input: String = xs
            .iter()
            .map(|x| format!("{:016x}\n", x.to_bits()))
            .collect();
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(input.as_bytes())
            .expect("write to node");
        let out = child.wait_with_output().expect("node output");
        assert!(out.status.success(), "node failed");
        let text = String::from_utf8(out.stdout).expect("utf-8");
        let theirs: Vec<&str> = text.split('\n').collect();
        assert_eq!(theirs.len(), xs.len());
        for (x, want) in xs.iter().zip(theirs) {
            assert_eq!(f(*x), want, "bits {:016x}", x.to_bits());
        }
    }
}
