//! What a config may ask for that this build cannot do, refused before zenoh sees it: zenoh
//! parses some keys it then ignores or fails on late, and a config must be either done or
//! refused with a clear message, never silently ignored.
//!
//! zshm's zenoh has the features `rmw_zenohd`'s has (tcp, udp, tls, quic, ws, unixsock-stream,
//! usrpwd and pubkey authentication, multilink, compression), so the configs rmw_zenohd accepts
//! work; what remains refused is the handful of things neither of them does.

use super::ConfigError;

/// Link protocols compiled into zshm's zenoh.
pub const PROTOCOLS: [&str; 6] = ["tcp", "udp", "tls", "quic", "ws", "unixsock-stream"];

/// Checks `config` (from `origin`) for what this build cannot do.
pub fn check(config: &zenoh::Config, origin: &str) -> Result<(), ConfigError> {
    for key in ["listen/endpoints", "connect/endpoints"] {
        for endpoint in strings_at(config, key) {
            let protocol = endpoint.split('/').next().unwrap_or_default();
            if !PROTOCOLS.contains(&protocol) {
                return Err(unsupported(
                    origin,
                    key,
                    format!(
                        "`{endpoint}`: the {protocol} link is not built into zshm (built: {})",
                        PROTOCOLS.join(", ")
                    ),
                ));
            }
        }
    }
    if json_at(config, "plugins_loading/enabled") == serde_json::Value::Bool(true)
        || json_at(config, "plugins")
            .as_object()
            .is_some_and(|plugins| !plugins.is_empty())
    {
        return Err(unsupported(
            origin,
            "plugins",
            "zshm loads no zenoh plugins (neither does rmw_zenohd); run zenohd for plugins, or remove the block".into(),
        ));
    }
    let usrpwd = json_at(config, "transport/auth/usrpwd");
    let (user, password) = (&usrpwd["user"], &usrpwd["password"]);
    if user.is_null() != password.is_null() {
        return Err(unsupported(
            origin,
            "transport/auth/usrpwd",
            "`user` and `password` go together: zenoh would present no credentials with only one of them"
                .into(),
        ));
    }
    Ok(())
}

fn unsupported(origin: &str, key: &str, message: String) -> ConfigError {
    ConfigError::Unsupported {
        origin: origin.to_owned(),
        key: key.to_owned(),
        message,
    }
}

fn json_at(config: &zenoh::Config, key: &str) -> serde_json::Value {
    config
        .get_json(key)
        .ok()
        .and_then(|json| serde_json::from_str(&json).ok())
        .unwrap_or(serde_json::Value::Null)
}

/// The strings of a list, or of every list of a per-mode map (`{router: [...], peer: [...]}`).
fn strings_at(config: &zenoh::Config, key: &str) -> Vec<String> {
    fn collect(value: &serde_json::Value, out: &mut Vec<String>) {
        match value {
            serde_json::Value::String(text) => out.push(text.clone()),
            serde_json::Value::Array(items) => items.iter().for_each(|item| collect(item, out)),
            serde_json::Value::Object(map) => map.values().for_each(|item| collect(item, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    collect(&json_at(config, key), &mut out);
    out
}
