//! Video-management operations on the wire (contents and what belongs to
//! them: stream sets, streams, subtitles, posters, documents, play
//! information, statistics): the exact request, and the documented response
//! decoded into typed values.

use crate::harness::{Expect, Wire};
use serde_json::{json, Map, Value};
use std::num::NonZeroU64;
use uuid::uuid;
use vidplat::vms::types::{
    AudioCodec, AudioTrackType, BulkRegisteredId, ChapterCreate, ChapterUpdate, ContentCreate, ContentDocumentCreate,
    ContentPosterCreate, ContentStatus, ContentStreamCreate, ContentStreamSetCreate, ContentSubtitleCreate,
    ContentType, ContentUpdate, DocumentBulkCreate, DocumentCreate, DocumentUpdate, EncodeStatus, PlayResponseType,
    PlaylistItemOverridesCreate, PlaylistItemOverridesUpdate, PosterBulkCreate, PosterCreate, PosterFormat,
    PosterOrder, PosterUpdate, StatisticsGranularity, StreamBulkCreate, StreamCreate, StreamFormat, StreamSetCreate,
    StreamSetUpdate, StreamStatus, StreamUpdate, SubtitleBulkCreate, SubtitleCreate, SubtitleFormat, SubtitleUpdate,
    Tag, VideoCodec,
};
use vidplat::Patch;

