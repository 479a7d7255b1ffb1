//! Presets and profiles: the account's own, and the profiles a parent account
//! shares with it. Field rules, uniqueness, the registration limits and the
//! deletion cascade follow the document.

use super::access::{decode, ResourceId};
use super::clock::{fixed_timestamp, Clock};
use super::{over_service_limit, Service};
use crate::error::{missing_members, SimError};
use crate::{JsonBody, Updates};
use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use std::collections::BTreeMap;
use std::sync::Arc;
use vidplat_encoder::types::{
    CreatedId, HlsConfig, Preset, PresetCreate, PresetFormat, PresetList, PresetUpdate, Profile, ProfileCreate,
    ProfileList, ProfileShare, ProfileUpdate, ProfileVmsConfig,
};

/// Output file name placeholders (document: "Output file name placeholders").
pub(super) const INPUT_FILENAME: &str = "%INPUT_FILENAME%";
pub(super) const OUTPUT_BASENAME: &str = "%OUTPUT_BASENAME%";
pub(super) const VMS_OUTPUT_FILENAME: &str = "%VMS_OUTPUT_FILENAME%";

/// Presets a profile may hold; the document does not give the number (FULL_PROFILE past it).
const MAX_PRESETS_PER_PROFILE: usize = 10;

/// Ids of what the parent account shares, far from the account's own ids.
const SHARED_ID: i64 = 1_000_001;

/// The shared profile's registration settings: the parent account's category,
/// label and distribution network (which this account does not have), and two
/// of the built-in policies that are not the defaults.
const PARENT_CATEGORY_ID: &str = "ca700000-0000-4000-8000-0000000000aa";
const PARENT_LABEL_ID: &str = "1abe1000-0000-4000-8000-0000000000aa";
const PARENT_FORWARD_POLICY_ID: &str = "cf900000-0000-4000-8000-000000000002";
const PARENT_STREAMING_POLICY_ID: &str = "5b000000-0000-4000-8000-000000000002";
const PARENT_DISTRIBUTION_ID: &str = "d1570000-0000-4000-8000-0000000000aa";

/// A distributor of the legacy video management service, with the
/// distribution networks it has (the simulator's fixed set).
struct Distributor {
    id: &'static str,
    mp4_network: bool,
    hls_network: bool,
}

const LEGACY_DISTRIBUTORS: [Distributor; 3] = [
    Distributor {
        id: "1001",
        mp4_network: true,
        hls_network: true,
    },
    Distributor {
        id: "1002",
        mp4_network: true,
        hls_network: false,
    },
    Distributor {
        id: "1003",
        mp4_network: false,
        hls_network: true,
    },
];

/// Where a preset uploads (document: "Destination forms").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Destination<'a> {
    /// `vms5://`: registers content to the video management service.
    Vms,
    /// `vms4://<distributor_id>:<folder_id>`: the legacy service.
    LegacyVms { distributor: &'a str },
    /// `http(s)://…` or `ftp(s)://…`.
    Url,
    /// `objstore://<bucket_name>/<object_key_prefix>`.
    ObjectStorage,
}

impl<'a> Destination<'a> {
    pub(super) fn parse(destination: &'a str) -> Option<Self> {
        if destination.starts_with("vms5://") {
            return Some(Destination::Vms);
        }
        if let Some(rest) = destination.strip_prefix("vms4://") {
            let (distributor, folder) = rest.split_once(':')?;
            return (!distributor.is_empty() && !folder.is_empty()).then_some(Destination::LegacyVms { distributor });
        }
        if let Some(rest) = destination.strip_prefix("objstore://") {
            let (bucket, _prefix) = rest.split_once('/')?;
            return (!bucket.is_empty()).then_some(Destination::ObjectStorage);
        }
        ["http://", "https://", "ftp://", "ftps://"]
            .iter()
            .any(|scheme| destination.len() > scheme.len() && destination.starts_with(scheme))
            .then_some(Destination::Url)
    }

    pub(super) fn of(preset: &'a Preset) -> Option<Self> {
        preset.destination.as_deref().and_then(Destination::parse)
    }
}

