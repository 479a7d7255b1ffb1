//! The analytics quota shared by every process of one machine (feature
//! `machine-quota`): the account's calls of the current window and month in
//! a file of the user's state directory, changed under a file lock; the
//! one-at-a-time slot a lock on a slot file, which the kernel drops when its
//! holder ends, however it ends (a killed holder's slot frees itself).
//! A call counts in the window from its turn until a window after it ends
//! (as in memory: see `vidplat_core::QuotaLimiter`, and `CountedUntil` for
//! the other reading); a call whose holder ended without saying so ends when
//! a turn finds its slot let go.
//!
//! One store per account and service: the file's name comes from the
//! analytics base URL and the account (its login ID, or a fingerprint of the
//! key), so two simulators on two ports, or two accounts, never share a count.
//! `vidplat` (the command line) uses it unless a profile names a Redis store;
//! for a program it is one builder setting, off by default:
//!
//! ```no_run
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let store = vidplat::MachineQuota::in_state_dir("https://analytics.example.com", "me@account")?;
//! let client = vidplat::Client::builder().quota_store(store).build()?;
//! # let _ = client;
//! # Ok(())
//! # }
//! ```

use serde::{Deserialize, Serialize};
use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use tokio::time::Instant;
use vidplat_core::__private::{open_file, read_text, Links};
use vidplat_core::{
    Lease, Quota, SharedQuota, StoreFuture, StoreUnavailable, Turn, TurnTaken, WaitCause, WhenUnavailable,
};
use vidplat_core::{QuotaConfig, QuotaRefusal};

/// The variable naming the state directory (overrides the platform's).
pub const STATE_DIR_VARIABLE: &str = "VIDPLAT_STATE_DIR";

/// How often a turn that waits for another process's slot or lock looks again.
const POLL: Duration = Duration::from_millis(20);
/// The longest a read-change-write of the counts may wait for the file's lock.
const LOCK_WAIT: Duration = Duration::from_secs(10);
/// The most of the counts file read: a window holds a few calls.
const MAX_STATE_BYTES: u64 = 64 * 1024;

/// The account's analytics quota, shared by the processes of this machine.
#[derive(Clone, Debug)]
pub struct MachineQuota {
    files: Arc<Files>,
}

#[derive(Debug)]
struct Files {
    dir: PathBuf,
    /// `<name>.json`: the counts.
    counts: PathBuf,
    /// `<name>.lock`: held while the counts are read and written.
    lock: PathBuf,
    /// `<name>.slot`, `<name>.slot1`, …: one per call allowed at a time.
    slot: PathBuf,
}

/// The counts file.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Counts {
    /// The month the count is of (`2026-11`, Japan time).
    #[serde(default)]
    month: String,
    /// Calls counted this month.
    #[serde(default)]
    used: u64,
    /// End times of the calls that ended in the window (their turns, for calls
    /// counted until a window after their turn), in milliseconds since the Unix epoch.
    #[serde(default)]
    window: Vec<u64>,
    /// Calls that took a turn and have not ended: each counts in the window.
    #[serde(default)]
    running: Vec<Running>,
}

/// A call in flight: the slot it holds, and the mark its holder wrote in the slot's file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Running {
    slot: u32,
    mark: u64,
}

impl MachineQuota {
    /// The store of `account` at the analytics service `base_url`, in `dir`
    /// (created, readable by its owner only, when a call first needs it).
    pub fn new(dir: impl Into<PathBuf>, base_url: &str, account: &str) -> Self {
        let dir = dir.into();
        let digest = ring::digest::digest(
            &ring::digest::SHA256,
            format!("{}\n{account}", base_url.trim_end_matches('/')).as_bytes(),
        );
        let name = format!("analytics-{}", hex::encode(&digest.as_ref()[..12]));
        Self {
            files: Arc::new(Files {
                counts: dir.join(format!("{name}.json")),
                lock: dir.join(format!("{name}.lock")),
                slot: dir.join(format!("{name}.slot")),
                dir,
            }),
        }
    }

