//! A place on the wire that a call gives back as soon as its success body has
//! arrived, before that body is decoded. A paginator's prefetch depth counts
//! requests on the wire: a page that has arrived decodes (and waits its turn
//! to be yielded) beside the next requests instead of holding one back.

use std::cell::RefCell;
use std::future::Future;
use tokio::sync::OwnedSemaphorePermit;

tokio::task_local! {
    static WIRE_SLOT: RefCell<Option<OwnedSemaphorePermit>>;
}

/// Runs `call` (a generated operation's send) holding `slot` until its
/// success body has arrived, or until it ends (an error, a cancelled call).
pub fn holding_wire_slot<F: Future>(slot: OwnedSemaphorePermit, call: F) -> impl Future<Output = F::Output> {
    // Not an `async fn`, which would hold `call` twice.
    WIRE_SLOT.scope(RefCell::new(Some(slot)), call)
}

/// Gives back the slot of the call being polled, if it holds one: called by
/// [`crate::decode_response`] once the body is whole, before decoding it.
pub(crate) fn body_arrived() {
    // Outside `holding_wire_slot` there is no slot to give back.
    let _ = WIRE_SLOT.try_with(|slot| drop(slot.borrow_mut().take()));
}
