//! Unit tests of config resolution: lookup order, overrides, environment variables, errors.

use super::*;

fn request(role: Role) -> ConfigRequest {
    ConfigRequest::new(role)
}

/// A file in a directory that is removed when the returned guard drops.
fn temp_file(name: &str, text: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    (dir, path)
}

fn get(resolved: &ResolvedConfig, key: &str) -> String {
    resolved.zenoh.get_json(key).unwrap()
}

#[test]
fn builtin_defaults_enable_shm_with_the_documented_pool() {
    for role in [Role::Router, Role::Session] {
        let resolved = resolve(&request(role), &Environment::empty()).unwrap();
        assert!(matches!(resolved.source, ConfigSource::Builtin(_)));
        assert!(resolved.shm.enabled);
        assert_eq!(resolved.shm.pool_size, 64 * 1024 * 1024 + 64 * 1024);
        assert_eq!(resolved.shm.message_size_threshold, 512);
        assert_eq!(resolved.shm.mode, ShmInitMode::Lazy);
    }
    let router = resolve(&request(Role::Router), &Environment::empty()).unwrap();
    assert_eq!(get(&router, "mode"), "\"router\"");
    let session = resolve(&request(Role::Session), &Environment::empty()).unwrap();
    assert_eq!(get(&session, "mode"), "\"peer\"");
}

#[test]
fn explicit_file_beats_environment_which_beats_builtin() {
    let (_from_env_dir, from_env) = temp_file(
        "env.json5",
        "{ mode: \"peer\", transport: { shared_memory: { enabled: false } } }",
    );
    let (_explicit_dir, explicit) = temp_file("explicit.json5", "{ mode: \"client\" }");
    let env = Environment::empty().with(env::SESSION_CONFIG_URI, from_env.to_str().unwrap());

    let resolved = resolve(&request(Role::Session), &env).unwrap();
    assert!(matches!(
        resolved.source,
        ConfigSource::EnvVar {
            var: env::SESSION_CONFIG_URI,
            ..
        }
    ));
    assert!(!resolved.shm.enabled);

    let mut req = request(Role::Session);
    req.file = Some(explicit.clone());
    let resolved = resolve(&req, &env).unwrap();
    assert_eq!(resolved.source, ConfigSource::Explicit(explicit));
    assert_eq!(get(&resolved, "mode"), "\"client\"");

    // The router ignores the session variable.
    let router = resolve(&request(Role::Router), &env).unwrap();
    assert!(matches!(router.source, ConfigSource::Builtin(_)));
}

#[test]
fn overrides_then_shm_variables_then_flags() {
    let env = Environment::empty()
        .with(env::CONFIG_OVERRIDE, "transport/shared_memory/transport_optimization/pool_size=1048576;scouting/multicast/enabled=false")
        .with(env::SHM_ALLOC_SIZE, "2097152")
        .with(env::SHM_MESSAGE_SIZE_THRESHOLD, "4096");
    let mut req = request(Role::Session);
    req.connect = vec!["tcp/127.0.0.1:1234".into()];
    req.listen = vec!["tcp/127.0.0.1:0".into()];
    let resolved = resolve(&req, &env).unwrap();
    assert_eq!(
        resolved.shm.pool_size, 2_097_152,
        "ZENOH_SHM_ALLOC_SIZE applies after the override"
    );
    assert_eq!(resolved.shm.message_size_threshold, 4096);
    assert!(get(&resolved, "connect/endpoints").contains("tcp/127.0.0.1:1234"));
    assert!(get(&resolved, "listen/endpoints").contains("tcp/127.0.0.1:0"));

    req.no_shm = true;
    let resolved = resolve(&req, &env).unwrap();
    assert!(!resolved.shm.enabled);
    assert!(resolved.shm.disabled_by_flag);
}

#[test]
fn zero_shm_variables_mean_use_the_config() {
    let env = Environment::empty()
        .with(env::SHM_ALLOC_SIZE, "0")
        .with(env::SHM_MESSAGE_SIZE_THRESHOLD, "0");
    let resolved = resolve(&request(Role::Session), &env).unwrap();
    assert_eq!(resolved.shm.pool_size, 67_174_400);
    assert_eq!(resolved.shm.message_size_threshold, 512);
}

#[test]
fn unreadable_file_names_the_file() {
    let mut req = request(Role::Router);
    req.file = Some("/nonexistent/zshm.json5".into());
    let err = resolve(&req, &Environment::empty()).unwrap_err();
    assert!(matches!(err, ConfigError::Read { .. }));
    assert!(err.to_string().contains("/nonexistent/zshm.json5"), "{err}");
}

#[test]
fn syntax_errors_carry_file_and_line() {
    let (_path_dir, path) = temp_file(
        "syntax.json5",
        "{\n  mode: \"peer\",\n  connect: { endpoints: [ \n}\n",
    );
    let mut req = request(Role::Session);
    req.file = Some(path.clone());
    let err = resolve(&req, &Environment::empty()).unwrap_err();
    let ConfigError::Syntax { line, .. } = &err else {
        panic!("{err:?}")
    };
    assert_eq!(*line, 4);
    assert!(
        err.to_string().starts_with(&format!("{}:4:", path.display())),
        "{err}"
    );
}

