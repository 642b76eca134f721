//! Tag expressions (DESIGN §9): `and`, `or`, `not` and parentheses over tag
//! names, e.g. `read-only and not (experimental or deprecated)`, in a
//! profile's `tags.expr` and a request's `filter.tagExpr`. `not` binds
//! tighter than `and`, `and` tighter than `or`; the words are lowercase,
//! so a tag may be called `And` but not `and`.

use std::fmt;

/// A parsed tag expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TagExpr {
    Tag(String),
    Not(Box<TagExpr>),
    And(Box<TagExpr>, Box<TagExpr>),
    Or(Box<TagExpr>, Box<TagExpr>),
}

/// Why an expression does not parse, and where: `column` counts
/// characters from 1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TagExprError {
    pub column: usize,
    pub message: String,
}

impl fmt::Display for TagExprError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "column {}: {}", self.column, self.message)
    }
}

impl std::error::Error for TagExprError {}

/// The longest expression taken, in characters: deep enough for any
/// person, shallow enough that parsing cannot exhaust the stack.
const MAX_LEN: usize = 4096;
/// The deepest nesting of parentheses and `not`s.
const MAX_DEPTH: usize = 64;

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Word(String),
    And,
    Or,
    Not,
    Open,
    Close,
}

impl Token {
    fn describe(&self) -> String {
        match self {
            Token::Word(word) => format!("tag {word:?}"),
            Token::And => "\"and\"".into(),
            Token::Or => "\"or\"".into(),
            Token::Not => "\"not\"".into(),
            Token::Open => "\"(\"".into(),
            Token::Close => "\")\"".into(),
        }
    }
}

/// Characters of a tag name: what labels are made of.
fn is_tag_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | ':' | '/' | '@' | '+')
}

/// Tokens with their columns.
fn tokens(text: &str) -> Result<Vec<(usize, Token)>, TagExprError> {
    let chars: Vec<char> = text.chars().collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let column = i + 1;
        if c.is_whitespace() {
            i += 1;
        } else if c == '(' {
            found.push((column, Token::Open));
            i += 1;
        } else if c == ')' {
            found.push((column, Token::Close));
            i += 1;
        } else if is_tag_char(c) {
            let start = i;
            while i < chars.len() && is_tag_char(chars[i]) {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            let token = match word.as_str() {
                "and" => Token::And,
                "or" => Token::Or,
                "not" => Token::Not,
                _ => Token::Word(word),
            };
            found.push((column, token));
        } else {
            return Err(TagExprError {
                column,
                message: format!(
                    "{c:?} cannot be part of a tag expression; use tag names, and, or, not, ( )"
                ),
            });
        }
    }
    Ok(found)
}

