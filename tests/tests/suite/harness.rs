//! A local server that answers one canned response and records what it got,
//! and assertions on the one request an operation test expects.

use serde_json::Value;
use vidplat::{Client, ClientBuilder};
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

/// The API key every wire test's client sends.
pub const API_KEY: &str = "wire-test-key";

/// A client builder for a local server at `uri`, with the wire tests' key.
pub fn local_client(uri: &str) -> ClientBuilder {
    vidplat_tests::local_client(uri).api_key(API_KEY)
}

/// A server on 127.0.0.1 that answers every request with one response, and a
/// facade client whose three services point at it.
pub struct Wire {
    pub server: MockServer,
    pub client: Client,
}

impl Wire {
    /// Answers every request with `status` and `body` as JSON.
    pub async fn answering(status: u16, body: Value) -> Wire {
        Self::with(ResponseTemplate::new(status).set_body_json(body)).await
    }

    /// Answers every request with 200 and `body` as JSON.
    pub async fn ok(body: Value) -> Wire {
        Self::answering(200, body).await
    }

    /// Answers every request with 204 and no body.
    pub async fn no_content() -> Wire {
        Self::with(ResponseTemplate::new(204)).await
    }

    pub async fn with(response: ResponseTemplate) -> Wire {
        Self::configured(response, |builder| builder).await
    }

    /// Like [`Wire::with`], with the client's builder adjusted (retry policy, timeouts, …).
    pub async fn configured(
        response: ResponseTemplate,
        configure: impl FnOnce(ClientBuilder) -> ClientBuilder,
    ) -> Wire {
        let server = MockServer::start().await;
        Mock::given(wiremock::matchers::any())
            .respond_with(response)
            .mount(&server)
            .await;
        let client = configure(local_client(&server.uri()))
            .build()
            .expect("a client for the local server");
        Wire { server, client }
    }

    pub fn encoder(&self) -> &vidplat::encoder::Client {
        self.client.encoder().expect("encoder configured")
    }

    /// The errors of a `get task` (GET, idempotent) and a `register task` (POST, never
    /// re-sent) against this server's answer: the pair the retry rules tell apart.
    pub async fn failed_get_and_post(&self) -> (vidplat::Error, vidplat::Error) {
        use vidplat::Call;
        let get = self.encoder().get_task().task_id(1_u64).call().await;
        let post = self
            .encoder()
            .register_task()
            .body(vidplat_tests::task_body())
            .call()
            .await;
        (
            get.expect_err("the GET fails against this answer"),
            post.expect_err("the POST fails against this answer"),
        )
    }

    pub fn vms(&self) -> &vidplat::vms::Client {
        self.client.vms().expect("vms configured")
    }

    pub fn analytics(&self) -> &vidplat::analytics::Client {
        self.client.analytics().expect("analytics configured")
    }

    pub async fn requests(&self) -> Vec<Request> {
        self.server.received_requests().await.expect("request recording is on")
    }

    /// Asserts the server received exactly one request, and that it is `expected`.
    pub async fn verify(&self, expected: Expect) {
        let requests = self.requests().await;
        assert_eq!(
            requests.len(),
            1,
            "exactly one request reaches the server: {requests:#?}"
        );
        expected.check(&requests[0]);
    }

    /// Asserts nothing reached the server.
    pub async fn assert_nothing_sent(&self) {
        let requests = self.requests().await;
        assert!(requests.is_empty(), "nothing may reach the server: {requests:#?}");
    }
}

/// The request an operation must send.
#[derive(Debug)]
pub struct Expect {
    method: &'static str,
    /// The raw request target, exactly as on the wire: percent-encoded path, then `?query` if any.
    target: String,
    body: ExpectedBody,
    authenticated: bool,
}

#[derive(Debug)]
enum ExpectedBody {
    None,
    Json(Value),
    Bytes { content_type: &'static str, bytes: Vec<u8> },
}

impl Expect {
    fn new(method: &'static str, target: &str) -> Self {
        Expect {
            method,
            target: target.to_owned(),
            body: ExpectedBody::None,
            authenticated: true,
        }
    }

    pub fn get(target: &str) -> Self {
        Self::new("GET", target)
    }

    pub fn post(target: &str) -> Self {
        Self::new("POST", target)
    }

    pub fn put(target: &str) -> Self {
        Self::new("PUT", target)
    }

    pub fn patch(target: &str) -> Self {
        Self::new("PATCH", target)
    }

    pub fn delete(target: &str) -> Self {
        Self::new("DELETE", target)
    }

    /// The request carries exactly this JSON body, as `application/json`.
    pub fn json(mut self, body: Value) -> Self {
        self.body = ExpectedBody::Json(body);
        self
    }

    /// The request carries exactly these bytes, with this content type.
    pub fn bytes(mut self, content_type: &'static str, bytes: &[u8]) -> Self {
        self.body = ExpectedBody::Bytes {
            content_type,
            bytes: bytes.to_vec(),
        };
        self
    }

    /// The operation sends no `Authorization` header at all.
    pub fn unauthenticated(mut self) -> Self {
        self.authenticated = false;
        self
    }

    fn check(&self, request: &Request) {
        assert_eq!(request.method.as_str(), self.method, "method");
        let mut target = request.url.path().to_owned();
        if let Some(query) = request.url.query() {
            target.push('?');
            target.push_str(query);
        }
        assert_eq!(target, self.target, "path and query, exactly as sent");
        let authorization = request
            .headers
            .get("authorization")
            .map(|v| v.to_str().unwrap_or("<binary>"));
        if self.authenticated {
            assert_eq!(
                authorization,
                Some(format!("Bearer {API_KEY}").as_str()),
                "Authorization"
            );
        } else {
            assert_eq!(authorization, None, "this operation must not send Authorization");
        }
        // progenitor adds the YAML's `info.version` as `api-version`; the documents know no such header.
        assert!(request.headers.get("api-version").is_none(), "no api-version header");
        let content_type = request.headers.get("content-type").and_then(|v| v.to_str().ok());
        match &self.body {
            ExpectedBody::None => {
                assert!(
                    request.body.is_empty(),
                    "no body expected, got {:?}",
                    String::from_utf8_lossy(&request.body)
                );
            }
            ExpectedBody::Json(expected) => {
                assert_eq!(content_type, Some("application/json"), "content type");
                let sent: Value = serde_json::from_slice(&request.body).unwrap_or_else(|e| {
                    panic!(
                        "the body is not JSON ({e}): {:?}",
                        String::from_utf8_lossy(&request.body)
                    )
                });
                assert_eq!(&sent, expected, "JSON body");
            }
            ExpectedBody::Bytes {
                content_type: expected_type,
                bytes,
            } => {
                assert_eq!(content_type, Some(*expected_type), "content type");
                assert_eq!(&request.body, bytes, "body bytes");
            }
        }
    }
}
