//! Writes a [`Value`] as `ros2 topic echo` prints it: `yaml.dump(..., default_flow_style=False,
//! allow_unicode=True, width=sys.maxsize)` of rosidl_runtime_py's `message_to_ordereddict`.
//!
//! That means PyYAML's block style (sequences in a mapping not indented, `- ` items whose first
//! key shares the line), floats as Python's `repr` (`0.1`, `1.0e+16`, `.nan`, `-.inf`), and
//! strings quoted exactly when PyYAML would quote them (`'5'`, `''`, `'true'`, a double-quoted
//! string for control characters). With a truncation length (echo's default is 128),
//! sequences keep that many items followed by `- '...'`, and longer strings are cut and end
//! in `...`. One deviation: rclpy holds `byte` fields as Python `bytes`, which echo prints as
//! one-character strings; zshm prints them as numbers, like `uint8`.

use std::fmt::Write as _;
use std::sync::OnceLock;

use super::Value;
use super::plan::PLACEHOLDER;

/// Appends `value` as block YAML (a message, or a lone field for `--field`), ending in a newline.
pub(crate) fn write(out: &mut String, value: &Value, truncate: Option<usize>) {
    let w = Writer { truncate };
    match value {
        Value::Struct(_) => {
            if visible(value).next().is_none() {
                out.push_str("{}\n");
            } else {
                w.mapping(out, value, 0, false);
            }
        }
        Value::Array(_) | Value::Bytes(_) => {
            if w.items(value).is_empty() {
                out.push_str("[]\n");
            } else {
                w.sequence(out, value, 0);
            }
        }
        scalar => {
            out.push_str(&w.scalar(scalar, 0));
            out.push('\n');
        }
    }
}

fn visible(value: &Value) -> impl Iterator<Item = &(std::sync::Arc<str>, Value)> {
    let fields: &[_] = match value {
        Value::Struct(fields) => fields,
        _ => &[],
    };
    fields.iter().filter(|(name, _)| &**name != PLACEHOLDER)
}

/// One element of a sequence as printed: a value, or the `'...'` marker.
enum Item<'a> {
    Value(&'a Value),
    Byte(u8),
    Ellipsis,
}

struct Writer {
    truncate: Option<usize>,
}

impl Writer {
    /// The items of a sequence after truncation.
    fn items<'a>(&self, value: &'a Value) -> Vec<Item<'a>> {
        let (mut items, len): (Vec<Item<'a>>, usize) = match value {
            Value::Array(items) => {
                let keep = self.truncate.map_or(items.len(), |t| t.min(items.len()));
                (items[..keep].iter().map(Item::Value).collect(), items.len())
            }
            Value::Bytes(bytes) => {
                let keep = self.truncate.map_or(bytes.len(), |t| t.min(bytes.len()));
                (
                    bytes[..keep].iter().map(|b| Item::Byte(*b)).collect(),
                    bytes.len(),
                )
            }
            _ => (Vec::new(), 0),
        };
        if self.truncate.is_some_and(|t| len > t) {
            items.push(Item::Ellipsis);
        }
        items
    }

    /// Keys at `indent`; when `inline_first`, the first key goes where the cursor is (after `- `).
    fn mapping(&self, out: &mut String, value: &Value, indent: usize, inline_first: bool) {
        for (i, (name, field)) in visible(value).enumerate() {
            if i > 0 || !inline_first {
                pad(out, indent);
            }
            out.push_str(&scalar_text(name, indent + 2));
            out.push(':');
            self.value_after_key(out, field, indent);
        }
    }

    /// The value of a key whose mapping is at `indent`.
    fn value_after_key(&self, out: &mut String, value: &Value, indent: usize) {
        match value {
            Value::Struct(_) => {
                if visible(value).next().is_none() {
                    out.push_str(" {}\n");
                } else {
                    out.push('\n');
                    self.mapping(out, value, indent + 2, false);
                }
            }
            Value::Array(_) | Value::Bytes(_) => {
                if self.items(value).is_empty() {
                    out.push_str(" []\n");
                } else {
                    out.push('\n');
                    // PyYAML does not indent a sequence that is a mapping's value.
                    self.sequence(out, value, indent);
                }
            }
            scalar => {
                out.push(' ');
                out.push_str(&self.scalar(scalar, indent + 2));
                out.push('\n');
            }
        }
    }

    fn sequence(&self, out: &mut String, value: &Value, indent: usize) {
        for item in self.items(value) {
            pad(out, indent);
            out.push_str("- ");
            match item {
                Item::Ellipsis => out.push_str("'...'\n"),
                Item::Byte(b) => {
                    let _ = writeln!(out, "{b}");
                }
                Item::Value(v @ Value::Struct(_)) => {
                    if visible(v).next().is_none() {
                        out.push_str("{}\n");
                    } else {
                        self.mapping(out, v, indent + 2, true);
                    }
                }
                Item::Value(v @ (Value::Array(_) | Value::Bytes(_))) => {
                    // Not in ROS messages (no arrays of arrays); written in flow style.
                    out.push_str(&super::json_out::to_string(v));
                    out.push('\n');
                }
                Item::Value(scalar) => {
                    out.push_str(&self.scalar(scalar, indent + 2));
                    out.push('\n');
                }
            }
        }
    }

    fn scalar(&self, value: &Value, indent: usize) -> String {
        match value {
            Value::Bool(true) => "true".into(),
            Value::Bool(false) => "false".into(),
            Value::Int(v) => v.to_string(),
            Value::UInt(v) => v.to_string(),
            Value::Float(v) => yaml_float(*v),
            Value::String(s) => match self.truncate {
                Some(t) if s.chars().count() > t => {
                    let cut: String = s.chars().take(t).chain("...".chars()).collect();
                    scalar_text(&cut, indent)
                }
                _ => scalar_text(s, indent),
            },
            other => super::json_out::to_string(other),
        }
    }
}

