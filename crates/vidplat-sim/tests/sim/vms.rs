//! The simulated video management service, driven through the `vidplat` facade
//! over real HTTP on 127.0.0.1: every documented behaviour the simulator
//! implements, with exact statuses, codes, counts and orders.

use serde::de::DeserializeOwned;
use serde_json::{json, Value};
use std::time::{SystemTime, UNIX_EPOCH};
use uuid::Uuid;
use vidplat::signing::{Grant, SigningKey};
use vidplat::vms::types::{self, ContentStatus, PlayResponseType, StreamFormat, SubtitleFormat};
use vidplat::Call;
use vidplat_sim::{Permission, SimConfig, Simulator, Updates, PORTAL_DOMAIN};

async fn start() -> (Simulator, vidplat::Client) {
    start_in(SimConfig::fast()).await
}

async fn start_in(config: SimConfig) -> (Simulator, vidplat::Client) {
    let sim = Simulator::start_with(config).await.expect("simulator");
    let client = sim.client().build().expect("client");
    (sim, client)
}

/// A generated request type from JSON (shorter than its builder).
fn from<T: DeserializeOwned>(value: Value) -> T {
    serde_json::from_value(value).expect("a valid request body")
}

fn uuid(id: &Option<String>) -> Uuid {
    Uuid::parse_str(id.as_deref().expect("an id")).expect("a UUID")
}

/// The status and code of a refused call.
fn refused<T: std::fmt::Debug>(result: Result<T, vidplat::Error>) -> (u16, String) {
    let error = result.expect_err("the call should be refused");
    (
        error.status().unwrap_or_default(),
        error.code().unwrap_or_default().to_owned(),
    )
}

/// A page URL signed through the facade's helper (the one place tests sign).
fn signed(page_url: &str, key: &str, grant: &Grant) -> String {
    let key = SigningKey::new(key).expect("a 32-character signing key");
    vidplat::signing::sign(page_url, &key, grant).expect("a page URL that can be signed")
}

/// HMAC-SHA-256 of `message` keyed with `key`, in lowercase hex, computed
/// without the facade (to build the forms the documents do not allow).
fn hmac_hex(key: &str, message: &str) -> String {
    use hmac::{KeyInit, Mac};
    let mut mac = <hmac::Hmac<sha2::Sha256> as KeyInit>::new_from_slice(key.as_bytes()).expect("any key length");
    mac.update(message.as_bytes());
    hex::encode(mac.finalize().into_bytes())
}

fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).expect("clock").as_secs()
}

async fn category(vms: &vidplat::vms::Client, name: &str) -> String {
    let registered = vms
        .register_category()
        .create_parents(true)
        .body(from::<types::CategoryCreate>(json!({ "name": name })))
        .call()
        .await
        .expect("category");
    registered.id.expect("category id")
}

/// Three streams (two HLS, one MP4), two subtitles, two stream sets, two
/// posters (the second in the slideshow) and one document; `cover` is primary.
fn content_body(name: &str, category: &str) -> types::ContentCreate {
    from(json!({
        "name": name,
        "title": format!("Title of {name}"),
        "description": "A cat video",
        "category_id": category,
        "duration": 120,
        "streams": [
            {"name": "hls-1080", "path": "/m/hls/1080/index.m3u8", "format": "HLS", "filesize": 1000},
            {"name": "hls-720", "path": "/m/hls/720/index.m3u8", "format": "HLS", "filesize": 500},
            {"name": "mp4", "path": "/m/720.mp4", "format": "MP4", "filesize": 800}
        ],
        "subtitles": [
            {"name": "ja", "label": "日本語", "url": "https://files.example/ja.vtt"},
            {"name": "en", "language": "en", "label": "English", "url": "https://files.example/en.vtt"}
        ],
        "stream_sets": [
            {"name": "hls", "stream_names": ["hls-1080", "hls-720"], "subtitle_names": ["ja", "en"]},
            {"name": "mp4", "stream_names": ["mp4"]}
        ],
        "posters": [
            {"name": "cover", "url": "https://files.example/cover.png"},
            {"name": "scene", "url": "https://files.example/scene.png", "used_in_slideshow": true}
        ],
        "documents": [{"name": "slides", "title": "Slides", "url": "https://files.example/slides.pdf"}],
        "primary_poster_name": "cover"
    }))
}

async fn content(vms: &vidplat::vms::Client, name: &str, category: &str) -> types::ContentRegistration {
    vms.register_content()
        .body(content_body(name, category))
        .call()
        .await
        .expect("content")
}

/// Updates content `name` with the members of `change`, sending every other
/// member as read (`builder_from`): an update meaning the same whether the
/// service keeps or resets what an update leaves out (`vidplat_sim::Updates`).
async fn change_content(vms: &vidplat::vms::Client, name: &str, change: Value) -> Result<(), vidplat::Error> {
    let read = vms.get_content().content_name(name).call().await?;
    let kept =
        types::ContentUpdate::try_from(types::ContentUpdate::builder_from(&read)).expect("an update from a read");
    let mut body = serde_json::to_value(kept).expect("JSON");
    for (member, value) in change.as_object().expect("members") {
        body[member] = value.clone();
    }
    vms.update_content()
        .content_name(name)
        .body(from::<types::ContentUpdate>(body))
        .call()
        .await
}

/// A simulator with the category `movies` and the content `c` of `content_body`.
async fn start_with_content() -> (Simulator, vidplat::Client, String, types::ContentRegistration) {
    start_with_content_in(SimConfig::fast()).await
}

/// [`start_with_content`] under `config`.
async fn start_with_content_in(config: SimConfig) -> (Simulator, vidplat::Client, String, types::ContentRegistration) {
    let (sim, client) = start_in(config).await;
    let vms = client.vms().expect("vms");
    let movies = category(vms, "movies").await;
    let registration = content(vms, "c", &movies).await;
    (sim, client, movies, registration)
}

/// `x-permission` of each operation, read from the YAML.
fn permissions() -> Vec<(String, String)> {
    let yaml = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../openapi/vms.yaml")).expect("yaml");
    let mut found = Vec::new();
    let mut operation = None;
    for line in yaml.lines().map(str::trim) {
        if let Some(id) = line.strip_prefix("operationId: ") {
            operation = Some(id.to_owned());
        } else if let Some(permission) = line.strip_prefix("x-permission: ") {
            if let Some(id) = operation.take() {
                found.push((id, permission.to_owned()));
            }
        }
    }
    found
}

#[tokio::test]
async fn every_operation_is_routed_behind_its_documented_permission() {
    let (sim, _) = start().await;
    let permissions = permissions();
    assert_eq!(vidplat::vms::operations::ALL.len(), 60);
    assert_eq!(permissions.len(), 60);
    let http = crate::raw_http();
    let no_permission = sim.key_with(Vec::<Permission>::new());
    for meta in vidplat::vms::operations::ALL {
        let path = meta
            .path
            .replace("{content-name}", "missing")
            .replace("{set-name}", "missing")
            .replace("{playlist-name}", "missing");
        let path = fill_ids(&path, "0b6c8e0e-5d3a-4c7e-9f51-2a4d6e8f0001");
        let url = format!("{}{path}", sim.vms_url);
        let permission = &permissions.iter().find(|(id, _)| id == meta.id).expect("permission").1;
        let only_this = sim.key_with([Permission::new(permission)]);
        for (key, expected) in [
            (None, Some(401)),
            (Some(no_permission.as_str()), Some(403)),
            (Some(&only_this), None),
        ] {
            let mut request = http
                .request(meta.method.to_reqwest(), &url)
                .header("content-type", "application/json")
                .body("{}");
            if let Some(key) = key {
                request = request.bearer_auth(key);
            }
            let response = request.send().await.expect("response");
            let status = response.status().as_u16();
            let body: Value = response.json().await.unwrap_or(Value::Null);
            match expected {
                Some(expected) => {
                    assert_eq!(status, expected, "{} {}", meta.id, body);
                    assert_eq!(body["code"], "REQUEST_UNAUTHORIZED", "{}", meta.id);
                }
                // The permission suffices: whatever the answer, it is not about the key.
                None => assert!(![401, 403, 405].contains(&status), "{}: {status} {body}", meta.id),
            }
        }
    }
}

/// Fills every remaining `{…}` path parameter with `id`.
fn fill_ids(path: &str, id: &str) -> String {
    let mut out = String::new();
    let mut rest = path;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        out.push_str(id);
        rest = rest[open..].split_once('}').map_or("", |(_, after)| after);
    }
    out.push_str(rest);
    out
}

#[tokio::test]
async fn bounds_of_the_yaml_are_checked_after_the_key() {
    let (sim, _) = start().await;
    let http = crate::raw_http();
    let url = format!("{}/v1/contents?per_page=101", sim.vms_url);
    let unauthenticated = http.get(&url).send().await.expect("response");
    assert_eq!(unauthenticated.status().as_u16(), 401);
    let refused = http.get(&url).bearer_auth(&sim.api_key).send().await.expect("response");
    assert_eq!(refused.status().as_u16(), 400);
    let body: Value = refused.json().await.expect("json");
    assert_eq!(body["code"], "INVALID_REQUEST");
    let too_many = json!({"requests": vec![json!({"path": "/a.mp4", "format": "MP4"}); 11]});
    let response = http
        .post(format!("{}/v1/contents/c/streams/bulk", sim.vms_url))
        .bearer_auth(&sim.api_key)
        .json(&too_many)
        .send()
        .await
        .expect("response");
    assert_eq!(response.status().as_u16(), 400);
    let response = http
        .post(format!("{}/v1/instant-pages", sim.vms_url))
        .bearer_auth(&sim.api_key)
        .json(&json!({"content_name": "c", "configurations": {}, "max_simultaneous_viewers": 6}))
        .send()
        .await
        .expect("response");
    assert_eq!(response.status().as_u16(), 400);
    let missing = http
        .get(format!("{}/v1/nothing-here", sim.vms_url))
        .bearer_auth(&sim.api_key)
        .send()
        .await
        .expect("response");
    assert_eq!(missing.status().as_u16(), 404);
}

#[tokio::test]
async fn a_content_registers_with_everything_it_holds() {
    let (_sim, client) = start().await;
    let vms = client.vms().unwrap();
    let movies = category(vms, "movies").await;
    let registration = content(vms, "cat-video", &movies).await;
    assert_eq!(registration.name.as_deref(), Some("cat-video"));
    let names = |items: &[types::RegisteredItem]| items.iter().map(|i| i.name.clone().unwrap()).collect::<Vec<_>>();
    assert_eq!(names(&registration.streams), ["hls-1080", "hls-720", "mp4"]);
    assert_eq!(names(&registration.subtitles), ["ja", "en"]);
    assert_eq!(names(&registration.posters), ["cover", "scene"]);
    assert_eq!(names(&registration.documents), ["slides"]);
    let set_names: Vec<_> = registration
        .stream_sets
        .iter()
        .map(|s| s.name.clone().unwrap())
        .collect();
    assert_eq!(set_names, ["hls", "mp4"]);

    let content = vms.get_content().content_name("cat-video").call().await.unwrap();
    assert_eq!(content.status, Some(ContentStatus::Public));
    assert_eq!(content.type_, Some(types::ContentType::Vod));
    assert_eq!(content.encode_status, Some(types::EncodeStatus::None));
    assert_eq!(content.poster_slideshow_interval, Some(1000));
    assert_eq!(content.playback_count, Some(0));
    assert_eq!(content.category_id.as_deref(), Some(movies.as_str()));
    assert_eq!(content.stream_sets.len(), 2);
    assert_eq!(
        content.stream_sets[0].streams,
        [
            registration.streams[0].id.clone().unwrap(),
            registration.streams[1].id.clone().unwrap()
        ]
    );
    assert_eq!(content.stream_sets[0].subtitles.len(), 2);
    assert_eq!(content.primary_poster_id, registration.posters[0].id);
    assert_eq!(
        content.primary_poster_url.as_deref(),
        Some("https://files.example/cover.png")
    );
    assert_eq!(content.subtitles[0].language.as_deref(), Some("ja"), "default language");
    assert_eq!(
        content.subtitles[0].format,
        Some(SubtitleFormat::Unknown),
        "default format"
    );
    assert!(
        content.forward_policy_id.is_some() && content.streaming_policy_id.is_some(),
        "account defaults"
    );
    assert!(content.cta_actions.is_some());

    // Names are unique; references name items of the same request.
    let again = vms
        .register_content()
        .body(content_body("cat-video", &movies))
        .call()
        .await;
    assert_eq!(refused(again), (409, "MODEL_ALREADY_EXISTS".into()));
    let mut dangling = content_body("dangling", &movies);
    dangling.stream_sets[1].stream_names = vec!["no-such-stream".into()];
    assert_eq!(
        refused(vms.register_content().body(dangling).call().await),
        (400, "INVALID_REQUEST".into())
    );
    let mut mixed = content_body("mixed", &movies);
    mixed.stream_sets[1].stream_names = vec!["hls-720".into(), "mp4".into()];
    assert_eq!(
        refused(vms.register_content().body(mixed).call().await),
        (400, "STREAM_SET_MIXED_FORMATS".into())
    );
    let unknown_category = content_body("orphan", &Uuid::new_v4().to_string());
    assert_eq!(
        refused(vms.register_content().body(unknown_category).call().await),
        (404, "MODEL_NOT_FOUND".into())
    );
    let mut two_uploads = content_body("uploads", &movies);
    for poster in &mut two_uploads.posters {
        poster.content = Some("iVBORw0KGgoAAAA".try_into().unwrap());
    }
    assert_eq!(
        refused(vms.register_content().body(two_uploads).call().await),
        (400, "INVALID_REQUEST".into())
    );

    // A generated name when omitted.
    let mut unnamed = content_body("x", &movies);
    unnamed.name = None;
    let generated = vms.register_content().body(unnamed).call().await.unwrap();
    assert!(generated.name.unwrap().starts_with("content-"));
    assert_eq!(
        refused(vms.get_content().content_name("nope").call().await),
        (404, "MODEL_NOT_FOUND".into())
    );
}

