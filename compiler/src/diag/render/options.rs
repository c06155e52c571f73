//! [`Options`]: how every renderer is asked to render.

/// Rendering options.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    /// Use ANSI colours (human format only; the other formats never colour).
    pub color: bool,
}
