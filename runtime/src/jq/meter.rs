//! Limits on one jq evaluation: recursion, memory and time, checked as the program runs.
//!
//! jaq has no step hook, fuel or depth counter, and its evaluator recurses; a program such as
//! `def f: [f]; f` overflows any stack, and `[range(1e9)]` allocates until the process dies.
//! agc therefore puts its own checks into the program: `instrument` rewrites every
//! program (and jaq's library, once) so that a native filter, `!tick`, runs
//!
//! - at the start of every `def` body (every call of a jq function: all recursion passes here),
//! - after every output of an iteration (`.[]`, `..`) and of `range` (every loop and every
//!   large collection passes here).
//!
//! `!tick` ([`Meter::tick`]) compares the stack used since the evaluation started with
//! [`Limits::stack`] (recursion depth: each level of jq recursion costs stack), the bytes the
//! evaluation's thread holds ([`crate::held`]) with [`Limits::memory`], and, every 256 ticks,
//! the clock with [`Limits::time`]. Between two ticks a program does a bounded amount of work:
//! no loop or recursion can avoid them, so one native operation on values of bounded size is
//! the most that runs unchecked. The one operation that builds a large value from small ones
//! in a single step, string repetition (`"x" * 1e10`), is rewritten to `!mul`, which checks the
//! size it would build first.
//!
//! An exceeded limit trips the meter: the tick raises jaq's `halt`, which no `try`, `?` or `//`
//! catches, every later tick raises it again, and [`super::JqFilter::run_limited`] reports the
//! limit ([`super::JqError::Limit`]) whatever the program did with the halt.
//!
//! Stack: the evaluation runs on a thread of [`thread_stack`] bytes, the limit plus headroom for
//! what runs between ticks: jaq's natives (comparison, `tojson`, dropping) recurse over the
//! depth of values, and a value's depth is bounded by the memory limit (each level holds at
//! least one allocation).

use jaq_core::box_iter::box_once;
use jaq_core::data::HasLut;
use jaq_core::{Cv, DataT, Exn, Native, ValXs};
use jaq_json::Val;
use jaq_std::ValT as _;
use std::cell::Cell;
use std::fmt;
use std::time::{Duration, Instant};

/// Most outputs [`super::run_jq`] collects before failing with [`super::JqError::TooManyOutputs`].
pub const MAX_OUTPUTS: usize = 10_000;

/// The bounds of one jq evaluation (see the module docs for how each is measured).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Bytes of stack the evaluation may use: this bounds recursion depth (a level of jq
    /// recursion takes from a few hundred bytes to a few KiB).
    pub stack: usize,
    /// How deeply a value built by the evaluation may nest (`[[1]]` is 2): jaq's natives
    /// recurse over it, so it bounds the stack they need.
    pub depth: usize,
    /// Bytes the evaluation may hold at once (values, the program's own data); measured only
    /// where [`crate::held::Counting`] is the global allocator, as in agc.
    pub memory: usize,
    /// Wall-clock time the evaluation may take.
    pub time: Duration,
}

impl Limits {
    /// 64 MiB of stack (recursion tens of thousands of levels deep), values 10,000 levels
    /// deep (jq's own limit for parsing), 1 GiB of memory, 10 s.
    pub const DEFAULT: Limits = Limits {
        stack: 64 << 20,
        depth: 10_000,
        memory: 1 << 30,
        time: Duration::from_secs(10),
    };

    /// What a run's evaluations start from: [`Limits::DEFAULT`] with 5 s of time. A run
    /// takes its own limits from there (the plan's `eval_limits`, then its options': see
    /// [`crate::plan::EvalLimits`]); nothing about them is global to the process, so runs
    /// of different plans in one process each have their own.
    pub const RUN: Limits = Limits {
        time: Duration::from_secs(5),
        ..Limits::DEFAULT
    };
}

impl Default for Limits {
    fn default() -> Self {
        Limits::DEFAULT
    }
}

/// Which limit an evaluation exceeded, with the limit's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exceeded {
    /// Recursion used more than this many bytes of stack.
    Recursion(usize),
    /// A value built nested deeper than this.
    Depth(usize),
    /// The evaluation held (or was about to build) more than this many bytes.
    Memory(usize),
    /// The evaluation ran longer than this.
    Time(Duration),
}

impl fmt::Display for Exceeded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Exceeded::Recursion(b) => write!(
                f,
                "recursion too deep: more than {} of stack (unbounded recursion?)",
                mib(*b)
            ),
            Exceeded::Depth(d) => write!(f, "a value nested more than {d} levels deep"),
            Exceeded::Memory(b) => write!(f, "more than {} of memory", mib(*b)),
            Exceeded::Time(t) => write!(f, "ran longer than {} s", t.as_secs_f64()),
        }
    }
}

