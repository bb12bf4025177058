"""Queries a fleet directory written by `jtrace parquet` with DuckDB or Spark, as they
are: `FLEET/*/<table>.parquet`, no read options, no schema. Prints one JSON object of
answers for xtask/src/steps/parquet_tests.rs to compare with the programs' TRUTH lines and
`jtrace report`, with, per table, each file's `trace_id=<id>` directory and the trace_id
values the engine read from it (they must be the one id).

usage: fleet.py duckdb|spark FLEET BEFORE_FILE AFTER_FILE
"""
import json
import sys

TABLES = ["calls", "methods", "threads", "paths", "trace", "events"]

# The same SQL text runs on both engines.
JOIN_M = "JOIN methods m ON c.trace_id = m.trace_id AND c.method_id = m.method_id"

QUERIES = {
    "files": "SELECT trace_id, file FROM trace ORDER BY trace_id",
    # Per table: which directory each row came from and the trace_id the engine gave it.
    **{
        f"ids_{t}": f"""
        SELECT regexp_extract(f, 'trace_id=([^/]+)/', 1) AS dir, trace_id, COUNT(*) AS n
        FROM (SELECT {{file}} AS f, trace_id FROM {t}) x
        GROUP BY regexp_extract(f, 'trace_id=([^/]+)/', 1), trace_id
        ORDER BY dir, trace_id"""
        for t in TABLES
    },
    # Top self time across the fleet (every method, largest first).
    "top_self": f"""
        SELECT m.method_key, SUM(c.self_ns) AS self_ns, COUNT(*) AS calls
        FROM calls c {JOIN_M}
        GROUP BY m.method_key ORDER BY self_ns DESC, m.method_key""",
    # p99 of the inclusive time per method per trace (nearest rank).
    "p99": f"""
        SELECT c.trace_id, m.method_key,
               percentile_disc(0.99) WITHIN GROUP (ORDER BY c.dur_ns) AS p99_ns,
               MAX(c.dur_ns) AS max_ns, COUNT(*) AS calls
        FROM calls c {JOIN_M}
        GROUP BY c.trace_id, m.method_key ORDER BY c.trace_id, m.method_key""",
    # Call counts that differ between two runs.
    "diff": f"""
        WITH a AS (SELECT m.method_key, COUNT(*) AS n FROM calls c {JOIN_M}
                   WHERE c.trace_id = (SELECT trace_id FROM trace WHERE file = '{{before}}')
                   GROUP BY m.method_key),
             b AS (SELECT m.method_key, COUNT(*) AS n FROM calls c {JOIN_M}
                   WHERE c.trace_id = (SELECT trace_id FROM trace WHERE file = '{{after}}')
                   GROUP BY m.method_key)
        SELECT COALESCE(a.method_key, b.method_key) AS method_key,
               COALESCE(a.n, 0) AS before_calls, COALESCE(b.n, 0) AS after_calls,
               COALESCE(b.n, 0) - COALESCE(a.n, 0) AS diff
        FROM a FULL OUTER JOIN b ON a.method_key = b.method_key
        WHERE COALESCE(a.n, 0) <> COALESCE(b.n, 0)
        ORDER BY method_key""",
    # The slowest call of each trace: its method, path, thread, start and duration
    # (the call chosen first, then joined: docs/PARQUET.md's form).
    "slowest": f"""
        SELECT c.trace_id, m.method_key, p.stack, t.name AS thread, c.start_ns, c.dur_ns
        FROM (SELECT trace_id, method_id, path_id, thread_id, start_ns, dur_ns,
                     row_number() OVER (PARTITION BY trace_id
                                        ORDER BY dur_ns DESC, start_ns) AS r
              FROM calls) c {JOIN_M}
        JOIN paths p ON c.trace_id = p.trace_id AND c.path_id = p.path_id
        JOIN threads t ON c.trace_id = t.trace_id AND c.thread_id = t.thread_id
        WHERE c.r = 1 ORDER BY c.trace_id""",
    # Every path CliWork.sleepy was called on, per trace.
    "sleepy_paths": f"""
        SELECT DISTINCT c.trace_id, p.stack
        FROM calls c {JOIN_M}
        JOIN paths p ON c.trace_id = p.trace_id AND c.path_id = p.path_id
        WHERE m.class = 'CliWork' AND m.method = 'sleepy'
        ORDER BY c.trace_id, p.stack""",
    # Calls an exception ended: where it was thrown (throw) or passed through (unwind).
    "exception_exits": f"""
        SELECT c.trace_id, m.class, m.method, c.exit_kind, c.exception_class, COUNT(*) AS n
        FROM calls c {JOIN_M}
        WHERE c.exit_kind IN ('throw', 'unwind')
        GROUP BY c.trace_id, m.class, m.method, c.exit_kind, c.exception_class
        ORDER BY c.trace_id, m.class, m.method, c.exit_kind""",
    # Events tied to their calls: exceptions, allocations, contention, by site.
    "events": """
        SELECT e.trace_id, e.kind, e.class, m.class AS site_class, m.method AS site,
               e.line, k.method AS caught_in, COUNT(*) AS n, MIN(e.dur_ns) AS min_dur_ns,
               SUM(CASE WHEN c.method_id = e.method_id THEN 1 ELSE 0 END) AS in_site_call
        FROM events e
        JOIN methods m ON e.trace_id = m.trace_id AND e.method_id = m.method_id
        LEFT JOIN methods k ON e.trace_id = k.trace_id AND e.catch_method_id = k.method_id
        LEFT JOIN calls c ON e.trace_id = c.trace_id AND e.call_id = c.call_id
        WHERE e.kind IN ('exception', 'alloc', 'contended', 'wait') AND m.class LIKE 'CliWork%'
        GROUP BY e.trace_id, e.kind, e.class, m.class, m.method, e.line, k.method
        ORDER BY e.trace_id, e.kind, e.class, m.class, m.method, e.line""",
    # Lines executed in CliWork.counted (lines=on): how many, in a call of it, which lines.
    "lines": """
        SELECT e.trace_id, m.method, COUNT(*) AS n,
               SUM(CASE WHEN c.method_id = e.method_id THEN 1 ELSE 0 END) AS in_call,
               MIN(e.line) AS lo, MAX(e.line) AS hi, MIN(m.first_line) AS first_line
        FROM events e
        JOIN methods m ON e.trace_id = m.trace_id AND e.method_id = m.method_id
        LEFT JOIN calls c ON e.trace_id = c.trace_id AND e.call_id = c.call_id
        WHERE e.kind = 'line' AND m.class = 'CliWork' AND m.method = 'counted'
        GROUP BY e.trace_id, m.method ORDER BY e.trace_id""",
    # The program's threads: their group and whether virtual.
    "threads": """
        SELECT trace_id, name, thread_group, is_virtual FROM threads
        ORDER BY trace_id, name, thread_id""",
    # What the agent dropped, by cause.
    "drops": """
        SELECT trace_id, dropped_record_bytes, undefined_method_records, unknown_thread_records
        FROM trace ORDER BY trace_id""",
    # The JVM each trace ran on.
    "jvm": """
        SELECT trace_id, jvm_vendor, jvm_name, jvm_version, java_spec_version, java_home,
               java_command
        FROM trace ORDER BY trace_id""",
}


