//! A bounded queue between tasks that costs little while idle: a socket's outbox (the
//! frames its table queued and its connection has not yet written) and a table's inbox
//! (the commands its connections and routes sent it).
//!
//! A Tokio channel cost every idle socket and every table ~0.8–3 KiB (its shared state is
//! cache-padded, and it allocates room for 32 messages at once, `docs/benchmarks.md`);
//! this is a queue behind a mutex that grows only while items wait, a `Notify` that wakes
//! the receiver and one, made when first needed, that wakes senders waiting for room.
//! When every sender is gone the receiver gets the items still queued, then `None`; when
//! the receiver is gone (or closed) the queued items are dropped and senders are refused.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use tokio::sync::Notify;

use super::msg::Frame;

/// Why an item was not queued.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrySendError {
    /// `capacity` items are waiting: the receiver cannot keep up.
    Full,
    /// The receiver is gone.
    Closed,
}

/// The receiver is gone: nothing was queued.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Closed;

#[derive(Debug)]
struct Shared<T> {
    state: Mutex<State<T>>,
    /// Wakes the receiver: an item arrived, or the last sender went.
    ready: Notify,
    /// Wakes a sender waiting for room (all of them when the receiver goes); made when a
    /// sender first waits (a socket's outbox never has one: its table only tries).
    room: OnceLock<Box<Notify>>,
    capacity: usize,
}

#[derive(Debug)]
struct State<T> {
    items: VecDeque<T>,
    senders: usize,
    receiver_gone: bool,
}

impl<T> Shared<T> {
    fn lock(&self) -> MutexGuard<'_, State<T>> {
        // A panic while holding the lock leaves the queue consistent (every change is one
        // call on it), so a poisoned lock is used as it is.
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// An item was taken: wakes a sender waiting for room, if any ever waited.
    fn room_made(&self) {
        if let Some(room) = self.room.get() {
            room.notify_one();
        }
    }
}

/// A sending end (cloneable: a table's inbox has one per connection and route).
#[derive(Debug)]
pub struct Sender<T>(Arc<Shared<T>>);

/// The receiving end.
#[derive(Debug)]
pub struct Receiver<T>(Arc<Shared<T>>);

/// A socket's outbox: its table sends, its connection writes.
pub type OutboxSender = Sender<Frame>;
pub type OutboxReceiver = Receiver<Frame>;

/// A new queue that holds up to `capacity` items (at least one).
pub fn bounded<T>(capacity: usize) -> (Sender<T>, Receiver<T>) {
    let shared = Arc::new(Shared {
        state: Mutex::new(State {
            items: VecDeque::new(),
            senders: 1,
            receiver_gone: false,
        }),
        ready: Notify::new(),
        room: OnceLock::new(),
        capacity: capacity.max(1),
    });
    (Sender(shared.clone()), Receiver(shared))
}

/// A socket's outbox of `capacity` frames.
pub fn outbox(capacity: usize) -> (OutboxSender, OutboxReceiver) {
    bounded(capacity)
}

impl<T> Sender<T> {
    /// Queues `item` unless the queue is full or its receiver gone.
    pub fn try_send(&self, item: T) -> Result<(), TrySendError> {
        self.offer(item).map_err(|(_, refused)| refused)
    }

    /// Queues `item`, waiting for room while the queue is full; refused once the receiver
    /// is gone. Cancel safe: nothing is queued unless this returns `Ok`.
    pub async fn send(&self, item: T) -> Result<(), Closed> {
        let mut item = item;
        loop {
            item = match self.offer(item) {
                Ok(()) => return Ok(()),
                Err((_, TrySendError::Closed)) => return Err(Closed),
                Err((item, TrySendError::Full)) => item,
            };
            // Full: wait for room, registered before looking again, so that room made
            // between the two looks is not missed.
            let room = self.0.room.get_or_init(Box::default).notified();
            tokio::pin!(room);
            room.as_mut().enable();
            item = match self.offer(item) {
                Ok(()) => return Ok(()),
                Err((_, TrySendError::Closed)) => return Err(Closed),
                Err((item, TrySendError::Full)) => item,
            };
            room.await;
        }
    }

