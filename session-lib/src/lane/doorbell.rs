//! Doorbells: one wake-up event per executor, which every lane publisher with a subscriber
//! there rings, so that a burst of messages to many subscriptions of one executor costs it one
//! wake-up instead of one per message and subscription.
//!
//! Without them, each subscription listens on each publisher's own wake-up event
//! ([`super::event_service`]). iceoryx2 coalesces wake-ups per listener (a notifier sends its
//! datagram only when the listener took the previous one), and one topic's messages come
//! milliseconds apart, so nothing coalesced: a lane node at 200 topics made one `recvfrom` and
//! most of one `epoll_wait` per message, where an iceoryx2 process with one event for all its
//! subscriptions made one per burst of about 20 (BENCHMARKS.md, "Wake-ups per message").
//!
//! # The protocol
//!
//! * An executor that serves lane subscriptions creates a [`Doorbell`]: a named pipe (FIFO)
//!   `bell-<key>` in the domain's doorbell directory in /dev/shm ([`super::domain::bells_dir`]),
//!   which it holds open for reading, in its wait set. Each subscription gets one of its [`EVENT_IDS`] event ids.
//! * A subscription's port on a publisher's data service is named
//!   `<gid>@<key>.<event id>` ([`BellAddress::port_name`]) instead of `<gid>`.
//! * At each send, a publisher rings, with its event id, the doorbell of every connected
//!   subscriber whose port name carries one ([`Bells`]): it writes the id, one byte, into the
//!   pipe, which the whole process holds open once for writing ([`Rings`]).
//! * Beside the pipe, the file `ids-<key>` holds the doorbell's pending ids, one bit each
//!   ([`PendingIds`]). A ring sets its id's bit there and writes into the pipe only when no bit
//!   was set, or when the pipe is empty all the same (the ringer that set one died before its
//!   write): otherwise the executor has not taken the rings before it yet, and their byte will
//!   wake it.
//!   The executor reads the pipe, then empties the word. So a burst of rings to one executor
//!   costs one `write` and one wake-up, not one per ring (see "Why a word beside the pipe").
//! * A subscriber without a doorbell (lane wake-ups set to `publisher`, an older zshm) or whose
//!   doorbell cannot be opened or written (gone, full) is woken as before, through the
//!   publisher's own event, which every subscription keeps listening on for that reason.
//!
//! The executor that the doorbell wakes reads the ids out of the pipe and then reads every lane
//! publisher of the subscriptions those ids belong to. Ids are shared when an executor serves
//! more than [`EVENT_IDS`] subscriptions; a shared id only makes a subscription look once for
//! nothing.
//!
//! # Why a pipe, not an iceoryx2 event
//!
//! The doorbell was an iceoryx2 event service until 7 December. Its listener cannot say
//! whether a ring is pending without emptying its socket, and a take that ends with a ring
//! racing it would never be woken again (see `receiver::take_until_settled`), so every wake-up cost
//! a take and a second look to prove it settled: four `recvfrom`, three of which found nothing,
//! 19% of a T = 200 node's receiving thread (BENCHMARKS.md). A pipe holds the ids themselves:
//! one `read` takes them all, and a ring after it makes the descriptor readable again, so a take
//! never has to look twice to prove it settled. A pipe holds 64 KiB of rings, where a
//! unix datagram socket holds 10 datagrams (`net.unix.max_dgram_qlen`), too few for one burst.
//! A ring that finds it full wakes the subscriber through the publisher's own event instead.
//!
//! # Why a word beside the pipe
//!
//! A write into a pipe watched by `epoll` calls into the kernel's wake-up path every time, even
//! when the pipe was not empty and its reader is awake already (Linux's `pipe_write`: "Epoll
//! nonsensically wants a wakeup whether the pipe was already empty or not"). At 200 topics that
//! was 10% of a lane node's CPU, under the publishers' rings, at about three rings per wake-up.
//! The word in shared memory tells a ringer whether its byte would change anything: half the
//! writes went (BENCHMARKS.md, "A ring writes only when none is pending").
//!
//! No ring is lost: a ring that finds the word empty writes its byte after setting its bit, and
//! the executor empties the word only after reading the pipe, so every bit set after an
//! emptying has a byte written after it, which wakes the executor again. A ring that finds the
//! word set also asks the pipe whether it holds a byte (`FIONREAD`, no wake-up path): if it
//! does, the executor reads it after this bit was set and empties the word after that; if it
//! does not, the ring writes. So a publisher killed between setting its bit and writing its
//! byte leaves the next ring to write, instead of every ring after it waiting for a byte that
//! never comes. A ring that races an
//! emptying costs one wake-up that finds nothing new, as a shared id does.
//!
//! The file carries the inode of the pipe it belongs to: a ringer that finds another pipe's (a
//! dead process's, with the same key) or none (a doorbell of an older zshm) writes every ring
//! into the pipe, as before, and the executor reads ids from both.
//!
//! A doorbell whose process died is a pipe nobody reads: opening it for writing fails with
//! `ENXIO` and writing to it with `EPIPE` (Rust programs ignore `SIGPIPE`). It is removed by the
//! next doorbell created in the domain and by `zshm shm-clean`.

