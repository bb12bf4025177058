//! A series of `.jtr` files (the agent's `max-size=`/`max-age=`) joined into the one trace the agent sent: each later file's first definitions block (a repeat of every definition before it) and every finish but the last are left out.
//!
//! Each file of a series is a complete trace on its own, numbered by its header's
//! `seriesFile` option. Joined, the files must be consecutive (the oldest ones may have
//! been removed: the join then begins at the oldest given, whose repeated definitions
//! it keeps) and of one trace (the same `traceId`).

use super::{JtrReader, JtrWriter};
use crate::defs::Msg;
use std::fs::File;
use std::io::{BufReader, Write};
use std::path::{Path, PathBuf};

/// The header option that numbers a file of a series.
pub const FILE_OPTION: &str = "seriesFile";

/// The number of a series file by its header, if it is one.
pub fn file_number(header: &crate::header::Header) -> Option<u32> {
    header
        .options
        .iter()
        .find(|(k, _)| k == FILE_OPTION)
        .and_then(|(_, v)| v.parse().ok())
}

type Reader = JtrReader<BufReader<File>>;

fn open(p: &Path) -> Result<Reader, String> {
    let name = p.display();
    let f = File::open(p).map_err(|e| format!("{name}: cannot open: {e}"))?;
    JtrReader::open(BufReader::with_capacity(1 << 20, f)).map_err(|e| format!("{name}: {e}"))
}

/// Writes the files of one series, in any order, to `out` as one `.jtr`. Returns the
/// number of files joined.
pub fn join<W: Write>(paths: &[PathBuf], out: W) -> Result<usize, String> {
    let mut files = Vec::new();
    for p in paths {
        let r = open(p)?;
        let n = file_number(&r.header).ok_or_else(|| {
            format!(
                "{}: not a file of a series (no {FILE_OPTION} option: written without max-size=/max-age=); \
                 give several files only of one series",
                p.display()
            )
        })?;
        files.push((n, p.clone(), r));
    }
    files.sort_by_key(|f| f.0);
    let Some((first, first_path, _)) = files.first() else {
        return Err("no files to join".to_string());
    };
    let (first, first_path) = (*first, first_path.clone());
    for (i, (n, p, r)) in files.iter().enumerate() {
        if r.header.trace_id != files[0].2.header.trace_id {
            return Err(format!(
                "{} and {} are files of different traces",
                first_path.display(),
                p.display()
            ));
        }
        if *n != first + i as u32 {
            return Err(format!(
                "{}: file {n} of the series follows file {}: every file from the oldest given on is needed",
                p.display(),
                first + i as u32 - 1
            ));
        }
    }
    let last = files.len() - 1;
    let mut writer: Option<JtrWriter<W>> = None;
    let mut out = Some(out);
    for (i, (_, p, mut r)) in files.into_iter().enumerate() {
        let err = |e: super::JtrError| format!("{}: {e}", p.display());
        let w = match writer.as_mut() {
            Some(w) => w,
            None => writer.insert(
                JtrWriter::new(out.take().expect("one writer"), &r.header, &r.conv)
                    .map_err(|e| e.to_string())?,
            ),
        };
        let mut head = i > 0;
        while let Some(msg) = r.next_msg().map_err(err)? {
            let repeat = head && matches!(msg, Msg::Defs(_));
            head = false;
            match msg {
                _ if repeat => {}
                Msg::Finish { .. } if i < last => break,
                Msg::Finish { .. } => {
                    w.write(&msg).map_err(|e| e.to_string())?;
                    break;
                }
                m => w.write(&m).map_err(|e| e.to_string())?,
            }
        }
        if let Some(why) = r.cut_short() {
            if i < last {
                return Err(format!(
                    "{}: cut short ({why}) inside the series",
                    p.display()
                ));
            }
        }
    }
    if let Some(mut w) = writer {
        w.flush().map_err(|e| e.to_string())?;
    }
    Ok(last + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::defs::{Def, ThreadDef};
    use crate::header::Header;

    fn file(dir: &Path, n: u32, msgs: &[Msg]) -> PathBuf {
        let mut h = Header {
            trace_id: "t".to_string(),
            ..Header::default()
        };
        h.options.push((FILE_OPTION.to_string(), n.to_string()));
        let p = dir.join(format!("s-{n}.jtr"));
        let mut w = JtrWriter::new(
            File::create(&p).unwrap(),
            &h,
            &crate::clock::Converter::nanoseconds(0, 0),
        )
        .unwrap();
        for m in msgs {
            w.write(m).unwrap();
        }
        p
    }

    fn thread(before_trace: bool) -> Msg {
        Msg::Defs(vec![Def::Thread(ThreadDef {
            tid: 1,
            name: "main".into(),
            before_trace,
            ..ThreadDef::default()
        })])
    }

    fn chunk(b: u8) -> Msg {
        Msg::Chunk {
            tid: 1,
            data: vec![b],
        }
    }

    fn finish(note: u64) -> Msg {
        Msg::Finish {
            t: 9,
            tid: None,
            dropped_bytes: 0,
            shutdown: true,
            count_base: Vec::new(),
            notes: vec![(FILE_OPTION.to_string(), note)],
        }
    }

    /// What a joined file holds, block by block.
    fn blocks(p: &Path) -> Vec<String> {
        let mut r = open(p).unwrap();
        let mut out = Vec::new();
        while let Some(m) = r.next_msg().unwrap() {
            out.push(match m {
                Msg::Defs(d) => format!("defs {}", d.len()),
                Msg::Chunk { data, .. } => format!("chunk {}", data[0]),
                Msg::Finish { notes, .. } => {
                    out.push(format!("finish {}", notes[0].1));
                    break;
                }
                _ => "other".to_string(),
            });
        }
        out
    }

    #[test]
    fn a_series_joins_into_the_one_stream_in_any_order() {
        let dir = std::env::temp_dir().join(format!("jtrace-series-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let a = file(&dir, 3, &[thread(false), chunk(1), finish(3)]);
        let b = file(&dir, 4, &[thread(true), chunk(2), chunk(3), finish(4)]);
        let c = file(&dir, 5, &[thread(true), chunk(4), finish(5)]);
        let out = dir.join("joined.jtr");
        let n = join(
            &[c.clone(), a.clone(), b.clone()],
            File::create(&out).unwrap(),
        )
        .unwrap();
        assert_eq!(n, 3);
        assert_eq!(
            blocks(&out),
            ["defs 1", "chunk 1", "chunk 2", "chunk 3", "chunk 4", "finish 5"]
        );
        // The oldest removed: the join begins at the oldest given, with its definitions.
        join(&[c.clone(), b.clone()], File::create(&out).unwrap()).unwrap();
        assert_eq!(
            blocks(&out),
            ["defs 1", "chunk 2", "chunk 3", "chunk 4", "finish 5"]
        );
        // A file missing in the middle, a file of no series: refused.
        let e = join(&[a.clone(), c.clone()], File::create(&out).unwrap()).unwrap_err();
        assert!(e.contains("follows file 3"), "{e}");
        let lone = dir.join("lone.jtr");
        JtrWriter::new(
            File::create(&lone).unwrap(),
            &Header::default(),
            &crate::clock::Converter::nanoseconds(0, 0),
        )
        .unwrap();
        let e = join(&[a, lone], File::create(&out).unwrap()).unwrap_err();
        assert!(e.contains("not a file of a series"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
