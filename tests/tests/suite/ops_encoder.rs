//! Every encoding-service operation on the wire: the exact request, and the
//! documented response decoded into typed values.

use crate::harness::{Expect, Wire};
use serde_json::{json, Map, Value};
use std::num::NonZeroU64;
use vidplat::encoder::types::{
    DashConfig, DestinationSettings, HlsConfig, NotificationSettingsUpdate, ObjstoreSettings, PresetCreate,
    PresetCreateDescription, PresetDestination, PresetFormat, PresetName, PresetOutputFilename, PresetOverride,
    PresetPoster, PresetProfileConfig, PresetSeekPreview, PresetStream, PresetStreamVideo, PresetUpdate,
    PresetUpdateDescription, PresetVmsConfig, PresetWatermark, ProfileCreate, ProfileCreateDescription, ProfileName,
    ProfileShare, ProfileUpdate, ProfileUpdateDescription, ProfileVmsConfig, TaskCreate, TaskCreateEpisodeName,
    TaskCreateMultiAngleLabelsItem, TaskCreateOutputFilename, TaskCreatePosterFilenamePrefix,
    TaskCreateSeekPreviewFilename, TaskCreateSegmentFilenamePrefix, TaskFormat, TaskStatus, TaskTrim, TaskVmsConfig,
    TaskVmsConfigOverrides, UploadType,
};

#[tokio::test]
async fn get_input_file() {
    let wire = Wire::ok(json!({
        "filename": "dir/my movie.mp4",
        "filesize": "1.2 GB",
        "filetime": "2025-06-01 12:34:56"
    }))
    .await;
    let file = wire
        .encoder()
        .get_input_file()
        .filename("dir/my movie.mp4")
        .readable(1)
        .send()
        .await
        .unwrap()
        .into_inner();
    // A slash and a space inside one path parameter are both percent-encoded.
    wire.verify(Expect::get("/v1/upload/dir%2Fmy%20movie.mp4?readable=1"))
        .await;
    assert_eq!(file.filename.as_deref(), Some("dir/my movie.mp4"));
    assert_eq!(file.filesize.as_deref(), Some("1.2 GB"));
    assert_eq!(
        file.filetime.map(|t| t.to_string()).as_deref(),
        Some("2025-06-01 12:34:56")
    );
}

#[tokio::test]
async fn get_external_id() {
    let wire = Wire::ok(json!({"external_id": "vp-ext-7f3c2a91d4e8b6056c1f"})).await;
    let id = wire.encoder().get_external_id().send().await.unwrap().into_inner();
    wire.verify(Expect::get("/v1/external_id")).await;
    assert_eq!(id.external_id.as_deref(), Some("vp-ext-7f3c2a91d4e8b6056c1f"));
}

#[tokio::test]
async fn get_task_counts() {
    let wire = Wire::ok(json!({
        "waiting": 4,
        "encoding": 2,
        "uploading": 1,
        "ready": 318,
        "canceling": 0,
        "canceled": 7,
        "failed": 3
    }))
    .await;
    let counts = wire.encoder().get_task_counts().send().await.unwrap().into_inner();
    wire.verify(Expect::get("/v1/counts")).await;
    assert_eq!(counts.waiting, Some(4));
    assert_eq!(counts.encoding, Some(2));
    assert_eq!(counts.uploading, Some(1));
    assert_eq!(counts.ready, Some(318));
    assert_eq!(counts.canceling, Some(0));
    assert_eq!(counts.canceled, Some(7));
    assert_eq!(counts.failed, Some(3));
}

