//! Which Redis node the quota store speaks to: the one node of a standalone
//! Redis, or, on a Redis Cluster, the node that owns the account's hash slot,
//! learned from the cluster's own `MOVED` replies.
//!
//! A cluster's nodes are trusted with the store's password, as with every
//! cluster client: a redirection is followed to the address the cluster names
//! (over TLS when the first node's URL is `rediss://`, its name checked).
//! A standalone store never follows one.
//!
//! Why not the `redis` crate's cluster client: every connection has to be
//! ours, read within `wire.rs`'s bounds with our TLS settings, and the
//! cluster client makes its own. Its only way to take another connection
//! type, `ClusterClient::get_async_generic_connection`, is `#[doc(hidden)]`,
//! and the `Connect` trait it asks for is a function of the node's address
//! alone, with no value to carry our TLS settings. The cluster client also
//! connects to every master and refreshes the whole slot map, where the store
//! only needs the one node that owns the account's slot.

use crate::error::{quoted, RedisError};
use std::sync::{Mutex, PoisonError};

/// The most nodes a cluster store remembers (the ones named when it was made
/// come first; a hostile node naming endless addresses cannot grow the list).
const MAX_KNOWN_NODES: usize = 32;

/// The nodes of one store.
pub(crate) struct Nodes {
    /// Whether redirections are followed (a Redis Cluster).
    cluster: bool,
    state: Mutex<State>,
}

#[derive(Clone)]
struct State {
    /// The node in use: an index into `known`.
    current: usize,
    /// The nodes named at creation, then the ones redirections named.
    known: Vec<redis::ConnectionAddr>,
}

impl Nodes {
    /// One standalone node.
    pub(crate) fn standalone(addr: redis::ConnectionAddr) -> Self {
        Self {
            cluster: false,
            ..Self::cluster(vec![addr])
        }
    }

    /// Some nodes of one Redis Cluster (at least one), the first in use.
    pub(crate) fn cluster(mut addrs: Vec<redis::ConnectionAddr>) -> Self {
        addrs.dedup();
        addrs.truncate(MAX_KNOWN_NODES);
        Self {
            cluster: true,
            state: Mutex::new(State {
                current: 0,
                known: addrs,
            }),
        }
    }

    /// The same nodes, for a store of its own.
    pub(crate) fn fresh_copy(&self) -> Self {
        Self {
            cluster: self.cluster,
            state: Mutex::new(self.state().clone()),
        }
    }

    pub(crate) fn is_cluster(&self) -> bool {
        self.cluster
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The node in use.
    pub(crate) fn current(&self) -> redis::ConnectionAddr {
        let state = self.state();
        state.known[state.current].clone()
    }

    /// The node in use, then the others in the order they became known: where
    /// a new connection is tried when the node in use stops answering.
    pub(crate) fn candidates(&self) -> Vec<redis::ConnectionAddr> {
        let state = self.state();
        let (before, from) = state.known.split_at(state.current);
        from.iter().chain(before).cloned().collect()
    }

    /// Makes `addr` (one of `candidates()`) the node in use.
    pub(crate) fn use_node(&self, addr: &redis::ConnectionAddr) {
        let mut state = self.state();
        if let Some(at) = state.known.iter().position(|known| known == addr) {
            state.current = at;
        }
    }

    /// Follows a `MOVED <slot> <host>:<port>`: the named node is in use from
    /// now on. Refused on a standalone store, and for an address that names
    /// no port.
    pub(crate) fn moved_to(&self, named: &str) -> Result<(), RedisError> {
        if !self.cluster {
            return Err(RedisError::NotStandalone {
                named: quoted(named, 100),
            });
        }
        let (host, port) = named
            .rsplit_once(':')
            .and_then(|(host, port)| Some((host, port.parse::<u16>().ok()?)))
            .filter(|(host, port)| !host.is_empty() && *port != 0)
            .ok_or_else(|| RedisError::BadRedirect {
                named: quoted(named, 100),
            })?;
        // An IPv6 address may come bracketed or bare.
        let host = host.trim_start_matches('[').trim_end_matches(']').to_owned();
        let mut state = self.state();
        let addr = match &state.known[0] {
            redis::ConnectionAddr::TcpTls {
                insecure, tls_params, ..
            } => redis::ConnectionAddr::TcpTls {
                host,
                port,
                insecure: *insecure,
                tls_params: tls_params.clone(),
            },
            _ => redis::ConnectionAddr::Tcp(host, port),
        };
        match state.known.iter().position(|known| *known == addr) {
            Some(at) => state.current = at,
            None => {
                if state.known.len() >= MAX_KNOWN_NODES {
                    // Full: the newest learned node gives way (the ones named at creation stay).
                    state.known.pop();
                }
                state.known.push(addr);
                state.current = state.known.len() - 1;
            }
        }
        Ok(())
    }

    /// How many nodes are known (for tests and diagnostics).
    #[cfg(test)]
    pub(crate) fn known(&self) -> usize {
        self.state().known.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tcp(port: u16) -> redis::ConnectionAddr {
        redis::ConnectionAddr::Tcp("127.0.0.1".to_owned(), port)
    }

    #[test]
    fn a_redirection_is_followed_on_a_cluster_only_and_the_list_stays_bounded() {
        let standalone = Nodes::standalone(tcp(1));
        let refused = standalone.moved_to("127.0.0.1:2").unwrap_err();
        assert_eq!(
            refused,
            RedisError::NotStandalone {
                named: "127.0.0.1:2".to_owned()
            }
        );
        assert!(refused.to_string().contains("RedisQuota::cluster"), "{refused}");
        assert_eq!(standalone.current(), tcp(1));

        let cluster = Nodes::cluster(vec![tcp(1), tcp(2)]);
        cluster.moved_to("127.0.0.1:3").unwrap();
        assert_eq!(cluster.current(), tcp(3));
        assert_eq!(cluster.candidates(), vec![tcp(3), tcp(1), tcp(2)]);
        // A node already known is reused, not added again.
        cluster.moved_to("127.0.0.1:1").unwrap();
        assert_eq!((cluster.current(), cluster.known()), (tcp(1), 3));
        cluster.moved_to("[::1]:7000").unwrap();
        assert_eq!(cluster.current(), redis::ConnectionAddr::Tcp("::1".to_owned(), 7000));
        for bad in ["no-port", ":7000", "host:0", "host:99999"] {
            assert!(cluster.moved_to(bad).is_err(), "{bad}");
        }
        for port in 10..200 {
            cluster.moved_to(&format!("127.0.0.1:{port}")).unwrap();
        }
        assert_eq!(cluster.known(), MAX_KNOWN_NODES);
        assert_eq!(cluster.current(), tcp(199));
        assert!(
            cluster.candidates().contains(&tcp(2)),
            "the nodes named at creation stay"
        );
    }
}
