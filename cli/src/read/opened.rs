//! A trace opened once ([`Trace`]): its kind, size and, for a `.jtr`, its header, index and tags, read once; every pass over it, and each worker of one pass, reads its events from here with one [`Selection`].

use super::input::{self, Input, Kind};
use super::progress::{Counting, Progress};
use super::{jtr, xml, Event, Outcome, Source};
use std::fs::File;
use std::io::Read;
use std::io::Seek;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};
use trace::jtr::index::ChunkEntry;
use trace::jtr::{Opened, Tagged};

pub use trace::jtr::{Cut, Window};

/// Whether a thread's records are wanted, by its id and name.
pub type Wanted<'a> = dyn Fn(u32, &str) -> bool + 'a;

/// What of a trace one read gives its sink (the default: all of it).
#[derive(Clone, Copy, Default)]
pub struct Selection<'a> {
    /// The threads an answer is about: a `.jtr` replays the others' records only for
    /// what these need of them (their allocations, starts and ends), so these threads'
    /// events and every event the model uses are those of a whole read. An XML
    /// document is read whole.
    pub threads: Option<&'a Wanted<'a>>,
    /// A time window: a `.jtr` with an index is read only around it (the events the
    /// model uses under a window, see `crate::model`, are those of a whole read).
    pub window: Window,
    /// One side of a `.jtr` thread cut over two workers (`crate::split`).
    pub cut: Option<Cut>,
}

/// A trace file, opened once.
pub struct Trace {
    /// The path as the user gave it, for messages.
    pub name: String,
    path: PathBuf,
    size: u64,
    kind: Kind,
    /// A `.jtr`'s header and index.
    jtr: Option<Opened>,
    /// A `.jtr`'s tags, read from its definitions alone the first time they are asked.
    tags: OnceLock<Option<(u64, Vec<Tagged>)>>,
    /// The file as opened, for the first read (the others, as each worker's, open it
    /// again).
    file: Mutex<Option<File>>,
    /// The bytes read from it to tell its kind (a pipe cannot give them again).
    head: Vec<u8>,
    /// A series joined into a file of its own (`open_series`), removed with the trace.
    joined: Option<PathBuf>,
}

impl Drop for Trace {
    fn drop(&mut self) {
        if let Some(p) = &self.joined {
            let _ = std::fs::remove_file(p);
        }
    }
}

impl Trace {
    /// Opens `path` as a jtrace trace (XML, compressed XML or `.jtr`; for a `.jtr` its
    /// header and index are read); `Err` is one line naming the file.
    pub fn open(path: &Path) -> Result<Trace, String> {
        let name = path.display().to_string();
        let mut file = File::open(path).map_err(|e| format!("{name}: cannot open: {e}"))?;
        let meta = file
            .metadata()
            .map_err(|e| format!("{name}: cannot read: {e}"))?;
        if meta.is_dir() {
            return Err(format!("{name}: is a directory, not a trace"));
        }
        let mut head = [0u8; 8];
        let n = (&mut file)
            .take(head.len() as u64)
            .read(&mut head)
            .map_err(|e| format!("{name}: cannot read: {e}"))?;
        if n == 0 {
            return Err(format!("{name}: empty file, not a trace"));
        }
        let kind = input::kind(path, &head[..n]);
        let jtr = match kind {
            Kind::Jtr if head[..n] != trace::jtr::MAGIC => {
                return Err(format!("{name}: not a jtrace .jtr file (no JTR header)"));
            }
            Kind::Jtr => {
                file.rewind().map_err(|e| {
                    format!("{name}: a .jtr is read by seeking in it: give a file ({e})")
                })?;
                Some(Opened::read(&mut file).map_err(|e| format!("{name}: {e}"))?)
            }
            _ => None,
        };
        Ok(Trace {
            name,
            path: path.to_path_buf(),
            size: meta.len(),
            kind,
            jtr,
            tags: OnceLock::new(),
            file: Mutex::new(Some(file)),
            head: head[..n].to_vec(),
            joined: None,
        })
    }