#[tokio::test]
async fn list_tasks() {
    let wire = Wire::ok(json!({
        "data": [
            {
                "id": 1843,
                "transaction": 902,
                "status": "ready",
                "error_code": 0,
                "input_filename": "campaign/2025/spring_teaser.mp4",
                "multi_angles": ["campaign/2025/spring_teaser_cam2.mp4"],
                "output_filename": "spring_teaser_hls",
                "profile_id": 9,
                "profile_name": "web_standard",
                "preset_id": 21,
                "preset_name": "hls_1080p",
                "format": "HLS",
                "destination": "vms5://",
                "poster": {"filename": "poster_spring_teaser.jpg"},
                "seek_preview": {"filename": "seek_spring_teaser.jpg"},
                "encode_start": "2025-06-01 10:00:12",
                "encode_end": "2025-06-01 10:07:45",
                "episode_name": null,
                "publish_start": null,
                "publish_end": null,
                "vms_config": {"content_name": "spring_teaser", "category_id": "5b2f9c1e-8d3a-4f6b-9e21-0c7d4a1b2e3f"},
                "created_at": "2025-06-01 09:58:30",
                "updated_at": "2025-06-01 10:08:02",
                "streams": [
                    {"video": {"height": 1080, "bitrate": 4500}, "audio": {"bitrate": 128}},
                    {"video": {"height": 720, "bitrate": 2500}, "audio": {"bitrate": 128}}
                ]
            },
            {
                "id": 1844,
                "transaction": 902,
                "status": "failed",
                "error_code": 4102,
                "input_filename": "campaign/2025/spring_teaser.mp4",
                "output_filename": "spring_teaser_mp4",
                "profile_id": 9,
                "profile_name": "web_standard",
                "preset_id": 22,
                "preset_name": "mp4_720p",
                "format": "MP4",
                "destination": "https://upload.example.com/encoded/",
                "poster": null,
                "seek_preview": null,
                "encode_start": "2025-06-01 10:00:15",
                "encode_end": null,
                "episode_name": null,
                "publish_start": null,
                "publish_end": null,
                "vms_config": null,
                "created_at": "2025-06-01 09:58:30",
                "updated_at": "2025-06-01 10:03:11",
                "streams": [{"video": {"height": 720, "bitrate": 2000}}]
            }
        ],
        "total": 27,
        "per_page": 25,
        "current_page": 2,
        "last_page": 2,
        "from": 26,
        "to": 27
    }))
    .await;
    let page = wire
        .encoder()
        .list_tasks()
        .page(2u64)
        .per_page(25u64)
        .sort("updated_at|asc")
        .send()
        .await
        .unwrap()
        .into_inner();
    // The vertical bar of the sort expression is percent-encoded in the query.
    wire.verify(Expect::get("/v1/tasks?page=2&per_page=25&sort=updated_at%7Casc"))
        .await;
    assert_eq!(page.total, Some(27));
    assert_eq!(page.per_page, Some(25));
    assert_eq!(page.current_page, Some(2));
    assert_eq!(page.last_page, Some(2));
    assert_eq!(page.from, Some(26));
    assert_eq!(page.to, Some(27));
    assert_eq!(page.data.len(), 2);
    let ready = &page.data[0];
    assert_eq!(ready.id, Some(1843));
    assert_eq!(ready.status, Some(TaskStatus::Ready));
    assert_eq!(ready.format, Some(TaskFormat::Hls));
    assert_eq!(ready.multi_angles, vec!["campaign/2025/spring_teaser_cam2.mp4"]);
    assert_eq!(
        ready.encode_end.as_ref().map(|t| t.to_string()).as_deref(),
        Some("2025-06-01 10:07:45")
    );
    assert_eq!(ready.vms_config.as_ref().unwrap()["content_name"], "spring_teaser");
    assert_eq!(ready.streams.len(), 2);
    assert_eq!(ready.streams[1]["video"]["height"], 720);
    let failed = &page.data[1];
    assert_eq!(failed.status, Some(TaskStatus::Failed));
    assert_eq!(failed.error_code, Some(4102));
    assert_eq!(failed.format, Some(TaskFormat::Mp4));
    assert_eq!(failed.transaction, ready.transaction);
    assert!(failed.poster.is_none() && failed.vms_config.is_none() && failed.encode_end.is_none());
    assert!(failed.multi_angles.is_empty());
}

#[tokio::test]
async fn register_task() {
    let wire = Wire::ok(json!({
        "success_count": 2,
        "failure_count": 0,
        "transaction": 915,
        "tasks": [
            {
                "id": 1901,
                "transaction": 915,
                "status": "waiting",
                "error_code": 0,
                "input_filename": "campaign/2025/spring_teaser.mp4",
                "output_filename": "spring_teaser_ep1",
                "profile_id": 9,
                "profile_name": "web_standard",
                "preset_id": 21,
                "preset_name": "hls_1080p",
                "format": "HLS",
                "destination": "vms5://",
                "created_at": "2025-06-02 08:15:00",
                "updated_at": "2025-06-02 08:15:00"
            },
            {
                "id": 1902,
                "transaction": 915,
                "status": "waiting",
                "error_code": 0,
                "input_filename": "campaign/2025/spring_teaser.mp4",
                "output_filename": "spring_teaser_ep1",
                "profile_id": 9,
                "profile_name": "web_standard",
                "preset_id": 22,
                "preset_name": "mp4_720p",
                "format": "MP4",
                "destination": "https://upload.example.com/encoded/",
                "created_at": "2025-06-02 08:15:00",
                "updated_at": "2025-06-02 08:15:00"
            }
        ]
    }))
    .await;
    let body = TaskCreate::builder()
        .input_filepath("campaign/2025/spring_teaser.mp4")
        .profile_id(9u64)
        .output_filename(TaskCreateOutputFilename::try_from("spring_teaser_ep1").unwrap())
        .episode_name(TaskCreateEpisodeName::try_from("春の特集_第1話").unwrap())
        .poster_filename_prefix(TaskCreatePosterFilenamePrefix::try_from("poster_spring").unwrap())
        .priority(80)
        .seek_preview_filename(TaskCreateSeekPreviewFilename::try_from("seek_spring").unwrap())
        .upload_type(UploadType::External)
        .segment_filename_prefix(TaskCreateSegmentFilenamePrefix::try_from("spring_seg").unwrap())
        .trim(TaskTrim(object(
            json!({"start": "00:00:05.000", "end": "00:01:35.000"}),
        )))
        .multi_angles(vec![
            "campaign/2025/spring_teaser_cam2.mp4".to_string(),
            "campaign/2025/spring_teaser_cam3.mp4".to_string(),
        ])
        .multi_angle_labels(vec![
            TaskCreateMultiAngleLabelsItem::try_from("Main").unwrap(),
            TaskCreateMultiAngleLabelsItem::try_from("Stage_left").unwrap(),
            TaskCreateMultiAngleLabelsItem::try_from("Stage_right").unwrap(),
        ])
        .vms_config(TaskVmsConfig {
            extra: Default::default(),
            config_overrides: Some(TaskVmsConfigOverrides {
                extra: Default::default(),
                category_id: Some("5b2f9c1e-8d3a-4f6b-9e21-0c7d4a1b2e3f".to_string()),
            }),
        })
        .preset_overrides(vec![PresetOverride(object(
            json!({"preset_id": 22, "output_filename": "spring_teaser_sd"}),
        ))]);
    let result = wire
        .encoder()
        .register_task()
        .body(body)
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(Expect::post("/v1/tasks").json(json!({
        "input_filepath": "campaign/2025/spring_teaser.mp4",
        "profile_id": 9,
        "output_filename": "spring_teaser_ep1",
        "episode_name": "春の特集_第1話",
        "poster_filename_prefix": "poster_spring",
        "priority": 80,
        "seek_preview_filename": "seek_spring",
        "upload_type": "external",
        "segment_filename_prefix": "spring_seg",
        "trim": {"start": "00:00:05.000", "end": "00:01:35.000"},
        "multi_angles": ["campaign/2025/spring_teaser_cam2.mp4", "campaign/2025/spring_teaser_cam3.mp4"],
        "multi_angle_labels": ["Main", "Stage_left", "Stage_right"],
        "vms_config": {"config_overrides": {"category_id": "5b2f9c1e-8d3a-4f6b-9e21-0c7d4a1b2e3f"}},
        "preset_overrides": [{"preset_id": 22, "output_filename": "spring_teaser_sd"}]
    })))
    .await;
    assert_eq!(result.success_count, Some(2));
    assert_eq!(result.failure_count, Some(0));
    assert_eq!(result.transaction, Some(915));
    assert_eq!(result.tasks.len(), 2);
    assert_eq!(result.tasks[0].id, Some(1901));
    assert_eq!(result.tasks[0].status, Some(TaskStatus::Waiting));
    assert_eq!(result.tasks[1].preset_name.as_deref(), Some("mp4_720p"));
    assert_eq!(result.tasks[1].transaction, Some(915));
    assert_eq!(
        result.tasks[1].created_at.as_ref().map(|t| t.to_string()).as_deref(),
        Some("2025-06-02 08:15:00")
    );
}

