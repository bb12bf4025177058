//! The stop protocol under load: producers on several threads write until the stop, and every record a write accepted reaches the sink, in order, while none is accepted after.

use super::*;
use std::collections::HashMap;
use std::sync::mpsc::sync_channel;
use std::sync::Arc;
use trace::record::{id_tick, TAG_ENTRY};

const RECORD: usize = 13;

#[test]
fn stop_takes_every_accepted_record_and_accepts_none_after() {
    init();
    let (tx, rx) = sync_channel::<Msg>(QUEUE);
    set_sink(Some(tx));
    resume();
    let collector = std::thread::spawn(move || {
        let mut per: HashMap<u32, Vec<u8>> = HashMap::new();
        for m in rx {
            match m {
                Msg::Chunk { tid, data } => per.entry(tid).or_default().extend(data),
                Msg::Chunks(v) => {
                    for (tid, data) in v {
                        per.entry(tid).or_default().extend(data);
                    }
                }
                _ => {}
            }
        }
        per
    });
    let started = Arc::new(std::sync::Barrier::new(5));
    let producers: Vec<_> = (0..4u32)
        .map(|i| {
            let started = Arc::clone(&started);
            std::thread::spawn(move || {
                let b = register(1000 + i);
                adopt(b);
                started.wait();
                let mut accepted = 0u32;
                // Writes until the stop refuses one; after that none is accepted.
                while b.write(&id_tick(TAG_ENTRY, accepted, u64::from(accepted))) {
                    accepted += 1;
                }
                let refused_after = (0..1000).all(|k| !b.write(&id_tick(TAG_ENTRY, k, 0)));
                (b.tid, accepted, refused_after)
            })
        })
        .collect();
    started.wait();
    std::thread::sleep(Duration::from_millis(30));
    stop(Duration::from_millis(500));
    let results: Vec<(u32, u32, bool)> = producers.into_iter().map(|p| p.join().unwrap()).collect();
    set_sink(None);
    let per = collector.join().unwrap();
    assert_eq!(lost_bytes(), 0, "records lost although no writer was stuck");
    for (tid, accepted, refused_after) in results {
        assert!(
            refused_after,
            "thread {tid}: a write was accepted after the stop"
        );
        assert!(accepted > 0, "thread {tid} wrote nothing before the stop");
        let got = per.get(&tid).map_or(&[][..], Vec::as_slice);
        assert_eq!(
            got.len(),
            accepted as usize * RECORD,
            "thread {tid}: {accepted} records accepted, {} delivered",
            got.len() / RECORD
        );
        for (k, rec) in got.chunks(RECORD).enumerate() {
            assert_eq!(
                rec,
                id_tick(TAG_ENTRY, k as u32, k as u64),
                "thread {tid}, record {k}"
            );
        }
    }
}
