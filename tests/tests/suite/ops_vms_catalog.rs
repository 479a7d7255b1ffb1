//! Video-management operations on the wire (categories, labels, playlists,
//! viewing pages, sites, policies): the exact request, and the documented
//! response decoded into typed values.

#[allow(unused_imports)]
use crate::harness::{Expect, Wire};
use serde_json::json;
use vidplat::vms::types::{
    CategoryCreate, CategoryName, CategoryUpdate, ContentStatus, ContentType, ForwardType, LabelCreate, LabelName,
    LabelUpdate, PageAuthentication, PageConfigurations, PageExposedMetadata, PageFooter, PageStatus,
    PolicyConditionOperand, PolicyConditionParameter, PropagationStatus, RevokedAudienceAdd, StreamSelectionKey,
    ViewingPageCreate, ViewingPageType, ViewingPageUpdate,
};
use vidplat::Timestamp;

const CATEGORY_ID: &str = "3f2c9a7e-5b1d-4c8e-9a6f-0d2e4b7c1a95";
const LABEL_ID: &str = "c4e8f1a2-7b3d-4e9f-8a1c-2d5b6e7f8a90";
const PAGE_ID: &str = "5d7e9f1a-2b3c-4d5e-8f6a-7b8c9d0e1f23";
const SITE_ID: &str = "9b8a7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d";
const FORWARD_POLICY_ID: &str = "e1d2c3b4-a596-4877-8899-aabbccddeeff";
const STREAMING_POLICY_ID: &str = "0f1e2d3c-4b5a-4697-8877-665544332211";

// ---------------------------------------------------------------- categories

#[tokio::test]
async fn list_categories() {
    let wire = Wire::ok(json!({
        "data": [
            {
                "id": "8a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
                "name": "movies",
                "statistics": [
                    {"date": "2025-05-01", "content_count": 42, "total_duration": 151200, "total_filesize": 96636764160_i64},
                    {"date": "2025-06-01", "content_count": 45, "total_duration": 162000, "total_filesize": 103079215104_i64}
                ],
                "created_at": "2024-04-01 09:00:00",
                "updated_at": "2025-06-01 00:00:00"
            },
            {
                "id": CATEGORY_ID,
                "name": "movies/drama",
                "statistics": [
                    {"date": "2025-05-01", "content_count": 12, "total_duration": 64800, "total_filesize": 25769803776_i64},
                    {"date": "2025-06-01", "content_count": 13, "total_duration": 70200, "total_filesize": 27917287424_i64}
                ],
                "created_at": "2024-04-01 09:05:12",
                "updated_at": "2025-06-01 00:00:00"
            }
        ]
    }))
    .await;
    let list = wire
        .vms()
        .list_categories()
        .statistics("monthly:2")
        .send()
        .await
        .unwrap()
        .into_inner();
    // The colon of `monthly:2` is form-encoded in the query.
    wire.verify(Expect::get("/v1/categories?statistics=monthly%3A2")).await;
    assert_eq!(list.data.len(), 2);
    let drama = &list.data[1];
    assert_eq!(drama.id.as_deref(), Some(CATEGORY_ID));
    assert_eq!(drama.name.as_deref(), Some("movies/drama"));
    let statistics = drama.statistics.as_ref().expect("statistics requested");
    assert_eq!(statistics.len(), 2);
    assert_eq!(statistics[1].date.as_deref(), Some("2025-06-01"));
    assert_eq!(statistics[1].content_count, Some(13));
    assert_eq!(statistics[1].total_duration, Some(70200));
    assert_eq!(statistics[1].total_filesize, Some(27917287424));
    assert_eq!(list.data[0].statistics.as_ref().map(Vec::len), Some(2));
    assert_eq!(
        list.data[0].statistics.as_ref().unwrap()[0].total_filesize,
        Some(96636764160)
    );
    assert_eq!(text(&list.data[0].created_at).as_deref(), Some("2024-04-01 09:00:00"));
    assert_eq!(text(&drama.updated_at).as_deref(), Some("2025-06-01 00:00:00"));
}

#[tokio::test]
async fn register_category() {
    let wire = Wire::ok(json!({
        "id": "b7c1d2e3-f4a5-4b6c-9d7e-8f9a0b1c2d3e",
        "parents": [
            {"id": "6e5d4c3b-2a19-4f08-8e7d-6c5b4a392817", "name": "lectures"},
            {"id": "1a2b3c4d-5e6f-4708-9a1b-2c3d4e5f6a7b", "name": "lectures/2025"}
        ]
    }))
    .await;
    let registered = wire
        .vms()
        .register_category()
        .create_parents(true)
        .body(CategoryCreate::builder().name("lectures/2025/spring"))
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(Expect::post("/v1/categories?create_parents=true").json(json!({
        "name": "lectures/2025/spring"
    })))
    .await;
    assert_eq!(registered.id.as_deref(), Some("b7c1d2e3-f4a5-4b6c-9d7e-8f9a0b1c2d3e"));
    let parents = registered.parents.expect("parents created");
    assert_eq!(parents.len(), 2);
    assert_eq!(parents[0].id.as_deref(), Some("6e5d4c3b-2a19-4f08-8e7d-6c5b4a392817"));
    assert_eq!(parents[0].name.as_deref(), Some("lectures"));
    assert_eq!(parents[1].name.as_deref(), Some("lectures/2025"));
}