#[tokio::test]
async fn delete_all_tasks() {
    let wire = Wire::no_content().await;
    let response = wire.encoder().delete_all_tasks().send().await.unwrap();
    wire.verify(Expect::delete("/v1/tasks")).await;
    assert_eq!(response.status().as_u16(), 204);
}

#[tokio::test]
async fn get_task() {
    let wire = Wire::ok(json!({
        "id": 1877,
        "transaction": 910,
        "status": "encoding",
        "error_code": 0,
        "input_filename": "drama/s01/episode_03.mov",
        "multi_angles": ["drama/s01/episode_03_cam2.mov", "drama/s01/episode_03_cam3.mov"],
        "output_filename": "episode_03",
        "profile_id": 12,
        "profile_name": "legacy_vms_hls",
        "preset_id": 31,
        "preset_name": "vms4_hls_720p",
        "format": "HLS",
        "destination": "vms4://1024:55",
        "poster": {"filename": "poster_episode_03.jpg", "time": 10},
        "seek_preview": null,
        "encode_start": "2025-06-03 14:02:11",
        "encode_end": null,
        "episode_name": "第3話",
        "publish_start": "2025-06-10 00:00:00",
        "publish_end": "2025-12-31 23:59:59",
        "vms_config": null,
        "created_at": "2025-06-03 13:59:40",
        "updated_at": "2025-06-03 14:02:11",
        "streams": [
            {"video": {"height": 720, "bitrate": 2500}, "audio": {"bitrate": 128}},
            {"video": {"height": 480, "bitrate": 1200}, "audio": {"bitrate": 96}},
            {"video": {"height": 360, "bitrate": 700}, "audio": {"bitrate": 64}}
        ]
    }))
    .await;
    let task = wire
        .encoder()
        .get_task()
        .task_id(1877u64)
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(Expect::get("/v1/tasks/1877")).await;
    assert_eq!(task.id, Some(1877));
    assert_eq!(task.transaction, Some(910));
    assert_eq!(task.status, Some(TaskStatus::Encoding));
    assert_eq!(task.error_code, Some(0));
    assert_eq!(task.input_filename.as_deref(), Some("drama/s01/episode_03.mov"));
    assert_eq!(
        task.multi_angles,
        vec!["drama/s01/episode_03_cam2.mov", "drama/s01/episode_03_cam3.mov"]
    );
    assert_eq!(task.output_filename.as_deref(), Some("episode_03"));
    assert_eq!(task.profile_id, Some(12));
    assert_eq!(task.profile_name.as_deref(), Some("legacy_vms_hls"));
    assert_eq!(task.preset_id, Some(31));
    assert_eq!(task.preset_name.as_deref(), Some("vms4_hls_720p"));
    assert_eq!(task.format, Some(TaskFormat::Hls));
    assert_eq!(task.destination.as_deref(), Some("vms4://1024:55"));
    assert_eq!(task.poster.as_ref().unwrap()["filename"], "poster_episode_03.jpg");
    assert!(task.seek_preview.is_none());
    assert_eq!(
        task.encode_start.as_ref().map(|t| t.to_string()).as_deref(),
        Some("2025-06-03 14:02:11")
    );
    assert!(task.encode_end.is_none());
    assert_eq!(task.episode_name.as_deref(), Some("第3話"));
    assert_eq!(
        task.publish_start.as_ref().map(|t| t.to_string()).as_deref(),
        Some("2025-06-10 00:00:00")
    );
    assert_eq!(
        task.publish_end.as_ref().map(|t| t.to_string()).as_deref(),
        Some("2025-12-31 23:59:59")
    );
    assert!(task.vms_config.is_none());
    assert_eq!(
        task.created_at.as_ref().map(|t| t.to_string()).as_deref(),
        Some("2025-06-03 13:59:40")
    );
    assert_eq!(
        task.updated_at.as_ref().map(|t| t.to_string()).as_deref(),
        Some("2025-06-03 14:02:11")
    );
    assert_eq!(task.streams.len(), 3);
    assert_eq!(task.streams[2]["video"]["height"], 360);
}