fn pad(out: &mut String, indent: usize) {
    out.extend(std::iter::repeat_n(' ', indent));
}

/// A float as PyYAML's `represent_float` writes it.
pub(crate) fn yaml_float(v: f64) -> String {
    if v.is_nan() {
        ".nan".into()
    } else if v == f64::INFINITY {
        ".inf".into()
    } else if v == f64::NEG_INFINITY {
        "-.inf".into()
    } else {
        let repr = python_repr(v);
        if !repr.contains('.') && repr.contains('e') {
            repr.replacen('e', ".0e", 1)
        } else {
            repr
        }
    }
}

/// Python's `repr(float)` of a finite value: the shortest digits that read back the same
/// number, positional when the decimal exponent is in -4..16, else `d.ddde+XX`.
pub(crate) fn python_repr(v: f64) -> String {
    // Rust's `{:e}` gives the shortest round-trip digits (`1.2345e-7`, `-0e0`), but breaks a
    // tie between two equally short candidates upwards where Python rounds half to even; the
    // exact formatting at the same precision rounds half to even, so prefer it when it reads
    // back the same (found against PyYAML: -915975706279553.25 is `...553.2` in Python).
    let mut sci = format!("{v:e}");
    let digits = sci
        .split('e')
        .next()
        .unwrap_or("")
        .chars()
        .filter(char::is_ascii_digit)
        .count();
    let exact = format!("{v:.prec$e}", prec = digits.saturating_sub(1));
    if exact != sci && exact.parse::<f64>() == Ok(v) {
        sci = exact;
    }
    let (mantissa, exp) = sci.split_once('e').expect("{:e} always has an exponent");
    let exp: i32 = exp.parse().expect("{:e} writes a decimal exponent");
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    if (-4..16).contains(&exp) {
        if exp >= 0 {
            let int_len = exp as usize + 1;
            let (int, frac) = if digits.len() > int_len {
                (digits[..int_len].to_owned(), digits[int_len..].to_owned())
            } else {
                (format!("{digits:0<int_len$}"), "0".to_owned())
            };
            format!("{sign}{int}.{frac}")
        } else {
            let zeros = "0".repeat((-exp - 1) as usize);
            format!("{sign}0.{zeros}{digits}")
        }
    } else {
        let (first, rest) = digits.split_at(1);
        let rest = if rest.is_empty() {
            String::new()
        } else {
            format!(".{rest}")
        };
        let exp_sign = if exp < 0 { '-' } else { '+' };
        format!("{sign}{first}{rest}e{exp_sign}{:02}", exp.abs())
    }
}

/// A string as PyYAML emits it in block context: plain when it reads back as the same string,
/// else single-quoted, else (control characters, spaces before a line break) double-quoted.
/// `indent` is where continuation lines of a multi-line quoted string start.
pub(crate) fn scalar_text(s: &str, indent: usize) -> String {
    let analysis = analyze(s);
    if !resolves_to_non_string(s) && analysis.allow_block_plain && !analysis.multiline {
        return s.to_owned();
    }
    if analysis.allow_single_quoted {
        single_quoted(s, indent)
    } else {
        double_quoted(s)
    }
}