#[tokio::test]
async fn stream_sets_keep_one_format_and_at_least_one_set() {
    let (_sim, client, _, registration) = start_with_content().await;
    let vms = client.vms().unwrap();
    let stream = |i: usize| uuid(&registration.streams[i].id);
    let register = |name: Option<&str>, streams: Vec<Uuid>| {
        vms.register_stream_set()
            .content_name("c")
            .body(from::<types::StreamSetCreate>(
                json!({"name": name, "streams": streams}),
            ))
    };
    let mixed = register(Some("mixed"), vec![stream(0), stream(2)]).call().await;
    assert_eq!(refused(mixed), (400, "STREAM_SET_MIXED_FORMATS".into()));
    let duplicate = register(Some("hls"), vec![stream(0)]).call().await;
    assert_eq!(refused(duplicate), (409, "MODEL_ALREADY_EXISTS".into()));
    let generated = register(None, vec![stream(1)]).call().await.unwrap();
    assert_eq!(generated.name.as_deref(), Some("set-1"));
    register(Some("third"), vec![stream(0)]).call().await.unwrap();
    register(Some("fifth"), vec![stream(2)]).call().await.unwrap();
    let sixth = register(Some("sixth"), vec![stream(0)]).call().await;
    assert_eq!(refused(sixth), (400, "FULL_STREAM_SETS".into()));

    let update = vms
        .update_stream_set()
        .content_name("c")
        .set_name("set-1")
        .body(from::<types::StreamSetUpdate>(
            json!({"streams": [stream(1), stream(2)]}),
        ))
        .call()
        .await;
    assert_eq!(refused(update), (400, "STREAM_SET_MIXED_FORMATS".into()));
    vms.update_stream_set()
        .content_name("c")
        .set_name("set-1")
        .body(from::<types::StreamSetUpdate>(
            json!({"streams": [stream(1), stream(0)]}),
        ))
        .call()
        .await
        .unwrap();
    let set = vms
        .get_stream_set()
        .content_name("c")
        .set_name("set-1")
        .call()
        .await
        .unwrap();
    assert_eq!(set.streams, [stream(1).to_string(), stream(0).to_string()]);

    for name in ["hls", "mp4", "set-1", "third"] {
        vms.delete_stream_set()
            .content_name("c")
            .set_name(name)
            .call()
            .await
            .unwrap();
    }
    let last = vms.delete_stream_set().content_name("c").set_name("fifth").call().await;
    assert_eq!(refused(last), (400, "DELETING_FINAL_STREAM_SET".into()));
    let sets = vms.list_stream_sets().content_name("c").call().await.unwrap();
    assert_eq!(sets.data.len(), 1);
    let streams = vms.list_streams().content_name("c").call().await.unwrap();
    assert_eq!(streams.data.len(), 3, "deleting stream sets keeps their streams");
}

#[tokio::test]
async fn streams_and_subtitles_fill_up_and_stay_while_a_set_holds_them() {
    let (_sim, client, _, registration) = start_with_content().await;
    let vms = client.vms().unwrap();

    let seven: Vec<Value> = (0..7)
        .map(|i| json!({"path": format!("/extra/{i}.mp4"), "format": "MP4"}))
        .collect();
    let bulk = vms
        .register_streams_bulk()
        .content_name("c")
        .body(from::<types::StreamBulkCreate>(json!({ "requests": seven })))
        .call()
        .await
        .unwrap();
    assert_eq!(bulk.responses.len(), 7);
    let streams = vms.list_streams().content_name("c").call().await.unwrap().data;
    assert_eq!(streams.len(), 10);
    assert_eq!(
        streams[3].id.as_deref(),
        bulk.responses[0].id(),
        "the Nth id is the Nth request"
    );
    assert_eq!(streams[9].path.as_deref(), Some("/extra/6.mp4"));
    assert_eq!(streams[9].playback_rate, Some(1.0));
    assert_eq!(streams[9].status, Some(types::StreamStatus::Completed));
    let eleventh = vms
        .register_stream()
        .content_name("c")
        .body(from::<types::StreamCreate>(json!({"path": "/x.mp4", "format": "MP4"})))
        .call()
        .await;
    assert_eq!(refused(eleventh), (400, "FULL_STREAMS".into()));

    let in_set = uuid(&registration.streams[2].id);
    let blocked = vms.delete_stream().content_name("c").stream_id(in_set).call().await;
    assert_eq!(refused(blocked), (400, "STREAM_IN_STREAM_SETS".into()));
    let free = uuid(&bulk.responses[0].id().map(String::from));
    vms.modify_stream("c", free, |update| update.width(1280).height(720))
        .await
        .unwrap();
    let updated = vms.get_stream().content_name("c").stream_id(free).call().await.unwrap();
    assert_eq!((updated.width, updated.height), (Some(1280), Some(720)));
    // Changing the format of a stream in a set would mix the set.
    let retype = vms
        .modify_stream("c", uuid(&registration.streams[0].id), |update| {
            update.format(StreamFormat::Mp4)
        })
        .await;
    assert_eq!(
        refused(retype.map_err(vidplat::Error::from)),
        (400, "STREAM_SET_MIXED_FORMATS".into())
    );
    vms.delete_stream()
        .content_name("c")
        .stream_id(free)
        .call()
        .await
        .unwrap();
    assert_eq!(
        refused(vms.get_stream().content_name("c").stream_id(free).call().await),
        (404, "MODEL_NOT_FOUND".into())
    );

    // Subtitles: content wins over url, the format is detected (base64 of "WEBVTT").
    let uploaded = vms
        .register_subtitle()
        .content_name("c")
        .body(from::<types::SubtitleCreate>(json!({
            "label": "Deutsch", "language": "de", "url": "https://ignored.example/de.vtt", "content": "V0VCVlRUCgo="
        })))
        .call()
        .await
        .unwrap();
    let subtitle = vms
        .get_subtitle()
        .content_name("c")
        .subtitle_id(uuid(&uploaded.id))
        .call()
        .await
        .unwrap();
    assert_eq!(subtitle.format, Some(SubtitleFormat::Webvtt));
    assert!(subtitle
        .url
        .unwrap()
        .starts_with("https://storage.vidplat-sim.invalid/c/subtitles/"));
    let seven: Vec<Value> = (0..7)
        .map(|i| json!({"label": format!("s{i}"), "url": "https://f.example/s.vtt"}))
        .collect();
    vms.register_subtitles_bulk()
        .content_name("c")
        .body(from::<types::SubtitleBulkCreate>(json!({ "requests": seven })))
        .call()
        .await
        .unwrap();
    let eleventh = vms
        .register_subtitle()
        .content_name("c")
        .body(from::<types::SubtitleCreate>(
            json!({"label": "one more", "url": "https://f.example/s.vtt"}),
        ))
        .call()
        .await;
    assert_eq!(refused(eleventh), (400, "FULL_SUBTITLES".into()));
    let held = vms
        .delete_subtitle()
        .content_name("c")
        .subtitle_id(uuid(&registration.subtitles[0].id))
        .call()
        .await;
    assert_eq!(refused(held), (400, "SUBTITLE_IN_STREAM_SETS".into()));
    vms.delete_subtitle()
        .content_name("c")
        .subtitle_id(uuid(&uploaded.id))
        .call()
        .await
        .unwrap();
    assert_eq!(
        vms.list_subtitles().content_name("c").call().await.unwrap().data.len(),
        9
    );
}

#[tokio::test]
async fn posters_keep_their_order_and_their_deletion_rules() {
    let (_sim, client, _, registration) = start_with_content().await;
    let vms = client.vms().unwrap();
    let (cover, scene) = (uuid(&registration.posters[0].id), uuid(&registration.posters[1].id));

    // 1 slideshow poster + 19 = the documented 20.
    let nineteen: Vec<Value> = (0..19)
        .map(|i| json!({"url": format!("https://f.example/{i}.png"), "used_in_slideshow": true}))
        .collect();
    let bulk = vms
        .register_posters_bulk()
        .content_name("c")
        .body(from::<types::PosterBulkCreate>(json!({ "requests": nineteen })))
        .call()
        .await
        .unwrap();
    assert_eq!(bulk.responses.len(), 19);
    let one_more = vms
        .register_poster()
        .content_name("c")
        .body(from::<types::PosterCreate>(
            json!({"url": "https://f.example/x.png", "used_in_slideshow": true}),
        ))
        .call()
        .await;
    assert_eq!(refused(one_more), (400, "FULL_POSTER_SLIDESHOW".into()));
    let promote = vms
        .update_poster()
        .content_name("c")
        .poster_id(cover)
        .body(from::<types::PosterUpdate>(json!({"used_in_slideshow": true})))
        .call()
        .await;
    assert_eq!(refused(promote), (400, "FULL_POSTER_SLIDESHOW".into()));

    // A new poster goes last; a PNG sent as content is detected and stored.
    let png = vms
        .register_poster()
        .content_name("c")
        .body(from::<types::PosterCreate>(
            json!({"content": "iVBORw0KGgoAAAANSUhEUg==", "width": 10}),
        ))
        .call()
        .await
        .unwrap();
    let posters = vms.list_posters().content_name("c").call().await.unwrap().data;
    assert_eq!(posters.len(), 22);
    assert_eq!(posters[21].id, png.id);
    assert_eq!(posters[21].format, Some(types::PosterFormat::Png));
    assert_eq!(posters[21].width, None, "width is ignored when content is given");

    // Reordering names every poster once.
    let mut order: Vec<Uuid> = posters.iter().map(|p| uuid(&p.id)).collect();
    order.reverse();
    vms.reorder_posters()
        .content_name("c")
        .body(types::PosterOrder { order: order.clone() })
        .call()
        .await
        .unwrap();
    let reordered: Vec<Uuid> = vms
        .list_posters()
        .content_name("c")
        .call()
        .await
        .unwrap()
        .data
        .iter()
        .map(|p| uuid(&p.id))
        .collect();
    assert_eq!(reordered, order);
    let partial = vms
        .reorder_posters()
        .content_name("c")
        .body(types::PosterOrder {
            order: order[1..].to_vec(),
        })
        .call()
        .await;
    assert_eq!(refused(partial), (400, "INVALID_REQUEST".into()));
    let unchanged: Vec<Uuid> = vms
        .list_posters()
        .content_name("c")
        .call()
        .await
        .unwrap()
        .data
        .iter()
        .map(|p| uuid(&p.id))
        .collect();
    assert_eq!(unchanged, order, "a refused order changes nothing");

    // Deletion rules.
    assert_eq!(
        refused(vms.delete_poster().content_name("c").poster_id(cover).call().await),
        (400, "DELETING_PRIMARY_POSTER".into())
    );
    assert_eq!(
        refused(vms.delete_poster().content_name("c").poster_id(scene).call().await),
        (400, "POSTER_IN_SLIDESHOW".into())
    );
    let png_id = uuid(&png.id);
    change_content(
        vms,
        "c",
        json!({"playlist_item_overrides": {"primary_poster_id": png_id}}),
    )
    .await
    .unwrap();
    assert_eq!(
        refused(vms.delete_poster().content_name("c").poster_id(png_id).call().await),
        (400, "DELETING_PLAYLIST_ITEM_POSTER".into())
    );
    vms.update_poster()
        .content_name("c")
        .poster_id(scene)
        .body(from::<types::PosterUpdate>(json!({"used_in_slideshow": false})))
        .call()
        .await
        .unwrap();
    vms.delete_poster()
        .content_name("c")
        .poster_id(scene)
        .call()
        .await
        .unwrap();

    // 21 posters left; 179 more make the maximum of 200.
    let rest: Vec<Value> = (0..179)
        .map(|i| json!({"url": format!("https://f.example/r{i}.png")}))
        .collect();
    vms.register_posters_bulk()
        .content_name("c")
        .body(from::<types::PosterBulkCreate>(json!({ "requests": rest })))
        .call()
        .await
        .unwrap();
    let full = vms
        .register_poster()
        .content_name("c")
        .body(from::<types::PosterCreate>(
            json!({"url": "https://f.example/last.png"}),
        ))
        .call()
        .await;
    assert_eq!(refused(full), (400, "FULL_POSTERS".into()));
}