#[tokio::test]
async fn cancel_or_delete_task() {
    let wire = Wire::no_content().await;
    let response = wire
        .encoder()
        .cancel_or_delete_task()
        .task_id(1877u64)
        .send()
        .await
        .unwrap();
    wire.verify(Expect::delete("/v1/tasks/1877")).await;
    assert_eq!(response.status().as_u16(), 204);
}

#[tokio::test]
async fn list_task_imports() {
    let wire = Wire::ok(json!({
        "data": [
            {
                "id": 58,
                "name": "spring_campaign_batch",
                "import_status": {"total": 120, "succeeded": 118, "failed": 2},
                "task_status": {"waiting": 40, "encoding": 6, "ready": 72, "failed": 0},
                "created_at": "2025-06-04 09:00:00",
                "updated_at": "2025-06-04 09:42:17"
            },
            {
                "id": 57,
                "name": "archive_2024_q4",
                "import_status": {"total": 35, "succeeded": 35, "failed": 0},
                "task_status": {"waiting": 0, "encoding": 0, "ready": 35, "failed": 0},
                "created_at": "2025-05-28 18:30:05",
                "updated_at": "2025-05-28 21:12:40"
            }
        ]
    }))
    .await;
    let jobs = wire.encoder().list_task_imports().send().await.unwrap().into_inner();
    wire.verify(Expect::get("/v1/task-imports")).await;
    assert_eq!(jobs.data.len(), 2);
    assert_eq!(jobs.data[0].id, Some(58));
    assert_eq!(jobs.data[0].name.as_deref(), Some("spring_campaign_batch"));
    assert_eq!(jobs.data[0].import_status.as_ref().unwrap()["failed"], 2);
    assert_eq!(jobs.data[0].task_status.as_ref().unwrap()["encoding"], 6);
    assert_eq!(jobs.data[1].name.as_deref(), Some("archive_2024_q4"));
    assert_eq!(
        jobs.data[1].updated_at.as_ref().map(|t| t.to_string()).as_deref(),
        Some("2025-05-28 21:12:40")
    );
}

#[tokio::test]
async fn import_tasks_csv() {
    let wire = Wire::ok(json!({
        "id": 59,
        "name": "drama_s01_import",
        "import_status": {"total": 2, "succeeded": 0, "failed": 0},
        "task_status": {"waiting": 0, "encoding": 0, "ready": 0, "failed": 0},
        "created_at": "2025-06-05 11:20:00",
        "updated_at": "2025-06-05 11:20:00"
    }))
    .await;
    let csv = "input_filepath,profile_id,output_filename,episode_name,priority\n\
               drama/s01/episode_04.mov,12,episode_04,第4話,60\n\
               drama/s01/episode_05.mov,12,episode_05,第5話,60\n";
    let job = wire
        .encoder()
        .import_tasks_csv()
        .body(csv.as_bytes().to_vec())
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(
        Expect::post("/v1/task-imports").bytes(
            "application/octet-stream",
            "input_filepath,profile_id,output_filename,episode_name,priority\n\
         drama/s01/episode_04.mov,12,episode_04,第4話,60\n\
         drama/s01/episode_05.mov,12,episode_05,第5話,60\n"
                .as_bytes(),
        ),
    )
    .await;
    assert_eq!(job.id, Some(59));
    assert_eq!(job.name.as_deref(), Some("drama_s01_import"));
    assert_eq!(job.import_status.as_ref().unwrap()["total"], 2);
    assert_eq!(
        job.created_at.as_ref().map(|t| t.to_string()).as_deref(),
        Some("2025-06-05 11:20:00")
    );
}

#[tokio::test]
async fn get_task_import() {
    let wire = Wire::ok(json!({
        "id": 58,
        "name": "spring_campaign_batch",
        "import_status": {"total": 120, "succeeded": 118, "failed": 2},
        "task_status": {"waiting": 40, "encoding": 6, "ready": 72, "failed": 0},
        "created_at": "2025-06-04 09:00:00",
        "updated_at": "2025-06-04 09:42:17"
    }))
    .await;
    let job = wire
        .encoder()
        .get_task_import()
        .task_import_id(58u64)
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(Expect::get("/v1/task-imports/58")).await;
    assert_eq!(job.id, Some(58));
    assert_eq!(job.name.as_deref(), Some("spring_campaign_batch"));
    assert_eq!(job.import_status.as_ref().unwrap()["succeeded"], 118);
    assert_eq!(job.task_status.as_ref().unwrap()["ready"], 72);
    assert_eq!(
        job.created_at.as_ref().map(|t| t.to_string()).as_deref(),
        Some("2025-06-04 09:00:00")
    );
    assert_eq!(
        job.updated_at.as_ref().map(|t| t.to_string()).as_deref(),
        Some("2025-06-04 09:42:17")
    );
}

