//! The security posture of a config, for `zshm doctor`: authentication, the TLS files (they
//! exist, are readable, parse, are not expired, and each key matches its certificate), a router
//! open to the network without authentication, and access control.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use serde_json::Value;

use super::{Check, Severity};
use zshm::config::{ResolvedConfig, Role};

/// Certificates expiring sooner than this are worth a warning.
const EXPIRY_WARNING: Duration = Duration::from_secs(7 * 24 * 3600);

/// Check names, per role.
struct Names {
    auth: &'static str,
    tls: &'static str,
    exposure: &'static str,
    acl: &'static str,
}

fn names(role: Role) -> Names {
    match role {
        Role::Router => Names {
            auth: "router authentication",
            tls: "router TLS",
            exposure: "router exposure",
            acl: "router access control",
        },
        Role::Session => Names {
            auth: "session authentication",
            tls: "session TLS",
            exposure: "session exposure",
            acl: "session access control",
        },
    }
}

/// Every security finding for one resolved config.
pub(super) fn checks(config: &ResolvedConfig) -> Vec<Check> {
    let json = |key: &str| -> Value {
        config
            .zenoh
            .get_json(key)
            .ok()
            .and_then(|text| serde_json::from_str(&text).ok())
            .unwrap_or(Value::Null)
    };
    let names = names(config.role);
    let listen = strings(&json("listen/endpoints"));
    let connect = strings(&json("connect/endpoints"));
    let auth = auth(names.auth, &json("transport/auth"));
    let tls = tls(names.tls, &json("transport/link/tls"), &listen, &connect);
    let mutual_tls = json("transport/link/tls/enable_mtls") == Value::Bool(true);
    let authenticated = auth.severity == Severity::Ok && !auth.summary.starts_with("none");
    let acl_on = json("access_control/enabled") == Value::Bool(true);
    let mut out = vec![auth, tls];
    if config.role == Role::Router {
        out.push(exposure(names.exposure, &listen, authenticated || mutual_tls));
        out.push(acl(
            names.acl,
            &json("access_control"),
            acl_on,
            !exposed(&listen).is_empty(),
        ));
    }
    out
}

/// The strings of a list, or of every list of a per-mode map.
fn strings(value: &Value) -> Vec<String> {
    match value {
        Value::String(text) => vec![text.clone()],
        Value::Array(items) => items.iter().flat_map(strings).collect(),
        Value::Object(map) => map.values().flat_map(strings).collect(),
        _ => Vec::new(),
    }
}

fn auth(name: &'static str, auth: &Value) -> Check {
    let usrpwd = &auth["usrpwd"];
    if let Some(dictionary) = usrpwd["dictionary_file"].as_str() {
        return match std::fs::read_to_string(dictionary) {
            Ok(text) => {
                let users = text.lines().filter(|l| l.contains(':')).count();
                if users == 0 {
                    Check::new(
                        name,
                        Severity::Fail,
                        format!(
                            "the usrpwd dictionary {dictionary} has no `user:password` line: every link is refused"
                        ),
                        Some("one `user:password` per line (zshm certs writes examples)".into()),
                    )
                } else {
                    Check::new(
                        name,
                        Severity::Ok,
                        format!("user/password required ({users} users in {dictionary})"),
                        None,
                    )
                }
            }
            Err(err) => Check::new(
                name,
                Severity::Fail,
                format!("cannot read the usrpwd dictionary {dictionary}: {err}"),
                Some("fix the path or the file's permissions for this user".into()),
            ),
        };
    }
    if usrpwd["user"].is_string() {
        return Check::new(
            name,
            Severity::Ok,
            "presents user/password to routers (accepts links without a dictionary)",
            None,
        );
    }
    if !auth["pubkey"]["public_key_pem"].is_null() || !auth["pubkey"]["public_key_file"].is_null() {
        return Check::new(name, Severity::Ok, "public-key authentication", None);
    }
    Check::new(name, Severity::Ok, "none configured", None)
}