#[tokio::test]
async fn get_category() {
    let wire = Wire::ok(json!({
        "id": CATEGORY_ID,
        "name": "movies/drama",
        "statistics": [
            {"date": "2025-06-05", "content_count": 13, "total_duration": 70200, "total_filesize": 27917287424_i64},
            {"date": "2025-06-06", "content_count": 13, "total_duration": 70200, "total_filesize": 27917287424_i64},
            {"date": "2025-06-07", "content_count": 14, "total_duration": 75600, "total_filesize": 30064771072_i64}
        ],
        "created_at": "2024-04-01 09:05:12",
        "updated_at": "2025-06-07 18:20:45"
    }))
    .await;
    let category = wire
        .vms()
        .get_category()
        .category_id(CATEGORY_ID)
        .statistics("daily:3")
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(Expect::get(
        "/v1/categories/3f2c9a7e-5b1d-4c8e-9a6f-0d2e4b7c1a95?statistics=daily%3A3",
    ))
    .await;
    assert_eq!(category.id.as_deref(), Some(CATEGORY_ID));
    assert_eq!(category.name.as_deref(), Some("movies/drama"));
    let statistics = category.statistics.expect("statistics requested");
    assert_eq!(statistics.len(), 3);
    assert_eq!(statistics[2].date.as_deref(), Some("2025-06-07"));
    assert_eq!(statistics[2].content_count, Some(14));
    assert_eq!(statistics[2].total_duration, Some(75600));
    assert_eq!(statistics[2].total_filesize, Some(30064771072));
    assert_eq!(text(&category.created_at).as_deref(), Some("2024-04-01 09:05:12"));
    assert_eq!(text(&category.updated_at).as_deref(), Some("2025-06-07 18:20:45"));
}

#[tokio::test]
async fn update_category() {
    let wire = Wire::no_content().await;
    let response = wire
        .vms()
        .update_category()
        .category_id(CATEGORY_ID)
        .rename_children(true)
        .body(CategoryUpdate::builder().name(CategoryName::try_from("movies/drama-series").unwrap()))
        .send()
        .await
        .unwrap();
    wire.verify(
        Expect::patch("/v1/categories/3f2c9a7e-5b1d-4c8e-9a6f-0d2e4b7c1a95?rename_children=true").json(json!({
            "name": "movies/drama-series"
        })),
    )
    .await;
    assert_eq!(response.status().as_u16(), 204);
}

#[tokio::test]
async fn delete_category() {
    let wire = Wire::no_content().await;
    let response = wire
        .vms()
        .delete_category()
        .category_id(CATEGORY_ID)
        .send()
        .await
        .unwrap();
    wire.verify(Expect::delete("/v1/categories/3f2c9a7e-5b1d-4c8e-9a6f-0d2e4b7c1a95"))
        .await;
    assert_eq!(response.status().as_u16(), 204);
}

// -------------------------------------------------------------------- labels

#[tokio::test]
async fn list_labels() {
    let wire = Wire::ok(json!({
        "data": [
            {
                "id": LABEL_ID,
                "name": "featured",
                "created_at": "2024-11-20 10:15:00",
                "updated_at": "2024-11-20 10:15:00"
            },
            {
                "id": "2b4d6f80-1a3c-4e5f-9b7d-0c2e4f6a8b1d",
                "name": "ドラマ特集",
                "created_at": "2025-01-08 14:02:33",
                "updated_at": "2025-03-12 08:45:10"
            },
            {
                "id": "7f6e5d4c-3b2a-4190-8f7e-6d5c4b3a2918",
                "name": "members-only",
                "created_at": "2025-02-01 00:00:00",
                "updated_at": "2025-02-01 00:00:00"
            }
        ]
    }))
    .await;
    let list = wire.vms().list_labels().send().await.unwrap().into_inner();
    wire.verify(Expect::get("/v1/labels")).await;
    assert_eq!(list.data.len(), 3);
    assert_eq!(list.data[0].id.as_deref(), Some(LABEL_ID));
    assert_eq!(list.data[0].name.as_deref(), Some("featured"));
    assert_eq!(list.data[1].name.as_deref(), Some("ドラマ特集"));
    assert_eq!(text(&list.data[1].created_at).as_deref(), Some("2025-01-08 14:02:33"));
    assert_eq!(text(&list.data[1].updated_at).as_deref(), Some("2025-03-12 08:45:10"));
    assert_eq!(list.data[2].name.as_deref(), Some("members-only"));
}

#[tokio::test]
async fn register_label() {
    let wire = Wire::ok(json!({"id": LABEL_ID})).await;
    let registered = wire
        .vms()
        .register_label()
        .body(LabelCreate::builder().name("夏の特集 2025"))
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(Expect::post("/v1/labels").json(json!({"name": "夏の特集 2025"})))
        .await;
    assert_eq!(registered.id.as_deref(), Some(LABEL_ID));
}

#[tokio::test]
async fn get_label() {
    let wire = Wire::ok(json!({
        "id": LABEL_ID,
        "name": "featured",
        "created_at": "2024-11-20 10:15:00",
        "updated_at": "2025-04-02 16:30:59"
    }))
    .await;
    let label = wire
        .vms()
        .get_label()
        .label_id(LABEL_ID)
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(Expect::get("/v1/labels/c4e8f1a2-7b3d-4e9f-8a1c-2d5b6e7f8a90"))
        .await;
    assert_eq!(label.id.as_deref(), Some(LABEL_ID));
    assert_eq!(label.name.as_deref(), Some("featured"));
    assert_eq!(text(&label.created_at).as_deref(), Some("2024-11-20 10:15:00"));
    assert_eq!(text(&label.updated_at).as_deref(), Some("2025-04-02 16:30:59"));
}

#[tokio::test]
async fn update_label() {
    let wire = Wire::no_content().await;
    let response = wire
        .vms()
        .update_label()
        .label_id(LABEL_ID)
        .body(LabelUpdate::builder().name(LabelName::try_from("editor's pick").unwrap()))
        .send()
        .await
        .unwrap();
    wire.verify(
        Expect::patch("/v1/labels/c4e8f1a2-7b3d-4e9f-8a1c-2d5b6e7f8a90").json(json!({"name": "editor's pick"})),
    )
    .await;
    assert_eq!(response.status().as_u16(), 204);
}

#[tokio::test]
async fn delete_label() {
    let wire = Wire::no_content().await;
    let response = wire.vms().delete_label().label_id(LABEL_ID).send().await.unwrap();
    wire.verify(Expect::delete("/v1/labels/c4e8f1a2-7b3d-4e9f-8a1c-2d5b6e7f8a90"))
        .await;
    assert_eq!(response.status().as_u16(), 204);
}

// ----------------------------------------------------------------- playlists

