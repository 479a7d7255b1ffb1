//! A documented `pattern`, compiled by the generator (`cargo xtask codegen`)
//! into the tables of a deterministic automaton over bytes: whether a text
//! holds a match is one pass over its bytes, and the user's build compiles no
//! regex engine. The generator builds the automaton with `regex-automata`
//! from the pattern translated out of ECMA-262 and checks it against
//! `regex-lite` on the patterns of the three documents.
//!
//! This file depends on nothing but `core`: the generator's tests include it
//! to check the tables they emit with the very code that reads them here.

/// What entering a state decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Nothing yet: read the next byte.
    Continue,
    /// The text holds a match, whatever follows.
    Found,
    /// No match can follow, whatever follows.
    Failed,
}

/// A pattern's automaton. Built by generated code only, as a `static`.
#[derive(Debug, PartialEq, Eq)]
pub struct TextPattern {
    /// Each byte's class: bytes of one class move every state alike.
    classes: [u8; 256],
    /// How many classes there are: the length of each state's row of `next`.
    class_count: usize,
    /// `next[state * class_count + class]`: the state after a byte of `class`.
    next: &'static [u8],
    /// What entering each state decides.
    on_entry: &'static [Step],
    /// Whether the text's end completes a match, for each state.
    at_end: &'static [bool],
    start: u8,
}

impl TextPattern {
    /// The automaton whose bytes `ranges` (`(first, last, class)`, inclusive;
    /// bytes in none are class 0) move `start` through `next`. Evaluated when
    /// the generated crate compiles.
    pub const fn new(
        ranges: &[(u8, u8, u8)],
        class_count: usize,
        next: &'static [u8],
        on_entry: &'static [Step],
        at_end: &'static [bool],
        start: u8,
    ) -> Self {
        let mut classes = [0u8; 256];
        let mut range = 0;
        while range < ranges.len() {
            let (first, last, class) = ranges[range];
            let mut byte = first as usize;
            while byte <= last as usize {
                classes[byte] = class;
                byte += 1;
            }
            range += 1;
        }
        Self {
            classes,
            class_count,
            next,
            on_entry,
            at_end,
            start,
        }
    }

    /// Whether `text` holds a match of the pattern (as `Regex::find` is `Some`;
    /// the documents' patterns are anchored, so it is the whole text).
    pub fn is_match(&self, text: &str) -> bool {
        let mut state = usize::from(self.start);
        for &byte in text.as_bytes() {
            match self.on_entry[state] {
                Step::Continue => {}
                Step::Found => return true,
                Step::Failed => return false,
            }
            let class = usize::from(self.classes[usize::from(byte)]);
            state = usize::from(self.next[state * self.class_count + class]);
        }
        match self.on_entry[state] {
            Step::Continue => self.at_end[state],
            Step::Found => true,
            Step::Failed => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `^[a-z]+$` by hand: 0 the start, 1 in the word, 2 failed.
    static WORD: TextPattern = TextPattern::new(
        &[(b'a', b'z', 1)],
        2,
        &[2, 1, 2, 1, 2, 2],
        &[Step::Continue, Step::Continue, Step::Failed],
        &[false, true, false],
        0,
    );

    #[test]
    fn a_text_matches_when_its_end_completes_a_match() {
        assert!(WORD.is_match("abc"));
        assert!(WORD.is_match("z"));
        assert!(!WORD.is_match(""));
        assert!(!WORD.is_match("ab1"));
        assert!(!WORD.is_match("1ab"));
        assert!(!WORD.is_match("ab\u{e9}"));
    }
}
