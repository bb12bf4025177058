//! Calls in the order `calls.parquet` wants them (by thread, then start) while they finish
//! in another (a caller after its callees), written as they finish, in bounded memory.
//!
//! Each call gets a row in its thread's [`Cols`] when it starts (its number on the thread,
//! so a finished call lands in place with no sort) and fills it when it finishes. Between
//! the calls still open (the thread's stack) every row is finished, so once a thread holds
//! a row group's worth, the finished rows before its oldest open call go out as a row group
//! at once, written ahead into `calls.parquet` ([`Calls::store`]). An open call that
//! has held half a row group behind it (a `main` open from start to end, an outer loop)
//! becomes a hole: its row leaves the columns, waits in memory (a few per thread), and is
//! written in its place at the end, between the row groups around it; a few finished rows
//! between two such calls wait with them (a row group of their own would be a few rows
//! long). Finished calls an
//! exception left are held the same way until the exception is reported (it names their
//! class). Past [`LIMIT`] rows held over all threads, every thread's rows go out the same
//! way, holes and all. At the end each thread's holes and remaining rows are written and
//! every row group is put in order: thread by thread, row groups as they were stored, rows
//! gathered into row groups in between (the footer lists them so; see [`Calls::close`]).

use super::calls::{CallRow, Calls, Cols, Stored, THROW, UNWIND};
use super::table::GROUP_ROWS;
use parquet::data_type::ByteArray;
use std::path::{Path, PathBuf};

/// Rows held in memory over all threads before every thread's finished rows are written.
pub const LIMIT: usize = 1_000_000;

/// A run of rows shorter than a row group's worth over this is not a row group of its
/// own when a thread is cut (see [`Order::cut`]).
const SHORT_RUN: usize = 64;

/// [`Open::hole`] of a call whose row is in its thread's columns.
const IN_COLS: u32 = u32::MAX;

/// An open call.
pub struct Open {
    pub call_id: u64,
    pub path: u32,
    pub alloc_bytes: u64,
    pub alloc_count: u64,
    /// Its number on its thread.
    seq: u64,
    /// Its row among its thread's holes, or [`IN_COLS`].
    hole: u32,
}

/// A finished call an exception left, waiting for the exception's report.
struct Unwound {
    seq: u64,
    hole: u32,
    method: u32,
}

/// What a thread's rows are, in order.
enum Item {
    Stored(Stored),
    Hole(u32),
}

/// One thread's calls.
#[derive(Default)]
struct Lane {
    /// The thread's number of `cols`' first row.
    base: u64,
    /// Rows at the front of `cols` already written (or holes): left there until they
    /// are as many as the rows after them, then dropped at once, so that a row is moved
    /// at most about once however often the thread is cut.
    done: usize,
    /// The thread's number of its next call.
    next: u64,
    /// Rows from `base`, made when a call finishes (up to it: the calls open after the
    /// last finished one have none yet); the columns are grown ahead of that.
    cols: Cols,
    /// Rows made in `cols`.
    len: usize,
    open: Vec<Open>,
    unwound: Vec<Unwound>,
    /// Row groups written ahead and holes, in order (before `cols`' rows).
    items: Vec<Item>,
    holes: Vec<CallRow>,
}

/// Every thread's calls, by thread index.
pub struct Order {
    lanes: Vec<Lane>,
    /// Rows in every lane's columns.
    held: usize,
    limit: usize,
    /// Rows of a thread that make it write ahead.
    group: usize,
    /// Finished rows between two open calls kept in memory with the holes (see
    /// [`Order::cut`]), over all threads; at most half [`Order::limit`].
    parked: usize,
    calls_path: PathBuf,
    trace_id: Option<ByteArray>,
    calls: Option<Calls>,
}

impl Order {
    /// `calls` is `calls.parquet`'s path; `limit` the rows held over all threads (and
    /// at most a row group's per thread).
    pub fn new(calls: &Path, limit: usize) -> Order {
        let limit = limit.max(1);
        Order {
            lanes: Vec::new(),
            held: 0,
            limit,
            group: limit.min(GROUP_ROWS),
            parked: 0,
            calls_path: calls.to_path_buf(),
            trace_id: None,
            calls: None,
        }
    }

