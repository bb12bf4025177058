"""Checks that one trace's Parquet export (`jtrace parquet TRACE -o FLEET`) and
`jtrace report --json TRACE` give the same answers, queried with DuckDB as the files
are: per method its calls, self and inclusive time, exits by exception, calls left
open, longest call and exact p99; per thread its calls; the slowest calls; and that
every call's path is its parent call's path and its own method. Used on the traces of
real programs (`cargo xtask realworld`), whose truth nobody here wrote down.

usage: agree.py REPORT_JSON FLEET
Prints one line of what agreed; on a mismatch, the first ones, and exits 1.
"""
import json
import sys

import duckdb


def main():
    report = json.load(open(sys.argv[1]))
    fleet = sys.argv[2]
    con = duckdb.connect()
    for t in ["calls", "methods", "threads", "paths"]:
        con.execute(f"CREATE VIEW {t} AS SELECT * FROM '{fleet}/*/{t}.parquet'")
    per_method = {
        r[0]: r[1:]
        for r in con.execute(
            """
            SELECT m.method_key, COUNT(*),
                   SUM(c.self_ns),
                   SUM(CASE WHEN c.recursive THEN 0 ELSE c.dur_ns END),
                   SUM(CASE WHEN c.exit_kind IN ('throw', 'unwind') THEN 1 ELSE 0 END),
                   SUM(CASE WHEN c.exit_kind = 'open' THEN 1 ELSE 0 END),
                   MAX(c.dur_ns),
                   quantile_disc(c.dur_ns, 0.99)
            FROM calls c JOIN methods m USING (method_id)
            GROUP BY m.method_key"""
        ).fetchall()
    }
    bad = []
    for m in report["methods"]:
        want = (
            m["calls"],
            m["self_ns"],
            m["total_ns"],
            m["exception_exits"],
            m["open"],
            m["max_ns"],
        )
        got = per_method.get(m["jvm"])
        if got is None or tuple(got[:6]) != want:
            bad.append(f"{m['jvm']}: report {want}, parquet {got and tuple(got[:6])}")
        elif m["p99_exact"] and got[6] != m["p99_ns"]:
            bad.append(f"{m['jvm']}: p99 report {m['p99_ns']}, parquet {got[6]}")
    if len(per_method) != len(report["methods"]):
        bad.append(
            f"{len(report['methods'])} methods called in the report, {len(per_method)} in calls"
        )
    per_thread = dict(
        con.execute(
            """SELECT t.thread_key, COUNT(*) FROM calls c JOIN threads t USING (thread_id)
               GROUP BY t.thread_key"""
        ).fetchall()
    )
    for t in report["threads"]:
        if per_thread.get(t["id"], 0) != t["calls"]:
            bad.append(f"thread {t['id']}: report {t['calls']} calls, parquet {per_thread.get(t['id'])}")
    # The slowest calls, longest first (ties by start): the report's list is a prefix.
    slow = con.execute(
        f"""SELECT m.class, m.method, m.signature, c.start_ns, c.dur_ns
            FROM calls c JOIN methods m USING (method_id)
            ORDER BY c.dur_ns DESC, c.start_ns LIMIT {len(report['slowest'])}"""
    ).fetchall()
    want_slow = [
        (s["class"], s["name"], s["signature"], s["start_ns"], s["duration_ns"])
        for s in report["slowest"]
    ]
    # Equal durations may come in either order: compared as sets of the longest.
    if sorted(r[4] for r in slow) != sorted(w[4] for w in want_slow):
        bad.append(f"slowest durations: report {want_slow[:3]}, parquet {slow[:3]}")
    (paths_wrong,) = con.execute(
        """SELECT COUNT(*) FROM calls c JOIN paths p USING (path_id)
           LEFT JOIN calls pc ON pc.call_id = c.parent_id
           WHERE p.method_id <> c.method_id OR p.depth <> c.depth
              OR COALESCE(p.parent_path_id, -1) <> COALESCE(pc.path_id, -1)"""
    ).fetchone()
    if paths_wrong:
        bad.append(f"{paths_wrong} calls whose path is not their parent's and their method's")
    calls = sum(m["calls"] for m in report["methods"])
    if bad:
        print(f"{len(bad)} disagreement(s): " + " | ".join(bad[:4]))
        sys.exit(1)
    print(
        f"agree: {len(per_method)} methods, {calls} calls, {len(per_thread)} threads, "
        f"{len(slow)} slowest calls, every call's path"
    )


if __name__ == "__main__":
    main()
