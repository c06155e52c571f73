#!/usr/bin/env python3
"""Evaluate tests/oracle/cel_cases.txt with cel-python and write cel_expected.jsonl.

Usage (from the repository root):

    python3 -m venv /tmp/celvenv && /tmp/celvenv/bin/pip install cel-python==0.5.0
    /tmp/celvenv/bin/python tests/oracle/gen_cel.py

cel-python (PyPI `cel-python`, import name `celpy`) is an independent CEL implementation.
Each case is compiled and evaluated with no variables. One JSON object per line:

    {"expr": str, "value": <json>|null, "error": bool, "phase": "parse"|"eval"|null,
     "type": "int"|"uint"|"double"|"bool"|"string"|"bytes"|"null"|"list"|"map"|
             "timestamp"|"duration"|"type"|null,
     "message": str|null, "divergence": str|null}

"divergence" is set where cel-python is known to disagree with the CEL spec and cel-go; it
says what the spec gives (see DIVERGENCES).

Value encoding: ints and uints as JSON numbers (exact, any size); doubles as numbers, or the
strings "NaN", "Infinity", "-Infinity"; bytes as a list of byte values (as the core
`Literal::Bytes`); lists as arrays; maps as objects, non-string keys written with `str()`
(`true` for bools); timestamps as RFC 3339 UTC strings; durations as seconds with an `s`
suffix (the protobuf JSON form, e.g. "5400s"); types as their CEL name ("int").
"""

import datetime
import json
import math
import sys
from pathlib import Path

import celpy
from celpy import celtypes

HERE = Path(__file__).resolve().parent

# Cases where cel-python 0.5.0 is known to differ from the CEL specification and cel-go
# (which agh uses). The row keeps cel-python's answer and names what the spec says in
# "divergence"; a comparison against agc should expect the spec's answer for these.
DIVERGENCES = {
    "[1, 2, 3,]": "cel-go accepts trailing commas in list literals (CEL.g4): [1, 2, 3]",
    '{"a": 1, "b": [true, null],}': "cel-go accepts trailing commas in map literals (CEL.g4)",
    '{1: "one", 2u: "two", true: "yes"}': "map keys of different types are allowed: a 3-entry map",
    "-1.0 / 0.0": "IEEE division: -Infinity",
    "0.0 / 0.0 != 0.0 / 0.0": "cel-go follows IEEE 754: NaN != NaN is true",
    "1 + 1u": "no overload for int + uint: an error",
    "1 == 1.0": "numeric equality across types (spec, cel-go): true",
    "1 == 1u": "numeric equality across types (spec, cel-go): true",
    "1 < 1.5": "numeric ordering across types (spec, cel-go): true",
    '"a" == 1': "heterogeneous equality is false, not an error (spec, cel-go)",
    '[1] == ["1"]': "heterogeneous equality is false, not an error (spec, cel-go)",
    "[1, 2, 3][-1]": "index out of range: an error (no negative indexing)",
    "string(true)": 'string(true) is "true"',
    "[1, 2, 3].map(x, x > 1, x * 10)": "the three-argument map macro: [20, 30]",
    "if": "reserved word: a syntax error",
    "a.while": "reserved word: a syntax error",
    "has(1)": "invalid argument to has() macro: a syntax error",
}


def type_name(v):
    # Order matters: BoolType subclasses int in Python.
    if v is None:
        return "null"
    if isinstance(v, celtypes.BoolType):
        return "bool"
    if isinstance(v, celtypes.UintType):
        return "uint"
    if isinstance(v, celtypes.IntType):
        return "int"
    if isinstance(v, celtypes.DoubleType):
        return "double"
    if isinstance(v, celtypes.StringType):
        return "string"
    if isinstance(v, celtypes.BytesType):
        return "bytes"
    if isinstance(v, celtypes.ListType):
        return "list"
    if isinstance(v, celtypes.MapType):
        return "map"
    if isinstance(v, celtypes.TimestampType):
        return "timestamp"
    if isinstance(v, celtypes.DurationType):
        return "duration"
    if isinstance(v, type) or isinstance(v, celtypes.TypeType):
        return "type"
    # cel-python returns plain Python values from a few operations (e.g. double addition).
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int"
    if isinstance(v, float):
        return "double"
    if isinstance(v, str):
        return "string"
    if isinstance(v, bytes):
        return "bytes"
    if isinstance(v, list):
        return "list"
    if isinstance(v, dict):
        return "map"
    if isinstance(v, datetime.datetime):
        return "timestamp"
    if isinstance(v, datetime.timedelta):
        return "duration"
    raise TypeError(f"unknown CEL value {v!r} ({type(v).__name__})")