/// A profile a task can apply, with its presets.
pub(super) struct ProfileInUse<'a> {
    pub profile: &'a Profile,
    pub presets: Vec<&'a Preset>,
    /// Shared from another account.
    pub shared: bool,
}

impl ProfileInUse<'_> {
    /// Some preset has the post-execution action "register to the video
    /// management service" (its destination is `vms5://`).
    pub(super) fn registers_to_vms(&self) -> bool {
        self.presets
            .iter()
            .any(|preset| Destination::of(preset) == Some(Destination::Vms))
    }
}

pub(super) struct Catalog {
    clock: Clock,
    max_presets: usize,
    max_profiles: usize,
    presets: BTreeMap<i64, Preset>,
    profiles: BTreeMap<i64, Profile>,
    next_preset_id: i64,
    next_profile_id: i64,
    /// What a parent account shares with this one (read-only here).
    shared_presets: BTreeMap<i64, Preset>,
    shared_profiles: BTreeMap<i64, Profile>,
}

impl Catalog {
    pub(super) fn new(clock: Clock, max_presets: usize, max_profiles: usize) -> Self {
        let (shared_preset, shared_profile) = parent_account_share();
        Self {
            clock,
            max_presets,
            max_profiles,
            presets: BTreeMap::new(),
            profiles: BTreeMap::new(),
            next_preset_id: 1,
            next_profile_id: 1,
            shared_presets: BTreeMap::from([(SHARED_ID, shared_preset)]),
            shared_profiles: BTreeMap::from([(SHARED_ID, shared_profile)]),
        }
    }