#[tokio::test]
async fn delete_task_import() {
    let wire = Wire::no_content().await;
    let response = wire
        .encoder()
        .delete_task_import()
        .task_import_id(57u64)
        .send()
        .await
        .unwrap();
    wire.verify(Expect::delete("/v1/task-imports/57")).await;
    assert_eq!(response.status().as_u16(), 204);
}

#[tokio::test]
async fn list_presets() {
    let wire = Wire::ok(json!({
        "data": [
            {
                "id": 21,
                "name": "hls_1080p",
                "description": "HLS, three renditions, for the web player",
                "destination": "vms5://",
                "destination_settings": {},
                "format": "HLS",
                "output_filename": "%INPUT_FILENAME%_hls",
                "dynamic_streams": true,
                "dash_config": null,
                "hls_config": {"multi_audio_flag": false, "segment_duration": 6},
                "poster": {"destination": "vms5://", "filename_prefix": "poster_", "time": 5},
                "seek_preview": {"interval": 10, "width": 160},
                "streams": [
                    {"video": {"height": 1080, "bitrate": 4500}, "watermarks": [{"image": "logo.png", "position": "top_right"}]},
                    {"video": {"height": 720, "bitrate": 2500}, "watermarks": []},
                    {"video": {"height": 480, "bitrate": 1200}}
                ],
                "vms_config": null,
                "created_at": "2025-04-10 15:00:00",
                "updated_at": "2025-05-20 09:30:12"
            },
            {
                "id": 22,
                "name": "mp4_720p",
                "description": null,
                "destination": "objstore://acme-media-out/encoded/",
                "destination_settings": {"objstore": {"authentication_method": "iam_role"}},
                "format": "MP4",
                "output_filename": "%INPUT_FILENAME%",
                "dynamic_streams": false,
                "dash_config": null,
                "hls_config": null,
                "poster": {"destination": "objstore://acme-media-out/posters/", "filename_prefix": "p_"},
                "seek_preview": {},
                "streams": [{"video": {"height": 720, "bitrate": 2000}}],
                "vms_config": null,
                "created_at": "2025-04-10 15:05:42",
                "updated_at": "2025-04-10 15:05:42"
            }
        ]
    }))
    .await;
    let presets = wire.encoder().list_presets().send().await.unwrap().into_inner();
    wire.verify(Expect::get("/v1/presets")).await;
    assert_eq!(presets.data.len(), 2);
    let hls = &presets.data[0];
    assert_eq!(hls.id, Some(21));
    assert_eq!(hls.name.as_deref(), Some("hls_1080p"));
    assert_eq!(hls.format, Some(PresetFormat::Hls));
    assert_eq!(hls.dynamic_streams, Some(true));
    assert_eq!(hls.hls_config.as_ref().unwrap().multi_audio_flag, Some(false));
    assert!(hls.dash_config.is_none());
    assert_eq!(hls.poster.as_ref().unwrap().filename_prefix.as_deref(), Some("poster_"));
    assert_eq!(hls.seek_preview.as_ref().unwrap()["interval"], 10);
    assert_eq!(hls.streams.len(), 3);
    assert_eq!(hls.streams[0].video.as_ref().unwrap().height, Some(1080));
    assert_eq!(hls.streams[0].watermarks.len(), 1);
    assert_eq!(hls.streams[0].watermarks[0]["position"], "top_right");
    assert!(hls.streams[2].watermarks.is_empty());
    assert_eq!(
        hls.updated_at.as_ref().map(|t| t.to_string()).as_deref(),
        Some("2025-05-20 09:30:12")
    );
    let mp4 = &presets.data[1];
    assert_eq!(mp4.format, Some(PresetFormat::Mp4));
    assert!(mp4.description.is_none());
    assert_eq!(
        mp4.destination_settings
            .as_ref()
            .unwrap()
            .objstore
            .as_ref()
            .unwrap()
            .authentication_method
            .as_deref(),
        Some("iam_role")
    );
    assert_eq!(mp4.destination.as_deref(), Some("objstore://acme-media-out/encoded/"));
}