    /// Queues `item`, or gives it back with the reason it was not queued.
    fn offer(&self, item: T) -> Result<(), (T, TrySendError)> {
        {
            let mut state = self.0.lock();
            if state.receiver_gone {
                return Err((item, TrySendError::Closed));
            }
            if state.items.len() >= self.0.capacity {
                return Err((item, TrySendError::Full));
            }
            state.items.push_back(item);
        }
        self.0.ready.notify_one();
        Ok(())
    }

    /// Whether the receiver is gone.
    pub fn is_closed(&self) -> bool {
        self.0.lock().receiver_gone
    }

    /// How many items it holds at most.
    pub fn capacity(&self) -> usize {
        self.0.capacity
    }
}

impl<T> Clone for Sender<T> {
    fn clone(&self) -> Sender<T> {
        self.0.lock().senders += 1;
        Sender(self.0.clone())
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        let last = {
            let mut state = self.0.lock();
            state.senders -= 1;
            state.senders == 0
        };
        if last {
            self.0.ready.notify_one();
        }
    }
}

impl<T> Receiver<T> {
    /// The next item; `None` once every sender is gone and every item was taken. Cancel
    /// safe: an item is taken only when this returns it.
    pub async fn recv(&mut self) -> Option<T> {
        // A busy queue still lets the runtime's other tasks run now and then, as Tokio's
        // own channels do (before anything is taken, so cancel safe).
        tokio::task::coop::consume_budget().await;
        loop {
            {
                let mut state = self.0.lock();
                if let Some(item) = state.items.pop_front() {
                    drop(state);
                    self.0.room_made();
                    return Some(item);
                }
                if state.senders == 0 {
                    return None;
                }
            }
            // An item queued between the check and here left a permit: this returns at once.
            self.0.ready.notified().await;
        }
    }

    /// The next item if one is waiting.
    pub fn try_recv(&mut self) -> Option<T> {
        let item = self.0.lock().items.pop_front();
        if item.is_some() {
            self.0.room_made();
        }
        item
    }