#[tokio::test]
async fn list_contents() {
    let wire = Wire::ok(json!({
        "data": [
            {
                "name": "spring-campaign_2025",
                "title": "Spring campaign 2025",
                "description": "Highlights of the 2025 spring campaign.",
                "type": "VOD",
                "status": "LIMITED",
                "encode_status": "COMPLETED",
                "publish_start": "2025-04-01 00:00:00",
                "publish_end": "2025-06-30 23:59:59",
                "duration": 1832,
                "category_id": "5b0c8f52-8d1e-4a3b-9f2e-1c6d7a8b9e01",
                "labels": ["a7e3c2d1-4f5b-4c6d-8e9f-0a1b2c3d4e5f", "b8f4d3e2-5a6c-4d7e-9f0a-1b2c3d4e5f60"],
                "tags": [{"key": "campaign", "value": "spring-2025"}],
                "forward_policy_id": "0c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f",
                "streaming_policy_id": "1d2e3f40-5b6c-4d7e-8f90-a1b2c3d4e5f6",
                "seek_preview_url": "https://storage.example.jp/previews/spring-campaign_2025.vtt",
                "encoder_transaction_id": 48213,
                "playback_count": 12873,
                "poster_slideshow_interval": 3000,
                "primary_poster_id": "e1f2a3b4-c5d6-4e7f-8091-a2b3c4d5e6f7",
                "primary_poster_url": "https://storage.example.jp/posters/spring-cover.png",
                "presentation_document_id": null,
                "playlist_item_overrides": {"title": "Spring 2025", "description": "Campaign digest"},
                "chapters": [{"start_time": 0, "title": "Opening", "poster_id": null, "data": {}}],
                "created_at": "2025-03-18 10:21:45",
                "updated_at": "2025-04-02 08:03:11"
            },
            {
                "name": "webinar-0612",
                "title": "Product webinar, June 12",
                "description": null,
                "type": "VOD",
                "status": "PUBLIC",
                "encode_status": "NONE",
                "publish_start": null,
                "publish_end": null,
                "duration": 3540,
                "category_id": "5b0c8f52-8d1e-4a3b-9f2e-1c6d7a8b9e01",
                "labels": [],
                "tags": [],
                "forward_policy_id": "0c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f",
                "streaming_policy_id": "1d2e3f40-5b6c-4d7e-8f90-a1b2c3d4e5f6",
                "seek_preview_url": null,
                "encoder_transaction_id": null,
                "playback_count": 0,
                "poster_slideshow_interval": 1000,
                "primary_poster_id": null,
                "primary_poster_url": null,
                "presentation_document_id": null,
                "chapters": [],
                "created_at": "2025-06-12 17:40:02",
                "updated_at": "2025-06-12 17:40:02"
            }
        ],
        "truncated": true,
        "current_page": 2,
        "per_page": 50
    }))
    .await;
    let list = wire
        .vms()
        .list_contents()
        .page(2_u64)
        .per_page(50_u64)
        .sort("created_at|asc")
        .type_(vec![ContentType::Vod])
        .status(vec![ContentStatus::Public, ContentStatus::Limited])
        .category("5b0c8f52-8d1e-4a3b-9f2e-1c6d7a8b9e01")
        .label("a7e3c2d1-4f5b-4c6d-8e9f-0a1b2c3d4e5f")
        .query("動画 campaign")
        .filters(r#"{"encode_status":"COMPLETED"}"#)
        .send()
        .await
        .unwrap()
        .into_inner();
    // The document's parameter order; `|`, `,`, the JSON of `filters` and the
    // non-ASCII, spaced `query` are percent-encoded (a space as `+`).
    wire.verify(Expect::get(concat!(
        "/v1/contents?category=5b0c8f52-8d1e-4a3b-9f2e-1c6d7a8b9e01",
        "&filters=%7B%22encode_status%22%3A%22COMPLETED%22%7D",
        "&label=a7e3c2d1-4f5b-4c6d-8e9f-0a1b2c3d4e5f&page=2&per_page=50",
        "&query=%E5%8B%95%E7%94%BB+campaign&sort=created_at%7Casc&status=PUBLIC%2CLIMITED",
        "&type=VOD",
    )))
    .await;
    assert_eq!(list.truncated, Some(true));
    assert_eq!(list.current_page, Some(2));
    assert_eq!(list.per_page, Some(50));
    assert_eq!(list.data.len(), 2);
    let first = &list.data[0];
    assert_eq!(first.name.as_deref(), Some("spring-campaign_2025"));
    assert_eq!(first.type_, Some(ContentType::Vod));
    assert_eq!(first.status, Some(ContentStatus::Limited));
    assert_eq!(first.encode_status, Some(EncodeStatus::Completed));
    assert_eq!(text(&first.publish_start).as_deref(), Some("2025-04-01 00:00:00"));
    assert_eq!(text(&first.publish_end).as_deref(), Some("2025-06-30 23:59:59"));
    assert_eq!(first.duration, Some(1832));
    assert_eq!(first.labels.len(), 2);
    assert_eq!(first.labels[1], "b8f4d3e2-5a6c-4d7e-9f0a-1b2c3d4e5f60");
    assert_eq!(first.tags.len(), 1);
    assert_eq!(first.tags[0].key.as_deref(), Some("campaign"));
    assert_eq!(first.tags[0].value.as_deref(), Some("spring-2025"));
    assert_eq!(first.encoder_transaction_id, Some(48213));
    assert_eq!(first.playback_count, Some(12873));
    assert_eq!(first.poster_slideshow_interval, Some(3000));
    assert_eq!(
        first.primary_poster_url.as_deref(),
        Some("https://storage.example.jp/posters/spring-cover.png")
    );
    assert_eq!(first.presentation_document_id, None);
    let overrides = first.playlist_item_overrides.as_ref().unwrap();
    assert_eq!(overrides.title.as_deref(), Some("Spring 2025"));
    assert_eq!(first.chapters.len(), 1);
    assert_eq!(first.chapters[0].title.as_deref(), Some("Opening"));
    assert_eq!(text(&first.created_at).as_deref(), Some("2025-03-18 10:21:45"));
    let second = &list.data[1];
    assert_eq!(second.status, Some(ContentStatus::Public));
    assert_eq!(second.encode_status, Some(EncodeStatus::None));
    assert_eq!(second.description, None);
    assert_eq!(second.publish_start, None);
    assert_eq!(second.encoder_transaction_id, None);
    assert_eq!(second.playback_count, Some(0));
    assert!(second.labels.is_empty());
    assert_eq!(text(&second.updated_at).as_deref(), Some("2025-06-12 17:40:02"));
}

#[tokio::test]
async fn register_content() {
    let wire = Wire::ok(json!({
        "name": "spring-campaign_2025",
        "stream_sets": [{"name": "hls-main"}, {"name": "mp4-fallback"}],
        "streams": [
            {"name": "hls-1080p", "id": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d"},
            {"name": "hls-720p", "id": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6e"},
            {"name": "mp4-720p", "id": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c70"}
        ],
        "subtitles": [
            {"name": "sub-ja", "id": "c4d5e6f7-0819-4a2b-8c3d-4e5f60718293"},
            {"name": "sub-en", "id": "c4d5e6f7-0819-4a2b-8c3d-4e5f60718294"}
        ],
        "posters": [
            {"name": "cover", "id": "e1f2a3b4-c5d6-4e7f-8091-a2b3c4d5e6f7"},
            {"name": "chapter-2", "id": "e1f2a3b4-c5d6-4e7f-8091-a2b3c4d5e6f8"}
        ],
        "documents": [{"name": "slides", "id": "d0c1b2a3-9485-4766-a5b4-c3d2e1f0a9b8"}]
    }))
    .await;
    let body = ContentCreate::builder()
        .name("spring-campaign_2025")
        .title("Spring campaign 2025")
        .description("Highlights of the 2025 spring campaign.")
        .type_(ContentType::Vod)
        .status(ContentStatus::Limited)
        .encode_status(EncodeStatus::Completed)
        .publish_start("2025-04-01 00:00:00")
        .publish_end("2025-06-30 23:59:59")
        .duration(1832)
        .category_id(uuid!("5b0c8f52-8d1e-4a3b-9f2e-1c6d7a8b9e01"))
        .labels(vec![
            uuid!("a7e3c2d1-4f5b-4c6d-8e9f-0a1b2c3d4e5f"),
            uuid!("b8f4d3e2-5a6c-4d7e-9f0a-1b2c3d4e5f60"),
        ])
        .tags(vec![tag("campaign", "spring-2025"), tag("region", "関東")])
        .forward_policy_id(uuid!("0c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f"))
        .streaming_policy_id(uuid!("1d2e3f40-5b6c-4d7e-8f90-a1b2c3d4e5f6"))
        .seek_preview_url("https://storage.example.jp/previews/spring-campaign_2025.vtt")
        .encoder_transaction_id(NonZeroU64::new(48213))
        .poster_slideshow_interval(3000_u64)
        .primary_poster_name("cover")
        .presentation_document_name("slides")
        .playlist_item_overrides(PlaylistItemOverridesCreate {
            extra: Default::default(),
            title: Some("Spring 2025".to_owned()),
            description: Some("Campaign digest".to_owned()),
            primary_poster_name: Some("cover".to_owned()),
        })
        .chapters(vec![
            ChapterCreate {
                start_time: Some(0),
                title: Some("Opening".to_owned()),
                poster_name: Some("cover".to_owned()),
                data: object(json!({"speaker": "Aoi Tanaka"})),
            },
            ChapterCreate {
                start_time: Some(754),
                title: Some("New lineup".to_owned()),
                poster_name: Some("chapter-2".to_owned()),
                data: Map::new(),
            },
        ])
        .stream_sets(vec![
            ContentStreamSetCreate::builder()
                .name("hls-main")
                .distribution_id(uuid!("6f1e2d3c-4b5a-4968-8776-655443322110"))
                .stream_names(vec!["hls-1080p".to_owned(), "hls-720p".to_owned()])
                .subtitle_names(vec!["sub-ja".to_owned(), "sub-en".to_owned()]),
            ContentStreamSetCreate::builder()
                .name("mp4-fallback")
                .stream_names(vec!["mp4-720p".to_owned()]),
        ])
        .streams(vec![
            ContentStreamCreate::builder()
                .name("hls-1080p".to_owned())
                .path("/spring-campaign_2025/hls/1080p/index.m3u8")
                .format(StreamFormat::Hls)
                .video_codec(VideoCodec("H264".to_owned()))
                .video_bitrate(5_000_000)
                .framerate(29.97)
                .width(1920)
                .height(1080)
                .audio_codec(AudioCodec("AAC".to_owned()))
                .audio_bitrate(128_000)
                .sample_rate(48_000)
                .channels(2)
                .audio_language("ja")
                .audio_label("日本語")
                .playback_rate(1.0)
                .filesize(1_154_310_422)
                .encoder_task_id(NonZeroU64::new(90211))
                .is_original(false)
                .status(StreamStatus::Completed),
            ContentStreamCreate::builder()
                .name("hls-720p".to_owned())
                .path("/spring-campaign_2025/hls/720p/index.m3u8")
                .format(StreamFormat::Hls)
                .video_bitrate(2_500_000)
                .width(1280)
                .height(720),
            ContentStreamCreate::builder()
                .name("mp4-720p".to_owned())
                .path("/spring-campaign_2025/mp4/720p.mp4")
                .origin_domain_name("origin.example.jp")
                .format(StreamFormat::Mp4),
        ])
        .subtitles(vec![
            ContentSubtitleCreate::builder()
                .name("sub-ja".to_owned())
                .format(SubtitleFormat::Webvtt)
                .language("ja")
                .label("日本語")
                .url("https://storage.example.jp/subtitles/spring-ja.vtt"),
            ContentSubtitleCreate::builder()
                .name("sub-en".to_owned())
                .format(SubtitleFormat::Webvtt)
                .language("en")
                .label("English")
                .url("https://storage.example.jp/subtitles/spring-en.vtt"),
        ])
        .posters(vec![
            ContentPosterCreate::builder()
                .name("cover".to_owned())
                .format(PosterFormat::Png)
                .width(1920)
                .height(1080)
                .url("https://storage.example.jp/posters/spring-cover.png")
                .timestamp(0)
                .used_in_slideshow(true),
            ContentPosterCreate::builder()
                .name("chapter-2".to_owned())
                .format(PosterFormat::Png)
                .width(1280)
                .height(720)
                .url("https://storage.example.jp/posters/spring-lineup.png")
                .timestamp(754)
                .used_in_slideshow(false),
        ])
        .documents(vec![ContentDocumentCreate::builder()
            .name("slides".to_owned())
            .title("Campaign slides")
            .type_("application/pdf")
            .url("https://storage.example.jp/docs/spring-slides.pdf")
            .filename("spring-slides.pdf")]);
    let registered = wire
        .vms()
        .register_content()
        .body(body)
        .send()
        .await
        .unwrap()
        .into_inner();
    let sent_streams = json!([
        {
            "name": "hls-1080p",
            "path": "/spring-campaign_2025/hls/1080p/index.m3u8",
            "format": "HLS",
            "video_codec": "H264",
            "video_bitrate": 5_000_000,
            "framerate": 29.97,
            "width": 1920,
            "height": 1080,
            "audio_codec": "AAC",
            "audio_bitrate": 128_000,
            "sample_rate": 48_000,
            "channels": 2,
            "audio_language": "ja",
            "audio_label": "日本語",
            "playback_rate": 1.0,
            "filesize": 1_154_310_422_u64,
            "encoder_task_id": 90211,
            "is_original": false,
            "status": "COMPLETED"
        },
        {
            "name": "hls-720p",
            "path": "/spring-campaign_2025/hls/720p/index.m3u8",
            "format": "HLS",
            "video_bitrate": 2_500_000,
            "width": 1280,
            "height": 720,
            "playback_rate": 1.0,
            "is_original": false,
            "status": "COMPLETED"
        },
        {
            "name": "mp4-720p",
            "path": "/spring-campaign_2025/mp4/720p.mp4",
            "origin_domain_name": "origin.example.jp",
            "format": "MP4",
            "playback_rate": 1.0,
            "is_original": false,
            "status": "COMPLETED"
        }
    ]);
    let sent_subtitles = json!([
        {
            "name": "sub-ja",
            "format": "WEBVTT",
            "language": "ja",
            "label": "日本語",
            "url": "https://storage.example.jp/subtitles/spring-ja.vtt"
        },
        {
            "name": "sub-en",
            "format": "WEBVTT",
            "language": "en",
            "label": "English",
            "url": "https://storage.example.jp/subtitles/spring-en.vtt"
        }
    ]);
    let sent_posters = json!([
        {
            "name": "cover",
            "format": "PNG",
            "width": 1920,
            "height": 1080,
            "url": "https://storage.example.jp/posters/spring-cover.png",
            "timestamp": 0,
            "used_in_slideshow": true
        },
        {
            "name": "chapter-2",
            "format": "PNG",
            "width": 1280,
            "height": 720,
            "url": "https://storage.example.jp/posters/spring-lineup.png",
            "timestamp": 754,
            "used_in_slideshow": false
        }
    ]);
    wire.verify(Expect::post("/v1/contents").json(json!({
        "name": "spring-campaign_2025",
        "title": "Spring campaign 2025",
        "description": "Highlights of the 2025 spring campaign.",
        "type": "VOD",
        "status": "LIMITED",
        "encode_status": "COMPLETED",
        "publish_start": "2025-04-01 00:00:00",
        "publish_end": "2025-06-30 23:59:59",
        "duration": 1832,
        "category_id": "5b0c8f52-8d1e-4a3b-9f2e-1c6d7a8b9e01",
        "labels": ["a7e3c2d1-4f5b-4c6d-8e9f-0a1b2c3d4e5f", "b8f4d3e2-5a6c-4d7e-9f0a-1b2c3d4e5f60"],
        "tags": [{"key": "campaign", "value": "spring-2025"}, {"key": "region", "value": "関東"}],
        "forward_policy_id": "0c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f",
        "streaming_policy_id": "1d2e3f40-5b6c-4d7e-8f90-a1b2c3d4e5f6",
        "seek_preview_url": "https://storage.example.jp/previews/spring-campaign_2025.vtt",
        "encoder_transaction_id": 48213,
        "poster_slideshow_interval": 3000,
        "primary_poster_name": "cover",
        "presentation_document_name": "slides",
        "playlist_item_overrides": {
            "title": "Spring 2025",
            "description": "Campaign digest",
            "primary_poster_name": "cover"
        },
        "chapters": [
            {"start_time": 0, "title": "Opening", "poster_name": "cover", "data": {"speaker": "Aoi Tanaka"}},
            {"start_time": 754, "title": "New lineup", "poster_name": "chapter-2"}
        ],
        "stream_sets": [
            {
                "name": "hls-main",
                "distribution_id": "6f1e2d3c-4b5a-4968-8776-655443322110",
                "stream_names": ["hls-1080p", "hls-720p"],
                "subtitle_names": ["sub-ja", "sub-en"]
            },
            {"name": "mp4-fallback", "stream_names": ["mp4-720p"]}
        ],
        "streams": sent_streams,
        "subtitles": sent_subtitles,
        "posters": sent_posters,
        "documents": [{
            "name": "slides",
            "title": "Campaign slides",
            "type": "application/pdf",
            "url": "https://storage.example.jp/docs/spring-slides.pdf",
            "filename": "spring-slides.pdf"
        }]
    })))
    .await;
    assert_eq!(registered.name.as_deref(), Some("spring-campaign_2025"));
    assert_eq!(registered.stream_sets.len(), 2);
    assert_eq!(registered.stream_sets[1].name.as_deref(), Some("mp4-fallback"));
    assert_eq!(registered.streams.len(), 3);
    assert_eq!(registered.streams[2].name.as_deref(), Some("mp4-720p"));
    assert_eq!(
        registered.streams[2].id.as_deref(),
        Some("9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c70")
    );
    assert_eq!(registered.subtitles.len(), 2);
    assert_eq!(
        registered.subtitles[0].id.as_deref(),
        Some("c4d5e6f7-0819-4a2b-8c3d-4e5f60718293")
    );
    assert_eq!(registered.posters.len(), 2);
    assert_eq!(registered.posters[1].name.as_deref(), Some("chapter-2"));
    assert_eq!(registered.documents.len(), 1);
    assert_eq!(
        registered.documents[0].id.as_deref(),
        Some("d0c1b2a3-9485-4766-a5b4-c3d2e1f0a9b8")
    );
}

#[tokio::test]
async fn get_content() {
    let stream_sets = json!([{
        "name": "hls-main",
        "distribution_id": "6f1e2d3c-4b5a-4968-8776-655443322110",
        "streams": ["9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d", "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6e"],
        "subtitles": ["c4d5e6f7-0819-4a2b-8c3d-4e5f60718293"],
        "created_at": "2025-03-18 10:21:45",
        "updated_at": "2025-03-18 10:21:45"
    }]);
    let streams = json!([
        {
            "id": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
            "path": "/spring-campaign_2025/hls/1080p/index.m3u8",
            "format": "HLS",
            "video_codec": "H264",
            "video_bitrate": 5000000,
            "framerate": 29.97,
            "width": 1920,
            "height": 1080,
            "audio_codec": "AAC",
            "audio_bitrate": 128000,
            "sample_rate": 48000,
            "channels": 2,
            "audio_track_type": null,
            "audio_language": "ja",
            "audio_label": "日本語",
            "playback_rate": 1.0,
            "filesize": 1154310422,
            "encoder_task_id": 90211,
            "is_original": false,
            "status": "COMPLETED",
            "created_at": "2025-03-18 10:21:45",
            "updated_at": "2025-03-18 10:21:45"
        },
        {
            "id": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6e",
            "path": "/spring-campaign_2025/hls/720p/index.m3u8",
            "format": "HLS",
            "video_codec": "H264",
            "video_bitrate": 2500000,
            "framerate": 29.97,
            "width": 1280,
            "height": 720,
            "audio_codec": "AAC",
            "audio_bitrate": 96000,
            "sample_rate": 48000,
            "channels": 2,
            "audio_track_type": null,
            "audio_language": null,
            "audio_label": null,
            "playback_rate": 1.0,
            "filesize": null,
            "encoder_task_id": null,
            "is_original": false,
            "status": "COMPLETED",
            "created_at": "2025-03-18 10:21:45",
            "updated_at": "2025-03-18 10:21:45"
        }
    ]);
    let subtitles = json!([{
        "id": "c4d5e6f7-0819-4a2b-8c3d-4e5f60718293",
        "format": "WEBVTT",
        "language": "ja",
        "label": "日本語",
        "url": "https://storage.example.jp/subtitles/spring-ja.vtt",
        "created_at": "2025-03-18 10:21:45",
        "updated_at": "2025-03-18 10:21:45"
    }]);
    let posters = json!([
        {
            "id": "e1f2a3b4-c5d6-4e7f-8091-a2b3c4d5e6f7",
            "format": "PNG",
            "width": 1920,
            "height": 1080,
            "url": "https://storage.example.jp/posters/spring-cover.png",
            "timestamp": 0,
            "used_in_slideshow": true,
            "created_at": "2025-03-18 10:21:45",
            "updated_at": "2025-03-18 10:21:45"
        },
        {
            "id": "e1f2a3b4-c5d6-4e7f-8091-a2b3c4d5e6f8",
            "format": "PNG",
            "width": 1280,
            "height": 720,
            "url": "https://storage.example.jp/posters/spring-lineup.png",
            "timestamp": null,
            "used_in_slideshow": false,
            "created_at": "2025-03-18 10:21:46",
            "updated_at": "2025-03-20 09:00:00"
        }
    ]);
    let chapters = json!([
        {
            "start_time": 0,
            "title": "Opening",
            "poster_id": "e1f2a3b4-c5d6-4e7f-8091-a2b3c4d5e6f7",
            "data": {"speaker": "Aoi Tanaka"}
        },
        {
            "start_time": 754,
            "title": "New lineup",
            "poster_id": "e1f2a3b4-c5d6-4e7f-8091-a2b3c4d5e6f8",
            "data": {}
        }
    ]);
    let documents = json!([{
        "id": "d0c1b2a3-9485-4766-a5b4-c3d2e1f0a9b8",
        "title": "Campaign slides",
        "type": "application/pdf",
        "url": "https://storage.example.jp/docs/spring-slides.pdf",
        "filename": "spring-slides.pdf",
        "created_at": "2025-03-18 10:21:45",
        "updated_at": "2025-03-18 10:21:45"
    }]);
    let cta_actions = json!({
        "id": "f0e1d2c3-b4a5-4697-8879-6a5b4c3d2e1f",
        "card_options": [{"type": "LINK", "timing": {"start": 120, "end": 180}}],
        "created_at": "2025-03-19 14:00:00",
        "updated_at": "2025-03-19 14:05:30"
    });
    let wire = Wire::ok(json!({
        "name": "spring-campaign_2025",
        "title": "Spring campaign 2025",
        "description": "Highlights of the 2025 spring campaign.",
        "type": "VOD",
        "status": "LIMITED",
        "encode_status": "COMPLETED",
        "publish_start": "2025-04-01 00:00:00",
        "publish_end": "2025-06-30 23:59:59",
        "duration": 1832,
        "category_id": "5b0c8f52-8d1e-4a3b-9f2e-1c6d7a8b9e01",
        "labels": ["a7e3c2d1-4f5b-4c6d-8e9f-0a1b2c3d4e5f"],
        "tags": [{"key": "campaign", "value": "spring-2025"}, {"key": "region", "value": "関東"}],
        "forward_policy_id": "0c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f",
        "streaming_policy_id": "1d2e3f40-5b6c-4d7e-8f90-a1b2c3d4e5f6",
        "seek_preview_url": "https://storage.example.jp/previews/spring-campaign_2025.vtt",
        "encoder_transaction_id": 48213,
        "playback_count": 12873,
        "poster_slideshow_interval": 3000,
        "primary_poster_id": "e1f2a3b4-c5d6-4e7f-8091-a2b3c4d5e6f7",
        "primary_poster_url": "https://storage.example.jp/posters/spring-cover.png",
        "presentation_document_id": "d0c1b2a3-9485-4766-a5b4-c3d2e1f0a9b8",
        "playlist_item_overrides": {
            "title": "Spring 2025",
            "description": "Campaign digest",
            "primary_poster_id": "e1f2a3b4-c5d6-4e7f-8091-a2b3c4d5e6f7"
        },
        "chapters": chapters,
        "created_at": "2025-03-18 10:21:45",
        "updated_at": "2025-04-02 08:03:11",
        "stream_sets": stream_sets,
        "streams": streams,
        "subtitles": subtitles,
        "posters": posters,
        "documents": documents,
        "cta_actions": cta_actions
    }))
    .await;
    let content = wire
        .vms()
        .get_content()
        .content_name("spring-campaign_2025")
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(Expect::get("/v1/contents/spring-campaign_2025")).await;
    assert_eq!(content.name.as_deref(), Some("spring-campaign_2025"));
    assert_eq!(content.title.as_deref(), Some("Spring campaign 2025"));
    assert_eq!(content.type_, Some(ContentType::Vod));
    assert_eq!(content.status, Some(ContentStatus::Limited));
    assert_eq!(content.encode_status, Some(EncodeStatus::Completed));
    assert_eq!(text(&content.publish_end).as_deref(), Some("2025-06-30 23:59:59"));
    assert_eq!(content.duration, Some(1832));
    assert_eq!(content.tags.len(), 2);
    assert_eq!(content.tags[1].value.as_deref(), Some("関東"));
    assert_eq!(content.playback_count, Some(12873));
    assert_eq!(
        content.presentation_document_id.as_deref(),
        Some("d0c1b2a3-9485-4766-a5b4-c3d2e1f0a9b8")
    );
    assert_eq!(
        content
            .playlist_item_overrides
            .as_ref()
            .unwrap()
            .primary_poster_id
            .as_deref(),
        Some("e1f2a3b4-c5d6-4e7f-8091-a2b3c4d5e6f7")
    );
    assert_eq!(content.chapters.len(), 2);
    assert_eq!(content.chapters[0].data.get("speaker"), Some(&json!("Aoi Tanaka")));
    assert_eq!(content.chapters[1].start_time, Some(754));
    assert_eq!(
        content.chapters[1].poster_id.as_deref(),
        Some("e1f2a3b4-c5d6-4e7f-8091-a2b3c4d5e6f8")
    );

    assert_eq!(content.stream_sets.len(), 1);
    let set = &content.stream_sets[0];
    assert_eq!(set.name.as_deref(), Some("hls-main"));
    assert_eq!(set.streams.len(), 2);
    assert_eq!(set.streams[1], "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6e");
    assert_eq!(set.subtitles, ["c4d5e6f7-0819-4a2b-8c3d-4e5f60718293"]);

    assert_eq!(content.streams.len(), 2);
    let full = &content.streams[0];
    assert_eq!(full.format, Some(StreamFormat::Hls));
    assert_eq!(full.video_codec.as_deref().map(String::as_str), Some("H264"));
    assert_eq!(full.framerate, Some(29.97));
    assert_eq!(full.filesize, Some(1_154_310_422));
    assert_eq!(full.status, Some(StreamStatus::Completed));
    let sparse = &content.streams[1];
    assert_eq!(sparse.audio_language, None);
    assert_eq!(sparse.filesize, None);
    assert_eq!(sparse.encoder_task_id, None);
    assert_eq!(sparse.height, Some(720));

    assert_eq!(content.subtitles.len(), 1);
    assert_eq!(content.subtitles[0].format, Some(SubtitleFormat::Webvtt));
    assert_eq!(content.subtitles[0].label.as_deref(), Some("日本語"));
    assert_eq!(content.posters.len(), 2);
    assert_eq!(content.posters[0].format, Some(PosterFormat::Png));
    assert_eq!(content.posters[0].used_in_slideshow, Some(true));
    assert_eq!(content.posters[1].timestamp, None);
    assert_eq!(
        content.posters[1]
            .updated_at
            .as_ref()
            .map(ToString::to_string)
            .as_deref(),
        Some("2025-03-20 09:00:00")
    );
    assert_eq!(content.documents.len(), 1);
    assert_eq!(content.documents[0].filename.as_deref(), Some("spring-slides.pdf"));

    let cta = content.cta_actions.as_ref().unwrap();
    assert_eq!(cta.id.as_deref(), Some("f0e1d2c3-b4a5-4697-8879-6a5b4c3d2e1f"));
    assert_eq!(cta.card_options.len(), 1);
    assert_eq!(cta.card_options[0].type_.as_deref(), Some("LINK"));
    assert_eq!(cta.card_options[0].timing, Some(json!({"start": 120, "end": 180})));
    assert_eq!(text(&cta.updated_at).as_deref(), Some("2025-03-19 14:05:30"));
}

/// "Clear" and "empty" are said on the wire: `null` for a nullable member, `[]`
/// for a list, and a member no setter touched is left out.
#[tokio::test]
async fn with_nulls_update_content_clears_nullable_members_and_empties_lists() {
    let wire = Wire::no_content().await;
    wire.vms()
        .update_content()
        .content_name("spring-campaign_2025")
        .body(
            ContentUpdate::builder()
                .clear_publish_end()
                .clear_primary_poster_id()
                .clear_description()
                .title("Spring")
                .chapters(Vec::<ChapterUpdate>::new())
                .labels(Vec::<uuid::Uuid>::new()),
        )
        .send()
        .await
        .unwrap();
    wire.verify(Expect::patch("/v1/contents/spring-campaign_2025").json(json!({
        "publish_end": null,
        "primary_poster_id": null,
        "description": null,
        "title": "Spring",
        "chapters": [],
        "labels": []
    })))
    .await;
}

#[tokio::test]
async fn update_content() {
    let wire = Wire::no_content().await;
    let body = ContentUpdate {
        title: Some("Spring campaign 2025 (extended)".parse().unwrap()),
        description: Patch::Set("Now running until the end of July.".parse().unwrap()),
        type_: Some(ContentType::Vod),
        status: Some(ContentStatus::Limited),
        encode_status: Some(EncodeStatus::Completed),
        publish_start: Patch::Set("2025-04-01 00:00:00".parse().unwrap()),
        publish_end: Patch::Set("2025-07-31 23:59:59".parse().unwrap()),
        duration: Some(1845),
        category_id: Some(uuid!("5b0c8f52-8d1e-4a3b-9f2e-1c6d7a8b9e01")),
        labels: Some(vec![uuid!("a7e3c2d1-4f5b-4c6d-8e9f-0a1b2c3d4e5f")]),
        forward_policy_id: Some(uuid!("0c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f")),
        streaming_policy_id: Some(uuid!("1d2e3f40-5b6c-4d7e-8f90-a1b2c3d4e5f6")),
        seek_preview_url: Patch::Set("https://storage.example.jp/previews/spring-v2.vtt".parse().unwrap()),
        seek_preview_content: Some("V0VCVlRUCgowMDowMC4wMDAgLS0+IDAwOjA0LjAwMApIZWxsbwo=".parse().unwrap()),
        encoder_transaction_id: NonZeroU64::new(48377).into(),
        poster_slideshow_interval: NonZeroU64::new(2500),
        primary_poster_id: Patch::Set(uuid!("e1f2a3b4-c5d6-4e7f-8091-a2b3c4d5e6f8")),
        presentation_document_id: Patch::Set(uuid!("d0c1b2a3-9485-4766-a5b4-c3d2e1f0a9b8")),
        playlist_item_overrides: Some(PlaylistItemOverridesUpdate {
            extra: Default::default(),
            title: Some("Spring 2025 — extended".to_owned()),
            description: Some("Campaign digest".to_owned()),
            primary_poster_id: Some(uuid!("e1f2a3b4-c5d6-4e7f-8091-a2b3c4d5e6f8")),
        }),
        tags: Some(vec![tag("campaign", "spring-2025"), tag("extended", "yes")]),
        chapters: Some(vec![ChapterUpdate {
            start_time: Some(0),
            title: Some("Opening".to_owned()),
            poster_id: Some(uuid!("e1f2a3b4-c5d6-4e7f-8091-a2b3c4d5e6f7")),
            data: object(json!({"speaker": "Aoi Tanaka", "slide": 1})),
        }]),
    };
    wire.vms()
        .update_content()
        .content_name("spring-campaign_2025")
        .body(body)
        .send()
        .await
        .unwrap();
    wire.verify(Expect::patch("/v1/contents/spring-campaign_2025").json(json!({
        "title": "Spring campaign 2025 (extended)",
        "description": "Now running until the end of July.",
        "type": "VOD",
        "status": "LIMITED",
        "encode_status": "COMPLETED",
        "publish_start": "2025-04-01 00:00:00",
        "publish_end": "2025-07-31 23:59:59",
        "duration": 1845,
        "category_id": "5b0c8f52-8d1e-4a3b-9f2e-1c6d7a8b9e01",
        "labels": ["a7e3c2d1-4f5b-4c6d-8e9f-0a1b2c3d4e5f"],
        "forward_policy_id": "0c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f",
        "streaming_policy_id": "1d2e3f40-5b6c-4d7e-8f90-a1b2c3d4e5f6",
        "seek_preview_url": "https://storage.example.jp/previews/spring-v2.vtt",
        "seek_preview_content": "V0VCVlRUCgowMDowMC4wMDAgLS0+IDAwOjA0LjAwMApIZWxsbwo=",
        "encoder_transaction_id": 48377,
        "poster_slideshow_interval": 2500,
        "primary_poster_id": "e1f2a3b4-c5d6-4e7f-8091-a2b3c4d5e6f8",
        "presentation_document_id": "d0c1b2a3-9485-4766-a5b4-c3d2e1f0a9b8",
        "playlist_item_overrides": {
            "title": "Spring 2025 — extended",
            "description": "Campaign digest",
            "primary_poster_id": "e1f2a3b4-c5d6-4e7f-8091-a2b3c4d5e6f8"
        },
        "tags": [{"key": "campaign", "value": "spring-2025"}, {"key": "extended", "value": "yes"}],
        "chapters": [{
            "start_time": 0,
            "title": "Opening",
            "poster_id": "e1f2a3b4-c5d6-4e7f-8091-a2b3c4d5e6f7",
            "data": {"speaker": "Aoi Tanaka", "slide": 1}
        }]
    })))
    .await;
}

#[tokio::test]
async fn delete_content() {
    let wire = Wire::no_content().await;
    wire.vms()
        .delete_content()
        .content_name("webinar-0612")
        .send()
        .await
        .unwrap();
    wire.verify(Expect::delete("/v1/contents/webinar-0612")).await;
}

#[tokio::test]
async fn get_content_statistics() {
    let wire = Wire::ok(json!({
        "statistics": [
            {"date": "2025-04-01", "bytes_downloaded": 73_014_444_032_u64},
            {"date": "2025-04-02", "bytes_downloaded": 51_539_607_552_u64},
            {"date": "2025-04-03", "bytes_downloaded": 0}
        ]
    }))
    .await;
    let volume = wire
        .vms()
        .get_content_statistics()
        .content_name("spring-campaign_2025")
        .start("2025-04-01")
        .end("2025-04-03")
        .granularity(StatisticsGranularity::Daily)
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(Expect::get(concat!(
        "/v1/contents/spring-campaign_2025/statistics?end=2025-04-03&granularity=daily",
        "&start=2025-04-01",
    )))
    .await;
    let days = volume.statistics.unwrap();
    assert_eq!(days.len(), 3);
    assert_eq!(text(&days[0].date).as_deref(), Some("2025-04-01"));
    assert_eq!(days[0].bytes_downloaded, Some(73_014_444_032));
    assert_eq!(days[1].bytes_downloaded, Some(51_539_607_552));
    assert_eq!(text(&days[2].date).as_deref(), Some("2025-04-03"));
    assert_eq!(days[2].bytes_downloaded, Some(0));
}

#[tokio::test]
async fn get_play_information() {
    let wire = Wire::ok(json!({
        "name": "spring-campaign_2025",
        "type": "VIDEO",
        "video_url": "https://vod.example-cdn.jp/spring-campaign_2025/hls/master.m3u8?expires=1748750400&token=4e1c9a",
        "image_url": null,
        "title": "Spring campaign 2025",
        "description": "Highlights of the 2025 spring campaign.",
        "content_type": "VOD",
        "stream_set_name": "hls-main",
        "format": "HLS",
        "duration": 1832,
        "category": "Marketing/Campaigns",
        "labels": ["featured", "spring"],
        "tags": [{"key": "campaign", "value": "spring-2025"}],
        "chapters": [
            {
                "start_time": 0,
                "title": "Opening",
                "poster_url": "https://storage.example.jp/posters/spring-cover.png"
            },
            {
                "start_time": 754,
                "title": "New lineup",
                "poster_url": "https://storage.example.jp/posters/spring-lineup.png"
            }
        ],
        "poster_url": "https://storage.example.jp/posters/spring-cover.png",
        "poster_slideshow": {"interval": 3000},
        "seek_preview_url": "https://storage.example.jp/previews/spring-campaign_2025.vtt",
        "streams": [
            {
                "format": "HLS",
                "video_codec": "H264",
                "video_bitrate": 5000000,
                "framerate": 29.97,
                "width": 1920,
                "height": 1080,
                "audio_codec": "AAC",
                "audio_bitrate": 128000,
                "sample_rate": 48000,
                "channels": 2,
                "audio_track_type": null,
                "audio_language": "ja",
                "audio_label": "日本語",
                "playback_rate": 1.0
            },
            {
                "format": "HLS",
                "video_codec": null,
                "video_bitrate": null,
                "framerate": null,
                "width": null,
                "height": null,
                "audio_codec": "AAC",
                "audio_bitrate": 128000,
                "sample_rate": 48000,
                "channels": 2,
                "audio_track_type": "DESCRIPTION",
                "audio_language": "en",
                "audio_label": "English AD",
                "playback_rate": 1.0
            }
        ],
        "subtitles": [
            {"language": "ja", "label": "日本語", "url": "https://storage.example.jp/subtitles/spring-ja.vtt"},
            {"language": "en", "label": "English", "url": "https://storage.example.jp/subtitles/spring-en.vtt"}
        ],
        "default_subtitle_index": 1,
        "documents": [{"title": "Campaign slides", "url": "https://storage.example.jp/docs/spring-slides.pdf"}],
        "presentation": {"document_index": 0},
        "cta_actions": {"card_options": [{"type": "LINK", "timing": {"start": 120}}]}
    }))
    .await;
    let play = wire
        .vms()
        .get_play_information()
        .content_name("spring-campaign_2025")
        .ss("hls-main")
        .disable_cfp(true)
        .x_vms_client_ip(std::net::Ipv4Addr::new(203, 0, 113, 45))
        .x_vms_client_country("JP")
        .x_vms_user_agent("Mozilla/5.0 (iPhone; CPU iPhone OS 18_4 like Mac OS X) AppleWebKit/605.1.15")
        .x_vms_client_referer("https://www.example.jp/campaign/spring")
        .x_vms_date("2025-05-01 12:00:00")
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(Expect::get(
        "/v1/contents/spring-campaign_2025/play?disable_cfp=true&ss=hls-main",
    ))
    .await;
    // The x-vms-* parameters travel as headers (the YAML's choice; the
    // document leaves their location open).
    let request = &wire.requests().await[0];
    assert_eq!(header(request, "x-vms-client-ip"), Some("203.0.113.45"));
    assert_eq!(header(request, "x-vms-client-country"), Some("JP"));
    assert_eq!(
        header(request, "x-vms-user-agent"),
        Some("Mozilla/5.0 (iPhone; CPU iPhone OS 18_4 like Mac OS X) AppleWebKit/605.1.15")
    );
    assert_eq!(
        header(request, "x-vms-client-referer"),
        Some("https://www.example.jp/campaign/spring")
    );
    assert_eq!(header(request, "x-vms-date"), Some("2025-05-01 12:00:00"));

    assert_eq!(play.name.as_deref(), Some("spring-campaign_2025"));
    assert_eq!(play.type_, Some(PlayResponseType::Video));
    assert!(play
        .video_url
        .as_deref()
        .unwrap()
        .starts_with("https://vod.example-cdn.jp/"));
    assert_eq!(play.image_url, None);
    assert_eq!(play.content_type, Some(ContentType::Vod));
    assert_eq!(play.stream_set_name.as_deref(), Some("hls-main"));
    assert_eq!(play.format, Some(StreamFormat::Hls));
    assert_eq!(play.duration, Some(1832));
    assert_eq!(play.category.as_deref(), Some("Marketing/Campaigns"));
    assert_eq!(
        play.labels.as_deref(),
        Some(&["featured".to_owned(), "spring".to_owned()][..])
    );
    assert_eq!(play.tags.as_ref().unwrap()[0].key.as_deref(), Some("campaign"));
    let chapters = play.chapters.as_ref().unwrap();
    assert_eq!(chapters.len(), 2);
    assert_eq!(chapters[1].0.get("start_time"), Some(&json!(754)));
    assert_eq!(play.poster_slideshow.as_ref().unwrap().interval, Some(3000));
    let streams = play.streams.as_ref().unwrap();
    assert_eq!(streams.len(), 2);
    assert_eq!(streams[0].format, Some(StreamFormat::Hls));
    assert_eq!(streams[0].width, Some(1920));
    assert_eq!(streams[0].playback_rate, Some(1.0));
    assert_eq!(streams[1].video_codec, None);
    assert_eq!(
        streams[1].audio_track_type,
        Some(AudioTrackType("DESCRIPTION".to_owned()))
    );
    assert_eq!(streams[1].audio_label.as_deref(), Some("English AD"));
    let subtitles = play.subtitles.as_ref().unwrap();
    assert_eq!(subtitles.len(), 2);
    assert_eq!(subtitles[1].0.get("label"), Some(&json!("English")));
    assert_eq!(play.default_subtitle_index, Some(1));
    assert_eq!(play.documents.as_ref().unwrap().len(), 1);
    assert!(play.presentation.is_some());
    let cta = play.cta_actions.as_ref().unwrap();
    assert_eq!(cta.card_options.len(), 1);
    assert_eq!(cta.card_options[0].type_.as_deref(), Some("LINK"));
}

#[tokio::test]
async fn list_stream_sets() {
    let wire = Wire::ok(json!({
        "data": [
            {
                "name": "hls-main",
                "distribution_id": "6f1e2d3c-4b5a-4968-8776-655443322110",
                "streams": ["9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d", "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6e"],
                "subtitles": ["c4d5e6f7-0819-4a2b-8c3d-4e5f60718293", "c4d5e6f7-0819-4a2b-8c3d-4e5f60718294"],
                "created_at": "2025-03-18 10:21:45",
                "updated_at": "2025-03-21 16:02:10"
            },
            {
                "name": "mp4-fallback",
                "distribution_id": "7a2f3e4d-5c6b-4a79-9887-766554433221",
                "streams": ["9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c70"],
                "subtitles": [],
                "created_at": "2025-03-18 10:21:45",
                "updated_at": "2025-03-18 10:21:45"
            }
        ]
    }))
    .await;
    let sets = wire
        .vms()
        .list_stream_sets()
        .content_name("spring-campaign_2025")
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(Expect::get("/v1/contents/spring-campaign_2025/stream-sets"))
        .await;
    assert_eq!(sets.data.len(), 2);
    assert_eq!(sets.data[0].name.as_deref(), Some("hls-main"));
    assert_eq!(sets.data[0].streams.len(), 2);
    assert_eq!(sets.data[0].subtitles[1], "c4d5e6f7-0819-4a2b-8c3d-4e5f60718294");
    assert_eq!(text(&sets.data[0].updated_at).as_deref(), Some("2025-03-21 16:02:10"));
    assert_eq!(
        sets.data[1].distribution_id.as_deref(),
        Some("7a2f3e4d-5c6b-4a79-9887-766554433221")
    );
    assert_eq!(sets.data[1].streams, ["9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c70"]);
    assert!(sets.data[1].subtitles.is_empty());
}

#[tokio::test]
async fn register_stream_set() {
    let wire = Wire::ok(json!({"name": "hls-low_bandwidth"})).await;
    let registered = wire
        .vms()
        .register_stream_set()
        .content_name("spring-campaign_2025")
        .body(
            StreamSetCreate::builder()
                .name("hls-low_bandwidth")
                .distribution_id(uuid!("6f1e2d3c-4b5a-4968-8776-655443322110"))
                .streams(vec![
                    uuid!("9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6e"),
                    uuid!("9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c71"),
                ])
                .subtitles(vec![uuid!("c4d5e6f7-0819-4a2b-8c3d-4e5f60718293")]),
        )
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(
        Expect::post("/v1/contents/spring-campaign_2025/stream-sets").json(json!({
            "name": "hls-low_bandwidth",
            "distribution_id": "6f1e2d3c-4b5a-4968-8776-655443322110",
            "streams": ["9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6e", "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c71"],
            "subtitles": ["c4d5e6f7-0819-4a2b-8c3d-4e5f60718293"]
        })),
    )
    .await;
    assert_eq!(registered.name.as_deref(), Some("hls-low_bandwidth"));
}

#[tokio::test]
async fn get_stream_set() {
    let wire = Wire::ok(json!({
        "name": "HLS_main-2",
        "distribution_id": "6f1e2d3c-4b5a-4968-8776-655443322110",
        "streams": [
            "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
            "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6e",
            "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6f"
        ],
        "subtitles": ["c4d5e6f7-0819-4a2b-8c3d-4e5f60718293"],
        "created_at": "2025-03-18 10:21:45",
        "updated_at": "2025-03-21 16:02:10"
    }))
    .await;
    let set = wire
        .vms()
        .get_stream_set()
        .content_name("CEO_message-2025Q1")
        .set_name("HLS_main-2")
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(Expect::get("/v1/contents/CEO_message-2025Q1/stream-sets/HLS_main-2"))
        .await;
    assert_eq!(set.name.as_deref(), Some("HLS_main-2"));
    assert_eq!(
        set.distribution_id.as_deref(),
        Some("6f1e2d3c-4b5a-4968-8776-655443322110")
    );
    assert_eq!(set.streams.len(), 3);
    assert_eq!(set.streams[2], "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6f");
    assert_eq!(set.subtitles.len(), 1);
    assert_eq!(text(&set.created_at).as_deref(), Some("2025-03-18 10:21:45"));
}

#[tokio::test]
async fn update_stream_set() {
    let wire = Wire::no_content().await;
    wire.vms()
        .update_stream_set()
        .content_name("spring-campaign_2025")
        .set_name("hls-main")
        .body(
            StreamSetUpdate::builder()
                .distribution_id(uuid!("7a2f3e4d-5c6b-4a79-9887-766554433221"))
                .streams(vec![
                    uuid!("9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d"),
                    uuid!("9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6f"),
                ])
                .subtitles(vec![
                    uuid!("c4d5e6f7-0819-4a2b-8c3d-4e5f60718293"),
                    uuid!("c4d5e6f7-0819-4a2b-8c3d-4e5f60718294"),
                ]),
        )
        .send()
        .await
        .unwrap();
    wire.verify(
        Expect::patch("/v1/contents/spring-campaign_2025/stream-sets/hls-main").json(json!({
            "distribution_id": "7a2f3e4d-5c6b-4a79-9887-766554433221",
            "streams": ["9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d", "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6f"],
            "subtitles": ["c4d5e6f7-0819-4a2b-8c3d-4e5f60718293", "c4d5e6f7-0819-4a2b-8c3d-4e5f60718294"]
        })),
    )
    .await;
}

#[tokio::test]
async fn delete_stream_set() {
    let wire = Wire::no_content().await;
    wire.vms()
        .delete_stream_set()
        .content_name("spring-campaign_2025")
        .set_name("mp4-fallback")
        .send()
        .await
        .unwrap();
    wire.verify(Expect::delete(
        "/v1/contents/spring-campaign_2025/stream-sets/mp4-fallback",
    ))
    .await;
}

#[tokio::test]
async fn list_streams() {
    let wire = Wire::ok(json!({
        "data": [
            {
                "id": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
                "path": "/spring-campaign_2025/hls/1080p/index.m3u8",
                "format": "HLS",
                "video_codec": "H264",
                "video_bitrate": 5000000,
                "framerate": 29.97,
                "width": 1920,
                "height": 1080,
                "audio_codec": "AAC",
                "audio_bitrate": 128000,
                "sample_rate": 48000,
                "channels": 2,
                "audio_track_type": null,
                "audio_language": "ja",
                "audio_label": "日本語",
                "playback_rate": 1.0,
                "filesize": 1154310422,
                "encoder_task_id": 90211,
                "is_original": false,
                "status": "COMPLETED",
                "created_at": "2025-03-18 10:21:45",
                "updated_at": "2025-03-18 10:21:45"
            },
            {
                "id": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6f",
                "path": "/spring-campaign_2025/hls/audio-en/index.m3u8",
                "format": "HLS",
                "video_codec": null,
                "video_bitrate": null,
                "framerate": null,
                "width": null,
                "height": null,
                "audio_codec": "AAC",
                "audio_bitrate": 128000,
                "sample_rate": 48000,
                "channels": 2,
                "audio_track_type": "DESCRIPTION",
                "audio_language": "en",
                "audio_label": "English AD",
                "playback_rate": 1.0,
                "filesize": null,
                "encoder_task_id": null,
                "is_original": false,
                "status": "COMPLETED",
                "created_at": "2025-03-19 09:12:00",
                "updated_at": "2025-03-19 09:12:00"
            },
            {
                "id": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c71",
                "path": "/spring-campaign_2025/source/master.mov",
                "format": "UNKNOWN",
                "video_codec": "PRORES",
                "video_bitrate": 98000000,
                "framerate": 59.94,
                "width": 3840,
                "height": 2160,
                "audio_codec": "PCM",
                "audio_bitrate": 2304000,
                "sample_rate": 48000,
                "channels": 2,
                "audio_track_type": null,
                "audio_language": null,
                "audio_label": null,
                "playback_rate": 1.0,
                "filesize": 22548578304_u64,
                "encoder_task_id": null,
                "is_original": true,
                "status": "COMPLETED",
                "created_at": "2025-03-18 10:00:02",
                "updated_at": "2025-03-18 10:00:02"
            }
        ]
    }))
    .await;
    let streams = wire
        .vms()
        .list_streams()
        .content_name("spring-campaign_2025")
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(Expect::get("/v1/contents/spring-campaign_2025/streams"))
        .await;
    assert_eq!(streams.data.len(), 3);
    let hd = &streams.data[0];
    assert_eq!(hd.id.as_deref(), Some("9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d"));
    assert_eq!(hd.format, Some(StreamFormat::Hls));
    assert_eq!(hd.video_bitrate, Some(5_000_000));
    assert_eq!(hd.audio_codec, Some(AudioCodec("AAC".to_owned())));
    let audio = &streams.data[1];
    assert_eq!(audio.video_codec, None);
    assert_eq!(audio.width, None);
    assert_eq!(audio.audio_track_type, Some(AudioTrackType("DESCRIPTION".to_owned())));
    assert_eq!(audio.audio_language.as_deref(), Some("en"));
    let source = &streams.data[2];
    assert_eq!(source.format, Some(StreamFormat::Unknown));
    assert_eq!(source.framerate, Some(59.94));
    assert_eq!(source.filesize, Some(22_548_578_304));
    assert_eq!(source.is_original, Some(true));
    assert_eq!(source.status, Some(StreamStatus::Completed));
    assert_eq!(text(&source.created_at).as_deref(), Some("2025-03-18 10:00:02"));
}

#[tokio::test]
async fn register_stream() {
    let wire = Wire::ok(json!({"id": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c72"})).await;
    let registered = wire
        .vms()
        .register_stream()
        .content_name("spring-campaign_2025")
        .body(
            StreamCreate::builder()
                .path("/spring-campaign_2025/hls/480p/index.m3u8")
                .origin_domain_name("origin.example.jp")
                .format(StreamFormat::Hls)
                .video_codec(VideoCodec("H264".to_owned()))
                .video_bitrate(1_200_000)
                .framerate(29.97)
                .width(854)
                .height(480)
                .audio_codec(AudioCodec("AAC".to_owned()))
                .audio_bitrate(96_000)
                .sample_rate(44_100)
                .channels(2)
                .audio_language("ja")
                .audio_label("日本語")
                .playback_rate(1.0)
                .filesize(402_653_184)
                .encoder_task_id(NonZeroU64::new(90215))
                .is_original(false)
                .status(StreamStatus::Completed),
        )
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(Expect::post("/v1/contents/spring-campaign_2025/streams").json(json!({
        "path": "/spring-campaign_2025/hls/480p/index.m3u8",
        "origin_domain_name": "origin.example.jp",
        "format": "HLS",
        "video_codec": "H264",
        "video_bitrate": 1_200_000,
        "framerate": 29.97,
        "width": 854,
        "height": 480,
        "audio_codec": "AAC",
        "audio_bitrate": 96_000,
        "sample_rate": 44_100,
        "channels": 2,
        "audio_language": "ja",
        "audio_label": "日本語",
        "playback_rate": 1.0,
        "filesize": 402_653_184,
        "encoder_task_id": 90215,
        "is_original": false,
        "status": "COMPLETED"
    })))
    .await;
    assert_eq!(registered.id.as_deref(), Some("9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c72"));
}

#[tokio::test]
async fn register_streams_bulk() {
    let wire = Wire::ok(json!({
        "responses": [
            {"id": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c73"},
            {"id": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c74"}
        ]
    }))
    .await;
    let registered = wire
        .vms()
        .register_streams_bulk()
        .content_name("spring-campaign_2025")
        .body(
            StreamBulkCreate::builder().requests([
                StreamCreate::builder()
                    .path("/spring-campaign_2025/hls/audio-ja/index.m3u8")
                    .format(StreamFormat::Hls)
                    .audio_codec(AudioCodec("AAC".to_owned()))
                    .audio_bitrate(128_000)
                    .sample_rate(48_000)
                    .channels(2)
                    .audio_track_type(AudioTrackType("MAIN".to_owned()))
                    .audio_language("ja")
                    .audio_label("日本語"),
                StreamCreate::builder()
                    .path("/spring-campaign_2025/hls/1080p-2x/index.m3u8")
                    .format(StreamFormat::Hls)
                    .video_codec(VideoCodec("H265".to_owned()))
                    .video_bitrate(4_000_000)
                    .width(1920)
                    .height(1080)
                    .playback_rate(2.0)
                    .encoder_task_id(NonZeroU64::new(90216)),
            ]),
        )
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(
        Expect::post("/v1/contents/spring-campaign_2025/streams/bulk").json(json!({
            "requests": [
                {
                    "path": "/spring-campaign_2025/hls/audio-ja/index.m3u8",
                    "format": "HLS",
                    "audio_codec": "AAC",
                    "audio_bitrate": 128_000,
                    "sample_rate": 48_000,
                    "channels": 2,
                    "audio_track_type": "MAIN",
                    "audio_language": "ja",
                    "audio_label": "日本語",
                    "playback_rate": 1.0,
                    "is_original": false,
                    "status": "COMPLETED"
                },
                {
                    "path": "/spring-campaign_2025/hls/1080p-2x/index.m3u8",
                    "format": "HLS",
                    "video_codec": "H265",
                    "video_bitrate": 4_000_000,
                    "width": 1920,
                    "height": 1080,
                    "playback_rate": 2.0,
                    "encoder_task_id": 90216,
                    "is_original": false,
                    "status": "COMPLETED"
                }
            ]
        })),
    )
    .await;
    assert_eq!(registered.responses.len(), 2);
    assert_eq!(
        registered.responses[0].id(),
        Some("9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c73")
    );
    assert_eq!(
        registered.responses[1].id(),
        Some("9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c74")
    );
}

#[tokio::test]
async fn get_stream() {
    let wire = Wire::ok(json!({
        "id": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
        "path": "/spring-campaign_2025/hls/1080p/index.m3u8",
        "format": "HLS",
        "video_codec": "H264",
        "video_bitrate": 5000000,
        "framerate": 29.97,
        "width": 1920,
        "height": 1080,
        "audio_codec": "AAC",
        "audio_bitrate": 128000,
        "sample_rate": 48000,
        "channels": 2,
        "audio_track_type": null,
        "audio_language": "ja",
        "audio_label": "日本語",
        "playback_rate": 1.0,
        "filesize": 1154310422,
        "encoder_task_id": 90211,
        "is_original": false,
        "status": "COMPLETED",
        "created_at": "2025-03-18 10:21:45",
        "updated_at": "2025-03-22 11:30:00"
    }))
    .await;
    let stream = wire
        .vms()
        .get_stream()
        .content_name("spring-campaign_2025")
        .stream_id("9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d")
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(Expect::get(
        "/v1/contents/spring-campaign_2025/streams/9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
    ))
    .await;
    assert_eq!(stream.id.as_deref(), Some("9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d"));
    assert_eq!(
        stream.path.as_deref(),
        Some("/spring-campaign_2025/hls/1080p/index.m3u8")
    );
    assert_eq!(stream.format, Some(StreamFormat::Hls));
    assert_eq!(stream.video_codec, Some(VideoCodec("H264".to_owned())));
    assert_eq!(stream.video_bitrate, Some(5_000_000));
    assert_eq!(stream.framerate, Some(29.97));
    assert_eq!((stream.width, stream.height), (Some(1920), Some(1080)));
    assert_eq!(stream.audio_bitrate, Some(128_000));
    assert_eq!(stream.sample_rate, Some(48_000));
    assert_eq!(stream.channels, Some(2));
    assert_eq!(stream.audio_track_type, None);
    assert_eq!(stream.audio_label.as_deref(), Some("日本語"));
    assert_eq!(stream.playback_rate, Some(1.0));
    assert_eq!(stream.filesize, Some(1_154_310_422));
    assert_eq!(stream.encoder_task_id, Some(90211));
    assert_eq!(stream.is_original, Some(false));
    assert_eq!(stream.status, Some(StreamStatus::Completed));
    assert_eq!(text(&stream.updated_at).as_deref(), Some("2025-03-22 11:30:00"));
}

#[tokio::test]
async fn update_stream() {
    let wire = Wire::no_content().await;
    let body = StreamUpdate {
        path: Some("/spring-campaign_2025/hls/1080p-v2/index.m3u8".parse().unwrap()),
        origin_domain_name: Some("origin2.example.jp".parse().unwrap()),
        format: Some(StreamFormat::Hls),
        video_codec: Some(VideoCodec("H265".to_owned())),
        video_bitrate: Some(4_500_000),
        framerate: Some(30.0),
        width: Some(1920),
        height: Some(1080),
        audio_codec: Some(AudioCodec("AAC".to_owned())),
        audio_bitrate: Some(160_000),
        sample_rate: Some(48_000),
        channels: Some(6),
        audio_track_type: None,
        audio_language: Some("ja".parse().unwrap()),
        audio_label: Some("日本語 5.1ch".parse().unwrap()),
        playback_rate: Some(1.5),
        filesize: Some(1_020_054_528),
        encoder_task_id: NonZeroU64::new(90230),
        is_original: Some(false),
        status: Some(StreamStatus::Completed),
    };
    wire.vms()
        .update_stream()
        .content_name("spring-campaign_2025")
        .stream_id("9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d")
        .body(body)
        .send()
        .await
        .unwrap();
    wire.verify(
        Expect::patch("/v1/contents/spring-campaign_2025/streams/9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d").json(json!({
            "path": "/spring-campaign_2025/hls/1080p-v2/index.m3u8",
            "origin_domain_name": "origin2.example.jp",
            "format": "HLS",
            "video_codec": "H265",
            "video_bitrate": 4_500_000,
            "framerate": 30.0,
            "width": 1920,
            "height": 1080,
            "audio_codec": "AAC",
            "audio_bitrate": 160_000,
            "sample_rate": 48_000,
            "channels": 6,
            "audio_language": "ja",
            "audio_label": "日本語 5.1ch",
            "playback_rate": 1.5,
            "filesize": 1_020_054_528,
            "encoder_task_id": 90230,
            "is_original": false,
            "status": "COMPLETED"
        })),
    )
    .await;
}

#[tokio::test]
async fn delete_stream() {
    let wire = Wire::no_content().await;
    wire.vms()
        .delete_stream()
        .content_name("spring-campaign_2025")
        .stream_id("9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c71")
        .send()
        .await
        .unwrap();
    wire.verify(Expect::delete(
        "/v1/contents/spring-campaign_2025/streams/9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c71",
    ))
    .await;
}

#[tokio::test]
async fn list_subtitles() {
    let wire = Wire::ok(json!({
        "data": [
            {
                "id": "c4d5e6f7-0819-4a2b-8c3d-4e5f60718293",
                "format": "WEBVTT",
                "language": "ja",
                "label": "日本語",
                "url": "https://storage.example.jp/subtitles/spring-ja.vtt",
                "created_at": "2025-03-18 10:21:45",
                "updated_at": "2025-03-18 10:21:45"
            },
            {
                "id": "c4d5e6f7-0819-4a2b-8c3d-4e5f60718295",
                "format": "UNKNOWN",
                "language": null,
                "label": "Commentary",
                "url": "https://storage.example.jp/subtitles/spring-commentary.srt",
                "created_at": "2025-03-25 15:44:09",
                "updated_at": "2025-03-25 15:44:09"
            }
        ]
    }))
    .await;
    let subtitles = wire
        .vms()
        .list_subtitles()
        .content_name("spring-campaign_2025")
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(Expect::get("/v1/contents/spring-campaign_2025/subtitles"))
        .await;
    assert_eq!(subtitles.data.len(), 2);
    assert_eq!(subtitles.data[0].format, Some(SubtitleFormat::Webvtt));
    assert_eq!(subtitles.data[0].language.as_deref(), Some("ja"));
    assert_eq!(subtitles.data[0].label.as_deref(), Some("日本語"));
    assert_eq!(
        subtitles.data[1].id.as_deref(),
        Some("c4d5e6f7-0819-4a2b-8c3d-4e5f60718295")
    );
    assert_eq!(subtitles.data[1].format, Some(SubtitleFormat::Unknown));
    assert_eq!(subtitles.data[1].language, None);
    assert_eq!(
        subtitles.data[1].url.as_deref(),
        Some("https://storage.example.jp/subtitles/spring-commentary.srt")
    );
    assert_eq!(
        subtitles.data[1]
            .created_at
            .as_ref()
            .map(ToString::to_string)
            .as_deref(),
        Some("2025-03-25 15:44:09")
    );
}

#[tokio::test]
async fn register_subtitle() {
    let wire = Wire::ok(json!({"id": "c4d5e6f7-0819-4a2b-8c3d-4e5f60718296"})).await;
    let registered = wire
        .vms()
        .register_subtitle()
        .content_name("spring-campaign_2025")
        .body(
            SubtitleCreate::builder()
                .format(SubtitleFormat::Webvtt)
                .language("ja")
                .label("日本語（字幕）")
                .url("https://storage.example.jp/subtitles/spring-ja-cc.vtt")
                .content("V0VCVlRUCgowMDowMC4wMDAgLS0+IDAwOjA0LjAwMArjgZPjgpPjgavjgaHjga8K"),
        )
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(Expect::post("/v1/contents/spring-campaign_2025/subtitles").json(json!({
        "format": "WEBVTT",
        "language": "ja",
        "label": "日本語（字幕）",
        "url": "https://storage.example.jp/subtitles/spring-ja-cc.vtt",
        "content": "V0VCVlRUCgowMDowMC4wMDAgLS0+IDAwOjA0LjAwMArjgZPjgpPjgavjgaHjga8K"
    })))
    .await;
    assert_eq!(registered.id.as_deref(), Some("c4d5e6f7-0819-4a2b-8c3d-4e5f60718296"));
}

#[tokio::test]
async fn register_subtitles_bulk() {
    let wire = Wire::ok(json!({
        // "array of id": the bare-string reading, beside the `{id}` one of the other bulk operations;
        // an id object carrying a member the documents do not show is still an id object.
        "responses": [
            "c4d5e6f7-0819-4a2b-8c3d-4e5f60718297",
            {"id": "c4d5e6f7-0819-4a2b-8c3d-4e5f60718298", "registered_at": "2025-06-01 12:00:00"},
            "c4d5e6f7-0819-4a2b-8c3d-4e5f60718299"
        ]
    }))
    .await;
    let registered = wire
        .vms()
        .register_subtitles_bulk()
        .content_name("spring-campaign_2025")
        .body(
            SubtitleBulkCreate::builder().requests([
                SubtitleCreate::builder()
                    .format(SubtitleFormat::Webvtt)
                    .language("en")
                    .label("English")
                    .url("https://storage.example.jp/subtitles/spring-en.vtt"),
                SubtitleCreate::builder()
                    .format(SubtitleFormat::Webvtt)
                    .language("ko")
                    .label("한국어")
                    .url("https://storage.example.jp/subtitles/spring-ko.vtt"),
                SubtitleCreate::builder()
                    .format(SubtitleFormat::Webvtt)
                    .language("zh")
                    .label("中文")
                    .content("V0VCVlRUCgowMDowMC4wMDAgLS0+IDAwOjA0LjAwMApIZWxsbwo="),
            ]),
        )
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(
        Expect::post("/v1/contents/spring-campaign_2025/subtitles/bulk").json(json!({
            "requests": [
                {
                    "format": "WEBVTT",
                    "language": "en",
                    "label": "English",
                    "url": "https://storage.example.jp/subtitles/spring-en.vtt"
                },
                {
                    "format": "WEBVTT",
                    "language": "ko",
                    "label": "한국어",
                    "url": "https://storage.example.jp/subtitles/spring-ko.vtt"
                },
                {
                    "format": "WEBVTT",
                    "language": "zh",
                    "label": "中文",
                    "content": "V0VCVlRUCgowMDowMC4wMDAgLS0+IDAwOjA0LjAwMApIZWxsbwo="
                }
            ]
        })),
    )
    .await;
    let ids: Vec<_> = registered.responses.iter().map(|r| r.id()).collect();
    assert_eq!(
        ids,
        [
            Some("c4d5e6f7-0819-4a2b-8c3d-4e5f60718297"),
            Some("c4d5e6f7-0819-4a2b-8c3d-4e5f60718298"),
            Some("c4d5e6f7-0819-4a2b-8c3d-4e5f60718299")
        ]
    );
    assert!(matches!(registered.responses[0], BulkRegisteredId::String(_)));
    let BulkRegisteredId::RegisteredId(object) = &registered.responses[1] else {
        panic!("not the object form: {:?}", registered.responses[1]);
    };
    assert_eq!(object.extra["registered_at"], "2025-06-01 12:00:00");
}

#[tokio::test]
async fn get_subtitle() {
    let wire = Wire::ok(json!({
        "id": "c4d5e6f7-0819-4a2b-8c3d-4e5f60718294",
        "format": "WEBVTT",
        "language": "en",
        "label": "English",
        "url": "https://storage.example.jp/subtitles/spring-en.vtt",
        "created_at": "2025-03-18 10:21:45",
        "updated_at": "2025-04-10 19:02:33"
    }))
    .await;
    let subtitle = wire
        .vms()
        .get_subtitle()
        .content_name("spring-campaign_2025")
        .subtitle_id("c4d5e6f7-0819-4a2b-8c3d-4e5f60718294")
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(Expect::get(
        "/v1/contents/spring-campaign_2025/subtitles/c4d5e6f7-0819-4a2b-8c3d-4e5f60718294",
    ))
    .await;
    assert_eq!(subtitle.id.as_deref(), Some("c4d5e6f7-0819-4a2b-8c3d-4e5f60718294"));
    assert_eq!(subtitle.format, Some(SubtitleFormat::Webvtt));
    assert_eq!(subtitle.language.as_deref(), Some("en"));
    assert_eq!(subtitle.label.as_deref(), Some("English"));
    assert_eq!(
        subtitle.url.as_deref(),
        Some("https://storage.example.jp/subtitles/spring-en.vtt")
    );
    assert_eq!(text(&subtitle.created_at).as_deref(), Some("2025-03-18 10:21:45"));
    assert_eq!(text(&subtitle.updated_at).as_deref(), Some("2025-04-10 19:02:33"));
}

#[tokio::test]
async fn update_subtitle() {
    let wire = Wire::no_content().await;
    let body = SubtitleUpdate {
        format: Some(SubtitleFormat::Webvtt),
        language: Some("en".parse().unwrap()),
        label: Some("English (CC)".parse().unwrap()),
        url: Some("https://storage.example.jp/subtitles/spring-en-cc.vtt".parse().unwrap()),
        content: Some("V0VCVlRUCgowMDowMC4wMDAgLS0+IDAwOjA0LjAwMApIZWxsbwo=".parse().unwrap()),
    };
    wire.vms()
        .update_subtitle()
        .content_name("spring-campaign_2025")
        .subtitle_id("c4d5e6f7-0819-4a2b-8c3d-4e5f60718294")
        .body(body)
        .send()
        .await
        .unwrap();
    wire.verify(
        Expect::patch("/v1/contents/spring-campaign_2025/subtitles/c4d5e6f7-0819-4a2b-8c3d-4e5f60718294").json(json!({
            "format": "WEBVTT",
            "language": "en",
            "label": "English (CC)",
            "url": "https://storage.example.jp/subtitles/spring-en-cc.vtt",
            "content": "V0VCVlRUCgowMDowMC4wMDAgLS0+IDAwOjA0LjAwMApIZWxsbwo="
        })),
    )
    .await;
}

#[tokio::test]
async fn delete_subtitle() {
    let wire = Wire::no_content().await;
    wire.vms()
        .delete_subtitle()
        .content_name("spring-campaign_2025")
        .subtitle_id("c4d5e6f7-0819-4a2b-8c3d-4e5f60718295")
        .send()
        .await
        .unwrap();
    wire.verify(Expect::delete(
        "/v1/contents/spring-campaign_2025/subtitles/c4d5e6f7-0819-4a2b-8c3d-4e5f60718295",
    ))
    .await;
}

#[tokio::test]
async fn list_posters() {
    let wire = Wire::ok(json!({
        "data": [
            {
                "id": "e1f2a3b4-c5d6-4e7f-8091-a2b3c4d5e6f7",
                "format": "PNG",
                "width": 1920,
                "height": 1080,
                "url": "https://storage.example.jp/posters/spring-cover.png",
                "timestamp": 0,
                "used_in_slideshow": true,
                "created_at": "2025-03-18 10:21:45",
                "updated_at": "2025-03-18 10:21:45"
            },
            {
                "id": "e1f2a3b4-c5d6-4e7f-8091-a2b3c4d5e6f8",
                "format": "PNG",
                "width": 1280,
                "height": 720,
                "url": "https://storage.example.jp/posters/spring-lineup.png",
                "timestamp": 754,
                "used_in_slideshow": true,
                "created_at": "2025-03-18 10:21:46",
                "updated_at": "2025-03-18 10:21:46"
            },
            {
                "id": "e1f2a3b4-c5d6-4e7f-8091-a2b3c4d5e6f9",
                "format": "UNKNOWN",
                "width": 640,
                "height": 360,
                "url": "https://storage.example.jp/posters/spring-thumb.webp",
                "timestamp": null,
                "used_in_slideshow": false,
                "created_at": "2025-03-20 09:00:00",
                "updated_at": "2025-03-20 09:00:00"
            }
        ]
    }))
    .await;
    let posters = wire
        .vms()
        .list_posters()
        .content_name("spring-campaign_2025")
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(Expect::get("/v1/contents/spring-campaign_2025/posters"))
        .await;
    assert_eq!(posters.data.len(), 3);
    assert_eq!(posters.data[0].format, Some(PosterFormat::Png));
    assert_eq!(posters.data[0].width, Some(1920));
    assert_eq!(posters.data[1].timestamp, Some(754));
    assert_eq!(posters.data[1].used_in_slideshow, Some(true));
    assert_eq!(posters.data[2].format, Some(PosterFormat::Unknown));
    assert_eq!(posters.data[2].timestamp, None);
    assert_eq!(posters.data[2].used_in_slideshow, Some(false));
    assert_eq!(
        posters.data[2].url.as_deref(),
        Some("https://storage.example.jp/posters/spring-thumb.webp")
    );
    assert_eq!(
        text(&posters.data[2].created_at).as_deref(),
        Some("2025-03-20 09:00:00")
    );
}

#[tokio::test]
async fn register_poster() {
    let wire = Wire::ok(json!({"id": "e1f2a3b4-c5d6-4e7f-8091-a2b3c4d5e6fa"})).await;
    let registered = wire
        .vms()
        .register_poster()
        .content_name("spring-campaign_2025")
        .body(
            PosterCreate::builder()
                .format(PosterFormat::Png)
                .width(1920)
                .height(1080)
                .url("https://storage.example.jp/posters/spring-finale.png")
                .content("iVBORw0KGgoAAAANSUhEUg==")
                .timestamp(1790)
                .used_in_slideshow(true),
        )
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(Expect::post("/v1/contents/spring-campaign_2025/posters").json(json!({
        "format": "PNG",
        "width": 1920,
        "height": 1080,
        "url": "https://storage.example.jp/posters/spring-finale.png",
        "content": "iVBORw0KGgoAAAANSUhEUg==",
        "timestamp": 1790,
        "used_in_slideshow": true
    })))
    .await;
    assert_eq!(registered.id.as_deref(), Some("e1f2a3b4-c5d6-4e7f-8091-a2b3c4d5e6fa"));
}

#[tokio::test]
async fn register_posters_bulk() {
    let wire = Wire::ok(json!({
        "responses": [
            {"id": "e1f2a3b4-c5d6-4e7f-8091-a2b3c4d5e6fb"},
            {"id": "e1f2a3b4-c5d6-4e7f-8091-a2b3c4d5e6fc"}
        ]
    }))
    .await;
    let registered = wire
        .vms()
        .register_posters_bulk()
        .content_name("spring-campaign_2025")
        .body(
            PosterBulkCreate::builder().requests([
                PosterCreate::builder()
                    .format(PosterFormat::Png)
                    .width(1280)
                    .height(720)
                    .url("https://storage.example.jp/posters/spring-scene-01.png")
                    .timestamp(300)
                    .used_in_slideshow(true),
                PosterCreate::builder()
                    .format(PosterFormat::Unknown)
                    .url("https://storage.example.jp/posters/spring-scene-02.jpg")
                    .timestamp(600),
            ]),
        )
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(
        Expect::post("/v1/contents/spring-campaign_2025/posters/bulk").json(json!({
            "requests": [
                {
                    "format": "PNG",
                    "width": 1280,
                    "height": 720,
                    "url": "https://storage.example.jp/posters/spring-scene-01.png",
                    "timestamp": 300,
                    "used_in_slideshow": true
                },
                {
                    "format": "UNKNOWN",
                    "url": "https://storage.example.jp/posters/spring-scene-02.jpg",
                    "timestamp": 600,
                    "used_in_slideshow": false
                }
            ]
        })),
    )
    .await;
    assert_eq!(registered.responses.len(), 2);
    assert_eq!(
        registered.responses[0].id(),
        Some("e1f2a3b4-c5d6-4e7f-8091-a2b3c4d5e6fb")
    );
    assert_eq!(
        registered.responses[1].id(),
        Some("e1f2a3b4-c5d6-4e7f-8091-a2b3c4d5e6fc")
    );
}

#[tokio::test]
async fn reorder_posters() {
    let wire = Wire::no_content().await;
    wire.vms()
        .reorder_posters()
        .content_name("spring-campaign_2025")
        .body(PosterOrder {
            order: vec![
                uuid!("e1f2a3b4-c5d6-4e7f-8091-a2b3c4d5e6f8"),
                uuid!("e1f2a3b4-c5d6-4e7f-8091-a2b3c4d5e6f7"),
                uuid!("e1f2a3b4-c5d6-4e7f-8091-a2b3c4d5e6f9"),
            ],
        })
        .send()
        .await
        .unwrap();
    wire.verify(
        Expect::put("/v1/contents/spring-campaign_2025/posters/order").json(json!({
            "order": [
                "e1f2a3b4-c5d6-4e7f-8091-a2b3c4d5e6f8",
                "e1f2a3b4-c5d6-4e7f-8091-a2b3c4d5e6f7",
                "e1f2a3b4-c5d6-4e7f-8091-a2b3c4d5e6f9"
            ]
        })),
    )
    .await;
}

#[tokio::test]
async fn get_poster() {
    let wire = Wire::ok(json!({
        "id": "e1f2a3b4-c5d6-4e7f-8091-a2b3c4d5e6f8",
        "format": "PNG",
        "width": 1280,
        "height": 720,
        "url": "https://storage.example.jp/posters/spring-lineup.png",
        "timestamp": 754,
        "used_in_slideshow": true,
        "created_at": "2025-03-18 10:21:46",
        "updated_at": "2025-03-20 09:00:00"
    }))
    .await;
    let poster = wire
        .vms()
        .get_poster()
        .content_name("spring-campaign_2025")
        .poster_id("e1f2a3b4-c5d6-4e7f-8091-a2b3c4d5e6f8")
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(Expect::get(
        "/v1/contents/spring-campaign_2025/posters/e1f2a3b4-c5d6-4e7f-8091-a2b3c4d5e6f8",
    ))
    .await;
    assert_eq!(poster.id.as_deref(), Some("e1f2a3b4-c5d6-4e7f-8091-a2b3c4d5e6f8"));
    assert_eq!(poster.format, Some(PosterFormat::Png));
    assert_eq!((poster.width, poster.height), (Some(1280), Some(720)));
    assert_eq!(
        poster.url.as_deref(),
        Some("https://storage.example.jp/posters/spring-lineup.png")
    );
    assert_eq!(poster.timestamp, Some(754));
    assert_eq!(poster.used_in_slideshow, Some(true));
    assert_eq!(text(&poster.created_at).as_deref(), Some("2025-03-18 10:21:46"));
    assert_eq!(text(&poster.updated_at).as_deref(), Some("2025-03-20 09:00:00"));
}

#[tokio::test]
async fn update_poster() {
    let wire = Wire::no_content().await;
    let body = PosterUpdate {
        format: Some(PosterFormat::Png),
        width: Some(1920),
        height: Some(1080),
        url: Some(
            "https://storage.example.jp/posters/spring-lineup-hd.png"
                .parse()
                .unwrap(),
        ),
        content: Some("iVBORw0KGgoAAAANSUhEUg==".parse().unwrap()),
        timestamp: Some(760),
        used_in_slideshow: Some(false),
    };
    wire.vms()
        .update_poster()
        .content_name("spring-campaign_2025")
        .poster_id("e1f2a3b4-c5d6-4e7f-8091-a2b3c4d5e6f8")
        .body(body)
        .send()
        .await
        .unwrap();
    wire.verify(
        Expect::patch("/v1/contents/spring-campaign_2025/posters/e1f2a3b4-c5d6-4e7f-8091-a2b3c4d5e6f8").json(json!({
            "format": "PNG",
            "width": 1920,
            "height": 1080,
            "url": "https://storage.example.jp/posters/spring-lineup-hd.png",
            "content": "iVBORw0KGgoAAAANSUhEUg==",
            "timestamp": 760,
            "used_in_slideshow": false
        })),
    )
    .await;
}

#[tokio::test]
async fn delete_poster() {
    let wire = Wire::no_content().await;
    wire.vms()
        .delete_poster()
        .content_name("spring-campaign_2025")
        .poster_id("e1f2a3b4-c5d6-4e7f-8091-a2b3c4d5e6f9")
        .send()
        .await
        .unwrap();
    wire.verify(Expect::delete(
        "/v1/contents/spring-campaign_2025/posters/e1f2a3b4-c5d6-4e7f-8091-a2b3c4d5e6f9",
    ))
    .await;
}

#[tokio::test]
async fn list_documents() {
    let wire = Wire::ok(json!({
        "data": [
            {
                "id": "d0c1b2a3-9485-4766-a5b4-c3d2e1f0a9b8",
                "title": "Campaign slides",
                "type": "application/pdf",
                "url": "https://storage.example.jp/docs/spring-slides.pdf",
                "filename": "spring-slides.pdf",
                "created_at": "2025-03-18 10:21:45",
                "updated_at": "2025-03-18 10:21:45"
            },
            {
                "id": "d0c1b2a3-9485-4766-a5b4-c3d2e1f0a9b9",
                "title": "価格表 2025年春",
                "type": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
                "url": "https://storage.example.jp/docs/price-list-2025-spring.xlsx",
                "filename": "価格表.xlsx",
                "created_at": "2025-03-22 13:05:17",
                "updated_at": "2025-03-22 13:05:17"
            }
        ]
    }))
    .await;
    let documents = wire
        .vms()
        .list_documents()
        .content_name("spring-campaign_2025")
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(Expect::get("/v1/contents/spring-campaign_2025/documents"))
        .await;
    assert_eq!(documents.data.len(), 2);
    assert_eq!(documents.data[0].title.as_deref(), Some("Campaign slides"));
    assert_eq!(documents.data[0].type_.as_deref(), Some("application/pdf"));
    assert_eq!(
        documents.data[1].id.as_deref(),
        Some("d0c1b2a3-9485-4766-a5b4-c3d2e1f0a9b9")
    );
    assert_eq!(documents.data[1].title.as_deref(), Some("価格表 2025年春"));
    assert_eq!(documents.data[1].filename.as_deref(), Some("価格表.xlsx"));
    assert_eq!(
        documents.data[1]
            .updated_at
            .as_ref()
            .map(ToString::to_string)
            .as_deref(),
        Some("2025-03-22 13:05:17")
    );
}

#[tokio::test]
async fn register_document() {
    let wire = Wire::ok(json!({"id": "d0c1b2a3-9485-4766-a5b4-c3d2e1f0a9ba"})).await;
    let registered = wire
        .vms()
        .register_document()
        .content_name("spring-campaign_2025")
        .body(
            DocumentCreate::builder()
                .title("Press release")
                .type_("application/pdf")
                .url("https://storage.example.jp/docs/spring-press.pdf")
                .content("JVBERi0xLjcKJeLjz9MK")
                .filename("spring-press.pdf"),
        )
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(Expect::post("/v1/contents/spring-campaign_2025/documents").json(json!({
        "title": "Press release",
        "type": "application/pdf",
        "url": "https://storage.example.jp/docs/spring-press.pdf",
        "content": "JVBERi0xLjcKJeLjz9MK",
        "filename": "spring-press.pdf"
    })))
    .await;
    assert_eq!(registered.id.as_deref(), Some("d0c1b2a3-9485-4766-a5b4-c3d2e1f0a9ba"));
}

#[tokio::test]
async fn register_documents_bulk() {
    let wire = Wire::ok(json!({
        "responses": [
            {"id": "d0c1b2a3-9485-4766-a5b4-c3d2e1f0a9bb"},
            {"id": "d0c1b2a3-9485-4766-a5b4-c3d2e1f0a9bc"}
        ]
    }))
    .await;
    let registered = wire
        .vms()
        .register_documents_bulk()
        .content_name("spring-campaign_2025")
        .body(
            DocumentBulkCreate::builder().requests([
                DocumentCreate::builder()
                    .title("Product catalogue")
                    .type_("application/pdf")
                    .url("https://storage.example.jp/docs/catalogue-2025.pdf"),
                DocumentCreate::builder()
                    .title("価格表 2025年春")
                    .type_("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet")
                    .content("UEsDBBQABgAIAAAAIQA=")
                    .filename("価格表.xlsx"),
            ]),
        )
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(
        Expect::post("/v1/contents/spring-campaign_2025/documents/bulk").json(json!({
            "requests": [
                {
                    "title": "Product catalogue",
                    "type": "application/pdf",
                    "url": "https://storage.example.jp/docs/catalogue-2025.pdf"
                },
                {
                    "title": "価格表 2025年春",
                    "type": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
                    "content": "UEsDBBQABgAIAAAAIQA=",
                    "filename": "価格表.xlsx"
                }
            ]
        })),
    )
    .await;
    assert_eq!(registered.responses.len(), 2);
    assert_eq!(
        registered.responses[1].id(),
        Some("d0c1b2a3-9485-4766-a5b4-c3d2e1f0a9bc")
    );
}

#[tokio::test]
async fn get_document() {
    let wire = Wire::ok(json!({
        "id": "d0c1b2a3-9485-4766-a5b4-c3d2e1f0a9b8",
        "title": "Campaign slides",
        "type": "application/pdf",
        "url": "https://storage.example.jp/docs/spring-slides.pdf",
        "filename": "spring-slides.pdf",
        "created_at": "2025-03-18 10:21:45",
        "updated_at": "2025-04-01 07:45:00"
    }))
    .await;
    let document = wire
        .vms()
        .get_document()
        .content_name("spring-campaign_2025")
        .document_id("d0c1b2a3-9485-4766-a5b4-c3d2e1f0a9b8")
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(Expect::get(
        "/v1/contents/spring-campaign_2025/documents/d0c1b2a3-9485-4766-a5b4-c3d2e1f0a9b8",
    ))
    .await;
    assert_eq!(document.id.as_deref(), Some("d0c1b2a3-9485-4766-a5b4-c3d2e1f0a9b8"));
    assert_eq!(document.title.as_deref(), Some("Campaign slides"));
    assert_eq!(document.type_.as_deref(), Some("application/pdf"));
    assert_eq!(
        document.url.as_deref(),
        Some("https://storage.example.jp/docs/spring-slides.pdf")
    );
    assert_eq!(document.filename.as_deref(), Some("spring-slides.pdf"));
    assert_eq!(text(&document.created_at).as_deref(), Some("2025-03-18 10:21:45"));
    assert_eq!(text(&document.updated_at).as_deref(), Some("2025-04-01 07:45:00"));
}

#[tokio::test]
async fn update_document() {
    let wire = Wire::no_content().await;
    let body = DocumentUpdate {
        title: Some("Campaign slides (revised)".parse().unwrap()),
        type_: Some("application/pdf".parse().unwrap()),
        url: Some("https://storage.example.jp/docs/spring-slides-v2.pdf".parse().unwrap()),
        content: Some("JVBERi0xLjcKJeLjz9MK".parse().unwrap()),
        filename: Some("spring-slides-v2.pdf".parse().unwrap()),
    };
    wire.vms()
        .update_document()
        .content_name("spring-campaign_2025")
        .document_id("d0c1b2a3-9485-4766-a5b4-c3d2e1f0a9b8")
        .body(body)
        .send()
        .await
        .unwrap();
    wire.verify(
        Expect::patch("/v1/contents/spring-campaign_2025/documents/d0c1b2a3-9485-4766-a5b4-c3d2e1f0a9b8").json(json!({
            "title": "Campaign slides (revised)",
            "type": "application/pdf",
            "url": "https://storage.example.jp/docs/spring-slides-v2.pdf",
            "content": "JVBERi0xLjcKJeLjz9MK",
            "filename": "spring-slides-v2.pdf"
        })),
    )
    .await;
}

#[tokio::test]
async fn delete_document() {
    let wire = Wire::no_content().await;
    wire.vms()
        .delete_document()
        .content_name("spring-campaign_2025")
        .document_id("d0c1b2a3-9485-4766-a5b4-c3d2e1f0a9b9")
        .send()
        .await
        .unwrap();
    wire.verify(Expect::delete(
        "/v1/contents/spring-campaign_2025/documents/d0c1b2a3-9485-4766-a5b4-c3d2e1f0a9b9",
    ))
    .await;
}

#[tokio::test]
async fn with_content_name_outside_the_documented_characters() {
    // Content names are documented as ^[0-9a-zA-Z-_]+$, so a name that would
    // need percent-encoding is refused before anything is sent.
    let wire = Wire::no_content().await;
    for name in ["my movie", "campaign/2025", "動画"] {
        let refused = wire.vms().delete_content().content_name(name).send().await;
        let message = refused.expect_err(name).to_string();
        assert!(message.contains("content_name"), "{name}: {message}");
    }
    wire.assert_nothing_sent().await;
}

/// The wire text of an optional timestamp or date.
fn text<T: ToString>(value: &Option<T>) -> Option<String> {
    value.as_ref().map(ToString::to_string)
}

fn tag(key: &str, value: &str) -> Tag {
    Tag {
        key: Some(key.to_owned()),
        value: Some(value.to_owned()),
    }
}

fn object(value: Value) -> Map<String, Value> {
    value.as_object().expect("a JSON object").clone()
}

fn header<'r>(request: &'r wiremock::Request, name: &str) -> Option<&'r str> {
    request.headers.get(name).and_then(|value| value.to_str().ok())
}