#[tokio::test]
async fn register_preset() {
    let wire = Wire::ok(json!({"id": 23})).await;
    let body = PresetCreate::builder()
        .name(PresetName::try_from("hls_enc_objstore").unwrap())
        .description(PresetCreateDescription::try_from("Encrypted HLS to our own bucket").unwrap())
        .destination(PresetDestination::try_from("objstore://acme-media-out/hls/").unwrap())
        .destination_settings(DestinationSettings {
            extra: Default::default(),
            objstore: Some(ObjstoreSettings {
                extra: Default::default(),
                authentication_method: Some("iam_role".to_string()),
            }),
        })
        .format(PresetFormat::HlsEncrypted)
        .output_filename(PresetOutputFilename::try_from("%INPUT_FILENAME%_enc").unwrap())
        .dynamic_streams(false)
        .hls_config(HlsConfig {
            extra: Default::default(),
            multi_audio_flag: Some(true),
        })
        .poster(PresetPoster {
            extra: Default::default(),
            destination: Some("objstore://acme-media-out/posters/".to_string()),
            filename_prefix: Some("poster_".to_string()),
        })
        .seek_preview(PresetSeekPreview(object(json!({"interval": 10, "width": 160}))))
        .streams(vec![
            PresetStream {
                extra: Default::default(),
                video: Some(PresetStreamVideo {
                    extra: Default::default(),
                    height: Some(1080),
                }),
                watermarks: vec![PresetWatermark(object(
                    json!({"image": "logo.png", "position": "top_right"}),
                ))],
            },
            PresetStream {
                extra: Default::default(),
                video: Some(PresetStreamVideo {
                    extra: Default::default(),
                    height: Some(540),
                }),
                watermarks: vec![],
            },
        ])
        .profile_config(PresetProfileConfig(object(json!({"name": "hls_enc_objstore_profile"}))));
    let created = wire
        .encoder()
        .register_preset()
        .body(body)
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(Expect::post("/v1/presets").json(json!({
        "name": "hls_enc_objstore",
        "description": "Encrypted HLS to our own bucket",
        "destination": "objstore://acme-media-out/hls/",
        "destination_settings": {"objstore": {"authentication_method": "iam_role"}},
        "format": "HLS_ENCRYPTED",
        "output_filename": "%INPUT_FILENAME%_enc",
        "dynamic_streams": false,
        "hls_config": {"multi_audio_flag": true},
        "poster": {"destination": "objstore://acme-media-out/posters/", "filename_prefix": "poster_"},
        "seek_preview": {"interval": 10, "width": 160},
        "streams": [
            {"video": {"height": 1080}, "watermarks": [{"image": "logo.png", "position": "top_right"}]},
            {"video": {"height": 540}}
        ],
        "profile_config": {"name": "hls_enc_objstore_profile"}
    })))
    .await;
    assert_eq!(created.id, Some(23));
}

#[tokio::test]
async fn get_preset() {
    let wire = Wire::ok(json!({
        "id": 31,
        "name": "vms4_dash_720p",
        "description": "DASH for the legacy service",
        "destination": "vms4://1024:55",
        "destination_settings": {},
        "format": "DASH_ENCRYPTED",
        "output_filename": "%OUTPUT_BASENAME%",
        "dynamic_streams": false,
        "dash_config": {"segment_duration": 4, "drm": "widevine"},
        "hls_config": null,
        "poster": {"destination": "vms4://1024:55", "filename_prefix": "thumb_"},
        "seek_preview": {"interval": 5},
        "streams": [
            {"video": {"height": 720, "bitrate": 2500}, "watermarks": []},
            {"video": {"height": 360, "bitrate": 700}}
        ],
        "vms_config": {"distributor_id": 1024, "folder_id": 55},
        "created_at": "2025-03-01 08:00:00",
        "updated_at": "2025-05-02 17:45:30"
    }))
    .await;
    let preset = wire
        .encoder()
        .get_preset()
        .preset_id(31u64)
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(Expect::get("/v1/presets/31")).await;
    assert_eq!(preset.id, Some(31));
    assert_eq!(preset.name.as_deref(), Some("vms4_dash_720p"));
    assert_eq!(preset.description.as_deref(), Some("DASH for the legacy service"));
    assert_eq!(preset.destination.as_deref(), Some("vms4://1024:55"));
    assert_eq!(preset.format, Some(PresetFormat::DashEncrypted));
    assert_eq!(preset.output_filename.as_deref(), Some("%OUTPUT_BASENAME%"));
    assert_eq!(preset.dynamic_streams, Some(false));
    assert_eq!(preset.dash_config.as_ref().unwrap()["segment_duration"], 4);
    assert!(preset.hls_config.is_none());
    assert_eq!(
        preset.poster.as_ref().unwrap().destination.as_deref(),
        Some("vms4://1024:55")
    );
    assert_eq!(preset.streams.len(), 2);
    assert_eq!(preset.streams[1].video.as_ref().unwrap().height, Some(360));
    assert_eq!(preset.vms_config.as_ref().unwrap()["folder_id"], 55);
    assert_eq!(
        preset.created_at.as_ref().map(|t| t.to_string()).as_deref(),
        Some("2025-03-01 08:00:00")
    );
}