    /// Refuses every send from now on and drops the items still queued.
    pub fn close(&mut self) {
        let dropped = {
            let mut state = self.0.lock();
            state.receiver_gone = true;
            std::mem::take(&mut state.items)
        };
        // A sender made `room` before it looked at the queue under the lock, so one that
        // saw it full is seen here.
        if let Some(room) = self.0.room.get() {
            room.notify_waiters();
        }
        // Dropped outside the lock (an item may own the sender of another queue).
        drop(dropped);
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        self.close();
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn frame(text: &str) -> Frame {
        Frame::from(text)
    }

    /// What a spawned task returned; it must end soon (the test has woken it).
    async fn finished<T>(task: tokio::task::JoinHandle<T>) -> T {
        tokio::time::timeout(Duration::from_secs(10), task)
            .await
            .expect("woken")
            .expect("task")
    }

    #[tokio::test]
    async fn frames_arrive_in_order_then_none_once_the_sender_is_gone() {
        let (sender, mut receiver) = outbox(4);
        sender.try_send(frame("a")).expect("queued");
        sender.try_send(frame("b")).expect("queued");
        assert_eq!(receiver.recv().await, Some(frame("a")));
        drop(sender);
        // What was queued before the sender went is still delivered.
        assert_eq!(receiver.recv().await, Some(frame("b")));
        assert_eq!(receiver.recv().await, None);
        assert_eq!(receiver.try_recv(), None);
    }

    #[tokio::test]
    async fn a_full_outbox_refuses_and_a_gone_receiver_closes_it() {
        let (sender, mut receiver) = outbox(2);
        assert_eq!(sender.capacity(), 2);
        sender.try_send(frame("a")).expect("queued");
        sender.try_send(frame("b")).expect("queued");
        assert_eq!(sender.try_send(frame("c")), Err(TrySendError::Full));
        assert_eq!(receiver.try_recv(), Some(frame("a")));
        sender.try_send(frame("c")).expect("room again");
        drop(receiver);
        assert_eq!(sender.try_send(frame("d")), Err(TrySendError::Closed));
    }

    #[tokio::test]
    async fn a_waiting_receiver_wakes_for_a_frame_and_for_the_close() {
        let (sender, mut receiver) = outbox(8);
        let waiting = tokio::spawn(async move {
            let first = receiver.recv().await;
            let second = receiver.recv().await;
            (first, second)
        });
        // One thread: each yield lets the receiver run until it waits.
        tokio::task::yield_now().await;
        sender.try_send(frame("a")).expect("queued");
        tokio::task::yield_now().await;
        drop(sender);
        let (first, second) = finished(waiting).await;
        assert_eq!(first, Some(frame("a")));
        assert_eq!(second, None);
    }

    #[tokio::test]
    async fn a_receive_abandoned_in_a_select_loses_no_frame() {
        let (sender, mut receiver) = outbox(8);
        // The receive is polled once (waiting), then dropped as a select drops the losing
        // branch; the frame sent meanwhile is still there for the next receive.
        tokio::select! {
            biased;
            _ = receiver.recv() => panic!("nothing was queued"),
            () = std::future::ready(()) => {}
        }
        sender.try_send(frame("a")).expect("queued");
        tokio::select! {
            biased;
            () = std::future::ready(()) => {}
            _ = receiver.recv() => panic!("the ready branch comes first"),
        }
        assert_eq!(receiver.recv().await, Some(frame("a")));
    }

    #[test]
    fn an_idle_queue_is_small() {
        // Its shared part, which an idle socket and an idle table keep (the queue
        // allocates only while items wait); a Tokio channel's was 512 bytes plus a block
        // of 32 items (288 bytes of frames, 1.3 KiB of table commands).
        let size = std::mem::size_of::<Shared<Frame>>();
        assert!(size <= 128, "{size}");
        let size = std::mem::size_of::<Shared<crate::table::msg::TableCmd>>();
        assert!(size <= 128, "{size}");
    }

    #[tokio::test]
    async fn a_sender_waits_for_room_and_several_senders_share_a_queue() {
        let (sender, mut receiver) = bounded::<u32>(1);
        let other = sender.clone();
        sender.send(1).await.expect("room");
        // The queue is full: the second send waits until the receiver takes an item.
        let waiting = tokio::spawn(async move { other.send(2).await });
        tokio::task::yield_now().await;
        assert!(!waiting.is_finished());
        assert_eq!(receiver.recv().await, Some(1));
        let sent = finished(waiting).await;
        assert_eq!(sent, Ok(()));
        assert_eq!(receiver.recv().await, Some(2));
        // The clone is gone, the first sender stays: the queue is still open.
        assert_eq!(receiver.try_recv(), None);
        sender.send(3).await.expect("room");
        drop(sender);
        assert_eq!(receiver.recv().await, Some(3));
        assert_eq!(receiver.recv().await, None);
    }

    #[tokio::test]
    async fn closing_refuses_waiting_and_later_senders_and_drops_the_queue() {
        let (sender, mut receiver) = bounded::<Arc<()>>(1);
        let queued = Arc::new(());
        sender.send(queued.clone()).await.expect("room");
        let other = sender.clone();
        let waiting = tokio::spawn(async move { other.send(Arc::new(())).await });
        tokio::task::yield_now().await;
        assert!(!sender.is_closed());
        receiver.close();
        let refused = finished(waiting).await;
        assert_eq!(refused, Err(Closed));
        assert!(sender.is_closed());
        assert_eq!(sender.send(Arc::new(())).await, Err(Closed));
        assert_eq!(sender.try_send(Arc::new(())), Err(TrySendError::Closed));
        // The item that was queued is dropped, not kept.
        assert_eq!(Arc::strong_count(&queued), 1);
    }

    #[tokio::test]
    async fn senders_that_never_wait_make_no_room_notify() {
        let (sender, mut receiver) = bounded::<u32>(2);
        sender.send(1).await.expect("room");
        sender.try_send(2).expect("room");
        assert_eq!(receiver.recv().await, Some(1));
        assert!(sender.0.room.get().is_none());
        sender.send(3).await.expect("room");
        let waiting = {
            let sender = sender.clone();
            tokio::spawn(async move { sender.send(4).await })
        };
        tokio::task::yield_now().await;
        assert!(sender.0.room.get().is_some(), "made by the sender that waits");
        assert_eq!(receiver.recv().await, Some(2));
        let sent = finished(waiting).await;
        assert_eq!(sent, Ok(()));
    }

    #[tokio::test]
    async fn an_abandoned_send_queues_nothing() {
        let (sender, mut receiver) = bounded::<u32>(1);
        sender.send(1).await.expect("room");
        tokio::select! {
            biased;
            _ = sender.send(2) => panic!("the queue is full"),
            () = std::future::ready(()) => {}
        }
        assert_eq!(receiver.recv().await, Some(1));
        assert_eq!(receiver.try_recv(), None);
    }
}