def plain(v):
    """Engine values as JSON: integers (DuckDB's HUGEINT sums, Spark's decimals) as ints."""
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return v
    return int(v)


def duckdb_answers(fleet, sql):
    import duckdb

    con = duckdb.connect()
    for t in TABLES:
        con.execute(f"CREATE VIEW {t} AS SELECT *, filename AS _file FROM read_parquet('{fleet}/*/{t}.parquet')")
    sql = {k: q.replace("{file}", "_file") for k, q in sql.items()}
    return {k: [[plain(v) for v in row] for row in con.execute(q).fetchall()] for k, q in sql.items()}


def spark_answers(fleet, sql):
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master("local[2]")
        .appName("jtrace-fleet")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        # Real programs' fleets hold tens of millions of calls (percentiles per method).
        .config("spark.driver.memory", "4g")
        .config("spark.sql.shuffle.partitions", "2")
        # As docs/PARQUET.md says: paths' front-coded stacks are small on disk, large in
        # memory, and Spark sizes a join's broadcast by the files.
        .config("spark.sql.autoBroadcastJoinThreshold", "-1")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    try:
        for t in TABLES:
            spark.read.parquet(f"{fleet}/*/{t}.parquet").createOrReplaceTempView(t)
        sql = {k: q.replace("{file}", "input_file_name()") for k, q in sql.items()}
        return {k: [[plain(v) for v in row] for row in spark.sql(q).collect()] for k, q in sql.items()}
    finally:
        spark.stop()


def main():
    engine, fleet, before, after = sys.argv[1:5]
    sql = {k: q.replace("{before}", before).replace("{after}", after) for k, q in QUERIES.items()}
    answers = duckdb_answers(fleet, sql) if engine == "duckdb" else spark_answers(fleet, sql)
    print(json.dumps(answers))


if __name__ == "__main__":
    main()