#[tokio::test]
async fn update_preset() {
    let wire = Wire::no_content().await;
    let body = PresetUpdate::builder()
        .name(PresetName::try_from("vms4_dash_720p").unwrap())
        .description(PresetUpdateDescription::try_from("DASH for the legacy service, 2 renditions").unwrap())
        .destination(PresetDestination::try_from("vms4://1024:56").unwrap())
        .destination_settings(DestinationSettings {
            extra: Default::default(),
            objstore: None,
        })
        .format(PresetFormat::Dash)
        .output_filename(PresetOutputFilename::try_from("%OUTPUT_BASENAME%").unwrap())
        .dynamic_streams(true)
        .dash_config(DashConfig(object(json!({"segment_duration": 4}))))
        .poster(PresetPoster {
            extra: Default::default(),
            destination: Some("vms4://1024:56".to_string()),
            filename_prefix: Some("thumb_".to_string()),
        })
        .seek_preview(PresetSeekPreview(object(json!({"interval": 5}))))
        .streams(vec![PresetStream {
            extra: Default::default(),
            video: Some(PresetStreamVideo {
                extra: Default::default(),
                height: Some(720),
            }),
            watermarks: vec![PresetWatermark(object(
                json!({"text": "© ACME", "position": "bottom_left"}),
            ))],
        }])
        .vms_config(PresetVmsConfig(object(
            json!({"distributor_id": 1024, "folder_id": 56}),
        )));
    let response = wire
        .encoder()
        .update_preset()
        .preset_id(31u64)
        .body(body)
        .send()
        .await
        .unwrap();
    wire.verify(Expect::put("/v1/presets/31").json(json!({
        "name": "vms4_dash_720p",
        "description": "DASH for the legacy service, 2 renditions",
        "destination": "vms4://1024:56",
        "destination_settings": {},
        "format": "DASH",
        "output_filename": "%OUTPUT_BASENAME%",
        "dynamic_streams": true,
        "dash_config": {"segment_duration": 4},
        "poster": {"destination": "vms4://1024:56", "filename_prefix": "thumb_"},
        "seek_preview": {"interval": 5},
        "streams": [{"video": {"height": 720}, "watermarks": [{"text": "© ACME", "position": "bottom_left"}]}],
        "vms_config": {"distributor_id": 1024, "folder_id": 56}
    })))
    .await;
    assert_eq!(response.status().as_u16(), 204);
}

#[tokio::test]
async fn delete_preset() {
    let wire = Wire::no_content().await;
    let response = wire.encoder().delete_preset().preset_id(22u64).send().await.unwrap();
    wire.verify(Expect::delete("/v1/presets/22")).await;
    assert_eq!(response.status().as_u16(), 204);
}

#[tokio::test]
async fn list_profiles() {
    let wire = Wire::ok(json!({
        "data": [
            {
                "id": 9,
                "name": "web_standard",
                "description": "HLS and MP4 for the web player",
                "presets": [21, 22],
                "share": "shared_subs",
                "vms_config": {"seek_preview": true, "category_id": "5b2f9c1e-8d3a-4f6b-9e21-0c7d4a1b2e3f"},
                "created_at": "2025-04-11 10:00:00",
                "updated_at": "2025-05-21 12:00:00"
            },
            {
                "id": 12,
                "name": "legacy_vms_hls",
                "description": null,
                "presets": [31],
                "share": "not_shared",
                "created_at": "2025-03-02 09:00:00",
                "updated_at": "2025-03-02 09:00:00"
            }
        ]
    }))
    .await;
    let profiles = wire.encoder().list_profiles().send().await.unwrap().into_inner();
    wire.verify(Expect::get("/v1/profiles")).await;
    assert_eq!(profiles.data.len(), 2);
    assert_eq!(profiles.data[0].id, Some(9));
    assert_eq!(profiles.data[0].name.as_deref(), Some("web_standard"));
    assert_eq!(profiles.data[0].presets, vec![21, 22]);
    assert_eq!(profiles.data[0].share, Some(ProfileShare::SharedSubs));
    assert_eq!(
        profiles.data[0].vms_config.as_ref().unwrap().seek_preview,
        Some(json!(true))
    );
    assert_eq!(profiles.data[1].share, Some(ProfileShare::NotShared));
    assert!(profiles.data[1].description.is_none());
    assert_eq!(profiles.data[1].presets, vec![31]);
    assert_eq!(
        profiles.data[1].created_at.as_ref().map(|t| t.to_string()).as_deref(),
        Some("2025-03-02 09:00:00")
    );
}

#[tokio::test]
async fn register_profile() {
    let wire = Wire::ok(json!({"id": 14})).await;
    let body = ProfileCreate::builder()
        .name(ProfileName::try_from("web_premium").unwrap())
        .description(ProfileCreateDescription::try_from("1080p HLS, 720p MP4 and encrypted HLS").unwrap())
        .presets(ids(&[21, 22, 23]))
        .share(ProfileShare::SharedSubs)
        .vms_config(ProfileVmsConfig {
            extra: Default::default(),
            seek_preview: Some(json!(true)),
        });
    let created = wire
        .encoder()
        .register_profile()
        .body(body)
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(Expect::post("/v1/profiles").json(json!({
        "name": "web_premium",
        "description": "1080p HLS, 720p MP4 and encrypted HLS",
        "presets": [21, 22, 23],
        "share": "shared_subs",
        "vms_config": {"seek_preview": true}
    })))
    .await;
    assert_eq!(created.id, Some(14));
}

