//! The series (`max-size=`, `max-age=`): the `.jtr` sink writes one trace as numbered files, each a complete trace, starting the next file past a quarter of a bound and removing the oldest files past it.
//!
//! Records reach the sink per thread in order, so a file that begins mid-run holds each
//! thread's continuation: it opens with every definition made so far (threads as
//! running before it, so exits of frames entered in an earlier file are left out of
//! it and counted), then the records as they come. Read together
//! (`trace::jtr::series`), the files give back the one stream the agent sent: each
//! later file's first definitions block repeats what came before and is skipped, and
//! each finish but the last is. The header's `seriesFile` option numbers the files;
//! `%n` of `out=` is that number, counted over the agent's whole life, so a later
//! trace's series does not overwrite an earlier one's.

use crate::options::{self, Options};
use std::collections::{HashSet, VecDeque};
use std::fs::File;
use std::io::{self, BufWriter};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};
use trace::clock::Converter;
use trace::defs::{Def, Msg};
use trace::header::Header;
use trace::jtr::JtrWriter;
use trace::record;

use trace::jtr::series::FILE_OPTION;

/// A file is complete past this share of `max-size=` (or `max-age=`).
const PARTS: u64 = 4;

/// The number of the next file of any series (`%n`).
static NEXT: AtomicU32 = AtomicU32::new(1);

/// Takes the number of a new file.
pub fn take_number() -> u32 {
    NEXT.fetch_add(1, Ordering::Relaxed)
}

type FileOut = BufWriter<File>;

/// What a series is made from: `out=`'s template, the bounds, and its first file.
pub struct Plan {
    pub template: String,
    pub max_size: u64,
    pub max_age_ms: u64,
    pub number: u32,
    pub path: String,
}

impl Plan {
    pub fn new(o: &Options, number: u32, path: &str) -> Plan {
        Plan {
            template: o.out.clone(),
            max_size: o.max_size,
            max_age_ms: o.max_age_ms,
            number,
            path: path.to_string(),
        }
    }
}

/// One trace's series: its current file's number and age, the complete files still on
/// disk, and every definition a new file must open with.
pub struct Series {
    template: String,
    start_secs: u64,
    header: Header,
    conv: Converter,
    max_size: u64,
    max_age: Option<Duration>,
    number: u32,
    path: String,
    opened: Instant,
    /// Complete files still on disk, oldest first: path, bytes, when completed.
    done: VecDeque<(String, u64, Instant)>,
    defs: Vec<Def>,
    ended: HashSet<u32>,
    removed: u64,
    files: u64,
}

impl Series {
    /// The series of `plan`, its first file already open.
    pub fn new(plan: Plan, header: &Header, conv: Converter) -> Series {
        Series {
            template: plan.template,
            start_secs: header.start_ns / 1_000_000_000,
            header: header.clone(),
            conv,
            max_size: plan.max_size,
            max_age: (plan.max_age_ms > 0).then(|| Duration::from_millis(plan.max_age_ms)),
            number: plan.number,
            path: plan.path,
            opened: Instant::now(),
            done: VecDeque::new(),
            defs: Vec::new(),
            ended: HashSet::new(),
            removed: 0,
            files: 1,
        }
    }

    /// The header of file `number`.
    pub fn header_of(header: &Header, number: u32) -> Header {
        let mut h = header.clone();
        h.options
            .push((FILE_OPTION.to_string(), number.to_string()));
        h
    }

    /// Keeps what a new file must define; forgets threads that ended.
    pub fn note(&mut self, msg: &Msg) {
        match msg {
            Msg::Defs(defs) => self
                .defs
                .extend(defs.iter().filter(|d| !matches!(d, Def::Tag(_))).cloned()),
            Msg::Chunk { tid, data } => self.chunk(*tid, data),
            Msg::Chunks(c) => c.iter().for_each(|(tid, data)| self.chunk(*tid, data)),
            Msg::Finish { .. } | Msg::Mark(_) => {}
        }
    }

    fn chunk(&mut self, tid: u32, data: &[u8]) {
        if record::scan(data).thread_end && self.ended.insert(tid) {
            self.defs
                .retain(|d| !matches!(d, Def::Thread(t) if t.tid == tid));
        }
    }

    /// Whether the current file, `bytes` long, is complete.
    pub fn due(&self, bytes: u64) -> bool {
        (self.max_size > 0 && bytes >= self.max_size / PARTS)
            || self
                .max_age
                .is_some_and(|a| self.opened.elapsed() >= a / PARTS as u32)
    }

    /// Completes the current file (`w`, `bytes` long) and opens the next, which begins
    /// with every definition so far; removes the files the bounds no longer allow.
    pub fn next(&mut self, mut w: JtrWriter<FileOut>, t: u64) -> io::Result<JtrWriter<FileOut>> {
        w.write(&Msg::Finish {
            t,
            tid: None,
            dropped_bytes: 0,
            shutdown: false,
            count_base: Vec::new(),
            notes: vec![(FILE_OPTION.to_string(), u64::from(self.number))],
        })?;
        let bytes = w.bytes();
        w.into_inner().into_inner().map_err(|e| e.into_error())?;
        self.done
            .push_back((std::mem::take(&mut self.path), bytes, Instant::now()));
        self.number = take_number();
        self.path = options::expand_out(
            &self.template,
            std::process::id(),
            self.start_secs,
            self.number,
        );
        self.opened = Instant::now();
        self.files += 1;
        let file = BufWriter::with_capacity(1 << 20, File::create(&self.path)?);
        let mut w = JtrWriter::new(
            file,
            &Series::header_of(&self.header, self.number),
            &self.conv,
        )?;
        let mut defs = self.defs.clone();
        for d in &mut defs {
            if let Def::Thread(t) = d {
                t.before_trace = true;
            }
        }
        w.write(&Msg::Defs(defs))?;
        self.prune(w.bytes());
        Ok(w)
    }

    /// Removes the oldest complete files while the series would take more than
    /// `max-size=` once the current file (`current` bytes so far) is complete, or they
    /// are older than `max-age=`: the files on disk stay within `max-size=` plus the
    /// last message written (at most a chunk per thread).
    fn prune(&mut self, current: u64) {
        let room = current.max(self.max_size / PARTS);
        let mut total = room + self.done.iter().map(|d| d.1).sum::<u64>();
        while let Some((path, bytes, at)) = self.done.front() {
            let too_big = self.max_size > 0 && total > self.max_size;
            let too_old = self.max_age.is_some_and(|a| at.elapsed() > a);
            if !too_big && !too_old {
                break;
            }
            let _ = std::fs::remove_file(path);
            total -= bytes;
            self.removed += 1;
            self.done.pop_front();
        }
    }

    /// The last file's `traceEnd` notes: its number and the files removed.
    pub fn notes(&self) -> [(String, u64); 2] {
        [
            (FILE_OPTION.to_string(), u64::from(self.number)),
            ("seriesFilesRemoved".to_string(), self.removed),
        ]
    }

    /// The file being written.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The closing line's words: how many files, how many removed.
    pub fn words(&self) -> String {
        format!(
            "series of {} files, {} removed, {} kept",
            self.files,
            self.removed,
            self.done.len() + 1
        )
    }
}