struct Analysis {
    multiline: bool,
    allow_block_plain: bool,
    allow_single_quoted: bool,
}

const BREAKS: &[char] = &['\n', '\u{85}', '\u{2028}', '\u{2029}'];

fn is_space_or_break(c: char) -> bool {
    matches!(
        c,
        '\0' | ' ' | '\t' | '\r' | '\n' | '\u{85}' | '\u{2028}' | '\u{2029}'
    )
}

/// PyYAML's `Emitter.analyze_scalar`, for block context and `allow_unicode=True`.
fn analyze(s: &str) -> Analysis {
    let chars: Vec<char> = s.chars().collect();
    if chars.is_empty() {
        return Analysis {
            multiline: false,
            allow_block_plain: true,
            allow_single_quoted: true,
        };
    }
    let mut block_indicators = s.starts_with("---") || s.starts_with("...");
    let mut line_breaks = false;
    let mut special = false;
    let (mut leading_space, mut leading_break, mut trailing_space, mut trailing_break) =
        (false, false, false, false);
    let (mut break_space, mut space_break) = (false, false);
    let (mut previous_space, mut previous_break) = (false, false);
    let mut preceded_by_ws = true;
    for (i, &ch) in chars.iter().enumerate() {
        let followed_by_ws = i + 1 >= chars.len() || is_space_or_break(chars[i + 1]);
        if i == 0 {
            if "#,[]{}&*!|>'\"%@`".contains(ch) {
                block_indicators = true;
            }
            if (ch == '?' || ch == ':') && followed_by_ws {
                block_indicators = true;
            }
            if ch == '-' && followed_by_ws {
                block_indicators = true;
            }
        } else {
            if ch == ':' && followed_by_ws {
                block_indicators = true;
            }
            if ch == '#' && preceded_by_ws {
                block_indicators = true;
            }
        }
        if BREAKS.contains(&ch) {
            line_breaks = true;
        }
        if !(ch == '\n' || (' '..='~').contains(&ch)) {
            let unicode = (ch == '\u{85}'
                || ('\u{A0}'..='\u{D7FF}').contains(&ch)
                || ('\u{E000}'..='\u{FFFD}').contains(&ch)
                || ('\u{10000}'..'\u{10FFFF}').contains(&ch))
                && ch != '\u{FEFF}';
            if !unicode {
                special = true;
            }
        }
        if ch == ' ' {
            leading_space |= i == 0;
            trailing_space |= i == chars.len() - 1;
            break_space |= previous_break;
            previous_space = true;
            previous_break = false;
        } else if BREAKS.contains(&ch) {
            leading_break |= i == 0;
            trailing_break |= i == chars.len() - 1;
            space_break |= previous_space;
            previous_space = false;
            previous_break = true;
        } else {
            previous_space = false;
            previous_break = false;
        }
        preceded_by_ws = is_space_or_break(ch);
    }
    let mut allow_block_plain = true;
    let mut allow_single_quoted = true;
    if leading_space || leading_break || trailing_space || trailing_break {
        allow_block_plain = false;
    }
    if break_space {
        allow_block_plain = false;
        allow_single_quoted = false;
    }
    if space_break || special {
        allow_block_plain = false;
        allow_single_quoted = false;
    }
    if line_breaks || block_indicators {
        allow_block_plain = false;
    }
    Analysis {
        multiline: line_breaks,
        allow_block_plain,
        allow_single_quoted,
    }
}

/// True when PyYAML's resolver reads the plain scalar as something else than a string
/// (bool, int, float, null, timestamp, merge key, `=`): such a string must be quoted.
fn resolves_to_non_string(s: &str) -> bool {
    static PATTERNS: OnceLock<regex::Regex> = OnceLock::new();
    PATTERNS
        .get_or_init(|| {
            let bool_ = r"yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF";
            let float = r"[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)";
            let int = r"[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+";
            let null = r"~|null|Null|NULL|";
            let timestamp = r"[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]|[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?(?:[Tt]|[ \t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?";
            let other = r"<<|=|!|&|\*";
            regex::Regex::new(&format!("^(?:{bool_}|{float}|{int}|{null}|{timestamp}|{other})$"))
                .expect("the resolver patterns are valid")
        })
        .is_match(s)
}