    /// Every row's `trace_id` (before the first call finishes).
    pub fn set_id(&mut self, id: &ByteArray) {
        self.trace_id = Some(id.clone());
    }

    #[inline]
    fn lane(&mut self, t: u32) -> &mut Lane {
        let t = t as usize;
        if self.lanes.len() <= t {
            self.lanes.resize_with(t + 1, Lane::default);
        }
        &mut self.lanes[t]
    }

    /// Thread `t`'s open calls, outermost first.
    #[inline]
    pub fn stack(&self, t: u32) -> &[Open] {
        self.lanes.get(t as usize).map_or(&[], |l| &l.open)
    }

    /// Thread `t`'s innermost open call.
    #[inline]
    pub fn top_mut(&mut self, t: u32) -> Option<&mut Open> {
        self.lanes.get_mut(t as usize)?.open.last_mut()
    }

    /// A call starts on thread `t`.
    #[inline]
    pub fn enter(&mut self, t: u32, call_id: u64, path: u32) {
        let lane = self.lane(t);
        let seq = lane.next;
        lane.next += 1;
        lane.open.push(Open {
            call_id,
            path,
            alloc_bytes: 0,
            alloc_count: 0,
            seq,
            hole: IN_COLS,
        });
        self.held += 1;
    }

    /// Thread `t`'s innermost open call finished: `row` makes its row from it and its
    /// caller; `class_name` names an exception class the first time.
    #[inline]
    pub fn exit(
        &mut self,
        t: u32,
        row: impl FnOnce(&Open, Option<&Open>) -> CallRow,
        class_name: &dyn Fn(u32) -> String,
    ) -> Result<(), String> {
        let Some(lane) = self.lanes.get_mut(t as usize) else {
            return Ok(());
        };
        let Some(o) = lane.open.pop() else {
            return Ok(());
        };
        let r = row(&o, lane.open.last());
        if o.hole == IN_COLS {
            let i = (o.seq - lane.base) as usize;
            while i >= lane.cols.len() {
                lane.cols.grow();
            }
            lane.cols.set(i, &r);
            lane.len = lane.len.max(i + 1);
        } else {
            lane.holes[o.hole as usize] = r;
        }
        if r.exit == UNWIND {
            lane.unwound.push(Unwound {
                seq: o.seq,
                hole: o.hole,
                method: r.method as u32,
            });
        }
        if lane.len - lane.done >= self.group {
            self.cut(t as usize, false, class_name)?;
        }
        if self.held > self.limit {
            for t in 0..self.lanes.len() {
                self.cut(t, true, class_name)?;
            }
        }
        Ok(())
    }

    /// An exception was reported on thread `t`: the calls it left since the last one get
    /// its class `exc`; the first of them (the innermost) running `thrown_in` threw it.
    /// That call's id.
    pub fn caught(&mut self, t: u32, exc: u32, thrown_in: u32) -> Option<u64> {
        let lane = self.lanes.get_mut(t as usize)?;
        let mut thrower = None;
        for u in std::mem::take(&mut lane.unwound) {
            let throw = thrower.is_none() && u.method == thrown_in;
            let exit = throw.then_some(THROW);
            let call_id = if u.hole == IN_COLS {
                let i = (u.seq - lane.base) as usize;
                lane.cols.set_exception(i, exc, exit);
                lane.cols.call_id(i)
            } else {
                let h = &mut lane.holes[u.hole as usize];
                h.exc = exc;
                if let Some(e) = exit {
                    h.exit = e;
                }
                h.call_id
            };
            if throw {
                thrower = Some(call_id as u64);
            }
        }
        thrower
    }

    fn calls(&mut self) -> Result<&mut Calls, String> {
        if self.calls.is_none() {
            let id = self
                .trace_id
                .as_ref()
                .ok_or("calls.parquet: no trace id chosen")?;
            self.calls = Some(Calls::create(&self.calls_path, id)?);
        }
        self.calls
            .as_mut()
            .ok_or_else(|| "calls.parquet: not open".into())
    }

