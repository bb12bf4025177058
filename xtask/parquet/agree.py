"""Checks that a fleet of Parquet exports (`jtrace parquet TRACE --trace-id ID -o FLEET`,
one directory per trace) and `jtrace report --json` of each trace give the same answers,
queried with DuckDB or Spark over the fleet as its files are (`FLEET/*/<table>.parquet`,
no options, no schema; the engines set up as xtask/parquet/fleet.py does): per trace and
method its calls, self and inclusive time, exits by exception, calls left open, longest
call and exact p99; per trace and thread its calls; each trace's slowest calls; and that
every call's path is its parent call's path and its own method. Used on the traces of
real programs (`cargo xtask realworld`), whose truth nobody here wrote down.

usage: agree.py duckdb|spark FLEET REPORT_JSON...
Each REPORT_JSON is the report of the trace exported with `--trace-id` its file's stem
(`reports/ant-17.json`: trace_id `ant-17`); only those traces are queried.
Prints one line of what agreed; on a mismatch, the first ones, and exits 1.
"""
import json
import os
import sys

from fleet import duckdb_answers, spark_answers

# The same SQL text runs on both engines; {ids} is the traces compared, {top} the
# longest list of slowest calls a report has.
JOIN_M = "JOIN methods m ON c.trace_id = m.trace_id AND c.method_id = m.method_id"
QUERIES = {
    "per_method": f"""
        SELECT c.trace_id, m.method_key, COUNT(*), SUM(c.self_ns),
               SUM(CASE WHEN c.recursive THEN 0 ELSE c.dur_ns END),
               SUM(CASE WHEN c.exit_kind IN ('throw', 'unwind') THEN 1 ELSE 0 END),
               SUM(CASE WHEN c.exit_kind = 'open' THEN 1 ELSE 0 END),
               MAX(c.dur_ns),
               percentile_disc(0.99) WITHIN GROUP (ORDER BY c.dur_ns)
        FROM calls c {JOIN_M}
        WHERE c.trace_id IN ({{ids}})
        GROUP BY c.trace_id, m.method_key""",
    "per_thread": """
        SELECT c.trace_id, t.thread_key, COUNT(*)
        FROM calls c JOIN threads t ON c.trace_id = t.trace_id AND c.thread_id = t.thread_id
        WHERE c.trace_id IN ({ids})
        GROUP BY c.trace_id, t.thread_key""",
    # Each trace's longest calls, longest first.
    "slowest": """
        SELECT trace_id, dur_ns
        FROM (SELECT trace_id, dur_ns,
                     row_number() OVER (PARTITION BY trace_id ORDER BY dur_ns DESC, start_ns) AS r
              FROM calls WHERE trace_id IN ({ids})) x
        WHERE r <= {top}""",
    "paths_wrong": """
        SELECT c.trace_id, COUNT(*)
        FROM calls c JOIN paths p ON c.trace_id = p.trace_id AND c.path_id = p.path_id
        LEFT JOIN calls pc ON pc.trace_id = c.trace_id AND pc.call_id = c.parent_id
        WHERE c.trace_id IN ({ids})
          AND (p.method_id <> c.method_id OR p.depth <> c.depth
               OR COALESCE(p.parent_path_id, -1) <> COALESCE(pc.path_id, -1))
        GROUP BY c.trace_id""",
}


def disagreements(tid, report, got):
    """What the engine's answers `got` say of trace `tid` that its report does not."""
    bad = []
    per_method = {r[1]: r[2:] for r in got["per_method"] if r[0] == tid}
    for m in report["methods"]:
        want = (
            m["calls"],
            m["self_ns"],
            m["total_ns"],
            m["exception_exits"],
            m["open"],
            m["max_ns"],
        )
        row = per_method.get(m["jvm"])
        if row is None or tuple(row[:6]) != want:
            bad.append(f"{tid} {m['jvm']}: report {want}, parquet {row and tuple(row[:6])}")
        elif m["p99_exact"] and row[6] != m["p99_ns"]:
            bad.append(f"{tid} {m['jvm']}: p99 report {m['p99_ns']}, parquet {row[6]}")
    if len(per_method) != len(report["methods"]):
        bad.append(
            f"{tid}: {len(report['methods'])} methods called in the report, "
            f"{len(per_method)} in calls"
        )
    per_thread = {r[1]: r[2] for r in got["per_thread"] if r[0] == tid}
    for t in report["threads"]:
        if per_thread.get(t["id"], 0) != t["calls"]:
            bad.append(
                f"{tid} thread {t['id']}: report {t['calls']} calls, "
                f"parquet {per_thread.get(t['id'])}"
            )
    # The report's slowest calls are a prefix of the longest; equal durations may come
    # in either order, so the durations are compared.
    want_slow = sorted(s["duration_ns"] for s in report["slowest"])
    slow = sorted(r[1] for r in got["slowest"] if r[0] == tid)
    slow = slow[len(slow) - len(want_slow):] if want_slow else []
    if slow != want_slow:
        bad.append(f"{tid} slowest durations: report {want_slow[-3:]}, parquet {slow[-3:]}")
    wrong = sum(r[1] for r in got["paths_wrong"] if r[0] == tid)
    if wrong:
        bad.append(f"{tid}: {wrong} calls whose path is not their parent's and their method's")
    return bad


def main():
    engine, fleet, paths = sys.argv[1], sys.argv[2], sys.argv[3:]
    reports = {os.path.splitext(os.path.basename(p))[0]: json.load(open(p)) for p in paths}
    ids = ", ".join(f"'{t}'" for t in sorted(reports))
    top = max([len(r["slowest"]) for r in reports.values()] + [1])
    sql = {k: q.replace("{ids}", ids).replace("{top}", str(top)) for k, q in QUERIES.items()}
    answers = duckdb_answers if engine == "duckdb" else spark_answers
    got = answers(fleet, sql)
    bad = [b for tid, r in sorted(reports.items()) for b in disagreements(tid, r, got)]
    if bad:
        print(f"{engine}: {len(bad)} disagreement(s): " + " | ".join(bad[:4]))
        sys.exit(1)
    calls = sum(m["calls"] for r in reports.values() for m in r["methods"])
    methods = sum(len(r["methods"]) for r in reports.values())
    print(
        f"{engine} agrees on {len(reports)} trace(s): {methods} methods, {calls} calls, "
        f"each thread's calls, the slowest calls, every call's path"
    )


if __name__ == "__main__":
    main()
