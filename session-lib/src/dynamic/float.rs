//! Floats written as Python writes them, so that `zshm topic echo` prints what `ros2 topic echo`
//! prints (YAML and JSON alike).

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