#[tokio::test]
async fn get_playlist_items() {
    let wire = Wire::ok(json!({
        "playlist_name": "summer-festival_2025",
        "playlist_title": "Summer Festival 2025",
        "playlist_description": "Highlights of every stage, day by day.",
        "playlist_items": [
            {
                "name": "festival-day1-opening",
                "title": "Day 1: Opening ceremony",
                "description": "The opening ceremony on the main stage.",
                "content_type": "VOD",
                "status": "PUBLIC",
                "duration": 1834,
                "category": "events/festival",
                "labels": ["featured", "ドラマ特集"],
                "tags": [{"key": "stage", "value": "main"}, {"key": "day", "value": "1"}]
            },
            {
                "name": "festival-day2-backstage",
                "title": "Day 2: Backstage",
                "description": null,
                "content_type": "VOD",
                "status": "LIMITED",
                "duration": 905,
                "category": "events/festival",
                "labels": [],
                "tags": []
            }
        ]
    }))
    .await;
    let playlist = wire
        .vms()
        .get_playlist_items()
        .playlist_name("summer-festival_2025")
        .include_private(true)
        .send()
        .await
        .unwrap()
        .into_inner();
    // Playlist names are limited to `^[0-9a-zA-Z-_]+$`, so nothing in the path needs encoding.
    wire.verify(Expect::get(
        "/v1/playlists/summer-festival_2025/items?include_private=true",
    ))
    .await;
    assert_eq!(playlist.playlist_name.as_deref(), Some("summer-festival_2025"));
    assert_eq!(playlist.playlist_title.as_deref(), Some("Summer Festival 2025"));
    assert_eq!(
        playlist.playlist_description.as_deref(),
        Some("Highlights of every stage, day by day.")
    );
    assert_eq!(playlist.playlist_items.len(), 2);
    let first = &playlist.playlist_items[0];
    assert_eq!(first.name.as_deref(), Some("festival-day1-opening"));
    assert_eq!(first.title.as_deref(), Some("Day 1: Opening ceremony"));
    assert_eq!(first.content_type, Some(ContentType::Vod));
    assert_eq!(first.status, Some(ContentStatus::Public));
    assert_eq!(first.duration, Some(1834));
    assert_eq!(first.category.as_deref(), Some("events/festival"));
    assert_eq!(first.labels, vec!["featured", "ドラマ特集"]);
    assert_eq!(first.tags.len(), 2);
    assert_eq!(first.tags[0].key.as_deref(), Some("stage"));
    assert_eq!(first.tags[0].value.as_deref(), Some("main"));
    let second = &playlist.playlist_items[1];
    assert_eq!(second.description, None);
    assert_eq!(second.status, Some(ContentStatus::Limited));
    assert_eq!(second.duration, Some(905));
    assert!(second.labels.is_empty());
}

#[tokio::test]
async fn with_playlist_name_outside_the_documented_pattern() {
    let wire = Wire::ok(json!({})).await;
    let error = wire
        .vms()
        .get_playlist_items()
        .playlist_name("summer festival/動画")
        .send()
        .await
        .unwrap_err();
    // Names match `^[0-9a-zA-Z-_]+$`: a space, a slash or 動画 is refused before anything is sent.
    wire.assert_nothing_sent().await;
    let error = vidplat::Error::from(error);
    assert_eq!(
        vidplat_tests::only_refusal(&error).map(|(field, _)| field),
        Some("playlist_name"),
        "{error:?}"
    );
}

// ------------------------------------------------------------- viewing pages

#[tokio::test]
async fn list_viewing_pages() {
    let wire = Wire::ok(json!({
        "data": [
            {
                "id": PAGE_ID,
                "content_name": "product-demo_01",
                "site_id": SITE_ID,
                "configurations": {
                    "title": "製品デモ 動画 launch",
                    "description": "The launch demo of our new product.",
                    "noindex": true
                },
                "signing_key": null,
                "revoked_audiences": [],
                "status": "PUBLIC",
                "max_simultaneous_viewers": null,
                "access_denial_timeout": null,
                "created_at": "2025-05-20 11:00:00",
                "updated_at": "2025-05-21 09:30:15"
            },
            {
                "id": "a0b1c2d3-e4f5-4a6b-8c7d-8e9f0a1b2c3d",
                "content_name": "product-demo_01",
                "site_id": null,
                "configurations": {"title": "動画 launch (members)", "template": "default"},
                "signing_key": "3f9c2b7e8a1d4c6f9e0b2a7d5c8e1f4a",
                "revoked_audiences": ["user-0042", "user-0117"],
                "status": "PUBLIC",
                "max_simultaneous_viewers": 2,
                "access_denial_timeout": 1800,
                "created_at": "2025-05-22 13:45:00",
                "updated_at": "2025-05-22 13:45:00"
            }
        ],
        "truncated": true,
        "current_page": 2,
        "per_page": 50
    }))
    .await;
    let list = wire
        .vms()
        .list_viewing_pages()
        .page(std::num::NonZeroU64::new(2).unwrap())
        .per_page(std::num::NonZeroU64::new(50).unwrap())
        .sort("updated_at|asc")
        .type_(ViewingPageType::Content)
        .content("product-demo_01")
        .playlist("summer-festival_2025")
        .query("動画 launch")
        .send()
        .await
        .unwrap()
        .into_inner();
    // Query order is the document's (page, per_page, sort, type, content, playlist, query); values are
    // form-encoded: `|` as %7C, the space as `+`, 動画 as its UTF-8 bytes.
    wire.verify(Expect::get(concat!(
        "/v1/instant-pages?content=product-demo_01&page=2&per_page=50",
        "&playlist=summer-festival_2025&query=%E5%8B%95%E7%94%BB+launch",
        "&sort=updated_at%7Casc&type=content",
    )))
    .await;
    assert_eq!(list.data.len(), 2);
    assert_eq!(list.truncated, Some(true));
    assert_eq!(list.current_page, Some(2));
    assert_eq!(list.per_page, Some(50));
    let open = &list.data[0];
    assert_eq!(open.id.as_deref(), Some(PAGE_ID));
    assert_eq!(open.content_name.as_deref(), Some("product-demo_01"));
    assert_eq!(open.site_id.as_deref(), Some(SITE_ID));
    assert_eq!(open.signing_key, None);
    assert_eq!(open.status, Some(PageStatus::Public));
    assert_eq!(open.max_simultaneous_viewers, None);
    let open_configurations = open.configurations.as_ref().unwrap();
    assert_eq!(open_configurations.title.as_deref(), Some("製品デモ 動画 launch"));
    assert_eq!(open_configurations.noindex, Some(true));
    assert_eq!(text(&open.updated_at).as_deref(), Some("2025-05-21 09:30:15"));
    let signed = &list.data[1];
    assert_eq!(signed.site_id, None);
    assert_eq!(signed.signing_key.as_deref(), Some("3f9c2b7e8a1d4c6f9e0b2a7d5c8e1f4a"));
    assert_eq!(signed.revoked_audiences, vec!["user-0042", "user-0117"]);
    assert_eq!(signed.max_simultaneous_viewers, Some(2));
    assert_eq!(signed.access_denial_timeout, Some(1800));
    assert_eq!(text(&signed.created_at).as_deref(), Some("2025-05-22 13:45:00"));
}

