//! Declared types → a type space: the plan's `value_type` names and JSON Schemas mapped into
//! a [`TypeSpace`] of named definitions (records, enums) and type expressions ([`Ty`]), for any
//! target language. Names are spelt by the back end's [`Lexicon`]; how a `Ty` is written is the
//! back end's (the Rust back end's table is in `back/rust/types.rs` and `docs/codegen.md`).
//!
//! The mapping (decided here):
//!
//! | schema | type |
//! | --- | --- |
//! | `string` (and AGS `text`, `markdown`, `file`, `directory`, `reference`) | [`Ty::String`] |
//! | `integer` | [`Ty::I64`] |
//! | `number` | [`Ty::F64`] |
//! | `boolean` | [`Ty::Bool`] |
//! | `enum` of strings | an enum definition, one variant per value (the JSON value kept) |
//! | object with `properties` | a struct definition; properties not `required` are optional |
//! | object with only `additionalProperties: {schema}` | [`Ty::Map`] (ordered by key) |
//! | other objects (AGS `object`, `json`) | [`Ty::Object`] |
//! | array with `items` | [`Ty::Vec`] (AGS `file_set`: of `String`) |
//! | `type: [T, "null"]`, a `null` branch of `oneOf`/`anyOf`, an optional port | [`Ty::Option`] |
//! | `$ref` to `#/...` | the named type of its target; a reference back into a type being defined is [`Ty::Boxed`] (not inside lists or maps, which hold their values apart already) |
//! | `oneOf`/`anyOf` of objects with one `const` string property telling them apart | an internally tagged enum |
//! | `oneOf`/`anyOf` whose branches are of distinct JSON kinds | an untagged enum |
//! | anything else (`allOf`, `not`, external `$ref`s, ambiguous unions) | [`Ty::Value`] (any JSON) |
//!
//! Depth is bounded ([`MAX_DEPTH`]): a deeper schema, or a chain of references that never
//! reaches a named type, becomes [`Ty::Value`] instead of recursing further.

use super::naming::{Lexicon, Namer};
use agc_runtime::plan::Declared;
use serde_json::{Map, Value};
use std::collections::HashMap;

/// Deepest schema nesting mapped to a type; deeper parts are [`Ty::Value`].
pub const MAX_DEPTH: u32 = 48;

/// A type expression, in no language.
#[derive(Clone, Debug, PartialEq)]
pub enum Ty {
    String,
    /// A 64-bit integer.
    I64,
    /// A 64-bit float.
    F64,
    Bool,
    /// Any JSON value.
    Value,
    /// Any JSON object.
    Object,
    /// A list.
    Vec(Box<Ty>),
    /// A map from strings, ordered by key.
    Map(Box<Ty>),
    /// A value that may be absent or null.
    Option(Box<Ty>),
    /// A reference back into a definition being built (a language with inline values must
    /// put it behind a pointer).
    Boxed(Box<Ty>),
    /// A definition of the [`TypeSpace`], by index.
    Named(usize),
}

impl Ty {
    fn optional(self) -> Ty {
        match self {
            Ty::Option(_) => self,
            t => Ty::Option(Box::new(t)),
        }
    }

    /// Whether the type mentions a map (a module imports the map type only then).
    pub fn uses_map(&self) -> bool {
        match self {
            Ty::Map(_) => true,
            Ty::Vec(t) | Ty::Option(t) | Ty::Boxed(t) => t.uses_map(),
            _ => false,
        }
    }

    /// Whether values of the type can be compared with `Eq` (no floats, no JSON values).
    fn is_eq(&self, space: &TypeSpace) -> bool {
        match self {
            Ty::F64 | Ty::Value | Ty::Object => false,
            Ty::Vec(t) | Ty::Map(t) | Ty::Option(t) | Ty::Boxed(t) => t.is_eq(space),
            Ty::Named(i) => space.defs[*i].is_unit_enum(),
            _ => true,
        }
    }
}

/// A named definition.
#[derive(Clone, Debug)]
pub struct TypeDef {
    pub name: String,
    /// Doc comment lines (already escaped).
    pub doc: Vec<String>,
    pub kind: DefKind,
}