    /// An own or shared profile, for a task.
    pub(super) fn profile_for_task(&self, id: i64) -> Option<ProfileInUse<'_>> {
        let (profile, presets, shared) = match self.profiles.get(&id) {
            Some(profile) => (profile, &self.presets, false),
            None => (self.shared_profiles.get(&id)?, &self.shared_presets, true),
        };
        Some(ProfileInUse {
            profile,
            presets: profile.presets.iter().filter_map(|id| presets.get(id)).collect(),
            shared,
        })
    }

    /// One of the account's own presets: what it may change or put in a profile.
    fn preset(&self, id: i64) -> Result<&Preset, SimError> {
        self.presets
            .get(&id)
            .ok_or_else(|| not_own("preset", id, self.shared_presets.contains_key(&id)))
    }

    /// One of the account's own profiles: what it may change.
    fn profile(&self, id: i64) -> Result<&Profile, SimError> {
        self.profiles
            .get(&id)
            .ok_or_else(|| not_own("profile", id, self.shared_profiles.contains_key(&id)))
    }

    /// An own or shared preset, to read (a shared profile's presets are read with it).
    fn readable_preset(&self, id: i64) -> Result<&Preset, SimError> {
        self.presets
            .get(&id)
            .or_else(|| self.shared_presets.get(&id))
            .ok_or_else(|| SimError::not_found(format!("preset {id}")))
    }

    /// An own or shared profile, to read (the shared ones are listed too).
    fn readable_profile(&self, id: i64) -> Result<&Profile, SimError> {
        self.profiles
            .get(&id)
            .or_else(|| self.shared_profiles.get(&id))
            .ok_or_else(|| SimError::not_found(format!("profile {id}")))
    }

    fn register_preset(&mut self, mut preset: Preset, now: std::time::Instant) -> Result<i64, SimError> {
        self.check_preset(&preset, None)?;
        if self.presets.len() >= self.max_presets {
            return Err(over_service_limit("presets", self.max_presets));
        }
        let id = self.next_preset_id;
        self.next_preset_id += 1;
        preset.id = Some(id);
        preset.created_at = self.clock.timestamp(now);
        preset.updated_at = preset.created_at.clone();
        self.presets.insert(id, preset);
        Ok(id)
    }

    /// Updates the members sent; `streams` sent replaces them (`[]` clears them),
    /// and a nullable member sent as `null` is cleared.
    fn update_preset(&mut self, id: i64, update: PresetUpdate, now: std::time::Instant) -> Result<(), SimError> {
        let mut preset = self.preset(id)?.clone();
        apply_preset_update(&mut preset, update);
        self.check_preset(&preset, Some(id))?;
        preset.updated_at = self.clock.timestamp(now);
        self.presets.insert(id, preset);
        Ok(())
    }

    /// Puts `preset` in place of preset `id`, keeping its id and registration
    /// time, after registration's checks ([`Updates::Reset`]).
    fn replace_preset(&mut self, id: i64, mut preset: Preset, now: std::time::Instant) -> Result<(), SimError> {
        let current = self.preset(id)?;
        preset.id = current.id;
        preset.created_at = current.created_at.clone();
        self.check_preset(&preset, Some(id))?;
        preset.updated_at = self.clock.timestamp(now);
        self.presets.insert(id, preset);
        Ok(())
    }

    /// Deletes a preset, every profile that contained only it, and its place in the others.
    fn delete_preset(&mut self, id: i64) -> Result<(), SimError> {
        self.preset(id)?;
        self.presets.remove(&id);
        self.profiles.retain(|_, profile| profile.presets != [id]);
        for profile in self.profiles.values_mut() {
            profile.presets.retain(|preset| *preset != id);
        }
        Ok(())
    }

    /// The document's preset field rules, then uniqueness of the name. The
    /// members the simulator requires (the document does not say which a
    /// preset needs) are named all in one answer, not one a request.
    fn check_preset(&self, preset: &Preset, own_id: Option<i64>) -> Result<(), SimError> {
        let missing: Vec<&str> = [
            ("name", preset.name.is_none()),
            ("destination", preset.destination.is_none()),
            ("format", preset.format.is_none()),
            ("output_filename", preset.output_filename.is_none()),
        ]
        .into_iter()
        .filter_map(|(member, absent)| absent.then_some(member))
        .collect();
        if !missing.is_empty() {
            return Err(SimError::invalid(missing_members(&missing)));
        }
        let name = required(preset.name.as_deref(), "name")?;
        let destination = required(preset.destination.as_deref(), "destination")?;
        let format = preset
            .format
            .as_ref()
            .ok_or_else(|| SimError::invalid("`format` is required"))?;
        check_output_filename(required(preset.output_filename.as_deref(), "output_filename")?)?;
        let needs_config = match format {
            PresetFormat::Hls | PresetFormat::HlsEncrypted => preset.hls_config.is_none().then_some("hls_config"),
            PresetFormat::Dash | PresetFormat::DashEncrypted => preset.dash_config.is_none().then_some("dash_config"),
            PresetFormat::Mp4 | PresetFormat::Passthrough => None,
            other => return Err(SimError::invalid(format!("unknown format `{other}`"))),
        };
        if let Some(config) = needs_config {
            return Err(SimError::invalid(format!("format {format} requires `{config}`")));
        }
        match Destination::parse(destination) {
            None => {
                return Err(SimError::invalid(format!(
                    "destination `{destination}` is none of vms5://, vms4://<distributor_id>:<folder_id>, \
                     http(s)://…, ftp(s)://…, objstore://<bucket_name>/<object_key_prefix>"
                )))
            }
            Some(Destination::ObjectStorage) => {
                let method = preset
                    .destination_settings
                    .as_ref()
                    .and_then(|settings| settings.objstore.as_ref())
                    .and_then(|objstore| objstore.authentication_method.as_deref());
                if method.is_none_or(str::is_empty) {
                    return Err(SimError::invalid(
                        "an objstore:// destination requires `destination_settings.objstore.authentication_method`",
                    ));
                }
            }
            Some(Destination::LegacyVms { distributor }) => {
                check_legacy_distributor(distributor, format).map_err(|error| match own_id {
                    // The network codes are documented for preset registration only; an update follows the
                    // same rule (note 7) and answers INVALID_REQUEST, its message naming the rule.
                    Some(_) if error.code.ends_with("_NETWORK_ID_NOT_SPECIFIED") => SimError::invalid(format!(
                        "{} (the document names {} for preset registration only)",
                        error.message.unwrap_or_default(),
                        error.code
                    )),
                    _ => error,
                })?
            }
            Some(Destination::Vms | Destination::Url) => {}
        }
        let taken = self
            .presets
            .iter()
            .any(|(id, other)| Some(*id) != own_id && other.name.as_deref() == Some(name));
        if taken {
            return Err(SimError::new(
                StatusCode::CONFLICT,
                "PRESET_ALREADY_EXISTS",
                format!("a preset named `{name}` exists"),
            ));
        }
        Ok(())
    }

    fn register_profile(&mut self, mut profile: Profile, now: std::time::Instant) -> Result<i64, SimError> {
        self.check_profile(&profile, None)?;
        if self.profiles.len() >= self.max_profiles {
            return Err(over_service_limit("profiles", self.max_profiles));
        }
        let id = self.next_profile_id;
        self.next_profile_id += 1;
        profile.id = Some(id);
        profile.share = Some(ProfileShare::NotShare);
        profile.created_at = self.clock.timestamp(now);
        profile.updated_at = profile.created_at.clone();
        self.profiles.insert(id, profile);
        Ok(id)
    }

    /// Updates the members sent; `presets_sent`: the body sent `presets` (`[]` is refused: a profile holds a preset).
    fn update_profile(&mut self, id: i64, update: ProfileUpdate, now: std::time::Instant) -> Result<(), SimError> {
        let mut profile = self.profile(id)?.clone();
        let vms_config_given = update.vms_config.is_some();
        replace(&mut profile.name, update.name.map(String::from));
        update.description.map(String::from).apply_to(&mut profile.description);
        replace(&mut profile.share, update.share);
        replace(&mut profile.vms_config, update.vms_config);
        if let Some(presets) = &update.presets {
            profile.presets = preset_ids(presets)?;
        }
        // Settings for the video management service lapse with the last preset registering there.
        if !vms_config_given && !self.registers_to_vms(&profile.presets) {
            profile.vms_config = None;
        }
        self.check_profile(&profile, Some(id))?;
        profile.share = Some(ProfileShare::NotShare);
        profile.updated_at = self.clock.timestamp(now);
        self.profiles.insert(id, profile);
        Ok(())
    }

    /// Puts `profile` in place of profile `id`, keeping its id and
    /// registration time, after registration's checks ([`Updates::Reset`]).
    fn replace_profile(&mut self, id: i64, mut profile: Profile, now: std::time::Instant) -> Result<(), SimError> {
        let current = self.profile(id)?;
        profile.id = current.id;
        profile.created_at = current.created_at.clone();
        self.check_profile(&profile, Some(id))?;
        profile.share = Some(ProfileShare::NotShare);
        profile.updated_at = self.clock.timestamp(now);
        self.profiles.insert(id, profile);
        Ok(())
    }

    fn registers_to_vms(&self, preset_ids: &[i64]) -> bool {
        preset_ids
            .iter()
            .filter_map(|id| self.presets.get(id))
            .any(|preset| Destination::of(preset) == Some(Destination::Vms))
    }

    /// The document's profile field rules, then uniqueness of the name.
    fn check_profile(&self, profile: &Profile, own_id: Option<i64>) -> Result<(), SimError> {
        // Both named in one answer, as for a preset.
        if profile.name.is_none() && profile.presets.is_empty() {
            return Err(SimError::invalid(missing_members(&["name", "presets"])));
        }
        let name = required(profile.name.as_deref(), "name")?;
        if profile.presets.is_empty() {
            return Err(SimError::invalid("`presets` must name at least one preset"));
        }
        if profile.presets.len() > MAX_PRESETS_PER_PROFILE {
            let message = format!("a profile holds at most {MAX_PRESETS_PER_PROFILE} presets");
            // FULL_PROFILE is documented for profile update only.
            return Err(match own_id {
                Some(_) => SimError::new(StatusCode::BAD_REQUEST, "FULL_PROFILE", message),
                None => SimError::invalid(format!(
                    "{message} (the document names FULL_PROFILE for profile update only)"
                )),
            });
        }
        for id in &profile.presets {
            self.preset(*id)?;
        }
        // The simulated account is a sub-account (a parent shares a profile with
        // it), and "a sub-account cannot share a profile, so for it the field
        // holds the unshared value" (spelled not_share).
        match &profile.share {
            None | Some(ProfileShare::NotShared | ProfileShare::NotShare) => {}
            Some(ProfileShare::SharedSubs) => {
                return Err(SimError::invalid(
                    "this account is a sub-account (a parent account shares profiles with it): it cannot share a \
                     profile; share is not_share",
                ))
            }
            Some(other) => return Err(SimError::invalid(format!("unknown share `{other}`"))),
        }
        match (self.registers_to_vms(&profile.presets), profile.vms_config.is_some()) {
            (true, false) => {
                return Err(SimError::invalid(
                    "`vms_config` is required: a preset of the profile registers to the video management service",
                ))
            }
            (false, true) => {
                return Err(SimError::invalid(
                    "`vms_config` is accepted only when a preset of the profile registers to the video management \
                     service (destination vms5://)",
                ))
            }
            _ => {}
        }
        let taken = self
            .profiles
            .iter()
            .any(|(id, other)| Some(*id) != own_id && other.name.as_deref() == Some(name));
        if taken {
            return Err(SimError::new(
                StatusCode::CONFLICT,
                "PROFILE_ALREADY_EXISTS",
                format!("a profile named `{name}` exists"),
            ));
        }
        Ok(())
    }
}

