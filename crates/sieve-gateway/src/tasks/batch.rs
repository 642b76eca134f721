//! Group commit: one thread that takes what callers queue and hands
//! whatever is waiting, up to a batch, to one write. Idle, an item is
//! written as soon as it comes; under load, the items that came while the
//! last write ran go in the next one together. The audit's records and a
//! replica's calls in flight are written so.

use std::sync::mpsc;

/// Starts thread `name`, which calls `write` with up to `most` waiting
/// items at a time until every sender is dropped; the queue to it.
pub(crate) fn writer<T: Send + 'static>(
    name: &str,
    most: usize,
    mut write: impl FnMut(Vec<T>) + Send + 'static,
) -> std::io::Result<mpsc::Sender<T>> {
    let (queue, waiting) = mpsc::channel::<T>();
    std::thread::Builder::new()
        .name(name.to_string())
        .spawn(move || {
            while let Ok(first) = waiting.recv() {
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
}
