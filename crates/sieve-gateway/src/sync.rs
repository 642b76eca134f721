//! Locks that outlive a panic. A panic while a lock is held (a bug) poisons
//! a std lock, and `lock().expect(..)` would then turn every later request
//! into another panic. Every critical section here is a short update of a
//! map or a value that stays usable, so the proxy takes the guard and goes
//! on serving; the first panic is in the log.

use std::sync::{Mutex, MutexGuard, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// `lock`, poisoned or not.
pub(crate) trait Locked<T: ?Sized> {
    fn locked(&self) -> MutexGuard<'_, T>;
}

impl<T: ?Sized> Locked<T> for Mutex<T> {
    fn locked(&self) -> MutexGuard<'_, T> {
        self.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// `read` and `write`, poisoned or not.
pub(crate) trait ReadWrite<T: ?Sized> {
    fn reading(&self) -> RwLockReadGuard<'_, T>;
    fn writing(&self) -> RwLockWriteGuard<'_, T>;
}

impl<T: ?Sized> ReadWrite<T> for RwLock<T> {
    fn reading(&self) -> RwLockReadGuard<'_, T> {
        self.read().unwrap_or_else(PoisonError::into_inner)
    }

    fn writing(&self) -> RwLockWriteGuard<'_, T> {
        self.write().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_poisoned_lock_still_serves() {
        let shared = std::sync::Arc::new(Mutex::new(1));
        let poisoner = shared.clone();
        let _ = std::thread::spawn(move || {
            let _guard = poisoner.lock().unwrap();
            panic!("a bug while the lock is held");
        })
        .join();
        assert!(shared.is_poisoned());
        *shared.locked() += 1;
        assert_eq!(*shared.locked(), 2);

        let table = std::sync::Arc::new(RwLock::new(vec![1]));
        let poisoner = table.clone();
        let _ = std::thread::spawn(move || {
            let _guard = poisoner.write().unwrap();
            panic!("a bug while writing");
        })
        .join();
        table.writing().push(2);
        assert_eq!(*table.reading(), [1, 2]);
    }
}