CEL_TYPE_NAMES = {
    celtypes.BoolType: "bool",
    celtypes.UintType: "uint",
    celtypes.IntType: "int",
    celtypes.DoubleType: "double",
    celtypes.StringType: "string",
    celtypes.BytesType: "bytes",
    celtypes.ListType: "list",
    celtypes.MapType: "map",
    celtypes.TimestampType: "google.protobuf.Timestamp",
    celtypes.DurationType: "google.protobuf.Duration",
    celtypes.TypeType: "type",
    type(None): "null_type",
}


def encode(v):
    t = type_name(v)
    if t == "null":
        return None
    if t == "bool":
        return bool(v)
    if t in ("int", "uint"):
        return int(v)
    if t == "double":
        f = float(v)
        if math.isnan(f):
            return "NaN"
        if math.isinf(f):
            return "Infinity" if f > 0 else "-Infinity"
        return f
    if t == "string":
        return str(v)
    if t == "bytes":
        return list(bytes(v))
    if t == "list":
        return [encode(x) for x in v]
    if t == "map":
        out = {}
        for k, x in v.items():
            key = encode(k)
            out[key if isinstance(key, str) else json.dumps(key)] = encode(x)
        return out
    if t == "timestamp":
        dt = v.astimezone(datetime.timezone.utc)
        frac = f".{dt.microsecond:06d}".rstrip("0") if dt.microsecond else ""
        return dt.strftime("%Y-%m-%dT%H:%M:%S") + frac.rstrip(".") + "Z"
    if t == "duration":
        micros = v.days * 86400 * 10**6 + v.seconds * 10**6 + v.microseconds
        secs, frac = divmod(abs(micros), 10**6)
        sign = "-" if micros < 0 else ""
        text = f"{secs}.{frac:06d}".rstrip("0").rstrip(".") if frac else str(secs)
        return f"{sign}{text}s"
    if t == "type":
        for cls, name in CEL_TYPE_NAMES.items():
            if v is cls:
                return name
        return str(v)
    raise TypeError(t)


def evaluate(env, src):
    try:
        ast = env.compile(src)
    except celpy.CELParseError as e:
        return {"value": None, "error": True, "phase": "parse", "type": None,
                "message": str(e).splitlines()[0]}
    try:
        result = env.program(ast).evaluate({})
    except celpy.CELEvalError as e:
        return {"value": None, "error": True, "phase": "eval", "type": None,
                "message": str(e.args[0]) if e.args else str(e)}
    except Exception as e:  # cel-python raises plain Python errors for a few cases
        return {"value": None, "error": True, "phase": "eval", "type": None,
                "message": f"{type(e).__name__}: {e}"}
    if isinstance(result, celpy.CELEvalError):
        return {"value": None, "error": True, "phase": "eval", "type": None,
                "message": str(result.args[0]) if result.args else str(result)}
    return {"value": encode(result), "error": False, "phase": None,
            "type": type_name(result), "message": None}


def main():
    cases = [
        line for line in (HERE / "cel_cases.txt").read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    ]
    env = celpy.Environment()
    out = []
    for src in cases:
        row = {"expr": src}
        row.update(evaluate(env, src))
        row["divergence"] = DIVERGENCES.get(src)
        out.append(json.dumps(row, ensure_ascii=False, sort_keys=False))
    missing = set(DIVERGENCES) - set(cases)
    assert not missing, f"divergences for unknown cases: {missing}"
    (HERE / "cel_expected.jsonl").write_text("\n".join(out) + "\n", encoding="utf-8")
    print(f"{len(out)} cases written", file=sys.stderr)


if __name__ == "__main__":
    main()