#[tokio::test]
async fn register_viewing_page() {
    let wire = Wire::ok(json!({
        "id": PAGE_ID,
        "signing_key": "8d2f6a1c9b4e7d3a0f5c8b2e6a9d1c4f"
    }))
    .await;
    let configurations = PageConfigurations::builder()
        .title("新製品発表会 2025".to_owned())
        .description("Live recording of the product launch.".to_owned())
        .template("default".to_owned())
        .authentication(
            PageAuthentication::try_from(
                PageAuthentication::builder()
                    .type_("BASIC".to_owned())
                    .username("press".to_owned())
                    .password("s3cret-Launch!".to_owned()),
            )
            .unwrap(),
        )
        .whitelist_cidrs(vec!["203.0.113.0/24".to_owned(), "198.51.100.17/32".to_owned()])
        .whitelist_referers(vec!["https://www.example.co.jp/".to_owned()])
        .exposed_metadata(
            PageExposedMetadata::try_from(
                PageExposedMetadata::builder()
                    .category(true)
                    .labels(true)
                    .documents(false)
                    .playback_count(true)
                    .created_at(false)
                    .tag_keys(vec!["speaker".to_owned(), "venue".to_owned()]),
            )
            .unwrap(),
        )
        .player_id("4c1e7a9b-2d3f-4e5a-8b6c-7d8e9f0a1b2c".to_owned())
        .footer(PageFooter::try_from(PageFooter::builder().text("© 2025 Example Corp.".to_owned())).unwrap())
        .noindex(true)
        .social_buttons(vec!["x".to_owned(), "facebook".to_owned()]);
    let registered = wire
        .vms()
        .register_viewing_page()
        .body(
            ViewingPageCreate::builder()
                .content_name("product-launch_2025")
                .site_id(uuid::Uuid::parse_str(SITE_ID).unwrap())
                .configurations(PageConfigurations::try_from(configurations).unwrap())
                .signature_required(true)
                .revoked_audiences(vec!["user-0042".to_owned(), "partner.a-17".to_owned()])
                .status(PageStatus::Public)
                .max_simultaneous_viewers(3_i64)
                .access_denial_timeout(600_i64),
        )
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(Expect::post("/v1/instant-pages").json(json!({
        "content_name": "product-launch_2025",
        "site_id": "9b8a7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d",
        "configurations": {
            "title": "新製品発表会 2025",
            "description": "Live recording of the product launch.",
            "template": "default",
            "authentication": {"type": "BASIC", "username": "press", "password": "s3cret-Launch!"},
            "whitelist_cidrs": ["203.0.113.0/24", "198.51.100.17/32"],
            "whitelist_referers": ["https://www.example.co.jp/"],
            "exposed_metadata": {
                "category": true,
                "labels": true,
                "documents": false,
                "playback_count": true,
                "created_at": false,
                "tag_keys": ["speaker", "venue"]
            },
            "player_id": "4c1e7a9b-2d3f-4e5a-8b6c-7d8e9f0a1b2c",
            "footer": {"text": "© 2025 Example Corp."},
            "noindex": true,
            "social_buttons": ["x", "facebook"]
        },
        "signature_required": true,
        "revoked_audiences": ["user-0042", "partner.a-17"],
        "status": "PUBLIC",
        "max_simultaneous_viewers": 3,
        "access_denial_timeout": 600
    })))
    .await;
    assert_eq!(registered.id.as_deref(), Some(PAGE_ID));
    assert_eq!(
        registered.signing_key.as_deref(),
        Some("8d2f6a1c9b4e7d3a0f5c8b2e6a9d1c4f")
    );
}

