//! Authentication, TLS, QUIC and access control with the shipped secure configs
//! (`configs/secure/`) and certificates from `zshm certs`: only the right credentials and
//! certificates get in, and only the allowed topics cross between hosts.

use crate::support::{Proc, Router, Spawn, http_get, repo_path};

/// A directory of certificates, keys and passwords written by `zshm certs`.
struct Pki {
    dir: tempfile::TempDir,
}

impl Pki {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().display().to_string();
        let mut certs = Spawn::zshm("certs", &["certs", "--out", &out, "--robot-host", "127.0.0.1"]).start();
        assert_eq!(certs.wait_exit(), 0, "{}", certs.dump());
        Pki { dir }
    }

    fn path(&self, name: &str) -> String {
        self.dir.path().join(name).display().to_string()
    }

    /// The override that points a secure config at this directory: the CA, and `identity`'s
    /// key and certificate on both the listening and the connecting side.
    fn tls(&self, identity: &str) -> String {
        self.tls_with(identity, self)
    }

    /// Like [`tls`](Self::tls), with the key and certificate taken from `other`'s directory.
    fn tls_with(&self, identity: &str, other: &Pki) -> String {
        let (key, cert) = (
            other.path(&format!("{identity}.key")),
            other.path(&format!("{identity}.pem")),
        );
        [
            format!(
                r#"transport/link/tls/root_ca_certificate="{}""#,
                self.path("ca.pem")
            ),
            format!(r#"transport/link/tls/listen_private_key="{key}""#),
            format!(r#"transport/link/tls/listen_certificate="{cert}""#),
            format!(r#"transport/link/tls/connect_private_key="{key}""#),
            format!(r#"transport/link/tls/connect_certificate="{cert}""#),
        ]
        .join(";")
    }

    /// `user`'s password, from the dictionary `zshm certs` wrote.
    fn password(&self, dictionary: &str, user: &str) -> String {
        std::fs::read_to_string(self.path(dictionary))
            .unwrap()
            .lines()
            .find_map(|line| line.strip_prefix(&format!("{user}:")))
            .unwrap_or_else(|| panic!("{user} not in {dictionary}"))
            .to_owned()
    }
}

fn secure(variant: &str, file: &str) -> String {
    repo_path(&format!("configs/secure/{variant}/{file}"))
}

/// A robot router from a secure config, listening on loopback with `listen` (port 0).
fn robot_router(variant: &str, listen: &str, overrides: &str) -> Router {
    let config = secure(variant, "ROBOT_ROUTER_CONFIG.json5");
    let spawn = Spawn::zshm(
        "robot router",
        &["router", "-c", &config, "-l", listen, "--metrics", "127.0.0.1:0"],
    )
    .env("ZENOH_CONFIG_OVERRIDE", overrides);
    let prefix = &listen[..listen.len() - 1]; // "tls/127.0.0.1:"
    Router::launch(spawn, prefix)
}

/// A robot node: `zshm <args>` with the robot's session config, connected to `router`.
fn robot_node(name: &str, variant: &str, router: &Router, args: &[&str], overrides: &str) -> Spawn {
    let config = secure(variant, "ROBOT_SESSION_CONFIG.json5");
    let mut all = args.to_vec();
    all.extend(["-c", &config, "-e", &router.locator]);
    Spawn::zshm(name, &all)
        .env("ZENOH_CONFIG_OVERRIDE", overrides)
        .env("ZENOH_ROUTER_CHECK_ATTEMPTS", "-1")
}

/// A talker on `topic` that keeps publishing while the test runs.
fn talker(variant: &str, router: &Router, topic: &str, overrides: &str) -> Proc {
    robot_node(
        "talker",
        variant,
        router,
        &["talker", "--topic", topic, "-r", "20"],
        overrides,
    )
    .start()
}

/// Runs a listener for 3 messages on `topic`; returns whether it heard them.
fn hears(node: Spawn) -> bool {
    let mut listener = node.start();
    let code = listener.wait_exit();
    assert!(!listener.stderr().contains("panicked"), "{}", listener.dump());
    let heard = listener
        .stdout()
        .iter()
        .filter(|l| l.starts_with("I heard: [Hello World"))
        .count();
    assert_eq!(code == 0, heard >= 3, "{}", listener.dump());
    if code != 0 {
        // A caller that expected it to hear fails with this listener's own story.
        eprintln!("the listener heard nothing:\n{}", listener.dump());
    }
    code == 0
}

fn listener(variant: &str, router: &Router, topic: &str, overrides: &str) -> Spawn {
    robot_node(
        "listener",
        variant,
        router,
        &["listener", "--topic", topic, "-n", "3", "--timeout", "8"],
        overrides,
    )
}

#[test]
fn secure_configs_are_what_the_script_writes() {
    let out = tempfile::tempdir().unwrap();
    let status = std::process::Command::new("python3")
        .arg(repo_path("tools/make_secure_configs.py"))
        .arg(out.path())
        .status()
        .unwrap();
    assert!(status.success());
    for variant in ["mtls", "usrpwd"] {
        for file in std::fs::read_dir(out.path().join(variant)).unwrap() {
            let file = file.unwrap().path();
            let name = file.file_name().unwrap().to_string_lossy().to_string();
            let shipped = std::fs::read_to_string(secure(variant, &name)).unwrap();
            assert!(
                std::fs::read_to_string(&file).unwrap() == shipped,
                "configs/secure/{variant}/{name} differs from tools/make_secure_configs.py's output: rerun it"
            );
        }
    }
}

/// usrpwd: a node without credentials, with a wrong password, and with the right one; only the
/// last hears the talker. The same for the independent Python peer.
#[test]
fn usrpwd_admits_only_the_right_credentials() {
    let pki = Pki::new();
    let server_tls = format!(
        r#"transport/link/tls/root_ca_certificate="{}";transport/link/tls/listen_private_key="{}";transport/link/tls/listen_certificate="{}""#,
        pki.path("ca.pem"),
        pki.path("robot-router.key"),
        pki.path("robot-router.pem")
    );
    let router = robot_router(
        "usrpwd",
        "tls/127.0.0.1:0",
        &format!(
            r#"{server_tls};transport/auth/usrpwd/dictionary_file="{}""#,
            pki.path("robot-credentials.txt")
        ),
    );
    let node = |user: Option<&str>, password: &str| {
        let credentials = match user {
            Some(user) => {
                format!(r#"transport/auth/usrpwd/user="{user}";transport/auth/usrpwd/password="{password}""#)
            }
            None => "transport/auth/usrpwd/user=null;transport/auth/usrpwd/password=null".into(),
        };
        format!(
            r#"transport/link/tls/root_ca_certificate="{}";transport/auth/usrpwd/dictionary_file="{}";{credentials}"#,
            pki.path("ca.pem"),
            pki.path("robot-node-credentials.txt"),
        )
    };
    let right = pki.password("robot-node-credentials.txt", "robot-node");
    let _talker = talker("usrpwd", &router, "chatter", &node(Some("robot-node"), &right));

    assert!(
        !hears(listener("usrpwd", &router, "chatter", &node(None, ""))),
        "no credentials"
    );
    assert!(
        !hears(listener(
            "usrpwd",
            &router,
            "chatter",
            &node(Some("robot-node"), "wrong")
        )),
        "wrong password"
    );
    assert!(hears(listener(
        "usrpwd",
        &router,
        "chatter",
        &node(Some("robot-node"), &right)
    )));

    // The independent Python implementation, with the same three settings.
    // Refused attempts wait their whole timeout; the admitted one gets room for one of zenoh's
    // connect retries on a loaded machine.
    let python = |settings: &[String], timeout: &str| {
        let python = std::env::var("ZSHM_PYTHON").unwrap_or_else(|_| "python3".into());
        let script = repo_path("router/tests/interop/rmw_zenoh_peer.py");
        let mut args: Vec<String> = [
            "listen",
            "--joins-late",
            "--connect",
            &router.locator,
            "--count",
            "3",
            "--timeout",
            timeout,
        ]
        .map(String::from)
        .to_vec();
        for setting in settings {
            args.extend(["--set".into(), setting.clone()]);
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let mut peer =
            Spawn::program("python peer", &python, &[&[script.as_str()], &args[..]].concat()).start();
        let code = peer.wait_exit();
        (code, peer.json())
    };
    let settings = |overrides: String| overrides.split(';').map(String::from).collect::<Vec<_>>();
    let (code, report) = python(&settings(node(None, "")), "8");
    assert_eq!((code, report["received"].as_u64()), (1, Some(0)), "{report}");
    let (code, report) = python(&settings(node(Some("robot-node"), "wrong")), "8");
    assert_eq!((code, report["received"].as_u64()), (1, Some(0)), "{report}");
    let (code, report) = python(&settings(node(Some("robot-node"), &right)), "30");
    assert_eq!(code, 0, "{report}");
    assert_eq!(report["received"], 3);
}

/// Mutual TLS: a node whose certificate the router's CA signed exchanges 4 MiB messages through
/// the router, every byte checked; one without a certificate, and one whose certificate another
/// CA signed, are refused, and the router says why.
#[test]
fn mtls_admits_only_certificates_of_its_ca() {
    let pki = Pki::new();
    let router = robot_router("mtls", "tls/127.0.0.1:0", &pki.tls("robot-router"));
    // Clients of the router, so that the data crosses it rather than a direct peer link.
    let client = format!(r#"{};mode="client""#, pki.tls("robot-node"));
    let mut sub = robot_node("sub", "mtls", &router, &["sub", "-n", "20", "-t", "60"], &client).start();
    let mut publisher = robot_node(
        "pub",
        "mtls",
        &router,
        &["pub", "--size", "4194304", "-n", "20", "-r", "20"],
        &client,
    )
    .start();
    assert_eq!(sub.wait_exit(), 0, "{}", sub.dump());
    assert_eq!(publisher.wait_exit(), 0, "{}", publisher.dump());
    let summary = sub.json();
    assert_eq!(summary["distinct"], 20, "{summary}");
    assert_eq!(summary["tally"]["corrupt"], 0, "{summary}");
    assert_eq!(summary["tally"]["bytes"], 20 * 4194304, "{summary}");

    let _talker = talker("mtls", &router, "chatter", &pki.tls("robot-node"));
    assert!(hears(listener(
        "mtls",
        &router,
        "chatter",
        &pki.tls("robot-node")
    )));
    let no_certificate = format!("{};transport/link/tls/enable_mtls=false", pki.tls("robot-node"));
    assert!(!hears(listener("mtls", &router, "chatter", &no_certificate)));
    router
        .proc
        .wait_for_stderr("refusal of the node without a certificate", |l| {
            l.contains("peer sent no certificates")
        });
    let other = Pki::new();
    assert!(!hears(listener(
        "mtls",
        &router,
        "chatter",
        &pki.tls_with("robot-node", &other)
    )));
    router
        .proc
        .wait_for_stderr("refusal of the foreign certificate", |l| {
            // UnknownIssuer, or BadSignature when the other CA has the same name as ours.
            l.contains("invalid peer certificate")
        });
}

/// QUIC (UDP) with the same TLS settings: listen and connect work.
#[test]
fn quic_listen_and_connect_work() {
    let pki = Pki::new();
    let router = robot_router("mtls", "quic/127.0.0.1:0", &pki.tls("robot-router"));
    assert!(router.locator.starts_with("quic/"), "{}", router.locator);
    let _talker = talker("mtls", &router, "chatter", &pki.tls("robot-node"));
    // QUIC's and TLS's handshakes come before the first message: on a loaded machine (the full
    // suite on two cores) 8 s were once not enough, so this listener, which must hear, gets 30.
    let patient = robot_node(
        "listener",
        "mtls",
        &router,
        &["listener", "--topic", "chatter", "-n", "3", "--timeout", "30"],
        &pki.tls("robot-node"),
    );
    assert!(hears(patient));
}

/// Access control between a robot and a control station (two routers, the shipped ACLs): the
/// allowed topic crosses, a denied one does not, and the station router logs the denial.
#[test]
fn acl_lets_only_the_named_topics_cross_between_hosts() {
    let pki = Pki::new();
    let robot = robot_router("mtls", "tls/127.0.0.1:0", &pki.tls("robot-router"));
    let station_config = secure("mtls", "STATION_ROUTER_CONFIG.json5");
    let station = Router::launch(
        Spawn::zshm(
            "station router",
            &[
                "router",
                "-c",
                &station_config,
                "-l",
                "tls/127.0.0.1:0",
                "-e",
                &robot.locator,
                "--metrics",
                "127.0.0.1:0",
            ],
        )
        .env("ZENOH_CONFIG_OVERRIDE", &pki.tls("station-router"))
        .env(
            "RUST_LOG",
            "zshm=info,zenoh=warn,zenoh_config=error,zenoh::net::routing::interceptor::access_control=trace",
        ),
        "tls/127.0.0.1:",
    );
    let _odom = talker("mtls", &robot, "odom", &pki.tls("robot-node"));
    let _secret = talker("mtls", &robot, "secret", &pki.tls("robot-node"));
    let station_node = |topic: &str| {
        let config = secure("mtls", "STATION_SESSION_CONFIG.json5");
        Spawn::zshm(
            "station listener",
            &[
                "listener",
                "--topic",
                topic,
                "-n",
                "3",
                "--timeout",
                "8",
                "-c",
                &config,
                "-e",
                &station.locator,
            ],
        )
        .env("ZENOH_CONFIG_OVERRIDE", &pki.tls("station-node"))
        .env("ZENOH_ROUTER_CHECK_ATTEMPTS", "-1")
    };
    assert!(hears(station_node("odom")), "odom is allowed robot -> station");
    assert!(!hears(station_node("secret")), "secret must not leave the robot");
    // The station's subscription to /secret is what its router does not let out.
    station.proc.wait_for_stderr("the ACL's denial of /secret", |l| {
        l.contains("unauthorized to Declare Subscriber (egress) on 0/secret/")
    });
}

/// `zshm doctor` reports the security posture of both configs: the shipped default router is
/// open to the network without authentication (a warning), the secure one uses mutual TLS with
/// matching, valid files, and a certificate whose key is not its own fails.
#[test]
fn doctor_reports_the_security_posture() {
    let doctor = |args: &[&str], overrides: &str| {
        let mut all = vec!["doctor", "--json"];
        all.extend_from_slice(args);
        let mut doctor = Spawn::zshm("doctor", &all)
            .env("ZENOH_CONFIG_OVERRIDE", overrides)
            .start();
        let code = doctor.wait_exit();
        let report = doctor.json();
        let check = |name: &str| {
            report["checks"]
                .as_array()
                .unwrap()
                .iter()
                .find(|c| c["name"] == name)
                .unwrap_or_else(|| panic!("no `{name}` check: {report}"))
                .clone()
        };
        (
            code,
            check("router exposure"),
            check("router TLS"),
            check("router access control"),
        )
    };
    let (_, exposure, tls, acl) = doctor(&[], "");
    assert_eq!(exposure["severity"], "warn", "{exposure}");
    assert!(
        exposure["summary"].as_str().unwrap().contains("tcp/[::]:7447"),
        "{exposure}"
    );
    assert_eq!(tls["summary"], "no tls/ or quic/ endpoint");
    assert_eq!(acl["severity"], "warn", "{acl}");

    let pki = Pki::new();
    let router_config = secure("mtls", "ROBOT_ROUTER_CONFIG.json5");
    let session_config = secure("mtls", "ROBOT_SESSION_CONFIG.json5");
    let files = [
        "--router-config",
        &router_config,
        "--session-config",
        &session_config,
    ];
    let (_, exposure, tls, acl) = doctor(&files, &pki.tls("robot-router"));
    assert_eq!(exposure["severity"], "ok", "{exposure}");
    assert_eq!(tls["severity"], "ok", "{tls}");
    assert!(
        tls["summary"].as_str().unwrap().starts_with("mutual TLS"),
        "{tls}"
    );
    assert_eq!(acl["severity"], "ok", "{acl}");

    let swapped = pki
        .tls("robot-router")
        .replace("robot-router.key", "robot-node.key");
    let (code, _, tls, _) = doctor(&files, &swapped);
    assert_eq!(code, 1);
    assert_eq!(tls["severity"], "fail", "{tls}");
    assert!(
        tls["summary"].as_str().unwrap().contains("is not the key of"),
        "{tls}"
    );
}

/// A wrapper running the program as user `nobody`, keeping the right to lock memory so that its
/// own shared memory works (as a user given `LimitMEMLOCK` or CAP_IPC_LOCK would).
fn as_another_user() -> Vec<String> {
    [
        "setpriv",
        "--reuid=65534",
        "--regid=65534",
        "--clear-groups",
        "--inh-caps=+ipc_lock",
        "--ambient-caps=+ipc_lock",
        "env",
        "HOME=/tmp",
    ]
    .map(String::from)
    .to_vec()
}

/// Two users on one host: zenoh's segments are private to their owner, so a probe of another
/// user gets the camera's clouds over TCP. It still gets every byte, and it says so: which path,
/// why and the fix (once), in the metrics and in `zshm doctor`; it never claims shared memory.
/// No zenoh segment is ever readable by others.
#[test]
#[ignore = "needs root to run a process as another user: tools/test.sh runs it as root, as CI does"]
fn shared_memory_between_two_users_falls_back_visibly() {
    let router = Router::start(&[]);
    let _camera = Spawn::zshm(
        "camera",
        &["cam-pub", "-e", &router.locator, "--pattern", "--rate", "5"],
    )
    .start();
    let mut probe = Spawn::wrapped(
        "probe of another user",
        &as_another_user(),
        &[
            "cam-latency",
            "-e",
            &router.locator,
            "--verify",
            "--verbose",
            "-n",
            "20",
            "-w",
            "1",
            "--timeout",
            "60",
        ],
    )
    .start();
    let path = probe.wait_for_stderr("the path line", |l| {
        l.contains("of messages arrive through shared memory")
    });
    assert!(
        path.contains("0% of messages arrive through shared memory, the rest over the network"),
        "{path}"
    );
    assert!(
        path.contains("belongs to another user") && path.contains("fix: run the processes"),
        "{path}"
    );

    let metrics = http_get(&router.metrics);
    let refused = metrics.lines().find(|l| {
        l.starts_with("zshm_same_host_links_without_shm_total{")
            && l.contains("node=\"/cam_latency\"")
            && l.contains("reason=\"other_user\"")
    });
    let count: f64 = refused
        .and_then(|l| l.rsplit(' ').next())
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no other_user link in the metrics:\n{metrics}"));
    assert!(count >= 1.0, "{metrics}");

    let mut doctor = Spawn::wrapped(
        "doctor of another user",
        &as_another_user(),
        &["doctor", "--json"],
    )
    .start();
    doctor.wait_exit();
    let report = doctor.json();
    let users = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "users sharing memory")
        .unwrap_or_else(|| panic!("{report}"))
        .clone();
    assert_eq!(users["severity"], "warn", "{users}");
    assert!(users["summary"].as_str().unwrap().contains("uid [0]"), "{users}");

    for entry in std::fs::read_dir("/dev/shm").unwrap().flatten() {
        if entry.file_name().to_string_lossy().ends_with(".zenoh") {
            use std::os::unix::fs::PermissionsExt;
            let mode = entry.metadata().map(|m| m.permissions().mode()).unwrap_or(0);
            assert_eq!(mode & 0o077, 0, "{:?} is readable by others", entry.path());
        }
    }

    assert_eq!(probe.wait_exit(), 0, "{}", probe.dump());
    let stderr = probe.stderr();
    let warnings = stderr
        .lines()
        .filter(|l| l.contains("WARN") && l.contains("belongs to another user"))
        .count();
    assert_eq!(warnings, 1, "logged once:\n{stderr}");
    let summary = probe.stdout().join("\n");
    assert!(
        summary.contains("shm=0%") && summary.contains("lost=0"),
        "{summary}"
    );
}