/// A refused order is checked whole before anything moves: posters [A, B, C]
/// and the order [A] leave [A, B, C], not [B, C, A].
#[tokio::test]
async fn a_refused_poster_order_changes_nothing() {
    let (sim, client, _, registration) = start_with_content().await;
    let vms = client.vms().unwrap();
    let third = vms
        .register_poster()
        .content_name("c")
        .body(from::<types::PosterCreate>(
            json!({"url": "https://files.example/third.png"}),
        ))
        .call()
        .await
        .unwrap();
    let [a, b, c] =
        [&registration.posters[0].id, &registration.posters[1].id, &third.id].map(|id| uuid(id).to_string());
    let order = || async {
        let posters = vms.list_posters().content_name("c").call().await.unwrap().data;
        posters
            .iter()
            .map(|poster| uuid(&poster.id).to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(order().await, [a.as_str(), &b, &c]);
    let stranger = "0b6c8e0e-5d3a-4c7e-9f51-2a4d6e8f0001";
    let refusals = [
        (json!([a]), "the order leaves out 2 poster(s) of the content".to_owned()),
        (
            json!([a, b]),
            "the order leaves out 1 poster(s) of the content".to_owned(),
        ),
        (
            json!([c, b, stranger]),
            format!("{stranger} is not a poster of content c"),
        ),
        (json!([b, a, b, c]), format!("the order names poster {b} twice")),
    ];
    for (refused_order, message) in refusals {
        let answer = answer_raw(&sim, "reorder_posters", &["c"], json!({ "order": refused_order })).await;
        assert_eq!(
            answer,
            (400, error_body("INVALID_REQUEST", &message)),
            "{refused_order}"
        );
        assert_eq!(order().await, [a.as_str(), &b, &c], "{refused_order} changed the order");
    }
    let accepted = answer_raw(&sim, "reorder_posters", &["c"], json!({"order": [c, a, b]})).await;
    assert_eq!(accepted, (204, Value::Null));
    assert_eq!(order().await, [c.as_str(), &a, &b]);
}

/// "audio_track_type: only for a stream without video" (the Stream table):
/// refused on a stream with any video member, wherever the stream is sent,
/// and nothing is registered or changed.
#[tokio::test]
async fn audio_track_type_is_only_for_a_stream_without_video() {
    let (sim, client, movies, _) = start_with_content().await;
    let vms = client.vms().unwrap();
    let audio_only =
        json!({"path": "/m/audio/en.m4a", "format": "HLS", "audio_codec": "aac", "audio_track_type": "main"});
    let (status, registered) = answer_raw(&sim, "register_stream", &["c"], audio_only.clone()).await;
    assert_eq!(status, 200, "{registered}");
    let audio_id = registered["id"].as_str().expect("an id").to_owned();
    let stream_count = || async { vms.list_streams().content_name("c").call().await.unwrap().data.len() };
    assert_eq!(stream_count().await, 4);

    let with_video = json!({"path": "/m/v.m3u8", "format": "HLS", "video_codec": "h264", "audio_track_type": "main"});
    assert_eq!(
        answer_raw(&sim, "register_stream", &["c"], with_video).await,
        (
            400,
            error_body(
                "INVALID_REQUEST",
                "`audio_track_type` is only for a stream without video, and this stream has `video_codec`"
            )
        )
    );
    let bulk = json!({"requests": [audio_only, {"path": "/m/w.m3u8", "format": "HLS", "width": 1280, "audio_track_type": "main"}]});
    assert_eq!(
        answer_raw(&sim, "register_streams_bulk", &["c"], bulk).await,
        (
            400,
            error_body(
                "INVALID_REQUEST",
                "`requests[1].audio_track_type` is only for a stream without video, and this stream has `requests[1].width`"
            )
        )
    );
    assert_eq!(stream_count().await, 4, "a refused bulk registers none");

    let content = json!({
        "name": "dubbed",
        "title": "Dubbed",
        "category_id": movies,
        "streams": [
            {"name": "audio", "path": "/d/en.m4a", "format": "HLS", "audio_track_type": "main"},
            {"name": "video", "path": "/d/720.m3u8", "format": "HLS", "height": 720, "audio_track_type": "main"}
        ],
        "stream_sets": [{"name": "hls", "stream_names": ["audio", "video"]}]
    });
    assert_eq!(
        answer_raw(&sim, "register_content", &[], content).await,
        (
            400,
            error_body(
                "INVALID_REQUEST",
                "`streams[1].audio_track_type` is only for a stream without video, and this stream has `streams[1].height`"
            )
        )
    );
    assert_eq!(
        refused(vms.get_content().content_name("dubbed").call().await),
        (404, "MODEL_NOT_FOUND".into())
    );

    // Giving the audio-only stream a video member would make it one with video.
    let mut with_framerate = audio_only.clone();
    with_framerate["framerate"] = json!(29.97);
    assert_eq!(
        answer_raw(&sim, "update_stream", &["c", &audio_id], with_framerate).await,
        (
            400,
            error_body(
                "INVALID_REQUEST",
                "`audio_track_type` is only for a stream without video, and this stream has `framerate`"
            )
        )
    );
    let stream = vms
        .get_stream()
        .content_name("c")
        .stream_id(Uuid::parse_str(&audio_id).unwrap())
        .call()
        .await
        .unwrap();
    assert_eq!(
        (stream.framerate, stream.audio_track_type.map(|t| t.to_string())),
        (None, Some("main".into()))
    );
}

#[tokio::test]
async fn documents_register_in_bulk_and_the_presentation_one_stays() {
    let (_sim, client, _, registration) = start_with_content().await;
    let vms = client.vms().unwrap();
    let bulk = vms
        .register_documents_bulk()
        .content_name("c")
        .body(from::<types::DocumentBulkCreate>(json!({"requests": [
            {"title": "Notes", "url": "https://f.example/notes.pdf", "type": "application/pdf"},
            {"title": "Upload", "content": "JVBERi0=", "filename": "upload.pdf"}
        ]})))
        .call()
        .await
        .unwrap();
    let documents = vms.list_documents().content_name("c").call().await.unwrap().data;
    assert_eq!(documents.len(), 3);
    assert_eq!(documents[2].id.as_deref(), bulk.responses[1].id());
    assert_eq!(documents[2].filename.as_deref(), Some("upload.pdf"));
    assert!(documents[2].url.as_deref().unwrap().contains("/c/documents/"));

    let slides = uuid(&registration.documents[0].id);
    change_content(vms, "c", json!({"presentation_document_id": slides}))
        .await
        .unwrap();
    let linked = vms.delete_document().content_name("c").document_id(slides).call().await;
    assert_eq!(refused(linked), (400, "INVALID_REQUEST".into()));
    let notes = uuid(&bulk.responses[0].id().map(String::from));
    vms.update_document()
        .content_name("c")
        .document_id(notes)
        .body(from::<types::DocumentUpdate>(json!({"title": "Speaker notes"})))
        .call()
        .await
        .unwrap();
    let document = vms
        .get_document()
        .content_name("c")
        .document_id(notes)
        .call()
        .await
        .unwrap();
    assert_eq!(document.title.as_deref(), Some("Speaker notes"));
    vms.delete_document()
        .content_name("c")
        .document_id(notes)
        .call()
        .await
        .unwrap();
    assert_eq!(
        vms.list_documents().content_name("c").call().await.unwrap().data.len(),
        2
    );
}

#[tokio::test]
async fn content_updates_follow_the_status_rules_and_deletion_spares_forward_targets() {
    let (_sim, client, movies, _) = start_with_content().await;
    let vms = client.vms().unwrap();
    let update = |change: Value| change_content(vms, "c", change);

    assert_eq!(
        refused(update(json!({"status": "PROCESSING"})).await),
        (400, "CONTENT_INVALID_STATUS".into())
    );
    // Only the statuses the document shows (PUBLIC, LIMITED, PROCESSING): an
    // unknown one would leave a content nothing can play.
    assert_eq!(
        refused(update(json!({"status": "ARCHIVED"})).await),
        (400, "INVALID_REQUEST".into())
    );
    assert_eq!(
        vms.get_content().content_name("c").call().await.unwrap().status,
        Some(ContentStatus::Public)
    );
    let mut archived = content_body("archived", &movies);
    archived.status = ContentStatus::Other("ARCHIVED".into());
    assert_eq!(
        refused(vms.register_content().body(archived).call().await),
        (400, "INVALID_REQUEST".into())
    );
    assert_eq!(
        refused(update(json!({"publish_start": "2030-01-01 00:00:00"})).await),
        (400, "INVALID_REQUEST".into()),
        "publish_start is valid only when LIMITED"
    );
    update(json!({
        "status": "LIMITED", "publish_start": "2030-01-01 00:00:00", "publish_end": "2030-12-31 23:59:59",
        "title": "New title", "tags": [{"key": "k", "value": "v"}],
        "chapters": [{"start_time": 0, "title": "Start"}, {"start_time": 30, "title": "Middle"}]
    }))
    .await
    .unwrap();
    let updated = vms.get_content().content_name("c").call().await.unwrap();
    assert_eq!(updated.status, Some(ContentStatus::Limited));
    assert_eq!(updated.publish_start.unwrap().to_string(), "2030-01-01 00:00:00");
    assert_eq!(updated.title.as_deref(), Some("New title"));
    assert_eq!(updated.chapters.len(), 2);
    let same_time = update(json!({"chapters": [{"start_time": 5}, {"start_time": 5}]})).await;
    assert_eq!(refused(same_time), (400, "INVALID_REQUEST".into()));
    let unknown_poster = update(json!({"primary_poster_id": Uuid::new_v4()})).await;
    assert_eq!(refused(unknown_poster), (404, "MODEL_NOT_FOUND".into()));

    // The built-in policy `overseas-to-notice` forwards to `overseas-notice`.
    content(vms, "overseas-notice", &movies).await;
    assert_eq!(
        refused(vms.delete_content().content_name("overseas-notice").call().await),
        (400, "CONTENT_FORWARD_TARGET".into())
    );
    vms.delete_content().content_name("c").call().await.unwrap();
    assert_eq!(
        refused(vms.get_content().content_name("c").call().await),
        (404, "MODEL_NOT_FOUND".into())
    );
}

#[tokio::test]
async fn content_lists_filter_sort_and_page() {
    let (_sim, client) = start().await;
    let vms = client.vms().unwrap();
    let movies = category(vms, "movies").await;
    let news = category(vms, "news").await;
    let label = vms
        .register_label()
        .body(from::<types::LabelCreate>(json!({"name": "featured"})))
        .call()
        .await
        .unwrap()
        .id
        .unwrap();
    for (name, category) in [("alpha", &movies), ("bravo", &news), ("charlie", &movies)] {
        content(vms, name, category).await;
    }
    change_content(
        vms,
        "bravo",
        json!({"labels": [label], "duration": 300, "description": "Evening NEWS"}),
    )
    .await
    .unwrap();
    change_content(vms, "charlie", json!({"status": "LIMITED"}))
        .await
        .unwrap();
    let names = |list: &types::ContentList| list.data.iter().map(|c| c.name.clone().unwrap()).collect::<Vec<_>>();

    let newest_first = vms.list_contents().call().await.unwrap();
    assert_eq!(names(&newest_first), ["charlie", "bravo", "alpha"]);
    assert_eq!(
        (newest_first.current_page, newest_first.per_page, newest_first.truncated),
        (Some(1), Some(25), Some(false))
    );
    let first = vms
        .list_contents()
        .sort("name|asc")
        .per_page(2_u64)
        .call()
        .await
        .unwrap();
    assert_eq!(
        (names(&first), first.truncated),
        (vec!["alpha".to_owned(), "bravo".to_owned()], Some(true))
    );
    let second = vms
        .list_contents()
        .sort("name|asc")
        .per_page(2_u64)
        .page(2_u64)
        .call()
        .await
        .unwrap();
    assert_eq!(
        (names(&second), second.truncated, second.current_page),
        (vec!["charlie".to_owned()], Some(false), Some(2))
    );

    let by = |list: Result<types::ContentList, vidplat::Error>| names(&list.unwrap());
    assert_eq!(
        by(vms
            .list_contents()
            .category(Uuid::parse_str(&movies).unwrap())
            .sort("name|asc")
            .call()
            .await),
        ["alpha", "charlie"]
    );
    assert_eq!(
        by(vms.list_contents().label(Uuid::parse_str(&label).unwrap()).call().await),
        ["bravo"]
    );
    assert_eq!(
        by(vms
            .list_contents()
            .status(vec![types::ContentStatus::Limited])
            .call()
            .await),
        ["charlie"]
    );
    assert_eq!(
        by(vms
            .list_contents()
            .status(vec![types::ContentStatus::Public, types::ContentStatus::Limited])
            .type_(vec![types::ContentType::Vod])
            .sort("name|desc")
            .call()
            .await),
        ["charlie", "bravo", "alpha"]
    );
    assert_eq!(
        by(vms.list_contents().query("news").call().await),
        ["bravo"],
        "case-insensitive, description too"
    );
    assert_eq!(
        by(vms.list_contents().filters(r#"{"duration__gte": 200}"#).call().await),
        ["bravo"]
    );
    assert_eq!(
        by(vms
            .list_contents()
            .filters(r#"{"status": "PUBLIC", "title__contains": "ALPHA"}"#)
            .call()
            .await),
        ["alpha"]
    );
    assert_eq!(
        by(vms
            .list_contents()
            .query("alpha")
            .filters(r#"{"name": "bravo"}"#)
            .call()
            .await),
        ["alpha"],
        "filters are ignored when query is given"
    );
    let combined = vms
        .list_contents()
        .filters(r#"{"duration": 1, "duration__gt": 0}"#)
        .call()
        .await;
    assert_eq!(refused(combined), (400, "INVALID_REQUEST".into()));
    assert_eq!(
        refused(vms.list_contents().sort("colour|asc").call().await),
        (400, "INVALID_REQUEST".into())
    );
}

#[tokio::test]
async fn delivery_volume_is_deterministic_and_bounded() {
    let (_sim, client, _, _) = start_with_content().await;
    let vms = client.vms().unwrap();
    let before = vms
        .get_content_statistics()
        .content_name("c")
        .start("2024-01-30")
        .end("2024-02-02")
        .call()
        .await
        .unwrap();
    let days: Vec<(String, i64)> = before
        .statistics
        .unwrap()
        .iter()
        .map(|d| (d.date.as_ref().unwrap().to_string(), d.bytes_downloaded.unwrap()))
        .collect();
    assert_eq!(
        days,
        [
            ("2024-01-30".into(), 0),
            ("2024-01-31".into(), 0),
            ("2024-02-01".into(), 0),
            ("2024-02-02".into(), 0)
        ],
        "nothing was delivered before the content existed"
    );
    let recent = || vms.get_content_statistics().content_name("c").call();
    let (one, two) = (
        recent().await.unwrap().statistics.unwrap(),
        recent().await.unwrap().statistics.unwrap(),
    );
    assert_eq!(one.len(), 30, "the default period: the last 30 days");
    let bytes = |list: &[types::DeliveryVolume]| list.iter().map(|d| d.bytes_downloaded.unwrap()).collect::<Vec<_>>();
    // Past days are fixed; today counts only what has passed of it, so it only grows.
    assert_eq!(bytes(&one)[..29], bytes(&two)[..29]);
    assert!(bytes(&two)[29] >= bytes(&one)[29], "today only grows as it passes");
    assert!(
        bytes(&one)[..29].iter().all(|b| *b == 0),
        "the content exists since today only"
    );
    let too_long = vms
        .get_content_statistics()
        .content_name("c")
        .start("2024-01-01")
        .end("2025-03-01")
        .call()
        .await;
    assert_eq!(refused(too_long), (400, "INVALID_REQUEST".into()));
    assert_eq!(
        refused(vms.get_content_statistics().content_name("nope").call().await),
        (404, "MODEL_NOT_FOUND".into())
    );
    // "At most 13 months" in calendar months, not a count of days: 1 February
    // to 28 February a year later is 13 months (394 days); one day more is not.
    let span = |start: &'static str, end: &'static str| {
        vms.get_content_statistics()
            .content_name("c")
            .start(start)
            .end(end)
            .call()
    };
    let thirteen = span("2024-02-01", "2025-02-28").await.unwrap().statistics.unwrap();
    assert_eq!(thirteen.len(), 394);
    assert_eq!(
        refused(span("2024-02-01", "2025-03-01").await),
        (400, "INVALID_REQUEST".into())
    );
    assert_eq!(
        span("2024-01-01", "2025-01-31")
            .await
            .unwrap()
            .statistics
            .unwrap()
            .len(),
        397
    );
    assert_eq!(
        refused(span("2023-03-01", "2024-04-01").await),
        (400, "INVALID_REQUEST".into())
    );
}

/// Days that have not happened yet deliver nothing, and today counts only up
/// to now: in a zone where the day began half a minute ago, today's volume is
/// at most a minute's share of a day (up to a gigabyte a day).
#[tokio::test]
async fn delivery_volume_counts_no_day_that_has_not_happened() {
    use chrono::{Duration, FixedOffset, Timelike, Utc};
    let utc_now = Utc::now();
    let offset = 30 - i32::try_from(utc_now.num_seconds_from_midnight()).unwrap();
    let zone = FixedOffset::east_opt(offset).expect("an offset within a day");
    let sim = Simulator::start_with(SimConfig {
        time_zone: zone,
        ..SimConfig::fast()
    })
    .await
    .expect("simulator");
    let client = sim.client().build().expect("client");
    let vms = client.vms().unwrap();
    let movies = category(vms, "movies").await;
    content(vms, "c", &movies).await;
    let today = utc_now.with_timezone(&zone).date_naive();
    let date = |days: i64| (today + Duration::days(days)).format("%Y-%m-%d").to_string();
    let volumes = |start: String, end: String| async move {
        let answer = vms
            .get_content_statistics()
            .content_name("c")
            .start(start.as_str())
            .end(end.as_str())
            .call()
            .await
            .unwrap();
        let rows = answer.statistics.unwrap();
        rows.iter()
            .map(|day| (day.date.as_ref().unwrap().to_string(), day.bytes_downloaded.unwrap()))
            .collect::<Vec<_>>()
    };
    let coming = volumes(date(0), date(3)).await;
    assert_eq!(
        coming.iter().map(|(day, _)| day.clone()).collect::<Vec<_>>(),
        [date(0), date(1), date(2), date(3)]
    );
    assert_eq!(
        coming[1..],
        [(date(1), 0), (date(2), 0), (date(3), 0)],
        "later days have not happened"
    );
    let minute_share = 1_000_000_000 * 60 / 86_400;
    assert!(
        coming[0].1 <= minute_share,
        "today began half a minute ago, yet {} bytes were delivered",
        coming[0].1
    );
    assert_eq!(
        volumes(date(10), date(12)).await,
        [(date(10), 0), (date(11), 0), (date(12), 0)]
    );
}

#[tokio::test]
async fn categories_nest_rename_and_guard_their_deletion() {
    let (_sim, client) = start().await;
    let vms = client.vms().unwrap();
    let register = |name: &str, create_parents: bool| {
        vms.register_category()
            .create_parents(create_parents)
            .body(from::<types::CategoryCreate>(json!({ "name": name })))
    };
    assert_eq!(
        refused(register("a/b/c", false).call().await),
        (400, "PARENT_CATEGORY_NOT_FOUND".into())
    );
    let created = register("a/b/c", true).call().await.unwrap();
    let parents: Vec<_> = created
        .parents
        .unwrap()
        .iter()
        .map(|p| p.name.clone().unwrap())
        .collect();
    assert_eq!(parents, ["a", "a/b"]);
    assert_eq!(
        register("a/b", false)
            .call()
            .await
            .map(|_| ())
            .map_err(|e| e.code().map(str::to_owned)),
        Err(Some("MODEL_ALREADY_EXISTS".into()))
    );
    let lone = register("solo", false).call().await.unwrap();
    assert!(lone.parents.is_none());
    let all = vms.list_categories().call().await.unwrap().data;
    let names: Vec<_> = all.iter().map(|c| c.name.clone().unwrap()).collect();
    assert_eq!(names, ["a", "a/b", "a/b/c", "solo"]);
    let a = Uuid::parse_str(all[0].id.as_deref().unwrap()).unwrap();

    let rename = |rename_children: bool, name: &str| {
        vms.update_category()
            .category_id(a)
            .rename_children(rename_children)
            .body(from::<types::CategoryUpdate>(json!({ "name": name })))
    };
    assert_eq!(
        refused(rename(false, "z").call().await),
        (400, "CATEGORY_WITH_CHILDREN".into())
    );
    assert_eq!(
        refused(rename(true, "solo").call().await),
        (409, "MODEL_ALREADY_EXISTS".into())
    );
    rename(true, "z").call().await.unwrap();
    let names: Vec<_> = vms
        .list_categories()
        .call()
        .await
        .unwrap()
        .data
        .iter()
        .map(|c| c.name.clone().unwrap())
        .collect();
    assert_eq!(names, ["z", "z/b", "z/b/c", "solo"]);

    assert_eq!(
        refused(vms.delete_category().category_id(a).call().await),
        (400, "CATEGORY_WITH_CHILDREN".into())
    );
    let leaf = uuid(&created.id);
    content(vms, "c", &leaf.to_string()).await;
    assert_eq!(
        refused(vms.delete_category().category_id(leaf).call().await),
        (400, "CATEGORY_ASSOCIATED".into())
    );

    let stats = vms
        .get_category()
        .category_id(leaf)
        .statistics("daily:3")
        .call()
        .await
        .unwrap();
    let periods = stats.statistics.unwrap();
    assert_eq!(periods.len(), 3);
    let today = &periods[2];
    assert_eq!(
        (today.content_count, today.total_duration, today.total_filesize),
        (Some(1), Some(120), Some(2300))
    );
    assert!(vms
        .get_category()
        .category_id(leaf)
        .call()
        .await
        .unwrap()
        .statistics
        .is_none());

    vms.delete_content().content_name("c").call().await.unwrap();
    vms.delete_category().category_id(leaf).call().await.unwrap();
    assert_eq!(
        refused(vms.get_category().category_id(leaf).call().await),
        (404, "MODEL_NOT_FOUND".into())
    );
}

#[tokio::test]
async fn labels_are_unique_and_deleting_one_keeps_its_contents() {
    let (_sim, client) = start().await;
    let vms = client.vms().unwrap();
    let register = |name: &str| {
        vms.register_label()
            .body(from::<types::LabelCreate>(json!({ "name": name })))
    };
    let featured = register("featured").call().await.unwrap().id.unwrap();
    let other = register("other").call().await.unwrap().id.unwrap();
    assert_eq!(
        refused(register("featured").call().await),
        (409, "MODEL_ALREADY_EXISTS".into())
    );
    let other_id = Uuid::parse_str(&other).unwrap();
    let rename = |name: &str| {
        vms.update_label()
            .label_id(other_id)
            .body(from::<types::LabelUpdate>(json!({ "name": name })))
    };
    assert_eq!(
        refused(rename("featured").call().await),
        (409, "MODEL_ALREADY_EXISTS".into())
    );
    rename("second").call().await.unwrap();
    assert_eq!(
        vms.get_label().label_id(other_id).call().await.unwrap().name.as_deref(),
        Some("second")
    );

    let movies = category(vms, "movies").await;
    content(vms, "c", &movies).await;
    change_content(vms, "c", json!({ "labels": [featured, other] }))
        .await
        .unwrap();
    vms.delete_label()
        .label_id(Uuid::parse_str(&featured).unwrap())
        .call()
        .await
        .unwrap();
    let content = vms.get_content().content_name("c").call().await.unwrap();
    assert_eq!(content.labels, [other]);
    assert_eq!(vms.list_labels().call().await.unwrap().data.len(), 1);
}

#[tokio::test]
async fn play_evaluates_status_forward_policy_streaming_policy_and_ss() {
    let (_sim, client, movies, _) = start_with_content().await;
    let vms = client.vms().unwrap();
    content(vms, "overseas-notice", &movies).await;
    let policy = |policies: &[(Option<String>, Option<String>)], name: &str| {
        policies
            .iter()
            .find(|(n, _)| n.as_deref() == Some(name))
            .unwrap()
            .1
            .clone()
            .unwrap()
    };
    let forward: Vec<_> = vms
        .list_forward_policies()
        .call()
        .await
        .unwrap()
        .data
        .into_iter()
        .map(|p| (p.name, p.id))
        .collect();
    let streaming: Vec<_> = vms
        .list_streaming_policies()
        .call()
        .await
        .unwrap()
        .data
        .into_iter()
        .map(|p| (p.name, p.id))
        .collect();
    let play = || vms.get_play_information().content_name("c");

    let default = play().call().await.unwrap();
    assert_eq!(default.type_, Some(PlayResponseType::Video));
    assert_eq!(default.name.as_deref(), Some("c"));
    assert_eq!(
        default.stream_set_name.as_deref(),
        Some("hls"),
        "the implicit rule: the first stream set"
    );
    assert_eq!(default.format, Some(StreamFormat::Hls));
    assert_eq!(default.streams.as_ref().unwrap().len(), 2);
    assert_eq!(default.subtitles.as_ref().unwrap().len(), 2);
    assert_eq!(default.default_subtitle_index, Some(0), "the default policy prefers ja");
    assert_eq!(default.poster_url.as_deref(), Some("https://files.example/cover.png"));
    assert_eq!(default.poster_slideshow.as_ref().unwrap().interval, Some(1000));
    let at = play().x_vms_date("2030-01-01 00:00:00").call().await.unwrap();
    // 2030-01-01 00:00:00 Japan time (the simulator's zone) plus the default url_lifetime.
    let expires = 1_893_456_000 - 9 * 3600 + 3600;
    assert!(at
        .video_url
        .unwrap()
        .ends_with(&format!("master.m3u8?expires={expires}")));

    let by_ss = play().ss("mp4").call().await.unwrap();
    assert_eq!(
        (by_ss.stream_set_name.as_deref(), by_ss.format),
        (Some("mp4"), Some(StreamFormat::Mp4))
    );
    assert_eq!(
        refused(play().ss("nope").call().await),
        (404, "STREAM_SET_NOT_FOUND".into())
    );
    assert_eq!(
        refused(vms.get_play_information().content_name("nope").call().await),
        (404, "CONTENT_NOT_FOUND".into())
    );

    // Streaming policy mobile-mp4: a phone gets the MP4 set, subtitles preferred in en.
    change_content(
        vms,
        "c",
        json!({"streaming_policy_id": policy(&streaming, "mobile-mp4")}),
    )
    .await
    .unwrap();
    let phone = play()
        .x_vms_user_agent("Mozilla/5.0 (iPhone; CPU iPhone OS 18_4 like Mac OS X)")
        .call()
        .await
        .unwrap();
    assert_eq!(phone.stream_set_name.as_deref(), Some("mp4"));
    let pc = play().call().await.unwrap();
    assert_eq!(pc.stream_set_name.as_deref(), Some("hls"));
    assert_eq!(pc.default_subtitle_index, Some(1));
    assert_eq!(
        play()
            .ss("hls")
            .x_vms_user_agent("Android Mobile")
            .call()
            .await
            .unwrap()
            .stream_set_name
            .as_deref(),
        Some("hls")
    );

    // Forward policy overseas-to-notice: outside Japan, the notice plays instead.
    change_content(
        vms,
        "c",
        json!({"forward_policy_id": policy(&forward, "overseas-to-notice")}),
    )
    .await
    .unwrap();
    assert_eq!(
        play().x_vms_client_country("US").call().await.unwrap().name.as_deref(),
        Some("overseas-notice")
    );
    assert_eq!(
        play().x_vms_client_country("JP").call().await.unwrap().name.as_deref(),
        Some("c")
    );
    assert_eq!(
        play().call().await.unwrap().name.as_deref(),
        Some("c"),
        "no country: the home country"
    );
    let by_ip = play()
        .x_vms_client_ip(std::net::Ipv4Addr::new(198, 51, 100, 7))
        .call()
        .await
        .unwrap();
    assert_eq!(by_ip.name.as_deref(), Some("overseas-notice"));
    let country_wins = play()
        .x_vms_client_ip(std::net::Ipv4Addr::new(198, 51, 100, 7))
        .x_vms_client_country("JP")
        .call()
        .await
        .unwrap();
    assert_eq!(country_wins.name.as_deref(), Some("c"));
    let skipped = play()
        .x_vms_client_country("US")
        .disable_cfp(true)
        .call()
        .await
        .unwrap();
    assert_eq!(skipped.name.as_deref(), Some("c"));

    change_content(
        vms,
        "c",
        json!({"forward_policy_id": policy(&forward, "overseas-image")}),
    )
    .await
    .unwrap();
    let image = play().x_vms_client_country("FR").call().await.unwrap();
    assert_eq!(image.type_, Some(PlayResponseType::Other("IMAGE".into())));
    assert!(image.image_url.is_some() && image.video_url.is_none());

    // Not publishable: 403 CONTENT_INVALID_STATUS.
    change_content(
        vms,
        "c",
        json!({
            "status": "LIMITED", "publish_start": "2030-01-01 00:00:00", "publish_end": "2030-01-31 00:00:00"
        }),
    )
    .await
    .unwrap();
    assert_eq!(refused(play().call().await), (403, "CONTENT_INVALID_STATUS".into()));
    let inside = play()
        .x_vms_date("2030-01-15 12:00:00")
        .disable_cfp(true)
        .call()
        .await
        .unwrap();
    assert_eq!(inside.name.as_deref(), Some("c"));
    let after = play().x_vms_date("2030-02-01 00:00:00").call().await;
    assert_eq!(refused(after), (403, "CONTENT_INVALID_STATUS".into()));
}

#[tokio::test]
async fn playlist_items_list_published_contents_with_their_overrides() {
    let (_sim, client) = start().await;
    let vms = client.vms().unwrap();
    let movies = category(vms, "genres/movies").await;
    content(vms, "public", &movies).await;
    content(vms, "hidden", &movies).await;
    change_content(
        vms,
        "hidden",
        json!({"status": "LIMITED", "publish_start": "2099-01-01 00:00:00"}),
    )
    .await
    .unwrap();
    change_content(
        vms,
        "public",
        json!({"playlist_item_overrides": {"title": "Shown title"}}),
    )
    .await
    .unwrap();
    let playlist = vms
        .get_playlist_items()
        .playlist_name("all-contents")
        .call()
        .await
        .unwrap();
    assert_eq!(playlist.playlist_title.as_deref(), Some("All contents"));
    let items: Vec<_> = playlist
        .playlist_items
        .iter()
        .map(|i| (i.name.clone().unwrap(), i.title.clone().unwrap()))
        .collect();
    assert_eq!(items, [("public".to_owned(), "Shown title".to_owned())]);
    assert_eq!(playlist.playlist_items[0].category.as_deref(), Some("genres/movies"));
    let everything = vms
        .get_playlist_items()
        .playlist_name("all-contents")
        .include_private(true)
        .call()
        .await
        .unwrap();
    assert_eq!(everything.playlist_items.len(), 2);
    assert_eq!(
        refused(vms.get_playlist_items().playlist_name("nope").call().await),
        (404, "MODEL_NOT_FOUND".into())
    );
}

#[tokio::test]
async fn sites_and_policies_are_built_in_and_read_only() {
    let (_sim, client) = start().await;
    let vms = client.vms().unwrap();
    let sites = vms.list_sites().call().await.unwrap().data;
    assert_eq!(sites.len(), 2);
    assert_eq!(
        sites[0].ssl_certificate.as_ref().map(|_| ()),
        None,
        "the shared portal domain has no certificate"
    );
    assert!(sites[1].ssl_certificate.is_some());
    let site = vms.get_site().site_id(uuid(&sites[1].id)).call().await.unwrap();
    assert_eq!(site.domain_names, ["videos.example.com"]);
    assert_eq!(
        refused(vms.get_site().site_id(Uuid::new_v4()).call().await),
        (404, "MODEL_NOT_FOUND".into())
    );
    let forward = vms.list_forward_policies().call().await.unwrap().data;
    assert_eq!(forward.iter().filter(|p| p.is_default == Some(true)).count(), 1);
    let one = vms
        .get_forward_policy()
        .policy_id(uuid(&forward[1].id))
        .call()
        .await
        .unwrap();
    assert_eq!(one.rules[0].target_content_name.as_deref(), Some("overseas-notice"));
    let streaming = vms.list_streaming_policies().call().await.unwrap().data;
    assert_eq!(streaming.len(), 3);
    let default = vms
        .get_streaming_policy()
        .policy_id(uuid(&streaming[0].id))
        .call()
        .await
        .unwrap();
    assert_eq!((default.url_lifetime, default.is_default), (Some(3600), Some(true)));
}

#[tokio::test]
async fn viewing_pages_answer_only_valid_signed_urls() {
    let (sim, client) = start().await;
    let vms = client.vms().unwrap();
    let movies = category(vms, "movies").await;
    content(vms, "c", &movies).await;
    let register = |body: Value| vms.register_viewing_page().body(from::<types::ViewingPageCreate>(body));
    assert_eq!(
        refused(register(json!({"content_name": "c"})).call().await),
        (400, "INVALID_REQUEST".into())
    );
    assert_eq!(
        refused(
            register(json!({"content_name": "nope", "configurations": {}}))
                .call()
                .await
        ),
        (404, "MODEL_NOT_FOUND".into())
    );
    assert_eq!(
        refused(
            register(json!({"content_name": "c", "site_id": Uuid::new_v4()}))
                .call()
                .await
        ),
        (404, "MODEL_NOT_FOUND".into())
    );
    let open = register(json!({"content_name": "c", "configurations": {"title": "Open <page>"}}))
        .call()
        .await
        .unwrap();
    assert_eq!(open.signing_key, None);
    let signed = register(json!({
        "content_name": "c",
        "signature_required": true,
        "configurations": {"title": "Members only", "description": "Signed"},
        "revoked_audiences": ["banned"]
    }))
    .call()
    .await
    .unwrap();
    let signing_key = signed.signing_key.clone().unwrap();
    assert_eq!(signing_key.len(), 32);
    let page_id = uuid(&signed.id);
    let page = vms.get_viewing_page().page_id(page_id).call().await.unwrap();
    assert_eq!(page.signing_key.as_deref(), Some(signing_key.as_str()));
    assert_eq!(page.status, Some(types::PageStatus::Public));
    assert_eq!(page.revoked_audiences, ["banned"]);

    let http = crate::raw_http();
    // Pages without a site are on the shared portal domain; the simulator answers
    // https://{domain}/pages/{id} at local_page_url of it.
    let fetch = |url: String| {
        let http = http.clone();
        let local = sim.local_page_url(&url).expect("an https page URL");
        async move {
            let response = http.get(local).send().await.expect("page response");
            (response.status().as_u16(), response.text().await.unwrap_or_default())
        }
    };
    let open_url = format!("https://{PORTAL_DOMAIN}/pages/{}", open.id.as_deref().unwrap());
    let (status, html) = fetch(open_url).await;
    assert_eq!(status, 200);
    assert!(html.contains("Open &lt;page&gt;"), "{html}");

    let page_url = format!("https://{PORTAL_DOMAIN}/pages/{page_id}");
    let key = signing_key.as_str();
    let grant = |expires: u64, audience: &str| Grant {
        expires: Some(expires),
        audience: Some(audience.to_owned()),
    };
    let sign = |url: &str, key: &str, grant: &Grant| self::signed(url, key, grant);
    let valid = sign(&page_url, key, &grant(now() + 3600, "viewer-1"));
    let (status, html) = fetch(valid.clone()).await;
    assert_eq!(status, 200);
    assert!(html.contains("Members only"));
    assert_eq!(
        fetch(sign(&page_url, key, &Grant::default())).await.0,
        200,
        "neither expires nor aud"
    );
    assert_eq!(fetch(page_url.clone()).await.0, 403, "unsigned");
    assert_eq!(
        fetch(valid.replace("viewer-1", "viewer-2")).await.0,
        403,
        "tampered aud"
    );
    assert_eq!(
        fetch(sign(&page_url, &"0".repeat(32), &grant(now() + 60, "v"))).await.0,
        403,
        "other key"
    );
    assert_eq!(
        fetch(sign(&page_url, key, &grant(now() - 10, "viewer-1"))).await.0,
        403,
        "expired"
    );
    assert_eq!(
        fetch(sign(&page_url, key, &grant(now() + 60, "banned"))).await.0,
        403,
        "revoked at registration"
    );

    let revoke = || {
        vms.add_revoked_audience()
            .page_id(page_id)
            .body(from::<types::RevokedAudienceAdd>(
                json!({"revoked_audience": "viewer-1"}),
            ))
    };
    revoke().call().await.unwrap();
    revoke().call().await.unwrap();
    let page = vms.get_viewing_page().page_id(page_id).call().await.unwrap();
    assert_eq!(
        page.revoked_audiences,
        ["banned", "viewer-1"],
        "adding twice changes nothing"
    );
    assert_eq!(fetch(valid).await.0, 403, "revoked audience");
    let for_a_minute = sign(&page_url, key, &grant(now() + 60, "viewer-3"));
    assert_eq!(fetch(for_a_minute.clone()).await.0, 200);
    // The simulator's clock, moved on, expires it without a wait; the wall clock has not moved.
    sim.advance_clock(std::time::Duration::from_secs(61));
    assert_eq!(fetch(for_a_minute).await.0, 403, "expired on the simulator's clock");
    assert_eq!(
        fetch(sign(&page_url, key, &grant(now() + 120, "viewer-3"))).await.0,
        200
    );
    assert_eq!(
        fetch(format!("https://{PORTAL_DOMAIN}/pages/{}", Uuid::new_v4()))
            .await
            .0,
        404
    );

    // The list: newest first, the truncated envelope, filters.
    let list = vms.list_viewing_pages().per_page(1_u64).call().await.unwrap();
    assert_eq!(
        (list.data.len(), list.truncated, list.data[0].id.clone()),
        (1, Some(true), signed.id.clone())
    );
    let titled = vms.list_viewing_pages().query("members").call().await.unwrap();
    assert_eq!(titled.data.len(), 1);
    assert_eq!(
        vms.list_viewing_pages().content("c").call().await.unwrap().data.len(),
        2
    );
    assert_eq!(
        vms.list_viewing_pages()
            .content("other")
            .call()
            .await
            .unwrap()
            .data
            .len(),
        0
    );
    assert_eq!(
        vms.list_viewing_pages()
            .type_(types::ViewingPageType::Playlist)
            .call()
            .await
            .unwrap()
            .data
            .len(),
        0
    );

    vms.update_viewing_page()
        .page_id(page_id)
        .body(from::<types::ViewingPageUpdate>(
            json!({"max_simultaneous_viewers": 2, "site_id": sites_dedicated(vms).await}),
        ))
        .call()
        .await
        .unwrap();
    let page = vms.get_viewing_page().page_id(page_id).call().await.unwrap();
    assert_eq!(page.max_simultaneous_viewers, Some(2));
    assert_eq!(
        page.signing_key.as_deref(),
        Some(signing_key.as_str()),
        "signature_required is fixed"
    );
    vms.delete_viewing_page().page_id(page_id).call().await.unwrap();
    assert_eq!(
        refused(vms.get_viewing_page().page_id(page_id).call().await),
        (404, "MODEL_NOT_FOUND".into())
    );
}

async fn sites_dedicated(vms: &vidplat::vms::Client) -> String {
    let sites = vms.list_sites().call().await.unwrap().data;
    sites[1].id.clone().unwrap()
}

/// Empty lists keep the documented envelope (`"data": []`), and a content's
/// empty list members are `[]`.
#[tokio::test]
async fn empty_lists_keep_their_envelope() {
    let (sim, client) = start().await;
    let http = crate::raw_http();
    let raw = |path: String| {
        let request = http.get(format!("{}{path}", sim.vms_url)).bearer_auth(&sim.api_key);
        async move {
            let answer = request.send().await.expect("an answer");
            assert_eq!(answer.status().as_u16(), 200, "{path}");
            answer.json::<Value>().await.expect("a JSON body")
        }
    };
    assert_eq!(raw("/v1/labels".into()).await, json!({"data": []}));
    assert_eq!(raw("/v1/categories".into()).await, json!({"data": []}));
    let contents = raw("/v1/contents".into()).await;
    assert_eq!(
        (contents.get("data"), contents.get("truncated")),
        (Some(&json!([])), Some(&json!(false)))
    );
    let pages = raw("/v1/instant-pages".into()).await;
    assert_eq!(pages.get("data"), Some(&json!([])), "{pages}");
    let vms = client.vms().unwrap();
    let movies = category(vms, "movies").await;
    content(vms, "c", &movies).await;
    let listed = raw("/v1/contents".into()).await;
    assert_eq!(
        (listed["data"][0]["labels"].clone(), listed["data"][0]["tags"].clone()),
        (json!([]), json!([]))
    );
}

/// A page registered with `signature_required` on `site` (None: no site).
async fn signed_page(vms: &vidplat::vms::Client, site: Option<&str>, extra: Value) -> (String, String) {
    let mut body = json!({"content_name": "c", "signature_required": true, "configurations": {"title": "T"}});
    if let Some(site) = site {
        body["site_id"] = json!(site);
    }
    if let (Some(body), Value::Object(extra)) = (body.as_object_mut(), extra) {
        body.extend(extra);
    }
    let page = vms
        .register_viewing_page()
        .body(from::<types::ViewingPageCreate>(body))
        .call()
        .await
        .expect("a page");
    (page.id.expect("an id"), page.signing_key.expect("a signing key"))
}

/// GET of a page URL of the documented form, at the simulator's listener.
async fn open_page(sim: &Simulator, url: &str, cookie: Option<&str>) -> reqwest::Response {
    let local = sim.local_page_url(url).expect("an https page URL");
    let mut request = crate::raw_http().get(local);
    if let Some(cookie) = cookie {
        request = request.header(reqwest::header::COOKIE, cookie);
    }
    request.send().await.expect("an answer")
}

#[tokio::test]
async fn signed_pages_are_at_their_documented_address() {
    let (sim, client, _, _) = start_with_content().await;
    let vms = client.vms().unwrap();
    let sites = vms.list_sites().call().await.unwrap().data;
    let (portal, dedicated) = (sites[0].id.clone().unwrap(), sites[1].id.clone().unwrap());
    assert_eq!(sites[0].domain_names, [PORTAL_DOMAIN]);
    let grant = Grant {
        expires: Some(now() + 600),
        audience: Some("viewer-1".into()),
    };

    // On the site's own domain, signed for that address: it opens.
    let (id, key) = signed_page(vms, Some(&dedicated), json!({})).await;
    let at_site = format!("https://videos.example.com/pages/{id}");
    assert_eq!(
        open_page(&sim, &signed(&at_site, &key, &grant), None).await.status(),
        200
    );
    // Not on the portal domain, and not under the API's base URL.
    let at_portal = format!("https://{PORTAL_DOMAIN}/pages/{id}");
    assert_eq!(
        open_page(&sim, &signed(&at_portal, &key, &grant), None).await.status(),
        404
    );
    let old = crate::raw_http()
        .get(format!("{}/pages/{id}", sim.vms_url))
        .send()
        .await
        .unwrap();
    assert_eq!(old.status(), 404);
    let body: Value = old.json().await.unwrap();
    assert!(
        body["message"].as_str().unwrap().contains("/hosts/{domain}/pages/"),
        "{body}"
    );
    // A URL signed for another address (the API's base) does not open the real one.
    let for_api = signed(&format!("{}/pages/{id}", sim.vms_url), &key, &grant);
    let query = for_api.split_once('?').unwrap().1;
    let moved = format!("{at_site}?{query}");
    assert_eq!(open_page(&sim, &moved, None).await.status(), 403);

    // A page of the portal site, and one without a site, are on the shared portal domain.
    for site in [Some(portal.as_str()), None] {
        let (id, key) = signed_page(vms, site, json!({})).await;
        let url = format!("https://{PORTAL_DOMAIN}/pages/{id}");
        assert_eq!(open_page(&sim, &signed(&url, &key, &grant), None).await.status(), 200);
        let elsewhere = format!("https://videos.example.com/pages/{id}");
        assert_eq!(
            open_page(&sim, &signed(&elsewhere, &key, &grant), None).await.status(),
            404
        );
    }
    assert_eq!(
        sim.local_page_url("https://videos.example.com/pages/p?x=1").as_deref(),
        Some(format!("http://{}/hosts/videos.example.com/pages/p?x=1", sim.address).as_str())
    );
}

#[tokio::test]
async fn only_the_documented_signed_form_opens_a_page() {
    let (sim, client, _, _) = start_with_content().await;
    let vms = client.vms().unwrap();
    let (id, key) = signed_page(vms, None, json!({})).await;
    let page = format!("https://{PORTAL_DOMAIN}/pages/{id}");
    let expires = now() + 600;
    let status = |url: String| {
        let sim = &sim;
        async move { open_page(sim, &url, None).await.status().as_u16() }
    };
    // The documented form opens.
    let message = format!("{page}?expires={expires}&aud=u1");
    let valid = format!("{message}&signature={}&version=1", hmac_hex(&key, &message));
    assert_eq!(status(valid).await, 200);
    // Upper-case hexadecimal: the document says lowercase.
    let upper = format!(
        "{message}&signature={}&version=1",
        hmac_hex(&key, &message).to_uppercase()
    );
    assert_eq!(status(upper).await, 403, "upper-case hex");
    // aud before expires, correctly signed in that order: the document writes expires first.
    let reordered = format!("{page}?aud=u1&expires={expires}");
    let url = format!("{reordered}&signature={}&version=1", hmac_hex(&key, &reordered));
    assert_eq!(status(url).await, 403, "aud before expires");
    // A parameter twice.
    let twice = format!("{page}?expires={expires}&expires={expires}&aud=u1");
    let url = format!("{twice}&signature={}&version=1", hmac_hex(&key, &twice));
    assert_eq!(status(url).await, 403, "expires twice");
    // expires is the moment the URL expires: at now == expires it has.
    let at = now();
    let message = format!("{page}?expires={at}");
    let url = format!("{message}&signature={}&version=1", hmac_hex(&key, &message));
    assert_eq!(status(url).await, 403, "now == expires");
    // A fragment is not signed and never reaches the server: the signed URL with one opens.
    let grant = Grant {
        expires: Some(expires),
        audience: Some("u1".into()),
    };
    let with_fragment = signed(&format!("{page}#player"), &key, &grant);
    assert!(with_fragment.ends_with("&version=1#player"), "{with_fragment}");
    assert_eq!(status(with_fragment).await, 200, "signed URL with a fragment");
}

/// The refusal page a viewing page answers with, for `why`.
fn refusal_page(status: &str, why: &str) -> String {
    format!(
        "<!doctype html><html><head><title>{status}</title></head><body><h1>{status}</h1><p>{why}</p></body></html>"
    )
}

/// The document gives neither the order of `signature` and `version` nor the
/// escaping of `aud`; it signs "the URL without signature and version". URLs
/// built here from those words alone (HMAC-SHA-256 without the SDK, lowercase
/// hex) open the page when the SDK's own form is not what they are.
#[tokio::test]
async fn signed_urls_are_checked_by_the_documents_words_alone() {
    let (sim, client, _, _) = start_with_content().await;
    let vms = client.vms().unwrap();
    let (id, key) = signed_page(vms, None, json!({"revoked_audiences": ["banned"]})).await;
    let page = format!("https://{PORTAL_DOMAIN}/pages/{id}");
    let answer = |url: String| {
        let sim = &sim;
        async move {
            let response = open_page(sim, &url, None).await;
            let status = response.status().as_u16();
            (status, response.text().await.expect("a body"))
        }
    };
    let served = "<!doctype html><html><head><meta charset=\"utf-8\"><title>T</title></head><body><h1>T</h1>\
                  <p>A cat video</p><div class=\"player\" data-content=\"c\"></div></body></html>"
        .to_owned();
    let expires = now() + 600;
    let message = format!("{page}?expires={expires}&aud=viewer-1");
    let signature = hmac_hex(&key, &message);
    let raw_at = format!("{page}?expires={expires}&aud=user@example.com");
    for (url, what) in [
        (
            format!("{message}&version=1&signature={signature}"),
            "version before signature",
        ),
        (format!("{message}&signature={signature}"), "no version"),
        (
            format!("{raw_at}&signature={}&version=1", hmac_hex(&key, &raw_at)),
            "a raw @ in aud, signed raw",
        ),
    ] {
        assert_eq!(answer(url).await, (200, served.clone()), "{what}");
    }

    let forbidden = |why: &str| (403, refusal_page("Forbidden", why));
    let other_key = hmac_hex(&"0".repeat(32), &message);
    assert_eq!(
        answer(format!("{message}&signature={other_key}&version=1")).await,
        forbidden("the signature does not match"),
        "wrong signature"
    );
    assert_eq!(
        answer(format!("{message}&signature={signature}&version=2")).await,
        forbidden("signature version `2` is not supported (only 1)")
    );
    let revoked = format!("{page}?expires={expires}&aud=ban%6Eed");
    assert_eq!(
        answer(format!("{revoked}&signature={}", hmac_hex(&key, &revoked))).await,
        forbidden("this viewer&#39;s access is revoked"),
        "aud is compared percent-decoded"
    );
    let before = now();
    let past = before - 10;
    let expired = format!("{page}?expires={past}&aud=viewer-1");
    let (status, body) = answer(format!("{expired}&version=1&signature={}", hmac_hex(&key, &expired))).await;
    let after = now();
    assert_eq!(status, 403);
    assert!(
        (before..=after).any(|at| body == refusal_page("Forbidden", &format!("the URL expired at {past} (now {at})"))),
        "{body}"
    );
}

#[tokio::test]
async fn simultaneous_viewers_are_limited_per_aud_and_denied_viewers_wait() {
    let sim = Simulator::start_with(SimConfig {
        // Long enough that the checks below run inside one session on a loaded machine.
        viewing_session: std::time::Duration::from_secs(2),
        ..SimConfig::fast()
    })
    .await
    .expect("simulator");
    let client = sim.client().build().expect("client");
    let vms = client.vms().unwrap();
    let movies = category(vms, "movies").await;
    content(vms, "c", &movies).await;
    let (id, key) = signed_page(
        vms,
        None,
        json!({"max_simultaneous_viewers": 1, "access_denial_timeout": 1}),
    )
    .await;
    let page = format!("https://{PORTAL_DOMAIN}/pages/{id}");
    let for_viewer = |audience: Option<&str>| {
        signed(
            &page,
            &key,
            &Grant {
                expires: Some(now() + 600),
                audience: audience.map(str::to_owned),
            },
        )
    };
    let cookie_of = |response: &reqwest::Response| {
        let set = response.headers()[reqwest::header::SET_COOKIE].to_str().unwrap();
        set.split(';').next().unwrap().to_owned()
    };

    let first = open_page(&sim, &for_viewer(Some("u1")), None).await;
    assert_eq!(first.status(), 200);
    let session = cookie_of(&first);
    // The same session again: still one viewer.
    assert_eq!(
        open_page(&sim, &for_viewer(Some("u1")), Some(&session)).await.status(),
        200
    );
    // A second session of u1: refused, and u1 is denied for access_denial_timeout (1 s).
    assert_eq!(open_page(&sim, &for_viewer(Some("u1")), None).await.status(), 403);
    assert_eq!(
        open_page(&sim, &for_viewer(Some("u1")), Some(&session)).await.status(),
        403
    );
    // Another viewer is not affected; without aud the limit does not apply.
    assert_eq!(open_page(&sim, &for_viewer(Some("u2")), None).await.status(), 200);
    for _ in 0..3 {
        assert_eq!(open_page(&sim, &for_viewer(None), None).await.status(), 200);
    }
    // After the denial (and the session) ended, u1 views again.
    tokio::time::sleep(std::time::Duration::from_millis(2_500)).await;
    let again = open_page(&sim, &for_viewer(Some("u1")), None).await;
    assert_eq!(again.status(), 200);

    // Without max_simultaneous_viewers there is no limit.
    let (open_id, open_key) = signed_page(vms, None, json!({})).await;
    let open_url = format!("https://{PORTAL_DOMAIN}/pages/{open_id}");
    for _ in 0..6 {
        let url = signed(
            &open_url,
            &open_key,
            &Grant {
                expires: None,
                audience: Some("u1".into()),
            },
        );
        assert_eq!(open_page(&sim, &url, None).await.status(), 200);
    }
}

/// Sends `body` as raw JSON to the operation `id` (path parameters in order).
async fn send_raw(sim: &Simulator, id: &str, parameters: &[&str], body: Value) -> u16 {
    answer_raw(sim, id, parameters, body).await.0
}

/// Like [`send_raw`]: the status and the JSON body (`null` when there is none).
async fn answer_raw(sim: &Simulator, id: &str, parameters: &[&str], body: Value) -> (u16, Value) {
    let meta = vidplat::vms::operations::ALL
        .iter()
        .find(|meta| meta.id == id)
        .expect("an operation");
    let mut path = meta.path.to_owned();
    for parameter in parameters {
        let open = path.find('{').expect("a path parameter");
        let close = open + path[open..].find('}').expect("its end");
        path.replace_range(open..=close, parameter);
    }
    let answer = crate::raw_http()
        .request(meta.method.to_reqwest(), format!("{}{path}", sim.vms_url))
        .bearer_auth(&sim.api_key)
        .json(&body)
        .send()
        .await
        .expect("an answer");
    let status = answer.status().as_u16();
    (status, answer.json().await.unwrap_or(Value::Null))
}

/// The documented error body.
fn error_body(code: &str, message: &str) -> Value {
    json!({"code": code, "message": message})
}

/// A member the request's schema does not have is refused, naming its whole
/// path, before anything changes: `signature_required`, which only
/// registration takes, is never silently not applied to a page.
#[tokio::test]
async fn a_member_the_body_does_not_have_is_refused_by_its_path_and_changes_nothing() {
    let (sim, client, movies, _) = start_with_content().await;
    let vms = client.vms().unwrap();
    let (id, _) = signed_page(vms, None, json!({})).await;
    let page_id = Uuid::parse_str(&id).unwrap();
    let before = vms.get_viewing_page().page_id(page_id).call().await.unwrap();
    let (status, body) = answer_raw(
        &sim,
        "update_viewing_page",
        &[&id],
        json!({"status": "LIMITED", "signature_required": false}),
    )
    .await;
    assert_eq!(
        (status, body),
        (
            400,
            error_body(
                "INVALID_REQUEST",
                "`signature_required` is not a member of this request's body (the documents show no such member here)"
            )
        )
    );
    let after = vms.get_viewing_page().page_id(page_id).call().await.unwrap();
    assert_eq!(after.status, before.status, "a refused request changes nothing");

    // Nested members are named by their whole path.
    let tagged = json!({"tags": [{"key": "k", "value": "v", "colour": "red"}]});
    let (status, body) = answer_raw(&sim, "update_content", &["c"], tagged).await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(
        body["message"],
        "`tags[0].colour` is not a member of this request's body (the documents show no such member here)"
    );
    // Members the schema has still pass.
    let tagged = json!({"title": "T", "category_id": movies, "tags": [{"key": "k", "value": "v"}]});
    assert_eq!(send_raw(&sim, "update_content", &["c"], tagged).await, 204);
}

/// `[]` sent in an update clears the list; a list left out stays (under `Updates::Keep`).
#[tokio::test]
async fn an_empty_list_in_an_update_clears_the_list() {
    let (sim, client, _, _) = start_with_content_in(SimConfig {
        updates: Updates::Keep,
        ..SimConfig::fast()
    })
    .await;
    let vms = client.vms().unwrap();
    let (id, key) = signed_page(vms, None, json!({"revoked_audiences": ["banned", "gone"]})).await;
    let page_id = Uuid::parse_str(&id).unwrap();
    assert_eq!(
        send_raw(&sim, "update_viewing_page", &[&id], json!({"status": "PUBLIC"})).await,
        204
    );
    let page = vms.get_viewing_page().page_id(page_id).call().await.unwrap();
    assert_eq!(page.revoked_audiences, ["banned", "gone"], "left out: kept");
    assert_eq!(
        send_raw(&sim, "update_viewing_page", &[&id], json!({"revoked_audiences": []})).await,
        204
    );
    let page = vms.get_viewing_page().page_id(page_id).call().await.unwrap();
    assert!(page.revoked_audiences.is_empty(), "{:?}", page.revoked_audiences);
    let url = signed(
        &format!("https://{PORTAL_DOMAIN}/pages/{id}"),
        &key,
        &Grant {
            expires: None,
            audience: Some("banned".into()),
        },
    );
    assert_eq!(open_page(&sim, &url, None).await.status(), 200, "no longer revoked");

    let tagged = json!({"tags": [{"key": "k", "value": "v"}], "chapters": [{"start_time": 0, "title": "Start"}]});
    assert_eq!(send_raw(&sim, "update_content", &["c"], tagged).await, 204);
    let content = vms.get_content().content_name("c").call().await.unwrap();
    assert_eq!((content.tags.len(), content.chapters.len()), (1, 1));
    assert_eq!(
        send_raw(&sim, "update_content", &["c"], json!({"title": "Renamed"})).await,
        204
    );
    let content = vms.get_content().content_name("c").call().await.unwrap();
    assert_eq!((content.tags.len(), content.chapters.len()), (1, 1), "left out: kept");
    let cleared = json!({"tags": [], "chapters": []});
    assert_eq!(send_raw(&sim, "update_content", &["c"], cleared).await, 204);
    let content = vms.get_content().content_name("c").call().await.unwrap();
    assert_eq!((content.tags.len(), content.chapters.len()), (0, 0));
}

/// Timestamps of all three services are in one zone: Japan time unless
/// `SimConfig::time_zone` says otherwise.
#[tokio::test]
async fn the_three_services_write_timestamps_in_one_configurable_zone() {
    use chrono::{NaiveDateTime, Utc};
    async fn stamps(config: SimConfig) -> [NaiveDateTime; 3] {
        let sim = Simulator::start_with(SimConfig {
            analytics_per_minute: 100,
            ..config
        })
        .await
        .expect("simulator");
        let client = sim.client().build().expect("client");
        let label = client
            .vms()
            .unwrap()
            .register_label()
            .body(from::<types::LabelCreate>(json!({"name": "l"})))
            .call()
            .await
            .unwrap();
        let vms = client
            .vms()
            .unwrap()
            .get_label()
            .label_id(uuid(&label.id))
            .call()
            .await
            .unwrap()
            .created_at
            .unwrap();
        let encoder = client
            .encoder()
            .unwrap()
            .get_notification_settings()
            .call()
            .await
            .unwrap()
            .updated_at
            .unwrap();
        let realtime = client
            .analytics()
            .unwrap()
            .cloud_realtime_user_counts()
            .call()
            .await
            .unwrap();
        let analytics = realtime.data[0].date_time.clone().unwrap();
        let parse = |text: String| NaiveDateTime::parse_from_str(&text, "%Y-%m-%d %H:%M:%S").expect(&text);
        [parse(vms.to_string()), parse(encoder.to_string()), parse(analytics)]
    }
    let near = |stamps: [NaiveDateTime; 3], offset_hours: i64| {
        let expected = Utc::now().naive_utc() + chrono::Duration::hours(offset_hours);
        for stamp in stamps {
            let gap = (expected - stamp).num_seconds().abs();
            assert!(gap < 180, "{stamp} is not near {expected} (UTC{offset_hours:+})");
        }
    };
    near(stamps(SimConfig::fast()).await, 9);
    let utc = chrono::FixedOffset::east_opt(0).unwrap();
    near(
        stamps(SimConfig {
            time_zone: utc,
            ..SimConfig::fast()
        })
        .await,
        0,
    );
}

/// An update's `null` clears what the documents mark nullable, `[]` empties a
/// list, and under `Updates::Keep` a member left out keeps its value (the
/// builders' `clear_` setters and lists, through the facade).
#[tokio::test]
async fn updates_clear_nullable_members_and_empty_lists() {
    let (_sim, client, _movies, registration) = start_with_content_in(SimConfig {
        updates: Updates::Keep,
        ..SimConfig::fast()
    })
    .await;
    let vms = client.vms().unwrap();
    let document = uuid(&registration.documents[0].id);
    vms.update_content()
        .content_name("c")
        .body(
            types::ContentUpdate::builder()
                .status(ContentStatus::Limited)
                .publish_end("2030-12-31 23:59:59")
                .description("Kept")
                .presentation_document_id(document)
                .tags([from::<types::Tag>(json!({"key": "k", "value": "v"}))])
                .chapters([from::<types::ChapterUpdate>(json!({"start_time": 0, "title": "Start"}))]),
        )
        .call()
        .await
        .unwrap();
    let before = vms.get_content().content_name("c").call().await.unwrap();
    assert!(before.primary_poster_id.is_some() && before.publish_end.is_some());
    assert_eq!((before.tags.len(), before.chapters.len()), (1, 1));

    vms.update_content()
        .content_name("c")
        .body(
            types::ContentUpdate::builder()
                .clear_primary_poster_id()
                .clear_publish_end()
                .clear_presentation_document_id()
                .tags(Vec::<types::Tag>::new())
                .chapters(Vec::<types::ChapterUpdate>::new()),
        )
        .call()
        .await
        .unwrap();
    let after = vms.get_content().content_name("c").call().await.unwrap();
    assert_eq!(after.primary_poster_id, None);
    assert_eq!(after.publish_end, None);
    assert_eq!(after.presentation_document_id, None);
    assert_eq!((after.tags.len(), after.chapters.len()), (0, 0));
    assert_eq!(after.description.as_deref(), Some("Kept"), "a member left out is kept");
    assert_eq!(after.status, Some(ContentStatus::Limited));

    let (page_id, _) = signed_page(
        vms,
        Some(&sites_dedicated(vms).await),
        json!({"max_simultaneous_viewers": 3}),
    )
    .await;
    vms.update_viewing_page()
        .page_id(&page_id)
        .body(from::<types::ViewingPageUpdate>(
            json!({"access_denial_timeout": 60, "revoked_audiences": ["u1"]}),
        ))
        .call()
        .await
        .unwrap();
    vms.update_viewing_page()
        .page_id(&page_id)
        .body(
            types::ViewingPageUpdate::builder()
                .clear_site_id()
                .clear_max_simultaneous_viewers()
                .revoked_audiences(Vec::<String>::new()),
        )
        .call()
        .await
        .unwrap();
    let page = vms.get_viewing_page().page_id(&page_id).call().await.unwrap();
    assert_eq!(page.site_id, None);
    assert_eq!(page.max_simultaneous_viewers, None, "unlimited viewers again");
    assert!(page.revoked_audiences.is_empty());
    assert_eq!(page.access_denial_timeout, Some(60), "a member left out is kept");
}

/// `modify_*` reads, changes what the closure says and writes back everything
/// else as it was read: nothing but the changed member (and the time of the
/// change) differs afterwards, chapters and overrides included.
#[tokio::test]
async fn modify_changes_one_member_and_keeps_everything_else() {
    let (_sim, client, _movies, _registration) = start_with_content().await;
    let vms = client.vms().unwrap();
    let tagged = json!({
        "description": "Described",
        "tags": [{"key": "k", "value": "v"}],
        "chapters": [{"start_time": 0, "title": "Start"}]
    });
    change_content(vms, "c", tagged).await.unwrap();
    let before = vms.get_content().content_name("c").call().await.unwrap();
    vms.modify_content("c", |update| update.title("Renamed")).await.unwrap();
    let after = vms.get_content().content_name("c").call().await.unwrap();
    assert_eq!(after.title.as_deref(), Some("Renamed"));
    let comparable = |content: &types::Content| {
        let mut value = serde_json::to_value(content).unwrap();
        for changed in ["title", "updated_at"] {
            value.as_object_mut().unwrap().remove(changed);
        }
        value
    };
    assert_eq!(comparable(&after), comparable(&before));
    assert_eq!((after.tags.len(), after.chapters.len()), (1, 1));

    let (page_id, _) = signed_page(
        vms,
        Some(&sites_dedicated(vms).await),
        json!({"max_simultaneous_viewers": 3}),
    )
    .await;
    vms.modify_viewing_page(&page_id, |update| update.clear_max_simultaneous_viewers())
        .await
        .unwrap();
    let page = vms.get_viewing_page().page_id(&page_id).call().await.unwrap();
    assert_eq!(page.max_simultaneous_viewers, None);
    assert!(page.site_id.is_some(), "the site read is written back");
}

/// By default (`Updates::Reset`) an update stands for a registration, one
/// reading of "The update body lists the same defaults as registration": a
/// member left out goes back to what registration stores without it, and an
/// update leaving out a member registration requires is refused, each such
/// member named. Sent over HTTP, as a client in any language would.
#[tokio::test]
async fn an_update_resets_what_it_leaves_out_and_needs_what_registration_needs() {
    let (sim, client, movies, registration) = start_with_content().await;
    let vms = client.vms().unwrap();
    let own_policy = |ids: Vec<(Option<String>, Option<bool>)>| {
        let find = |default: bool| {
            ids.iter()
                .find(|(_, d)| *d == Some(default))
                .unwrap()
                .0
                .clone()
                .unwrap()
        };
        (find(false), find(true))
    };
    let forward = vms.list_forward_policies().call().await.unwrap().data;
    let (own_forward, default_forward) = own_policy(forward.into_iter().map(|p| (p.id, p.is_default)).collect());
    let streaming = vms.list_streaming_policies().call().await.unwrap().data;
    let (own_streaming, default_streaming) = own_policy(streaming.into_iter().map(|p| (p.id, p.is_default)).collect());
    let own = json!({
        "status": "LIMITED", "publish_end": "2030-12-31 23:59:59", "encode_status": "COMPLETED",
        "poster_slideshow_interval": 2500, "forward_policy_id": own_forward,
        "streaming_policy_id": own_streaming, "tags": [{"key": "k", "value": "v"}]
    });
    change_content(vms, "c", own).await.unwrap();

    let renamed = json!({"title": "Renamed"});
    assert_eq!(
        answer_raw(&sim, "update_content", &["c"], renamed).await,
        (400, error_body("INVALID_REQUEST", "`category_id` is required"))
    );
    let still = vms.get_content().content_name("c").call().await.unwrap();
    assert_eq!(
        still.status,
        Some(ContentStatus::Limited),
        "a refused update changes nothing"
    );

    let renamed = json!({"title": "Renamed", "category_id": movies});
    assert_eq!(send_raw(&sim, "update_content", &["c"], renamed).await, 204);
    let reset = vms.get_content().content_name("c").call().await.unwrap();
    assert_eq!(reset.title.as_deref(), Some("Renamed"));
    assert_eq!(reset.status, Some(ContentStatus::Public), "status: default PUBLIC");
    assert_eq!(reset.publish_end, None);
    assert_eq!(
        reset.encode_status,
        Some(types::EncodeStatus::None),
        "encode_status: default NONE"
    );
    assert_eq!(reset.poster_slideshow_interval, Some(1000), "default 1000");
    assert_eq!(
        (reset.forward_policy_id, reset.streaming_policy_id),
        (Some(default_forward), Some(default_streaming)),
        "when omitted the account default policy applies"
    );
    assert_eq!(
        (reset.description, reset.primary_poster_id),
        (None, None),
        "nullable: null"
    );
    assert_eq!(
        (reset.duration, reset.tags.len()),
        (Some(0), 0),
        "as registration stores them unsent"
    );

    // A stream needs `path` and `format`; what it leaves out is reset too.
    let stream = registration.streams[0].id.clone().unwrap();
    assert_eq!(
        answer_raw(&sim, "update_stream", &["c", &stream], json!({"width": 1280})).await,
        (400, error_body("INVALID_REQUEST", "`format` and `path` are required"))
    );
    let whole = json!({"path": "/m/hls/1080/index.m3u8", "format": "HLS", "width": 1920});
    assert_eq!(send_raw(&sim, "update_stream", &["c", &stream], whole).await, 204);
    let read = vms
        .get_stream()
        .content_name("c")
        .stream_id(Uuid::parse_str(&stream).unwrap())
        .call()
        .await
        .unwrap();
    assert_eq!(
        (read.width, read.filesize),
        (Some(1920), None),
        "filesize left out: unset"
    );

    // A subtitle's language goes back to `ja`; a stream set needs its streams
    // and its subtitles left out are none.
    let subtitle = registration.subtitles[1].id.clone().unwrap();
    let relabelled = json!({"label": "Anglais", "url": "https://files.example/en.vtt"});
    assert_eq!(
        send_raw(&sim, "update_subtitle", &["c", &subtitle], relabelled).await,
        204
    );
    let read = vms
        .get_subtitle()
        .content_name("c")
        .subtitle_id(Uuid::parse_str(&subtitle).unwrap())
        .call()
        .await
        .unwrap();
    assert_eq!(
        (read.label.as_deref(), read.language.as_deref()),
        (Some("Anglais"), Some("ja"))
    );
    assert_eq!(
        answer_raw(&sim, "update_stream_set", &["c", "hls"], json!({"subtitles": []})).await,
        (400, error_body("INVALID_REQUEST", "`streams` is required"))
    );
    let hls = vms
        .get_stream_set()
        .content_name("c")
        .set_name("hls")
        .call()
        .await
        .unwrap();
    let streams_only = json!({ "streams": hls.streams });
    assert_eq!(
        send_raw(&sim, "update_stream_set", &["c", "hls"], streams_only).await,
        204
    );
    let hls = vms
        .get_stream_set()
        .content_name("c")
        .set_name("hls")
        .call()
        .await
        .unwrap();
    assert!(hls.subtitles.is_empty(), "{:?}", hls.subtitles);
}

/// `Updates::Keep`, the other reading: what an update leaves out stays.
#[tokio::test]
async fn under_the_keeping_reading_an_update_changes_only_what_it_sends() {
    let keep = SimConfig {
        updates: Updates::Keep,
        ..SimConfig::fast()
    };
    let (sim, client, _, _) = start_with_content_in(keep).await;
    let vms = client.vms().unwrap();
    change_content(
        vms,
        "c",
        json!({"status": "LIMITED", "publish_end": "2030-12-31 23:59:59"}),
    )
    .await
    .unwrap();
    assert_eq!(
        send_raw(&sim, "update_content", &["c"], json!({"title": "Renamed"})).await,
        204
    );
    let kept = vms.get_content().content_name("c").call().await.unwrap();
    assert_eq!(
        (kept.title.as_deref(), kept.status),
        (Some("Renamed"), Some(ContentStatus::Limited))
    );
    assert_eq!(kept.description.as_deref(), Some("A cat video"));
}

/// A viewing page needs `site_id` or `configurations` (the document), after
/// an update as at registration: an update taking away the only one is refused.
#[tokio::test]
async fn an_update_cannot_leave_a_page_without_site_or_configurations() {
    let (sim, client, _, _) = start_with_content().await;
    let vms = client.vms().unwrap();
    let site = sites_dedicated(vms).await;
    let (status, registered) = answer_raw(
        &sim,
        "register_viewing_page",
        &[],
        json!({"content_name": "c", "site_id": site}),
    )
    .await;
    assert_eq!(status, 200, "{registered}");
    let id = registered["id"].as_str().expect("an id").to_owned();
    assert_eq!(
        answer_raw(&sim, "update_viewing_page", &[&id], json!({"site_id": null})).await,
        (
            400,
            error_body(
                "INVALID_REQUEST",
                "a viewing page needs site_id or configurations (this update would leave it neither)"
            )
        )
    );
    let page = vms
        .get_viewing_page()
        .page_id(Uuid::parse_str(&id).unwrap())
        .call()
        .await
        .unwrap();
    assert_eq!(page.site_id, Some(site), "a refused update changes nothing");
    let titled = json!({"site_id": null, "configurations": {"title": "Own"}});
    assert_eq!(send_raw(&sim, "update_viewing_page", &[&id], titled).await, 204);
}

/// `null` is a value only for the members the YAML marks nullable in the
/// request: on a member nullable only in reads (`video_codec`, a poster's
/// `timestamp`) or not at all (`title`) it is refused, every one named, and
/// nothing changes (a body's type would read it as a member left out).
#[tokio::test]
async fn null_is_refused_where_the_request_does_not_allow_it() {
    let (sim, client, movies, registration) = start_with_content().await;
    let vms = client.vms().unwrap();
    let stream = registration.streams[0].id.clone().unwrap();
    let nulls = json!({"path": "/m/hls/1080/index.m3u8", "format": "HLS", "video_codec": null, "width": null});
    assert_eq!(
        answer_raw(&sim, "update_stream", &["c", &stream], nulls).await,
        (
            400,
            error_body("INVALID_REQUEST", "`video_codec` and `width` must not be null")
        )
    );
    let poster = registration.posters[0].id.clone().unwrap();
    assert_eq!(
        answer_raw(&sim, "update_poster", &["c", &poster], json!({"timestamp": null})).await,
        (400, error_body("INVALID_REQUEST", "`timestamp` must not be null"))
    );
    let untitled = json!({"title": null, "category_id": movies});
    assert_eq!(
        answer_raw(&sim, "update_content", &["c"], untitled).await,
        (400, error_body("INVALID_REQUEST", "`title` must not be null"))
    );
    assert_eq!(
        vms.get_content()
            .content_name("c")
            .call()
            .await
            .unwrap()
            .title
            .as_deref(),
        Some("Title of c")
    );
    // Where the YAML allows it, `null` clears.
    let cleared = json!({"title": "T", "category_id": movies, "description": null});
    assert_eq!(send_raw(&sim, "update_content", &["c"], cleared).await, 204);
}

/// "403 ... for viewing a content that is not published": a page of a
/// content outside its publication answers 403, as play does, and opens again
/// once the content is published.
#[tokio::test]
async fn the_page_of_an_unpublished_content_answers_403() {
    let (sim, client, _, _) = start_with_content().await;
    let vms = client.vms().unwrap();
    let (id, key) = signed_page(vms, None, json!({})).await;
    let url = signed(
        &format!("https://{PORTAL_DOMAIN}/pages/{id}"),
        &key,
        &Grant {
            expires: None,
            audience: None,
        },
    );
    assert_eq!(open_page(&sim, &url, None).await.status(), 200);
    let later = json!({"status": "LIMITED", "publish_start": "2099-01-01 00:00:00"});
    change_content(vms, "c", later).await.unwrap();
    let refused = open_page(&sim, &url, None).await;
    assert_eq!(refused.status(), 403);
    assert!(refused
        .text()
        .await
        .unwrap()
        .contains("the page&#39;s content is not published"));
    change_content(vms, "c", json!({"status": "PUBLIC", "publish_start": null}))
        .await
        .unwrap();
    assert_eq!(open_page(&sim, &url, None).await.status(), 200);
}