fn mib(b: usize) -> String {
    if b >= 1 << 20 && b.is_multiple_of(1 << 20) {
        format!("{} MiB", b >> 20)
    } else {
        format!("{b} bytes")
    }
}

/// Stack to give a thread that evaluates under `limits`: the recursion limit, plus what runs
/// between ticks (a program's own nesting, bounded by [`super::nesting::MAX_NESTING`]), plus
/// the recursion of natives over values [`Limits::depth`] deep (measured: `tojson` takes
/// about 2 KiB a level in a debug build), capped at 4 GiB of address space (only the pages
/// touched are committed).
pub fn thread_stack(limits: &Limits) -> usize {
    let between_ticks = 16 << 20;
    let value_depth = limits.depth.saturating_mul(4 << 10);
    limits
        .stack
        .saturating_add(between_ticks)
        .saturating_add(value_depth)
        .min(4 << 30)
}

/// The state of one evaluation's checks.
pub struct Meter {
    limits: Limits,
    stack_base: usize,
    held_base: isize,
    measure_memory: bool,
    deadline: Instant,
    ticks: Cell<u32>,
    tripped: Cell<Option<Exceeded>>,
    depths: super::depth::Depths,
}

/// The exit code of the `halt` a tripped meter raises (what it is does not matter: the meter,
/// not the code, says whether a halt was a limit).
const HALT: i32 = 124;

impl Meter {
    /// Starts measuring now, from the caller's stack frame.
    pub fn start(limits: Limits) -> Meter {
        Meter {
            limits,
            stack_base: stack_address(),
            held_base: crate::held::held(),
            measure_memory: crate::held::counting(),
            deadline: Instant::now() + limits.time,
            ticks: Cell::new(0),
            tripped: Cell::new(None),
            depths: Default::default(),
        }
    }

    /// The limit exceeded, if one was.
    pub fn exceeded(&self) -> Option<Exceeded> {
        self.tripped.get()
    }

    fn trip(&self, e: Exceeded) -> Result<(), Exceeded> {
        if self.tripped.get().is_none() {
            self.tripped.set(Some(e));
        }
        Err(self.tripped.get().unwrap_or(e))
    }

    /// One check: see the module docs.
    #[inline]
    pub fn tick(&self) -> Result<(), Exceeded> {
        if let Some(e) = self.tripped.get() {
            return Err(e);
        }
        let n = self.ticks.get().wrapping_add(1);
        self.ticks.set(n);
        if self.stack_base.saturating_sub(stack_address()) > self.limits.stack {
            return self.trip(Exceeded::Recursion(self.limits.stack));
        }
        if self.measure_memory && self.held() > self.limits.memory {
            return self.trip(Exceeded::Memory(self.limits.memory));
        }
        if n.is_multiple_of(256) && Instant::now() > self.deadline {
            return self.trip(Exceeded::Time(self.limits.time));
        }
        Ok(())
    }

    /// The depth check of a value just built (see [`super::depth`]).
    fn deep(&self, v: &Val) -> Result<(), Exceeded> {
        if let Some(e) = self.tripped.get() {
            return Err(e);
        }
        match self.depths.within(v, self.limits.depth) {
            Some(_) => Ok(()),
            None => self.trip(Exceeded::Depth(self.limits.depth)),
        }
    }

    fn held(&self) -> usize {
        crate::held::held().saturating_sub(self.held_base).max(0) as usize
    }

    /// Whether building `bytes` more would pass the memory limit (then the meter trips).
    fn reserve(&self, bytes: f64) -> Result<(), Exceeded> {
        let held = if self.measure_memory { self.held() } else { 0 };
        if bytes + held as f64 > self.limits.memory as f64 {
            return self.trip(Exceeded::Memory(self.limits.memory));
        }
        Ok(())
    }
}

/// The address of a local of the caller: how deep the stack is (it grows downwards on every
/// target agc supports).
#[inline(always)]
fn stack_address() -> usize {
    let marker = 0u8;
    std::hint::black_box(&marker) as *const u8 as usize
}

/// jaq's data kind for metered evaluation: JSON values, and the [`Meter`] beside the table of
/// compiled terms, where the native `!tick` finds it.
pub struct Metered;

impl DataT for Metered {
    type V<'a> = Val;
    type Data<'a> = Data<'a>;
}

