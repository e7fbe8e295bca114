//! The pieces of a LETOR line: whitespace-separated tokens, grades, indices, values (a
//! correctly rounded fast `f32` parser), query ids in comments, document ids, and the line
//! ends and ids that whitespace-separated formats can carry.

use ltr_core::Grade;

use crate::error::ParseErrorKind;
use crate::options::LineFormat;

/// The grade of a label token under `format`, and whether it was a real number made a grade
/// (with its value). `Err`: the error kind for the token.
#[inline]
pub fn grade_of(tok: &[u8], format: LineFormat) -> Result<(Grade, Option<f64>), ParseErrorKind> {
    if let Some(g) = parse_grade(tok) {
        return Ok((g, None));
    }
    let real = std::str::from_utf8(tok)
        .ok()
        .filter(|s| is_decimal(s.as_bytes()))
        .and_then(|s| s.parse::<f64>().ok())
        .filter(|v| v.is_finite() && *v >= 0.0);
    match (real, format.fractional_labels) {
        (Some(v), Some(rule)) => match rule.grade(v) {
            Some(g) if f64::from(g) == v => Ok((g, None)),
            Some(g) => Ok((g, Some(v))),
            None => Err(ParseErrorKind::Label),
        },
        (Some(v), None) if v.fract() != 0.0 && v <= f64::from(Grade::MAX) => {
            Err(ParseErrorKind::FractionalLabel)
        }
        _ => Err(ParseErrorKind::Label),
    }
}

/// The UTF-8 byte-order mark, skipped at the start of feature and score files.
pub const BOM: &[u8] = b"\xEF\xBB\xBF";

/// A line without its line end (a final CR) and, on the first line, without a byte-order
/// mark.
#[inline]
pub(crate) fn line_content(raw: &[u8], first: bool) -> &[u8] {
    let line = raw.strip_suffix(b"\r").unwrap_or(raw);
    if first { line.strip_prefix(BOM).unwrap_or(line) } else { line }
}

/// The first character of an id that whitespace-separated formats cannot carry: a control
/// character (C0, DEL, C1: NUL, vertical tab, form feed, ...) or Unicode whitespace (which
/// Python's `split()` breaks on, as trec_eval does on the ASCII ones). Ids come from tokens
/// already split on space and tab, so these are the only characters left that could split them.
pub fn id_flaw(id: &str) -> Option<char> {
    id.chars().find(|c| c.is_control() || c.is_whitespace())
}

/// Whitespace-separated tokens (space or tab).
pub(crate) struct Tokens<'a> {
    pub(crate) s: &'a [u8],
    pub(crate) i: usize,
}

impl<'a> Iterator for Tokens<'a> {
    type Item = &'a [u8];
    #[inline]
    fn next(&mut self) -> Option<&'a [u8]> {
        let s = self.s;
        let mut i = self.i;
        while i < s.len() && (s[i] == b' ' || s[i] == b'\t') {
            i += 1;
        }
        if i == s.len() {
            self.i = i;
            return None;
        }
        let start = i;
        while i < s.len() && s[i] != b' ' && s[i] != b'\t' {
            i += 1;
        }
        self.i = i;
        Some(&s[start..i])
    }
}

/// The query id a comment holds when [`LineFormat::qid_in_comment`]: the comment's one
/// token (`# 3382`); `None` for an empty comment or one of several tokens.
pub fn comment_qid(comment: Option<&[u8]>) -> Option<&[u8]> {
    let mut tokens = Tokens { s: comment?, i: 0 };
    let qid = tokens.next()?;
    tokens.next().is_none().then_some(qid)
}

/// `docid = X` inside a comment.
pub(crate) fn doc_id_of(comment: &[u8]) -> Option<&[u8]> {
    let p = comment.windows(5).position(|w| w == b"docid")?;
    let rest = &comment[p + 5..];
    let rest = trim_start(rest);
    let rest = trim_start(rest.strip_prefix(b"=")?);
    let end = rest.iter().position(|&b| b == b' ' || b == b'\t').unwrap_or(rest.len());
    (end > 0).then(|| &rest[..end])
}

fn trim_start(s: &[u8]) -> &[u8] {
    let k = s.iter().position(|&b| b != b' ' && b != b'\t').unwrap_or(s.len());
    &s[k..]
}

pub(crate) fn show_token(tok: &[u8]) -> String {
    let s = String::from_utf8_lossy(tok);
    let mut out: String = s.chars().take(40).flat_map(char::escape_debug).collect();
    if s.chars().count() > 40 {
        out.push('…');
    }
    out
}

#[inline]
fn parse_grade(tok: &[u8]) -> Option<Grade> {
    if tok.is_empty() || tok.len() > 3 || !tok.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let v = tok.iter().fold(0u32, |acc, &b| acc * 10 + u32::from(b - b'0'));
    Grade::try_from(v).ok()
}

