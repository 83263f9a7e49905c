//! Numeric literals, read the way Mesa's parser reads them (C's `strtof`,
//! `strtod`, `strtoll(.., 0)`, `strtoull(.., 0)`) but with range checks
//! where Mesa silently wraps.

/// Length of the longest prefix of `s` that C's `strtod` would consume, or
/// 0 if it consumes nothing.
pub(crate) fn float_literal_len(s: &[u8]) -> usize {
    let mut i = 0;
    if matches!(s.first(), Some(b'+' | b'-')) {
        i += 1;
    }
    let rest = &s[i..];
    let starts_with_ci = |word: &[u8]| rest.len() >= word.len() && rest[..word.len()].eq_ignore_ascii_case(word);
    if starts_with_ci(b"infinity") {
        return i + 8;
    }
    if starts_with_ci(b"inf") {
        return i + 3;
    }
    if starts_with_ci(b"nan") {
        let mut j = i + 3;
        // `nan(chars)` is accepted by strtod.
        if s.get(j) == Some(&b'(') {
            let mut k = j + 1;
            while s.get(k).is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_') {
                k += 1;
            }
            if s.get(k) == Some(&b')') {
                j = k + 1;
            }
        }
        return j;
    }
    let hex = rest.len() > 2 && rest[0] == b'0' && (rest[1] | 0x20) == b'x';
    let (digit, exp_char): (fn(u8) -> bool, u8) =
        if hex { (|b: u8| b.is_ascii_hexdigit(), b'p') } else { (|b: u8| b.is_ascii_digit(), b'e') };
    let mut j = if hex { i + 2 } else { i };
    let mantissa_start = j;
    while s.get(j).is_some_and(|&b| digit(b)) {
        j += 1;
    }
    let mut digits = j - mantissa_start;
    if s.get(j) == Some(&b'.') {
        let frac_start = j + 1;
        let mut k = frac_start;
        while s.get(k).is_some_and(|&b| digit(b)) {
            k += 1;
        }
        digits += k - frac_start;
        if digits > 0 {
            j = k;
        }
    }
    if digits == 0 {
        // "0x" with no hex digits: strtod reads just the "0".
        return if hex { i + 1 } else { 0 };
    }
    if s.get(j).is_some_and(|&b| b | 0x20 == exp_char) {
        let mut k = j + 1;
        if matches!(s.get(k), Some(b'+' | b'-')) {
            k += 1;
        }
        if s.get(k).is_some_and(u8::is_ascii_digit) {
            while s.get(k).is_some_and(u8::is_ascii_digit) {
                k += 1;
            }
            j = k;
        }
    }
    j
}

/// A hexadecimal floating-point literal (`0x1.8p3`), split into an integer
/// mantissa, a binary exponent and whether nonzero digits were dropped.
struct HexFloat {
    negative: bool,
    mantissa: u64,
    exponent: i64,
    sticky: bool,
}

fn parse_hex_float(text: &str) -> HexFloat {
    let bytes = text.as_bytes();
    let mut i = 0;
    let negative = bytes.first() == Some(&b'-');
    if matches!(bytes.first(), Some(b'+' | b'-')) {
        i += 1;
    }
    i += 2; // "0x"
    let mut mantissa: u64 = 0;
    let mut exponent: i64 = 0;
    let mut sticky = false;
    let mut after_point = false;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'.' {
            after_point = true;
        } else if let Some(d) = (b as char).to_digit(16) {
            if mantissa >> 60 == 0 {
                mantissa = mantissa << 4 | d as u64;
                if after_point {
                    exponent -= 4;
                }
            } else {
                sticky |= d != 0;
                if !after_point {
                    exponent += 4;
                }
            }
        } else {
            break;
        }
        i += 1;
    }
    if i < bytes.len() && (bytes[i] | 0x20) == b'p' {
        let e: i64 = text[i + 1..].parse().unwrap_or(if text[i + 1..].starts_with('-') { -100_000 } else { 100_000 });
        exponent = exponent.saturating_add(e.clamp(-100_000, 100_000));
    }
    HexFloat { negative, mantissa, exponent, sticky }
}

