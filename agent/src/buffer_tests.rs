//! The stop protocol and steals under load: producers on several threads write until the stop, and every record a write accepted reaches the sink, in order, while none is accepted after; steals keep each thread's records in order.

use super::*;
use std::collections::HashMap;
use std::sync::mpsc::sync_channel;
use std::sync::Arc;
use trace::record::{id_tick, TAG_ENTRY};

const RECORD: usize = 13;

/// The tests share the process-wide sink and stop flag: one at a time.
static ONE_TEST: Mutex<()> = Mutex::new(());

/// Opens a sink and starts recording; the handle yields what reached the sink, per
/// thread, once the sink is removed.
fn record() -> std::thread::JoinHandle<HashMap<u32, Vec<u8>>> {
    init(false);
    let (tx, rx) = sync_channel::<Msg>(QUEUE);
    crate::state::set_current(Some(Arc::new(crate::state::Current::new(tx))));
    resume();
    std::thread::spawn(move || {
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
    })
}

#[test]
fn steals_keep_each_threads_records_in_order() {
    let _one = ONE_TEST.lock();
    steals_in_order(false);
}

/// A live-phase load registers for membarrier while owners already write: owners of
/// both protocols meet stealers of both, and no record is lost, doubled or reordered.
#[test]
fn steals_keep_records_in_order_while_the_protocol_switches() {
    let _one = ONE_TEST.lock();
    steals_in_order(true);
    assert!(
        ASYMMETRIC.load(Ordering::SeqCst) || !crate::sys::os::membarrier_register(),
        "the switch to the asymmetric protocol was not made"
    );
}

fn steals_in_order(switch: bool) {
    let collector = record();
    let switcher = switch.then(|| {
        {
            let _seizing = SEIZING.lock();
            ASYMMETRIC.store(false, Ordering::SeqCst);
        }
        std::thread::spawn(|| {
            std::thread::sleep(Duration::from_millis(5));
            register_asymmetric();
        })
    });
    const RECORDS: u32 = 20_000;
    let done = Arc::new(AtomicBool::new(false));
    let stealer = {
        let done = Arc::clone(&done);
        std::thread::spawn(move || {
            while !done.load(Ordering::Relaxed) {
                steal_all();
            }
        })
    };
    let producers: Vec<_> = (0..3u32)
        .map(|i| {
            std::thread::spawn(move || {
                let b = register(2000 + i);
                adopt(b);
                // Owners hand off their own chunks now and then (a flush, as before a
                // contended monitor), racing the stealer's batch.
                for k in 0..RECORDS {
                    assert!(b.write(&id_tick(TAG_ENTRY, k, u64::from(k))));
                    if k % 5 == 0 {
                        b.flush();
                    }
                }
                b.flush();
                b.tid
            })
        })
        .collect();
    let tids: Vec<u32> = producers.into_iter().map(|p| p.join().unwrap()).collect();
    done.store(true, Ordering::Relaxed);
    stealer.join().unwrap();
    if let Some(s) = switcher {
        s.join().unwrap();
    }
    crate::state::set_current(None);
    let per = collector.join().unwrap();
    for tid in tids {
        let got = per.get(&tid).map_or(&[][..], Vec::as_slice);
        assert_eq!(got.len(), RECORDS as usize * RECORD, "thread {tid}");
        for (k, rec) in got.chunks(RECORD).enumerate() {
            assert_eq!(
                rec,
                id_tick(TAG_ENTRY, k as u32, k as u64),
                "thread {tid}, record {k}: out of order"
            );
        }
    }
}

#[test]
fn stop_takes_every_accepted_record_and_accepts_none_after() {
    let _one = ONE_TEST.lock();
    let collector = record();
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
    let lost = lost_bytes();
    crate::state::set_current(None);
    let per = collector.join().unwrap();
    assert_eq!(lost, 0, "records lost although no writer was stuck");
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

/// A write the stop could not wait for (its patience ran out while the owner was
/// busy) leaves its records in the chunk: they are the old trace's and must not open
/// the next one. The next `resume` discards them.
#[test]
fn records_left_by_a_stop_that_gave_up_never_reach_the_next_trace() {
    let _one = ONE_TEST.lock();
    let first = record();
    let b = register(3000);
    assert!(b.write(&id_tick(TAG_ENTRY, 1, 1)));
    // The owner "inside a write" for longer than the stop's patience.
    b.busy.store(true, Ordering::SeqCst);
    stop(Duration::from_millis(1));
    // Its write done, record 1 is still in the chunk the stop left.
    b.busy.store(false, Ordering::SeqCst);
    crate::state::set_current(None);
    let got = first.join().unwrap();
    assert!(
        !got.contains_key(&3000),
        "the stop could not take the busy chunk"
    );
    let second = record();
    assert!(b.write(&id_tick(TAG_ENTRY, 3, 3)));
    b.flush();
    stop(Duration::from_secs(1));
    crate::state::set_current(None);
    let got = second.join().unwrap();
    assert_eq!(
        got.get(&3000).map(Vec::as_slice),
        Some(&id_tick(TAG_ENTRY, 3, 3)[..])
    );
}

/// An owner on the symmetric protocol stays out of a buffer whose `steal` is set (a
/// stealer that read the asymmetric mode relies on `steal`, not on `busy`).
#[test]
fn a_symmetric_owner_waits_for_a_steal() {
    let _one = ONE_TEST.lock();
    let collector = record();
    {
        let _seizing = SEIZING.lock();
        ASYMMETRIC.store(false, Ordering::SeqCst);
    }
    let b = register(3000);
    b.steal.store(true, Ordering::SeqCst);
    let wrote = Arc::new(AtomicBool::new(false));
    let owner = {
        let wrote = Arc::clone(&wrote);
        std::thread::spawn(move || {
            adopt(b);
            assert!(b.write(&id_tick(TAG_ENTRY, 1, 1)));
            wrote.store(true, Ordering::SeqCst);
            b.flush();
        })
    };
    std::thread::sleep(Duration::from_millis(100));
    let early = wrote.load(Ordering::SeqCst);
    b.steal.store(false, Ordering::SeqCst);
    owner.join().unwrap();
    register_asymmetric();
    crate::state::set_current(None);
    let per = collector.join().unwrap();
    assert!(!early, "the owner wrote while a steal held its buffer");
    assert_eq!(per.get(&3000).map(Vec::len), Some(RECORD));
}