/// 404 for a preset or profile that is not the account's own. What a parent
/// account shares is read-only here: the document names no code for changing
/// it, so it is not found among what the account may change.
fn not_own(what: &str, id: i64, shared: bool) -> SimError {
    match shared {
        true => SimError::new(
            StatusCode::NOT_FOUND,
            "MODEL_NOT_FOUND",
            format!("{what} {id} belongs to the parent account (shared with this one, read only)"),
        ),
        false => SimError::not_found(format!("{what} {id}")),
    }
}

fn required<'a>(value: Option<&'a str>, field: &str) -> Result<&'a str, SimError> {
    value.ok_or_else(|| SimError::invalid(format!("`{field}` is required")))
}

/// Sets `slot` when the request gives a value: updates keep what they omit.
fn replace<T>(slot: &mut Option<T>, value: Option<T>) {
    if value.is_some() {
        *slot = value;
    }
}

/// %OUTPUT_BASENAME% stands alone; %INPUT_FILENAME% takes a prefix or a suffix, not both.
fn check_output_filename(name: &str) -> Result<(), SimError> {
    if name.contains(OUTPUT_BASENAME) && name != OUTPUT_BASENAME {
        return Err(SimError::invalid(format!(
            "{OUTPUT_BASENAME} takes neither a prefix nor a suffix"
        )));
    }
    if let Some((prefix, suffix)) = name.split_once(INPUT_FILENAME) {
        if !prefix.is_empty() && !suffix.is_empty() {
            return Err(SimError::invalid(format!(
                "{INPUT_FILENAME} may be joined with a prefix or a suffix, not both"
            )));
        }
    }
    Ok(())
}

