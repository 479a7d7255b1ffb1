//! The simulated services, driven through the `vidplat` facade over real
//! HTTP, and the `vidplat-sim` binary. One test binary, so the generated
//! clients are linked once.

mod analytics;
mod binary;
mod encoder;
mod faults;
mod fixture;
mod manual;
mod server;
mod vms;

/// A plain reqwest client, for requests the facade would not send. The
/// workspace builds reqwest without a TLS provider of its own (as vidplat's
/// users do), so the process's default provider is installed first.
pub fn raw_http() -> reqwest::Client {
    vidplat::install_default_tls_provider();
    reqwest::Client::new()
}

/// `method` `url` with `key` as its bearer (none when `None`) and `body` as
/// JSON: the status, the `Retry-After` header and the JSON body (`null` when empty).
async fn request(
    method: &str,
    url: &str,
    key: Option<&str>,
    body: Option<serde_json::Value>,
) -> (u16, Option<String>, serde_json::Value) {
    let method = reqwest::Method::from_bytes(method.as_bytes()).expect("a method");
    let mut request = raw_http().request(method, url);
    if let Some(key) = key {
        request = request.bearer_auth(key);
    }
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.expect("an answer");
    let status = response.status().as_u16();
    let retry_after = response
        .headers()
        .get("retry-after")
        .map(|value| value.to_str().expect("ASCII").to_owned());
    let text = response.text().await.expect("a body");
    let body = if text.is_empty() {
        serde_json::Value::Null
    } else {
        serde_json::from_str(&text).expect("JSON")
    };
    (status, retry_after, body)
}