#[tokio::test]
async fn get_viewing_page() {
    let wire = Wire::ok(json!({
        "id": PAGE_ID,
        "content_name": "product-launch_2025",
        "site_id": SITE_ID,
        "configurations": {
            "title": "新製品発表会 2025",
            "description": "Live recording of the product launch.",
            "template": "default",
            "authentication": {"type": "BASIC", "username": "press", "password": "s3cret-Launch!"},
            "whitelist_cidrs": ["203.0.113.0/24"],
            "whitelist_referers": ["https://www.example.co.jp/"],
            "exposed_metadata": {
                "category": true,
                "labels": true,
                "documents": false,
                "playback_count": true,
                "created_at": false,
                "tag_keys": ["speaker", "venue"]
            },
            "player_id": "4c1e7a9b-2d3f-4e5a-8b6c-7d8e9f0a1b2c",
            "player_tag_template": "<div class=\"player\">{{player}}</div>",
            "chat_room_id": "room-launch-2025",
            "chat_tag_template": "<div class=\"chat\">{{chat}}</div>",
            "footer": {"text": "© 2025 Example Corp."},
            "subheader": "Tokyo, 2025-06-10",
            "masthead": {"image_url": "https://cdn.example.co.jp/masthead.png"},
            "noindex": true,
            "custom_styles": "body { background: #000; }",
            "custom_head_elements": "<meta name=\"robots\" content=\"noarchive\">",
            "custom_body_elements_top": "<p>Welcome</p>",
            "custom_body_elements_bottom": "<p>Thank you for watching</p>",
            "custom_error_responses": [{"status": 403, "message": "This page is for invited guests."}],
            "social_buttons": ["x", "facebook"]
        },
        "signing_key": "8d2f6a1c9b4e7d3a0f5c8b2e6a9d1c4f",
        "revoked_audiences": ["user-0042", "partner.a-17"],
        "status": "PUBLIC",
        "max_simultaneous_viewers": 3,
        "access_denial_timeout": 600,
        "created_at": "2025-06-01 10:00:00",
        "updated_at": "2025-06-09 17:42:08"
    }))
    .await;
    let page = wire
        .vms()
        .get_viewing_page()
        .page_id(PAGE_ID)
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(Expect::get("/v1/instant-pages/5d7e9f1a-2b3c-4d5e-8f6a-7b8c9d0e1f23"))
        .await;
    assert_eq!(page.id.as_deref(), Some(PAGE_ID));
    assert_eq!(page.content_name.as_deref(), Some("product-launch_2025"));
    assert_eq!(page.site_id.as_deref(), Some(SITE_ID));
    assert_eq!(page.signing_key.as_deref(), Some("8d2f6a1c9b4e7d3a0f5c8b2e6a9d1c4f"));
    assert_eq!(page.revoked_audiences, vec!["user-0042", "partner.a-17"]);
    assert_eq!(page.status, Some(PageStatus::Public));
    assert_eq!(page.max_simultaneous_viewers, Some(3));
    assert_eq!(page.access_denial_timeout, Some(600));
    assert_eq!(text(&page.created_at).as_deref(), Some("2025-06-01 10:00:00"));
    assert_eq!(text(&page.updated_at).as_deref(), Some("2025-06-09 17:42:08"));
    let configurations = page.configurations.expect("configurations");
    assert_eq!(configurations.title.as_deref(), Some("新製品発表会 2025"));
    assert_eq!(configurations.template.as_deref(), Some("default"));
    let authentication = configurations.authentication.expect("authentication");
    assert_eq!(authentication.type_.as_deref(), Some("BASIC"));
    assert_eq!(authentication.username.as_deref(), Some("press"));
    assert_eq!(configurations.whitelist_cidrs, vec!["203.0.113.0/24"]);
    let exposed = configurations.exposed_metadata.expect("exposed_metadata");
    assert_eq!(exposed.category, Some(true));
    assert_eq!(exposed.documents, Some(false));
    assert_eq!(exposed.tag_keys, vec!["speaker", "venue"]);
    assert_eq!(configurations.chat_room_id.as_deref(), Some("room-launch-2025"));
    assert_eq!(
        configurations.footer.and_then(|f| f.text).as_deref(),
        Some("© 2025 Example Corp.")
    );
    assert_eq!(configurations.subheader, Some(json!("Tokyo, 2025-06-10")));
    assert_eq!(
        configurations.masthead,
        Some(json!({"image_url": "https://cdn.example.co.jp/masthead.png"}))
    );
    assert_eq!(configurations.noindex, Some(true));
    assert_eq!(
        configurations.custom_body_elements_bottom.as_deref(),
        Some("<p>Thank you for watching</p>")
    );
    assert_eq!(configurations.custom_error_responses.len(), 1);
    assert_eq!(
        configurations.custom_error_responses[0].get("status"),
        Some(&json!(403))
    );
    assert_eq!(configurations.social_buttons, vec!["x", "facebook"]);
}

#[tokio::test]
async fn update_viewing_page() {
    let wire = Wire::no_content().await;
    let configurations = PageConfigurations::builder()
        .title("新製品発表会 2025 (アーカイブ)".to_owned())
        .description("Archive of the product launch.".to_owned())
        .whitelist_cidrs(vec!["203.0.113.0/24".to_owned()])
        .custom_styles("h1 { color: #c00; }".to_owned())
        .noindex(false);
    let response = wire
        .vms()
        .update_viewing_page()
        .page_id(PAGE_ID)
        .body(
            ViewingPageUpdate::builder()
                .site_id(uuid::Uuid::parse_str(SITE_ID).unwrap())
                .configurations(PageConfigurations::try_from(configurations).unwrap())
                .revoked_audiences(vec!["user-0042".to_owned(), "user-0199".to_owned()])
                .status(PageStatus::Public)
                .max_simultaneous_viewers(5_i64)
                .access_denial_timeout(7200_i64),
        )
        .send()
        .await
        .unwrap();
    wire.verify(
        Expect::patch("/v1/instant-pages/5d7e9f1a-2b3c-4d5e-8f6a-7b8c9d0e1f23").json(json!({
            "site_id": "9b8a7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d",
            "configurations": {
                "title": "新製品発表会 2025 (アーカイブ)",
                "description": "Archive of the product launch.",
                "whitelist_cidrs": ["203.0.113.0/24"],
                "custom_styles": "h1 { color: #c00; }",
                "noindex": false
            },
            "revoked_audiences": ["user-0042", "user-0199"],
            "status": "PUBLIC",
            "max_simultaneous_viewers": 5,
            "access_denial_timeout": 7200
        })),
    )
    .await;
    assert_eq!(response.status().as_u16(), 204);
}

/// A page back to no site, unlimited viewers and no revoked audience.
#[tokio::test]
async fn with_nulls_update_viewing_page_clears_its_site_and_limits() {
    let wire = Wire::no_content().await;
    wire.vms()
        .update_viewing_page()
        .page_id(PAGE_ID)
        .body(
            ViewingPageUpdate::builder()
                .clear_site_id()
                .clear_max_simultaneous_viewers()
                .clear_access_denial_timeout()
                .revoked_audiences(Vec::<String>::new()),
        )
        .send()
        .await
        .unwrap();
    wire.verify(
        Expect::patch("/v1/instant-pages/5d7e9f1a-2b3c-4d5e-8f6a-7b8c9d0e1f23").json(json!({
            "site_id": null,
            "max_simultaneous_viewers": null,
            "access_denial_timeout": null,
            "revoked_audiences": []
        })),
    )
    .await;
}