impl TypeDef {
    pub fn is_unit_enum(&self) -> bool {
        matches!(self.kind, DefKind::Enum { .. })
    }
}

#[derive(Clone, Debug)]
pub enum DefKind {
    Struct {
        fields: Vec<Field>,
    },
    /// A string enum: unit variants.
    Enum {
        variants: Vec<Variant>,
    },
    /// An internally tagged enum: `tag` names the property; each variant holds a struct.
    Tagged {
        tag: String,
        variants: Vec<(Variant, Ty)>,
    },
    /// An untagged enum of distinct JSON kinds.
    Untagged {
        variants: Vec<(String, Ty)>,
    },
}

#[derive(Clone, Debug)]
pub struct Field {
    /// The identifier, as the lexicon spelt it (Rust: may be `r#kw`).
    pub ident: String,
    /// The JSON name.
    pub json: String,
    pub ty: Ty,
    /// Not required: `Option`, skipped when `None`.
    pub optional: bool,
    pub doc: Vec<String>,
}

#[derive(Clone, Debug)]
pub struct Variant {
    pub ident: String,
    /// The JSON value (string) the variant stands for.
    pub json: String,
    pub doc: Vec<String>,
}

/// All named types of one generated crate, in definition order.
pub struct TypeSpace {
    pub defs: Vec<TypeDef>,
    /// How the target language spells names and docs.
    lex: &'static dyn Lexicon,
    namer: Namer,
    /// `$ref` targets already defined, by their JSON text.
    refs: HashMap<String, usize>,
    /// Definitions whose body is being built (a reference to one is recursive).
    building: Vec<bool>,
}

/// Where a type appears: directly in a struct or enum (a recursive reference must be boxed),
/// or inside a `Vec`/map (already on the heap).
#[derive(Clone, Copy)]
struct Pos {
    depth: u32,
    direct: bool,
}

impl Pos {
    fn deeper(self, direct: bool) -> Pos {
        Pos {
            depth: self.depth + 1,
            direct,
        }
    }
}

impl TypeSpace {
    /// An empty space whose names `lex` spells.
    pub fn new(lex: &'static dyn Lexicon) -> TypeSpace {
        TypeSpace {
            defs: Vec::new(),
            lex,
            namer: Namer::new(lex),
            refs: HashMap::new(),
            building: Vec::new(),
        }
    }

    /// The doc lines of a schema: its `description`, else its `title`.
    fn doc_of(&self, obj: &Map<String, Value>) -> Vec<String> {
        obj.get("description")
            .or_else(|| obj.get("title"))
            .and_then(Value::as_str)
            .map(|d| self.lex.doc_lines(d))
            .unwrap_or_default()
    }

    /// Reserves a type name (for types the templates define themselves).
    pub fn reserve(&mut self, name: &str) -> String {
        self.namer.type_name(name)
    }

    /// Adds a struct definition with the given fields (the params, inputs and outputs structs).
    pub fn add_struct(&mut self, name: String, doc: Vec<String>, fields: Vec<Field>) -> usize {
        self.defs.push(TypeDef {
            name,
            doc,
            kind: DefKind::Struct { fields },
        });
        self.building.push(false);
        self.defs.len() - 1
    }

    /// Adds a string enum named after `hint` with one variant per `(value, description)`.
    pub fn add_enum(&mut self, hint: &str, doc: Vec<String>, values: &[(String, String)]) -> Ty {
        let name = self.namer.type_name(hint);
        let mut vn = Namer::new(self.lex);
        let variants = values
            .iter()
            .map(|(v, d)| Variant {
                ident: vn.variant(v),
                json: v.clone(),
                doc: self.lex.doc_lines(d),
            })
            .collect();
        Ty::Named(self.push(name, doc, DefKind::Enum { variants }))
    }

    fn push(&mut self, name: String, doc: Vec<String>, kind: DefKind) -> usize {
        self.defs.push(TypeDef { name, doc, kind });
        self.building.push(false);
        self.defs.len() - 1
    }