    /// The file read (a series: the file it was joined into).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Opens `first` alone, or with `more` the files of its series, joined
    /// (`trace::jtr::series`) into one `.jtr` in the temporary directory that lives as
    /// long as the trace.
    pub fn open_series(first: &Path, more: &[PathBuf]) -> Result<Trace, String> {
        if more.is_empty() {
            return Trace::open(first);
        }
        static JOINED: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = JOINED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let path =
            std::env::temp_dir().join(format!("jtrace-series-{}-{n}.jtr", std::process::id()));
        let files: Vec<PathBuf> = std::iter::once(first.to_path_buf())
            .chain(more.iter().cloned())
            .collect();
        let joined = File::create(&path)
            .map_err(|e| format!("{}: {e}", path.display()))
            .and_then(|f| {
                trace::jtr::series::join(&files, std::io::BufWriter::with_capacity(1 << 20, f))
            });
        let count = match joined {
            Ok(n) => n,
            Err(e) => {
                let _ = std::fs::remove_file(&path);
                return Err(e);
            }
        };
        let mut t = Trace::open(&path).inspect_err(|_| {
            let _ = std::fs::remove_file(&path);
        })?;
        t.name = format!("{} (a series of {count} files)", first.display());
        t.joined = Some(path);
        Ok(t)
    }

    /// The file at its start (as opened the first time, then opened again), with the
    /// bytes that come before it: none, but where the file opened first cannot rewind
    /// (a pipe), the bytes read from it to tell its kind.
    fn file(&self) -> Result<(File, Vec<u8>), String> {
        let kept = self.file.lock().ok().and_then(|mut f| f.take());
        match kept {
            Some(mut f) => match f.rewind() {
                Ok(_) => Ok((f, Vec::new())),
                Err(_) => Ok((f, self.head.clone())),
            },
            None => File::open(&self.path)
                .map(|f| (f, Vec::new()))
                .map_err(|e| format!("{}: cannot open: {e}", self.name)),
        }
    }

    /// The file's size in bytes.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The file's bytes as a stream (for a reader of the whole document), reporting on
    /// `progress` if given.
    pub fn input(&self, progress: Option<Progress>) -> Result<Input, String> {
        input::open(&self.name, self.file()?, self.kind, self.size, progress)
    }

    /// The index of a `.jtr`'s record chunks (None: XML, or a file without one).
    pub fn index(&self) -> Option<&[ChunkEntry]> {
        self.jtr
            .as_ref()
            .map(|o| &o.index[..])
            .filter(|ix| !ix.is_empty())
    }

    /// Whether a reader can resume a `.jtr`'s threads exactly with its index (see
    /// `trace::jtr::resumable`).
    pub fn resumable(&self) -> bool {
        self.jtr.as_ref().is_some_and(Opened::resumable)
    }

    /// The threads of a `.jtr` with an index: each thread id with the bytes of its
    /// record chunks (None: XML, or a file without an index, such as one cut short).
    pub fn thread_sizes(&self) -> Option<Vec<(u32, u64)>> {
        let mut sizes: std::collections::BTreeMap<u32, u64> = Default::default();
        for e in self.index()? {
            *sizes.entry(e.tid).or_default() += e.len as u64;
        }
        Some(sizes.into_iter().collect())
    }

    /// The tags of a `.jtr` whose index lets a reader resume it exactly, with the
    /// trace's start (see `trace::jtr::Opened::tags`), read once; None for XML or any
    /// other file.
    pub fn tags(&self) -> Option<&(u64, Vec<Tagged>)> {
        self.tags
            .get_or_init(|| {
                let o = self.jtr.as_ref()?;
                o.tags(self.file().ok()?.0).ok()?
            })
            .as_ref()
    }

    /// Streams what `sel` selects of the trace to `sink`, one event per element an
    /// analysis uses, reporting on `progress` (a bar the workers of one answer share)
    /// if given. A file cut short is read up to its last whole block: the outcome says
    /// it is not complete, with a warning saying where.
    pub fn read(
        &self,
        sel: Selection<'_>,
        progress: Option<Progress>,
        mut sink: impl FnMut(&Event),
    ) -> Result<Outcome, String> {
        // The virtual machine's thread is the format's (TRACE_FORMAT.md, Threads): it
        // holds definitions and nothing an answer counts, so no answer lists it.
        let sink = move |e: &Event| {
            if !e.of_vm_thread() {
                sink(e)
            }
        };
        let Some(opened) = &self.jtr else {
            if sel.cut.is_some() {
                return Err(format!("{}: an XML trace is read in one part", self.name));
            }
            return match self.input(progress)?.source {
                Source::Xml(r) => xml::read(&self.name, r, sink),
                Source::Jtr(_) => unreachable!("a .jtr is opened as one"),
            };
        };
        let (file, _) = self.file()?;
        let progress = progress.unwrap_or_else(|| Progress::new(self.size));
        // Unbuffered: the reader takes whole blocks (64 KiB chunks) straight into its
        // own buffer, one read each, instead of through a second copy.
        jtr::read(&self.name, opened, Counting::new(file, progress), sel, sink)
    }
}
