//! The config loader, `ZENOH_CONFIG_OVERRIDE` and the other `ZENOH_*` variables driven with
//! random input (issue 11): every outcome is a config or a `ConfigError`, never a panic. zenoh's
//! own parsers sit underneath (json5, `insert_json5`), so this also guards against a zenoh
//! upgrade that starts panicking on some input.

use proptest::prelude::*;
use zshm::config::{ConfigRequest, Environment, Role, overrides, parse_json5, resolve, runtime_env};

/// Keys zshm and rmw_zenoh users set, plus made-up ones.
fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("transport/shared_memory/enabled".to_owned()),
        Just("transport/shared_memory/mode".to_owned()),
        Just("transport/shared_memory/transport_optimization/pool_size".to_owned()),
        Just("transport/shared_memory/transport_optimization/message_size_threshold".to_owned()),
        Just("connect/endpoints".to_owned()),
        Just("listen/endpoints".to_owned()),
        Just("mode".to_owned()),
        Just("scouting/multicast/enabled".to_owned()),
        Just("adminspace/permissions/read".to_owned()),
        "[a-z_/]{0,40}",
        ".{0,20}",
    ]
}

/// JSON5 values, well-formed or not.
fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("true".to_owned()),
        Just("false".to_owned()),
        Just("\"lazy\"".to_owned()),
        Just("\"init\"".to_owned()),
        Just("[\"tcp/127.0.0.1:7447\"]".to_owned()),
        any::<i64>().prop_map(|v| v.to_string()),
        any::<u64>().prop_map(|v| v.to_string()),
        any::<f64>().prop_map(|v| v.to_string()),
        "\\[\"[a-z]{1,5}/[0-9.:]{0,20}\"(,\"[^\"]{0,10}\"){0,3}\\]",
        "\\{[a-z_]{0,8}:[0-9a-z\"]{0,8}\\}",
        "[\\[\\]{}\"';=,:0-9a-z ]{0,30}",
        ".{0,30}",
    ]
}

fn override_string() -> impl Strategy<Value = String> {
    prop_oneof![
        proptest::collection::vec((key(), value()), 0..5).prop_map(|pairs| pairs
            .into_iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(";")),
        ".{0,80}",
    ]
}

/// A shipped config, cut or with bytes flipped: text close to a real one exercises the schema
/// paths, not only the syntax errors.
fn mangled_config() -> impl Strategy<Value = String> {
    let base = zshm::config::BUILTIN_SESSION_CONFIG.as_bytes().to_vec();
    let len = base.len();
    (0..len, proptest::collection::vec((0..len, any::<u8>()), 0..6)).prop_map(move |(cut, edits)| {
        let mut bytes = base.clone();
        for (at, byte) in edits {
            bytes[at] = byte;
        }
        bytes.truncate(cut.max(len / 2));
        String::from_utf8_lossy(&bytes).into_owned()
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn overrides_never_panic(text in override_string()) {
        let _ = overrides::parse(&text);
        for role in [Role::Router, Role::Session] {
            let env = Environment::empty().with("ZENOH_CONFIG_OVERRIDE", &text);
            let _ = resolve(&ConfigRequest::new(role), &env);
        }
    }

    #[test]
    fn size_variables_never_panic(alloc in ".{0,24}", threshold in ".{0,24}", n in any::<u64>()) {
        for (alloc, threshold) in [(alloc.clone(), threshold.clone()), (n.to_string(), n.to_string())] {
            let env = Environment::empty()
                .with("ZENOH_SHM_ALLOC_SIZE", &alloc)
                .with("ZENOH_SHM_MESSAGE_SIZE_THRESHOLD", &threshold);
            let _ = resolve(&ConfigRequest::new(Role::Session), &env);
        }
    }

    #[test]
    fn runtime_variable_never_panics(text in prop_oneof![".{0,60}", "\\((app|net|rx|tx|acc): \\((worker_threads|max_blocking_threads): [-0-9a-z]{0,5}\\)\\)"]) {
        let _ = runtime_env::validate(&text);
    }

    #[test]
    fn flags_never_panic(listen in proptest::collection::vec(".{0,30}", 0..3), connect in proptest::collection::vec(".{0,30}", 0..3), no_shm in any::<bool>()) {
        let mut request = ConfigRequest::new(Role::Router);
        request.listen = listen;
        request.connect = connect;
        request.no_shm = no_shm;
        let _ = resolve(&request, &Environment::empty());
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn config_files_never_panic(text in prop_oneof![mangled_config(), ".{0,200}", "\\{[a-z_:{}\\[\\]\",0-9 ]{0,120}\\}"]) {
        let _ = parse_json5("fuzz.json5", &text);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("fuzz.json5");
        std::fs::write(&path, &text).unwrap();
        let mut request = ConfigRequest::new(Role::Session);
        request.file = Some(path);
        let _ = resolve(&request, &Environment::empty());
    }
}