    /// Whether a derive of `Eq` is valid for the definition.
    pub fn def_is_eq(&self, i: usize) -> bool {
        match &self.defs[i].kind {
            DefKind::Struct { fields } => fields.iter().all(|f| f.ty.is_eq(self)),
            DefKind::Enum { .. } => true,
            DefKind::Tagged { variants, .. } => variants.iter().all(|(_, t)| t.is_eq(self)),
            DefKind::Untagged { variants } => variants.iter().all(|(_, t)| t.is_eq(self)),
        }
    }

    /// The type of a declared port or param: its JSON `schema` when that maps to something
    /// better than `Value`, else its `enum`, else its `value_type` name.
    pub fn port(&mut self, hint: &str, value_type: &str, decl: &Declared) -> Ty {
        if let Some(schema) = &decl.schema {
            let t = self.schema(
                schema,
                schema,
                hint,
                Pos {
                    depth: 0,
                    direct: true,
                },
            );
            if t != Ty::Value {
                return t;
            }
        }
        if let Some(vals) = &decl.enum_values {
            let t = self.enumeration(vals, hint, Vec::new());
            if t != Ty::Value {
                return t;
            }
        }
        value_type_of(value_type)
    }

    fn schema(&mut self, root: &Value, s: &Value, hint: &str, pos: Pos) -> Ty {
        if pos.depth > MAX_DEPTH {
            return Ty::Value;
        }
        let Some(obj) = s.as_object() else {
            return Ty::Value;
        };
        if let Some(r) = obj.get("$ref").and_then(Value::as_str) {
            return self.reference(root, r, hint, pos);
        }
        if let Some(vals) = obj.get("enum").and_then(Value::as_array) {
            return self.enumeration(vals, hint, self.doc_of(obj));
        }
        if let Some(c) = obj.get("const") {
            return match c {
                Value::String(_) => Ty::String,
                Value::Bool(_) => Ty::Bool,
                Value::Number(n) if n.is_i64() => Ty::I64,
                Value::Number(_) => Ty::F64,
                _ => Ty::Value,
            };
        }
        for key in ["oneOf", "anyOf"] {
            if let Some(vs) = obj.get(key).and_then(Value::as_array) {
                return self.union(root, vs, hint, obj, pos);
            }
        }
        if let Some([only]) = obj
            .get("allOf")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
        {
            return self.schema(root, only, hint, pos.deeper(pos.direct));
        }
        match obj.get("type") {
            Some(Value::String(t)) => self.typed(root, obj, t, hint, pos),
            Some(Value::Array(ts)) => {
                let kinds: Vec<&str> = ts.iter().filter_map(Value::as_str).collect();
                let non_null: Vec<&str> = kinds.iter().copied().filter(|k| *k != "null").collect();
                let inner = match non_null.as_slice() {
                    [] => return Ty::Value,
                    [one] => self.typed(root, obj, one, hint, pos),
                    many => {
                        let mut kinds: Vec<&str> = many.to_vec();
                        kinds.sort_by_key(|k| KIND_ORDER.iter().position(|o| o == k));
                        kinds.dedup();
                        let idx = self.begin_untagged(hint, self.doc_of(obj));
                        let mut vs = Vec::new();
                        for k in kinds {
                            let t = self.typed(root, obj, k, &format!("{hint} {k}"), pos);
                            vs.push((self.lex.variant(k), t));
                        }
                        self.finish(idx, DefKind::Untagged { variants: vs })
                    }
                };
                if non_null.len() < kinds.len() && inner != Ty::Value {
                    inner.optional()
                } else {
                    inner
                }
            }
            _ if obj.contains_key("properties") => self.typed(root, obj, "object", hint, pos),
            _ if obj.contains_key("items") => self.typed(root, obj, "array", hint, pos),
            _ => Ty::Value,
        }
    }