    /// Writes thread `t`'s finished rows ahead, up to its oldest call still open or
    /// waiting for its exception; one that has half a row group behind it (any, with
    /// `force`) becomes a hole and the rows after it are written too.
    fn cut(
        &mut self,
        t: usize,
        force: bool,
        class_name: &dyn Fn(u32) -> String,
    ) -> Result<(), String> {
        if self.lanes[t].len == self.lanes[t].done {
            return Ok(());
        }
        let half = (self.group / 2).max(1);
        self.calls()?;
        let (Some(calls), Some(lane)) = (self.calls.as_mut(), self.lanes.get_mut(t)) else {
            return Ok(());
        };
        // Rows that cannot be written yet: (position, open or unwound, index there).
        let base = lane.base;
        let mut pins: Vec<(usize, bool, usize)> = Vec::new();
        for (k, o) in lane.open.iter().enumerate() {
            if o.hole == IN_COLS {
                pins.push(((o.seq - base) as usize, true, k));
            }
        }
        for (k, u) in lane.unwound.iter().enumerate() {
            if u.hole == IN_COLS {
                pins.push(((u.seq - base) as usize, false, k));
            }
        }
        pins.sort_unstable();
        let mut at = lane.done;
        let mut end = lane.len;
        let short = self.group / SHORT_RUN;
        for (p, is_open, k) in pins.into_iter().take_while(|&(p, _, _)| p < end) {
            if !force && p - at >= half {
                end = p;
                break;
            }
            let run = p - at;
            if run > 0 && run < short && self.parked + run <= self.limit / 2 {
                // A few rows between two open calls (a call's first children before
                // the next one still running): kept with the holes around them and
                // written with them at the end, in one row group. (Each had been a row
                // group of its own: javac's file had 2,583, 1,164 of them of one row.)
                for i in at..p {
                    lane.holes.push(lane.cols.row(i));
                    lane.items.push(Item::Hole(lane.holes.len() as u32 - 1));
                }
                self.parked += run;
            } else if run > 0 {
                let g = calls.store(&lane.cols, at..p, class_name)?;
                lane.items.push(Item::Stored(g));
            }
            let h = lane.holes.len() as u32;
            lane.holes.push(lane.cols.row(p));
            lane.items.push(Item::Hole(h));
            if is_open {
                lane.open[k].hole = h;
            } else {
                lane.unwound[k].hole = h;
            }
            at = p + 1;
        }
        // A few rows after the last open call stay for the next cut, with the rows
        // that follow them (a row group of their own would be as short).
        if !force && end - at < short && end == lane.len {
            end = at;
        }
        if end > at {
            let g = calls.store(&lane.cols, at..end, class_name)?;
            lane.items.push(Item::Stored(g));
        }
        self.held -= end - lane.done;
        lane.done = end;
        if end >= lane.len - end {
            lane.cols.drop_front(end);
            lane.len -= end;
            lane.base += end as u64;
            lane.done = 0;
        }
        Ok(())
    }

    /// Writes `calls.parquet`: every thread's rows in order, row groups of at most
    /// [`GROUP_ROWS`]. The rows written, and those written ahead.
    pub fn finish(mut self, class_name: &dyn Fn(u32) -> String) -> Result<(u64, u64), String> {
        self.calls()?;
        let (Some(mut calls), lanes) = (self.calls.take(), std::mem::take(&mut self.lanes)) else {
            return Err("calls.parquet: not open".into());
        };
        let mut out = Cols::default();
        let flush = |calls: &mut Calls, out: &mut Cols| -> Result<(), String> {
            calls.write(out, 0..out.len(), class_name)?;
            out.clear();
            Ok(())
        };
        for lane in lanes {
            for item in lane.items {
                match item {
                    Item::Hole(h) => {
                        out.push(&lane.holes[h as usize]);
                        if out.len() >= GROUP_ROWS {
                            flush(&mut calls, &mut out)?;
                        }
                    }
                    Item::Stored(g) => {
                        flush(&mut calls, &mut out)?;
                        calls.append(g);
                    }
                }
            }
            let n = lane.len;
            let mut at = lane.done;
            while at < n {
                // Half a row group or more: written from the thread's columns as they
                // are, not copied.
                if out.is_empty() && n - at >= GROUP_ROWS / 2 {
                    let k = (n - at).min(GROUP_ROWS);
                    calls.write(&lane.cols, at..at + k, class_name)?;
                    at += k;
                    continue;
                }
                let k = (GROUP_ROWS - out.len()).min(n - at);
                out.extend(&lane.cols, at..at + k);
                at += k;
                if out.len() >= GROUP_ROWS {
                    flush(&mut calls, &mut out)?;
                }
            }
        }
        flush(&mut calls, &mut out)?;
        let ahead = calls.ahead;
        Ok((calls.close()?, ahead))
    }
}

