//! Group commit: one thread that takes what callers queue and hands
//! whatever is waiting, up to a batch, to one write. Idle, an item is
//! written as soon as it comes; under load, the items that came while the
//! last write ran go in the next one together. The audit's records and a
//! replica's calls in flight are written so.
//!
//! A writer may also let a batch settle ([`writer_settling`]): after its
//! first item it waits a while for more, so that however many items come,
//! it writes a few times a second. What it writes must then be able to
//! wait: a call's measurements can, an audit record that a person may be
//! reading cannot.

use std::sync::mpsc;
use std::time::Duration;

/// Starts thread `name`, which calls `write` with up to `most` waiting
/// items at a time until every sender is dropped; the queue to it.
pub(crate) fn writer<T: Send + 'static>(
    name: &str,
    most: usize,
    write: impl FnMut(Vec<T>) + Send + 'static,
) -> std::io::Result<mpsc::Sender<T>> {
    writer_settling(name, most, Duration::ZERO, write)
}

/// As [`writer`], but after the first item of a batch the thread sleeps
/// for `settle` before it takes the rest: asleep, it is not woken by each
/// item queued meanwhile, so a busy queue costs its callers no wake-up of
/// this thread per item.
pub(crate) fn writer_settling<T: Send + 'static>(
    name: &str,
    most: usize,
    settle: Duration,
    mut write: impl FnMut(Vec<T>) + Send + 'static,
) -> std::io::Result<mpsc::Sender<T>> {
    let (queue, waiting) = mpsc::channel::<T>();
    std::thread::Builder::new()
        .name(name.to_string())
        .spawn(move || {
            while let Ok(first) = waiting.recv() {
                if !settle.is_zero() {
                    std::thread::sleep(settle);
                }
                let mut batch = vec![first];
                while batch.len() < most {
                    match waiting.try_recv() {
                        Ok(next) => batch.push(next),
                        Err(_) => break,
                    }
                }
                write(batch);
            }
        })?;
    Ok(queue)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_waits_is_written_together_in_order() {
        let (seen, batches) = mpsc::channel();
        let (started, writing) = mpsc::channel::<()>();
        let (hold, held) = mpsc::channel::<()>();
        let queue = writer("test-writer", 3, move |batch: Vec<u32>| {
            // The first write waits until the rest are queued.
            if batch == [0] {
                started.send(()).unwrap();
                held.recv().unwrap();
            }
            seen.send(batch).unwrap();
        })
        .unwrap();
        queue.send(0).unwrap();
        writing.recv().unwrap();
        for n in 1..=5 {
            queue.send(n).unwrap();
        }
        hold.send(()).unwrap();
        drop(queue);
        let written: Vec<Vec<u32>> = batches.iter().collect();
        assert_eq!(written, [vec![0], vec![1, 2, 3], vec![4, 5]]);
    }

    #[test]
    fn a_settling_writer_takes_what_comes_while_its_batch_settles() {
        let (seen, batches) = mpsc::channel();
        let settle = Duration::from_secs(1);
        let queue = writer_settling("test-settling", 3, settle, move |batch: Vec<u32>| {
            seen.send(batch).unwrap();
        })
        .unwrap();
        // Queued within the settling time of the first: without it, the
        // writer would take the first alone.
        for n in 0..5 {
            queue.send(n).unwrap();
        }
        let written: Vec<Vec<u32>> = batches.iter().take(2).collect();
        assert_eq!(written, [vec![0, 1, 2], vec![3, 4]], "at most 3 a batch");
    }
}
