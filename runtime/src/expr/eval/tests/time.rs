//! CEL timestamps and durations.

use super::*;
use crate::expr::BinaryOp as B;

const L: Lang = Lang::Cel;

fn ts(t: &str) -> Expr {
    call("timestamp", vec![s(t)])
}
fn dur(d: &str) -> Expr {
    call("duration", vec![s(d)])
}
fn text_of(x: Expr) -> Value {
    ok(L, &call("string", vec![x]))
}

#[test]
fn parse_and_print() {
    same(
        text_of(ts("2024-05-01T10:00:00Z")),
        Value::str("2024-05-01T10:00:00Z"),
    );
    same(
        text_of(ts("2024-05-01T12:00:00.5+02:00")),
        Value::str("2024-05-01T10:00:00.5Z"),
    );
    same(text_of(dur("1h30m")), Value::str("5400s"));
    same(text_of(dur("1.5s")), Value::str("1.5s"));
    same(text_of(dur("-250ms")), Value::str("-0.25s"));
    same(text_of(dur("0")), Value::str("0s"));
    same(text_of(dur("1us")), Value::str("0.000001s"));
    same(
        text_of(call("timestamp", vec![int(0)])),
        Value::str("1970-01-01T00:00:00Z"),
    );
    assert!(fails(L, &ts("2024-05-01")).contains("invalid timestamp"));
    assert!(fails(L, &ts("10000-01-01T00:00:00Z")).contains("timestamp"));
    for bad in ["", "1", "h", "1x", "--1s", "1h 2m"] {
        assert!(fails(L, &dur(bad)).contains("invalid duration"), "{bad}");
    }
    assert!(fails(L, &dur("99999999999999h")).contains("out of range"));
}

#[test]
fn arithmetic() {
    let t = ts("2024-01-31T23:00:00Z");
    same(
        text_of(bin(B::Add, t.clone(), dur("2h"))),
        Value::str("2024-02-01T01:00:00Z"),
    );
    same(
        text_of(bin(B::Add, dur("2h"), t.clone())),
        Value::str("2024-02-01T01:00:00Z"),
    );
    same(
        text_of(bin(B::Sub, t.clone(), dur("23h"))),
        Value::str("2024-01-31T00:00:00Z"),
    );
    let diff = bin(
        B::Sub,
        ts("2024-01-02T00:00:00Z"),
        ts("2024-01-01T00:00:00Z"),
    );
    same(text_of(diff), Value::str("86400s"));
    same(
        text_of(bin(B::Add, dur("1m"), dur("30s"))),
        Value::str("90s"),
    );
    same(
        text_of(bin(B::Sub, dur("1m"), dur("90s"))),
        Value::str("-30s"),
    );
    same(text_of(neg(dur("5s"))), Value::str("-5s"));
    assert!(fails(L, &bin(B::Add, t.clone(), t)).contains("no such overload"));
    let far = bin(B::Add, ts("9999-12-30T00:00:00Z"), dur("48h"));
    assert_eq!(fails(L, &far), "timestamp out of range");
}

#[test]
fn comparison_and_equality() {
    let a = ts("2024-01-01T00:00:00Z");
    let b = ts("2024-01-01T00:00:01Z");
    same(ok(L, &bin(B::Lt, a.clone(), b.clone())), Value::Bool(true));
    same(
        ok(L, &bin(B::Eq, a.clone(), ts("2024-01-01T01:00:00+01:00"))),
        Value::Bool(true),
    );
    same(ok(L, &bin(B::Gt, dur("1h"), dur("59m"))), Value::Bool(true));
    same(ok(L, &bin(B::Eq, dur("60m"), dur("1h"))), Value::Bool(true));
    assert!(fails(L, &bin(B::Lt, a, dur("1s"))).contains("no such overload"));
    same(ok(L, &bin(B::Eq, b, dur("1s"))), Value::Bool(false));
}

#[test]
fn accessors() {
    // 2024-03-05 is a Tuesday; day 64 of a leap year (0-based).
    let t = || ts("2024-03-05T23:30:15.250Z");
    let get = |name: &str, args: Vec<Expr>| ok(L, &method(t(), name, args));
    same(get("getFullYear", vec![]), Value::Int(2024));
    same(get("getMonth", vec![]), Value::Int(2));
    same(get("getDate", vec![]), Value::Int(5));
    same(get("getDayOfMonth", vec![]), Value::Int(4));
    same(get("getDayOfYear", vec![]), Value::Int(64));
    same(get("getDayOfWeek", vec![]), Value::Int(2));
    same(get("getHours", vec![]), Value::Int(23));
    same(get("getMinutes", vec![]), Value::Int(30));
    same(get("getSeconds", vec![]), Value::Int(15));
    same(get("getMilliseconds", vec![]), Value::Int(250));
    same(get("getHours", vec![s("+02:00")]), Value::Int(1));
    same(get("getDate", vec![s("Asia/Tokyo")]), Value::Int(6));
    same(get("getHours", vec![s("UTC")]), Value::Int(23));
    assert!(fails(L, &method(t(), "getHours", vec![s("Mars/Base")])).contains("unknown time zone"));
    let d = || dur("90m1.5s");
    same(ok(L, &method(d(), "getHours", vec![])), Value::Int(1));
    same(ok(L, &method(d(), "getMinutes", vec![])), Value::Int(90));
    same(ok(L, &method(d(), "getSeconds", vec![])), Value::Int(5401));
    same(
        ok(L, &method(d(), "getMilliseconds", vec![])),
        Value::Int(5_401_500),
    );
    assert!(fails(L, &method(d(), "getFullYear", vec![])).contains("no overload"));
    same(ok(L, &call("int", vec![t()])), Value::Int(1_709_681_415));
}
