//! `ZENOH_CONFIG_OVERRIDE`: `key/path=json5value;key/path=json5value`, as rmw_zenoh reads it.
//!
//! rmw_zenoh (`zenoh_config.cpp`) splits naively on `;` and then on the first `=`, and skips
//! invalid pairs with a warning. zshm accepts every string rmw_zenoh accepts, with two
//! differences a user benefits from: a `;` inside a quoted string or inside brackets does not split
//! (so `connect/endpoints=["a";"b"]`-style mistakes become a clear error instead of two broken
//! pairs), and an invalid pair is an error instead of being skipped silently.

/// One `key=value` pair of an override string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Override {
    /// The config path, e.g. `transport/shared_memory/enabled`.
    pub key: String,
    /// The JSON5 value, e.g. `true` or `["tcp/127.0.0.1:7447"]`.
    pub value: String,
}

/// Why an override string could not be split into pairs.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum OverrideSyntaxError {
    /// A pair has no `=`.
    #[error("`{pair}` has no `=`; write key/path=json5value")]
    MissingEquals {
        /// The offending pair.
        pair: String,
    },
    /// A pair has nothing before its `=`.
    #[error("`{pair}` has an empty key; write key/path=json5value")]
    EmptyKey {
        /// The offending pair.
        pair: String,
    },
    /// A pair has nothing after its `=`.
    #[error("`{pair}` has an empty value; write key/path=json5value")]
    EmptyValue {
        /// The offending pair.
        pair: String,
    },
    /// A quote or bracket is never closed.
    #[error("unbalanced quote or bracket in `{text}`")]
    Unbalanced {
        /// The whole override string.
        text: String,
    },
}

/// Splits an override string into its pairs. Empty segments (`a=1;;b=2;`) are allowed.
///
/// ```
/// use zshm::config::overrides::parse;
/// let pairs = parse(r#"transport/shared_memory/enabled=true;connect/endpoints=["tcp/127.0.0.1:7447"]"#).unwrap();
/// assert_eq!(pairs.len(), 2);
/// assert_eq!(pairs[1].value, r#"["tcp/127.0.0.1:7447"]"#);
/// ```
pub fn parse(text: &str) -> Result<Vec<Override>, OverrideSyntaxError> {
    split_top_level(text)?
        .into_iter()
        .map(str::trim)
        .filter(|segment| !segment.is_empty())
        .map(parse_pair)
        .collect()
}

fn parse_pair(pair: &str) -> Result<Override, OverrideSyntaxError> {
    let Some((key, value)) = pair.split_once('=') else {
        return Err(OverrideSyntaxError::MissingEquals {
            pair: pair.to_owned(),
        });
    };
    let (key, value) = (key.trim(), value.trim());
    if key.is_empty() {
        return Err(OverrideSyntaxError::EmptyKey {
            pair: pair.to_owned(),
        });
    }
    if value.is_empty() {
        return Err(OverrideSyntaxError::EmptyValue {
            pair: pair.to_owned(),
        });
    }
    Ok(Override {
        key: key.trim_matches('/').to_owned(),
        value: value.to_owned(),
    })
}

/// Splits on `;` that are outside quotes and brackets.
fn split_top_level(text: &str) -> Result<Vec<&str>, OverrideSyntaxError> {
    let mut segments = Vec::new();
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    let mut start = 0;
    for (index, c) in text.char_indices() {
        if let Some(open) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == open {
                quote = None;
            }
            continue;
        }
        match c {
            '"' | '\'' => quote = Some(c),
            '[' | '{' => depth += 1,
            ']' | '}' => {
                depth = depth
                    .checked_sub(1)
                    .ok_or_else(|| OverrideSyntaxError::Unbalanced {
                        text: text.to_owned(),
                    })?
            }
            ';' if depth == 0 => {
                segments.push(&text[start..index]);
                start = index + 1;
            }
            _ => {}
        }
    }
    if depth != 0 || quote.is_some() {
        return Err(OverrideSyntaxError::Unbalanced {
            text: text.to_owned(),
        });
    }
    segments.push(&text[start..]);
    Ok(segments)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(key: &str, value: &str) -> Override {
        Override {
            key: key.into(),
            value: value.into(),
        }
    }

    #[test]
    fn splits_pairs_like_rmw_zenoh() {
        assert_eq!(
            parse("transport/shared_memory/enabled=true;mode=\"peer\"").unwrap(),
            vec![
                pair("transport/shared_memory/enabled", "true"),
                pair("mode", "\"peer\"")
            ]
        );
    }

    #[test]
    fn empty_string_and_empty_segments_are_fine() {
        assert!(parse("").unwrap().is_empty());
        assert_eq!(parse(";a=1;;").unwrap(), vec![pair("a", "1")]);
    }

    #[test]
    fn semicolons_inside_values_do_not_split() {
        assert_eq!(
            parse(r#"connect/endpoints=["tcp/a;b:1", 'x;y'];b=2"#).unwrap(),
            vec![
                pair("connect/endpoints", r#"["tcp/a;b:1", 'x;y']"#),
                pair("b", "2")
            ]
        );
    }

    #[test]
    fn value_may_contain_equals() {
        assert_eq!(parse("a={x:\"k=v\"}").unwrap(), vec![pair("a", "{x:\"k=v\"}")]);
    }

    #[test]
    fn malformed_pairs_are_errors() {
        assert!(matches!(
            parse("novalue"),
            Err(OverrideSyntaxError::MissingEquals { .. })
        ));
        assert!(matches!(parse("=1"), Err(OverrideSyntaxError::EmptyKey { .. })));
        assert!(matches!(parse("a="), Err(OverrideSyntaxError::EmptyValue { .. })));
        assert!(matches!(
            parse("a=[1"),
            Err(OverrideSyntaxError::Unbalanced { .. })
        ));
        assert!(matches!(
            parse("a=1]"),
            Err(OverrideSyntaxError::Unbalanced { .. })
        ));
        assert!(matches!(
            parse("a=\"x"),
            Err(OverrideSyntaxError::Unbalanced { .. })
        ));
    }
}
