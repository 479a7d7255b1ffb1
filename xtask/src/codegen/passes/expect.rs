//! What the YAML says a codegen pass must find.

/// How many sites the YAML says a pass must find.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expect {
    /// Exactly this many.
    Exactly(usize),
    /// At least one.
    Some,
    /// None may be needed (the YAML has nothing for the pass to do).
    Any,
}

impl Expect {
    /// At least one when `needed`, else any.
    pub fn some_if(needed: bool) -> Self {
        if needed {
            Expect::Some
        } else {
            Expect::Any
        }
    }
}
