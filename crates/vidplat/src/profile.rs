//! Named profiles: one set-up shared by the `vidplat` command line and
//! programs (`Client::from_profile("prod")`).
//!
//! A profile lives in two TOML files of the configuration directory
//! (`$VIDPLAT_CONFIG_DIR`, else the platform's, e.g. `~/.config/vidplat` on
//! Linux): `config.toml` holds the URLs, login ID, route overrides, quota
//! store and timeouts; `credentials.toml`, created readable by its owner only
//! (mode 0600 on Unix), holds the API key and a quota store URL that carries
//! a password. A file holding a secret that others can read, or that is a
//! symbolic link, is refused with a message saying how to fix it (as ssh
//! refuses a private key others can read).
//!
//! ```toml
//! # config.toml
//! [profiles.prod]
//! encoder_url = "https://encoder.example.com"
//! total_timeout_secs = 120
//! output = "ndjson"   # the command line's output format with this profile
//! [profiles.prod.routes]
//! get_task = "GET /v1/tasks/{task-id}"
//!
//! # credentials.toml
//! [profiles.prod]
//! api_key = "…"
//! webhook_secret = "whsec_…"   # only to forward events (`vidplat watch --forward-to`)
//! ```

use crate::{ClientBuilder, Error};
use secrecy::{ExposeSecret, SecretString};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;
use vidplat_core::__private::{read_text, Links};
use vidplat_core::Method;

/// The variable naming the configuration directory (overrides the platform's).
pub const CONFIG_DIR_VARIABLE: &str = "VIDPLAT_CONFIG_DIR";
/// The variable naming the profile to use when none is given.
pub const PROFILE_VARIABLE: &str = "VIDPLAT_PROFILE";
/// The profile used when none is named.
pub const DEFAULT_PROFILE: &str = "default";

/// One named set-up. Every member is optional: what a profile leaves out,
/// the environment or the defaults give.
#[derive(Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    /// The encoding service's base URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encoder_url: Option<String>,
    /// The video management service's base URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vms_url: Option<String>,
    /// The analytics service's base URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub analytics_url: Option<String>,
    /// The account's login ID (the analytics quota's account with a shared store).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub login_id: Option<String>,
    /// The Redis URL of a shared analytics quota store (needs the `redis` feature).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quota_store: Option<String>,
    /// Seconds to connect.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connect_timeout_secs: Option<u64>,
    /// Seconds for one attempt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attempt_timeout_secs: Option<u64>,
    /// Seconds for a whole call, retries and quota waits included.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_timeout_secs: Option<u64>,
    /// Route overrides: operation ID → `METHOD /path/{param}`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub routes: BTreeMap<String, String>,
    /// How the command line prints data with this profile (`json`, `ndjson`,
    /// `table`, `csv`, `yaml`), as an AWS CLI profile's `output`; the SDK does not read it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    /// The API key (kept in `credentials.toml`, never in `config.toml`).
    #[serde(skip)]
    pub api_key: Option<SecretString>,
    /// The `whsec_…` secret events forwarded as webhooks are signed with
    /// (`vidplat watch --forward-to`; kept in `credentials.toml`).
    #[serde(skip)]
    pub webhook_secret: Option<SecretString>,
}

impl fmt::Debug for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use crate::shown_url;
        f.debug_struct("Profile")
            .field("encoder_url", &shown_url(&self.encoder_url))
            .field("vms_url", &shown_url(&self.vms_url))
            .field("analytics_url", &shown_url(&self.analytics_url))
            .field("login_id", &self.login_id)
            .field("quota_store", &shown_url(&self.quota_store))
            .field("connect_timeout_secs", &self.connect_timeout_secs)
            .field("attempt_timeout_secs", &self.attempt_timeout_secs)
            .field("total_timeout_secs", &self.total_timeout_secs)
            .field("routes", &self.routes)
            .field("output", &self.output)
            .field("api_key", &self.api_key.as_ref().map(|_| vidplat_core::REDACTED))
            .field(
                "webhook_secret",
                &self.webhook_secret.as_ref().map(|_| vidplat_core::REDACTED),
            )
            .finish()
    }
}