/// What natives see of an evaluation: the compiled terms and the meter.
#[derive(Clone)]
pub struct Data<'a> {
    pub(super) lut: &'a jaq_core::Lut<Metered>,
    pub(super) meter: &'a Meter,
}

impl<'a> HasLut<'a, Metered> for Data<'a> {
    fn lut(&self) -> &'a jaq_core::Lut<Metered> {
        self.lut
    }
}

fn halt<'a, T: 'a>() -> ValXs<'a, T, Val> {
    box_once(Err(Exn::halt(HALT)))
}

/// Names of agc's natives; a `!` cannot start a name in jq text, so programs cannot call them.
pub(super) const TICK: &str = "!tick";
pub(super) const MUL: &str = "!mul";
/// The depth check: identity on values (and paths) that nest within [`Limits::depth`].
pub(super) const DEEP: &str = "!deep";
/// jaq's native `fromjson`, renamed: `fromjson` first checks how deeply the text nests, since
/// jaq's parser recurses over it ([`JSON_NEST`]).
pub(super) const FROMJSON: &str = "!fromjson";
/// `def fromjson: !jsonnest | !fromjson;`
pub(super) const JSON_NEST: &str = "!jsonnest";
/// jaq's native `range/3`, renamed: `range/3` is a definition that ticks on every output.
pub(super) const RANGE: &str = "!range";

/// agc's natives: `!tick` (identity, usable in paths and updates) and `!mul($l; $r)`.
pub(super) fn natives() -> impl Iterator<Item = jaq_core::native::Fun<Metered>> {
    let tick = Native::new(|cv: Cv<'_, Metered>| {
        let meter = cv.0.data().meter;
        match meter.tick() {
            Ok(()) => box_once(Ok(cv.1)),
            Err(_) => halt(),
        }
    })
    .with_paths(|cv| match cv.0.data().meter.tick() {
        Ok(()) => box_once(Ok(cv.1)),
        Err(_) => halt(),
    })
    .with_update(|cv, f| match cv.0.data().meter.tick() {
        Ok(()) => f(cv.1),
        Err(_) => halt(),
    });
    let mul = Native::new(|mut cv: Cv<'_, Metered>| {
        let r = cv.0.pop_var();
        let l = cv.0.pop_var();
        if let Some(bytes) = repeated_size(&l, &r).or_else(|| repeated_size(&r, &l))
            && cv.0.data().meter.reserve(bytes).is_err()
        {
            return halt();
        }
        box_once((l * r).map_err(Exn::from))
    });
    let deep = Native::new(|cv: Cv<'_, Metered>| {
        let meter = cv.0.data().meter;
        match meter.deep(&cv.1) {
            Ok(()) => box_once(Ok(cv.1)),
            Err(_) => halt(),
        }
    })
    .with_paths(|cv| match cv.0.data().meter.deep(&cv.1.0) {
        Ok(()) => box_once(Ok(cv.1)),
        Err(_) => halt(),
    })
    .with_update(|cv, f| match cv.0.data().meter.deep(&cv.1) {
        Ok(()) => f(cv.1),
        Err(_) => halt(),
    });
    let json_nest = Native::new(|cv: Cv<'_, Metered>| {
        let meter = cv.0.data().meter;
        let limit = meter.limits.depth;
        match cv.1.as_bytes().map(|b| text_nesting(b, limit)) {
            Some(false) => {
                let _ = meter.trip(Exceeded::Depth(limit));
                halt()
            }
            _ => box_once(Ok(cv.1)),
        }
    });
    [
        (TICK, jaq_core::native::v(0), tick),
        (MUL, jaq_core::native::v(2), mul),
        (DEEP, jaq_core::native::v(0), deep),
        (JSON_NEST, jaq_core::native::v(0), json_nest),
    ]
    .into_iter()
}

/// Whether the brackets of JSON text `b` nest at most `limit` deep (strings skipped).
fn text_nesting(b: &[u8], limit: usize) -> bool {
    let (mut depth, mut in_str, mut esc) = (0usize, false, false);
    for &c in b {
        if in_str {
            match (esc, c) {
                (true, _) => esc = false,
                (false, b'\\') => esc = true,
                (false, b'"') => in_str = false,
                _ => {}
            }
            continue;
        }
        match c {
            b'"' => in_str = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > limit {
                    return false;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    true
}

/// The bytes `s * n` builds when `s` is a string and `n` a number.
fn repeated_size(s: &Val, n: &Val) -> Option<f64> {
    let len = s.as_bytes()?.len() as f64;
    let n = n.as_f64()?;
    Some(len * n.max(0.0))
}
