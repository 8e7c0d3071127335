//! `zshm certs`: a throw-away certificate authority and the certificates, keys and passwords the
//! secure example configs (`configs/secure/`) expect, for trying mutual TLS and user/password
//! authentication between a robot and a control station. Not for production PKI: the CA key is
//! not even kept.
//!
//! Every certificate is what zenoh 1.10.2's TLS (rustls) accepts: ECDSA P-256, X.509 v3, keys in
//! PKCS#8, and for every leaf both `serverAuth` and `clientAuth` (every zenoh process listens and
//! connects). Routers carry their host's address as a SAN, because zenoh checks the SAN of the
//! router it connects to; the common name is what the ACL's `cert_common_names` matches.
//!
//! ```no_run
//! use zshm_ops::tools::certs::{generate, CertPlan};
//! let written = generate("certs".as_ref(), &CertPlan::default())?;
//! println!("{} files", written.len());
//! # Ok::<(), zshm_ops::tools::certs::CertsError>(())
//! ```

use std::fs;
use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer,
    KeyPair, KeyUsagePurpose, PKCS_ECDSA_P256_SHA256,
};
use time::{Duration, OffsetDateTime};

/// Why the certificates could not be made.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CertsError {
    /// A name or address cannot go into a certificate.
    #[error("cannot make the certificate of `{name}`: {source}")]
    Certificate {
        /// The identity.
        name: String,
        /// rcgen's reason.
        #[source]
        source: rcgen::Error,
    },
    /// A file could not be written (the directory is not writable, or the file exists).
    #[error("cannot write {path}")]
    Write {
        /// The file.
        path: String,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// The system has no randomness for the passwords.
    #[error("cannot draw random passwords: {0}")]
    Random(String),
}

/// What to make: the two hosts' addresses and how long the certificates last.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CertPlan {
    /// The robot host's address, as the control station's router connects to it.
    pub robot_host: String,
    /// The control station's address.
    pub station_host: String,
    /// Days of validity.
    pub days: u32,
}

impl Default for CertPlan {
    /// The addresses of the example of docs/security.md (10.0.0.1 and 10.0.0.2), 30 days.
    fn default() -> Self {
        Self {
            robot_host: "10.0.0.1".into(),
            station_host: "10.0.0.2".into(),
            days: 30,
        }
    }
}