/// Why a profile could not be read, written or applied.
#[derive(Debug)]
#[non_exhaustive]
pub enum ProfileError {
    /// No configuration directory: no `$VIDPLAT_CONFIG_DIR` and the platform has none.
    NoConfigDir,
    /// No profile of that name.
    NotFound {
        /// The name asked for.
        name: String,
    },
    /// A file could not be read or written.
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// A file is not a profile file (the parser's message names the line).
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// A file holding a secret is not the owner's alone: others can read it,
    /// or it is a symbolic link (which could point anywhere).
    Unprotected {
        /// The file.
        path: PathBuf,
        /// What is wrong, and how to fix it.
        reason: String,
    },
    /// A profile's value cannot be used (a route that is not `METHOD /path`, a
    /// quota store without the `redis` feature).
    Unusable {
        /// The profile.
        name: String,
        /// What is wrong.
        reason: String,
    },
}

impl fmt::Display for ProfileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProfileError::NoConfigDir => write!(
                f,
                "no configuration directory: set {CONFIG_DIR_VARIABLE} (this platform names none)"
            ),
            ProfileError::NotFound { name } => write!(f, "no profile named `{name}`"),
            ProfileError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            ProfileError::Invalid { path, reason } => write!(f, "{}: {reason}", path.display()),
            ProfileError::Unprotected { path, reason } => write!(f, "{}: {reason}", path.display()),
            ProfileError::Unusable { name, reason } => write!(f, "profile `{name}`: {reason}"),
        }
    }
}

impl std::error::Error for ProfileError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ProfileError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// A profile file: `config.toml`'s `Profile`s or `credentials.toml`'s `Credentials`, by name.
#[derive(Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct ProfilesFile<P> {
    profiles: BTreeMap<String, P>,
}

/// A member left out reads as `None`; `toml` writes no `None` member (TOML has no null).
#[derive(Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct Credentials {
    api_key: Option<String>,
    /// A quota store URL that carries a password (one without stays in `config.toml`).
    quota_store: Option<String>,
    webhook_secret: Option<String>,
}

/// Whether a URL carries a user, a password or a `password=` query value.
fn carries_secret(url: &str) -> bool {
    matches!(vidplat_core::without_credentials(url), std::borrow::Cow::Owned(_))
}

/// The profiles of one configuration directory, read whole, changed and saved.
#[derive(Debug)]
pub struct Profiles {
    dir: PathBuf,
    profiles: BTreeMap<String, Profile>,
}

impl Profiles {
    /// The configuration directory: `$VIDPLAT_CONFIG_DIR`, else the platform's `…/vidplat`.
    pub fn location() -> Result<PathBuf, ProfileError> {
        match std::env::var_os(CONFIG_DIR_VARIABLE).filter(|v| !v.is_empty()) {
            Some(dir) => Ok(PathBuf::from(dir)),
            None => dirs::config_dir()
                .map(|dir| dir.join("vidplat"))
                .ok_or(ProfileError::NoConfigDir),
        }
    }

    /// The profiles of the configuration directory (none when its files do not exist).
    pub fn load() -> Result<Self, ProfileError> {
        Self::load_from(&Self::location()?)
    }

    /// The profiles of `dir` (none when its files do not exist).
    pub fn load_from(dir: &Path) -> Result<Self, ProfileError> {
        let config_path = dir.join("config.toml");
        let config: ProfilesFile<Profile> = read_toml(&config_path)?;
        // A config.toml written before quota store passwords moved out is still read, if it is private.
        let mut quota_stores = config.profiles.values().filter_map(|p| p.quota_store.as_deref());
        if quota_stores.any(carries_secret) {
            ensure_private(&config_path)?;
        }
        let credentials_path = dir.join("credentials.toml");
        ensure_private(&credentials_path)?;
        let credentials: ProfilesFile<Credentials> = read_toml(&credentials_path)?;
        let mut profiles = config.profiles;
        for (name, credentials) in credentials.profiles {
            let profile = profiles.entry(name).or_default();
            // config.toml never holds a key or a webhook secret (`#[serde(skip)]`).
            profile.api_key = credentials.api_key.map(SecretString::from);
            profile.webhook_secret = credentials.webhook_secret.map(SecretString::from);
            profile.quota_store = credentials.quota_store.or(profile.quota_store.take());
        }
        Ok(Self {
            dir: dir.to_owned(),
            profiles,
        })
    }

    /// The directory the profiles are read from and saved to.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The profile `name`.
    pub fn get(&self, name: &str) -> Result<&Profile, ProfileError> {
        self.profiles
            .get(name)
            .ok_or_else(|| ProfileError::NotFound { name: name.to_owned() })
    }