use std::collections::HashMap;
use std::fs::File;
use std::io::{ErrorKind, Read, Write};
use std::num::NonZeroUsize;
use std::os::fd::{AsFd, BorrowedFd};
use std::os::unix::fs::{DirBuilderExt, FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};

use iceoryx2::identifiers::UniqueSubscriberId;
use iceoryx2::prelude::*;
use iceoryx2::service::port_factory::publish_subscribe::PortFactory as DataService;

use super::Svc;
use super::header::LaneHeader;

/// Event ids of a doorbell: each subscription of the executor rings with one, and a take
/// returns them as the bits of one word; shared ids cost a look.
pub const EVENT_IDS: u64 = 64;

/// The pipe of the doorbell `key`.
fn bell_path(dir: &Path, key: &str) -> PathBuf {
    dir.join(format!("bell-{key}"))
}

/// The file of the doorbell `key`'s pending ids ([`PendingIds`]).
fn ids_path(dir: &Path, key: &str) -> PathBuf {
    dir.join(format!("ids-{key}"))
}

/// A doorbell's pending ids in shared memory: the mapped file `ids-<key>` beside its pipe. Word
/// 0 holds one bit per event id rung since the executor last took them; word 1 the inode of the
/// pipe the file belongs to, written before the file gets its name.
///
/// Written by hand over `mmap`: 16 bytes shared between processes, accessed only through
/// atomics, which the shared-memory crates in use (iceoryx2's services, zenoh's pools) do not
/// offer as a named file of a given size.
#[derive(Debug)]
pub(crate) struct PendingIds {
    map: NonNull<std::ffi::c_void>,
}

// SAFETY: the mapping belongs to this value alone and is only accessed through atomics.
#[allow(unsafe_code)]
unsafe impl Send for PendingIds {}
// SAFETY: as above.
#[allow(unsafe_code)]
unsafe impl Sync for PendingIds {}

/// The length of an ids file: the pending ids, then the pipe's inode.
const IDS_LEN: usize = 16;

impl PendingIds {
    /// Maps the first [`IDS_LEN`] bytes of `file`, which has at least that many, shared.
    #[allow(unsafe_code)]
    fn map(file: &File) -> std::io::Result<Self> {
        use nix::sys::mman::{MapFlags, ProtFlags, mmap};
        let len = NonZeroUsize::new(IDS_LEN).expect("IDS_LEN is not 0");
        // SAFETY: a new shared mapping of an open file; it aliases no Rust object, and its bytes
        // are only read and written as atomics (`word`).
        let map = unsafe {
            mmap(
                None,
                len,
                ProtFlags::PROT_READ | ProtFlags::PROT_WRITE,
                MapFlags::MAP_SHARED,
                file,
                0,
            )
        }?;
        Ok(Self { map })
    }

    #[allow(unsafe_code)]
    fn word(&self, index: usize) -> &AtomicU64 {
        debug_assert!(index < IDS_LEN / 8);
        // SAFETY: the mapping is page-aligned, IDS_LEN bytes long and lives as long as `self`;
        // every process accesses it only through atomics.
        unsafe { &*self.map.as_ptr().cast::<AtomicU64>().add(index) }
    }

    /// The bits of the ids rung and not taken yet.
    fn pending(&self) -> &AtomicU64 {
        self.word(0)
    }

    /// The inode of the pipe these ids belong to.
    fn pipe_inode(&self) -> &AtomicU64 {
        self.word(1)
    }

    /// Makes the ids file of the doorbell `key`, whose pipe is `pipe`, under its name (over a
    /// dead process's of the same key); returns it mapped, and the file's device and inode.
    fn create(dir: &Path, key: &str, pipe: &File) -> std::io::Result<(Self, (u64, u64))> {
        let pipe_inode = pipe.metadata()?.ino();
        // Complete before it has its name: a ringer that finds it finds the pipe's inode in it.
        let draft = dir.join(format!(".ids-{key}"));
        let _ = std::fs::remove_file(&draft);
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&draft)?;
        let made = (|| {
            file.set_len(IDS_LEN as u64)?;
            let ids = Self::map(&file)?;
            ids.pipe_inode().store(pipe_inode, Ordering::Release);
            std::fs::rename(&draft, ids_path(dir, key))?;
            let meta = file.metadata()?;
            Ok((ids, (meta.dev(), meta.ino())))
        })();
        if made.is_err() {
            let _ = std::fs::remove_file(&draft);
        }
        made
    }

    /// The ids file of the doorbell `key` whose pipe a ringer opened; `None` when there is none,
    /// or it belongs to another pipe: the ringer then writes every ring into the pipe.
    fn open(dir: &Path, key: &str, pipe: &File) -> Option<Self> {
        let pipe_inode = pipe.metadata().ok()?.ino();
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(ids_path(dir, key))
            .ok()?;
        if file.metadata().ok()?.len() < IDS_LEN as u64 {
            return None;
        }
        let ids = Self::map(&file).ok()?;
        (ids.pipe_inode().load(Ordering::Acquire) == pipe_inode).then_some(ids)
    }
}

