//! String forms shared by the games: reading a square written as a column letter and a
//! row number, quoting bad input briefly, and (de)serialising a type through its
//! `Display` and `FromStr`.

/// At most `max` characters of `text`, with `…` when cut (for quoting bad input).
pub fn shorten(text: &str, max: usize) -> String {
    let mut short: String = text.chars().take(max).collect();
    if short.len() < text.len() {
        short.push('…');
    }
    short
}

/// A string that is not a square of a game's board notation.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid square \"{input}\": {reason}; expected {expected}")]
pub struct ParseSquareError {
    /// The offending text (cut short if long).
    pub input: String,
    pub reason: &'static str,
    /// What the game's squares look like, e.g. `a column letter a-h followed by a row 1-8`.
    pub expected: &'static str,
}

impl ParseSquareError {
    pub fn new(text: &str, reason: &'static str, expected: &'static str) -> ParseSquareError {
        ParseSquareError {
            input: shorten(text, 12),
            reason,
            expected,
        }
    }
}

/// Reads `<letter><row>`: one column letter (either case) and a row number 1–99 without
/// leading zeros. Returns the column (0 for `a`) and row (0 for row 1) indices, or why
/// the text is not a square. Whether the square is on a board is the caller's question.
///
/// ```
/// use spelbord_games::text::letter_and_row;
/// assert_eq!(letter_and_row("H8"), Ok((7, 7)));
/// assert_eq!(letter_and_row("c12"), Ok((2, 11)));
/// assert!(letter_and_row("H08").is_err());
/// ```
pub fn letter_and_row(text: &str) -> Result<(u8, u8), &'static str> {
    let bytes = text.as_bytes();
    let (&letter, digits) = bytes.split_first().ok_or("it is empty")?;
    if !letter.is_ascii_alphabetic() {
        return Err("it does not start with a column letter");
    }
    let col = letter.to_ascii_lowercase() - b'a';
    if digits.is_empty() {
        return Err("the row number is missing");
    }
    if !digits.iter().all(u8::is_ascii_digit) {
        return Err("the row is not a number");
    }
    if digits[0] == b'0' {
        return Err("the row must be a number from 1 without leading zeros");
    }
    if digits.len() > 2 {
        return Err("the row is larger than 99");
    }
    let number = digits.iter().fold(0u8, |acc, digit| acc * 10 + (digit - b'0'));
    Ok((col, number - 1))
}

/// Implements `Serialize` (as the `Display` string) and `Deserialize` (through `FromStr`,
/// whose error becomes the message) for a type; `$expecting` completes "expected ...".
macro_rules! serde_as_string {
    ($type:ty, $expecting:expr) => {
        impl serde::Serialize for $type {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.collect_str(self)
            }
        }

        impl<'de> serde::Deserialize<'de> for $type {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<$type, D::Error> {
                struct StrVisitor;

                impl serde::de::Visitor<'_> for StrVisitor {
                    type Value = $type;

                    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                        f.write_str($expecting)
                    }

                    fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<$type, E> {
                        text.parse().map_err(E::custom)
                    }
                }

                deserializer.deserialize_str(StrVisitor)
            }
        }
    };
}

pub(crate) use serde_as_string;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_letter_and_row() {
        assert_eq!(letter_and_row("H8"), Ok((7, 7)));
        assert_eq!(letter_and_row("c12"), Ok((2, 11)));
        assert!(letter_and_row("").is_err());
        assert!(letter_and_row("8H").is_err());
        assert!(letter_and_row("H").is_err());
        assert!(letter_and_row("H0").is_err());
        assert!(letter_and_row("H08").is_err());
        assert!(letter_and_row("H100").is_err());
        assert!(letter_and_row("Hx").is_err());
    }

    #[test]
    fn shortens_long_input() {
        assert_eq!(shorten("abc", 12), "abc");
        assert_eq!(shorten("abcdefghijklmnop", 4), "abcd…");
    }
}