#[tokio::test]
async fn delete_viewing_page() {
    let wire = Wire::no_content().await;
    let response = wire.vms().delete_viewing_page().page_id(PAGE_ID).send().await.unwrap();
    wire.verify(Expect::delete("/v1/instant-pages/5d7e9f1a-2b3c-4d5e-8f6a-7b8c9d0e1f23"))
        .await;
    assert_eq!(response.status().as_u16(), 204);
}

#[tokio::test]
async fn add_revoked_audience() {
    let wire = Wire::no_content().await;
    let response = wire
        .vms()
        .add_revoked_audience()
        .page_id(PAGE_ID)
        .body(RevokedAudienceAdd::builder().revoked_audience("partner.a-17_tanaka"))
        .send()
        .await
        .unwrap();
    wire.verify(
        Expect::post("/v1/instant-pages/5d7e9f1a-2b3c-4d5e-8f6a-7b8c9d0e1f23/revoked-audiences")
            .json(json!({"revoked_audience": "partner.a-17_tanaka"})),
    )
    .await;
    assert_eq!(response.status().as_u16(), 204);
}

// --------------------------------------------------------------------- sites

#[tokio::test]
async fn list_sites() {
    let wire = Wire::ok(json!({
        "data": [
            site_json(),
            {
                "id": "4a5b6c7d-8e9f-4a0b-9c1d-2e3f4a5b6c7d",
                "domain_names": ["example-corp.portal.example.net"],
                "propagation_status": "INSYNC",
                "ssl_certificate": null,
                "configurations": {
                    "title": "Example Corp. Videos",
                    "template": "default",
                    "content_scope": {"type": "ALL", "categories": [], "labels": []},
                    "default_contents_per_page": 20,
                    "default_contents_sort": "created_at|desc"
                },
                "status": "PUBLIC",
                "max_simultaneous_viewers": null,
                "access_denial_timeout": null,
                "created_at": "2023-10-02 08:00:00",
                "updated_at": "2023-10-02 08:00:00"
            }
        ]
    }))
    .await;
    let list = wire.vms().list_sites().send().await.unwrap().into_inner();
    wire.verify(Expect::get("/v1/sites")).await;
    assert_eq!(list.data.len(), 2);
    let dedicated = &list.data[0];
    assert_eq!(dedicated.id.as_deref(), Some(SITE_ID));
    assert_eq!(
        dedicated.domain_names,
        vec!["videos.example.co.jp", "www.videos.example.co.jp"]
    );
    assert_eq!(dedicated.propagation_status, Some(PropagationStatus::Insync));
    assert_eq!(
        dedicated
            .ssl_certificate
            .as_ref()
            .and_then(|c| c.common_name.as_deref()),
        Some("videos.example.co.jp")
    );
    let portal = &list.data[1];
    assert_eq!(portal.domain_names, vec!["example-corp.portal.example.net"]);
    assert!(portal.ssl_certificate.is_none());
    assert_eq!(portal.max_simultaneous_viewers, None);
    let portal_configurations = portal.configurations.as_ref().unwrap();
    assert_eq!(portal_configurations.default_contents_per_page, Some(20));
    assert_eq!(
        portal_configurations.default_contents_sort.as_deref(),
        Some("created_at|desc")
    );
    assert_eq!(
        portal_configurations
            .content_scope
            .as_ref()
            .and_then(|s| s.type_.as_deref()),
        Some("ALL")
    );
    assert_eq!(text(&portal.created_at).as_deref(), Some("2023-10-02 08:00:00"));
}

#[tokio::test]
async fn get_site() {
    let wire = Wire::ok(site_json()).await;
    let site = wire
        .vms()
        .get_site()
        .site_id(SITE_ID)
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(Expect::get("/v1/sites/9b8a7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d"))
        .await;
    assert_eq!(site.id.as_deref(), Some(SITE_ID));
    assert_eq!(
        site.domain_names,
        vec!["videos.example.co.jp", "www.videos.example.co.jp"]
    );
    assert_eq!(site.propagation_status, Some(PropagationStatus::Insync));
    assert_eq!(site.status.as_ref().map(|s| s.0.as_str()), Some("PUBLIC"));
    assert_eq!(site.max_simultaneous_viewers, Some(2));
    assert_eq!(site.access_denial_timeout, Some(900));
    assert_eq!(text(&site.created_at).as_deref(), Some("2024-02-14 09:30:00"));
    assert_eq!(text(&site.updated_at).as_deref(), Some("2025-05-30 22:10:41"));
    let certificate = site.ssl_certificate.expect("a dedicated domain has a certificate");
    assert_eq!(certificate.common_name.as_deref(), Some("videos.example.co.jp"));
    assert_eq!(
        certificate.fingerprint_sha1.as_deref(),
        Some("3A:5F:9C:12:7B:E4:08:D1:6A:2C:93:F0:4E:B7:11:8D:C5:69:2F:A0")
    );
    assert_eq!(certificate.serial_number.as_deref(), Some("04:8f:1a:b2:c3:d4:e5:f6"));
    assert_eq!(text(&certificate.not_before).as_deref(), Some("2025-03-01 00:00:00"));
    assert_eq!(text(&certificate.not_after).as_deref(), Some("2026-03-31 23:59:59"));
    assert_eq!(text(&certificate.imported_at).as_deref(), Some("2025-03-02 10:11:12"));
    let configurations = site.configurations.expect("configurations");
    assert_eq!(configurations.title.as_deref(), Some("Example Corp. Video Library"));
    let authentication = configurations.authentication.expect("authentication");
    assert_eq!(authentication.type_.as_deref(), Some("OIDC"));
    assert_eq!(authentication.issuer.as_deref(), Some("https://login.example.co.jp/"));
    assert_eq!(authentication.client_id.as_deref(), Some("video-portal"));
    assert_eq!(authentication.scope.as_deref(), Some("openid profile email"));
    assert_eq!(authentication.hide_update_password, Some(true));
    let exposed = configurations.exposed_metadata.expect("exposed_metadata");
    assert_eq!(exposed.description, Some(true));
    assert_eq!(exposed.related_contents, Some(false));
    assert_eq!(exposed.tag_keys, vec!["speaker"]);
    let scope = configurations.content_scope.expect("content_scope");
    assert_eq!(scope.type_.as_deref(), Some("CATEGORIES"));
    assert_eq!(scope.categories, vec![CATEGORY_ID]);
    assert_eq!(configurations.user_content_scopes.len(), 1);
    let user_scope = &configurations.user_content_scopes[0];
    assert_eq!(user_scope.conditions.len(), 1);
    assert_eq!(user_scope.conditions[0].path.as_deref(), Some("groups"));
    assert_eq!(user_scope.conditions[0].operand.as_deref(), Some("contains"));
    assert_eq!(user_scope.conditions[0].value, Some(json!("staff")));
    assert_eq!(user_scope.labels, vec![LABEL_ID]);
    assert_eq!(configurations.default_contents_per_page, Some(24));
    assert_eq!(configurations.default_contents_sort.as_deref(), Some("created_at|desc"));
    assert_eq!(configurations.social_buttons, vec!["x", "line"]);
}