    /// The store in `$VIDPLAT_STATE_DIR`, else the platform's state directory
    /// (`~/.local/state/vidplat` on Linux; the local data directory where the
    /// platform has no state directory).
    pub fn in_state_dir(base_url: &str, account: &str) -> std::io::Result<Self> {
        Ok(Self::new(state_dir()?, base_url, account))
    }

    /// The directory its files are in.
    pub fn dir(&self) -> &Path {
        &self.files.dir
    }

    /// The name of an account that is known only by its key: a fingerprint
    /// of the key (never the key).
    pub fn key_fingerprint(api_key: &str) -> String {
        let digest = ring::digest::digest(&ring::digest::SHA256, api_key.as_bytes());
        format!("key-{}", hex::encode(&digest.as_ref()[..8]))
    }
}

/// `$VIDPLAT_STATE_DIR`, else the platform's state (or local data) directory's `vidplat`.
pub fn state_dir() -> std::io::Result<PathBuf> {
    if let Some(dir) = std::env::var_os(STATE_DIR_VARIABLE).filter(|v| !v.is_empty()) {
        return Ok(PathBuf::from(dir));
    }
    dirs::state_dir()
        .or_else(dirs::data_local_dir)
        .map(|dir| dir.join("vidplat"))
        .ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::NotFound,
                format!("no state directory: set {STATE_DIR_VARIABLE} (this platform names none)"),
            )
        })
}

impl From<MachineQuota> for vidplat_core::QuotaStore {
    fn from(store: MachineQuota) -> Self {
        vidplat_core::QuotaStore::Shared(Arc::new(store))
    }
}

/// The slot of one call in flight: the lock on its slot file (none for a
/// call that counts only against the month). Released, the call's end is
/// stamped in the window (when it counts until then), then the lock is let
/// go; dropped, the lock goes at once and the next turn stamps the end.
#[derive(Debug)]
struct SlotLease {
    files: Arc<Files>,
    /// The call, when it counts in the window until a window after its end.
    run: Option<Running>,
    _lock: Option<File>,
}

impl Lease for SlotLease {
    fn release(self: Box<Self>) -> StoreFuture<'static, ()> {
        Box::pin(async move {
            let Some(run) = self.run else { return };
            let ended = self
                .files
                .with_counts(|counts| (counts.end(run, now_millis()), true))
                .await;
            if let Err(unavailable) = ended {
                tracing::warn!("analytics quota: {unavailable}; the next turn stamps the call's end");
            }
        })
    }
}

fn unavailable(what: &str, path: &Path, error: impl std::fmt::Display) -> StoreUnavailable {
    StoreUnavailable::new(format!("{what} {}: {error}", path.display()))
}

impl Files {
    fn ensure_dir(&self) -> Result<(), StoreUnavailable> {
        let mut builder = std::fs::DirBuilder::new();
        builder.recursive(true);
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        builder
            .create(&self.dir)
            .map_err(|e| unavailable("creating", &self.dir, e))
    }

    /// One of the store's files, made if missing; a link, a FIFO or anything
    /// but a regular file planted at its name is refused, never followed.
    fn open(path: &Path) -> Result<File, StoreUnavailable> {
        let mut options = OpenOptions::new();
        options.read(true).write(true).create(true).truncate(false);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        open_file(path, &mut options, Links::Refuse).map_err(|e| unavailable("opening", path, e))
    }

    fn slot_path(&self, index: u32) -> PathBuf {
        if index == 0 {
            self.slot.clone()
        } else {
            let mut name = self.slot.clone().into_os_string();
            name.push(index.to_string());
            PathBuf::from(name)
        }
    }

    /// A free slot now, if there is one: locked, with `mark` written in its
    /// file (which call holds it).
    fn try_slot(&self, slots: u32, mark: u64) -> Result<Option<(File, u32)>, StoreUnavailable> {
        for index in 0..slots.max(1) {
            let path = self.slot_path(index);
            let mut file = Self::open(&path)?;
            if !held_elsewhere(&file).map_err(|e| unavailable("locking", &path, e))? {
                file.set_len(0)
                    .and_then(|()| file.write_all(&mark.to_le_bytes()))
                    .map_err(|e| unavailable("writing", &path, e))?;
                return Ok(Some((file, index)));
            }
        }
        Ok(None)
    }

