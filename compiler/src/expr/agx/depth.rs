//! The nesting guard, run on the token list before the parser.
//!
//! The chumsky parser recurses through every precedence level at each bracket, and every later
//! pass (checker, lowering, printer, type checker, evaluator) recurses over the tree. So the
//! depth is bounded *before* anything recursive runs, by one linear scan over the tokens:
//!
//! - **Nesting** (parser recursion): open brackets plus the prefix operators stacked in front of
//!   an operand, summed over the open brackets. More than [`MAX_NESTING`] is AGC040, reported
//!   at the token that goes one level too deep. 10,000 `(` or 10,000 `!` stop at the 65th.
//! - **Tree depth** (recursion of later passes): a conservative bound on the depth of the syntax
//!   tree. Within one bracket level (between commas) a tree has at most one level per operator
//!   (binary, prefix, `.`, or an opening bracket) plus one, plus the depth of the deepest
//!   bracketed part. More than [`MAX_TREE_DEPTH`] is AGC040 too, so a chain of 10,000 `+`
//!   never becomes a 10,000-deep tree.

use super::error::Error;
use super::token::Token;
use crate::expr::Local;

/// Most brackets and stacked prefix operators an expression may nest (64 is fine, 65 is not).
pub const MAX_NESTING: usize = 64;
/// Bound on the depth of the syntax tree.
pub const MAX_TREE_DEPTH: usize = 256;

#[derive(Default)]
struct Frame {
    /// Prefix operators stacked since the last binary operator or comma.
    prefix: usize,
    /// Operators at this level since the last comma.
    ops: usize,
    /// Deepest bracketed part closed in this comma segment.
    child: usize,
    /// Deepest finished comma segment.
    done: usize,
}

impl Frame {
    fn depth(&self) -> usize {
        self.done.max(self.ops + 1 + self.child)
    }
}

/// Checks the token list; `Err` holds the one AGC040 to report.
pub fn check(tokens: &[(Token<'_>, Local)]) -> Result<(), Error> {
    let mut stack = vec![Frame::default()];
    // Sums over the frames below the top, kept incrementally.
    let mut nest_below = 0usize;
    let mut ops_below = 0usize;
    let mut prev: Option<&Token<'_>> = None;
    for (tok, span) in tokens {
        let prefix_pos = prev.is_none_or(Token::wants_operand);
        let nested = stack.len() > 1;
        let top = stack.last_mut().expect("the root frame is never popped");
        match tok {
            Token::LParen | Token::LBracket => {
                top.ops += 1;
                nest_below += 1 + top.prefix;
                ops_below += top.ops + 1;
                stack.push(Frame::default());
            }
            Token::RParen | Token::RBracket if nested => {
                let done = stack.pop().map_or(0, |f| f.depth());
                let parent = stack.last_mut().expect("checked above");
                nest_below -= 1 + parent.prefix;
                ops_below -= parent.ops + 1;
                parent.child = parent.child.max(done);
            }
            Token::Comma => {
                top.done = top.depth();
                top.ops = 0;
                top.child = 0;
                top.prefix = 0;
            }
            Token::Not | Token::Bang => {
                top.prefix += 1;
                top.ops += 1;
            }
            Token::Minus if prefix_pos => {
                top.prefix += 1;
                top.ops += 1;
            }
            Token::Dot => top.ops += 1,
            t if t.is_binary() => {
                top.prefix = 0;
                top.ops += 1;
            }
            _ => {}
        }
        let top = stack.last().expect("the root frame is never popped");
        if nest_below + top.prefix > MAX_NESTING {
            return Err(Error::new(
                "AGC040",
                *span,
                format!("the expression nests more than {MAX_NESTING} levels deep"),
            )
            .label("one level too deep")
            .help("brackets and stacked `!`/`not`/`-` count as levels; simplify the expression"));
        }
        if ops_below + top.depth() > MAX_TREE_DEPTH {
            return Err(Error::new(
                "AGC040",
                *span,
                format!("the expression is too large: its syntax tree would be more than {MAX_TREE_DEPTH} levels deep"),
            )
            .label("the limit is reached here")
            .help("split a long chain of operators across several expressions or outputs"));
        }
        prev = Some(tok);
    }
    Ok(())
}
