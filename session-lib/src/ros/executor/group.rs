//! [`CallbackGroup`]: which callbacks may run at the same time, as rclcpp's callback groups.
//!
//! A node's entities go to its default group unless told otherwise; that group is mutually
//! exclusive, so a node that does nothing about groups runs one callback at a time even on a
//! multi-threaded executor. A slow callback delays only the callbacks of its own group.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// How the callbacks of one group may overlap.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CallbackGroupKind {
    /// One callback of the group at a time (rclcpp's `MutuallyExclusive`, a node's default).
    #[default]
    MutuallyExclusive,
    /// Callbacks of different entities of the group may run at once on a multi-threaded
    /// executor (rclcpp's `Reentrant`). One entity's own callback never overlaps itself: its
    /// messages stay in order.
    Reentrant,
}

/// A set of entities whose callbacks follow one [`CallbackGroupKind`]. Cheap to clone; clones
/// are the same group.
#[derive(Debug, Clone)]
pub struct CallbackGroup {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    kind: CallbackGroupKind,
    /// A callback of a mutually exclusive group is running.
    busy: AtomicBool,
}

impl CallbackGroup {
    /// A new group of this kind.
    pub fn new(kind: CallbackGroupKind) -> Self {
        Self {
            inner: Arc::new(Inner {
                kind,
                busy: AtomicBool::new(false),
            }),
        }
    }

    /// The group's kind.
    pub fn kind(&self) -> CallbackGroupKind {
        self.inner.kind
    }

    /// Takes the group for one callback; false when a mutually exclusive group is taken already.
    pub(crate) fn try_enter(&self) -> bool {
        match self.inner.kind {
            CallbackGroupKind::Reentrant => true,
            CallbackGroupKind::MutuallyExclusive => self
                .inner
                .busy
                .compare_exchange(false, true, Ordering::AcqRel, Ordering::Relaxed)
                .is_ok(),
        }
    }

    /// True when a callback of the group could start now.
    pub(crate) fn is_free(&self) -> bool {
        self.inner.kind == CallbackGroupKind::Reentrant || !self.inner.busy.load(Ordering::SeqCst)
    }

    /// Gives the group back after a callback taken with [`try_enter`](Self::try_enter).
    pub(crate) fn leave(&self) {
        if self.inner.kind == CallbackGroupKind::MutuallyExclusive {
            self.inner.busy.store(false, Ordering::SeqCst);
        }
    }
}

impl PartialEq for CallbackGroup {
    /// The same group (not merely the same kind).
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
}

impl Eq for CallbackGroup {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_exclusive_group_admits_one_callback_and_a_reentrant_one_many() {
        let exclusive = CallbackGroup::new(CallbackGroupKind::MutuallyExclusive);
        assert!(exclusive.try_enter());
        assert!(!exclusive.clone().try_enter(), "a clone is the same group");
        exclusive.leave();
        assert!(exclusive.try_enter());

        let reentrant = CallbackGroup::new(CallbackGroupKind::Reentrant);
        assert!(reentrant.try_enter() && reentrant.try_enter());
        assert_ne!(
            exclusive,
            CallbackGroup::new(CallbackGroupKind::MutuallyExclusive)
        );
    }
}