fn tls(name: &'static str, tls: &Value, listen: &[String], connect: &[String]) -> Check {
    let uses = |list: &[String]| {
        list.iter()
            .any(|e| e.starts_with("tls/") || e.starts_with("quic/"))
    };
    let (listens, connects) = (uses(listen), uses(connect));
    if !listens && !connects {
        return Check::new(name, Severity::Ok, "no tls/ or quic/ endpoint", None);
    }
    let file = |key: &str| tls[key].as_str().map(str::to_owned);
    let mut problems = Vec::new();
    let mut notes = Vec::new();
    let ca = file("root_ca_certificate");
    let mtls = tls["enable_mtls"] == Value::Bool(true);
    if mtls && ca.is_none() && tls["root_ca_certificate_base64"].is_null() {
        problems.push("enable_mtls needs root_ca_certificate".to_owned());
    }
    if let Some(ca) = &ca {
        match certificates(ca) {
            Ok(summary) => notes.push(format!("CA {summary}")),
            Err(err) => problems.push(err),
        }
    }
    let sides = [
        (
            listens,
            "listen",
            file("listen_private_key"),
            file("listen_certificate"),
        ),
        (
            connects && mtls,
            "connect",
            file("connect_private_key"),
            file("connect_certificate"),
        ),
    ];
    for (needed, side, key, cert) in sides {
        match (key, cert) {
            (Some(key), Some(cert)) => match pair(&key, &cert) {
                Ok(summary) => notes.push(format!("{side} {summary}")),
                Err(err) => problems.push(err),
            },
            _ if needed && tls[format!("{side}_certificate_base64")].is_null() => {
                problems.push(format!("{side}_private_key and {side}_certificate are needed"))
            }
            _ => {}
        }
    }
    if !problems.is_empty() {
        return Check::new(
            name,
            Severity::Fail,
            problems.join("; "),
            Some("fix transport/link/tls (zshm certs writes a working set)".into()),
        );
    }
    let warn = notes.iter().any(|n| n.contains("expires in"));
    Check::new(
        name,
        if warn { Severity::Warn } else { Severity::Ok },
        format!("{}{}", if mtls { "mutual TLS; " } else { "" }, notes.join("; ")),
        warn.then(|| "renew the certificate before it expires".into()),
    )
}

/// Reads the certificates of a PEM file and describes the first one.
fn certificates(path: &str) -> Result<String, String> {
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(path)
        .and_then(|iter| iter.collect())
        .map_err(|err| format!("cannot read the certificate {path}: {err}"))?;
    let first = certs
        .first()
        .ok_or_else(|| format!("{path} holds no PEM certificate"))?;
    describe(path, first)
}

/// The certificate's name and how long it stays valid, or why it is not valid now.
fn describe(path: &str, der: &CertificateDer<'_>) -> Result<String, String> {
    let (_, cert) = x509_parser::parse_x509_certificate(der)
        .map_err(|err| format!("{path} is not an X.509 certificate: {err}"))?;
    let name = cert
        .subject()
        .iter_common_name()
        .next()
        .and_then(|cn| cn.as_str().ok())
        .unwrap_or("?")
        .to_owned();
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    let validity = cert.validity();
    if now < validity.not_before.timestamp() {
        return Err(format!("{path} ({name}) is not valid yet"));
    }
    let left = validity.not_after.timestamp() - now;
    if left <= 0 {
        return Err(format!("{path} ({name}) expired"));
    }
    let days = left / 86_400;
    if (left as u64) < EXPIRY_WARNING.as_secs() {
        return Ok(format!("`{name}` expires in {days} days"));
    }
    Ok(format!("`{name}` valid {days} more days"))
}

/// Checks that the key at `key` belongs to the certificate at `cert`.
fn pair(key: &str, cert: &str) -> Result<String, String> {
    let summary = certificates(cert)?;
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(cert)
        .and_then(|iter| iter.collect())
        .map_err(|err| format!("cannot read the certificate {cert}: {err}"))?;
    let private =
        PrivateKeyDer::from_pem_file(key).map_err(|err| format!("cannot read the key {key}: {err}"))?;
    let signer = rustls::crypto::ring::sign::any_supported_type(&private)
        .map_err(|err| format!("{key} is not a key zenoh can use: {err}"))?;
    rustls::sign::CertifiedKey::new(chain, signer)
        .keys_match()
        .map_err(|_| format!("{key} is not the key of {cert}"))?;
    Ok(summary)
}

/// Listen endpoints reachable from other hosts: all interfaces or a non-loopback address.
fn exposed(listen: &[String]) -> Vec<&String> {
    listen
        .iter()
        .filter(|endpoint| {
            let address = endpoint.split_once('/').map_or("", |(_, rest)| rest);
            let host = address.rsplit_once(':').map_or(address, |(host, _)| host);
            !(host.starts_with("127.")
                || host == "localhost"
                || host == "[::1]"
                || endpoint.starts_with("unixsock"))
        })
        .collect()
}

