//! Reading roots, fields and indices: per-language missing-key rules, and a fast path that
//! walks JSON roots without converting them (a 100k-node `nodes` root is never copied to
//! read `nodes.a.outputs.x`).

use super::super::{Expr, ExprKind, Lang, NodeId};
use super::{EvalError, Evaluator, err, literal, render};
use crate::value::{Key, Kind, Value, ValueMap, map_get};

/// A path step for lookups that walk JSON without converting it.
enum Step<'s> {
    Field(&'s str),
    Index(Value),
}

impl Evaluator<'_, '_> {
    /// `target.field` / `target[index]`.
    pub(super) fn access(&mut self, e: &Expr) -> Result<Value, EvalError> {
        if let Some(found) = self.json_chain(e) {
            return found;
        }
        match &e.kind {
            ExprKind::Member { target, field } => {
                let t = self.eval(target)?;
                self.select(e.id, t, &Step::Field(field))
            }
            ExprKind::Index { target, index } => {
                let t = self.eval(target)?;
                let i = self.eval(index)?;
                self.select(e.id, t, &Step::Index(i))
            }
            _ => Err(err(e.id, "not a member or index expression")),
        }
    }

    pub(super) fn local(&self, name: &str) -> Option<&Value> {
        self.locals
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v)
    }

    pub(super) fn root(&self, id: NodeId, name: &str) -> Result<Value, EvalError> {
        if let Some(v) = self.local(name).or_else(|| self.env.values.get(name)) {
            return Ok(v.clone());
        }
        if let Some(j) = self.env.json_root(name) {
            return Ok(self.json_value(j));
        }
        if self.lang == Lang::Cel
            && let Some(kind) = Kind::from_cel_ident(name)
        {
            return Ok(Value::Type(kind));
        }
        Err(err(
            id,
            match self.lang {
                Lang::Agx => format!("unknown name `{name}`"),
                Lang::Cel => format!("undeclared reference to `{name}`"),
                Lang::Gotmpl => format!("map has no entry for key \"{name}\""),
            },
        ))
    }

    /// Fast path for `root.a.b[0]` chains over JSON roots: walks the JSON and converts only
    /// the value found. `None` when the chain does not start at a JSON root (or an index is
    /// not a literal), in which case the general path evaluates it.
    fn json_chain(&mut self, e: &Expr) -> Option<Result<Value, EvalError>> {
        let mut steps: Vec<(NodeId, Step<'_>)> = Vec::new();
        let mut cur = e;
        loop {
            match &cur.kind {
                ExprKind::Member { target, field } => {
                    steps.push((cur.id, Step::Field(field)));
                    cur = target;
                }
                ExprKind::Index { target, index } => match &index.kind {
                    ExprKind::Literal { value } => {
                        steps.push((cur.id, Step::Index(literal(value))));
                        cur = target;
                    }
                    _ => return None,
                },
                ExprKind::Ident { name } => {
                    if self.local(name).is_some() || self.env.values.contains_key(name) {
                        return None;
                    }
                    if let Some(root) = self.env.entries.filter(|r| r.name == name) {
                        return self.entries_chain(root.entries, &steps);
                    }
                    let json = self.env.json_root(name)?;
                    self.steps += steps.len() as u64;
                    return Some(self.walk_json(json, steps.iter().rev()));
                }
                _ => return None,
            }
        }
    }

    /// Walks `steps` (outermost first) down from `json`, converting only the value found.
    fn walk_json<'j, 's: 'j>(
        &self,
        mut json: &'j serde_json::Value,
        steps: impl Iterator<Item = &'j (NodeId, Step<'s>)>,
    ) -> Result<Value, EvalError> {
        for (id, step) in steps {
            match json_step(json, step) {
                JsonStep::Found(next) => json = next,
                JsonStep::Missing => {
                    // Same answer as on the real container, without converting it.
                    let empty = match json {
                        serde_json::Value::Array(_) => Value::List(Vec::new()),
                        _ => Value::Map(ValueMap::new()),
                    };
                    return self.select(*id, empty, step);
                }
                JsonStep::Other => {
                    let v = self.json_value(json);
                    return self.select(*id, v, step);
                }
            }
        }
        Ok(self.json_value(json))
    }

    /// `root.<name>.<field>...` over a root read entry by entry ([`super::Env::with_entries`]):
    /// the same answers as [`Self::walk_json`] over the root built as an object of objects.
    /// `steps` are innermost first, as [`Self::json_chain`] collects them; `None` (an unknown
    /// name, as the general path finds) unless the first two are fields.
    fn entries_chain(
        &mut self,
        entries: &dyn super::Entries,
        steps: &[(NodeId, Step<'_>)],
    ) -> Option<Result<Value, EvalError>> {
        let [
            rest @ ..,
            (field_id, Step::Field(field)),
            (entry_id, Step::Field(entry)),
        ] = steps
        else {
            return None;
        };
        self.steps += steps.len() as u64;
        let no_key =
            |id: NodeId, step: &Step<'_>| self.select(id, Value::Map(ValueMap::new()), step);
        Some(match entries.field(entry, field) {
            super::Field::NoEntry => no_key(*entry_id, &Step::Field(entry)),
            super::Field::NoField => no_key(*field_id, &Step::Field(field)),
            super::Field::Value(v) => self.walk_json(&v, rest.iter().rev()),
            super::Field::Map(m) => {
                let mut rest = rest.iter().rev();
                match rest.next() {
                    None => Ok(self.json_map(m)),
                    Some((id, step)) => match map_step(m, step) {
                        JsonStep::Found(next) => self.walk_json(next, rest),
                        JsonStep::Missing => no_key(*id, step),
                        JsonStep::Other => self.select(*id, self.json_map(m), step),
                    },
                }
            }
        })
    }

    /// `target.field` / `target[index]` on a value, per language.
    fn select(&self, id: NodeId, target: Value, step: &Step<'_>) -> Result<Value, EvalError> {
        let lang = self.lang;
        let missing = |what: String| match lang {
            Lang::Agx => Ok(Value::Null),
            Lang::Cel => Err(err(id, format!("no such key: {what}"))),
            Lang::Gotmpl => Err(err(id, format!("map has no entry for key \"{what}\""))),
        };
        match (target, step) {
            (Value::Map(m), Step::Field(f)) => match map_get(&m, &Key::String(f.to_string())) {
                Some(v) => Ok(v.clone()),
                None => missing(f.to_string()),
            },
            (Value::Map(m), Step::Index(i)) => {
                let found = Key::from_value(i).and_then(|k| map_get(&m, &k));
                match found {
                    Some(v) => Ok(v.clone()),
                    None => missing(render::render(Lang::Cel, i).unwrap_or_default()),
                }
            }
            (Value::List(items), Step::Index(i)) => {
                let n = match (lang, i) {
                    (_, Value::Int(n)) => i128::from(*n),
                    (_, Value::Uint(n)) => i128::from(*n),
                    (Lang::Cel, Value::Double(d)) if d.fract() == 0.0 && d.abs() < 1e18 => {
                        *d as i128
                    }
                    (_, other) => {
                        return Err(err(
                            id,
                            format!(
                                "list index must be an integer, got {}",
                                self.kind_name(other.kind())
                            ),
                        ));
                    }
                };
                match usize::try_from(n)
                    .ok()
                    .and_then(|n| items.into_iter().nth(n))
                {
                    Some(v) => Ok(v),
                    None if lang == Lang::Agx => Ok(Value::Null),
                    None => Err(err(id, format!("index out of range: {n}"))),
                }
            }
            (Value::Null, _) if lang == Lang::Agx => Ok(Value::Null),
            (other, Step::Field(f)) => Err(err(
                id,
                format!(
                    "cannot read field `{f}` of type {}",
                    self.kind_name(other.kind())
                ),
            )),
            (other, Step::Index(_)) => Err(err(
                id,
                format!("cannot index type {}", self.kind_name(other.kind())),
            )),
        }
    }

    /// Reads `root.a.b` without converting the whole root (used by AGX's node functions).
    /// `None` when any step is missing.
    pub(super) fn path(&self, root: &str, fields: &[&str]) -> Option<Value> {
        if let Some(v) = self.local(root).or_else(|| self.env.values.get(root)) {
            let mut v = v;
            for f in fields {
                match v {
                    Value::Map(m) => v = map_get(m, &Key::String(f.to_string()))?,
                    _ => return None,
                }
            }
            return Some(v.clone());
        }
        let mut j = self.env.json_root(root)?;
        for f in fields {
            j = j.as_object()?.get(*f)?;
        }
        Some(self.json_value(j))
    }

    /// [`Self::json_value`] of an object.
    fn json_map(&self, m: &serde_json::Map<String, serde_json::Value>) -> Value {
        Value::Map(
            m.iter()
                .map(|(k, v)| (Key::String(k.clone()), self.json_value(v)))
                .collect(),
        )
    }

    /// Converts JSON data the way the language sees it (CEL: numbers are doubles).
    fn json_value(&self, j: &serde_json::Value) -> Value {
        match self.lang {
            Lang::Cel => Value::from_json_doubles(j),
            _ => Value::from_json(j),
        }
    }
}

enum JsonStep<'j> {
    Found(&'j serde_json::Value),
    Missing,
    Other,
}

fn json_step<'j>(json: &'j serde_json::Value, step: &Step<'_>) -> JsonStep<'j> {
    match (json, step) {
        (serde_json::Value::Object(m), _) => map_step(m, step),
        (serde_json::Value::Array(a), Step::Index(Value::Int(i))) => {
            match usize::try_from(*i).ok().and_then(|i| a.get(i)) {
                Some(v) => JsonStep::Found(v),
                None => JsonStep::Missing,
            }
        }
        _ => JsonStep::Other,
    }
}

/// [`json_step`] on an object.
fn map_step<'j>(
    m: &'j serde_json::Map<String, serde_json::Value>,
    step: &Step<'_>,
) -> JsonStep<'j> {
    let key = match step {
        Step::Field(f) => *f,
        Step::Index(Value::String(f)) => f.as_str(),
        Step::Index(_) => return JsonStep::Other,
    };
    match m.get(key) {
        Some(v) => JsonStep::Found(v),
        None => JsonStep::Missing,
    }
}