    /// Whether `run`'s holder still holds its slot: the slot is locked and
    /// its file carries the run's mark (a later holder writes its own).
    fn still_held(&self, run: Running) -> bool {
        let path = self.slot_path(run.slot);
        let Ok(file) = open_file(&path, OpenOptions::new().read(true), Links::Refuse) else {
            return false;
        };
        if !matches!(held_elsewhere(&file), Ok(true)) {
            return false;
        }
        let mut mark = [0u8; 8];
        let read = (&file).take(8).read_exact(&mut mark);
        read.is_ok() && u64::from_le_bytes(mark) == run.mark
    }

    /// Slots held now, by any process (this one's included): of the slot
    /// files a turn has made, those locked.
    fn slots_held(&self) -> Result<u64, StoreUnavailable> {
        let mut held = 0;
        for index in 0.. {
            let path = self.slot_path(index);
            if !path.exists() {
                break;
            }
            let file = Self::open(&path)?;
            held += u64::from(held_elsewhere(&file).map_err(|e| unavailable("locking", &path, e))?);
        }
        Ok(held)
    }

    /// Runs `change` on the counts under the file's lock, writing them back
    /// when it says so; the lock is waited for at most [`LOCK_WAIT`].
    async fn with_counts<T>(&self, change: impl FnOnce(&mut Counts) -> (T, bool)) -> Result<T, StoreUnavailable> {
        self.ensure_dir()?;
        let lock = Self::open(&self.lock)?;
        let given_up = Instant::now() + LOCK_WAIT;
        loop {
            match lock.try_lock() {
                Ok(()) => break,
                Err(TryLockError::WouldBlock) if Instant::now() < given_up => tokio::time::sleep(POLL).await,
                Err(TryLockError::WouldBlock) => {
                    return Err(unavailable("locking", &self.lock, "held by another process for 10 s"))
                }
                Err(TryLockError::Error(e)) => return Err(unavailable("locking", &self.lock, e)),
            }
        }
        let mut counts = self.read_counts()?;
        let (answer, write) = change(&mut counts);
        if write {
            self.write_counts(&counts)?;
        }
        drop(lock);
        Ok(answer)
    }

    /// The counts as the file holds them, none before the first turn. A file
    /// that cannot be read or is no counts file (another version's, a
    /// hand-edited or a planted one) makes the store unavailable and is left
    /// as it is: counting afresh over it would start the month at 0.
    fn read_counts(&self) -> Result<Counts, StoreUnavailable> {
        let text = match read_text(&self.counts, MAX_STATE_BYTES, Links::Refuse) {
            Ok(Some(text)) => text,
            Ok(None) => return Ok(Counts::default()),
            Err(e) => return Err(unavailable("reading", &self.counts, e)),
        };
        serde_json::from_str(&text).map_err(|e| unavailable("reading", &self.counts, format!("no counts file ({e})")))
    }

    fn write_counts(&self, counts: &Counts) -> Result<(), StoreUnavailable> {
        let bytes = serde_json::to_vec(counts).map_err(|e| unavailable("writing", &self.counts, e))?;
        vidplat_core::__private::replace_file(&self.counts, &bytes, true)
            .map_err(|e| unavailable("writing", &self.counts, e))
    }
}

/// Whether another open file (of this process or another) holds the lock on
/// `file`'s file. Asking takes the lock when it is free; it goes with `file`.
fn held_elsewhere(file: &File) -> std::io::Result<bool> {
    match file.try_lock() {
        Ok(()) => Ok(false),
        Err(TryLockError::WouldBlock) => Ok(true),
        Err(TryLockError::Error(e)) => Err(e),
    }
}

/// Now, in milliseconds since the Unix epoch.
fn now_millis() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, millis)
}