impl Drop for PendingIds {
    #[allow(unsafe_code)]
    fn drop(&mut self) {
        // SAFETY: the mapping `map` made, of IDS_LEN bytes, and no reference to it outlives
        // `self`.
        if let Err(err) = unsafe { nix::sys::mman::munmap(self.map, IDS_LEN) } {
            tracing::debug!("lane: cannot unmap a doorbell's ids: {err}");
        }
    }
}

/// Where a subscription is woken: a doorbell and the event id it rings with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BellAddress {
    /// The doorbell's key.
    pub key: String,
    /// The subscription's event id, below `EVENT_IDS` (64).
    pub event_id: u64,
}

impl BellAddress {
    /// The event id of the entity `id` of an executor.
    pub fn event_id_of(entity: u64) -> u64 {
        entity % EVENT_IDS
    }

    /// The name of a subscription's port: `<name>@<key>.<event id>`; `None` when that does not
    /// fit in an iceoryx2 port name (the subscription is then woken the old way).
    pub fn port_name(&self, name: &str) -> Option<String> {
        let full = format!("{name}@{}.{}", self.key, self.event_id);
        (full.len() <= iceoryx2::constants::MAX_PORT_NAME_LENGTH).then_some(full)
    }

    /// A port name split into the subscription's own name and its doorbell, if it has one.
    ///
    /// ```
    /// use zshm::internal::lane::BellAddress;
    /// let bell = BellAddress { key: "00a1b2c3d4e5f607".into(), event_id: 5 };
    /// let name = bell.port_name("0123abcd").unwrap();
    /// assert_eq!(BellAddress::parse(&name), ("0123abcd", Some(bell)));
    /// assert_eq!(BellAddress::parse("0123abcd"), ("0123abcd", None));
    /// assert_eq!(BellAddress::parse("0123abcd@k.x"), ("0123abcd", None));
    /// ```
    pub fn parse(port_name: &str) -> (&str, Option<BellAddress>) {
        let Some((name, bell)) = port_name.split_once('@') else {
            return (port_name, None);
        };
        let address = bell.split_once('.').and_then(|(key, id)| {
            let event_id = id.parse().ok().filter(|&id| id < EVENT_IDS)?;
            (!key.is_empty()).then(|| BellAddress {
                key: key.to_owned(),
                event_id,
            })
        });
        (name, address)
    }
}

/// Why a doorbell could not be created; the executor's subscriptions are then woken through
/// each publisher's own event.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot create an executor's doorbell in {dir}: {error}")]
pub struct DoorbellError {
    /// The directory of the domain's doorbells.
    pub dir: PathBuf,
    /// What failed.
    pub error: String,
}

/// The listening end: one per executor, in its wait set.
#[derive(Debug)]
pub struct Doorbell {
    key: String,
    path: PathBuf,
    /// Open for reading and writing: a pipe with no writer would read as ended, and make the
    /// descriptor readable for ever.
    pipe: File,
    /// Its pending ids and the device and inode of their file; `None` when the file could not
    /// be made (every ring is then written into the pipe).
    ids: Option<(PendingIds, (u64, u64))>,
}

