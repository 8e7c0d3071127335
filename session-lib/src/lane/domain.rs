//! The lane's iceoryx2 domain: one private directory and one /dev/shm prefix per user, so that
//! several users on one host never share (or block) each other's state.
//!
//! iceoryx2 keeps its state under `/tmp/iceoryx2` by default; once root has created that
//! directory (mode 0750), every other user's iceoryx2 fails with `InternalError`. The lane never
//! uses it: its root is `$XDG_RUNTIME_DIR/zshm-lane` (per user, cleaned at logout), else
//! `/tmp/zshm-lane-<uid>`, or `ZSHM_LANE_ROOT`. zshm creates it 0700 and refuses one that another
//! user owns or can write, because iceoryx2 checks neither. Files in /dev/shm are named
//! `z<uid>_<hash of the root>_...`, so `zshm shm-clean` finds exactly this domain's files.
//!
//! Processes of different users never meet in the lane (iceoryx2 makes its files 0600); they
//! talk through zenoh, as processes on different hosts do.
//!
//! # One domain per /dev/shm, not per /tmp
//!
//! iceoryx2 keeps part of a service under its root (static config, node files, the wake-up
//! sockets) and part in /dev/shm (the segments). Two "hosts" may share the first and not the
//! second: containers or network namespaces that mount their own /dev/shm but share /tmp and the
//! user (router/tests/it/hosts.rs builds exactly that). Processes there must not meet in the
//! lane: one would find the other's services under the root, fail to open their segments, and
//! could even take the other's nodes for dead and remove their files. So iceoryx2's state lives
//! in a directory of the root named after this /dev/shm ([`state_dir`]): the key in a marker
//! file, `/dev/shm/zshm-lane-<uid>.host`, that the first process of the user creates with a
//! random value ([`host_key`]). Processes that see the same /dev/shm read the same key and meet;
//! processes that see another /dev/shm read another key and talk through zenoh.
//!
//! The executors' doorbells (named pipes, see `doorbell`) are in /dev/shm as well, in a
//! private directory of the domain ([`bells_dir`]): a tmpfs, where a ring costs no journaled
//! inode update.

use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use iceoryx2::prelude::*;

use super::status::LaneUnavailable;
use super::{SUBSCRIBER_MAX_BORROWED, Svc};
use crate::config::{ConfigError, Environment, ShmSettings, env};

/// The longest root accepted: iceoryx2 puts each listener's socket at
/// `<root>/<host key>/<prefix><30-digit id>.event`, and a unix socket path holds at most 107
/// bytes.
pub const MAX_ROOT_LEN: usize = 41;

/// Where iceoryx2 keeps its segments, and where the marker naming this host's domain lives.
const DEV_SHM: &str = "/dev/shm";

/// Whether the lane is on for a session, and where it keeps its state (decided at open).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaneSettings {
    /// Why it is off, or `None` when it is on.
    pub off: Option<LaneUnavailable>,
    /// The private directory of the lane's iceoryx2 state.
    pub root: PathBuf,
    /// Subscriptions are woken through their executor's doorbell (`ZSHM_LANE_WAKE=doorbell`,
    /// the default) rather than through each publisher's own event (`publisher`).
    pub doorbells: bool,
}