    fn typed(
        &mut self,
        root: &Value,
        obj: &Map<String, Value>,
        t: &str,
        hint: &str,
        pos: Pos,
    ) -> Ty {
        match t {
            "string" => Ty::String,
            "integer" => Ty::I64,
            "number" => Ty::F64,
            "boolean" => Ty::Bool,
            "array" => match obj.get("items") {
                Some(items) if items.is_object() => {
                    let t = self.schema(root, items, &format!("{hint} item"), pos.deeper(false));
                    Ty::Vec(Box::new(t))
                }
                _ => Ty::Vec(Box::new(Ty::Value)),
            },
            "object" => self.object(root, obj, hint, pos),
            _ => Ty::Value,
        }
    }

    fn object(&mut self, root: &Value, obj: &Map<String, Value>, hint: &str, pos: Pos) -> Ty {
        let props = obj.get("properties").and_then(Value::as_object);
        if let Some(props) = props.filter(|p| !p.is_empty()) {
            let name = self.namer.type_name(hint);
            let idx = self.push(
                name,
                self.doc_of(obj),
                DefKind::Struct { fields: Vec::new() },
            );
            self.building[idx] = true;
            let fields = self.fields(root, obj, props, None, pos);
            self.building[idx] = false;
            self.defs[idx].kind = DefKind::Struct { fields };
            return Ty::Named(idx);
        }
        match obj.get("additionalProperties") {
            Some(ap) if ap.is_object() => {
                let t = self.schema(root, ap, &format!("{hint} value"), pos.deeper(false));
                Ty::Map(Box::new(t))
            }
            _ => Ty::Object,
        }
    }

    /// The fields of an object schema, skipping the property `skip` (a union's tag).
    fn fields(
        &mut self,
        root: &Value,
        obj: &Map<String, Value>,
        props: &Map<String, Value>,
        skip: Option<&str>,
        pos: Pos,
    ) -> Vec<Field> {
        let owner_name = self.defs[self.defs.len() - 1].name.clone();
        let required: Vec<&str> = obj
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut fnamer = Namer::new(self.lex);
        let mut fields = Vec::new();
        for (pname, pschema) in props {
            if Some(pname.as_str()) == skip {
                continue;
            }
            let hint = format!("{owner_name} {pname}");
            let ty = self.schema(root, pschema, &hint, pos.deeper(true));
            let optional = !required.contains(&pname.as_str());
            let doc = pschema
                .as_object()
                .map(|o| self.doc_of(o))
                .unwrap_or_default();
            fields.push(Field {
                ident: fnamer.member(pname),
                json: pname.clone(),
                ty: if optional { ty.optional() } else { ty },
                optional,
                doc,
            });
        }
        fields
    }

    fn reference(&mut self, root: &Value, r: &str, hint: &str, pos: Pos) -> Ty {
        let Some(ptr) = r.strip_prefix('#') else {
            return Ty::Value;
        };
        let Some(target) = root.pointer(ptr) else {
            return Ty::Value;
        };
        // A target that becomes a definition of its own, pushed first (so at index `before`
        // below): a local object struct, a string enum, a union of two or more branches.
        let nameable = target.as_object().is_some_and(|o| {
            let branches = |k: &str| {
                o.get(k)
                    .and_then(Value::as_array)
                    .is_some_and(|vs| vs.iter().filter(|v| !is_null_schema(v)).count() >= 2)
            };
            let props = o.get("properties").and_then(Value::as_object);
            !o.contains_key("$ref")
                && (props.is_some_and(|p| !p.is_empty())
                    || o.contains_key("enum")
                    || branches("oneOf")
                    || branches("anyOf"))
        });
        if !nameable {
            return self.schema(root, target, hint, pos.deeper(pos.direct));
        }
        let key = serde_json::to_string(target).unwrap_or_default();
        if let Some(&idx) = self.refs.get(&key) {
            return if self.building[idx] && pos.direct {
                Ty::Boxed(Box::new(Ty::Named(idx)))
            } else {
                Ty::Named(idx)
            };
        }
        let last = ptr
            .rsplit('/')
            .next()
            .filter(|s| !s.is_empty())
            .unwrap_or(hint);
        let last = last.replace("~1", "/").replace("~0", "~");
        let before = self.defs.len();
        // The definition's index is known before its body is built: register it first, so
        // that a reference back to it from inside is recognised as recursive.
        self.refs.insert(key.clone(), before);
        let t = self.schema(root, target, &last, pos.deeper(pos.direct));
        match t {
            Ty::Named(idx) if idx == before => t,
            other => {
                // The target did not become a definition of its own (e.g. mapped to Value).
                self.refs.remove(&key);
                other
            }
        }
    }

