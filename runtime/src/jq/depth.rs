//! How deeply a jaq value nests, measured where values grow (see [`super::meter`]).
//!
//! jaq's natives (comparison, `tojson`, freeing) recurse over a value's depth, and a loop can
//! deepen a value by one level per step (`reduce range(n) as $i (null; [.])`), so an unbounded
//! depth would overflow the stack whatever its size. Depth is checked on the result of every
//! operation that can make a value deeper: array and object construction, assignments and
//! updates, and native filters. Measuring is a walk over the containers; to keep the walks
//! linear overall, the depth of each value checked is remembered by the address of its
//! allocation. The cache holds a `Weak` to it, so the allocation cannot be reused for another
//! value while the entry exists, and a uniquely held value that jaq mutates in place
//! (`Rc::make_mut`) moves to a new allocation first because of that `Weak`.

use jaq_json::{Map, Rc, Val};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Weak;

enum Held {
    Arr(Weak<Vec<Val>>),
    Obj(Weak<Map<Val, Val>>),
}

impl Held {
    fn alive(&self) -> bool {
        match self {
            Held::Arr(w) => w.strong_count() > 0,
            Held::Obj(w) => w.strong_count() > 0,
        }
    }
}

/// Entries kept before the cache starts afresh.
const CAPACITY: usize = 1 << 16;

/// Depths of values already measured, by allocation address.
#[derive(Default)]
pub(super) struct Depths {
    known: RefCell<HashMap<usize, (Held, usize)>>,
}

fn key(v: &Val) -> Option<(usize, Held)> {
    match v {
        Val::Arr(a) => Some((
            Rc::as_ptr(a) as *const () as usize,
            Held::Arr(Rc::downgrade(a)),
        )),
        Val::Obj(o) => Some((
            Rc::as_ptr(o) as *const () as usize,
            Held::Obj(Rc::downgrade(o)),
        )),
        _ => None,
    }
}

impl Depths {
    /// The depth of `v` (a scalar is 0, `[]` is 1), or `None` when it is above `limit`.
    pub(super) fn within(&self, v: &Val, limit: usize) -> Option<usize> {
        let Some((addr, held)) = key(v) else {
            return Some(0);
        };
        if let Some((h, d)) = self.known.borrow().get(&addr)
            && h.alive()
        {
            return (*d <= limit).then_some(*d);
        }
        let d = self.measure(v, limit)?;
        let mut known = self.known.borrow_mut();
        if known.len() >= CAPACITY {
            known.clear();
        }
        known.insert(addr, (held, d));
        Some(d)
    }

    fn cached(&self, v: &Val) -> Option<usize> {
        let addr = match v {
            Val::Arr(a) => Rc::as_ptr(a) as *const () as usize,
            Val::Obj(o) => Rc::as_ptr(o) as *const () as usize,
            _ => return Some(0),
        };
        let known = self.known.borrow();
        let (h, d) = known.get(&addr)?;
        h.alive().then_some(*d)
    }

    /// Measures `v`, using remembered depths for the values inside it. Recursion stops at
    /// `limit` levels, so it is bounded however deep `v` is.
    fn measure(&self, v: &Val, limit: usize) -> Option<usize> {
        if limit == 0 {
            return match v {
                Val::Arr(_) | Val::Obj(_) => None,
                _ => Some(0),
            };
        }
        let child = |c: &Val| -> Option<usize> {
            match c {
                Val::Arr(_) | Val::Obj(_) => match self.cached(c) {
                    Some(d) if d < limit => Some(d),
                    Some(_) => None,
                    None => self.measure(c, limit - 1),
                },
                _ => Some(0),
            }
        };
        let mut deepest = 0;
        match v {
            Val::Arr(a) => {
                for c in a.iter() {
                    deepest = deepest.max(child(c)?);
                }
            }
            Val::Obj(o) => {
                for (k, c) in o.iter() {
                    deepest = deepest.max(child(k)?).max(child(c)?);
                }
            }
            _ => return Some(0),
        }
        Some(deepest + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nest(n: usize) -> Val {
        let mut v = Val::Null;
        for _ in 0..n {
            v = Val::Arr(Rc::new(vec![Val::Bool(true), v]));
        }
        v
    }

    #[test]
    fn depths_are_exact_and_bounded() {
        let d = Depths::default();
        assert_eq!(d.within(&Val::Null, 3), Some(0));
        assert_eq!(d.within(&nest(1), 3), Some(1));
        assert_eq!(d.within(&nest(3), 3), Some(3));
        assert_eq!(d.within(&nest(4), 3), None);
        // Remembered values still count in a wrapper.
        let inner = nest(3);
        assert_eq!(d.within(&inner, 10), Some(3));
        let outer = Val::Arr(Rc::new(vec![inner.clone(), Val::Null]));
        assert_eq!(d.within(&outer, 10), Some(4));
        assert_eq!(d.within(&outer, 3), None);
    }
}
