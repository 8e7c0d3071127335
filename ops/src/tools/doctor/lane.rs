//! The same-host lane's side of `zshm doctor`: whether the lane is on, and when it is, whether
//! its private directory and an iceoryx2 node work for this user, and what dead processes left.

use std::path::Path;

use super::{Check, Severity};
use zshm::config::{Environment, ResolvedConfig};
use zshm::internal::text::human_bytes;

/// The same-host lane: on or off, and when on, whether this user can run it here.
pub(super) fn lane(env: &Environment, session: &ResolvedConfig, dev_shm: &Path) -> Check {
    use zshm::internal::lane::{clean, domain};
    const NAME: &str = "local lane";
    let fail = |reason: zshm::LaneUnavailable| {
        Check::new(
            NAME,
            Severity::Fail,
            reason.to_string(),
            Some(reason.remedy().into()),
        )
    };
    let settings = match domain::settings(env, &session.shm, false) {
        Ok(settings) => settings,
        Err(err) => {
            return Check::new(
                NAME,
                Severity::Fail,
                err.to_string(),
                Some("correct the variable named above".into()),
            );
        }
    };
    if let Some(off) = settings.off {
        return Check::new(
            NAME,
            Severity::Warn,
            format!("off ({off}): zshm nodes on this host talk through zenoh"),
            Some(off.remedy().into()),
        );
    }
    if let Err(reason) = domain::ensure_private_dir(&settings.root) {
        return fail(reason);
    }
    let node = domain::iceoryx2_config(&settings.root)
        .and_then(|config| domain::create_node(&config, "zshm-doctor"));
    if let Err(reason) = node {
        return fail(reason);
    }
    drop(node);
    let (files, bytes) = clean::dev_shm_usage(dev_shm);
    let summary = format!(
        "on: iceoryx2 works in {} ({files} lane files hold {} in /dev/shm, all users)",
        settings.root.display(),
        human_bytes(bytes)
    );
    match clean::survey(&settings.root) {
        Ok((_, 0)) => Check::new(NAME, Severity::Ok, summary, None),
        Ok((_, dead)) => Check::new(
            NAME,
            Severity::Warn,
            format!("{summary}; {dead} dead processes left lane files"),
            Some("run `zshm shm-clean` (the next zshm node of this user also removes them)".into()),
        ),
        Err(reason) => fail(reason),
    }
}
