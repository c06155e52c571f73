//! Timestamps and durations for CEL: parsing, range checks and the `get*` accessors.
//!
//! Decisions:
//! - `timestamp(s)` accepts RFC 3339 (`2024-05-01T10:00:00Z`, `...+02:00`, fractions up to
//!   nanoseconds) via jiff; the result must lie in years 0001–9999. jiff's own range ends at
//!   9999-12-30T22:00:00.999999999Z (it keeps room for offsets), so the last 26 hours of
//!   CEL's range are out of reach: a known, documented gap.
//! - `duration(s)` accepts Go's `time.ParseDuration` syntax (what cel-go uses): an optional
//!   sign, then one or more `<decimal><unit>` with units `ns us µs μs ms s m h` (`"1h30m"`,
//!   `"1.5s"`, `"-2m"`, `"0"`); the magnitude must stay within ±315,576,000,000 s.
//! - The accessors' optional time-zone argument takes `UTC`, a fixed offset (`+05:30`,
//!   `-08:00`) or an IANA name (`Europe/Paris`) from jiff's bundled tz database, so results
//!   do not depend on the machine.
//! - Duration accessors return totals, as cel-go does: `duration("90m").getHours()` is 1,
//!   `.getMinutes()` 90.

use jiff::tz::{Offset, TimeZone};
use jiff::{SignedDuration, Timestamp};

use crate::value::{MAX_DURATION_SECONDS, MAX_TIMESTAMP_SECONDS, MIN_TIMESTAMP_SECONDS};

/// Parses an RFC 3339 timestamp within CEL's range.
pub fn parse_timestamp(text: &str) -> Result<Timestamp, String> {
    let t: Timestamp = text
        .parse()
        .map_err(|_| format!("invalid timestamp \"{text}\": expected RFC 3339"))?;
    check_timestamp(t)
}

/// A timestamp from unix seconds, within CEL's range.
pub fn timestamp_from_seconds(secs: i64) -> Result<Timestamp, String> {
    if !(MIN_TIMESTAMP_SECONDS..=MAX_TIMESTAMP_SECONDS).contains(&secs) {
        return Err("timestamp out of range".into());
    }
    Timestamp::from_second(secs).map_err(|_| "timestamp out of range".to_string())
}

fn check_timestamp(t: Timestamp) -> Result<Timestamp, String> {
    if (MIN_TIMESTAMP_SECONDS..=MAX_TIMESTAMP_SECONDS).contains(&t.as_second()) {
        Ok(t)
    } else {
        Err("timestamp out of range".into())
    }
}

/// Parses a Go-syntax duration (`"1h30m"`, `"1.5s"`, `"-250ms"`).
pub fn parse_duration(text: &str) -> Result<SignedDuration, String> {
    let bad = || format!("invalid duration \"{text}\"");
    let (negative, mut rest) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    if rest == "0" {
        return Ok(SignedDuration::ZERO);
    }
    if rest.is_empty() {
        return Err(bad());
    }
    let limit = i128::from(MAX_DURATION_SECONDS) * 1_000_000_000;
    let mut total: i128 = 0;
    while !rest.is_empty() {
        let int_len = rest.bytes().take_while(u8::is_ascii_digit).count();
        let (int_part, after) = rest.split_at(int_len);
        let (frac_part, after) = match after.strip_prefix('.') {
            Some(a) => {
                let n = a.bytes().take_while(u8::is_ascii_digit).count();
                a.split_at(n)
            }
            None => ("", after),
        };
        if int_part.is_empty() && frac_part.is_empty() {
            return Err(bad());
        }
        let unit_len = after
            .char_indices()
            .find(|(_, c)| c.is_ascii_digit() || *c == '.')
            .map_or(after.len(), |(i, _)| i);
        let (unit, after) = after.split_at(unit_len);
        let scale: i128 = match unit {
            "ns" => 1,
            "us" | "µs" | "μs" => 1_000,
            "ms" => 1_000_000,
            "s" => 1_000_000_000,
            "m" => 60_000_000_000,
            "h" => 3_600_000_000_000,
            _ => return Err(bad()),
        };
        // Digits beyond the limit's width can only overflow; cap the work on long inputs.
        if int_part.len() > 25 {
            return Err(format!("duration \"{text}\" out of range"));
        }
        let int: i128 = if int_part.is_empty() {
            0
        } else {
            int_part.parse().map_err(|_| bad())?
        };
        let mut nanos = int.checked_mul(scale).ok_or_else(bad)?;
        let mut unit_scale = scale;
        for d in frac_part.bytes().take(30) {
            unit_scale /= 10;
            nanos += i128::from(d - b'0') * unit_scale;
        }
        total = total.checked_add(nanos).ok_or_else(bad)?;
        if total > limit {
            return Err(format!("duration \"{text}\" out of range"));
        }
        rest = after;
    }
    let total = if negative { -total } else { total };
    SignedDuration::try_from_nanos_i128(total).ok_or_else(bad)
}