struct Parser {
    tokens: Vec<(usize, Token)>,
    at: usize,
    /// Column just past the text, for errors at its end.
    end: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at).map(|(_, t)| t)
    }

    fn column(&self) -> usize {
        self.tokens.get(self.at).map_or(self.end, |(c, _)| *c)
    }

    fn fail<T>(&self, message: String) -> Result<T, TagExprError> {
        Err(TagExprError {
            column: self.column(),
            message,
        })
    }

    fn or(&mut self, depth: usize) -> Result<TagExpr, TagExprError> {
        let mut left = self.and(depth)?;
        while self.peek() == Some(&Token::Or) {
            self.at += 1;
            let right = self.and(depth)?;
            left = TagExpr::Or(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn and(&mut self, depth: usize) -> Result<TagExpr, TagExprError> {
        let mut left = self.unary(depth)?;
        while self.peek() == Some(&Token::And) {
            self.at += 1;
            let right = self.unary(depth)?;
            left = TagExpr::And(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn unary(&mut self, depth: usize) -> Result<TagExpr, TagExprError> {
        if depth > MAX_DEPTH {
            return self.fail(format!("nested deeper than {MAX_DEPTH} levels"));
        }
        let Some(token) = self.peek().cloned() else {
            let after = match self.at.checked_sub(1).and_then(|i| self.tokens.get(i)) {
                Some((_, token)) => format!(" after {}", token.describe()),
                None => String::new(),
            };
            return self.fail(format!(
                "expected a tag name or \"(\"{after}, found the end"
            ));
        };
        match token {
            Token::Word(word) => {
                self.at += 1;
                Ok(TagExpr::Tag(word))
            }
            Token::Not => {
                self.at += 1;
                Ok(TagExpr::Not(Box::new(self.unary(depth + 1)?)))
            }
            Token::Open => {
                let opened = self.column();
                self.at += 1;
                let inner = self.or(depth + 1)?;
                if self.peek() != Some(&Token::Close) {
                    return self.fail(format!(
                        "expected \")\" to close the \"(\" at column {opened}"
                    ));
                }
                self.at += 1;
                Ok(inner)
            }
            other => self.fail(format!(
                "expected a tag name, \"not\" or \"(\", found {}",
                other.describe()
            )),
        }
    }
}

impl TagExpr {
    /// Parses `text`; the error says where and what was expected.
    pub fn parse(text: &str) -> Result<TagExpr, TagExprError> {
        let length = text.chars().count();
        if length > MAX_LEN {
            return Err(TagExprError {
                column: MAX_LEN + 1,
                message: format!("longer than {MAX_LEN} characters"),
            });
        }
        let mut parser = Parser {
            tokens: tokens(text)?,
            at: 0,
            end: length + 1,
        };
        if parser.tokens.is_empty() {
            return parser
                .fail("the expression is empty; write tag names joined by and, or, not".into());
        }
        let expr = parser.or(0)?;
        if let Some(token) = parser.peek() {
            let message = match token {
                Token::Close => "\")\" closes nothing".to_string(),
                other => format!(
                    "expected \"and\", \"or\" or the end, found {}",
                    other.describe()
                ),
            };
            return parser.fail(message);
        }
        Ok(expr)
    }

    /// Whether a primitive whose tags are `has` satisfies the expression.
    pub fn matches(&self, has: &dyn Fn(&str) -> bool) -> bool {
        match self {
            TagExpr::Tag(tag) => has(tag),
            TagExpr::Not(inner) => !inner.matches(has),
            TagExpr::And(a, b) => a.matches(has) && b.matches(has),
            TagExpr::Or(a, b) => a.matches(has) || b.matches(has),
        }
    }

    /// The tag names it mentions, in order, once each.
    pub fn tags(&self) -> Vec<&str> {
        let mut found = Vec::new();
        self.collect(&mut found);
        found
    }

    fn collect<'a>(&'a self, found: &mut Vec<&'a str>) {
        match self {
            TagExpr::Tag(tag) => {
                if !found.contains(&tag.as_str()) {
                    found.push(tag);
                }
            }
            TagExpr::Not(inner) => inner.collect(found),
            TagExpr::And(a, b) | TagExpr::Or(a, b) => {
                a.collect(found);
                b.collect(found);
            }
        }
    }

    fn precedence(&self) -> u8 {
        match self {
            TagExpr::Or(..) => 0,
            TagExpr::And(..) => 1,
            TagExpr::Not(_) | TagExpr::Tag(_) => 2,
        }
    }

    fn write_within(&self, f: &mut fmt::Formatter<'_>, outer: u8) -> fmt::Result {
        if self.precedence() < outer {
            write!(f, "(")?;
            fmt::Display::fmt(self, f)?;
            write!(f, ")")
        } else {
            fmt::Display::fmt(self, f)
        }
    }
}

/// The expression in its plainest form: parentheses only where needed.
impl fmt::Display for TagExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TagExpr::Tag(tag) => f.write_str(tag),
            TagExpr::Not(inner) => {
                f.write_str("not ")?;
                inner.write_within(f, 2)
            }
            TagExpr::And(a, b) => {
                a.write_within(f, 1)?;
                f.write_str(" and ")?;
                b.write_within(f, 2)
            }
            TagExpr::Or(a, b) => {
                a.write_within(f, 0)?;
                f.write_str(" or ")?;
                b.write_within(f, 1)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(text: &str, tags: &[&str]) -> bool {
        TagExpr::parse(text)
            .unwrap_or_else(|e| panic!("{text}: {e}"))
            .matches(&|t| tags.contains(&t))
    }

    #[test]
    fn precedence_is_not_then_and_then_or() {
        assert!(eval("a or b and c", &["a"]));
        assert!(!eval("a and b or c", &["a"]));
        assert!(eval("a and b or c", &["c"]));
        assert!(eval("not a and b", &["b"]));
        assert!(!eval("not (a and b)", &["a", "b"]));
        assert!(eval(
            "read-only and not (experimental or deprecated)",
            &["read-only"]
        ));
        assert!(!eval(
            "read-only and not (experimental or deprecated)",
            &["read-only", "deprecated"]
        ));
        assert!(eval("not not a", &["a"]));
    }

    #[test]
    fn written_back_plainly() {
        for (text, shown) in [
            ("(a and b) or c", "a and b or c"),
            ("a and (b or c)", "a and (b or c)"),
            ("not (a or b)", "not (a or b)"),
            ("((a))", "a"),
            ("a or (b or c)", "a or (b or c)"),
        ] {
            let expr = TagExpr::parse(text).unwrap();
            assert_eq!(expr.to_string(), shown);
            assert_eq!(
                TagExpr::parse(shown).unwrap(),
                expr,
                "{shown} reads back the same"
            );
        }
    }

    #[test]
    fn errors_name_the_column() {
        for (text, column, says) in [
            ("", 1, "empty"),
            ("a and", 6, "after \"and\", found the end"),
            ("a b", 3, "found tag \"b\""),
            ("(a or b", 8, "close the \"(\" at column 1"),
            ("a)", 2, "closes nothing"),
            ("a & b", 3, "'&' cannot be part"),
            ("and a", 1, "found \"and\""),
            ("not", 4, "after \"not\", found the end"),
            ("éé or", 6, "found the end"),
        ] {
            let error = TagExpr::parse(text).unwrap_err();
            assert_eq!(error.column, column, "{text:?}: {error}");
            assert!(error.to_string().contains(says), "{text:?}: {error}");
        }
    }

    #[test]
    fn deep_or_long_input_is_refused_not_followed() {
        let deep = format!("{}a{}", "(".repeat(1000), ")".repeat(1000));
        assert!(
            TagExpr::parse(&deep)
                .unwrap_err()
                .message
                .contains("deeper")
        );
        let nots = format!("{}a", "not ".repeat(200));
        assert!(TagExpr::parse(&nots).is_err());
        let long = "a or ".repeat(1000) + "a";
        assert!(
            TagExpr::parse(&long)
                .unwrap_err()
                .message
                .contains("longer")
        );
    }

    #[test]
    fn mentions_each_tag_once() {
        let expr = TagExpr::parse("a and not (b or a) or c").unwrap();
        assert_eq!(expr.tags(), ["a", "b", "c"]);
    }
}