    fn enumeration(&mut self, vals: &[Value], hint: &str, doc: Vec<String>) -> Ty {
        let nullable = vals.iter().any(Value::is_null);
        let rest: Vec<&Value> = vals.iter().filter(|v| !v.is_null()).collect();
        let t = if rest.is_empty() {
            Ty::Value
        } else if rest.iter().all(|v| v.is_string()) {
            let mut seen = std::collections::HashSet::new();
            let values: Vec<(String, String)> = rest
                .iter()
                .filter_map(|v| v.as_str())
                .filter(|s| seen.insert(*s))
                .map(|s| (s.to_string(), String::new()))
                .collect();
            self.add_enum(hint, doc, &values)
        } else if rest.iter().all(|v| v.is_i64()) {
            Ty::I64
        } else if rest.iter().all(|v| v.is_number()) {
            Ty::F64
        } else if rest.iter().all(|v| v.is_boolean()) {
            Ty::Bool
        } else {
            Ty::Value
        };
        if nullable && t != Ty::Value {
            t.optional()
        } else {
            t
        }
    }

    fn union(
        &mut self,
        root: &Value,
        vs: &[Value],
        hint: &str,
        obj: &Map<String, Value>,
        pos: Pos,
    ) -> Ty {
        let (nulls, rest): (Vec<&Value>, Vec<&Value>) = vs.iter().partition(|v| is_null_schema(v));
        let inner = match rest.as_slice() {
            [] => Ty::Value,
            [one] => self.schema(root, one, hint, pos.deeper(pos.direct)),
            many => {
                let resolved: Vec<&Value> = many.iter().map(|v| resolve(root, v)).collect();
                if let Some(t) = self.tagged(root, &resolved, hint, obj, pos) {
                    t
                } else {
                    let mut kinds: Vec<(&'static str, &Value)> = Vec::new();
                    for (v, orig) in resolved.iter().zip(many) {
                        match kind_of(v) {
                            Some(k) if !kinds.iter().any(|(seen, _)| *seen == k) => {
                                kinds.push((k, orig));
                            }
                            _ => return Ty::Value,
                        }
                    }
                    kinds.sort_by_key(|(k, _)| KIND_ORDER.iter().position(|o| o == k));
                    let idx = self.begin_untagged(hint, self.doc_of(obj));
                    let mut vs = Vec::new();
                    for (k, v) in kinds {
                        let t = self.schema(root, v, &format!("{hint} {k}"), pos.deeper(true));
                        vs.push((self.lex.variant(k), t));
                    }
                    self.finish(idx, DefKind::Untagged { variants: vs })
                }
            }
        };
        if !nulls.is_empty() && inner != Ty::Value {
            inner.optional()
        } else {
            inner
        }
    }

    /// An internally tagged enum, when every branch is an object with one common property
    /// whose `const` (or single-value `enum`) string differs between branches.
    fn tagged(
        &mut self,
        root: &Value,
        branches: &[&Value],
        hint: &str,
        obj: &Map<String, Value>,
        pos: Pos,
    ) -> Option<Ty> {
        let props: Vec<&Map<String, Value>> = branches
            .iter()
            .map(|b| b.get("properties").and_then(Value::as_object))
            .collect::<Option<_>>()?;
        let tag = props[0].keys().find(|k| {
            let mut seen = std::collections::HashSet::new();
            props.iter().all(|p| {
                p.get(*k)
                    .and_then(const_string)
                    .is_some_and(|v| seen.insert(v))
            })
        })?;
        let name = self.namer.type_name(hint);
        let idx = self.push(
            name.clone(),
            self.doc_of(obj),
            DefKind::Tagged {
                tag: tag.clone(),
                variants: Vec::new(),
            },
        );
        self.building[idx] = true;
        let mut vn = Namer::new(self.lex);
        let mut variants = Vec::new();
        for (b, p) in branches.iter().zip(&props) {
            let value = p
                .get(tag)
                .and_then(const_string)
                .unwrap_or_default()
                .to_string();
            let ident = vn.variant(&value);
            let bobj = b.as_object().cloned().unwrap_or_default();
            let sname = self.namer.type_name(&format!("{name} {ident}"));
            let sidx = self.push(
                sname,
                self.doc_of(&bobj),
                DefKind::Struct { fields: Vec::new() },
            );
            self.building[sidx] = true;
            let fields = self.fields(root, &bobj, p, Some(tag), pos.deeper(true));
            self.building[sidx] = false;
            self.defs[sidx].kind = DefKind::Struct { fields };
            variants.push((
                Variant {
                    ident,
                    json: value,
                    doc: Vec::new(),
                },
                Ty::Named(sidx),
            ));
        }
        self.building[idx] = false;
        self.defs[idx].kind = DefKind::Tagged {
            tag: tag.clone(),
            variants,
        };
        Some(Ty::Named(idx))
    }

    /// Reserves an untagged enum's definition before its variants are built (so that a
    /// reference back to it is seen as recursive).
    fn begin_untagged(&mut self, hint: &str, doc: Vec<String>) -> usize {
        let name = self.namer.type_name(hint);
        let idx = self.push(
            name,
            doc,
            DefKind::Untagged {
                variants: Vec::new(),
            },
        );
        self.building[idx] = true;
        idx
    }

    fn finish(&mut self, idx: usize, kind: DefKind) -> Ty {
        self.building[idx] = false;
        self.defs[idx].kind = kind;
        Ty::Named(idx)
    }
}

/// Untagged variants are tried in this order (an integer also parses as a number).
const KIND_ORDER: &[&str] = &["boolean", "integer", "number", "string", "array", "object"];

/// A `value_type` name (AGS and the other dialects' type names) as a type.
pub fn value_type_of(name: &str) -> Ty {
    match name {
        "string" | "text" | "markdown" | "file" | "directory" | "reference" | "uri" => Ty::String,
        "integer" | "int" => Ty::I64,
        "number" | "float" | "double" => Ty::F64,
        "boolean" | "bool" => Ty::Bool,
        "array" | "list" => Ty::Vec(Box::new(Ty::Value)),
        "file_set" => Ty::Vec(Box::new(Ty::String)),
        "object" | "json" | "map" => Ty::Object,
        _ => Ty::Value,
    }
}

fn is_null_schema(v: &Value) -> bool {
    v.get("type").and_then(Value::as_str) == Some("null")
        || v.get("const").is_some_and(Value::is_null)
}

/// A branch with one top-level local `$ref` followed (once).
fn resolve<'a>(root: &'a Value, v: &'a Value) -> &'a Value {
    v.get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix('#'))
        .and_then(|p| root.pointer(p))
        .unwrap_or(v)
}

fn const_string(v: &Value) -> Option<&str> {
    if let Some(s) = v.get("const").and_then(Value::as_str) {
        return Some(s);
    }
    match v.get("enum").and_then(Value::as_array).map(Vec::as_slice) {
        Some([one]) => one.as_str(),
        _ => None,
    }
}

/// The one JSON kind a branch accepts, when that is evident.
fn kind_of(v: &Value) -> Option<&'static str> {
    let o = v.as_object()?;
    if let Some(t) = o.get("type").and_then(Value::as_str) {
        return KIND_ORDER.iter().find(|k| **k == t).copied();
    }
    if o.contains_key("properties") {
        return Some("object");
    }
    if o.contains_key("items") {
        return Some("array");
    }
    match o.get("enum").and_then(Value::as_array) {
        Some(vs) if !vs.is_empty() && vs.iter().all(Value::is_string) => Some("string"),
        _ => None,
    }
}
