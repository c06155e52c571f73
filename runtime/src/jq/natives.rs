//! The native filters agc's jq programs run with: jaq's, renamed where agc meters them, and
//! agc's own metered natives.

use super::meter;

/// The data type jaq runs on (values with agc's meter).
pub(super) type D = meter::Metered;

/// jaq's natives (`range/3` renamed [`meter::RANGE`]: the library's `range/3` ticks) and agc's.
pub(super) fn functions() -> impl Iterator<Item = jaq_core::native::Fun<D>> {
    jaq_core::funs::<D>()
        .chain(jaq_std::funs::<D>())
        .chain(jaq_json::funs::<D>())
        .map(|(name, args, f)| match name {
            "range" if args.len() == 3 => (meter::RANGE, args, f),
            "fromjson" if args.is_empty() => (meter::FROMJSON, args, f),
            _ => (name, args, f),
        })
        .chain(meter::natives())
}