#[cfg(test)]
mod tests {
    use super::super::calls::{EXIT_KINDS, NO_PARENT, OPEN, RETURN};
    use super::super::table::text;
    use super::*;
    use crate::model::NONE;
    use parquet::file::reader::{FileReader, SerializedFileReader};
    use parquet::record::Field;
    use std::collections::BTreeMap;

    /// A row as expected: parent, exit kind, exception class.
    type Want = (Option<i64>, u8, Option<u32>);

    /// Finishes thread `t`'s innermost call with `exit`, noted in `want`; its row.
    fn finish_call(
        o: &mut Order,
        t: u32,
        exit: u8,
        want: &mut BTreeMap<(i64, i64), Want>,
    ) -> CallRow {
        let mut made = None;
        let row = |c: &Open, p: Option<&Open>| {
            let row = CallRow {
                call_id: c.call_id as i64,
                parent_id: p.map_or(NO_PARENT, |p| p.call_id as i64),
                thread: t as i64,
                method: (c.call_id % 4) as i64,
                dur: c.call_id as i64 * 10,
                exit,
                ..CallRow::HOLE
            };
            made = Some(row);
            row
        };
        o.exit(t, row, &|e| format!("E{e}")).unwrap();
        let row = made.unwrap();
        let parent = (row.parent_id != NO_PARENT).then_some(row.parent_id);
        want.insert((t as i64, row.call_id), (parent, exit, None));
        row
    }

    /// A row read back: (thread, call_id) and what it holds.
    type Got = ((i64, i64), Want);

    /// `calls.parquet`'s rows in file order, and its number of row groups.
    fn read_back(file: &std::path::Path) -> (Vec<Got>, usize) {
        let reader = SerializedFileReader::try_from(std::fs::File::open(file).unwrap()).unwrap();
        let groups = reader.metadata().num_row_groups();
        let mut got = Vec::new();
        for r in reader.get_row_iter(None).unwrap() {
            let r = r.unwrap();
            let f: Vec<Field> = r.get_column_iter().map(|(_, f)| f.clone()).collect();
            let long = |f: &Field| match f {
                Field::Long(v) => Some(*v),
                _ => None,
            };
            let (id, thread) = (long(&f[0]).unwrap(), long(&f[2]).unwrap());
            assert_eq!(long(&f[7]), Some(id * 10));
            let exit = match &f[9] {
                Field::Str(s) => EXIT_KINDS.iter().position(|k| k == s).unwrap() as u8,
                _ => panic!(),
            };
            let exc = match &f[11] {
                Field::Str(s) => Some(s[1..].parse::<u32>().unwrap()),
                _ => None,
            };
            got.push(((thread, id), (long(&f[1]), exit, exc)));
        }
        (got, groups)
    }

