//! How a prepared request reaches the network, replaceable for tests.

use std::future::Future;
use std::pin::Pin;

/// A boxed future of a response, as a [`Transport`] returns it.
pub type ResponseFuture<'a> = Pin<Box<dyn Future<Output = reqwest::Result<reqwest::Response>> + Send + 'a>>;

/// Sends one attempt of a prepared request. The default sends it with the
/// runtime's own HTTP client (which follows no redirects); tests substitute
/// one that records the request and answers without a network.
pub trait Transport: Send + Sync + 'static {
    /// Sends `request` (with `client`, the runtime's HTTP client, if it uses the network).
    fn send<'a>(&'a self, client: &'a reqwest::Client, request: reqwest::Request) -> ResponseFuture<'a>;
}

/// The network, through the runtime's HTTP client.
#[derive(Debug)]
pub(crate) struct Network;

impl Transport for Network {
    fn send<'a>(&'a self, client: &'a reqwest::Client, request: reqwest::Request) -> ResponseFuture<'a> {
        Box::pin(client.execute(request))
    }
}