impl Doorbell {
    /// Creates a doorbell in `dir` (the domain's [`super::domain::bells_dir`]), with a key no
    /// other doorbell there has, after removing the doorbells of dead processes there. `dir` is
    /// created when missing, and refused unless it is a directory of this user that nobody else
    /// can enter: it is in /dev/shm, where anyone may create it first.
    pub fn create(dir: &Path) -> Result<Self, DoorbellError> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let failed = |error: String| DoorbellError {
            dir: dir.to_owned(),
            error,
        };
        private_dir(dir).map_err(failed)?;
        remove_dead_bells(dir);
        let mut last = String::from("no free key");
        for _ in 0..8 {
            let key = format!(
                "{:x}-{:x}",
                std::process::id(),
                NEXT.fetch_add(1, Ordering::Relaxed)
            );
            // Made under a hidden name and linked to its own once open, so that whoever finds
            // a doorbell finds it read: one without a reader is dead (see `remove_dead_bells`).
            let draft = dir.join(format!(".bell-{key}"));
            let _ = std::fs::remove_file(&draft);
            match nix::unistd::mkfifo(&draft, nix::sys::stat::Mode::S_IRWXU) {
                Ok(()) => {}
                // The last doorbell of another process went, and took the directory with it.
                Err(nix::errno::Errno::ENOENT) => {
                    private_dir(dir).map_err(failed)?;
                    last = "the directory kept vanishing".into();
                    continue;
                }
                Err(err) => return Err(failed(format!("mkfifo: {err}"))),
            }
            // O_NOATIME: a take is a read, and its access time is worth nothing to anyone.
            let pipe = std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .custom_flags(nix::libc::O_NONBLOCK | nix::libc::O_NOATIME)
                .open(&draft);
            let path = bell_path(dir, &key);
            let linked = pipe.and_then(|pipe| std::fs::hard_link(&draft, &path).map(|()| pipe));
            let _ = std::fs::remove_file(&draft);
            match linked {
                Ok(pipe) => {
                    let ids = PendingIds::create(dir, &key, &pipe)
                        .inspect_err(|err| {
                            tracing::debug!(
                                "lane: a doorbell without its ids file ({err}); every ring writes"
                            );
                        })
                        .ok();
                    return Ok(Self { key, path, pipe, ids });
                }
                // A process of another pid namespace with our pid: take the next key.
                Err(err) if err.kind() == ErrorKind::AlreadyExists => last = err.to_string(),
                Err(err) => return Err(failed(err.to_string())),
            }
        }
        Err(failed(last))
    }

    /// The key publishers find it by.
    pub fn key(&self) -> &str {
        &self.key
    }

    /// The descriptor that becomes readable when it rings.
    pub fn descriptor(&self) -> BorrowedFd<'_> {
        self.pipe.as_fd()
    }

    /// Takes the rings so far: one bit per event id that rang. A ring after this call makes the
    /// descriptor readable again. `settled` is false when rings kept coming for [`TAKE_LIMIT`]
    /// reads: the caller takes again before it waits.
    pub fn take(&self) -> Taken {
        let (mut rung, settled) = self.read_pipe();
        // After the pipe: a ring that finds the word empty from here on writes a byte after it.
        if let Some((ids, _)) = &self.ids {
            rung |= ids.pending().swap(0, Ordering::AcqRel);
        }
        Taken { rung, settled }
    }

    /// Reads the pipe until it is empty or [`TAKE_LIMIT`] reads; the ids of its bytes, and
    /// whether it is empty.
    fn read_pipe(&self) -> (u64, bool) {
        let mut rung = 0u64;
        let mut ids = [0u8; 512];
        for _ in 0..TAKE_LIMIT {
            match (&self.pipe).read(&mut ids) {
                Ok(n) => {
                    for &id in &ids[..n] {
                        rung |= 1 << (u64::from(id) % EVENT_IDS);
                    }
                    if n < ids.len() {
                        return (rung, true);
                    }
                }
                Err(err) if err.kind() == ErrorKind::Interrupted => {}
                Err(err) if err.kind() == ErrorKind::WouldBlock => return (rung, true),
                Err(err) => {
                    tracing::debug!("lane: cannot read a doorbell: {err}");
                    return (rung, true);
                }
            }
        }
        (rung, false)
    }
}

impl Drop for Doorbell {
    fn drop(&mut self) {
        // Each name only if it is still this doorbell's (a cleaner may have taken it for dead),
        // the ids first: whoever finds the pipe without them rings the old way.
        if let (Some((_, file)), Some(dir)) = (&self.ids, self.path.parent()) {
            let path = ids_path(dir, &self.key);
            let named = std::fs::symlink_metadata(&path).ok();
            if named.is_some_and(|meta| (meta.dev(), meta.ino()) == *file) {
                let _ = std::fs::remove_file(&path);
            }
        }
        let ours = self.pipe.metadata().ok().map(|meta| (meta.dev(), meta.ino()));
        let named = std::fs::symlink_metadata(&self.path)
            .ok()
            .map(|meta| (meta.dev(), meta.ino()));
        if ours.is_some() && ours == named {
            let _ = std::fs::remove_file(&self.path);
        }
        // The directory goes with the last doorbell in it, so that nothing stays in /dev/shm
        // (it fails while another doorbell is there; one being made meanwhile makes it again).
        if let Some(dir) = self.path.parent() {
            let _ = std::fs::remove_dir(dir);
        }
    }
}

/// Removes the doorbells in `dir` that nobody reads any more (their process died), their ids
/// files with them; returns how many doorbells. A live doorbell always has its reader, from
/// before it has its name.
pub fn remove_dead_bells(dir: &Path) -> usize {
    let mut removed = 0;
    let mut ids = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if let Some(key) = name.strip_prefix("ids-") {
            ids.push(key.to_owned());
            continue;
        }
        let is_pipe = entry.file_type().is_ok_and(|kind| kind.is_fifo());
        if !is_pipe || !name.starts_with("bell-") {
            continue;
        }
        let path = entry.path();
        if matches!(open_for_ringing(&path), Err(err) if err.raw_os_error() == Some(nix::libc::ENXIO))
            && std::fs::remove_file(&path).is_ok()
        {
            removed += 1;
        }
    }
    // The ids of every doorbell gone. An ids file is named after its pipe, so one whose pipe is
    // being made right now may go too: its ringers then write every ring, as before.
    for key in ids {
        if !bell_path(dir, &key).exists() {
            let _ = std::fs::remove_file(ids_path(dir, &key));
        }
    }
    removed
}

