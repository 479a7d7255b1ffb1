//! Every viewing-analytics operation on the wire: the exact request, and the
//! documented response decoded into typed values.

use crate::harness::{Expect, Wire};
use serde_json::json;
use vidplat::analytics::types::{ContentType, Granularity, SortOrder};

#[tokio::test]
async fn basic_realtime_user_counts() {
    let wire = Wire::ok(json!({
        "data": [{"hour_minute": "12:34", "user_count": 5}],
        "golden": false,
        "truncated": false,
        "unsampled": true
    }))
    .await;
    let page = wire
        .analytics()
        .basic_realtime_user_counts()
        .login_id("user@account")
        .minutes(-30)
        .send()
        .await
        .unwrap()
        .into_inner();
    // Identified by login_id: the key is never sent.
    wire.verify(Expect::get("/v1/realtime/user-counts?login_id=user%40account&minutes=-30").unauthenticated())
        .await;
    assert_eq!(page.data.len(), 1);
    assert_eq!(page.unsampled, Some(true));
}

#[tokio::test]
async fn basic_by_time_period() {
    let wire = Wire::ok(json!({
        "data": [
            {
                "date_time": "2024-10-30 21:00:00",
                "ad_playback_count": 12,
                "avg_played_percent": 64,
                "avg_played_time": 412,
                "avg_staytime": 530,
                "error_count": 1,
                "show_count": 340,
                "playback_count": 215,
                "play_count": 198,
                "total_played_time": 81576,
                "total_staytime": 104940,
                "show_user_count": 180,
                "user_count": 152
            },
            {
                "date_time": "2024-10-30 20:00:00",
                "ad_playback_count": 8,
                "avg_played_percent": 58,
                "avg_played_time": 377,
                "avg_staytime": 498,
                "error_count": 0,
                "show_count": 281,
                "playback_count": 174,
                "play_count": 160,
                "total_played_time": 60320,
                "total_staytime": 79680,
                "show_user_count": 150,
                "user_count": 121
            }
        ],
        "golden": true,
        "truncated": false,
        "unsampled": true
    }))
    .await;
    let page = wire
        .analytics()
        .basic_by_time_period()
        .start_interval(-7)
        .end_interval(-1)
        .start_with(1u64)
        .end_with(24u64)
        .sort_key("playback_count")
        .sort_order(SortOrder::Desc)
        .granularity(Granularity::Hourly)
        .filters(r#"[{"item":"player_version","condition":"eq","value":["7.2.0"]}]"#)
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(Expect::get(concat!(
"/v1/datetime/data?end_interval=-1&end_with=24",
"&filters=%5B%7B%22item%22%3A%22player_version%22%2C%22condition%22%3A%22eq%22%2C%22value%22%3A%5B%227.2.0%22%5D%7D%5D",
"&granularity=hourly&sort_key=playback_count&sort_order=DESC&start_interval=-7",
"&start_with=1",
)))
    .await;
    assert_eq!(page.data.len(), 2);
    assert_eq!(page.golden, Some(true));
    assert_eq!(page.truncated, Some(false));
    assert_eq!(page.unsampled, Some(true));
    let row = &page.data[0];
    assert_eq!(row.date_time.as_deref(), Some("2024-10-30 21:00:00"));
    assert_eq!(row.ad_playback_count, Some(12));
    assert_eq!(row.avg_played_percent, Some(64));
    assert_eq!(row.avg_played_time, Some(412));
    assert_eq!(row.avg_staytime, Some(530));
    assert_eq!(row.error_count, Some(1));
    assert_eq!(row.show_count, Some(340));
    assert_eq!(row.playback_count, Some(215));
    assert_eq!(row.play_count, Some(198));
    assert_eq!(row.total_played_time, Some(81576));
    assert_eq!(row.total_staytime, Some(104940));
    assert_eq!(row.show_user_count, Some(180));
    assert_eq!(row.user_count, Some(152));
    assert_eq!(page.data[1].date_time.as_deref(), Some("2024-10-30 20:00:00"));
    assert_eq!(page.data[1].error_count, Some(0));
}

#[tokio::test]
async fn basic_by_content_category() {
    let wire = Wire::ok(json!({
        "data": [
            {
                "content_category": "旅行",
                "ad_playback_count": 40,
                "avg_played_percent": 71,
                "avg_played_time": 655,
                "avg_staytime": 802,
                "error_count": 3,
                "show_count": 5210,
                "playback_count": 3874,
                "play_count": 3602,
                "total_played_time": 2359310,
                "total_staytime": 3106948,
                "show_user_count": 2904,
                "user_count": 2411
            },
            {
                "content_category": "Cooking",
                "ad_playback_count": 22,
                "avg_played_percent": 55,
                "avg_played_time": 301,
                "avg_staytime": 420,
                "error_count": 0,
                "show_count": 2877,
                "playback_count": 1730,
                "play_count": 1655,
                "total_played_time": 498155,
                "total_staytime": 726600,
                "show_user_count": 1520,
                "user_count": 1102
            }
        ],
        "golden": false,
        "truncated": true,
        "unsampled": true
    }))
    .await;
    let page = wire
        .analytics()
        .basic_by_content_category()
        .start_interval(-30)
        .end_interval(-1)
        .start_with(1u64)
        .end_with(2u64)
        .sort_key("play_count")
        .sort_order(SortOrder::Desc)
        .filters(r#"[{"item":"content_category","condition":"eq","value":["旅行","Cooking"]}]"#)
        .send()
        .await
        .unwrap()
        .into_inner();
    // The JSON filter is form-encoded, non-ASCII values as UTF-8 percent escapes.
    wire.verify(Expect::get(concat!(
"/v1/category/data?end_interval=-1&end_with=2",
"&filters=%5B%7B%22item%22%3A%22content_category%22%2C%22condition%22%3A%22eq%22%2C%22value%22%3A%5B%22%E6%97%85%E8%A1%8C%22%2C%22Cooking%22%5D%7D%5D",
"&sort_key=play_count&sort_order=DESC&start_interval=-30&start_with=1",
)))
    .await;
    assert_eq!(page.data.len(), 2);
    assert_eq!(page.golden, Some(false));
    assert_eq!(page.truncated, Some(true));
    let row = &page.data[0];
    assert_eq!(row.content_category.as_deref(), Some("旅行"));
    assert_eq!(row.ad_playback_count, Some(40));
    assert_eq!(row.show_count, Some(5210));
    assert_eq!(row.playback_count, Some(3874));
    assert_eq!(row.play_count, Some(3602));
    assert_eq!(row.total_played_time, Some(2359310));
    assert_eq!(row.show_user_count, Some(2904));
    assert_eq!(row.user_count, Some(2411));
    assert_eq!(page.data[1].content_category.as_deref(), Some("Cooking"));
    assert_eq!(page.data[1].avg_staytime, Some(420));
}

#[tokio::test]
async fn basic_by_content_title() {
    let wire = Wire::ok(json!({
        "data": [
            {
                "content_category": "旅行",
                "content_title": "京都 紅葉めぐり 2024",
                "content_type": "VOD",
                "ad_playback_count": 18,
                "avg_played_percent": 82,
                "avg_played_time": 1190,
                "avg_staytime": 1302,
                "error_count": 0,
                "show_count": 2210,
                "playback_count": 1874,
                "play_count": 1801,
                "total_played_time": 2143190,
                "total_staytime": 2440000,
                "show_user_count": 1490,
                "user_count": 1322
            },
            {
                "content_category": "Cooking",
                "content_title": "Weeknight Ramen",
                "content_type": "LIVE",
                "ad_playback_count": 5,
                "avg_played_percent": 47,
                "avg_played_time": 640,
                "avg_staytime": 900,
                "error_count": 2,
                "show_count": 980,
                "playback_count": 611,
                "play_count": 590,
                "total_played_time": 377600,
                "total_staytime": 549900,
                "show_user_count": 700,
                "user_count": 512
            }
        ],
        "golden": true,
        "truncated": false,
        "unsampled": false
    }))
    .await;
    let page = wire
        .analytics()
        .basic_by_content_title()
        .start_interval(-14)
        .end_interval(0)
        .start_with(1u64)
        .end_with(100u64)
        .sort_key("playback_count")
        .sort_order(SortOrder::Desc)
        .filters(r#"[{"item":"player_version","condition":"eq","value":["7.2.0"]}]"#)
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(Expect::get(concat!(
"/v1/title/data?end_interval=0&end_with=100",
"&filters=%5B%7B%22item%22%3A%22player_version%22%2C%22condition%22%3A%22eq%22%2C%22value%22%3A%5B%227.2.0%22%5D%7D%5D",
"&sort_key=playback_count&sort_order=DESC&start_interval=-14&start_with=1",
)))
    .await;
    assert_eq!(page.data.len(), 2);
    assert_eq!(page.unsampled, Some(false));
    let row = &page.data[0];
    assert_eq!(row.content_category.as_deref(), Some("旅行"));
    assert_eq!(row.content_title.as_deref(), Some("京都 紅葉めぐり 2024"));
    assert_eq!(row.content_type, Some(ContentType::Vod));
    assert_eq!(row.avg_played_percent, Some(82));
    assert_eq!(row.playback_count, Some(1874));
    assert_eq!(row.user_count, Some(1322));
    assert_eq!(page.data[1].content_type, Some(ContentType::Other("LIVE".into())));
    assert_eq!(page.data[1].error_count, Some(2));
}

#[tokio::test]
async fn basic_by_content_title_and_user() {
    let wire = Wire::ok(json!({
        "data": [
            {
                "content_category": "旅行",
                "content_title": "京都 紅葉めぐり 2024",
                "content_type": "VOD",
                "user_id": "member-00412",
                "played_flags": "11111111110000000000",
                "played_percent": 50,
                "played_time": 726,
                "total_staytime": 910,
                "show_count": 3,
                "playback_count": 2,
                "play_count": 2
            },
            {
                "content_category": "旅行",
                "content_title": "Hokkaido Winter Rail",
                "content_type": "VOD",
                "user_id": "member-01877",
                "played_flags": "11111111111111111111",
                "played_percent": 100,
                "played_time": 1830,
                "total_staytime": 1902,
                "show_count": 1,
                "playback_count": 1,
                "play_count": 1
            }
        ],
        "golden": true,
        "truncated": false,
        "unsampled": true
    }))
    .await;
    let page = wire
        .analytics()
        .basic_by_content_title_and_user()
        .start_interval(-30)
        .end_interval(-1)
        .start_with(1u64)
        .end_with(500u64)
        .sort_key("content_category")
        .sort_order(SortOrder::Desc)
        .filters(r#"[{"item":"player_version","condition":"eq","value":["7.2.0"]}]"#)
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(Expect::get(concat!(
"/v1/title/userid/data?end_interval=-1&end_with=500",
"&filters=%5B%7B%22item%22%3A%22player_version%22%2C%22condition%22%3A%22eq%22%2C%22value%22%3A%5B%227.2.0%22%5D%7D%5D",
"&sort_key=content_category&sort_order=DESC&start_interval=-30&start_with=1",
)))
    .await;
    assert_eq!(page.data.len(), 2);
    let row = &page.data[0];
    assert_eq!(row.content_category.as_deref(), Some("旅行"));
    assert_eq!(row.content_title.as_deref(), Some("京都 紅葉めぐり 2024"));
    assert_eq!(row.content_type, Some(ContentType::Vod));
    assert_eq!(row.user_id.as_deref(), Some("member-00412"));
    assert_eq!(row.played_flags.as_deref(), Some("11111111110000000000"));
    assert_eq!(row.played_percent, Some(50));
    assert_eq!(row.played_time, Some(726));
    assert_eq!(row.total_staytime, Some(910));
    assert_eq!(row.show_count, Some(3));
    assert_eq!(row.playback_count, Some(2));
    assert_eq!(row.play_count, Some(2));
    assert_eq!(page.data[1].played_percent, Some(100));
}

#[tokio::test]
async fn basic_by_user() {
    let wire = Wire::ok(json!({
        "data": [
            {
                "user_id": "member-00412",
                "ad_playback_count": 4,
                "avg_played_percent": 77,
                "avg_played_time": 980,
                "avg_staytime": 1104,
                "error_count": 0,
                "show_count": 31,
                "playback_count": 22,
                "play_count": 21,
                "total_played_time": 20580,
                "total_staytime": 24288
            }
        ],
        "golden": true,
        "truncated": true,
        "unsampled": true
    }))
    .await;
    let page = wire
        .analytics()
        .basic_by_user()
        .start_interval(-60)
        .end_interval(-31)
        .start_with(11u64)
        .end_with(20u64)
        .sort_key("total_played_time")
        .sort_order(SortOrder::Desc)
        .filters(r#"[{"item":"player_version","condition":"eq","value":["7.2.0"]}]"#)
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(Expect::get(concat!(
"/v1/userid/data?end_interval=-31&end_with=20",
"&filters=%5B%7B%22item%22%3A%22player_version%22%2C%22condition%22%3A%22eq%22%2C%22value%22%3A%5B%227.2.0%22%5D%7D%5D",
"&sort_key=total_played_time&sort_order=DESC&start_interval=-60&start_with=11",
)))
    .await;
    assert_eq!(page.data.len(), 1);
    assert_eq!(page.truncated, Some(true));
    let row = &page.data[0];
    assert_eq!(row.user_id.as_deref(), Some("member-00412"));
    assert_eq!(row.ad_playback_count, Some(4));
    assert_eq!(row.avg_played_percent, Some(77));
    assert_eq!(row.avg_played_time, Some(980));
    assert_eq!(row.avg_staytime, Some(1104));
    assert_eq!(row.show_count, Some(31));
    assert_eq!(row.playback_count, Some(22));
    assert_eq!(row.play_count, Some(21));
    assert_eq!(row.total_played_time, Some(20580));
    assert_eq!(row.total_staytime, Some(24288));
}

#[tokio::test]
async fn basic_by_os() {
    let wire = Wire::ok(json!({
        "data": [
            {
                "os": "iOS",
                "os_version": "17.5",
                "player_name": "vidplat-player",
                "player_version": "7.2.0",
                "ad_playback_count": 31,
                "avg_played_percent": 69,
                "avg_played_time": 602,
                "avg_staytime": 744,
                "error_count": 2,
                "show_count": 4102,
                "playback_count": 2980,
                "play_count": 2871,
                "total_played_time": 1728342,
                "total_staytime": 2136024,
                "show_user_count": 2120,
                "user_count": 1877
            },
            {
                "os": "Android",
                "os_version": "14",
                "player_name": "vidplat-player",
                "player_version": "7.1.3",
                "ad_playback_count": 25,
                "avg_played_percent": 61,
                "avg_played_time": 540,
                "avg_staytime": 700,
                "error_count": 5,
                "show_count": 3650,
                "playback_count": 2504,
                "play_count": 2399,
                "total_played_time": 1295460,
                "total_staytime": 1679300,
                "show_user_count": 1980,
                "user_count": 1650
            }
        ],
        "golden": true,
        "truncated": false,
        "unsampled": true
    }))
    .await;
    let page = wire
        .analytics()
        .basic_by_os()
        .start_interval(-30)
        .end_interval(-1)
        .start_with(1u64)
        .end_with(10u64)
        .sort_key("playback_count")
        .sort_order(SortOrder::Desc)
        .filters(r#"[{"item":"player_version","condition":"eq","value":["7.2.0"]}]"#)
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(Expect::get(concat!(
"/v1/os/data?end_interval=-1&end_with=10",
"&filters=%5B%7B%22item%22%3A%22player_version%22%2C%22condition%22%3A%22eq%22%2C%22value%22%3A%5B%227.2.0%22%5D%7D%5D",
"&sort_key=playback_count&sort_order=DESC&start_interval=-30&start_with=1",
)))
    .await;
    assert_eq!(page.data.len(), 2);
    let row = &page.data[0];
    assert_eq!(row.os.as_deref(), Some("iOS"));
    assert_eq!(row.os_version.as_deref(), Some("17.5"));
    assert_eq!(row.player_name.as_deref(), Some("vidplat-player"));
    assert_eq!(row.player_version.as_deref(), Some("7.2.0"));
    assert_eq!(row.playback_count, Some(2980));
    assert_eq!(row.show_user_count, Some(2120));
    assert_eq!(page.data[1].os.as_deref(), Some("Android"));
    assert_eq!(page.data[1].error_count, Some(5));
}

#[tokio::test]
async fn basic_by_environment() {
    let wire = Wire::ok(json!({
        "data": [
            {
                "playback_env": "Safari",
                "playback_env_version": "17.5",
                "player_name": "vidplat-player",
                "player_version": "7.2.0",
                "ad_playback_count": 19,
                "avg_played_percent": 66,
                "avg_played_time": 588,
                "avg_staytime": 731,
                "error_count": 1,
                "show_count": 2650,
                "playback_count": 1903,
                "play_count": 1850,
                "total_played_time": 1087800,
                "total_staytime": 1352350,
                "show_user_count": 1400,
                "user_count": 1207
            }
        ],
        "golden": false,
        "truncated": false,
        "unsampled": true
    }))
    .await;
    let page = wire
        .analytics()
        .basic_by_environment()
        .start_interval(-30)
        .end_interval(-1)
        .start_with(1u64)
        .end_with(100u64)
        .sort_key("user_count")
        .sort_order(SortOrder::Desc)
        .filters(r#"[{"item":"player_version","condition":"eq","value":["7.2.0"]}]"#)
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(Expect::get(concat!(
"/v1/environment/data?end_interval=-1&end_with=100",
"&filters=%5B%7B%22item%22%3A%22player_version%22%2C%22condition%22%3A%22eq%22%2C%22value%22%3A%5B%227.2.0%22%5D%7D%5D",
"&sort_key=user_count&sort_order=DESC&start_interval=-30&start_with=1",
)))
    .await;
    assert_eq!(page.data.len(), 1);
    assert_eq!(page.golden, Some(false));
    let row = &page.data[0];
    assert_eq!(row.playback_env.as_deref(), Some("Safari"));
    assert_eq!(row.playback_env_version.as_deref(), Some("17.5"));
    assert_eq!(row.player_name.as_deref(), Some("vidplat-player"));
    assert_eq!(row.player_version.as_deref(), Some("7.2.0"));
    assert_eq!(row.playback_count, Some(1903));
    assert_eq!(row.total_staytime, Some(1352350));
    assert_eq!(row.user_count, Some(1207));
}

#[tokio::test]
async fn basic_by_site() {
    let wire = Wire::ok(json!({
        "data": [
            {
                "site": "www.example.co.jp",
                "player_name": "vidplat-player",
                "player_version": "7.2.0",
                "ad_playback_count": 50,
                "avg_played_percent": 63,
                "avg_played_time": 570,
                "avg_staytime": 690,
                "error_count": 4,
                "show_count": 8120,
                "playback_count": 5560,
                "play_count": 5402,
                "total_played_time": 3079140,
                "total_staytime": 3727380,
                "show_user_count": 4011,
                "user_count": 3390
            },
            {
                "site": "jp.example.app",
                "player_name": "vidplat-sdk-ios",
                "player_version": "3.4.1",
                "ad_playback_count": 9,
                "avg_played_percent": 74,
                "avg_played_time": 820,
                "avg_staytime": 905,
                "error_count": 0,
                "show_count": 1330,
                "playback_count": 1102,
                "play_count": 1088,
                "total_played_time": 892160,
                "total_staytime": 984640,
                "show_user_count": 702,
                "user_count": 655
            }
        ],
        "golden": true,
        "truncated": false,
        "unsampled": true
    }))
    .await;
    let page = wire
        .analytics()
        .basic_by_site()
        .start_interval(-30)
        .end_interval(-1)
        .start_with(1u64)
        .end_with(50u64)
        .sort_key("show_count")
        .sort_order(SortOrder::Desc)
        .filters(r#"[{"item":"player_version","condition":"eq","value":["7.2.0"]}]"#)
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(Expect::get(concat!(
"/v1/site/data?end_interval=-1&end_with=50",
"&filters=%5B%7B%22item%22%3A%22player_version%22%2C%22condition%22%3A%22eq%22%2C%22value%22%3A%5B%227.2.0%22%5D%7D%5D",
"&sort_key=show_count&sort_order=DESC&start_interval=-30&start_with=1",
)))
    .await;
    assert_eq!(page.data.len(), 2);
    let row = &page.data[0];
    assert_eq!(row.site.as_deref(), Some("www.example.co.jp"));
    assert_eq!(row.player_name.as_deref(), Some("vidplat-player"));
    assert_eq!(row.player_version.as_deref(), Some("7.2.0"));
    assert_eq!(row.show_count, Some(8120));
    assert_eq!(row.play_count, Some(5402));
    assert_eq!(page.data[1].site.as_deref(), Some("jp.example.app"));
    assert_eq!(page.data[1].player_version.as_deref(), Some("3.4.1"));
}

#[tokio::test]
async fn basic_by_region() {
    let wire = Wire::ok(json!({
        "data": [
            {
                "country": "Japan",
                "region": "Tokyo",
                "city": "Shibuya",
                "ad_playback_count": 14,
                "avg_played_percent": 68,
                "avg_played_time": 610,
                "avg_staytime": 720,
                "error_count": 1,
                "show_count": 1920,
                "playback_count": 1405,
                "play_count": 1370,
                "total_played_time": 835700,
                "total_staytime": 986400,
                "show_user_count": 1011,
                "user_count": 902
            },
            {
                "country": "Japan",
                "region": "Osaka",
                "city": "Osaka",
                "ad_playback_count": 9,
                "avg_played_percent": 60,
                "avg_played_time": 533,
                "avg_staytime": 650,
                "error_count": 0,
                "show_count": 1210,
                "playback_count": 870,
                "play_count": 851,
                "total_played_time": 453583,
                "total_staytime": 553150,
                "show_user_count": 640,
                "user_count": 577
            }
        ],
        "golden": true,
        "truncated": false,
        "unsampled": true
    }))
    .await;
    let page = wire
        .analytics()
        .basic_by_region()
        .start_interval(-30)
        .end_interval(-1)
        .start_with(1u64)
        .end_with(100u64)
        .sort_key("playback_count")
        .sort_order(SortOrder::Desc)
        .filters(r#"[{"item":"player_version","condition":"eq","value":["7.2.0"]}]"#)
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(Expect::get(concat!(
"/v1/region/data?end_interval=-1&end_with=100",
"&filters=%5B%7B%22item%22%3A%22player_version%22%2C%22condition%22%3A%22eq%22%2C%22value%22%3A%5B%227.2.0%22%5D%7D%5D",
"&sort_key=playback_count&sort_order=DESC&start_interval=-30&start_with=1",
)))
    .await;
    assert_eq!(page.data.len(), 2);
    let row = &page.data[0];
    assert_eq!(row.country.as_deref(), Some("Japan"));
    assert_eq!(row.region.as_deref(), Some("Tokyo"));
    assert_eq!(row.city.as_deref(), Some("Shibuya"));
    assert_eq!(row.playback_count, Some(1405));
    assert_eq!(row.user_count, Some(902));
    assert_eq!(page.data[1].region.as_deref(), Some("Osaka"));
    assert_eq!(page.data[1].total_played_time, Some(453583));
}

#[tokio::test]
async fn basic_viewing_history() {
    let wire = Wire::ok(json!({
        "data": [
            {
                "date_time": "2024-10-30 21:15:00",
                "user_id": "member-00412",
                "content_category": "旅行",
                "content_title": "京都 紅葉めぐり 2024",
                "content_type": "VOD",
                "os": "iOS",
                "playback_env": "Safari",
                "region": "Tokyo",
                "played_flags": "11111111110000000000",
                "played_percent": 50,
                "played_time": 726,
                "stay_time": 910,
                "show_count": 1,
                "playback_count": 1,
                "play_count": 1
            },
            {
                "date_time": "2024-10-30 20:42:00",
                "user_id": "member-01877",
                "content_category": "Cooking",
                "content_title": "Weeknight Ramen",
                "content_type": "VOD",
                "os": "Android",
                "playback_env": "Chrome",
                "region": "Osaka",
                "played_flags": "11100000000000000000",
                "played_percent": 15,
                "played_time": 190,
                "stay_time": 260,
                "show_count": 2,
                "playback_count": 1,
                "play_count": 1
            }
        ],
        "golden": false,
        "truncated": true,
        "unsampled": true
    }))
    .await;
    let page = wire
        .analytics()
        .basic_viewing_history()
        .start_interval(-1)
        .end_interval(0)
        .start_with(1u64)
        .end_with(2u64)
        .filters(r#"[{"item":"player_version","condition":"eq","value":["7.2.0"]}]"#)
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(Expect::get(concat!(
"/v1/history?end_interval=0&end_with=2",
"&filters=%5B%7B%22item%22%3A%22player_version%22%2C%22condition%22%3A%22eq%22%2C%22value%22%3A%5B%227.2.0%22%5D%7D%5D",
"&start_interval=-1&start_with=1",
)))
    .await;
    assert_eq!(page.data.len(), 2);
    assert_eq!(page.truncated, Some(true));
    let row = &page.data[0];
    assert_eq!(row.date_time.as_deref(), Some("2024-10-30 21:15:00"));
    assert_eq!(row.user_id.as_deref(), Some("member-00412"));
    assert_eq!(row.content_category.as_deref(), Some("旅行"));
    assert_eq!(row.content_title.as_deref(), Some("京都 紅葉めぐり 2024"));
    assert_eq!(row.content_type, Some(ContentType::Vod));
    assert_eq!(row.os.as_deref(), Some("iOS"));
    assert_eq!(row.playback_env.as_deref(), Some("Safari"));
    assert_eq!(row.region.as_deref(), Some("Tokyo"));
    assert_eq!(row.played_flags.as_deref(), Some("11111111110000000000"));
    assert_eq!(row.played_percent, Some(50));
    assert_eq!(row.played_time, Some(726));
    assert_eq!(row.stay_time, Some(910));
    assert_eq!(row.show_count, Some(1));
    assert_eq!(page.data[1].date_time.as_deref(), Some("2024-10-30 20:42:00"));
    assert_eq!(page.data[1].show_count, Some(2));
}

#[tokio::test]
async fn basic_query() {
    let wire = Wire::ok(json!({
        "data": [
            {"date": "2024-10-30", "content_title": "京都 紅葉めぐり 2024", "playback_count": 412, "play_count": 398},
            {"date": "2024-10-30", "content_title": "Weeknight Ramen", "playback_count": 160, "play_count": 151},
            {"date": "2024-10-29", "content_title": "京都 紅葉めぐり 2024", "playback_count": 377, "play_count": 360}
        ],
        "golden": true,
        "truncated": false,
        "unsampled": true
    }))
    .await;
    let page = wire
        .analytics()
        .basic_query()
        .start_interval(-2)
        .end_interval(-1)
        .start_with(1u64)
        .end_with(3u64)
        .sort_key("playback_count")
        .sort_order(SortOrder::Desc)
        .filters(r#"[{"item":"player_version","condition":"eq","value":["7.2.0"]}]"#)
        .dimensions("date,content_title")
        .metrics("playback_count,play_count")
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(Expect::get(concat!(
"/v1/data?dimensions=date%2Ccontent_title&end_interval=-1&end_with=3",
"&filters=%5B%7B%22item%22%3A%22player_version%22%2C%22condition%22%3A%22eq%22%2C%22value%22%3A%5B%227.2.0%22%5D%7D%5D",
"&metrics=playback_count%2Cplay_count&sort_key=playback_count&sort_order=DESC",
"&start_interval=-2&start_with=1",
)))
    .await;
    assert_eq!(page.data.len(), 3);
    let row = &page.data[0];
    assert_eq!(row.date.as_deref(), Some("2024-10-30"));
    assert_eq!(row.content_title.as_deref(), Some("京都 紅葉めぐり 2024"));
    assert_eq!(row.playback_count, Some(412));
    assert_eq!(row.play_count, Some(398));
    assert_eq!(row.user_id, None);
    assert_eq!(page.data[2].date.as_deref(), Some("2024-10-29"));
    assert_eq!(page.data[2].playback_count, Some(377));
}

#[tokio::test]
async fn basic_audience_rating() {
    let wire = Wire::ok(json!({
        "data": [
            {
                "content_title": "京都 紅葉めぐり 2024",
                "audience": [
                    {
                        "segment": [
                            {"playback_point": 0, "count": 1874, "rating": 1.0},
                            {"playback_point": 1, "count": 1702, "rating": 0.908},
                            {"playback_point": 2, "count": 1533, "rating": 0.818}
                        ]
                    }
                ]
            }
        ],
        "golden": true,
        "truncated": false,
        "unsampled": true
    }))
    .await;
    let page = wire
        .analytics()
        .basic_audience_rating()
        .start_interval(-30)
        .end_interval(-1)
        .start_with(1u64)
        .end_with(3u64)
        .filters(r#"[{"item":"player_version","condition":"eq","value":["7.2.0"]}]"#)
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(Expect::get(concat!(
"/v1/engagement/audience-rating/data?end_interval=-1&end_with=3",
"&filters=%5B%7B%22item%22%3A%22player_version%22%2C%22condition%22%3A%22eq%22%2C%22value%22%3A%5B%227.2.0%22%5D%7D%5D",
"&start_interval=-30&start_with=1",
)))
    .await;
    assert_eq!(page.data.len(), 1);
    assert_eq!(page.golden, Some(true));
    let row = &page.data[0];
    assert_eq!(row.content_title.as_deref(), Some("京都 紅葉めぐり 2024"));
    assert_eq!(row.audience.len(), 1);
    let segment = &row.audience[0].segment;
    assert_eq!(segment.len(), 3);
    assert_eq!(segment[0].playback_point, Some(0));
    assert_eq!(segment[0].count, Some(1874));
    assert_eq!(segment[0].rating, Some(1.0));
    assert_eq!(segment[2].playback_point, Some(2));
    assert_eq!(segment[2].count, Some(1533));
    assert_eq!(segment[2].rating, Some(0.818));
}

#[tokio::test]
async fn basic_reaction() {
    let wire = Wire::ok(json!({
        "data": [
            {
                "content_title": "京都 紅葉めぐり 2024",
                "reaction": [
                    {
                        "button_id": "1",
                        "button_label": "いいね",
                        "segment": [
                            {"reaction_point": 12, "count": 40},
                            {"reaction_point": 13, "count": 57}
                        ]
                    },
                    {
                        "button_id": "2",
                        "button_label": "Wow",
                        "segment": [{"reaction_point": 30, "count": 9}]
                    }
                ]
            }
        ],
        "golden": true,
        "truncated": false,
        "unsampled": true
    }))
    .await;
    let page = wire
        .analytics()
        .basic_reaction()
        .start_interval(-30)
        .end_interval(-1)
        .start_with(1u64)
        .end_with(100u64)
        .filters(r#"[{"item":"player_version","condition":"eq","value":["7.2.0"]}]"#)
        .group_per("id")
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(Expect::get(concat!(
"/v1/engagement/reaction/data?end_interval=-1&end_with=100",
"&filters=%5B%7B%22item%22%3A%22player_version%22%2C%22condition%22%3A%22eq%22%2C%22value%22%3A%5B%227.2.0%22%5D%7D%5D",
"&group_per=id&start_interval=-30&start_with=1",
)))
    .await;
    assert_eq!(page.data.len(), 1);
    let row = &page.data[0];
    assert_eq!(row.content_title.as_deref(), Some("京都 紅葉めぐり 2024"));
    assert_eq!(row.reaction.len(), 2);
    let like = &row.reaction[0];
    assert_eq!(like.button_id.as_deref(), Some("1"));
    assert_eq!(like.button_label.as_deref(), Some("いいね"));
    assert_eq!(like.segment.len(), 2);
    assert_eq!(like.segment[1].reaction_point, Some(13));
    assert_eq!(like.segment[1].count, Some(57));
    assert_eq!(row.reaction[1].button_label.as_deref(), Some("Wow"));
    assert_eq!(row.reaction[1].segment[0].count, Some(9));
}

#[tokio::test]
async fn basic_viewing_situation() {
    let wire = Wire::ok(json!({
        "data": [
            {
                "content_title": "京都 紅葉めぐり 2024",
                "situation": [
                    {
                        "playback_rate": "1.0",
                        "bitrate": "2000",
                        "subtitles": "ja",
                        "screen_status": "fullscreen",
                        "playback_status": "playing",
                        "segment": [
                            {"playback_point": 0, "count": 920, "rating": 1.0},
                            {"playback_point": 1, "count": 861, "rating": 0.936}
                        ]
                    },
                    {
                        "playback_rate": "1.5",
                        "bitrate": "800",
                        "subtitles": "off",
                        "screen_status": "inline",
                        "playback_status": "playing",
                        "segment": [{"playback_point": 0, "count": 112, "rating": 1.0}]
                    }
                ]
            }
        ],
        "golden": true,
        "truncated": false,
        "unsampled": true
    }))
    .await;
    let page = wire
        .analytics()
        .basic_viewing_situation()
        .parameter("playback status/動画")
        .start_interval(-30)
        .end_interval(-1)
        .start_with(1u64)
        .end_with(2u64)
        .filters(r#"[{"item":"player_version","condition":"eq","value":["7.2.0"]}]"#)
        .send()
        .await
        .unwrap()
        .into_inner();
    // The path parameter is one segment: space, slash and non-ASCII are all percent-encoded.
    wire.verify(Expect::get(concat!(
"/v1/situation/data/playback%20status%2F%E5%8B%95%E7%94%BB?end_interval=-1",
"&end_with=2",
"&filters=%5B%7B%22item%22%3A%22player_version%22%2C%22condition%22%3A%22eq%22%2C%22value%22%3A%5B%227.2.0%22%5D%7D%5D",
"&start_interval=-30&start_with=1",
)))
    .await;
    assert_eq!(page.data.len(), 1);
    let row = &page.data[0];
    assert_eq!(row.content_title.as_deref(), Some("京都 紅葉めぐり 2024"));
    assert_eq!(row.situation.len(), 2);
    let full = &row.situation[0];
    assert_eq!(full.playback_rate.as_deref(), Some("1.0"));
    assert_eq!(full.bitrate.as_deref(), Some("2000"));
    assert_eq!(full.subtitles.as_deref(), Some("ja"));
    assert_eq!(full.screen_status.as_deref(), Some("fullscreen"));
    assert_eq!(full.playback_status.as_deref(), Some("playing"));
    assert_eq!(full.segment.len(), 2);
    assert_eq!(full.segment[1].playback_point, Some(1));
    assert_eq!(full.segment[1].count, Some(861));
    assert_eq!(full.segment[1].rating, Some(0.936));
    assert_eq!(row.situation[1].bitrate.as_deref(), Some("800"));
}

#[tokio::test]
async fn cloud_realtime_user_counts() {
    let wire = Wire::ok(json!({
        "data": [
            {
                "date_time": "2024-10-30 21:14:59",
                "content_name": "kyoto-autumn-2024",
                "content_title": "京都 紅葉めぐり 2024",
                "count": 132
            },
            {
                "date_time": "2024-10-30 21:14:59",
                "content_name": "live/weeknight ramen",
                "content_title": "Weeknight Ramen LIVE",
                "count": 58
            }
        ],
        "truncated": false
    }))
    .await;
    let page = wire
        .analytics()
        .cloud_realtime_user_counts()
        .start("2024-10-30 21:00:00")
        .end("2024-10-30 21:15:00")
        .sort("date_time|desc")
        .group_per("content_name")
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(Expect::get(concat!(
        "/v2/realtime/user-counts?end=2024-10-30+21%3A15%3A00&group_per=content_name",
        "&sort=date_time%7Cdesc&start=2024-10-30+21%3A00%3A00",
    )))
    .await;
    assert_eq!(page.data.len(), 2);
    assert_eq!(page.truncated, Some(false));
    let row = &page.data[0];
    assert_eq!(row.date_time.as_deref(), Some("2024-10-30 21:14:59"));
    assert_eq!(row.content_name.as_deref(), Some("kyoto-autumn-2024"));
    assert_eq!(row.content_title.as_deref(), Some("京都 紅葉めぐり 2024"));
    assert_eq!(row.count, Some(132));
    assert_eq!(page.data[1].content_name.as_deref(), Some("live/weeknight ramen"));
    assert_eq!(page.data[1].count, Some(58));
}

#[tokio::test]
async fn cloud_user_counts_legacy() {
    let wire = Wire::ok(json!({
        "data": [
            {
                "date_time": "2024-10-30 15:00:00",
                "content_name": "kyoto-autumn-2024",
                "content_title": "京都 紅葉めぐり 2024",
                "count": 211
            },
            {
                "date_time": "2024-10-30 16:00:00",
                "content_name": "kyoto-autumn-2024",
                "content_title": "京都 紅葉めぐり 2024",
                "count": 248
            }
        ],
        "truncated": true
    }))
    .await;
    let page = wire
        .analytics()
        .cloud_user_counts_legacy()
        .start("2024-10-30 15:00:00")
        .end("2024-10-30 21:00:00")
        .limit(2u64)
        .offset(0)
        .sort("date_time|asc")
        .group_per("content_name")
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(Expect::get(concat!(
        "/v2/user-counts/data?end=2024-10-30+21%3A00%3A00&group_per=content_name&limit=2",
        "&offset=0&sort=date_time%7Casc&start=2024-10-30+15%3A00%3A00",
    )))
    .await;
    assert_eq!(page.data.len(), 2);
    assert_eq!(page.truncated, Some(true));
    let row = &page.data[0];
    assert_eq!(row.date_time.as_deref(), Some("2024-10-30 15:00:00"));
    assert_eq!(row.content_name.as_deref(), Some("kyoto-autumn-2024"));
    assert_eq!(row.content_title.as_deref(), Some("京都 紅葉めぐり 2024"));
    assert_eq!(row.count, Some(211));
    assert_eq!(page.data[1].date_time.as_deref(), Some("2024-10-30 16:00:00"));
    assert_eq!(page.data[1].count, Some(248));
}

#[tokio::test]
async fn cloud_active_users() {
    let wire = Wire::ok(json!({
        "data": [
            {"date_time": "2024-10-01 00:00:00", "count": 1804},
            {"date_time": "2024-10-01 01:00:00", "count": 1122},
            {"date_time": "2024-10-01 02:00:00", "count": 640}
        ],
        "truncated": true
    }))
    .await;
    let page = wire
        .analytics()
        .cloud_active_users()
        .start("2024-10-01 00:00:00")
        .end("2024-10-31 23:59:59")
        .limit(3u64)
        .offset(0)
        .sort("date_time|asc")
        .granularity(Granularity::Hourly)
        .filters(r#"{"content_name":["tokyo-trip_2024"]}"#)
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(Expect::get(concat!(
        "/v2/active-users/data?end=2024-10-31+23%3A59%3A59",
        "&filters=%7B%22content_name%22%3A%5B%22tokyo-trip_2024%22%5D%7D",
        "&granularity=hourly&limit=3&offset=0&sort=date_time%7Casc",
        "&start=2024-10-01+00%3A00%3A00",
    )))
    .await;
    assert_eq!(page.data.len(), 3);
    assert_eq!(page.truncated, Some(true));
    assert_eq!(page.data[0].date_time.as_deref(), Some("2024-10-01 00:00:00"));
    assert_eq!(page.data[0].count, Some(1804));
    assert_eq!(page.data[2].date_time.as_deref(), Some("2024-10-01 02:00:00"));
    assert_eq!(page.data[2].count, Some(640));
}

#[tokio::test]
async fn cloud_by_time_period() {
    let wire = Wire::ok(json!({
        "data": [
            {
                "date_time": "2024-10-01 00:00:00",
                "ad_impressions": 310,
                "avg_play_percent": 62,
                "avg_play_time": 541,
                "player_impressions": 5120,
                "play_requested_count": 3310,
                "play_started_count": 3188,
                "total_play_time": 1724708,
                "impression_user_count": 2804,
                "user_count": 2210
            },
            {
                "date_time": "2024-10-01 01:00:00",
                "ad_impressions": 190,
                "avg_play_percent": 58,
                "avg_play_time": 502,
                "player_impressions": 3010,
                "play_requested_count": 1980,
                "play_started_count": 1902,
                "total_play_time": 954804,
                "impression_user_count": 1650,
                "user_count": 1288
            }
        ],
        "truncated": false
    }))
    .await;
    let page = wire
        .analytics()
        .cloud_by_time_period()
        .start("2024-10-01 00:00:00")
        .end("2024-10-31 23:59:59")
        .limit(744u64)
        .offset(0)
        .sort("date_time|asc")
        .granularity(Granularity::Hourly)
        .filters(r#"{"content_name":["tokyo-trip_2024"]}"#)
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(Expect::get(concat!(
        "/v2/datetime/data?end=2024-10-31+23%3A59%3A59",
        "&filters=%7B%22content_name%22%3A%5B%22tokyo-trip_2024%22%5D%7D",
        "&granularity=hourly&limit=744&offset=0&sort=date_time%7Casc",
        "&start=2024-10-01+00%3A00%3A00",
    )))
    .await;
    assert_eq!(page.data.len(), 2);
    assert_eq!(page.truncated, Some(false));
    let row = &page.data[0];
    assert_eq!(row.date_time.as_deref(), Some("2024-10-01 00:00:00"));
    assert_eq!(row.ad_impressions, Some(310));
    assert_eq!(row.avg_play_percent, Some(62));
    assert_eq!(row.avg_play_time, Some(541));
    assert_eq!(row.player_impressions, Some(5120));
    assert_eq!(row.play_requested_count, Some(3310));
    assert_eq!(row.play_started_count, Some(3188));
    assert_eq!(row.total_play_time, Some(1724708));
    assert_eq!(row.impression_user_count, Some(2804));
    assert_eq!(row.user_count, Some(2210));
    assert_eq!(page.data[1].date_time.as_deref(), Some("2024-10-01 01:00:00"));
}

#[tokio::test]
async fn cloud_by_content_title() {
    let wire = Wire::ok(json!({
        "data": [
            {
                "content_title": "京都 紅葉めぐり 2024",
                "content_category": "旅行",
                "content_type": "VOD",
                "ad_impressions": 120,
                "avg_play_percent": 81,
                "avg_play_time": 1180,
                "player_impressions": 2480,
                "play_requested_count": 1960,
                "play_started_count": 1911,
                "total_play_time": 2254980,
                "impression_user_count": 1620,
                "user_count": 1402,
                "complete_play_percent": 42.5
            },
            {
                "content_title": "Weeknight Ramen",
                "content_category": "Cooking",
                "content_type": "VOD",
                "ad_impressions": 41,
                "avg_play_percent": 47,
                "avg_play_time": 630,
                "player_impressions": 1010,
                "play_requested_count": 640,
                "play_started_count": 611,
                "total_play_time": 384930,
                "impression_user_count": 702,
                "user_count": 530,
                "complete_play_percent": 18
            }
        ],
        "truncated": false
    }))
    .await;
    let page = wire
        .analytics()
        .cloud_by_content_title()
        .start("2024-10-01 00:00:00")
        .end("2024-10-31 23:59:59")
        .limit(100u64)
        .offset(0)
        .sort("complete_play_percent|desc")
        .granularity(Granularity::Hourly)
        .filters(r#"{"content_name":["東京旅行 2024","kyoto-trip"]}"#)
        .complete_play_percent_threshold(80u64)
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(Expect::get(concat!(
        "/v2/title/data?complete_play_percent_threshold=80&end=2024-10-31+23%3A59%3A59",
        "&filters=%7B%22content_name%22%3A%5B%22%E6%9D%B1%E4%BA%AC%E6%97%85%E8%A1%8C+2024%22%2C%22kyoto-trip%22%5D%7D",
        "&granularity=hourly&limit=100&offset=0&sort=complete_play_percent%7Cdesc",
        "&start=2024-10-01+00%3A00%3A00",
    )))
    .await;
    assert_eq!(page.data.len(), 2);
    let row = &page.data[0];
    assert_eq!(row.content_title.as_deref(), Some("京都 紅葉めぐり 2024"));
    assert_eq!(row.content_category.as_deref(), Some("旅行"));
    assert_eq!(row.content_type, Some(ContentType::Vod));
    assert_eq!(row.ad_impressions, Some(120));
    assert_eq!(row.play_requested_count, Some(1960));
    assert_eq!(row.impression_user_count, Some(1620));
    assert_eq!(row.user_count, Some(1402));
    assert_eq!(row.complete_play_percent, Some(42.5));
    assert_eq!(page.data[1].content_title.as_deref(), Some("Weeknight Ramen"));
    assert_eq!(page.data[1].complete_play_percent, Some(18.0));
}

#[tokio::test]
async fn cloud_by_content_title_and_user() {
    let wire = Wire::ok(json!({
        "data": [
            {
                "content_title": "京都 紅葉めぐり 2024",
                "content_category": "旅行",
                "content_type": "VOD",
                "user_id": "member-00412",
                "engagement_bitmap": [1, 1, 1, 1, 1, 0, 0, 0, 0, 0],
                "play_percent": 50,
                "total_play_time": 726,
                "player_impressions": 3,
                "play_requested_count": 2,
                "play_started_count": 2
            },
            {
                "content_title": "Hokkaido Winter Rail",
                "content_category": "旅行",
                "content_type": "VOD",
                "user_id": "member-01877",
                "engagement_bitmap": [1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
                "play_percent": 100,
                "total_play_time": 1830,
                "player_impressions": 1,
                "play_requested_count": 1,
                "play_started_count": 1
            }
        ],
        "truncated": true
    }))
    .await;
    let page = wire
        .analytics()
        .cloud_by_content_title_and_user()
        .start("2024-10-01 00:00:00")
        .end("2024-10-31 23:59:59")
        .limit(2u64)
        .offset(200)
        .sort("content_title|asc")
        .granularity(Granularity::Hourly)
        .filters(r#"{"content_name":["tokyo-trip_2024"]}"#)
        .engagement_bitmap_granularity(10u64)
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(Expect::get(concat!(
        "/v2/title/userid/data?end=2024-10-31+23%3A59%3A59",
        "&engagement_bitmap_granularity=10",
        "&filters=%7B%22content_name%22%3A%5B%22tokyo-trip_2024%22%5D%7D",
        "&granularity=hourly&limit=2&offset=200&sort=content_title%7Casc",
        "&start=2024-10-01+00%3A00%3A00",
    )))
    .await;
    assert_eq!(page.data.len(), 2);
    assert_eq!(page.truncated, Some(true));
    let row = &page.data[0];
    assert_eq!(row.content_title.as_deref(), Some("京都 紅葉めぐり 2024"));
    assert_eq!(row.content_category.as_deref(), Some("旅行"));
    assert_eq!(row.content_type, Some(ContentType::Vod));
    assert_eq!(row.user_id.as_deref(), Some("member-00412"));
    assert_eq!(row.engagement_bitmap, vec![1, 1, 1, 1, 1, 0, 0, 0, 0, 0]);
    assert_eq!(row.play_percent, Some(50));
    assert_eq!(row.total_play_time, Some(726));
    assert_eq!(row.player_impressions, Some(3));
    assert_eq!(row.play_requested_count, Some(2));
    assert_eq!(row.play_started_count, Some(2));
    assert_eq!(page.data[1].engagement_bitmap.len(), 10);
    assert_eq!(page.data[1].play_percent, Some(100));
}

#[tokio::test]
async fn cloud_by_content_name() {
    let wire = Wire::ok(json!({
        "data": [
            {
                "content_name": "kyoto-autumn-2024",
                "content_category": "旅行",
                "content_type": "VOD",
                "ad_impressions": 120,
                "avg_play_percent": 81,
                "avg_play_time": 1180,
                "player_impressions": 2480,
                "play_requested_count": 1960,
                "play_started_count": 1911,
                "total_play_time": 2254980,
                "impression_user_count": 1620,
                "user_count": 1402,
                "complete_play_percent": 42.5
            }
        ],
        "truncated": false
    }))
    .await;
    let page = wire
        .analytics()
        .cloud_by_content_name()
        .start("2024-10-01 00:00:00")
        .end("2024-10-31 23:59:59")
        .limit(100u64)
        .offset(0)
        .sort("play_requested_count|desc")
        .granularity(Granularity::Hourly)
        .filters(r#"{"content_name":["tokyo-trip_2024"]}"#)
        .complete_play_percent_threshold(90u64)
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(Expect::get(concat!(
        "/v2/name/data?complete_play_percent_threshold=90&end=2024-10-31+23%3A59%3A59",
        "&filters=%7B%22content_name%22%3A%5B%22tokyo-trip_2024%22%5D%7D",
        "&granularity=hourly&limit=100&offset=0&sort=play_requested_count%7Cdesc",
        "&start=2024-10-01+00%3A00%3A00",
    )))
    .await;
    assert_eq!(page.data.len(), 1);
    let row = &page.data[0];
    assert_eq!(row.content_name.as_deref(), Some("kyoto-autumn-2024"));
    assert_eq!(row.content_category.as_deref(), Some("旅行"));
    assert_eq!(row.content_type, Some(ContentType::Vod));
    assert_eq!(row.avg_play_percent, Some(81));
    assert_eq!(row.avg_play_time, Some(1180));
    assert_eq!(row.player_impressions, Some(2480));
    assert_eq!(row.play_started_count, Some(1911));
    assert_eq!(row.total_play_time, Some(2254980));
    assert_eq!(row.complete_play_percent, Some(42.5));
}

#[tokio::test]
async fn cloud_by_content_name_and_user() {
    let wire = Wire::ok(json!({
        "data": [
            {
                "content_name": "kyoto-autumn-2024",
                "content_category": "旅行",
                "content_type": "VOD",
                "user_id": "member-00412",
                "engagement_bitmap": [1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
                "play_percent": 20,
                "total_play_time": 290,
                "player_impressions": 2,
                "play_requested_count": 1,
                "play_started_count": 1
            }
        ],
        "truncated": false
    }))
    .await;
    let page = wire
        .analytics()
        .cloud_by_content_name_and_user()
        .start("2024-10-01 00:00:00")
        .end("2024-10-31 23:59:59")
        .limit(100u64)
        .offset(0)
        .sort("content_title|asc")
        .granularity(Granularity::Hourly)
        .filters(r#"{"content_name":["tokyo-trip_2024"]}"#)
        .engagement_bitmap_granularity(20u64)
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(Expect::get(concat!(
        "/v2/name/userid/data?end=2024-10-31+23%3A59%3A59",
        "&engagement_bitmap_granularity=20",
        "&filters=%7B%22content_name%22%3A%5B%22tokyo-trip_2024%22%5D%7D",
        "&granularity=hourly&limit=100&offset=0&sort=content_title%7Casc",
        "&start=2024-10-01+00%3A00%3A00",
    )))
    .await;
    assert_eq!(page.data.len(), 1);
    let row = &page.data[0];
    assert_eq!(row.content_name.as_deref(), Some("kyoto-autumn-2024"));
    assert_eq!(row.content_category.as_deref(), Some("旅行"));
    assert_eq!(row.content_type, Some(ContentType::Vod));
    assert_eq!(row.user_id.as_deref(), Some("member-00412"));
    assert_eq!(row.engagement_bitmap.len(), 20);
    assert_eq!(row.engagement_bitmap[..5], [1, 1, 1, 1, 0]);
    assert_eq!(row.play_percent, Some(20));
    assert_eq!(row.total_play_time, Some(290));
    assert_eq!(row.player_impressions, Some(2));
    assert_eq!(row.play_requested_count, Some(1));
    assert_eq!(row.play_started_count, Some(1));
}

#[tokio::test]
async fn cloud_by_content_category() {
    let wire = Wire::ok(json!({
        "data": [
            {
                "content_category": "旅行",
                "ad_impressions": 402,
                "avg_play_percent": 70,
                "avg_play_time": 660,
                "player_impressions": 9120,
                "play_requested_count": 6204,
                "play_started_count": 6010,
                "total_play_time": 3966600,
                "impression_user_count": 4870,
                "user_count": 4012
            },
            {
                "content_category": "Cooking",
                "ad_impressions": 150,
                "avg_play_percent": 52,
                "avg_play_time": 310,
                "player_impressions": 3300,
                "play_requested_count": 1980,
                "play_started_count": 1901,
                "total_play_time": 589310,
                "impression_user_count": 1710,
                "user_count": 1250
            }
        ],
        "truncated": false
    }))
    .await;
    let page = wire
        .analytics()
        .cloud_by_content_category()
        .start("2024-10-01 00:00:00")
        .end("2024-10-31 23:59:59")
        .limit(50u64)
        .offset(0)
        .sort("play_requested_count|desc")
        .granularity(Granularity::Hourly)
        .filters(r#"{"content_name":["tokyo-trip_2024"]}"#)
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(Expect::get(concat!(
        "/v2/category/data?end=2024-10-31+23%3A59%3A59",
        "&filters=%7B%22content_name%22%3A%5B%22tokyo-trip_2024%22%5D%7D",
        "&granularity=hourly&limit=50&offset=0&sort=play_requested_count%7Cdesc",
        "&start=2024-10-01+00%3A00%3A00",
    )))
    .await;
    assert_eq!(page.data.len(), 2);
    let row = &page.data[0];
    assert_eq!(row.content_category.as_deref(), Some("旅行"));
    assert_eq!(row.ad_impressions, Some(402));
    assert_eq!(row.player_impressions, Some(9120));
    assert_eq!(row.play_requested_count, Some(6204));
    assert_eq!(row.user_count, Some(4012));
    assert_eq!(page.data[1].content_category.as_deref(), Some("Cooking"));
    assert_eq!(page.data[1].avg_play_time, Some(310));
}

#[tokio::test]
async fn cloud_by_user() {
    let wire = Wire::ok(json!({
        "data": [
            {
                "user_id": "member-00412",
                "ad_impressions": 6,
                "avg_play_percent": 77,
                "avg_play_time": 980,
                "player_impressions": 31,
                "play_requested_count": 22,
                "play_started_count": 21,
                "total_play_time": 20580
            },
            {
                "user_id": "member-01877",
                "ad_impressions": 2,
                "avg_play_percent": 93,
                "avg_play_time": 1702,
                "player_impressions": 12,
                "play_requested_count": 10,
                "play_started_count": 10,
                "total_play_time": 17020
            }
        ],
        "truncated": true
    }))
    .await;
    let page = wire
        .analytics()
        .cloud_by_user()
        .start("2024-10-01 00:00:00")
        .end("2024-10-31 23:59:59")
        .limit(2u64)
        .offset(10)
        .sort("total_play_time|desc")
        .granularity(Granularity::Hourly)
        .filters(r#"{"content_name":["tokyo-trip_2024"]}"#)
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(Expect::get(concat!(
        "/v2/userid/data?end=2024-10-31+23%3A59%3A59",
        "&filters=%7B%22content_name%22%3A%5B%22tokyo-trip_2024%22%5D%7D",
        "&granularity=hourly&limit=2&offset=10&sort=total_play_time%7Cdesc",
        "&start=2024-10-01+00%3A00%3A00",
    )))
    .await;
    assert_eq!(page.data.len(), 2);
    assert_eq!(page.truncated, Some(true));
    let row = &page.data[0];
    assert_eq!(row.user_id.as_deref(), Some("member-00412"));
    assert_eq!(row.ad_impressions, Some(6));
    assert_eq!(row.avg_play_percent, Some(77));
    assert_eq!(row.avg_play_time, Some(980));
    assert_eq!(row.player_impressions, Some(31));
    assert_eq!(row.play_requested_count, Some(22));
    assert_eq!(row.play_started_count, Some(21));
    assert_eq!(row.total_play_time, Some(20580));
    assert_eq!(page.data[1].user_id.as_deref(), Some("member-01877"));
}

#[tokio::test]
async fn cloud_by_os() {
    let wire = Wire::ok(json!({
        "data": [
            {
                "os_name": "iOS",
                "os_version": "17.5",
                "player_name": "vidplat-player",
                "player_version": "7.2.0",
                "ad_impressions": 210,
                "avg_play_percent": 69,
                "avg_play_time": 602,
                "player_impressions": 4102,
                "play_requested_count": 2980,
                "play_started_count": 2871,
                "total_play_time": 1728342,
                "impression_user_count": 2120,
                "user_count": 1877
            }
        ],
        "truncated": false
    }))
    .await;
    let page = wire
        .analytics()
        .cloud_by_os()
        .start("2024-10-01 00:00:00")
        .end("2024-10-31 23:59:59")
        .limit(100u64)
        .offset(0)
        .sort("play_requested_count|desc")
        .granularity(Granularity::Hourly)
        .filters(r#"{"content_name":["tokyo-trip_2024"]}"#)
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(Expect::get(concat!(
        "/v2/os/data?end=2024-10-31+23%3A59%3A59",
        "&filters=%7B%22content_name%22%3A%5B%22tokyo-trip_2024%22%5D%7D",
        "&granularity=hourly&limit=100&offset=0&sort=play_requested_count%7Cdesc",
        "&start=2024-10-01+00%3A00%3A00",
    )))
    .await;
    assert_eq!(page.data.len(), 1);
    let row = &page.data[0];
    assert_eq!(row.os_name.as_deref(), Some("iOS"));
    assert_eq!(row.os_version.as_deref(), Some("17.5"));
    assert_eq!(row.player_name.as_deref(), Some("vidplat-player"));
    assert_eq!(row.player_version.as_deref(), Some("7.2.0"));
    assert_eq!(row.play_requested_count, Some(2980));
    assert_eq!(row.impression_user_count, Some(2120));
    assert_eq!(row.user_count, Some(1877));
}

#[tokio::test]
async fn cloud_by_browser() {
    let wire = Wire::ok(json!({
        "data": [
            {
                "browser_name": "Chrome",
                "browser_version": "130.0",
                "player_name": "vidplat-player",
                "player_version": "7.2.0",
                "ad_impressions": 330,
                "avg_play_percent": 64,
                "avg_play_time": 577,
                "player_impressions": 6020,
                "play_requested_count": 4110,
                "play_started_count": 3987,
                "total_play_time": 2300499,
                "impression_user_count": 3300,
                "user_count": 2790
            },
            {
                "browser_name": "Safari",
                "browser_version": "17.5",
                "player_name": "vidplat-player",
                "player_version": "7.1.3",
                "ad_impressions": 120,
                "avg_play_percent": 66,
                "avg_play_time": 588,
                "player_impressions": 2650,
                "play_requested_count": 1903,
                "play_started_count": 1850,
                "total_play_time": 1087800,
                "impression_user_count": 1400,
                "user_count": 1207
            }
        ],
        "truncated": false
    }))
    .await;
    let page = wire
        .analytics()
        .cloud_by_browser()
        .start("2024-10-01 00:00:00")
        .end("2024-10-31 23:59:59")
        .limit(100u64)
        .offset(0)
        .sort("user_count|desc")
        .granularity(Granularity::Hourly)
        .filters(r#"{"content_name":["tokyo-trip_2024"]}"#)
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(Expect::get(concat!(
        "/v2/browser/data?end=2024-10-31+23%3A59%3A59",
        "&filters=%7B%22content_name%22%3A%5B%22tokyo-trip_2024%22%5D%7D",
        "&granularity=hourly&limit=100&offset=0&sort=user_count%7Cdesc",
        "&start=2024-10-01+00%3A00%3A00",
    )))
    .await;
    assert_eq!(page.data.len(), 2);
    let row = &page.data[0];
    assert_eq!(row.browser_name.as_deref(), Some("Chrome"));
    assert_eq!(row.browser_version.as_deref(), Some("130.0"));
    assert_eq!(row.player_name.as_deref(), Some("vidplat-player"));
    assert_eq!(row.player_version.as_deref(), Some("7.2.0"));
    assert_eq!(row.ad_impressions, Some(330));
    assert_eq!(row.total_play_time, Some(2300499));
    assert_eq!(page.data[1].browser_name.as_deref(), Some("Safari"));
    assert_eq!(page.data[1].user_count, Some(1207));
}

#[tokio::test]
async fn cloud_by_site() {
    let wire = Wire::ok(json!({
        "data": [
            {
                "site": "www.example.co.jp",
                "player_name": "vidplat-player",
                "player_version": "7.2.0",
                "ad_impressions": 500,
                "avg_play_percent": 63,
                "avg_play_time": 570,
                "player_impressions": 8120,
                "play_requested_count": 5560,
                "play_started_count": 5402,
                "total_play_time": 3079140,
                "impression_user_count": 4011,
                "user_count": 3390
            }
        ],
        "truncated": false
    }))
    .await;
    let page = wire
        .analytics()
        .cloud_by_site()
        .start("2024-10-01 00:00:00")
        .end("2024-10-31 23:59:59")
        .limit(100u64)
        .offset(0)
        .sort("play_requested_count|desc")
        .granularity(Granularity::Hourly)
        .filters(r#"{"content_name":["tokyo-trip_2024"]}"#)
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(Expect::get(concat!(
        "/v2/site/data?end=2024-10-31+23%3A59%3A59",
        "&filters=%7B%22content_name%22%3A%5B%22tokyo-trip_2024%22%5D%7D",
        "&granularity=hourly&limit=100&offset=0&sort=play_requested_count%7Cdesc",
        "&start=2024-10-01+00%3A00%3A00",
    )))
    .await;
    assert_eq!(page.data.len(), 1);
    let row = &page.data[0];
    assert_eq!(row.site.as_deref(), Some("www.example.co.jp"));
    assert_eq!(row.player_name.as_deref(), Some("vidplat-player"));
    assert_eq!(row.player_version.as_deref(), Some("7.2.0"));
    assert_eq!(row.player_impressions, Some(8120));
    assert_eq!(row.play_started_count, Some(5402));
    assert_eq!(row.impression_user_count, Some(4011));
}

#[tokio::test]
async fn cloud_by_region() {
    let wire = Wire::ok(json!({
        "data": [
            {
                "country": "Japan",
                "region": "Tokyo",
                "city": "Shibuya",
                "ad_impressions": 140,
                "avg_play_percent": 68,
                "avg_play_time": 610,
                "player_impressions": 1920,
                "play_requested_count": 1405,
                "play_started_count": 1370,
                "total_play_time": 835700,
                "impression_user_count": 1011,
                "user_count": 902
            },
            {
                "country": "Japan",
                "region": "Hokkaido",
                "city": "Sapporo",
                "ad_impressions": 61,
                "avg_play_percent": 71,
                "avg_play_time": 640,
                "player_impressions": 830,
                "play_requested_count": 600,
                "play_started_count": 588,
                "total_play_time": 376320,
                "impression_user_count": 455,
                "user_count": 401
            }
        ],
        "truncated": false
    }))
    .await;
    let page = wire
        .analytics()
        .cloud_by_region()
        .start("2024-10-01 00:00:00")
        .end("2024-10-31 23:59:59")
        .limit(100u64)
        .offset(0)
        .sort("play_requested_count|desc")
        .granularity(Granularity::Hourly)
        .filters(r#"{"content_name":["tokyo-trip_2024"]}"#)
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(Expect::get(concat!(
        "/v2/region/data?end=2024-10-31+23%3A59%3A59",
        "&filters=%7B%22content_name%22%3A%5B%22tokyo-trip_2024%22%5D%7D",
        "&granularity=hourly&limit=100&offset=0&sort=play_requested_count%7Cdesc",
        "&start=2024-10-01+00%3A00%3A00",
    )))
    .await;
    assert_eq!(page.data.len(), 2);
    let row = &page.data[0];
    assert_eq!(row.country.as_deref(), Some("Japan"));
    assert_eq!(row.region.as_deref(), Some("Tokyo"));
    assert_eq!(row.city.as_deref(), Some("Shibuya"));
    assert_eq!(row.play_requested_count, Some(1405));
    assert_eq!(page.data[1].city.as_deref(), Some("Sapporo"));
    assert_eq!(page.data[1].user_count, Some(401));
}

#[tokio::test]
async fn cloud_viewing_history() {
    let wire = Wire::ok(json!({
        "data": [
            {
                "date_time": "2024-10-30 21:15:42",
                "user_id": "member-00412",
                "content_category": "旅行",
                "content_name": "kyoto-autumn-2024",
                "content_title": "京都 紅葉めぐり 2024",
                "content_type": "VOD",
                "os_name": "iOS",
                "browser_name": "Safari",
                "region": "Tokyo",
                "engagement_bitmap": [1, 1, 1, 1, 1, 0, 0, 0, 0, 0],
                "play_percent": 50,
                "play_time": 726,
                "play_requested_count": 1,
                "play_started_count": 1
            },
            {
                "date_time": "2024-10-30 20:42:07",
                "user_id": "member-01877",
                "content_category": "Cooking",
                "content_name": "weeknight-ramen",
                "content_title": "Weeknight Ramen",
                "content_type": "VOD",
                "os_name": "Android",
                "browser_name": "Chrome",
                "region": "Osaka",
                "engagement_bitmap": [1, 1, 0, 0, 0, 0, 0, 0, 0, 0],
                "play_percent": 15,
                "play_time": 190,
                "play_requested_count": 1,
                "play_started_count": 0
            }
        ],
        "truncated": true
    }))
    .await;
    let page = wire
        .analytics()
        .cloud_viewing_history()
        .start("2024-10-30 00:00:00")
        .end("2024-10-30 23:59:59")
        .limit(2u64)
        .offset(0)
        .engagement_bitmap_granularity(10u64)
        .filters(r#"{"content_name":["東京旅行 2024","kyoto-trip"]}"#)
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(Expect::get(concat!(
        "/v2/history?end=2024-10-30+23%3A59%3A59&engagement_bitmap_granularity=10",
        "&filters=%7B%22content_name%22%3A%5B%22%E6%9D%B1%E4%BA%AC%E6%97%85%E8%A1%8C+2024%22%2C%22kyoto-trip%22%5D%7D",
        "&limit=2&offset=0&start=2024-10-30+00%3A00%3A00",
    )))
    .await;
    assert_eq!(page.data.len(), 2);
    assert_eq!(page.truncated, Some(true));
    let row = &page.data[0];
    assert_eq!(row.date_time.as_deref(), Some("2024-10-30 21:15:42"));
    assert_eq!(row.user_id.as_deref(), Some("member-00412"));
    assert_eq!(row.content_category.as_deref(), Some("旅行"));
    assert_eq!(row.content_name.as_deref(), Some("kyoto-autumn-2024"));
    assert_eq!(row.content_title.as_deref(), Some("京都 紅葉めぐり 2024"));
    assert_eq!(row.content_type, Some(ContentType::Vod));
    assert_eq!(row.os_name.as_deref(), Some("iOS"));
    assert_eq!(row.browser_name.as_deref(), Some("Safari"));
    assert_eq!(row.region.as_deref(), Some("Tokyo"));
    assert_eq!(row.engagement_bitmap, vec![1, 1, 1, 1, 1, 0, 0, 0, 0, 0]);
    assert_eq!(row.play_percent, Some(50));
    assert_eq!(row.play_time, Some(726));
    assert_eq!(row.play_requested_count, Some(1));
    assert_eq!(row.play_started_count, Some(1));
    assert_eq!(page.data[1].date_time.as_deref(), Some("2024-10-30 20:42:07"));
    assert_eq!(page.data[1].play_started_count, Some(0));
}

#[tokio::test]
async fn cloud_query() {
    let wire = Wire::ok(json!({
        "data": [
            {
                "date_hour": "2024-10-30 21",
                "content_name": "kyoto-autumn-2024",
                "play_requested_count": 412,
                "complete_play_percent": 38.2
            },
            {
                "date_hour": "2024-10-30 20",
                "content_name": "kyoto-autumn-2024",
                "play_requested_count": 377,
                "complete_play_percent": 35.0
            }
        ],
        "truncated": false
    }))
    .await;
    let page = wire
        .analytics()
        .cloud_query()
        .start("2024-10-30 00:00:00")
        .end("2024-10-30 23:59:59")
        .limit(24u64)
        .offset(0)
        .sort("play_requested_count|desc")
        .granularity(Granularity::Hourly)
        .filters(r#"{"content_name":["tokyo-trip_2024"]}"#)
        .dimensions("date_hour,content_name")
        .metrics("play_requested_count,complete_play_percent")
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(Expect::get(concat!(
        "/v2/data?dimensions=date_hour%2Ccontent_name&end=2024-10-30+23%3A59%3A59",
        "&filters=%7B%22content_name%22%3A%5B%22tokyo-trip_2024%22%5D%7D",
        "&granularity=hourly&limit=24",
        "&metrics=play_requested_count%2Ccomplete_play_percent&offset=0",
        "&sort=play_requested_count%7Cdesc&start=2024-10-30+00%3A00%3A00",
    )))
    .await;
    assert_eq!(page.data.len(), 2);
    let row = &page.data[0];
    assert_eq!(row.date_hour.as_deref(), Some("2024-10-30 21"));
    assert_eq!(row.content_name.as_deref(), Some("kyoto-autumn-2024"));
    assert_eq!(row.play_requested_count, Some(412));
    assert_eq!(row.complete_play_percent, Some(38.2));
    assert_eq!(row.content_title, None);
    assert_eq!(page.data[1].date_hour.as_deref(), Some("2024-10-30 20"));
    assert_eq!(page.data[1].complete_play_percent, Some(35.0));
}

#[tokio::test]
async fn cloud_engagement() {
    let wire = Wire::ok(json!({
        "data": [
            {"playback_point": 0, "count": 1960, "rating": 1.0},
            {"playback_point": 1, "count": 1811, "rating": 0.924},
            {"playback_point": 2, "count": 1640, "rating": 0.837},
            {"playback_point": 3, "count": 1502, "rating": 0.766}
        ]
    }))
    .await;
    let page = wire
        .analytics()
        .cloud_engagement()
        .start("2024-10-01 00:00:00")
        .end("2024-10-31 23:59:59")
        .granularity(4u64)
        .filters(r#"{"content_name":["tokyo-trip_2024"]}"#)
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(Expect::get(concat!(
        "/v2/engagement/data?end=2024-10-31+23%3A59%3A59",
        "&filters=%7B%22content_name%22%3A%5B%22tokyo-trip_2024%22%5D%7D&granularity=4",
        "&start=2024-10-01+00%3A00%3A00",
    )))
    .await;
    assert_eq!(page.data.len(), 4);
    assert_eq!(page.data[0].playback_point, Some(0));
    assert_eq!(page.data[0].count, Some(1960));
    assert_eq!(page.data[0].rating, Some(1.0));
    assert_eq!(page.data[3].playback_point, Some(3));
    assert_eq!(page.data[3].count, Some(1502));
    assert_eq!(page.data[3].rating, Some(0.766));
}

#[tokio::test]
async fn cloud_reaction() {
    let wire = Wire::ok(json!({
        "data": [
            {
                "button_id": "like",
                "segment": [
                    {"reaction_point": 12, "count": 40},
                    {"reaction_point": 13, "count": 57},
                    {"reaction_point": 70, "count": 3}
                ]
            },
            {
                "button_id": "wow",
                "segment": [{"reaction_point": 30, "count": 9}]
            }
        ]
    }))
    .await;
    let page = wire
        .analytics()
        .cloud_reaction()
        .start("2024-10-01 00:00:00")
        .end("2024-10-31 23:59:59")
        .granularity(100u64)
        .filters(r#"{"content_name":["tokyo-trip_2024"]}"#)
        .send()
        .await
        .unwrap()
        .into_inner();
    wire.verify(Expect::get(concat!(
        "/v2/reaction/data?end=2024-10-31+23%3A59%3A59",
        "&filters=%7B%22content_name%22%3A%5B%22tokyo-trip_2024%22%5D%7D&granularity=100",
        "&start=2024-10-01+00%3A00%3A00",
    )))
    .await;
    assert_eq!(page.data.len(), 2);
    let like = &page.data[0];
    assert_eq!(like.button_id.as_deref(), Some("like"));
    assert_eq!(like.segment.len(), 3);
    assert_eq!(like.segment[1].reaction_point, Some(13));
    assert_eq!(like.segment[1].count, Some(57));
    assert_eq!(page.data[1].button_id.as_deref(), Some("wow"));
    assert_eq!(page.data[1].segment[0].count, Some(9));
}

#[tokio::test]
async fn cloud_viewing_situation() {
    let wire = Wire::ok(json!({
        "data": [
            {
                "playback_rate": "1.0",
                "bitrate": 2000,
                "subtitle": "ja",
                "cast": "none",
                "screen_type": "fullscreen",
                "is_background": false,
                "segment": [
                    {"playback_point": 0, "rating": 1.0},
                    {"playback_point": 1, "rating": 0.936}
                ]
            },
            {
                "playback_rate": "1.5",
                "bitrate": 800,
                "subtitle": "off",
                "cast": "chromecast",
                "screen_type": "inline",
                "is_background": true,
                "segment": [{"playback_point": 0, "rating": 1.0}]
            }
        ]
    }))
    .await;
    let page = wire
        .analytics()
        .cloud_viewing_situation()
        .parameter("bitrate/動画 1")
        .start("2024-10-01 00:00:00")
        .end("2024-10-31 23:59:59")
        .granularity(20u64)
        .filters(r#"{"content_name":["tokyo-trip_2024"]}"#)
        .send()
        .await
        .unwrap()
        .into_inner();
    // The path parameter is one segment: slash, non-ASCII and space are all percent-encoded.
    wire.verify(Expect::get(concat!(
        "/v2/situation/bitrate%2F%E5%8B%95%E7%94%BB%201/data?end=2024-10-31+23%3A59%3A59",
        "&filters=%7B%22content_name%22%3A%5B%22tokyo-trip_2024%22%5D%7D&granularity=20",
        "&start=2024-10-01+00%3A00%3A00",
    )))
    .await;
    assert_eq!(page.data.len(), 2);
    let full = &page.data[0];
    assert_eq!(full.playback_rate.as_deref(), Some("1.0"));
    assert_eq!(full.bitrate, Some(2000));
    assert_eq!(full.subtitle.as_deref(), Some("ja"));
    assert_eq!(full.cast.as_deref(), Some("none"));
    assert_eq!(full.screen_type.as_deref(), Some("fullscreen"));
    assert_eq!(full.is_background, Some(false));
    assert_eq!(full.segment.len(), 2);
    assert_eq!(full.segment[1].playback_point, Some(1));
    assert_eq!(full.segment[1].rating, Some(0.936));
    assert_eq!(page.data[1].bitrate, Some(800));
    assert_eq!(page.data[1].is_background, Some(true));
}

/// One `Period` of Japan-time days sets the basic edition's relative days and
/// the cloud edition's timestamps alike.
#[tokio::test]
async fn with_one_period_both_editions_get_the_same_days() {
    use vidplat::Period;
    let today = Period::today_in_japan();
    let days = |n: u64| today - chrono::Days::new(n);
    let month = Period::last_full_days(30);
    assert_eq!((month.first(), month.last(), month.len_days()), (days(30), days(1), 30));

    let basic = Wire::ok(json!({"data": [], "truncated": false})).await;
    basic.analytics().basic_by_os().period(month).send().await.unwrap();
    basic
        .verify(Expect::get("/v1/os/data?end_interval=-1&start_interval=-30"))
        .await;

    let cloud = Wire::ok(json!({"data": [], "truncated": false})).await;
    cloud.analytics().cloud_by_os().period(month).send().await.unwrap();
    cloud
        .verify(Expect::get(&format!(
            "/v2/os/data?end={}+23%3A59%3A59&start={}+00%3A00%3A00",
            days(1),
            days(30)
        )))
        .await;

    // Older than the basic edition keeps (731 days): refused before sending, naming the parameter.
    let old = Period::days(days(740), days(700)).unwrap();
    let refused = Wire::ok(json!({})).await;
    let error: vidplat::Error = refused
        .analytics()
        .basic_by_os()
        .period(old)
        .send()
        .await
        .unwrap_err()
        .into();
    assert!(
        vidplat_tests::only_refusal(&error)
            .is_some_and(|(field, rule)| field == "start_interval" && rule.contains("-731")),
        "{error:?}"
    );
    refused.assert_nothing_sent().await;
}
