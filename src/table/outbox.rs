//! A socket's outbox: the frames its table queued for it and its connection has not yet
//! written, at most `capacity` of them.
//!
//! One table sends, one connection task receives. A Tokio channel cost every idle socket
//! ~0.8 KiB (its shared state is cache-padded, and it allocates room for 32 messages at
//! once, `docs/benchmarks.md`); this is a queue behind a mutex that grows only while
//! frames wait, and a `Notify` that wakes the connection. Dropping the sender closes the
//! outbox: the receiver gets the frames still queued, then `None`.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};

use tokio::sync::Notify;

use super::msg::Frame;

/// Why a frame was not queued.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrySendError {
    /// `capacity` frames are waiting: the connection cannot keep up.
    Full,
    /// The connection is gone.
    Closed,
}

#[derive(Debug)]
struct Shared {
    queue: Mutex<Queue>,
    ready: Notify,
    capacity: usize,
}

#[derive(Debug, Default)]
struct Queue {
    frames: VecDeque<Frame>,
    sender_gone: bool,
    receiver_gone: bool,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Queue> {
        // A panic while holding the lock leaves the queue consistent (every change is one
        // call on it), so a poisoned lock is used as it is.
        self.queue.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// The table's end.
#[derive(Debug)]
pub struct OutboxSender(Arc<Shared>);

/// The connection's end.
#[derive(Debug)]
pub struct OutboxReceiver(Arc<Shared>);

/// A new outbox that holds up to `capacity` frames (at least one).
pub fn outbox(capacity: usize) -> (OutboxSender, OutboxReceiver) {
    let shared = Arc::new(Shared {
        queue: Mutex::new(Queue::default()),
        ready: Notify::new(),
        capacity: capacity.max(1),
    });
    (OutboxSender(shared.clone()), OutboxReceiver(shared))
}

impl OutboxSender {
    /// Queues `frame` unless the outbox is full or its connection gone.
    pub fn try_send(&self, frame: Frame) -> Result<(), TrySendError> {
        {
            let mut queue = self.0.lock();
            if queue.receiver_gone {
                return Err(TrySendError::Closed);
            }
            if queue.frames.len() >= self.0.capacity {
                return Err(TrySendError::Full);
            }
            queue.frames.push_back(frame);
        }
        self.0.ready.notify_one();
        Ok(())
    }

    /// How many frames it holds at most.
    pub fn capacity(&self) -> usize {
        self.0.capacity
    }
}

impl Drop for OutboxSender {
    fn drop(&mut self) {
        self.0.lock().sender_gone = true;
        self.0.ready.notify_one();
    }
}

impl OutboxReceiver {
    /// The next frame; `None` once the sender is gone and every frame was taken. Cancel
    /// safe: a frame is taken only when this returns it.
    pub async fn recv(&mut self) -> Option<Frame> {
        loop {
            {
                let mut queue = self.0.lock();
                if let Some(frame) = queue.frames.pop_front() {
                    return Some(frame);
                }
                if queue.sender_gone {
                    return None;
                }
            }
            // A frame queued between the check and here left a permit: this returns at once.
            self.0.ready.notified().await;
        }
    }

    /// The next frame if one is waiting.
    pub fn try_recv(&mut self) -> Option<Frame> {
        self.0.lock().frames.pop_front()
    }
}

impl Drop for OutboxReceiver {
    fn drop(&mut self) {
        let mut queue = self.0.lock();
        queue.receiver_gone = true;
        queue.frames.clear();
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn frame(text: &str) -> Frame {
        Frame::from(text)
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
        let (first, second) = tokio::time::timeout(Duration::from_secs(10), waiting)
            .await
            .expect("woken")
            .expect("task");
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
    fn an_idle_outbox_is_small() {
        // Its shared part, which an idle socket keeps (the queue allocates only while
        // frames wait); a Tokio channel's was 512 bytes plus a 288-byte block.
        assert!(
            std::mem::size_of::<Shared>() <= 128,
            "{}",
            std::mem::size_of::<Shared>()
        );
    }
}