/// Reads `ZSHM_LANE`, `ZSHM_LANE_ROOT`, `ZSHM_LANE_WAKE` and `XDG_RUNTIME_DIR`; the lane follows shared memory
/// (the `_TCP` configs and `--no-shm` turn it off too). A value zshm cannot use is an error.
///
/// ```
/// use zshm::config::{Environment, ConfigRequest, Role, resolve};
/// let env = Environment::empty().with("ZSHM_LANE", "off");
/// let shm = resolve(&ConfigRequest::new(Role::Session), &env).unwrap().shm;
/// let lane = zshm::internal::lane::domain::settings(&env, &shm, false).unwrap();
/// assert_eq!(lane.off.unwrap().label(), "disabled_by_env");
/// ```
pub fn settings(env: &Environment, shm: &ShmSettings, no_lane: bool) -> Result<LaneSettings, ConfigError> {
    let wanted = match env.get(env::ZSHM_LANE).map(|v| v.trim().to_ascii_lowercase()) {
        None => true,
        Some(v) if ["", "on", "1", "true", "yes"].contains(&v.as_str()) => true,
        Some(v) if ["off", "0", "false", "no"].contains(&v.as_str()) => false,
        Some(_) => {
            return Err(ConfigError::EnvVar {
                name: env::ZSHM_LANE,
                value: env.get(env::ZSHM_LANE).unwrap_or_default().to_owned(),
                expected: "on or off",
            });
        }
    };
    let off = if !wanted {
        Some(LaneUnavailable::DisabledByEnv)
    } else if no_lane {
        Some(LaneUnavailable::DisabledByFlag)
    } else if shm.disabled_by_flag {
        Some(LaneUnavailable::ShmDisabledByFlag)
    } else if !shm.enabled {
        Some(LaneUnavailable::ShmDisabledInConfig)
    } else {
        None
    };
    let doorbells = match env
        .get(env::ZSHM_LANE_WAKE)
        .map(|v| v.trim().to_ascii_lowercase())
    {
        None => true,
        Some(v) if ["", "doorbell"].contains(&v.as_str()) => true,
        Some(v) if v == "publisher" => false,
        Some(_) => {
            return Err(ConfigError::EnvVar {
                name: env::ZSHM_LANE_WAKE,
                value: env.get(env::ZSHM_LANE_WAKE).unwrap_or_default().to_owned(),
                expected: "doorbell or publisher",
            });
        }
    };
    Ok(LaneSettings {
        off,
        root: root(env)?,
        doorbells,
    })
}

/// The lane's private directory for this user: `ZSHM_LANE_ROOT`, else
/// `$XDG_RUNTIME_DIR/zshm-lane`, else `/tmp/zshm-lane-<uid>`.
pub fn root(env: &Environment) -> Result<PathBuf, ConfigError> {
    if let Some(value) = env.get(env::ZSHM_LANE_ROOT) {
        let path = PathBuf::from(value);
        if !path.is_absolute() || value.len() > MAX_ROOT_LEN {
            return Err(ConfigError::EnvVar {
                name: env::ZSHM_LANE_ROOT,
                value: value.to_owned(),
                expected: "an absolute directory path of at most 41 bytes",
            });
        }
        return Ok(path);
    }
    let uid = nix::unistd::geteuid().as_raw();
    let runtime = env
        .get(env::XDG_RUNTIME_DIR)
        .map(|dir| Path::new(dir).join("zshm-lane"))
        .filter(|path| path.is_absolute() && path.as_os_str().len() <= MAX_ROOT_LEN);
    Ok(runtime.unwrap_or_else(|| PathBuf::from(format!("/tmp/zshm-lane-{uid}"))))
}

/// The directory under `root` that holds iceoryx2's state for the processes that share this
/// host's /dev/shm (see the module docs).
pub fn state_dir(root: &Path) -> PathBuf {
    root.join(host_key())
}

/// The directory of the doorbells of the domain rooted at `root` (see `doorbell`):
/// `/dev/shm/zshm-lane-<uid>-<6 hex digits>.bells`, beside the marker that names this
/// /dev/shm's domain. It is in /dev/shm because that is a tmpfs: a named pipe on a disk
/// filesystem has its inode's times updated, through the journal on ext4, at every ring
/// written and every take read, 6% of a lane subscriber's thread at 100 Hz with the root in
/// /tmp (perf, BENCHMARKS.md "Doorbells on tmpfs").
pub fn bells_dir(root: &Path) -> PathBuf {
    bells_dir_of(Path::new(DEV_SHM), nix::unistd::geteuid().as_raw(), root)
}

/// [`bells_dir`] of user `uid`'s domain rooted at `root`, in `dev_shm`.
pub fn bells_dir_of(dev_shm: &Path, uid: u32, root: &Path) -> PathBuf {
    dev_shm.join(format!("zshm-lane-{uid}-{:06x}.bells", root_hash(root)))
}

/// Six hex digits naming the /dev/shm this process sees, read from (or first written to) the
/// marker `/dev/shm/zshm-lane-<uid>.host`. When the marker cannot be used (a read-only /dev/shm,
/// or a file another user put there), the key comes from the device and inode of /dev/shm, which
/// still differ between two mounts of it on one machine.
pub fn host_key() -> &'static str {
    static KEY: OnceLock<String> = OnceLock::new();
    KEY.get_or_init(|| {
        let dev_shm = Path::new(DEV_SHM);
        let uid = nix::unistd::geteuid().as_raw();
        match marker_key(dev_shm, uid) {
            Ok(key) => key,
            Err(err) => {
                let key = device_key(dev_shm);
                tracing::debug!("lane: no host marker in {DEV_SHM} ({err}); the domain's key is {key}");
                key
            }
        }
    })
}