#[tokio::test]
async fn list_shared_profiles() {
    let wire = Wire::ok(json!({
        "data": [
            {
                "id": 4,
                "name": "parent_broadcast_hls",
                "description": "Shared by the parent account",
                "presets": [5, 6, 7],
                "share": "shared_subs",
                "vms_config": {"seek_preview": false},
                "created_at": "2024-11-02 07:30:00",
                "updated_at": "2025-01-15 16:20:45"
            }
        ]
    }))
    .await;
    let shared = wire.encoder().list_shared_profiles().send().await.unwrap().into_inner();
    // Its only route evidence is a sample request with list profiles' path (note 1):
    // the alias sends exactly that request.
    wire.verify(Expect::get("/v1/profiles")).await;
    assert_eq!(shared.data.len(), 1);
    assert_eq!(shared.data[0].id, Some(4));
    assert_eq!(shared.data[0].name.as_deref(), Some("parent_broadcast_hls"));
    assert_eq!(shared.data[0].presets, vec![5, 6, 7]);
    assert_eq!(shared.data[0].share, Some(ProfileShare::SharedSubs));
    assert_eq!(
        shared.data[0].vms_config.as_ref().unwrap().seek_preview,
        Some(json!(false))
    );
    assert_eq!(
        shared.data[0].updated_at.as_ref().map(|t| t.to_string()).as_deref(),
        Some("2025-01-15 16:20:45")
    );
}

#[tokio::test]
async fn get_profile() {
    let wire = Wire::ok(json!({
        "id": 12,
        "name": "legacy_vms_hls",
        "description": "Sub-account profile for the legacy service",
        "presets": [31, 32],
        "share": "not_share",
        "vms_config": {"seek_preview": true},
        "created_at": "2025-03-02 09:00:00",
        "updated_at": "2025-04-18 13:14:15"
    }))
    .await;
    let profile = wire
        .encoder()
        .get_profile()
        .profile_id(12u64)
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(Expect::get("/v1/profiles/12")).await;
    assert_eq!(profile.id, Some(12));
    assert_eq!(profile.name.as_deref(), Some("legacy_vms_hls"));
    assert_eq!(
        profile.description.as_deref(),
        Some("Sub-account profile for the legacy service")
    );
    assert_eq!(profile.presets, vec![31, 32]);
    // A sub-account's unshared value, spelled as the field description spells it.
    assert_eq!(profile.share, Some(ProfileShare::NotShare));
    assert_eq!(profile.vms_config.as_ref().unwrap().seek_preview, Some(json!(true)));
    assert_eq!(
        profile.created_at.as_ref().map(|t| t.to_string()).as_deref(),
        Some("2025-03-02 09:00:00")
    );
    assert_eq!(
        profile.updated_at.as_ref().map(|t| t.to_string()).as_deref(),
        Some("2025-04-18 13:14:15")
    );
}

#[tokio::test]
async fn update_profile() {
    let wire = Wire::no_content().await;
    let body = ProfileUpdate::builder()
        .name(ProfileName::try_from("web_standard-v2").unwrap())
        .description(ProfileUpdateDescription::try_from("HLS, MP4 and DASH for the web player").unwrap())
        .presets(ids(&[21, 22, 31]))
        .share(ProfileShare::NotShared)
        .vms_config(ProfileVmsConfig {
            extra: Default::default(),
            seek_preview: Some(json!(false)),
        });
    let response = wire
        .encoder()
        .update_profile()
        .profile_id(9u64)
        .body(body)
        .send()
        .await
        .unwrap();
    wire.verify(Expect::put("/v1/profiles/9").json(json!({
        "name": "web_standard-v2",
        "description": "HLS, MP4 and DASH for the web player",
        "presets": [21, 22, 31],
        "share": "not_shared",
        "vms_config": {"seek_preview": false}
    })))
    .await;
    assert_eq!(response.status().as_u16(), 204);
}

#[tokio::test]
async fn delete_profile() {
    let wire = Wire::no_content().await;
    let response = wire.encoder().delete_profile().profile_id(14u64).send().await.unwrap();
    wire.verify(Expect::delete("/v1/profiles/14")).await;
    assert_eq!(response.status().as_u16(), 204);
}

#[tokio::test]
async fn get_notification_settings() {
    let wire = Wire::ok(json!({
        "notify_error": true,
        "notify_ready": false,
        "notify_imported_tasks": true,
        "updated_at": "2025-05-30 18:05:09"
    }))
    .await;
    let settings = wire
        .encoder()
        .get_notification_settings()
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(Expect::get("/v1/notifications")).await;
    assert_eq!(settings.notify_error, Some(true));
    assert_eq!(settings.notify_ready, Some(false));
    assert_eq!(settings.notify_imported_tasks, Some(true));
    assert_eq!(
        settings.updated_at.map(|t| t.to_string()).as_deref(),
        Some("2025-05-30 18:05:09")
    );
}

#[tokio::test]
async fn update_notification_settings() {
    let wire = Wire::no_content().await;
    let body = NotificationSettingsUpdate::builder()
        .notify_error(true)
        .notify_ready(true)
        .notify_imported_tasks(false);
    let response = wire
        .encoder()
        .update_notification_settings()
        .body(body)
        .send()
        .await
        .unwrap();
    wire.verify(Expect::put("/v1/notifications").json(json!({
        "notify_error": true,
        "notify_ready": true,
        "notify_imported_tasks": false
    })))
    .await;
    assert_eq!(response.status().as_u16(), 204);
}

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("not a JSON object: {other}"),
    }
}

fn ids(values: &[u64]) -> Vec<NonZeroU64> {
    values
        .iter()
        .map(|&v| NonZeroU64::new(v).expect("ids are at least 1"))
        .collect()
}