/// `m * 2^e` computed in f64 by exact power-of-two steps.
fn scale(mut value: f64, mut e: i64) -> f64 {
    while e > 0 {
        let step = e.min(1000);
        value *= 2f64.powi(step as i32);
        e -= step;
        if value.is_infinite() {
            break;
        }
    }
    while e < 0 {
        let step = (-e).min(1000);
        value *= 2f64.powi(-(step as i32));
        e += step;
        if value == 0.0 {
            break;
        }
    }
    value
}

fn hex_to_f64(h: &HexFloat, round_to_odd: bool) -> f64 {
    let mut m = h.mantissa;
    let mut e = h.exponent;
    let mut sticky = h.sticky;
    // Narrow to 53 bits. For a later f64 -> f32 conversion, round to odd
    // so the second rounding is exact; for f64 results, round to nearest
    // even here.
    let bits = 64 - m.leading_zeros() as i64;
    if bits > 53 {
        let shift = (bits - 53) as u32;
        let dropped = m & ((1u64 << shift) - 1);
        m >>= shift;
        e += shift as i64;
        if round_to_odd {
            if dropped != 0 || sticky {
                m |= 1;
            }
        } else {
            let half = 1u64 << (shift - 1);
            let above_half = dropped > half || (dropped == half && (sticky || m & 1 == 1));
            if above_half {
                m += 1;
            }
        }
        sticky = false;
    }
    if round_to_odd && sticky {
        m |= 1;
    }
    let v = scale(m as f64, e);
    if h.negative {
        -v
    } else {
        v
    }
}

/// Reads a float literal the way C's `strtof` does (correctly rounded).
/// `text` must be exactly a literal accepted by [`float_literal_len`].
pub(crate) fn parse_f32(text: &str) -> f32 {
    let body = text.trim_start_matches(['+', '-']);
    if body.len() > 2 && body.as_bytes()[0] == b'0' && (body.as_bytes()[1] | 0x20) == b'x' {
        return hex_to_f64(&parse_hex_float(text), true) as f32;
    }
    if let Some(m) = nan_payload(text) {
        let sign = if text.starts_with('-') { 0x8000_0000 } else { 0 };
        let m = m as u32 & 0x7f_ffff;
        return f32::from_bits(sign | 0x7f80_0000 | if m == 0 { 0x40_0000 } else { m });
    }
    if let Some(v) = special(text) {
        return v as f32;
    }
    text.parse::<f32>().unwrap_or(f32::NAN)
}

/// Reads a float literal the way C's `strtod` does (correctly rounded).
pub(crate) fn parse_f64(text: &str) -> f64 {
    let body = text.trim_start_matches(['+', '-']);
    if body.len() > 2 && body.as_bytes()[0] == b'0' && (body.as_bytes()[1] | 0x20) == b'x' {
        return hex_to_f64(&parse_hex_float(text), false);
    }
    if let Some(m) = nan_payload(text) {
        let sign = if text.starts_with('-') { 1u64 << 63 } else { 0 };
        let m = m & 0xf_ffff_ffff_ffff;
        return f64::from_bits(sign | 0x7ff0_0000_0000_0000 | if m == 0 { 1 << 51 } else { m });
    }
    if let Some(v) = special(text) {
        return v;
    }
    text.parse::<f64>().unwrap_or(f64::NAN)
}

/// The payload of `nan(0x...)` or `nan(123)`, if one is given.
fn nan_payload(text: &str) -> Option<u64> {
    let open = text.find('(')?;
    let inner = text.get(open + 1..text.len().checked_sub(1)?)?;
    match inner.strip_prefix("0x").or_else(|| inner.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => inner.parse().ok(),
    }
}

/// `inf`, `infinity`, `nan` and `nan(...)` with their signs.
fn special(text: &str) -> Option<f64> {
    let negative = text.starts_with('-');
    let body = text.trim_start_matches(['+', '-']);
    let lower = body.to_ascii_lowercase();
    let v = if lower.starts_with("inf") {
        f64::INFINITY
    } else if lower.starts_with("nan") {
        f64::NAN
    } else {
        return None;
    };
    Some(if negative { -v } else { v })
}

