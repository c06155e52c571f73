//! AGX tokens.
//!
//! Numbers are lexed **unsigned**: `-` is always an operator, so `len(x)-1` and `n -1` are
//! subtractions (the upstream reference lexers glue the minus to the digits and reject both).
//! A `-` written directly before a number literal is folded into the literal by the parser.

use std::fmt;

#[derive(Clone, Debug, PartialEq)]
pub enum Token<'s> {
    /// `[A-Za-z_][A-Za-z0-9_]*` that is not a keyword.
    Ident(&'s str),
    /// Digits without fraction or exponent; `None` when the value does not fit in a `u64`.
    Int(Option<u64>),
    /// Digits with a fraction or an exponent (may be infinite when out of range).
    Float(f64),
    /// A string literal, decoded.
    Str(String),
    True,
    False,
    Null,
    /// `and` (the word; `&&` is [`Token::AndAnd`]).
    And,
    Or,
    Not,
    In,
    OrOr,
    AndAnd,
    EqEq,
    NotEq,
    Lt,
    Le,
    Gt,
    Ge,
    Plus,
    Minus,
    Star,
    Slash,
    Percent,
    Bang,
    LParen,
    RParen,
    LBracket,
    RBracket,
    Comma,
    Dot,
}

impl Token<'_> {
    /// The source text of a fixed token (operators, punctuation, keywords).
    pub fn fixed(&self) -> Option<&'static str> {
        Some(match self {
            Token::True => "true",
            Token::False => "false",
            Token::Null => "null",
            Token::And => "and",
            Token::Or => "or",
            Token::Not => "not",
            Token::In => "in",
            Token::OrOr => "||",
            Token::AndAnd => "&&",
            Token::EqEq => "==",
            Token::NotEq => "!=",
            Token::Lt => "<",
            Token::Le => "<=",
            Token::Gt => ">",
            Token::Ge => ">=",
            Token::Plus => "+",
            Token::Minus => "-",
            Token::Star => "*",
            Token::Slash => "/",
            Token::Percent => "%",
            Token::Bang => "!",
            Token::LParen => "(",
            Token::RParen => ")",
            Token::LBracket => "[",
            Token::RBracket => "]",
            Token::Comma => ",",
            Token::Dot => ".",
            Token::Ident(_) | Token::Int(_) | Token::Float(_) | Token::Str(_) => return None,
        })
    }

    /// A binary operator (including the keyword forms).
    pub fn is_binary(&self) -> bool {
        matches!(
            self,
            Token::And
                | Token::Or
                | Token::In
                | Token::OrOr
                | Token::AndAnd
                | Token::EqEq
                | Token::NotEq
                | Token::Lt
                | Token::Le
                | Token::Gt
                | Token::Ge
                | Token::Plus
                | Token::Minus
                | Token::Star
                | Token::Slash
                | Token::Percent
        )
    }

    /// Can only be followed by an operand: a prefix operator, a binary operator, an opening
    /// bracket or a comma.
    pub fn wants_operand(&self) -> bool {
        self.is_binary()
            || matches!(
                self,
                Token::Not | Token::Bang | Token::LParen | Token::LBracket | Token::Comma
            )
    }

    /// The keyword spelling, for keywords that might have been meant as names.
    pub fn keyword(&self) -> Option<&'static str> {
        match self {
            Token::True
            | Token::False
            | Token::Null
            | Token::And
            | Token::Or
            | Token::Not
            | Token::In => self.fixed(),
            _ => None,
        }
    }
}

impl fmt::Display for Token<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Token::Ident(name) => write!(f, "`{name}`"),
            Token::Int(Some(n)) => write!(f, "`{n}`"),
            Token::Int(None) | Token::Float(_) => f.write_str("a number"),
            Token::Str(_) => f.write_str("a string"),
            other => write!(f, "`{}`", other.fixed().unwrap_or("?")),
        }
    }
}