#[test]
fn unknown_and_mistyped_keys_name_the_key() {
    let (_unknown_dir, unknown) = temp_file(
        "unknown.json5",
        "{ transport: { shared_memory: { enabeld: true } } }",
    );
    let mut req = request(Role::Session);
    req.file = Some(unknown);
    let err = resolve(&req, &Environment::empty()).unwrap_err();
    assert!(matches!(err, ConfigError::Schema { .. }), "{err:?}");
    assert!(err.to_string().contains("enabeld"), "{err}");

    let (_mistyped_dir, mistyped) = temp_file(
        "mistyped.json5",
        "{ transport: { shared_memory: { enabled: \"yes\" } } }",
    );
    req.file = Some(mistyped);
    let err = resolve(&req, &Environment::empty()).unwrap_err();
    let ConfigError::Schema { key, .. } = &err else {
        panic!("{err:?}")
    };
    assert_eq!(key, "transport/shared_memory/enabled");
}

#[test]
fn bad_overrides_are_errors() {
    for (value, expect_syntax) in [
        ("no_equals_here", true),
        ("transport/nope=1", false),
        ("mode=42", false),
    ] {
        let env = Environment::empty().with(env::CONFIG_OVERRIDE, value);
        let err = resolve(&request(Role::Session), &env).unwrap_err();
        if expect_syntax {
            assert!(matches!(err, ConfigError::OverrideSyntax(_)), "{value}: {err:?}");
        } else {
            assert!(
                matches!(err, ConfigError::OverrideRejected { .. }),
                "{value}: {err:?}"
            );
        }
        assert!(err.to_string().starts_with("ZENOH_CONFIG_OVERRIDE"), "{err}");
    }
}

#[test]
fn bad_shm_variables_are_errors() {
    for (name, value) in [
        (env::SHM_ALLOC_SIZE, "64MB"),
        (env::SHM_ALLOC_SIZE, "-1"),
        (env::SHM_MESSAGE_SIZE_THRESHOLD, "abc"),
        (env::SHM_MESSAGE_SIZE_THRESHOLD, "1000"),
    ] {
        let err = resolve(&request(Role::Session), &Environment::empty().with(name, value)).unwrap_err();
        assert!(
            matches!(err, ConfigError::EnvVar { .. }),
            "{name}={value}: {err:?}"
        );
        assert!(err.to_string().contains(name), "{err}");
    }
}

#[test]
fn bad_endpoint_flags_are_errors() {
    let mut req = request(Role::Router);
    req.listen = vec!["not an endpoint".into()];
    let err = resolve(&req, &Environment::empty()).unwrap_err();
    assert!(
        matches!(err, ConfigError::Flag { flag: "--listen", .. }),
        "{err:?}"
    );
}

#[test]
fn what_this_build_cannot_do_is_refused_naming_the_key() {
    for (override_, key, words) in [
        (
            r#"listen/endpoints=["serial//dev/ttyUSB0#baudrate=115200"]"#,
            "listen/endpoints",
            "serial link is not built",
        ),
        (
            r#"connect/endpoints={peer:["vsock/VMADDR_CID_ANY:7447"]}"#,
            "connect/endpoints",
            "vsock link is not built",
        ),
        (
            r#"plugins={rest:{http_port:8000}}"#,
            "plugins",
            "loads no zenoh plugins",
        ),
        (
            r#"transport/auth/usrpwd/user="alice""#,
            "transport/auth/usrpwd",
            "go together",
        ),
    ] {
        let env = Environment::empty().with(env::CONFIG_OVERRIDE, override_);
        let err = resolve(&request(Role::Router), &env).unwrap_err();
        match &err {
            ConfigError::Unsupported { key: k, message, .. } => {
                assert_eq!(k, key, "{override_}");
                assert!(message.contains(words), "{override_}: {message}");
            }
            other => panic!("{override_}: {other:?}"),
        }
    }
}

#[test]
fn what_rmw_zenohd_can_do_is_accepted() {
    let env = Environment::empty().with(
        env::CONFIG_OVERRIDE,
        r#"listen/endpoints=["tcp/127.0.0.1:0","tls/127.0.0.1:0","quic/127.0.0.1:0","ws/127.0.0.1:0","unixsock-stream//tmp/zshm.sock"];transport/auth/usrpwd/user="a";transport/auth/usrpwd/password="b""#,
    );
    resolve(&request(Role::Router), &env).unwrap();
}

#[test]
fn every_secure_example_config_loads() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../configs/secure");
    let mut loaded = 0;
    for variant in ["mtls", "usrpwd"] {
        for file in std::fs::read_dir(format!("{dir}/{variant}")).unwrap() {
            let mut req = request(Role::Router);
            req.file = Some(file.unwrap().path());
            resolve(&req, &Environment::empty()).unwrap();
            loaded += 1;
        }
    }
    assert_eq!(loaded, 8);
}