    /// Every profile, by name.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Profile)> {
        self.profiles.iter().map(|(name, profile)| (name.as_str(), profile))
    }

    /// Adds or replaces the profile `name` (saved by [`Profiles::save`]).
    pub fn insert(&mut self, name: impl Into<String>, profile: Profile) {
        self.profiles.insert(name.into(), profile);
    }

    /// Removes the profile `name`; whether there was one.
    pub fn remove(&mut self, name: &str) -> bool {
        self.profiles.remove(name).is_some()
    }

    /// Writes both files: `credentials.toml` (the keys, and quota store URLs
    /// that carry a password) readable by its owner only.
    pub fn save(&self) -> Result<(), ProfileError> {
        std::fs::create_dir_all(&self.dir).map_err(io(&self.dir))?;
        let mut config = ProfilesFile::default();
        let mut credentials = ProfilesFile::default();
        for (name, profile) in &self.profiles {
            let mut public = profile.clone();
            let secret = Credentials {
                api_key: public.api_key.take().map(|key| key.expose_secret().to_owned()),
                quota_store: public.quota_store.take_if(|url| carries_secret(url)),
                webhook_secret: public.webhook_secret.take().map(|key| key.expose_secret().to_owned()),
            };
            if secret.api_key.is_some() || secret.quota_store.is_some() || secret.webhook_secret.is_some() {
                credentials.profiles.insert(name.clone(), secret);
            }
            config.profiles.insert(name.clone(), public);
        }
        write_toml(&self.dir.join("config.toml"), &config, false)?;
        write_toml(&self.dir.join("credentials.toml"), &credentials, true)
    }
}

/// What failed reading or writing `path`, as its error.
fn io(path: &Path) -> impl FnOnce(std::io::Error) -> ProfileError {
    let path = path.to_owned();
    move |source| ProfileError::Io { path, source }
}

/// Refuses a file that holds a secret unless it is a regular file only its
/// owner can read and write (a missing file is no secret).
fn ensure_private(path: &Path) -> Result<(), ProfileError> {
    let metadata = match std::fs::symlink_metadata(path) {
        Ok(metadata) => metadata,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(source) => return Err(io(path)(source)),
    };
    let unprotected = |reason: String| ProfileError::Unprotected {
        path: path.to_owned(),
        reason,
    };
    if metadata.file_type().is_symlink() {
        return Err(unprotected(format!(
            "holds secrets and is a symbolic link, which is not read: replace it with the file itself \
             (`cp --remove-destination \"$(readlink -f {0})\" {0}`)",
            path.display()
        )));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = metadata.permissions().mode() & 0o777;
        if mode & 0o077 != 0 {
            return Err(unprotected(format!(
                "holds secrets and others can read or write it (mode {mode:04o}): run `chmod 600 {}`",
                path.display()
            )));
        }
    }
    Ok(())
}

/// The most a profile file may hold: far more than any set of profiles.
const MAX_PROFILE_FILE: u64 = 1 << 20;

fn read_toml<T: Default + serde::de::DeserializeOwned>(path: &Path) -> Result<T, ProfileError> {
    // A FIFO, a device or an endless file there is refused, not read.
    let Some(text) = read_text(path, MAX_PROFILE_FILE, Links::Follow).map_err(io(path))? else {
        return Ok(T::default());
    };
    toml::from_str(&text).map_err(|e| ProfileError::Invalid {
        path: path.to_owned(),
        // The parser's full message quotes the offending line, which may hold a
        // key or a password put in the wrong file: only its words and where.
        reason: if path.ends_with("credentials.toml") {
            "not a credentials file (`[profiles.<name>]` tables holding `api_key`)".to_owned()
        } else {
            let at = e.span().map(|span| {
                let before = text.get(..span.start).unwrap_or_default();
                let line = before.matches('\n').count() + 1;
                let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
                format!(" (line {line}, column {column})")
            });
            format!("{}{}", e.message().trim_end(), at.unwrap_or_default())
        },
    })
}

/// Writes `value` to `path` whole (a new file renamed over the old), owner only when `private`.
fn write_toml<T: Serialize>(path: &Path, value: &T, private: bool) -> Result<(), ProfileError> {
    let text = toml::to_string(value).map_err(|e| ProfileError::Invalid {
        path: path.to_owned(),
        reason: e.to_string(),
    })?;
    vidplat_core::__private::replace_file(path, text.as_bytes(), private).map_err(io(path))
}