/// The marker file of user `uid` in `dev_shm`.
pub fn marker_path(dev_shm: &Path, uid: u32) -> PathBuf {
    dev_shm.join(format!("zshm-lane-{uid}.host"))
}

/// The key in the marker of `uid` in `dev_shm`, written first when there is none. Concurrent
/// first processes agree: each writes its key aside and links it into place, and only one link
/// succeeds; the others read the winner's.
fn marker_key(dev_shm: &Path, uid: u32) -> std::io::Result<String> {
    let marker = marker_path(dev_shm, uid);
    if let Some(key) = read_marker(&marker, uid)? {
        return Ok(key);
    }
    let mut random = [0u8; 4];
    getrandom::fill(&mut random).map_err(|err| std::io::Error::other(err.to_string()))?;
    let key = format!("{:06x}", u32::from_le_bytes(random) & 0xff_ffff);
    let aside = dev_shm.join(format!(".zshm-lane-{uid}.{}.host", std::process::id()));
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o644)
        .open(&aside)
        .and_then(|mut file| std::io::Write::write_all(&mut file, key.as_bytes()));
    let linked = written.and_then(|()| std::fs::hard_link(&aside, &marker));
    let _ = std::fs::remove_file(&aside);
    match linked {
        Ok(()) => Ok(key),
        Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => read_marker(&marker, uid)?
            .ok_or_else(|| std::io::Error::other("the marker vanished while it was read")),
        Err(err) => Err(err),
    }
}

/// The key in `marker`; `None` when there is no marker. A marker that is not a regular file of
/// `uid` holding six hex digits is refused (another user may create files in /dev/shm).
fn read_marker(marker: &Path, uid: u32) -> std::io::Result<Option<String>> {
    let meta = match std::fs::symlink_metadata(marker) {
        Ok(meta) => meta,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(err) => return Err(err),
    };
    if !meta.is_file() || meta.uid() != uid {
        return Err(std::io::Error::other(format!(
            "{} is not a file of uid {uid}",
            marker.display()
        )));
    }
    let text = std::fs::read_to_string(marker)?;
    let key = text.trim();
    if key.len() != 6 || !key.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(std::io::Error::other(format!(
            "{} does not hold a host key",
            marker.display()
        )));
    }
    Ok(Some(key.to_owned()))
}

/// A key from the device and inode of `dev_shm` (see [`host_key`]).
fn device_key(dev_shm: &Path) -> String {
    let identity = std::fs::metadata(dev_shm).map_or((0, 0), |meta| (meta.dev(), meta.ino()));
    let hash = xxhash_rust::xxh3::xxh3_64(format!("{}:{}", identity.0, identity.1).as_bytes());
    format!("{:06x}", hash & 0xff_ffff)
}

/// The /dev/shm file prefix of this user's domain rooted at `root`: `z<uid>_<6 hex digits>_`.
pub fn prefix(root: &Path) -> String {
    prefix_of(nix::unistd::geteuid().as_raw(), root)
}

/// The /dev/shm file prefix of user `uid`'s domain rooted at `root`.
pub fn prefix_of(uid: u32, root: &Path) -> String {
    format!("z{uid}_{:06x}_", root_hash(root))
}

/// Six hex digits' worth of a hash of `root`: it tells the domains of one user apart.
fn root_hash(root: &Path) -> u64 {
    xxhash_rust::xxh3::xxh3_64(root.as_os_str().as_encoded_bytes()) & 0xff_ffff
}

/// Creates `root` (mode 0700) when missing and checks that it is a directory of this user that
/// nobody else can write: iceoryx2 would use anything it is given.
pub fn ensure_private_dir(root: &Path) -> Result<(), LaneUnavailable> {
    let unusable = |error: String| LaneUnavailable::RootUnusable {
        path: root.to_owned(),
        error,
    };
    match std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(root)
    {
        Ok(()) => {}
        Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(err) => return Err(unusable(err.to_string())),
    }
    let meta = std::fs::symlink_metadata(root).map_err(|err| unusable(err.to_string()))?;
    let uid = nix::unistd::geteuid().as_raw();
    if !meta.is_dir() {
        return Err(unusable("not a directory".into()));
    }
    if meta.uid() != uid {
        return Err(unusable(format!("owned by uid {}, not {uid}", meta.uid())));
    }
    if meta.mode() & 0o022 != 0 {
        return Err(unusable(format!(
            "mode {:o} lets others write",
            meta.mode() & 0o777
        )));
    }
    // Inside a directory only this user can enter, the state directory is private too.
    match std::fs::DirBuilder::new().mode(0o700).create(state_dir(root)) {
        Ok(()) => Ok(()),
        Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(err) => Err(unusable(err.to_string())),
    }
}