#[inline]
pub(crate) fn parse_index(tok: &[u8]) -> Option<usize> {
    if tok.is_empty() || tok.len() > 9 || !tok.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(tok.iter().fold(0usize, |acc, &b| acc * 10 + usize::from(b - b'0')))
}

const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18,
    1e19, 1e20, 1e21, 1e22,
];

/// Parses a decimal `f32`, correctly rounded (the same value as `str::parse::<f32>`).
///
/// Fast path (Clinger): at most 19 significant digits, a mantissa below 2^53 and a decimal
/// exponent within +-22 give an exactly rounded `f64`; rounding that to `f32` is exact unless
/// the `f64` lies on an `f32` rounding midpoint, which falls back to the standard parser.
#[inline]
pub(crate) fn parse_f32(tok: &[u8]) -> Option<f32> {
    let (neg, digits) = match tok.first()? {
        b'-' => (true, &tok[1..]),
        b'+' => (false, &tok[1..]),
        _ => (false, tok),
    };
    let mut i = 0;
    let mut mant: u64 = 0;
    let mut sig = 0u32;
    let mut exp10: i32 = 0;
    let mut any_digit = false;
    while i < digits.len() && digits[i].is_ascii_digit() {
        any_digit = true;
        if sig < 19 {
            mant = mant * 10 + u64::from(digits[i] - b'0');
            if mant != 0 {
                sig += 1;
            }
        } else {
            return slow_f32(tok);
        }
        i += 1;
    }
    if i < digits.len() && digits[i] == b'.' {
        i += 1;
        while i < digits.len() && digits[i].is_ascii_digit() {
            any_digit = true;
            if sig < 19 {
                mant = mant * 10 + u64::from(digits[i] - b'0');
                if mant != 0 {
                    sig += 1;
                }
                exp10 -= 1;
            } else {
                return slow_f32(tok);
            }
            i += 1;
        }
    }
    if !any_digit {
        return slow_f32(tok); // "inf", "NaN", garbage
    }
    if i < digits.len() {
        if digits[i] != b'e' && digits[i] != b'E' {
            return None;
        }
        return slow_f32(tok);
    }
    if mant == 0 {
        return Some(if neg { -0.0 } else { 0.0 });
    }
    if mant > (1u64 << 53) || !(-22..=22).contains(&exp10) {
        return slow_f32(tok);
    }
    let v =
        if exp10 < 0 { mant as f64 / POW10[(-exp10) as usize] } else { mant as f64 * POW10[exp10 as usize] };
    // An f64 exactly halfway between two f32s would be rounded twice: defer to std.
    if v.to_bits() & 0x1FFF_FFFF == 0x1000_0000 {
        return slow_f32(tok);
    }
    let f = v as f32;
    Some(if neg { -f } else { f })
}

/// Whether a value token is written as a decimal number (digits, sign, point, exponent),
/// not as `inf` or `nan`.
pub(crate) fn is_decimal(tok: &[u8]) -> bool {
    tok.iter().any(u8::is_ascii_digit)
        && tok.iter().all(|b| b.is_ascii_digit() || matches!(b, b'+' | b'-' | b'.' | b'e' | b'E'))
}

#[cold]
fn slow_f32(tok: &[u8]) -> Option<f32> {
    std::str::from_utf8(tok).ok()?.parse::<f32>().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_parsing_matches_std() {
        let cases = [
            "0",
            "1",
            "-1",
            "0.5",
            "1.000000",
            "0.941842",
            "37.330565",
            "-36.717226",
            "158.072",
            "1e-3",
            "1E5",
            "-0.0",
            ".5",
            "5.",
            "123456789012345678901234",
            "0.000000000000000000000000001",
            "3.4028235e38",
            "1.17549435e-38",
            "16777217",
            "0.1",
            "2.5",
            "9007199254740993",
            "33554431.5",
        ];
        for c in cases {
            assert_eq!(
                parse_f32(c.as_bytes()).map(f32::to_bits),
                c.parse::<f32>().ok().map(f32::to_bits),
                "{c}"
            );
        }
        for c in ["", "-", "+", ".", "1.2.3", "1x", "0x10", "1e", "--1"] {
            assert_eq!(parse_f32(c.as_bytes()).is_some(), c.parse::<f32>().is_ok(), "{c:?}");
        }
    }

    #[test]
    fn float_parsing_matches_std_on_many_decimals() {
        let mut r = ltr_core::Rng::new(3);
        for _ in 0..200_000 {
            let digits = 1 + r.index(12);
            let mant = r.below(10u64.pow(digits as u32));
            let scale = r.index(digits + 3);
            let s = format!("{mant}");
            let s = if scale == 0 || scale >= s.len() {
                format!("0.{:0>width$}", s, width = scale.max(1))
            } else {
                format!("{}.{}", &s[..s.len() - scale], &s[s.len() - scale..])
            };
            assert_eq!(
                parse_f32(s.as_bytes()).map(f32::to_bits),
                s.parse::<f32>().ok().map(f32::to_bits),
                "{s}"
            );
        }
    }
}
