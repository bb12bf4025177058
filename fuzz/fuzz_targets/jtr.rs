//! A `.jtr` of arbitrary bytes: opened, replayed whole, by threads, over a window, and rendered as XML; any error is fine, a panic, a hang or an unbounded allocation is not.

#![no_main]

use libfuzzer_sys::fuzz_target;
use std::io::Cursor;
use trace::jtr::{Opened, Selection, Window};

fuzz_target!(|data: &[u8]| {
    let _ = trace::jtr::to_xml(data, std::io::sink());
    let Ok(opened) = Opened::read(Cursor::new(data)) else {
        return;
    };
    let _ = opened.replay(Cursor::new(data), Selection::default(), |_| {});
    let odd = Selection {
        threads: Some(Box::new(|tid, _: &str| tid % 2 == 1)),
        ..Selection::default()
    };
    let _ = opened.replay(Cursor::new(data), odd, |_| {});
    let window = Selection {
        window: Window {
            from: Some(1_000),
            to: Some(1_000_000),
        },
        ..Selection::default()
    };
    let _ = opened.replay(Cursor::new(data), window, |_| {});
    let _ = opened.tags(Cursor::new(data));
});