/// The identities of the example: the CN of each certificate and the names it is valid for.
fn identities(plan: &CertPlan) -> [(&'static str, Vec<String>); 4] {
    let local = || vec!["localhost".to_owned(), "127.0.0.1".to_owned(), "::1".to_owned()];
    let router = |name: &str, host: &str| {
        let mut sans = local();
        sans.extend([name.to_owned(), host.to_owned()]);
        sans
    };
    [
        ("robot-router", router("robot-router", &plan.robot_host)),
        ("station-router", router("station-router", &plan.station_host)),
        ("robot-node", local()),
        ("station-node", local()),
    ]
}

/// Writes `ca.pem`, `<identity>.pem` and `<identity>.key` (mode 0600) for the robot's and the
/// station's router and nodes, the usrpwd dictionaries the usrpwd example configs name, and
/// `passwords.env` with the matching `ZENOH_CONFIG_OVERRIDE` values. Refuses to overwrite.
/// Returns the files written.
pub fn generate(dir: &Path, plan: &CertPlan) -> Result<Vec<PathBuf>, CertsError> {
    let mut out = Output::new(dir)?;
    let ca = certificate_authority(plan.days)?;
    out.write("ca.pem", &ca.0, 0o644)?;
    for (name, sans) in identities(plan) {
        let (cert, key) = leaf(name, &sans, &ca.1, plan.days)?;
        out.write(&format!("{name}.pem"), &cert, 0o644)?;
        out.write(&format!("{name}.key"), &key, 0o600)?;
    }
    write_passwords(&mut out)?;
    Ok(out.written)
}

/// Usrpwd: who may connect to whom (`user:password` per line), and each process's own secret.
fn write_passwords(out: &mut Output) -> Result<(), CertsError> {
    let users = ["robot-router", "station-router", "robot-node", "station-node"];
    let mut secrets = Vec::new();
    for user in users {
        secrets.push((user, password()?));
    }
    let secret = |user: &str| {
        secrets
            .iter()
            .find(|(u, _)| *u == user)
            .map(|(_, p)| p.as_str())
            .unwrap_or_default()
    };
    let line = |user: &str| format!("{user}:{}\n", secret(user));
    // The robot router accepts its nodes and the station's router; the station router its nodes.
    out.write(
        "robot-credentials.txt",
        &(line("robot-node") + &line("station-router")),
        0o600,
    )?;
    out.write("station-credentials.txt", &line("station-node"), 0o600)?;
    // Nodes are peers that also accept each other: each host's nodes share one user.
    out.write("robot-node-credentials.txt", &line("robot-node"), 0o600)?;
    out.write("station-node-credentials.txt", &line("station-node"), 0o600)?;
    let mut env = String::from(
        "# ZENOH_CONFIG_OVERRIDE values that give each process of the usrpwd example its password:\n\
         #   . ./passwords.env; ZENOH_CONFIG_OVERRIDE=\"$ZSHM_ROBOT_NODE_AUTH\" zshm talker ...\n",
    );
    for user in users {
        let var = user.to_uppercase().replace('-', "_");
        env.push_str(&format!(
            "ZSHM_{var}_AUTH='transport/auth/usrpwd/password=\"{}\"'\n",
            secret(user)
        ));
    }
    out.write("passwords.env", &env, 0o600)
}

/// 24 random letters and digits (about 140 bits).
fn password() -> Result<String, CertsError> {
    const ALPHABET: &[u8] = b"ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";
    let mut bytes = [0u8; 24];
    getrandom::fill(&mut bytes).map_err(|err| CertsError::Random(err.to_string()))?;
    Ok(bytes
        .iter()
        .map(|b| ALPHABET[*b as usize % ALPHABET.len()] as char)
        .collect())
}

/// Common name and validity: from five minutes ago (clock skew between hosts) for `days`.
fn params(name: &str, sans: &[String], days: u32) -> Result<CertificateParams, CertsError> {
    let error = |source| CertsError::Certificate {
        name: name.to_owned(),
        source,
    };
    // Names that parse as IP addresses become iPAddress SANs, the others dNSName SANs.
    let mut params = CertificateParams::new(sans.to_vec()).map_err(error)?;
    let mut dn = DistinguishedName::new();
    dn.push(DnType::OrganizationName, "zshm example");
    dn.push(DnType::CommonName, name);
    params.distinguished_name = dn;
    let now = OffsetDateTime::now_utc();
    params.not_before = now - Duration::minutes(5);
    params.not_after = now + Duration::days(i64::from(days));
    Ok(params)
}

/// A self-signed CA: its PEM and what signs the leaves.
fn certificate_authority(days: u32) -> Result<(String, Issuer<'static, KeyPair>), CertsError> {
    const NAME: &str = "zshm example CA";
    let error = |source| CertsError::Certificate {
        name: NAME.to_owned(),
        source,
    };
    let mut params = params(NAME, &[], days)?;
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    let key = KeyPair::generate_for(&PKCS_ECDSA_P256_SHA256).map_err(error)?;
    let pem = params.self_signed(&key).map_err(error)?.pem();
    Ok((pem, Issuer::new(params, key)))
}

/// A certificate for both sides of TLS, signed by `ca`: its PEM and its PKCS#8 key.
fn leaf(
    name: &str,
    sans: &[String],
    ca: &Issuer<'_, KeyPair>,
    days: u32,
) -> Result<(String, String), CertsError> {
    let error = |source| CertsError::Certificate {
        name: name.to_owned(),
        source,
    };
    let mut params = params(name, sans, days)?;
    params.is_ca = IsCa::ExplicitNoCa;
    params.key_usages = vec![KeyUsagePurpose::DigitalSignature];
    params.extended_key_usages = vec![
        ExtendedKeyUsagePurpose::ServerAuth,
        ExtendedKeyUsagePurpose::ClientAuth,
    ];
    params.use_authority_key_identifier_extension = true;
    let key = KeyPair::generate_for(&PKCS_ECDSA_P256_SHA256).map_err(error)?;
    let pem = params.signed_by(&key, ca).map_err(error)?.pem();
    Ok((pem, key.serialize_pem()))
}

/// The output directory and what was written to it.
struct Output {
    dir: PathBuf,
    written: Vec<PathBuf>,
}

impl Output {
    fn new(dir: &Path) -> Result<Self, CertsError> {
        fs::create_dir_all(dir).map_err(|source| CertsError::Write {
            path: dir.display().to_string(),
            source,
        })?;
        Ok(Self {
            dir: dir.to_owned(),
            written: Vec::new(),
        })
    }

    /// Creates `name` with `mode` from the start (a key is never readable by others, not even
    /// for a moment), refusing to replace an existing file.
    fn write(&mut self, name: &str, text: &str, mode: u32) -> Result<(), CertsError> {
        let path = self.dir.join(name);
        let error = |source| CertsError::Write {
            path: path.display().to_string(),
            source,
        };
        let mut file = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(mode)
            .open(&path)
            .map_err(error)?;
        file.write_all(text.as_bytes()).map_err(error)?;
        // The umask may have removed bits from `mode`; never added any.
        fs::set_permissions(&path, fs::Permissions::from_mode(mode)).map_err(error)?;
        self.written.push(path);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_every_file_with_private_keys_private() {
        let dir = tempfile::tempdir().unwrap();
        let written = generate(dir.path(), &CertPlan::default()).unwrap();
        assert_eq!(written.len(), 1 + 4 * 2 + 5);
        for path in &written {
            let mode = fs::metadata(path).unwrap().permissions().mode() & 0o777;
            let name = path.file_name().unwrap().to_string_lossy();
            let public = name.ends_with(".pem");
            assert_eq!(mode, if public { 0o644 } else { 0o600 }, "{name}");
        }
        let dictionary = fs::read_to_string(dir.path().join("robot-credentials.txt")).unwrap();
        assert_eq!(dictionary.lines().count(), 2);
        assert!(dictionary.starts_with("robot-node:"));
    }

    #[test]
    fn refuses_to_overwrite() {
        let dir = tempfile::tempdir().unwrap();
        generate(dir.path(), &CertPlan::default()).unwrap();
        let err = generate(dir.path(), &CertPlan::default()).unwrap_err();
        assert!(matches!(err, CertsError::Write { .. }), "{err}");
    }

    #[test]
    fn routers_are_valid_for_their_host_and_nodes_for_loopback() {
        let plan = CertPlan {
            robot_host: "192.168.7.2".into(),
            ..CertPlan::default()
        };
        let [robot, station, node, _] = identities(&plan);
        assert!(robot.1.contains(&"192.168.7.2".to_owned()));
        assert!(station.1.contains(&"10.0.0.2".to_owned()));
        assert!(node.1.contains(&"127.0.0.1".to_owned()) && node.1.contains(&"localhost".to_owned()));
    }
}