// ------------------------------------------------------------------ policies

#[tokio::test]
async fn list_forward_policies() {
    let wire = Wire::ok(json!({
        "data": [
            {
                "id": "11223344-5566-4778-8899-aabbccddeeff",
                "name": "Default",
                "description": null,
                "rules": [],
                "is_default": true,
                "created_at": "2023-10-02 08:00:00",
                "updated_at": "2023-10-02 08:00:00"
            },
            forward_policy_json()
        ]
    }))
    .await;
    let list = wire.vms().list_forward_policies().send().await.unwrap().into_inner();
    wire.verify(Expect::get("/v1/content-forward-policies")).await;
    assert_eq!(list.data.len(), 2);
    let default = &list.data[0];
    assert_eq!(default.name.as_deref(), Some("Default"));
    assert_eq!(default.description, None);
    assert!(default.rules.is_empty());
    assert_eq!(default.is_default, Some(true));
    let japan = &list.data[1];
    assert_eq!(japan.id.as_deref(), Some(FORWARD_POLICY_ID));
    assert_eq!(japan.is_default, Some(false));
    assert_eq!(japan.rules.len(), 2);
    assert_eq!(japan.rules[0].forward_type, Some(ForwardType::Video));
    assert_eq!(japan.rules[0].target_content_name.as_deref(), Some("region-notice"));
    assert_eq!(text(&japan.updated_at).as_deref(), Some("2025-04-18 15:27:03"));
}

#[tokio::test]
async fn get_forward_policy() {
    let wire = Wire::ok(forward_policy_json()).await;
    let policy = wire
        .vms()
        .get_forward_policy()
        .policy_id(FORWARD_POLICY_ID)
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(Expect::get(
        "/v1/content-forward-policies/e1d2c3b4-a596-4877-8899-aabbccddeeff",
    ))
    .await;
    assert_eq!(policy.id.as_deref(), Some(FORWARD_POLICY_ID));
    assert_eq!(policy.name.as_deref(), Some("Japan only"));
    assert_eq!(
        policy.description.as_deref(),
        Some("Viewers outside Japan see the region notice.")
    );
    assert_eq!(policy.is_default, Some(false));
    assert_eq!(policy.rules.len(), 2);
    let first = &policy.rules[0];
    assert_eq!(first.conditions.len(), 1);
    assert_eq!(first.conditions[0].parameter, Some(PolicyConditionParameter::Country));
    assert_eq!(first.conditions[0].operand, Some(PolicyConditionOperand::NotEqual));
    assert_eq!(first.conditions[0].value.as_deref(), Some("JP"));
    assert_eq!(first.forward_type, Some(ForwardType::Video));
    assert_eq!(first.target_content_name.as_deref(), Some("region-notice"));
    assert_eq!(first.target_image_url, None);
    let second = &policy.rules[1];
    assert_eq!(second.conditions.len(), 2);
    // Only VIDEO is documented; the image forward's value is not, so it is kept in `Other`.
    assert_eq!(second.conditions[1].value.as_deref(), Some("KR"));
    assert_eq!(second.forward_type, Some(ForwardType::Other("IMAGE".to_owned())));
    assert_eq!(
        second.target_image_url.as_deref(),
        Some("https://cdn.example.co.jp/images/unavailable.png")
    );
    assert_eq!(text(&policy.created_at).as_deref(), Some("2024-09-01 12:00:00"));
    assert_eq!(text(&policy.updated_at).as_deref(), Some("2025-04-18 15:27:03"));
}

#[tokio::test]
async fn list_streaming_policies() {
    let wire = Wire::ok(json!({
        "data": [
            streaming_policy_json(),
            {
                "id": "99887766-5544-4332-8110-ffeeddccbbaa",
                "name": "MP4 only",
                "description": null,
                "rules": [],
                "preferred_language": null,
                "url_lifetime": 300,
                "is_default": false,
                "created_at": "2024-01-15 09:00:00",
                "updated_at": "2024-01-15 09:00:00"
            }
        ]
    }))
    .await;
    let list = wire.vms().list_streaming_policies().send().await.unwrap().into_inner();
    wire.verify(Expect::get("/v1/streaming-policies")).await;
    assert_eq!(list.data.len(), 2);
    let default = &list.data[0];
    assert_eq!(default.id.as_deref(), Some(STREAMING_POLICY_ID));
    assert_eq!(default.is_default, Some(true));
    assert_eq!(default.url_lifetime, Some(3600));
    assert_eq!(default.rules.len(), 1);
    assert_eq!(default.rules[0].then[0].key, Some(StreamSelectionKey::Format));
    let mp4 = &list.data[1];
    assert_eq!(mp4.name.as_deref(), Some("MP4 only"));
    assert_eq!(mp4.preferred_language, None);
    assert_eq!(mp4.url_lifetime, Some(300));
    assert!(mp4.rules.is_empty());
    assert_eq!(text(&mp4.created_at).as_deref(), Some("2024-01-15 09:00:00"));
}