fn exposure(name: &'static str, listen: &[String], authenticated: bool) -> Check {
    let open = exposed(listen);
    if open.is_empty() {
        return Check::new(name, Severity::Ok, "listens on loopback only", None);
    }
    let list = open.iter().map(|e| e.as_str()).collect::<Vec<_>>().join(", ");
    if authenticated {
        return Check::new(
            name,
            Severity::Ok,
            format!("listens on {list}; every link must authenticate"),
            None,
        );
    }
    Check::new(
        name,
        Severity::Warn,
        format!("listens on {list} without authentication: any host that reaches it can join and publish"),
        Some(
            "use a secure config (configs/secure/: mutual TLS or user/password), or listen on 127.0.0.1 only"
                .into(),
        ),
    )
}

fn acl(name: &'static str, acl: &Value, enabled: bool, exposed: bool) -> Check {
    if enabled {
        let rules = acl["rules"].as_array().map_or(0, Vec::len);
        let default = acl["default_permission"].as_str().unwrap_or("deny");
        return Check::new(
            name,
            Severity::Ok,
            format!("on: {rules} rules, default {default}"),
            None,
        );
    }
    if exposed {
        return Check::new(
            name,
            Severity::Warn,
            "off: every topic crosses to and from other hosts",
            Some("an access_control block (configs/secure/ has one) lets only named topics cross".into()),
        );
    }
    Check::new(name, Severity::Ok, "off (loopback only)", None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use zshm::config::{ConfigRequest, Environment, resolve};

    fn router(overrides: &str) -> ResolvedConfig {
        let env = Environment::empty().with("ZENOH_CONFIG_OVERRIDE", overrides);
        resolve(&ConfigRequest::new(Role::Router), &env).unwrap()
    }

    fn find<'a>(checks: &'a [Check], name: &str) -> &'a Check {
        checks.iter().find(|c| c.name == name).unwrap()
    }

    #[test]
    fn an_open_router_without_authentication_is_a_warning() {
        let checks = checks(&router("listen/endpoints=[\"tcp/[::]:7447\"]"));
        let exposure = find(&checks, "router exposure");
        assert_eq!(exposure.severity, Severity::Warn, "{exposure:?}");
        assert!(exposure.summary.contains("tcp/[::]:7447"));
        assert_eq!(find(&checks, "router access control").severity, Severity::Warn);
        let local = checks_of("listen/endpoints=[\"tcp/127.0.0.1:7447\"]");
        assert_eq!(find(&local, "router exposure").severity, Severity::Ok);
    }

    fn checks_of(overrides: &str) -> Vec<Check> {
        checks(&router(overrides))
    }

    #[test]
    fn tls_files_are_checked_and_a_foreign_key_is_caught() {
        let dir = tempfile::tempdir().unwrap();
        crate::tools::certs::generate(dir.path(), &Default::default()).unwrap();
        let path = |name: &str| dir.path().join(name).display().to_string();
        let tls = |key: &str| {
            format!(
                r#"listen/endpoints=["tls/127.0.0.1:7447"];transport/link/tls/root_ca_certificate="{}";transport/link/tls/listen_private_key="{}";transport/link/tls/listen_certificate="{}";transport/link/tls/enable_mtls=true"#,
                path("ca.pem"),
                path(key),
                path("robot-router.pem")
            )
        };
        let good = checks_of(&tls("robot-router.key"));
        let check = find(&good, "router TLS");
        assert_eq!(check.severity, Severity::Ok, "{check:?}");
        // 30 days from the second the certificate was made; whole days left, rounded down, so a
        // check that falls in the next second (once, beside two busy loops) reads 29.
        assert!(
            ["29", "30"].iter().any(|days| check
                .summary
                .contains(&format!("listen `robot-router` valid {days} more days"))),
            "{check:?}"
        );
        let foreign = checks_of(&tls("robot-node.key"));
        let check = find(&foreign, "router TLS");
        assert_eq!(check.severity, Severity::Fail);
        assert!(check.summary.contains("is not the key of"), "{check:?}");
        let missing = checks_of(&tls("nonexistent.key"));
        assert!(
            find(&missing, "router TLS")
                .summary
                .contains("cannot read the key")
        );
    }

    #[test]
    fn an_unreadable_or_empty_dictionary_fails() {
        let dir = tempfile::tempdir().unwrap();
        let empty = dir.path().join("empty.txt");
        std::fs::write(&empty, "\n").unwrap();
        let set = |file: &str| {
            format!(
                r#"transport/auth/usrpwd/user="a";transport/auth/usrpwd/password="b";transport/auth/usrpwd/dictionary_file="{file}""#
            )
        };
        let checks = checks_of(&set(&empty.display().to_string()));
        assert_eq!(find(&checks, "router authentication").severity, Severity::Fail);
        let checks = checks_of(&set("/nonexistent/dictionary"));
        assert!(
            find(&checks, "router authentication")
                .summary
                .contains("cannot read")
        );
    }
}