    /// A stack of calls still open, each entered after a few calls that finished (a
    /// method calling helpers before the call it stays in): the rows between two open
    /// calls are no row group of their own; every row is in place.
    #[test]
    fn short_runs_between_open_calls_are_no_row_groups() {
        let dir = std::env::temp_dir().join(format!("jtrace-order-short-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("calls.parquet");
        // Row groups of 1,024 rows; runs under 16 rows are short.
        let mut o = Order::new(&file, 1024);
        o.set_id(&text("t"));
        let mut want = BTreeMap::new();
        let mut next = 0u64;
        let mut call = |o: &mut Order, open: bool, want: &mut BTreeMap<_, _>| {
            o.enter(0, next, 0);
            next += 1;
            if !open {
                finish_call(o, 0, RETURN, want);
            }
        };
        for _ in 0..150 {
            for _ in 0..3 {
                call(&mut o, false, &mut want);
            }
            call(&mut o, true, &mut want);
        }
        // The innermost call's children, enough for several cuts.
        for _ in 0..10_000 {
            call(&mut o, false, &mut want);
        }
        while !o.stack(0).is_empty() {
            finish_call(&mut o, 0, OPEN, &mut want);
        }
        let (rows, _) = o.finish(&|e| format!("E{e}")).unwrap();
        assert_eq!(rows, 10_600);
        let (got, groups) = read_back(&file);
        assert_eq!(got, want.into_iter().collect::<Vec<_>>());
        // 150 runs of three rows between the open calls had each been a row group:
        // now they go with the open calls, a row group's worth at a time.
        assert!(groups <= 10_600 / 1024 + 4, "{groups} row groups");
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Three threads' calls nesting, returning, left by exceptions (reported late, with
    /// other calls in between) and still open at the end, interleaved: `calls.parquet`
    /// holds every row as made, by thread then call_id, whatever the limit (holes,
    /// row groups written ahead, forced cuts).
    #[test]
    fn start_order_and_content_at_every_limit() {
        for limit in [1, 2, 3, 5, 8, 40, 1000] {
            let dir =
                std::env::temp_dir().join(format!("jtrace-order-{}-{limit}", std::process::id()));
            std::fs::create_dir_all(&dir).unwrap();
            let file = dir.join("calls.parquet");
            let mut o = Order::new(&file, limit);
            o.set_id(&text("t"));
            let names = |e: u32| format!("E{e}");
            // Expected: (thread, call_id) → (parent, exit, exception).
            let mut want: BTreeMap<(i64, i64), Want> = BTreeMap::new();
            let mut unwound: Vec<Vec<i64>> = vec![Vec::new(); 3];
            let mut next = 0u64;
            let mut seed = 12345u64;
            for step in 0..600 {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let r = seed >> 33;
                let t = (r % 3) as u32;
                let depth = o.stack(t).len();
                if step < 500 && (depth == 0 || r % 5 < 3) {
                    o.enter(t, next, 0);
                    next += 1;
                } else if depth > 0 && r.is_multiple_of(7) && !unwound[t as usize].is_empty() {
                    // The exception is reported: thrown in the method of the second
                    // call it left (or the first).
                    let u = &unwound[t as usize];
                    let method = u[1.min(u.len() - 1)] % 4;
                    let thrower = *u.iter().find(|&&c| c % 4 == method).unwrap();
                    let exc = (r % 3) as u32;
                    let got = o.caught(t, exc, method as u32);
                    assert_eq!(got, Some(thrower as u64));
                    for &c in u {
                        let w = want.get_mut(&(t as i64, c)).unwrap();
                        w.2 = Some(exc);
                        if c == thrower {
                            w.1 = THROW;
                        }
                    }
                    unwound[t as usize].clear();
                } else if depth > 0 {
                    let exit = if r.is_multiple_of(4) { UNWIND } else { RETURN };
                    let row = finish_call(&mut o, t, exit, &mut want);
                    if exit == UNWIND {
                        unwound[t as usize].push(row.call_id);
                    }
                }
            }
            for t in 0..3u32 {
                while !o.stack(t).is_empty() {
                    finish_call(&mut o, t, OPEN, &mut want);
                }
            }
            let (rows, ahead) = o.finish(&names).unwrap();
            assert_eq!(rows, next, "limit {limit}");
            assert_eq!(ahead > 0, limit < 200, "limit {limit}");
            let (got, _) = read_back(&file);
            let want: Vec<_> = want.into_iter().collect();
            assert_eq!(got, want, "limit {limit}");
            let _ = NONE;
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
}