/// Makes `dir` (mode 0700) when missing, and checks that it is a directory of this user that
/// nobody else can enter.
fn private_dir(dir: &Path) -> Result<(), String> {
    match std::fs::DirBuilder::new().mode(0o700).create(dir) {
        Ok(()) => {}
        Err(err) if err.kind() == ErrorKind::AlreadyExists => {}
        Err(err) => return Err(err.to_string()),
    }
    let meta = std::fs::symlink_metadata(dir).map_err(|err| err.to_string())?;
    let uid = nix::unistd::geteuid().as_raw();
    if !meta.is_dir() || meta.uid() != uid || meta.mode() & 0o077 != 0 {
        return Err(format!(
            "not a private directory of uid {uid} (uid {}, mode {:o})",
            meta.uid(),
            meta.mode() & 0o7777
        ));
    }
    Ok(())
}

/// Opens a doorbell's pipe for writing without blocking: `ENXIO` when nobody reads it.
fn open_for_ringing(path: &Path) -> std::io::Result<File> {
    std::fs::OpenOptions::new()
        .write(true)
        .custom_flags(nix::libc::O_NONBLOCK)
        .open(path)
}

/// What [`Doorbell::take`] took.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Taken {
    /// One bit per event id that rang.
    pub rung: u64,
    /// False when rings kept coming for [`TAKE_LIMIT`] reads: take again before waiting.
    pub settled: bool,
}

/// Reads a doorbell takes at most before it lets its executor serve what rang.
const TAKE_LIMIT: usize = 8;

/// The ringing end of one doorbell, shared by the publishers of a process.
#[derive(Debug)]
pub struct Ring {
    pipe: File,
    /// The doorbell's pending ids; `None` when it has none of its own (every ring writes).
    ids: Option<PendingIds>,
    /// Whether a ring failed already (logged once).
    failed: AtomicBool,
}

impl Ring {
    /// Rings with `event_id`: sets its bit among the pending ids, and writes it into the pipe
    /// unless a ring not taken yet did already. False when the write could not be made (full:
    /// its executor is far behind; or its process died), and the subscriber must be woken
    /// another way.
    fn ring(&self, event_id: u64) -> bool {
        if let Some(ids) = &self.ids {
            let bit = 1 << (event_id % EVENT_IDS);
            // A ring is pending: the executor will take this bit with it once it reads the byte
            // in the pipe. Unless there is none: the ringer that set the word may have died
            // before its write, and then this ring writes, or the executor would sleep on.
            if ids.pending().fetch_or(bit, Ordering::AcqRel) != 0 && self.holds_a_ring() {
                return true;
            }
        }
        loop {
            match (&self.pipe).write(&[event_id as u8]) {
                Ok(_) => return true,
                Err(err) if err.kind() == ErrorKind::Interrupted => {}
                Err(err) => {
                    if !self.failed.swap(true, Ordering::Relaxed) {
                        tracing::debug!(
                            "lane: a doorbell cannot be rung ({err}); waking its subscribers directly"
                        );
                    }
                    return false;
                }
            }
        }
    }
}

impl Ring {
    /// Whether the pipe holds at least one byte (`FIONREAD`), which its executor has not read
    /// yet: a byte there makes it wake and take the pending ids after reading it. An `ioctl`
    /// costs no wake-up path, unlike a `write`.
    #[allow(unsafe_code)]
    fn holds_a_ring(&self) -> bool {
        use std::os::fd::AsRawFd;
        let mut bytes: nix::libc::c_int = 0;
        // SAFETY: FIONREAD writes one int through the pointer, which points to `bytes`.
        let rc = unsafe { nix::libc::ioctl(self.pipe.as_raw_fd(), nix::libc::FIONREAD, &mut bytes) };
        rc == 0 && bytes > 0
    }
}

/// The doorbells a process's publishers ring, opened once each (the lane context holds them).
#[derive(Debug)]
pub struct Rings {
    dir: PathBuf,
    open: Mutex<HashMap<String, Weak<Ring>>>,
}

impl Rings {
    /// The doorbells of the domain whose doorbells are in `dir` ([`super::domain::bells_dir`]).
    pub fn new(dir: PathBuf) -> Self {
        Self {
            dir,
            open: Mutex::default(),
        }
    }

    /// The directory of the domain's doorbells.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The doorbell `key`, opened if no publisher of the process has it open; `None` when it
    /// cannot be (gone, or never made: an older zshm's).
    fn get(&self, key: &str) -> Option<Arc<Ring>> {
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(ring) = open.get(key).and_then(Weak::upgrade) {
            return Some(ring);
        }
        open.retain(|_, ring| ring.strong_count() > 0);
        // The key is a port name's: it must not climb out of the directory.
        if key.is_empty() || key.contains('/') || key.starts_with('.') {
            return None;
        }
        match open_for_ringing(&bell_path(&self.dir, key)) {
            Ok(pipe) => {
                let ring = Arc::new(Ring {
                    ids: PendingIds::open(&self.dir, key, &pipe),
                    pipe,
                    failed: AtomicBool::new(false),
                });
                open.insert(key.to_owned(), Arc::downgrade(&ring));
                Some(ring)
            }
            Err(error) => {
                tracing::debug!(
                    key,
                    %error,
                    "lane: cannot open a subscriber's doorbell; waking it directly"
                );
                None
            }
        }
    }
}

