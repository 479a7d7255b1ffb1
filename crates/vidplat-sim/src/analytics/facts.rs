//! The synthetic viewing data: a deterministic stream of viewing sessions
//! ("facts") per day, seeded with `SimConfig::seed`, from which every report
//! is aggregated. A day's sessions depend only on the seed and the day, so
//! overlapping periods agree and the same request always gets the same answer.

use super::clock::{day_of, Civil, Local, DAY};
use serde_json::Value;
use std::collections::BTreeSet;

/// splitmix64: a tiny, well-mixed generator (no dependency needed).
pub(super) struct SplitMix(u64);

impl SplitMix {
    pub(super) fn new(seed: u64) -> Self {
        Self(seed)
    }

    pub(super) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n` > 0).
    pub(super) fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    /// True `percent` times in a hundred.
    pub(super) fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    /// In `0..n`, low values more likely (popular titles, heavy users).
    pub(super) fn skewed(&mut self, n: usize) -> usize {
        self.below(n as u64).min(self.below(n as u64)) as usize
    }
}

/// One well-mixed number from a seed and a value (a stream per day, per minute, …).
pub(super) fn mix(seed: u64, value: i64) -> u64 {
    SplitMix::new(seed ^ (value as u64).wrapping_mul(0xA24B_AED4_963E_E407)).next()
}

/// An on-demand content.
pub(super) struct Content {
    pub name: &'static str,
    pub title: &'static str,
    pub category: &'static str,
}

pub(super) const CONTENTS: [Content; 12] = [
    content("content-001", "Evening News", "news"),
    content("content-002", "Weather Weekly", "news"),
    content("content-003", "Derby Highlights", "sports"),
    content("content-004", "Marathon Replay", "sports"),
    content("content-005", "Studio Session", "music"),
    content("content-006", "Piano Hour", "music"),
    content("content-007", "Harbor Lights Ep.1", "drama"),
    content("content-008", "Harbor Lights Ep.2", "drama"),
    content("content-009", "Cooking Basics", "education"),
    content("content-010", "Intro to Rust", "education"),
    content("content-011", "Star Garden", "anime"),
    content("content-012", "Robot Summer", "anime"),
];

const fn content(name: &'static str, title: &'static str, category: &'static str) -> Content {
    Content { name, title, category }
}

/// The only content type the document shows.
pub(super) const CONTENT_TYPE: &str = "VOD";
const USERS: usize = 200;
const OPERATING_SYSTEMS: [(&str, &str); 6] = [
    ("iOS", "17.5"),
    ("Android", "14"),
    ("Windows", "11"),
    ("iOS", "16.7"),
    ("macOS", "14.5"),
    ("Android", "13"),
];
/// Viewing environments (basic edition) are the browsers (cloud edition).
const BROWSERS: [(&str, &str); 5] = [
    ("Safari", "17.5"),
    ("Chrome", "126.0"),
    ("Edge", "126.0"),
    ("Firefox", "127.0"),
    ("App", "3.2.0"),
];
const PLAYERS: [(&str, &str); 3] = [
    ("vidplat-player", "2.4.0"),
    ("vidplat-player", "2.3.1"),
    ("vidplat-embed", "1.9.2"),
];
const SITES: [&str; 4] = ["www.example.jp", "m.example.jp", "app.example.jp", "blog.example.com"];
const PLACES: [(&str, &str, &str); 6] = [
    ("Japan", "Tokyo", "Shibuya"),
    ("Japan", "Osaka", "Kita"),
    ("Japan", "Tokyo", "Shinjuku"),
    ("Japan", "Hokkaido", "Sapporo"),
    ("Taiwan", "Taipei", "Da'an"),
    ("United States", "California", "San Jose"),
];
/// Reaction buttons: id and label.
pub(super) const BUTTONS: [(&str, &str); 3] = [("b1", "Like"), ("b2", "Funny"), ("b3", "Sad")];
pub(super) const PLAYBACK_RATES: [&str; 4] = ["1.0", "1.25", "1.5", "2.0"];
/// kbps.
pub(super) const BITRATES: [i64; 4] = [400, 800, 1500, 3000];
pub(super) const SUBTITLES: [&str; 3] = ["off", "ja", "en"];
pub(super) const CASTS: [&str; 3] = ["none", "chromecast", "airplay"];
pub(super) const SCREENS: [&str; 3] = ["inline", "fullscreen", "pip"];

/// Live contents, for the real-time active-user counts.
pub(super) const LIVE: [Content; 3] = [
    content("live-001", "Morning Live", "news"),
    content("live-002", "Stadium Live", "sports"),
    content("live-003", "Concert Live", "music"),
];

/// One viewing session: the player was shown, maybe asked to play, maybe played.
#[derive(Clone, Debug)]
pub(super) struct Fact {
    pub at: Local,
    pub user: usize,
    pub content: usize,
    pub os: usize,
    pub browser: usize,
    pub player: usize,
    pub site: usize,
    pub place: usize,
    pub requested: bool,
    pub started: bool,
    pub ads: i64,
    pub errors: i64,
    /// How far into the content the viewer got, 0..=100 (0 unless started).
    pub percent: u32,
    pub played_time: i64,
    pub stay_time: i64,
    /// Reaction button (index into BUTTONS) pressed at a percent of the content.
    pub reaction: Option<(usize, u32)>,
    pub situation: Situation,
}

/// The viewing situation of a session (indices into the value lists above).
#[derive(Clone, Copy, Debug)]
pub(super) struct Situation {
    pub rate: usize,
    pub bitrate: usize,
    pub subtitle: usize,
    pub cast: usize,
    pub screen: usize,
    pub background: bool,
}

/// The sessions between `from` and `to` (inclusive) that have happened by
/// `now`, oldest first: a period reaching past now has no data there.
pub(super) fn facts(seed: u64, sessions_per_day: u32, from: Local, to: Local, now: Local) -> Vec<Fact> {
    // Periods are validated to at most 13 months (basic: 732 days); this bound only guards.
    const MAX_DAYS: i64 = 800;
    let to = to.min(now);
    let first = day_of(from);
    let last = day_of(to).min(first + MAX_DAYS);
    (first..=last)
        .flat_map(|day| day_facts(seed, sessions_per_day, day))
        .filter(|fact| (from..=to).contains(&fact.at))
        .collect()
}

/// A day's sessions: from two thirds to four thirds of `sessions_per_day`.
fn day_facts(seed: u64, sessions_per_day: u32, day: i64) -> Vec<Fact> {
    let mut rng = SplitMix::new(mix(seed, day));
    let fewest = u64::from(sessions_per_day) * 2 / 3;
    let count = fewest + rng.below(u64::from(sessions_per_day) * 4 / 3 - fewest + 1);
    let mut facts: Vec<Fact> = (0..count).map(|_| session(&mut rng, day)).collect();
    facts.sort_by_key(|fact| fact.at);
    facts
}

fn session(rng: &mut SplitMix, day: i64) -> Fact {
    let at = day * DAY + rng.below(DAY as u64) as i64;
    let content = rng.skewed(CONTENTS.len());
    let duration = 300 + 120 * content as i64;
    let requested = rng.chance(85);
    let started = requested && rng.chance(90);
    let percent = if started { 5 + rng.below(96) as u32 } else { 0 };
    let played_time = duration * i64::from(percent) / 100;
    let reaction = (started && rng.chance(30)).then(|| {
        (
            rng.below(BUTTONS.len() as u64) as usize,
            rng.below(u64::from(percent)) as u32,
        )
    });
    Fact {
        at,
        user: rng.skewed(USERS),
        content,
        os: rng.skewed(OPERATING_SYSTEMS.len()),
        browser: rng.skewed(BROWSERS.len()),
        player: rng.skewed(PLAYERS.len()),
        site: rng.skewed(SITES.len()),
        place: rng.skewed(PLACES.len()),
        requested,
        started,
        ads: if started { rng.below(3) as i64 } else { 0 },
        errors: i64::from(requested && !started || rng.chance(3)),
        percent,
        played_time,
        stay_time: played_time + 10 + rng.below(120) as i64,
        reaction,
        situation: Situation {
            rate: rng.skewed(PLAYBACK_RATES.len()),
            bitrate: rng.below(BITRATES.len() as u64) as usize,
            subtitle: rng.skewed(SUBTITLES.len()),
            cast: rng.skewed(CASTS.len()),
            screen: rng.skewed(SCREENS.len()),
            background: rng.chance(10),
        },
    }
}

/// Fact-level dimensions a filter may name, per edition.
pub(super) const BASIC_FILTER_ITEMS: &[&str] = &[
    "content_category",
    "content_title",
    "content_type",
    "user_id",
    "os",
    "os_version",
    "playback_env",
    "playback_env_version",
    "player_name",
    "player_version",
    "site",
    "country",
    "region",
    "city",
];
pub(super) const CLOUD_FILTER_ITEMS: &[&str] = &[
    "content_category",
    "content_name",
    "content_title",
    "content_type",
    "user_id",
    "os_name",
    "os_version",
    "browser_name",
    "browser_version",
    "player_name",
    "player_version",
    "site",
    "country",
    "region",
    "city",
];

/// Which edition's formats a value takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Edition {
    Basic,
    Cloud,
}

/// The value of a named dimension for a session (`None`: no such dimension).
/// `date_time` is the session's own time: minutes (basic) or seconds (cloud).
pub(super) fn dimension(fact: &Fact, name: &str, edition: Edition) -> Option<String> {
    let content = &CONTENTS[fact.content];
    let (os, os_version) = OPERATING_SYSTEMS[fact.os];
    let (browser, browser_version) = BROWSERS[fact.browser];
    let (player, player_version) = PLAYERS[fact.player];
    let (country, region, city) = PLACES[fact.place];
    let time = Civil::of(fact.at);
    let text = |s: &str| Some(s.to_owned());
    match name {
        "date_time" if edition == Edition::Basic => Some(time.date_minute()),
        "date_time" => Some(time.timestamp()),
        "date_minute" => Some(time.date_minute()),
        "date_hour" => Some(time.date_hour()),
        "date" => Some(time.date()),
        "year_month" => Some(time.year_month()),
        "hour_minute" => Some(time.hour_minute()),
        "year" => Some(format!("{:04}", time.year)),
        "month" => Some(format!("{:02}", time.month)),
        "day" => Some(format!("{:02}", time.day)),
        "hour" => Some(format!("{:02}", time.hour)),
        "minute" => Some(format!("{:02}", time.minute)),
        "content_category" => text(content.category),
        "content_title" => text(content.title),
        "content_name" => text(content.name),
        "content_type" => text(CONTENT_TYPE),
        "user_id" => Some(format!("user-{:04}", fact.user + 1)),
        "os" | "os_name" => text(os),
        "os_version" => text(os_version),
        "playback_env" | "browser_name" => text(browser),
        "playback_env_version" | "browser_version" => text(browser_version),
        "player_name" => text(player),
        "player_version" => text(player_version),
        "site" => text(SITES[fact.site]),
        "country" => text(country),
        "region" => text(region),
        "city" => text(city),
        _ => None,
    }
}

/// What a group of sessions adds up to.
#[derive(Clone, Debug, Default)]
pub(super) struct Aggregate {
    shows: i64,
    requests: i64,
    starts: i64,
    ads: i64,
    errors: i64,
    played_time: i64,
    stay_time: i64,
    shown_users: BTreeSet<usize>,
    viewers: BTreeSet<usize>,
    /// How far each started session got.
    percents: Vec<u32>,
}

/// Parameters some metrics take.
#[derive(Clone, Copy, Debug)]
pub(super) struct MetricOptions {
    /// complete_play_percent counts plays that reached this percent.
    pub complete_threshold: u32,
    /// engagement_bitmap has this many positions.
    pub bitmap_positions: usize,
}

impl Default for MetricOptions {
    fn default() -> Self {
        Self {
            complete_threshold: 90,
            bitmap_positions: 20,
        }
    }
}

/// The played_flags string has one digit per tenth of the content.
const PLAYED_FLAG_DIGITS: usize = 10;

impl Aggregate {
    pub(super) fn add(&mut self, fact: &Fact) {
        self.shows += 1;
        self.requests += i64::from(fact.requested);
        self.starts += i64::from(fact.started);
        self.ads += fact.ads;
        self.errors += fact.errors;
        self.played_time += fact.played_time;
        self.stay_time += fact.stay_time;
        self.shown_users.insert(fact.user);
        if fact.started {
            self.viewers.insert(fact.user);
            self.percents.push(fact.percent);
        }
    }

    pub(super) fn of<'a>(facts: impl IntoIterator<Item = &'a Fact>) -> Self {
        let mut aggregate = Self::default();
        for fact in facts {
            aggregate.add(fact);
        }
        aggregate
    }

    pub(super) fn viewer_count(&self) -> i64 {
        self.viewers.len() as i64
    }

    /// Started sessions still watching at each of `positions` equal parts of the content.
    pub(super) fn coverage(&self, positions: usize) -> Vec<i64> {
        (0..positions)
            .map(|i| {
                let count = self.percents.iter().filter(|p| **p as usize * positions > i * 100);
                count.count() as i64
            })
            .collect()
    }

    /// The share (percent, one decimal) of started sessions watching at each position.
    pub(super) fn ratings(&self, positions: usize) -> Vec<(i64, f64)> {
        self.coverage(positions)
            .into_iter()
            .map(|count| (count, percent_of(count, self.starts)))
            .collect()
    }

    /// A metric of either edition by its documented name (`None`: no such metric).
    pub(super) fn metric(&self, name: &str, options: MetricOptions) -> Option<Value> {
        let ratio = |total: i64, of: i64| if of == 0 { 0 } else { total / of };
        let value = match name {
            "show_count" | "player_impressions" => self.shows.into(),
            "playback_count" | "play_requested_count" => self.requests.into(),
            "play_count" | "play_started_count" => self.starts.into(),
            "ad_playback_count" | "ad_impressions" => self.ads.into(),
            "error_count" => self.errors.into(),
            "total_played_time" | "total_play_time" | "played_time" | "play_time" => self.played_time.into(),
            "avg_played_time" | "avg_play_time" => ratio(self.played_time, self.starts).into(),
            "avg_played_percent" | "avg_play_percent" => {
                let sum: i64 = self.percents.iter().map(|p| i64::from(*p)).sum();
                ratio(sum, self.starts).into()
            }
            "total_staytime" | "stay_time" => self.stay_time.into(),
            "avg_staytime" => ratio(self.stay_time, self.shows).into(),
            "show_user_count" | "impression_user_count" => (self.shown_users.len() as i64).into(),
            // `count` of the active-user operations: distinct viewers.
            "user_count" | "count" => self.viewer_count().into(),
            "played_percent" | "play_percent" => i64::from(self.percents.iter().copied().max().unwrap_or(0)).into(),
            "played_flags" => self.played_flags().into(),
            "engagement_bitmap" => self.coverage(options.bitmap_positions).into(),
            "complete_play_percent" => {
                let complete = self
                    .percents
                    .iter()
                    .filter(|p| **p >= options.complete_threshold)
                    .count();
                percent_of(complete as i64, self.starts).into()
            }
            _ => return None,
        };
        Some(value)
    }

    /// One digit per tenth of the content: 1 when any session played into it.
    fn played_flags(&self) -> String {
        self.coverage(PLAYED_FLAG_DIGITS)
            .iter()
            .map(|count| if *count > 0 { '1' } else { '0' })
            .collect()
    }
}

/// `part` of `whole` in percent, one decimal.
pub(super) fn percent_of(part: i64, whole: i64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        (part as f64 * 1000.0 / whole as f64).round() / 10.0
    }
}

/// Live viewers in one minute, per live content (real-time operations).
pub(super) fn live_viewers(seed: u64, minute: i64) -> [i64; LIVE.len()] {
    let mut rng = SplitMix::new(mix(seed ^ 0x4C49_5645, minute));
    std::array::from_fn(|i| (40 / (i as i64 + 1)) + rng.below(30) as i64)
}

/// A session's value of a situation field, as that edition writes it
/// (`None`: not a situation field of that edition).
pub(super) fn situation_value(situation: Situation, field: &str, edition: Edition) -> Option<Value> {
    let value = match (field, edition) {
        ("playback_rate", _) => PLAYBACK_RATES[situation.rate].into(),
        ("bitrate", Edition::Basic) => format!("{}kbps", BITRATES[situation.bitrate]).into(),
        ("bitrate", Edition::Cloud) => BITRATES[situation.bitrate].into(),
        ("subtitles", Edition::Basic) | ("subtitle", Edition::Cloud) => SUBTITLES[situation.subtitle].into(),
        ("screen_status", Edition::Basic) | ("screen_type", Edition::Cloud) => SCREENS[situation.screen].into(),
        ("playback_status", Edition::Basic) => if situation.background {
            "background"
        } else {
            "foreground"
        }
        .into(),
        ("cast", Edition::Cloud) => CASTS[situation.cast].into(),
        ("is_background", Edition::Cloud) => situation.background.into(),
        _ => return None,
    };
    Some(value)
}