#[tokio::test]
async fn get_streaming_policy() {
    let wire = Wire::ok(streaming_policy_json()).await;
    let policy = wire
        .vms()
        .get_streaming_policy()
        .policy_id(STREAMING_POLICY_ID)
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(Expect::get(
        "/v1/streaming-policies/0f1e2d3c-4b5a-4697-8877-665544332211",
    ))
    .await;
    assert_eq!(policy.id.as_deref(), Some(STREAMING_POLICY_ID));
    assert_eq!(policy.name.as_deref(), Some("Standard"));
    assert_eq!(
        policy.description.as_deref(),
        Some("HLS everywhere, MP4 for viewers abroad.")
    );
    assert_eq!(policy.preferred_language.as_deref(), Some("ja"));
    assert_eq!(policy.url_lifetime, Some(3600));
    assert_eq!(policy.is_default, Some(true));
    assert_eq!(policy.rules.len(), 1);
    let rule = &policy.rules[0];
    assert_eq!(rule.conditions.len(), 1);
    assert_eq!(rule.conditions[0].parameter, Some(PolicyConditionParameter::Country));
    assert_eq!(rule.conditions[0].operand, Some(PolicyConditionOperand::NotEqual));
    assert_eq!(rule.conditions[0].value.as_deref(), Some("JP"));
    assert_eq!(rule.then.len(), 1);
    assert_eq!(rule.then[0].key, Some(StreamSelectionKey::Format));
    assert_eq!(rule.then[0].value.as_deref(), Some("MP4"));
    assert_eq!(text(&policy.created_at).as_deref(), Some("2023-10-02 08:00:00"));
    assert_eq!(text(&policy.updated_at).as_deref(), Some("2025-02-19 11:04:37"));
}

// ------------------------------------------------------------------- helpers

/// A timestamp's wire text.
fn text(timestamp: &Option<Timestamp>) -> Option<String> {
    timestamp.as_ref().map(ToString::to_string)
}

/// A distribution site on a dedicated domain, with every documented member.
fn site_json() -> serde_json::Value {
    json!({
        "id": SITE_ID,
        "domain_names": ["videos.example.co.jp", "www.videos.example.co.jp"],
        "propagation_status": "INSYNC",
        "ssl_certificate": {
            "common_name": "videos.example.co.jp",
            "fingerprint_sha1": "3A:5F:9C:12:7B:E4:08:D1:6A:2C:93:F0:4E:B7:11:8D:C5:69:2F:A0",
            "fingerprint_sha256": "9F:86:D0:81:88:4C:7D:65:9A:2F:EA:A0:C5:5A:D0:15:A3:BF:4F:1B:2B:0B:82:2C:D1:5D:6C:15:B0:F0:0A:08",
            "serial_number": "04:8f:1a:b2:c3:d4:e5:f6",
            "not_before": "2025-03-01 00:00:00",
            "not_after": "2026-03-31 23:59:59",
            "imported_at": "2025-03-02 10:11:12"
        },
        "configurations": {
            "title": "Example Corp. Video Library",
            "description": "Training and events for employees.",
            "template": "portal",
            "authentication": {
                "type": "OIDC",
                "pool_id": "ap-northeast-1_Ab12Cd34E",
                "issuer": "https://login.example.co.jp/",
                "client_id": "video-portal",
                "client_secret": "c2VjcmV0LWNsaWVudC1rZXk",
                "scope": "openid profile email",
                "logout_endpoint": "https://login.example.co.jp/logout",
                "hide_update_password": true
            },
            "whitelist_cidrs": ["203.0.113.0/24"],
            "whitelist_referers": [],
            "exposed_metadata": {
                "category": true,
                "labels": true,
                "documents": true,
                "playback_count": false,
                "created_at": true,
                "tag_keys": ["speaker"],
                "description": true,
                "related_contents": false
            },
            "player_id": "4c1e7a9b-2d3f-4e5a-8b6c-7d8e9f0a1b2c",
            "footer": {"text": "© 2025 Example Corp."},
            "noindex": true,
            "social_buttons": ["x", "line"],
            "content_scope": {"type": "CATEGORIES", "categories": [CATEGORY_ID], "labels": []},
            "user_content_scopes": [
                {
                    "conditions": [{"path": "groups", "operand": "contains", "value": "staff"}],
                    "type": "LABELS",
                    "categories": [],
                    "labels": [LABEL_ID]
                }
            ],
            "default_contents_per_page": 24,
            "default_contents_sort": "created_at|desc"
        },
        "status": "PUBLIC",
        "max_simultaneous_viewers": 2,
        "access_denial_timeout": 900,
        "created_at": "2024-02-14 09:30:00",
        "updated_at": "2025-05-30 22:10:41"
    })
}

/// A content forward policy: viewers outside Japan are forwarded.
fn forward_policy_json() -> serde_json::Value {
    json!({
        "id": FORWARD_POLICY_ID,
        "name": "Japan only",
        "description": "Viewers outside Japan see the region notice.",
        "rules": [
            {
                "conditions": [{"parameter": "COUNTRY", "operand": "!=", "value": "JP"}],
                "forward_type": "VIDEO",
                "target_content_name": "region-notice",
                "target_image_url": null
            },
            {
                "conditions": [
                    {"parameter": "COUNTRY", "operand": "!=", "value": "JP"},
                    {"parameter": "COUNTRY", "operand": "!=", "value": "KR"}
                ],
                "forward_type": "IMAGE",
                "target_content_name": null,
                "target_image_url": "https://cdn.example.co.jp/images/unavailable.png"
            }
        ],
        "is_default": false,
        "created_at": "2024-09-01 12:00:00",
        "updated_at": "2025-04-18 15:27:03"
    })
}

/// The account's default streaming policy: MP4 for viewers outside Japan.
fn streaming_policy_json() -> serde_json::Value {
    json!({
        "id": STREAMING_POLICY_ID,
        "name": "Standard",
        "description": "HLS everywhere, MP4 for viewers abroad.",
        "rules": [
            {
                "conditions": [{"parameter": "COUNTRY", "operand": "!=", "value": "JP"}],
                "then": [{"key": "FORMAT", "value": "MP4"}]
            }
        ],
        "preferred_language": "ja",
        "url_lifetime": 3600,
        "is_default": true,
        "created_at": "2023-10-02 08:00:00",
        "updated_at": "2025-02-19 11:04:37"
    })
}