impl ClientBuilder {
    /// Applies what `profile` (named `name`, for errors) sets; what it leaves out is left as it is.
    pub fn profile(mut self, name: &str, profile: &Profile) -> Result<Self, ProfileError> {
        let secs = |secs: Option<u64>| secs.map(Duration::from_secs);
        self = self
            .set_if_some(profile.encoder_url.as_ref(), Self::encoder_url)
            .set_if_some(profile.vms_url.as_ref(), Self::vms_url)
            .set_if_some(profile.analytics_url.as_ref(), Self::analytics_url)
            .set_if_some(profile.login_id.as_ref(), Self::login_id)
            .set_if_some(profile.api_key.as_ref().map(|key| key.expose_secret()), Self::api_key)
            .set_if_some(secs(profile.connect_timeout_secs), Self::connect_timeout)
            .set_if_some(secs(profile.attempt_timeout_secs), Self::attempt_timeout)
            .set_if_some(secs(profile.total_timeout_secs), Self::total_timeout);
        for (operation, route) in &profile.routes {
            let not_a_route = || unusable(name, format!("route of `{operation}` is not `METHOD /path`: {route:?}"));
            let (method, template) = route.trim().split_once(' ').ok_or_else(not_a_route)?;
            let method = [Method::Get, Method::Post, Method::Put, Method::Patch, Method::Delete]
                .into_iter()
                .find(|known| known.as_str().eq_ignore_ascii_case(method))
                .ok_or_else(not_a_route)?;
            self = self.route(operation, method, template.trim());
        }
        if let Some(url) = &profile.quota_store {
            self = with_quota_store(self, name, profile, url)?;
        }
        Ok(self)
    }

    /// `set` given `value`, when the profile has one; else the builder as it is.
    fn set_if_some<T>(self, value: Option<T>, set: impl FnOnce(Self, T) -> Self) -> Self {
        match value {
            Some(value) => set(self, value),
            None => self,
        }
    }

    /// A builder from the profile `name` (the configuration directory's) alone:
    /// a profile named is the whole set-up, and the `VIDPLAT_*` variables are
    /// not read (as the command line's `--profile`), so a shell that exported
    /// another account's cannot redirect the calls.
    pub fn from_profile(name: &str) -> Result<Self, Error> {
        let profiles = Profiles::load()?;
        Ok(ClientBuilder::default().profile(name, profiles.get(name)?)?)
    }
}

#[cfg(feature = "redis")]
fn with_quota_store(
    builder: ClientBuilder,
    name: &str,
    profile: &Profile,
    url: &str,
) -> Result<ClientBuilder, ProfileError> {
    // The quota is the account's: its login ID names it in the store (a profile's name would not).
    let needs_login = "a quota store needs the profile's login_id (the account whose quota it counts)";
    let account = profile.login_id.as_deref().ok_or_else(|| unusable(name, needs_login))?;
    let store =
        vidplat_redis::RedisQuota::new(url, account).map_err(|e| unusable(name, format!("quota store: {e}")))?;
    Ok(builder.quota_store(store))
}

#[cfg(not(feature = "redis"))]
fn with_quota_store(_: ClientBuilder, name: &str, _: &Profile, _: &str) -> Result<ClientBuilder, ProfileError> {
    Err(unusable(name, "a quota store needs vidplat's `redis` feature"))
}

/// The profile `name`'s value cannot be used, for `reason`.
fn unusable(name: &str, reason: impl Into<String>) -> ProfileError {
    ProfileError::Unusable {
        name: name.to_owned(),
        reason: reason.into(),
    }
}

impl crate::Client {
    /// The client of the profile `name` alone, no `VIDPLAT_*` variable read
    /// (see [`ClientBuilder::from_profile`] and the [module](crate::profile)).
    pub fn from_profile(name: &str) -> Result<Self, Error> {
        ClientBuilder::from_profile(name)?.build()
    }
}