/// What one publisher rings at each send: the doorbells of its subscribers, and its own event
/// when a subscriber has none that it can ring.
#[derive(Debug, Default)]
pub struct Bells {
    /// The subscriber ports these targets were worked out for.
    seen: Vec<UniqueSubscriberId>,
    scratch: Vec<UniqueSubscriberId>,
    targets: Vec<(Arc<Ring>, u64)>,
    direct: bool,
}

impl Bells {
    /// Works out the targets again when the connected subscribers changed. Costs one look at
    /// the service's subscriber list when they did not.
    pub fn refresh(&mut self, rings: &Rings, data: &DataService<Svc, [u8], LaneHeader>) {
        self.scratch.clear();
        let config = data.dynamic_config();
        config.list_subscribers(|details| {
            self.scratch.push(details.subscriber_id);
            CallbackProgression::Continue
        });
        if self.scratch == self.seen {
            return;
        }
        // Ids and names from one look, so that the targets match the ports `seen` names.
        self.seen.clear();
        let (mut targets, mut direct) = (Vec::<(Arc<Ring>, u64)>::new(), false);
        config.list_subscribers(|details| {
            self.seen.push(details.subscriber_id);
            match BellAddress::parse(details.subscriber_name.as_str()).1 {
                Some(bell) => match rings.get(&bell.key) {
                    Some(ring) => {
                        let known = targets
                            .iter()
                            .any(|(other, id)| Arc::ptr_eq(other, &ring) && *id == bell.event_id);
                        if !known {
                            targets.push((ring, bell.event_id));
                        }
                    }
                    None => direct = true,
                },
                None => direct = true,
            }
            CallbackProgression::Continue
        });
        self.targets = targets;
        self.direct = direct;
    }