fn check_legacy_distributor(id: &str, format: &PresetFormat) -> Result<(), SimError> {
    let distributor = LEGACY_DISTRIBUTORS.iter().find(|known| known.id == id).ok_or_else(|| {
        SimError::new(
            StatusCode::BAD_REQUEST,
            "DISTRIBUTOR_NOT_FOUND",
            format!("distributor {id} is not registered"),
        )
    })?;
    let missing = match format {
        PresetFormat::Mp4 if !distributor.mp4_network => Some(("MP4_NETWORK_ID_NOT_SPECIFIED", "MP4")),
        PresetFormat::Hls | PresetFormat::HlsEncrypted if !distributor.hls_network => {
            Some(("HLS_NETWORK_ID_NOT_SPECIFIED", "HLS"))
        }
        _ => None,
    };
    match missing {
        Some((code, network)) => Err(SimError::new(
            StatusCode::BAD_REQUEST,
            code,
            format!("distributor {id} has no {network} distribution network id"),
        )),
        None => Ok(()),
    }
}

fn preset_from(request: PresetCreate) -> Preset {
    Preset {
        name: request.name.map(String::from),
        description: request.description.map(String::from),
        destination: request.destination.map(String::from),
        destination_settings: request.destination_settings,
        format: request.format,
        output_filename: request.output_filename.map(String::from),
        dynamic_streams: request.dynamic_streams,
        dash_config: request.dash_config,
        hls_config: request.hls_config,
        poster: request.poster,
        seek_preview: request.seek_preview,
        streams: request.streams,
        vms_config: request.vms_config,
        // profile_config: its effect is not shown; the simulator keeps nothing of it.
        ..Preset::default()
    }
}