/// The month of `millis` in Japan time (the analytics month), e.g. `2026-11`.
fn month_of(millis: u64) -> String {
    let at = chrono::DateTime::from_timestamp_millis(i64::try_from(millis).unwrap_or(i64::MAX)).unwrap_or_default();
    at.with_timezone(&vidplat_core::japan_offset())
        .format("%Y-%m")
        .to_string()
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// What one look at the counts decided.
enum Decision {
    Counted(u64),
    MonthSpent,
    /// The window is full for this long.
    Full(Duration),
}

impl Counts {
    /// Forgets the calls out of the window (and any the clock puts in the
    /// future past one window: another clock's, or a hand-made file), and the
    /// count of another month. A running call whose holder let its slot go
    /// without saying so ends now.
    fn tidy(&mut self, now: u64, window: u64, still_held: impl Fn(Running) -> bool) {
        let month = month_of(now);
        if self.month != month {
            self.month = month;
            self.used = 0;
        }
        let before = self.running.len();
        self.running.retain(|&run| still_held(run));
        let ended_unsaid = before - self.running.len();
        self.window.extend(std::iter::repeat_n(now, ended_unsaid));
        self.window
            .retain(|&at| now.saturating_sub(at) < window && at <= now.saturating_add(window));
        self.window.sort_unstable();
    }

    /// Takes a turn for a call: `limited`, one that counts in the window;
    /// `running`, the call when it counts there until a window after its end
    /// (else from its turn).
    fn take(
        &mut self,
        config: &QuotaConfig,
        limited: bool,
        running: Option<Running>,
        still_held: impl Fn(Running) -> bool,
    ) -> Decision {
        let now = now_millis();
        let window = millis(config.window.saturating_add(config.safety_margin));
        self.tidy(now, window, still_held);
        if self.used >= config.per_month {
            return Decision::MonthSpent;
        }
        let capacity = usize::try_from(config.calls_per_window.max(1)).unwrap_or(usize::MAX);
        let in_window = self.window.len() + self.running.len();
        if limited && in_window >= capacity {
            // Running calls filling the window end when they end: look again soon.
            let left = self
                .window
                .get(in_window - capacity)
                .map_or(millis(POLL), |&ended| window.saturating_sub(now.saturating_sub(ended)));
            return Decision::Full(Duration::from_millis(left.max(1)));
        }
        self.used += 1;
        match running {
            Some(run) => self.running.push(run),
            None if limited => self.window.push(now),
            None => {}
        }
        Decision::Counted(self.used)
    }

    /// `run`'s call ended at `now`.
    fn end(&mut self, run: Running, now: u64) {
        let before = self.running.len();
        self.running.retain(|&other| other != run);
        if self.running.len() < before {
            self.window.push(now);
        }
    }
}

impl SharedQuota for MachineQuota {
    fn kind(&self) -> &'static str {
        "machine"
    }

    fn acquire<'a>(&'a self, turn: Turn<'a>) -> StoreFuture<'a, TurnTaken> {
        Box::pin(async move {
            let files = &self.files;
            files.ensure_dir()?;
            let refusal = |quota, retry_after| Ok(Err(QuotaRefusal { quota, retry_after }));
            let past = |wait: Duration| {
                turn.deadline
                    .is_some_and(|at| Instant::now().checked_add(wait).is_none_or(|end| end > at))
            };
            // The slot first (held through a wait for the window, as the in-memory limiter does).
            let mark = fastrand::u64(..);
            let slot = if turn.rate_limited {
                loop {
                    if let Some(slot) = files.try_slot(turn.config.concurrency, mark)? {
                        break Some(slot);
                    }
                    if !turn.wait || past(POLL) {
                        return refusal(Quota::Concurrency, None);
                    }
                    turn.waiting
                        .show(Quota::Concurrency, WaitCause::Queued { ahead: None }, None);
                    tokio::time::sleep(POLL).await;
                }
            } else {
                None
            };
            // The call, when it counts until a window after its end.
            let running = slot
                .as_ref()
                .filter(|_| turn.config.counted_until.until_end())
                .map(|&(_, slot)| Running { slot, mark });
            loop {
                let decision = files
                    .with_counts(|counts| {
                        let decision =
                            counts.take(turn.config, turn.rate_limited, running, |run| files.still_held(run));
                        let counted = matches!(decision, Decision::Counted(_));
                        (decision, counted)
                    })
                    .await?;
                match decision {
                    Decision::Counted(used) => {
                        (turn.saw_month)(used);
                        return Ok(Ok(Box::new(SlotLease {
                            files: self.files.clone(),
                            run: running,
                            _lock: slot.map(|(lock, _)| lock),
                        }) as Box<dyn Lease>));
                    }
                    Decision::MonthSpent => return refusal(Quota::Month, None),
                    Decision::Full(wait) => {
                        if !turn.wait || past(wait) {
                            return refusal(Quota::PerMinute, Some(wait));
                        }
                        turn.waiting
                            .show(Quota::PerMinute, WaitCause::Limit, Instant::now().checked_add(wait));
                        tokio::time::sleep(wait).await;
                    }
                }
            }
        })
    }

    fn month_used(&self) -> StoreFuture<'_, Result<u64, StoreUnavailable>> {
        Box::pin(async move {
            let now = now_millis();
            self.files
                .with_counts(|counts| {
                    let month = month_of(now);
                    (if counts.month == month { counts.used } else { 0 }, false)
                })
                .await
        })
    }

    fn activity(&self, window: Duration) -> StoreFuture<'_, Result<(u64, u64), StoreUnavailable>> {
        Box::pin(async move {
            let now = now_millis();
            let window = millis(window);
            let in_window = self
                .files
                .with_counts(|counts| {
                    let ended = counts
                        .window
                        .iter()
                        .filter(|&&at| now.saturating_sub(at) < window && at <= now.saturating_add(window))
                        .count();
                    // A running call counts whether its holder lives (it runs) or
                    // not (it ends at the next turn, now).
                    ((ended + counts.running.len()) as u64, false)
                })
                .await?;
            let in_flight = self.files.slots_held()?;
            Ok((in_flight, in_window))
        })
    }

    fn when_unavailable(&self) -> WhenUnavailable {
        // A machine store that cannot be written (a full disk, a read-only
        // home) should not stop every analytics call: count in this process.
        WhenUnavailable::LocalFallback
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_forgets_old_and_far_future_calls_and_a_new_month_starts_at_zero() {
        let config = QuotaConfig {
            window: Duration::from_secs(60),
            safety_margin: Duration::ZERO,
            ..QuotaConfig::default()
        };
        let now = now_millis();
        let run = |mark| Running { slot: 0, mark };
        let mut counts = Counts {
            month: "1999-01".to_owned(),
            used: 49_999,
            window: vec![now - 61_000, now - 1_000, now + 10_000_000],
            running: Vec::new(),
        };
        assert!(matches!(
            counts.take(&config, true, Some(run(1)), |_| true),
            Decision::Counted(1)
        ));
        assert_eq!(counts.window.len(), 1, "the old and the far-future call are gone");
        assert_eq!(counts.running, [run(1)], "a call counts while it runs");
        counts.end(run(1), now);
        assert_eq!((counts.window.len(), counts.running.len()), (2, 0));
        assert!(matches!(
            counts.take(&config, true, Some(run(2)), |_| true),
            Decision::Counted(2)
        ));
        match counts.take(&config, true, Some(run(3)), |_| true) {
            Decision::Full(wait) => assert!(
                wait <= Duration::from_secs(60) && wait > Duration::from_secs(58),
                "{wait:?}"
            ),
            _ => panic!("the window holds 3 calls, one of them running"),
        }
        // A call that counts only against the month is not held back by the
        // window; its turn finds the running call's slot let go: it ended then.
        assert!(matches!(
            counts.take(&config, false, None, |_| false),
            Decision::Counted(3)
        ));
        assert_eq!((counts.window.len(), counts.running.len()), (3, 0));
        counts.used = config.per_month;
        assert!(matches!(
            counts.take(&config, false, None, |_| true),
            Decision::MonthSpent
        ));
    }

    #[test]
    fn a_call_counted_from_its_turn_is_stamped_when_it_takes_it() {
        // The command line's test through the binary covers which calls are
        // (`an_analytics_call_counts_until_a_minute_after_its_end_unless_told_its_turn`).
        let config = QuotaConfig::default();
        let mut counts = Counts::default();
        assert!(matches!(
            counts.take(&config, true, None, |_| true),
            Decision::Counted(1)
        ));
        assert_eq!((counts.window.len(), counts.running.len()), (1, 0));
    }

    #[test]
    fn a_slot_is_held_while_its_file_is_locked_and_carries_the_calls_mark() {
        let dir = std::env::temp_dir().join(format!("vidplat-machine-quota-{}", fastrand::u64(..)));
        let store = MachineQuota::new(&dir, "http://127.0.0.1:1000/analytics", "me");
        store.files.ensure_dir().unwrap();
        let (lock, slot) = store.files.try_slot(1, 7).unwrap().expect("a free slot");
        assert!(store.files.still_held(Running { slot, mark: 7 }));
        assert!(
            !store.files.still_held(Running { slot, mark: 8 }),
            "another call's mark"
        );
        assert!(store.files.try_slot(1, 9).unwrap().is_none(), "one slot, held");
        drop(lock);
        assert!(!store.files.still_held(Running { slot, mark: 7 }), "let go");
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// What another user can plant in a shared state directory: a link at a
    /// slot's name to a file of the victim's, a FIFO at the counts' name, a
    /// counts file that does not parse. None is followed, read or replaced.
    #[cfg(unix)]
    #[tokio::test]
    async fn what_is_planted_in_the_store_is_refused_and_left_as_it_is() {
        let dir = std::env::temp_dir().join(format!("vidplat-machine-quota-{}", fastrand::u64(..)));
        let store = MachineQuota::new(&dir, "http://127.0.0.1:1000/analytics", "me");
        store.files.ensure_dir().unwrap();
        let victim = dir.join("victim");
        std::fs::write(&victim, "precious").unwrap();
        std::os::unix::fs::symlink(&victim, &store.files.slot).unwrap();
        let refused = store.files.try_slot(1, 7).map(|slot| slot.is_some());
        assert!(
            refused.as_ref().is_err_and(|e| e.reason().contains("symbolic link")),
            "{refused:?}"
        );
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
        assert!(!store.files.still_held(Running { slot: 0, mark: 0 }));

        // A FIFO with no writer would hold an open for reading forever.
        let made = std::process::Command::new("mkfifo").arg(&store.files.counts).status();
        assert!(made.is_ok_and(|status| status.success()), "mkfifo");
        let month = tokio::time::timeout(Duration::from_secs(5), store.month_used()).await;
        let month = month.expect("the FIFO is not waited on");
        assert!(month.is_err_and(|e| e.reason().contains("not a regular file")));

        // Counting afresh over a file that does not parse would start the month at 0.
        std::fs::remove_file(&store.files.counts).unwrap();
        let damaged = format!(r#"{{"month":"{}","used":49999,"window":[-1]}}"#, month_of(now_millis()));
        std::fs::write(&store.files.counts, &damaged).unwrap();
        let month = store.month_used().await;
        assert!(month.is_err_and(|e| e.reason().contains("no counts file")));
        assert_eq!(
            std::fs::read_to_string(&store.files.counts).unwrap(),
            damaged,
            "left as it is"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn an_account_at_another_url_or_another_account_has_its_own_files() {
        let a = MachineQuota::new("/tmp/x", "http://127.0.0.1:1000/analytics", "me");
        let b = MachineQuota::new("/tmp/x", "http://127.0.0.1:2000/analytics", "me");
        let c = MachineQuota::new("/tmp/x", "http://127.0.0.1:1000/analytics/", "me");
        let d = MachineQuota::new("/tmp/x", "http://127.0.0.1:1000/analytics", "you");
        assert_ne!(a.files.counts, b.files.counts);
        assert_eq!(a.files.counts, c.files.counts, "a trailing / is the same base");
        assert_ne!(a.files.counts, d.files.counts);
        assert!(!MachineQuota::key_fingerprint("secret").contains("secret"));
    }
}