impl From<ProfileError> for Error {
    fn from(error: ProfileError) -> Self {
        Error::Profile(error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A key put in `config.toml` by mistake, on a line the parser refuses,
    /// is not quoted back: the error says what and where, not the line.
    #[test]
    fn a_malformed_config_is_reported_by_line_and_column_without_its_text() {
        let dir = std::env::temp_dir().join(format!("vidplat-config-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("config.toml");
        std::fs::write(&path, "[profiles.prod]\napi_key = \"sk-live-hunter2\n").unwrap();
        let refused = read_toml::<toml::Table>(&path).unwrap_err().to_string();
        assert!(!refused.contains("hunter2"), "{refused}");
        assert!(refused.contains("(line 2, column "), "{refused}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Every command reads the profiles: a FIFO (which would hold the read
    /// forever) or an endless file at their names is refused, not read.
    #[cfg(unix)]
    #[test]
    fn a_fifo_or_an_oversized_file_at_a_profile_file_is_refused_unread() {
        let dir = std::env::temp_dir().join(format!("vidplat-config-fifo-{}", fastrand::u64(..)));
        std::fs::create_dir_all(&dir).unwrap();
        let credentials = dir.join("credentials.toml");
        let made = std::process::Command::new("mkfifo")
            .args(["-m", "600"])
            .arg(&credentials)
            .status();
        assert!(made.is_ok_and(|status| status.success()), "mkfifo");
        let (sender, outcome) = std::sync::mpsc::channel();
        let from = dir.clone();
        std::thread::spawn(move || sender.send(Profiles::load_from(&from).map(|_| ()).map_err(|e| e.to_string())));
        let refused = outcome
            .recv_timeout(std::time::Duration::from_secs(5))
            .expect("the FIFO is not waited on");
        assert!(refused.is_err_and(|e| e.ends_with("is not a regular file")));
        std::fs::remove_file(&credentials).unwrap();
        let config = dir.join("config.toml");
        std::fs::write(&config, vec![b'#'; (MAX_PROFILE_FILE + 1) as usize]).unwrap();
        let refused = Profiles::load_from(&dir).map(|_| ()).unwrap_err().to_string();
        assert!(refused.ends_with("larger than 1 MiB"), "{refused}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A credentials file holds what its profiles set, no member written empty.
    #[test]
    fn a_saved_credentials_file_holds_only_the_members_set() {
        let dir = std::env::temp_dir().join(format!("vidplat-config-save-{}", fastrand::u64(..)));
        let mut profiles = Profiles {
            dir: dir.clone(),
            profiles: BTreeMap::new(),
        };
        let key = Some(SecretString::from("key-123"));
        profiles.insert(
            "prod",
            Profile {
                api_key: key,
                ..Profile::default()
            },
        );
        profiles.save().unwrap();
        let written = std::fs::read_to_string(dir.join("credentials.toml")).unwrap();
        assert_eq!(written, "[profiles.prod]\napi_key = \"key-123\"\n");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[cfg(feature = "redis")]
    #[test]
    fn a_quota_store_needs_the_account_it_counts_for() {
        let profile = Profile {
            quota_store: Some("redis://127.0.0.1:6379".to_owned()),
            ..Profile::default()
        };
        let refused = ClientBuilder::default()
            .profile("prod", &profile)
            .map(|_| ())
            .unwrap_err();
        assert_eq!(
            refused.to_string(),
            "profile `prod`: a quota store needs the profile's login_id (the account whose quota it counts)"
        );
        let with_account = Profile {
            login_id: Some("me@acct".to_owned()),
            ..profile
        };
        assert!(ClientBuilder::default().profile("prod", &with_account).is_ok());
    }

    #[test]
    fn a_route_is_method_then_path() {
        let mut profile = Profile::default();
        profile
            .routes
            .insert("get_task".to_owned(), "FETCH /v1/tasks/{task-id}".to_owned());
        let refused = ClientBuilder::default()
            .profile("prod", &profile)
            .map(|_| ())
            .unwrap_err();
        assert!(
            refused
                .to_string()
                .contains("route of `get_task` is not `METHOD /path`"),
            "{refused}"
        );
    }

    #[test]
    fn debug_shows_no_key_and_no_credentials_in_urls() {
        let profile = Profile {
            quota_store: Some("redis://user:hunter2@cache:6379".to_owned()),
            api_key: Some(SecretString::from("key-123")),
            ..Profile::default()
        };
        let shown = format!("{profile:?}");
        assert!(!shown.contains("hunter2") && !shown.contains("key-123"), "{shown}");
    }
}