/// The iceoryx2 config of the domain rooted at `root` (its state in [`state_dir`]).
pub fn iceoryx2_config(root: &Path) -> Result<Config, LaneUnavailable> {
    let unusable = |error: String| LaneUnavailable::RootUnusable {
        path: root.to_owned(),
        error,
    };
    let mut config = Config::default();
    let mut with_slash = state_dir(root).as_os_str().as_encoded_bytes().to_vec();
    with_slash.push(b'/');
    let root_path = iceoryx2::prelude::Path::new(&with_slash)
        .map_err(|err| unusable(format!("iceoryx2 refuses the path ({err:?})")))?;
    config.global.set_root_path(&root_path);
    config.global.prefix = FileName::new(prefix(root).as_bytes())
        .map_err(|err| unusable(format!("iceoryx2 refuses the prefix ({err:?})")))?;
    // Each slot pre-allocates a connection on the heap (iceoryx2's default of 128 costs about
    // 0.4 MB per subscriber); iceoryx2 needs at least as many as a subscriber may borrow.
    config
        .defaults
        .publish_subscribe
        .subscriber_expired_connection_buffer = SUBSCRIBER_MAX_BORROWED;
    Ok(config)
}

/// Makes `config` iceoryx2's process-wide default too. iceoryx2 falls back to its global config
/// in a few paths (a node created without a config, cleaning a dead node whose details file is
/// unreadable), and that one would read `./config/iceoryx2.toml` and use `/tmp/iceoryx2`.
///
/// Only the first domain of a process becomes the global one; a second (tests open sessions
/// with different roots in one process) keeps working with its own explicit config.
pub fn install_as_global(config: &Config, root: &Path) {
    let text = match toml::to_string(config) {
        Ok(text) => text,
        Err(err) => {
            tracing::debug!("lane: iceoryx2 config not serialized: {err}");
            return;
        }
    };
    // One file per process: concurrent starters must not read each other's half-written file.
    let file = root.join(format!("iceoryx2.{}.toml", std::process::id()));
    if let Err(err) = std::fs::write(&file, text) {
        tracing::debug!("lane: cannot write {}: {err}", file.display());
        return;
    }
    let installed = iceoryx2::prelude::FilePath::new(file.as_os_str().as_encoded_bytes())
        .map_err(|err| format!("{err:?}"))
        .and_then(|path| Config::setup_global_config_from_file(&path).map_err(|err| format!("{err:?}")));
    let _ = std::fs::remove_file(&file);
    match installed {
        Ok(global) if global == config => {}
        Ok(_) => tracing::debug!("lane: another iceoryx2 global config was installed first"),
        Err(err) => tracing::debug!("lane: iceoryx2 global config not installed: {err}"),
    }
}