/// PyYAML's `write_single_quoted` with an unlimited width: `'` doubled, each run of line
/// breaks written with one extra break and continued at `indent`.
fn single_quoted(s: &str, indent: usize) -> String {
    let mut out = String::from("'");
    let chars: Vec<char> = s.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let ch = chars[i];
        if BREAKS.contains(&ch) {
            let start = i;
            while i < chars.len() && BREAKS.contains(&chars[i]) {
                i += 1;
            }
            if chars[start] == '\n' {
                out.push('\n');
            }
            for &br in &chars[start..i] {
                out.push(br);
            }
            pad(&mut out, indent);
            continue;
        }
        if ch == '\'' {
            out.push_str("''");
        } else {
            out.push(ch);
        }
        i += 1;
    }
    out.push('\'');
    out
}

/// PyYAML's `write_double_quoted` with an unlimited width and `allow_unicode=True`.
fn double_quoted(s: &str) -> String {
    let mut out = String::from("\"");
    for ch in s.chars() {
        let printable = (' '..='~').contains(&ch)
            || ('\u{A0}'..='\u{D7FF}').contains(&ch)
            || ('\u{E000}'..='\u{FFFD}').contains(&ch);
        if printable && !matches!(ch, '"' | '\\' | '\u{85}' | '\u{2028}' | '\u{2029}' | '\u{FEFF}') {
            out.push(ch);
            continue;
        }
        let short = match ch {
            '\0' => Some('0'),
            '\x07' => Some('a'),
            '\x08' => Some('b'),
            '\t' => Some('t'),
            '\n' => Some('n'),
            '\x0B' => Some('v'),
            '\x0C' => Some('f'),
            '\r' => Some('r'),
            '\x1B' => Some('e'),
            '"' => Some('"'),
            '\\' => Some('\\'),
            '\u{85}' => Some('N'),
            '\u{A0}' => Some('_'),
            '\u{2028}' => Some('L'),
            '\u{2029}' => Some('P'),
            _ => None,
        };
        match short {
            Some(c) => {
                out.push('\\');
                out.push(c);
            }
            None if (ch as u32) <= 0xFF => {
                let _ = write!(out, "\\x{:02X}", ch as u32);
            }
            None if (ch as u32) <= 0xFFFF => {
                let _ = write!(out, "\\u{:04X}", ch as u32);
            }
            None => {
                let _ = write!(out, "\\U{:08X}", ch as u32);
            }
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[allow(clippy::excessive_precision)] // ties and long mantissas are what this checks
    fn floats_are_written_as_python_repr() {
        for (v, text) in [
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (0.5, "0.5"),
            (1.0, "1.0"),
            (100.0, "100.0"),
            (0.1, "0.1"),
            (1e16, "1.0e+16"),
            (1.5e16, "1.5e+16"),
            (1e15, "1000000000000000.0"),
            (0.0001, "0.0001"),
            (0.00001, "1.0e-05"),
            (1.5e-7, "1.5e-07"),
            (1e300, "1.0e+300"),
            (f64::from(0.1f32), "0.10000000149011612"),
            (123.456, "123.456"),
            (-915975706279553.25, "-915975706279553.2"),
            (f64::NAN, ".nan"),
            (f64::INFINITY, ".inf"),
            (f64::NEG_INFINITY, "-.inf"),
        ] {
            assert_eq!(yaml_float(v), text, "{v:e}");
        }
    }

    #[test]
    fn strings_are_quoted_as_pyyaml_quotes_them() {
        for (s, text) in [
            ("hello", "hello"),
            ("hello world", "hello world"),
            ("5", "'5'"),
            ("", "''"),
            ("true", "'true'"),
            ("on", "'on'"),
            ("null", "'null'"),
            ("~", "'~'"),
            ("1.5", "'1.5'"),
            ("1e5", "1e5"),
            (".nan", "'.nan'"),
            ("2024-01-01", "'2024-01-01'"),
            ("0x1F", "'0x1F'"),
            ("it's", "it's"),
            ("'quoted'", "'''quoted'''"),
            ("- a", "'- a'"),
            ("a: b", "'a: b'"),
            ("a:b", "a:b"),
            ("#x", "'#x'"),
            ("a #x", "'a #x'"),
            (" lead", "' lead'"),
            ("trail ", "'trail '"),
            ("tab\there", "\"tab\\there\""),
            ("ä→日本😀", "ä→日本😀"),
            ("...", "'...'"),
            ("base_link", "base_link"),
            ("/odom", "/odom"),
            ("a\nb", "'a\n\n  b'"),
            ("a \nb", "\"a \\nb\""),
            ("bell\x07", "\"bell\\a\""),
            ("😀\t", "\"\\U0001F600\\t\""),
        ] {
            assert_eq!(scalar_text(s, 2), text, "{s:?}");
        }
    }
}