fn apply_preset_update(preset: &mut Preset, update: PresetUpdate) {
    replace(&mut preset.name, update.name.map(String::from));
    update.description.map(String::from).apply_to(&mut preset.description);
    replace(&mut preset.destination, update.destination.map(String::from));
    replace(&mut preset.destination_settings, update.destination_settings);
    replace(&mut preset.format, update.format);
    replace(&mut preset.output_filename, update.output_filename.map(String::from));
    replace(&mut preset.dynamic_streams, update.dynamic_streams);
    update.dash_config.apply_to(&mut preset.dash_config);
    update.hls_config.apply_to(&mut preset.hls_config);
    replace(&mut preset.poster, update.poster);
    replace(&mut preset.seek_preview, update.seek_preview);
    update.vms_config.apply_to(&mut preset.vms_config);
    if let Some(streams) = update.streams {
        preset.streams = streams;
    }
}

/// Preset ids of a profile request, without repeats.
fn preset_ids(ids: &[std::num::NonZeroU64]) -> Result<Vec<i64>, SimError> {
    let mut unique = Vec::with_capacity(ids.len());
    for id in ids {
        let id = i64::try_from(id.get()).map_err(|_| SimError::not_found(format!("preset {id}")))?;
        if !unique.contains(&id) {
            unique.push(id);
        }
    }
    Ok(unique)
}

fn profile_from(request: ProfileCreate) -> Result<Profile, SimError> {
    Ok(Profile {
        name: request.name.map(String::from),
        description: request.description.map(String::from),
        presets: preset_ids(&request.presets)?,
        share: request.share,
        vms_config: request.vms_config,
        ..Profile::default()
    })
}

/// What the parent account shares: one profile registering HLS output to the
/// video management service.
fn parent_account_share() -> (Preset, Profile) {
    let preset = Preset {
        id: Some(SHARED_ID),
        name: Some("parent-vms-hls".into()),
        description: Some("Shared by the parent account".into()),
        destination: Some("vms5://".into()),
        format: Some(PresetFormat::Hls),
        hls_config: Some(HlsConfig {
            multi_audio_flag: Some(false),
            extra: Default::default(),
        }),
        output_filename: Some(INPUT_FILENAME.into()),
        created_at: fixed_timestamp(),
        updated_at: fixed_timestamp(),
        ..Preset::default()
    };
    let profile = Profile {
        id: Some(SHARED_ID),
        name: Some("parent-shared-vms".into()),
        description: Some("Shared by the parent account with its sub-accounts".into()),
        presets: vec![SHARED_ID],
        share: Some(ProfileShare::SharedSubs),
        // The parent account's registration settings: a task of this account
        // ignores all but seek_preview (the category must be overridden).
        vms_config: Some(ProfileVmsConfig {
            seek_preview: Some(serde_json::Value::Bool(true)),
            extra: serde_json::Map::from_iter([
                ("category_id".to_owned(), PARENT_CATEGORY_ID.into()),
                ("labels".to_owned(), serde_json::json!([PARENT_LABEL_ID])),
                ("forward_policy_id".to_owned(), PARENT_FORWARD_POLICY_ID.into()),
                ("streaming_policy_id".to_owned(), PARENT_STREAMING_POLICY_ID.into()),
                ("distribution_id".to_owned(), PARENT_DISTRIBUTION_ID.into()),
            ]),
        }),
        created_at: fixed_timestamp(),
        updated_at: fixed_timestamp(),
    };
    (preset, profile)
}

// Handlers.