/// Creates this process's iceoryx2 node in the domain. iceoryx2 never touches the signal
/// handlers this way: its default mode replaces SIGINT/SIGTERM the first time a node waits.
pub fn create_node(config: &Config, name: &str) -> Result<Node<Svc>, LaneUnavailable> {
    let failed = |error: String| LaneUnavailable::NodeCreationFailed { error };
    let name = NodeName::new(name).map_err(|err| failed(format!("node name: {err:?}")))?;
    NodeBuilder::new()
        .name(&name)
        .config(config)
        .signal_handling_mode(SignalHandlingMode::Disabled)
        .create::<Svc>()
        .map_err(|err| failed(format!("{err:?}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{ConfigRequest, Role, resolve};

    fn shm(env: &Environment, no_shm: bool) -> ShmSettings {
        let mut request = ConfigRequest::new(Role::Session);
        request.no_shm = no_shm;
        resolve(&request, env).unwrap().shm
    }

    #[test]
    fn lane_wake_ups_use_the_doorbell_unless_told_otherwise() {
        let doorbells = |value: Option<&str>| {
            let env = match value {
                Some(value) => Environment::empty().with("ZSHM_LANE_WAKE", value),
                None => Environment::empty(),
            };
            settings(&env, &shm(&env, false), false).map(|s| s.doorbells)
        };
        assert!(doorbells(None).unwrap());
        assert!(doorbells(Some(" Doorbell ")).unwrap());
        assert!(!doorbells(Some("publisher")).unwrap());
        let err = doorbells(Some("both")).unwrap_err().to_string();
        assert!(
            err.contains("ZSHM_LANE_WAKE") && err.contains("doorbell or publisher"),
            "{err}"
        );
    }

    #[test]
    fn the_lane_follows_the_switches_in_order() {
        let env = Environment::empty();
        assert_eq!(settings(&env, &shm(&env, false), false).unwrap().off, None);
        let cases = [
            (
                Environment::empty().with("ZSHM_LANE", "OFF"),
                false,
                false,
                "disabled_by_env",
            ),
            (
                Environment::empty().with("ZSHM_LANE", "on"),
                true,
                false,
                "disabled_by_flag",
            ),
            (Environment::empty(), false, true, "shm_disabled_by_flag"),
            (
                Environment::empty().with("ZENOH_CONFIG_OVERRIDE", "transport/shared_memory/enabled=false"),
                false,
                false,
                "shm_disabled_in_config",
            ),
        ];
        for (env, no_lane, no_shm, label) in cases {
            let off = settings(&env, &shm(&env, no_shm), no_lane).unwrap().off;
            assert_eq!(off.map(|r| r.label()), Some(label));
        }
    }

    #[test]
    fn bad_values_are_input_errors() {
        let env = Environment::empty();
        let shm = shm(&env, false);
        for (name, value) in [
            ("ZSHM_LANE", "maybe"),
            ("ZSHM_LANE_ROOT", "relative/dir"),
            (
                "ZSHM_LANE_ROOT",
                "/a/path/that/is/far/too/long/for/a/unix/socket/path",
            ),
        ] {
            let err = settings(&env.clone().with(name, value), &shm, false).unwrap_err();
            assert!(matches!(err, ConfigError::EnvVar { .. }), "{name}={value}: {err}");
        }
    }

    #[test]
    fn the_root_is_per_user_and_the_prefix_per_root() {
        let env = Environment::empty().with("XDG_RUNTIME_DIR", "/run/user/1000");
        assert_eq!(root(&env).unwrap(), Path::new("/run/user/1000/zshm-lane"));
        let uid = nix::unistd::geteuid().as_raw();
        assert_eq!(
            root(&Environment::empty()).unwrap(),
            PathBuf::from(format!("/tmp/zshm-lane-{uid}"))
        );
        assert_ne!(prefix(Path::new("/tmp/a")), prefix(Path::new("/tmp/b")));
        assert!(prefix(Path::new("/tmp/a")).starts_with(&format!("z{uid}_")));
    }

    #[test]
    fn the_marker_gives_one_key_per_dev_shm() {
        let uid = nix::unistd::geteuid().as_raw();
        let (one, other) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let first = marker_key(one.path(), uid).unwrap();
        assert_eq!(
            marker_key(one.path(), uid).unwrap(),
            first,
            "read back, not rewritten"
        );
        assert_eq!(
            std::fs::read_to_string(marker_path(one.path(), uid)).unwrap(),
            first
        );
        assert_ne!(
            marker_key(other.path(), uid).unwrap(),
            first,
            "another /dev/shm, another key"
        );
        let names: Vec<_> = std::fs::read_dir(one.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(names.len(), 1, "nothing left aside: {names:?}");
    }

    #[test]
    fn a_marker_that_is_not_a_key_is_refused_not_trusted() {
        let uid = nix::unistd::geteuid().as_raw();
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(marker_path(dir.path(), uid), "../../etc").unwrap();
        assert!(marker_key(dir.path(), uid).is_err());
        assert_eq!(device_key(dir.path()).len(), 6);
        assert_ne!(device_key(dir.path()), device_key(Path::new("/")));
    }

    #[test]
    fn a_directory_others_can_write_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("lane");
        ensure_private_dir(&root).unwrap();
        assert_eq!(std::fs::metadata(&root).unwrap().mode() & 0o777, 0o700);
        std::fs::set_permissions(&root, std::fs::Permissions::from_mode(0o777)).unwrap();
        let err = ensure_private_dir(&root).unwrap_err();
        assert_eq!(err.label(), "root_unusable");
        assert!(err.to_string().contains("lets others write"), "{err}");
    }
}