/// A duration from text or an error, also checking the range.
pub fn check_duration(d: SignedDuration) -> Result<SignedDuration, String> {
    if d.as_secs().abs() <= MAX_DURATION_SECONDS {
        Ok(d)
    } else {
        Err("duration out of range".into())
    }
}

fn zone(name: Option<&str>) -> Result<TimeZone, String> {
    let Some(name) = name else {
        return Ok(TimeZone::UTC);
    };
    if let Some(offset) = parse_offset(name) {
        return Ok(TimeZone::fixed(offset));
    }
    TimeZone::get(name).map_err(|_| format!("unknown time zone \"{name}\""))
}

/// `+05:30` / `-08:00` / `05:30`.
fn parse_offset(text: &str) -> Option<Offset> {
    let (sign, rest) = match text.as_bytes().first()? {
        b'+' => (1, &text[1..]),
        b'-' => (-1, &text[1..]),
        _ => (1, text),
    };
    let (h, m) = rest.split_once(':')?;
    if h.len() != 2 || m.len() != 2 {
        return None;
    }
    let h: i32 = h.parse().ok()?;
    let m: i32 = m.parse().ok()?;
    if h > 23 || m > 59 {
        return None;
    }
    Offset::from_seconds(sign * (h * 3600 + m * 60)).ok()
}

/// A timestamp accessor (`getFullYear` ...) in UTC or the given zone.
pub fn timestamp_field(name: &str, t: Timestamp, tz: Option<&str>) -> Result<i64, String> {
    let z = t.to_zoned(zone(tz)?);
    Ok(match name {
        "getFullYear" => i64::from(z.year()),
        "getMonth" => i64::from(z.month()) - 1,
        "getDayOfYear" => i64::from(z.day_of_year()) - 1,
        "getDayOfMonth" => i64::from(z.day()) - 1,
        "getDate" => i64::from(z.day()),
        "getDayOfWeek" => i64::from(z.weekday().to_sunday_zero_offset()),
        "getHours" => i64::from(z.hour()),
        "getMinutes" => i64::from(z.minute()),
        "getSeconds" => i64::from(z.second()),
        "getMilliseconds" => i64::from(z.millisecond()),
        other => return Err(format!("no such overload: {other}(timestamp)")),
    })
}

/// A duration accessor: whole hours, minutes, seconds or milliseconds in total.
pub fn duration_field(name: &str, d: SignedDuration) -> Result<i64, String> {
    Ok(match name {
        "getHours" => d.as_hours(),
        "getMinutes" => d.as_mins(),
        "getSeconds" => d.as_secs(),
        "getMilliseconds" => {
            i64::try_from(d.as_millis()).map_err(|_| "integer overflow".to_string())?
        }
        other => return Err(format!("no such overload: {other}(duration)")),
    })
}