/// Length of the integer literal `strtoll(.., 0)` would consume: optional
/// sign, then decimal, `0x` hex or `0` octal digits.
pub(crate) fn c_integer_len(s: &[u8]) -> usize {
    let mut i = 0;
    if matches!(s.first(), Some(b'+' | b'-')) {
        i += 1;
    }
    if s.get(i) == Some(&b'0')
        && s.get(i + 1).is_some_and(|b| b | 0x20 == b'x')
        && s.get(i + 2).is_some_and(u8::is_ascii_hexdigit)
    {
        let mut j = i + 2;
        while s.get(j).is_some_and(u8::is_ascii_hexdigit) {
            j += 1;
        }
        return j;
    }
    let start = i;
    while s.get(i).is_some_and(u8::is_ascii_digit) {
        i += 1;
    }
    if i == start {
        0
    } else {
        i
    }
}

/// Reads a C integer literal (sign, then decimal, hex or octal) as a
/// magnitude and a sign. `None` if the magnitude overflows `u64`, or the
/// octal digits are invalid.
pub(crate) fn parse_c_integer(text: &str) -> Option<(bool, u64)> {
    let negative = text.starts_with('-');
    let body = text.trim_start_matches(['+', '-']);
    let magnitude = if let Some(hex) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        u64::from_str_radix(hex, 16).ok()?
    } else if body.len() > 1 && body.starts_with('0') {
        u64::from_str_radix(&body[1..], 8).ok()?
    } else {
        body.parse().ok()?
    };
    Some((negative, magnitude))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_prefixes_follow_strtod() {
        assert_eq!(float_literal_len(b"1.5,"), 3);
        assert_eq!(float_literal_len(b"-2e10}"), 5);
        assert_eq!(float_literal_len(b"1e}"), 1);
        assert_eq!(float_literal_len(b".5 "), 2);
        assert_eq!(float_literal_len(b"5."), 2);
        assert_eq!(float_literal_len(b"."), 0);
        assert_eq!(float_literal_len(b"inf,"), 3);
        assert_eq!(float_literal_len(b"-Infinity"), 9);
        assert_eq!(float_literal_len(b"nan(0x1)"), 3 + 5);
        assert_eq!(float_literal_len(b"0x3f800000,"), 10);
        assert_eq!(float_literal_len(b"0x1.8p3"), 7);
        assert_eq!(float_literal_len(b"0x"), 1);
        assert_eq!(float_literal_len(b"x"), 0);
    }

    #[test]
    fn floats_are_correctly_rounded() {
        assert_eq!(parse_f32("0.1").to_bits(), 0x3dcccccd);
        assert_eq!(parse_f32("-0").to_bits(), 0x8000_0000);
        assert_eq!(parse_f32("0x3f800000"), 1065353216.0);
        assert_eq!(parse_f32("0x1.8p1"), 3.0);
        assert_eq!(parse_f32("-inf"), f32::NEG_INFINITY);
        assert!(parse_f32("nan").is_nan());
        assert_eq!(parse_f32("1e-46"), 0.0);
        assert_eq!(parse_f32("1e39"), f32::INFINITY);
        assert_eq!(parse_f64("0.1").to_bits(), 0x3fb999999999999a);
        assert_eq!(parse_f64("0x1p-1074").to_bits(), 1);
        assert_eq!(parse_f32("-nan(0x400001)").to_bits(), 0xffc0_0001);
        assert_eq!(parse_f32("nan(0x1)").to_bits(), 0x7f80_0001);
        assert_eq!(parse_f32("nan").to_bits(), 0x7fc0_0000);
        // Rounding of a hex literal with more digits than a float holds.
        assert_eq!(parse_f32("0x1.000001p0").to_bits(), 0x3f80_0000);
        assert_eq!(parse_f32("0x1.0000011p0").to_bits(), 0x3f80_0001);
    }

    #[test]
    fn c_integers() {
        assert_eq!(c_integer_len(b"-0x1F,"), 5);
        assert_eq!(c_integer_len(b"017"), 3);
        assert_eq!(c_integer_len(b"+"), 0);
        assert_eq!(parse_c_integer("-0x1F"), Some((true, 31)));
        assert_eq!(parse_c_integer("017"), Some((false, 15)));
        assert_eq!(parse_c_integer("08"), None);
        assert_eq!(parse_c_integer("18446744073709551616"), None);
    }
}