    /// Rings every subscriber's doorbell; returns how many doorbells (and event ids) it rang,
    /// and whether the publisher's own event must be notified too (a subscriber has no doorbell
    /// that can be rung, or one could not be rung now).
    pub fn ring(&self) -> (usize, bool) {
        let mut rang = 0;
        for (ring, event_id) in &self.targets {
            rang += usize::from(ring.ring(*event_id));
        }
        (rang, self.direct || rang < self.targets.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch() -> PathBuf {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let dir = std::env::temp_dir().join(format!(
            "zshm-bells-test-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    /// A ring that writes every ring into the pipe, as one of a zshm before the ids file does.
    fn ring_without_ids(dir: &Path, bell: &Doorbell) -> Arc<Ring> {
        Arc::new(Ring {
            pipe: open_for_ringing(&bell_path(dir, bell.key())).unwrap(),
            ids: None,
            failed: AtomicBool::new(false),
        })
    }

    /// How many bytes the doorbell's pipe holds now (read out of it).
    fn bytes_in_pipe(bell: &Doorbell) -> usize {
        let mut buf = [0u8; 4096];
        match (&bell.pipe).read(&mut buf) {
            Ok(n) => n,
            Err(err) if err.kind() == ErrorKind::WouldBlock => 0,
            Err(err) => panic!("{err}"),
        }
    }

    fn readable(bell: &Doorbell) -> bool {
        use nix::sys::epoll::{Epoll, EpollCreateFlags, EpollEvent, EpollFlags, EpollTimeout};
        let epoll = Epoll::new(EpollCreateFlags::EPOLL_CLOEXEC).unwrap();
        epoll
            .add(bell.descriptor(), EpollEvent::new(EpollFlags::EPOLLIN, 0))
            .unwrap();
        let mut events = [EpollEvent::empty()];
        epoll.wait(&mut events, EpollTimeout::ZERO).unwrap() == 1
    }

    #[test]
    fn a_directory_others_can_enter_is_refused() {
        let dir = scratch();
        std::fs::DirBuilder::new().mode(0o755).create(&dir).unwrap();
        // The umask may have taken bits away: make it exactly what is refused.
        std::fs::set_permissions(&dir, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
        let err = Doorbell::create(&dir).unwrap_err();
        assert!(err.error.contains("not a private directory"), "{err}");
        std::fs::set_permissions(&dir, std::os::unix::fs::PermissionsExt::from_mode(0o700)).unwrap();
        assert!(Doorbell::create(&dir).is_ok());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn rings_reach_the_doorbell_by_id_and_a_ring_after_a_take_makes_it_readable_again() {
        let dir = scratch();
        let bell = Doorbell::create(&dir).unwrap();
        let rings = Rings::new(dir.clone());
        let ring = rings.get(bell.key()).unwrap();
        assert!(!readable(&bell));
        assert_eq!(
            bell.take(),
            Taken {
                rung: 0,
                settled: true
            }
        );
        for id in [3, 3, 63, 64 + 5] {
            assert!(ring.ring(id));
        }
        assert!(readable(&bell));
        let want = (1 << 3) | (1 << 63) | (1 << 5);
        assert_eq!(
            bell.take(),
            Taken {
                rung: want,
                settled: true
            }
        );
        assert!(!readable(&bell));
        assert!(ring.ring(7));
        assert!(readable(&bell));
        assert_eq!(bell.take().rung, 1 << 7);
        // One pipe per doorbell and process, whoever rings it.
        assert!(Arc::ptr_eq(&ring, &rings.get(bell.key()).unwrap()));
        drop(bell);
        assert!(
            !dir.exists(),
            "the doorbell removes its pipe, and the directory with it"
        );
    }

    #[test]
    fn the_directory_stays_while_a_doorbell_is_in_it() {
        let dir = scratch();
        let first = Doorbell::create(&dir).unwrap();
        let second = Doorbell::create(&dir).unwrap();
        drop(first);
        assert!(bell_path(&dir, second.key()).exists());
        let ring = Rings::new(dir.clone()).get(second.key()).unwrap();
        assert!(ring.ring(3));
        assert_eq!(second.take().rung, 1 << 3);
        drop(second);
        assert!(!dir.exists());
    }

    #[test]
    fn a_burst_longer_than_one_take_is_taken_in_several() {
        let dir = scratch();
        let bell = Doorbell::create(&dir).unwrap();
        let ring = ring_without_ids(&dir, &bell);
        for i in 0..(512 * TAKE_LIMIT + 1) {
            assert!(ring.ring(i as u64 % EVENT_IDS));
        }
        let first = bell.take();
        assert_eq!(
            first,
            Taken {
                rung: u64::MAX,
                settled: false
            }
        );
        assert_eq!(
            bell.take(),
            Taken {
                rung: 1,
                settled: true
            }
        );
        drop(bell);
        assert!(!dir.exists(), "the directory goes with its last doorbell");
    }

    #[test]
    fn a_full_doorbell_says_so_and_the_publisher_wakes_its_subscriber_directly() {
        let dir = scratch();
        let bell = Doorbell::create(&dir).unwrap();
        let ring = ring_without_ids(&dir, &bell);
        let mut rang = 0usize;
        while ring.ring(1) {
            rang += 1;
            assert!(rang <= 1 << 20, "a pipe holds a bounded number of rings");
        }
        assert!(rang >= 4096, "a pipe holds at least a page of rings: {rang}");
        let bells = Bells {
            targets: vec![(ring.clone(), 1)],
            ..Bells::default()
        };
        assert_eq!(bells.ring(), (0, true));
        let _ = bell.take();
        assert_eq!(bells.ring(), (1, false));
        drop(bell);
        assert!(!dir.exists(), "the directory goes with its last doorbell");
    }

    #[test]
    fn the_doorbell_of_a_dead_process_is_removed_and_a_live_one_kept() {
        let dir = scratch();
        let live = Doorbell::create(&dir).unwrap();
        // What a killed process leaves: a pipe with its name and no reader, and its ids.
        let dead = bell_path(&dir, "7fffffff-0");
        nix::unistd::mkfifo(&dead, nix::sys::stat::Mode::S_IRWXU).unwrap();
        std::fs::write(ids_path(&dir, "7fffffff-0"), [0; IDS_LEN]).unwrap();
        let rings = Rings::new(dir.clone());
        assert!(rings.get("7fffffff-0").is_none(), "nobody reads it: no ring");
        assert!(rings.get("../x").is_none());
        assert_eq!(remove_dead_bells(&dir), 1);
        assert!(!dead.exists());
        assert!(!ids_path(&dir, "7fffffff-0").exists(), "its ids go with it");
        assert!(bell_path(&dir, live.key()).exists());
        assert!(ids_path(&dir, live.key()).exists());
        assert!(rings.get(live.key()).is_some());
        drop(live);
        assert!(!dir.exists(), "the directory goes with its last doorbell");
    }

    #[test]
    fn rings_between_two_takes_write_one_byte_and_the_take_has_them_all() {
        let dir = scratch();
        let bell = Doorbell::create(&dir).unwrap();
        let ring = Rings::new(dir.clone()).get(bell.key()).unwrap();
        assert!(ring.ids.is_some(), "a ringer finds the doorbell's ids");
        for id in [3, 3, 63, 64 + 5] {
            assert!(ring.ring(id));
        }
        assert_eq!(bytes_in_pipe(&bell), 1, "one byte for four rings");
        assert!(!readable(&bell));
        assert_eq!(
            bell.take(),
            Taken {
                rung: (1 << 3) | (1 << 63) | (1 << 5),
                settled: true
            }
        );
        // Taken: the next ring writes again.
        assert!(ring.ring(7));
        assert!(readable(&bell));
        assert_eq!(bell.take().rung, 1 << 7);
        assert!(!readable(&bell));
        drop(ring);
        drop(bell);
        assert!(!dir.exists(), "the doorbell removes its ids and its pipe");
    }

    #[test]
    fn a_ringer_that_died_before_its_write_leaves_the_next_ring_to_write() {
        let dir = scratch();
        let bell = Doorbell::create(&dir).unwrap();
        let ring = Rings::new(dir.clone()).get(bell.key()).unwrap();
        // What a publisher killed between setting its bit and writing its byte leaves behind.
        ring.ids
            .as_ref()
            .unwrap()
            .pending()
            .fetch_or(1 << 9, Ordering::AcqRel);
        assert!(!readable(&bell));
        assert!(ring.ring(4));
        assert!(readable(&bell), "the ring wrote: the pipe held no byte");
        assert_eq!(bell.take().rung, (1 << 9) | (1 << 4));
        drop(ring);
        drop(bell);
        assert!(!dir.exists());
    }

    #[test]
    fn the_ids_of_another_pipe_are_not_used_and_every_ring_writes() {
        let dir = scratch();
        let bell = Doorbell::create(&dir).unwrap();
        // A dead process's ids under this key, left there after this doorbell's were made.
        let stale = dir.join("stale");
        std::fs::write(&stale, [0xff; IDS_LEN]).unwrap();
        std::fs::rename(&stale, ids_path(&dir, bell.key())).unwrap();
        let ring = Rings::new(dir.clone()).get(bell.key()).unwrap();
        assert!(ring.ids.is_none());
        assert!(ring.ring(3));
        assert!(ring.ring(4));
        assert_eq!(bytes_in_pipe(&bell), 2, "each ring writes");
        assert!(ring.ring(5));
        assert_eq!(bell.take().rung, 1 << 5, "ids from the pipe");
        drop(bell);
        // The doorbell leaves a file that is not its own alone.
        assert!(ids_path(&dir, "").parent().unwrap().exists());
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Ringers in other threads, each ringing its id and waiting until the executor's side took
    /// it, against a reader that sleeps in `epoll_wait` between takes: a lost ring leaves the
    /// reader asleep and its ringer waiting, and the test fails at its deadline.
    #[test]
    fn no_ring_is_lost_between_ringers_and_a_sleeping_reader() {
        no_ring_is_lost(false);
    }

    /// The same with a ringer that writes every ring, as an older zshm's, among them.
    #[test]
    fn no_ring_is_lost_with_an_older_ringer_among_them() {
        no_ring_is_lost(true);
    }

    fn no_ring_is_lost(with_older: bool) {
        use nix::sys::epoll::{Epoll, EpollCreateFlags, EpollEvent, EpollFlags, EpollTimeout};
        const RINGS: u64 = 10_000;
        let dir = scratch();
        let bell = Doorbell::create(&dir).unwrap();
        let rings = Rings::new(dir.clone());
        let mut ringers: Vec<Arc<Ring>> = (0..3).map(|_| rings.get(bell.key()).unwrap()).collect();
        if with_older {
            ringers.push(ring_without_ids(&dir, &bell));
        }
        let taken: Arc<Vec<AtomicU64>> = Arc::new((0..ringers.len()).map(|_| AtomicU64::new(0)).collect());
        let done = Arc::new(AtomicBool::new(false));
        let threads: Vec<_> = ringers
            .into_iter()
            .enumerate()
            .map(|(index, ring)| {
                let (taken, done) = (taken.clone(), done.clone());
                std::thread::spawn(move || {
                    for round in 1..=RINGS {
                        assert!(ring.ring(index as u64));
                        while taken[index].load(Ordering::Acquire) < round {
                            if done.load(Ordering::Relaxed) {
                                return round;
                            }
                            // Yields rather than spins: four ringers must not starve the
                            // reader of a two-core machine.
                            std::thread::yield_now();
                        }
                    }
                    RINGS + 1
                })
            })
            .collect();
        let epoll = Epoll::new(EpollCreateFlags::EPOLL_CLOEXEC).unwrap();
        epoll
            .add(bell.descriptor(), EpollEvent::new(EpollFlags::EPOLLIN, 0))
            .unwrap();
        let mut events = [EpollEvent::empty()];
        let mut lost = false;
        while taken.iter().any(|count| count.load(Ordering::Relaxed) < RINGS) {
            if epoll.wait(&mut events, EpollTimeout::from(10_000u16)).unwrap() == 0 {
                lost = true;
                break;
            }
            let rung = bell.take().rung;
            for (index, count) in taken.iter().enumerate() {
                if rung & (1 << index) != 0 {
                    count.fetch_add(1, Ordering::Release);
                }
            }
        }
        done.store(true, Ordering::Relaxed);
        let stopped_at: Vec<u64> = threads.into_iter().map(|t| t.join().unwrap()).collect();
        assert!(
            !lost,
            "a ring was lost: the ringers stopped at rounds {stopped_at:?}"
        );
        assert!(
            stopped_at.iter().all(|&round| round == RINGS + 1),
            "{stopped_at:?}"
        );
        drop(bell);
        assert!(!dir.exists());
    }
}
