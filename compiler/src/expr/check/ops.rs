//! Static operator rules, mirroring the evaluator's (`agc_runtime::expr::eval`) per
//! language. `Err(())` means no values of these types could make the operator work.

use agc_runtime::expr::{BinaryOp, Lang};

use super::Type;

/// The message for operands that cannot work, in the evaluator's wording.
pub(super) fn mismatch_message(lang: Lang, op: BinaryOp, l: &str, r: &str) -> String {
    match lang {
        Lang::Agx => format!("`{}` cannot take {l} and {r}", op.symbol()),
        Lang::Cel => format!("no such overload: {l} {} {r}", op.symbol()),
        Lang::Gotmpl => format!(
            "operator `{}` is not part of the template language",
            op.symbol()
        ),
    }
}

/// `-x`.
pub(super) fn negate(lang: Lang, t: &Type) -> Option<Type> {
    match (lang, t) {
        (_, Type::Dyn) => Some(Type::Dyn),
        (Lang::Agx | Lang::Cel, Type::Int | Type::Double) => Some(t.clone()),
        (Lang::Agx, Type::Uint) => Some(Type::Int),
        (Lang::Cel, Type::Duration) => Some(Type::Duration),
        _ => None,
    }
}

fn is_map(t: &Type) -> bool {
    matches!(t, Type::Map(..) | Type::Object { .. })
}

/// Whether a value of type `t` can be an operand of `op` with some other operand.
fn can_take(lang: Lang, op: BinaryOp, t: &Type) -> bool {
    use BinaryOp as B;
    if t.is_dyn() {
        return true;
    }
    let number = t.is_number();
    match (lang, op) {
        (Lang::Agx, B::Lt | B::Le | B::Gt | B::Ge) => number || *t == Type::String,
        (Lang::Cel, B::Lt | B::Le | B::Gt | B::Ge) => {
            number
                || matches!(
                    t,
                    Type::String | Type::Bytes | Type::Bool | Type::Timestamp | Type::Duration
                )
        }
        (Lang::Agx, B::Add) => number || matches!(t, Type::String | Type::List(_)),
        (Lang::Agx, _) => number,
        (Lang::Cel, B::Add) => {
            number
                || matches!(
                    t,
                    Type::String | Type::Bytes | Type::List(_) | Type::Timestamp | Type::Duration
                )
        }
        (Lang::Cel, B::Sub) => number || matches!(t, Type::Timestamp | Type::Duration),
        (Lang::Cel, B::Rem) => matches!(t, Type::Int | Type::Uint),
        (Lang::Cel, _) => number,
        (Lang::Gotmpl, _) => false,
    }
}

/// The result type of `l op r` (not `&&`/`||`, which the checker handles).
pub(super) fn binary(lang: Lang, op: BinaryOp, l: &Type, r: &Type) -> Result<Type, ()> {
    use BinaryOp as B;
    if lang == Lang::Gotmpl {
        return Err(());
    }
    match op {
        B::Eq | B::Ne => Ok(Type::Bool),
        B::In => match r {
            Type::Dyn | Type::List(_) => Ok(Type::Bool),
            t if is_map(t) => Ok(Type::Bool),
            Type::String if lang == Lang::Agx && matches!(l, Type::String | Type::Dyn) => {
                Ok(Type::Bool)
            }
            _ => Err(()),
        },
        _ if l.is_dyn() || r.is_dyn() => {
            if can_take(lang, op, l) && can_take(lang, op, r) {
                Ok(if matches!(op, B::Lt | B::Le | B::Gt | B::Ge) {
                    Type::Bool
                } else {
                    Type::Dyn
                })
            } else {
                Err(())
            }
        }
        B::Lt | B::Le | B::Gt | B::Ge => {
            let ok = (l.is_number() && r.is_number())
                || (l == r && can_take(lang, op, l) && !l.is_number());
            if ok { Ok(Type::Bool) } else { Err(()) }
        }
        _ => match lang {
            Lang::Agx => agx_arith(op, l, r),
            _ => cel_arith(op, l, r),
        },
    }
}

fn agx_arith(op: BinaryOp, l: &Type, r: &Type) -> Result<Type, ()> {
    match (op, l, r) {
        (BinaryOp::Add, Type::String, Type::String) => Ok(Type::String),
        (BinaryOp::Add, Type::List(a), Type::List(b)) => Ok(Type::list(a.join(b))),
        (BinaryOp::Div, a, b) if a.is_number() && b.is_number() => Ok(Type::Double),
        (_, a, b) if a.is_number() && b.is_number() => {
            let int = |t: &Type| matches!(t, Type::Int | Type::Uint);
            Ok(if int(a) && int(b) {
                Type::Int
            } else {
                Type::Double
            })
        }
        _ => Err(()),
    }
}

fn cel_arith(op: BinaryOp, l: &Type, r: &Type) -> Result<Type, ()> {
    use BinaryOp as B;
    use Type as T;
    match (op, l, r) {
        (B::Rem, T::Double, T::Double) => Err(()),
        (_, T::Int, T::Int) | (_, T::Uint, T::Uint) | (_, T::Double, T::Double) => Ok(l.clone()),
        (B::Add, T::String, T::String) | (B::Add, T::Bytes, T::Bytes) => Ok(l.clone()),
        (B::Add, T::List(a), T::List(b)) => Ok(Type::list(a.join(b))),
        (B::Add, T::Timestamp, T::Duration)
        | (B::Add, T::Duration, T::Timestamp)
        | (B::Sub, T::Timestamp, T::Duration) => Ok(T::Timestamp),
        (B::Sub, T::Timestamp, T::Timestamp) | (B::Add | B::Sub, T::Duration, T::Duration) => {
            Ok(T::Duration)
        }
        _ => Err(()),
    }
}
