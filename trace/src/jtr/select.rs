//! A `.jtr` opened once ([`Opened`]: header, clock, index) and replayed as typed events by one [`Selection`] (threads, time window, one side of a thread cut): the one way every reader of a file, and each worker of one answer, replays it.

use super::index::ChunkEntry;
use super::window::{plan, plan_cut, windowed, Cut, Wanted, Window};
use super::{replay_selected, JtrError, JtrReader, Rendered, Threads};
use crate::clock::Converter;
use crate::defs::{Def, Msg, TagDef};
use crate::event::{Event, EventOut};
use crate::header::Header;
use crate::render::Renderer;
use std::io::{Read, Seek, SeekFrom};

/// A `.jtr` file's header, clock map and index, read once (its first block and its
/// end): every replay of the file starts from them without reading them again.
#[derive(Debug, Clone)]
pub struct Opened {
    pub header: Header,
    pub conv: Converter,
    /// The file's format version.
    pub version: u16,
    /// The index of its record chunks (empty: none, as in a file cut short).
    pub index: Vec<ChunkEntry>,
    /// Where the block after the header starts.
    body_at: u64,
}

/// What of a file a replay gives.
#[derive(Default)]
pub struct Selection<'a> {
    /// The threads replayed whole, by id and name (None: every thread). Of the others
    /// the replay gives what the wanted ones need: their starts, their allocations
    /// (an object allocated there may be thrown or locked by a wanted thread) and the
    /// ends it supplies at the close; definitions and the VM's own records always.
    pub threads: Option<Wanted<'a>>,
    /// With a file whose index has resume points ([`resumable`](super::resumable)),
    /// only the chunks the window needs are read (see `window`); otherwise the whole
    /// file is replayed.
    pub window: Window,
    /// One side of a thread cut over two workers (the file's index must have resume
    /// points); the window is then not used.
    pub cut: Option<Cut>,
}

/// A tag of a `.jtr` (`jtrace.Trace.tag`, the JUnit listener's test marks): its
/// definition and its time (Unix nanoseconds).
pub type Tagged = (TagDef, u64);

impl Opened {
    /// Reads the preamble, the header block and the index of the file in `jtr`.
    pub fn read<R: Read + Seek>(jtr: R) -> Result<Opened, JtrError> {
        let mut r = JtrReader::open(jtr)?;
        let index = r.index().unwrap_or_default();
        Ok(Opened {
            body_at: r.offset,
            header: r.header,
            conv: r.conv,
            version: r.version,
            index,
        })
    }

    /// Where the block after the header starts.
    pub(super) fn body_at(&self) -> u64 {
        self.body_at
    }

    /// A reader of the same file's bytes in `jtr` (opened again: one per worker) at
    /// the block after the header, which is not read again.
    fn reader<R: Read + Seek>(&self, mut jtr: R) -> Result<JtrReader<R>, JtrError> {
        jtr.seek(SeekFrom::Start(self.body_at))?;
        Ok(JtrReader::resumed(jtr, self))
    }

    /// Whether its index lets a reader resume threads exactly (see
    /// [`resumable`](super::resumable)).
    pub fn resumable(&self) -> bool {
        super::resumable(&self.index)
    }

    /// The tags of the file, in file order, with the trace's start (Unix ns), read
    /// from its definition blocks alone (every record chunk sought past) when its
    /// index lets a reader resume threads exactly with each chunk's end state; None
    /// otherwise (read it whole). Tags of threads never defined are left out, as the
    /// replay leaves them out.
    pub fn tags<R: Read + Seek>(&self, jtr: R) -> Result<Option<(u64, Vec<Tagged>)>, JtrError> {
        let exact = self
            .index
            .iter()
            .all(|e| e.resume.is_some_and(|r| r.end_state.is_some()));
        if !exact || !self.resumable() {
            return Ok(None);
        }
        let mut r = self.reader(jtr)?;
        let mut chunks = self.index.iter().peekable();
        let (mut threads, mut tags) = (std::collections::HashSet::new(), Vec::new());
        loop {
            while chunks.next_if(|e| e.offset < r.offset).is_some() {}
            if let Some(e) = chunks.next_if(|e| e.offset == r.offset) {
                r.skip_block(e.len)?;
                continue;
            }
            match r.next_msg()? {
                Some(Msg::Defs(defs)) => {
                    for d in defs {
                        match d {
                            Def::Thread(t) => {
                                threads.insert(t.tid);
                            }
                            Def::Tag(t) if threads.contains(&t.tid) => {
                                let ns = self.conv.to_unix_ns(t.t);
                                tags.push((t, ns));
                            }
                            _ => {}
                        }
                    }
                }
                Some(Msg::Finish { .. }) | None => break,
                Some(_) => {}
            }
        }
        Ok(Some((self.header.start_ns, tags)))
    }

    /// Replays what `sel` selects of the file, whose bytes `jtr` reads, as the typed
    /// events of the document [`to_xml`](super::to_xml) writes (in its order, with no
    /// XML in between), each handed to `f`. Every event of a wanted thread within the
    /// window, every definition and the VM's own records come out as a whole replay
    /// gives them.
    pub fn replay<R: Read + Seek>(
        &self,
        jtr: R,
        sel: Selection<'_>,
        f: impl FnMut(&Event),
    ) -> Result<Rendered, JtrError> {
        let r = self.reader(jtr)?;
        let out = Renderer::with_output(EventOut::new(f), &self.header, self.conv);
        let ns = |t| self.conv.to_unix_ns(t);
        let index = &self.index[..];
        if let Some(cut) = sel.cut {
            let threads = match (cut.after, sel.threads) {
                (false, _) => Threads::some(Box::new(move |tid, _: &str| tid == cut.tid)),
                (true, Some(w)) => Threads::some(w),
                (true, None) => Threads::All,
            };
            return windowed(r, index, plan_cut(index, cut, ns), out, threads);
        }
        let threads = sel.threads.map_or(Threads::All, Threads::some);
        let Window { from, to } = sel.window;
        if (from.is_none() && to.is_none()) || !self.resumable() {
            return replay_selected(r, index, out, threads);
        }
        let start = self.header.start_ns;
        let abs = |d: Option<u64>, none: u64| d.map_or(none, |d| start.saturating_add(d));
        let p = plan(index, (abs(from, 0), abs(to, u64::MAX)), ns);
        windowed(r, index, p, out, threads)
    }
}