pub(super) async fn list_presets(State(service): State<Arc<Service>>) -> Json<PresetList> {
    let store = service.lock();
    Json(PresetList {
        data: store.catalog.presets.values().cloned().collect(),
    })
}

pub(super) async fn register_preset(
    State(service): State<Arc<Service>>,
    JsonBody(body): JsonBody<serde_json::Value>,
) -> Result<Json<CreatedId>, SimError> {
    let request: PresetCreate = decode(body)?;
    let mut store = service.lock();
    let now = store.now;
    let id = store.catalog.register_preset(preset_from(request), now)?;
    Ok(Json(CreatedId { id: Some(id) }))
}

pub(super) async fn get_preset(
    State(service): State<Arc<Service>>,
    ResourceId(id): ResourceId,
) -> Result<Json<Preset>, SimError> {
    Ok(Json(service.lock().catalog.readable_preset(id)?.clone()))
}

pub(super) async fn update_preset(
    State(service): State<Arc<Service>>,
    ResourceId(id): ResourceId,
    JsonBody(body): JsonBody<serde_json::Value>,
) -> Result<StatusCode, SimError> {
    // "Preset and profile updates use the same field rules as registration":
    // under `Updates::Reset`, the body is read as a registration's.
    let mut store = service.lock();
    let now = store.now;
    match service.shared.config.updates {
        Updates::Reset => {
            let request: PresetCreate = decode(body)?;
            store.catalog.replace_preset(id, preset_from(request), now)?;
        }
        Updates::Keep => store.catalog.update_preset(id, decode(body)?, now)?,
    }
    Ok(StatusCode::NO_CONTENT)
}

pub(super) async fn delete_preset(
    State(service): State<Arc<Service>>,
    ResourceId(id): ResourceId,
) -> Result<StatusCode, SimError> {
    service.lock().catalog.delete_preset(id)?;
    Ok(StatusCode::NO_CONTENT)
}

/// List profiles and List shared profiles are one request as far as the documents
/// show (encoding note 1), so the simulator answers both lists in one: the
/// account's own profiles, then those shared with it (a simulator choice).
pub(super) async fn list_profiles(State(service): State<Arc<Service>>) -> Json<ProfileList> {
    let store = service.lock();
    let catalog = &store.catalog;
    Json(ProfileList {
        data: catalog
            .profiles
            .values()
            .chain(catalog.shared_profiles.values())
            .cloned()
            .collect(),
    })
}

pub(super) async fn register_profile(
    State(service): State<Arc<Service>>,
    JsonBody(body): JsonBody<serde_json::Value>,
) -> Result<Json<CreatedId>, SimError> {
    let request: ProfileCreate = decode(body)?;
    let profile = profile_from(request)?;
    let mut store = service.lock();
    let now = store.now;
    let id = store.catalog.register_profile(profile, now)?;
    Ok(Json(CreatedId { id: Some(id) }))
}

pub(super) async fn get_profile(
    State(service): State<Arc<Service>>,
    ResourceId(id): ResourceId,
) -> Result<Json<Profile>, SimError> {
    Ok(Json(service.lock().catalog.readable_profile(id)?.clone()))
}

pub(super) async fn update_profile(
    State(service): State<Arc<Service>>,
    ResourceId(id): ResourceId,
    JsonBody(body): JsonBody<serde_json::Value>,
) -> Result<StatusCode, SimError> {
    let mut store = service.lock();
    let now = store.now;
    match service.shared.config.updates {
        Updates::Reset => {
            let profile = profile_from(decode(body)?)?;
            store.catalog.replace_profile(id, profile, now)?;
        }
        Updates::Keep => store.catalog.update_profile(id, decode(body)?, now)?,
    }
    Ok(StatusCode::NO_CONTENT)
}

pub(super) async fn delete_profile(
    State(service): State<Arc<Service>>,
    ResourceId(id): ResourceId,
) -> Result<StatusCode, SimError> {
    let mut store = service.lock();
    store.catalog.profile(id)?;
    store.catalog.profiles.remove(&id);
    Ok(StatusCode::NO_CONTENT)
}
