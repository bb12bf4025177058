package jtrace;

import java.util.*;

/** Test tracker: checks per-thread nesting of probe calls and counts them. */
public final class Tracker {
    private static final List<ArrayDeque<Integer>> STACKS = new ArrayList<>();
    private static final ThreadLocal<ArrayDeque<Integer>> STACK = ThreadLocal.withInitial(() -> {
        ArrayDeque<Integer> d = new ArrayDeque<>();
        synchronized (STACKS) { STACKS.add(d); }
        return d;
    });
    /** id -> {enter, exit, unwind, caught} */
    private static final Map<Integer, long[]> COUNTS = new TreeMap<>();
    private static final Map<Long, Long> LINES = new TreeMap<>();
    private static final Map<Integer, Long> IMPLICIT = new TreeMap<>();
    private static final List<String> ERRORS = new ArrayList<>();

    private static synchronized void count(int id, int what) {
        COUNTS.computeIfAbsent(id, k -> new long[4])[what]++;
    }

    private static synchronized void error(String s) {
        if (ERRORS.size() < 50) ERRORS.add(s);
    }

    public static void enter(int id) {
        STACK.get().push(id);
        count(id, 0);
    }

    /**
     * A constructor's super()/this() call cannot be covered by the catch-all
     * handler, so a frame left by an exception thrown there reports nothing.
     * The next event of an outer frame finds it on top: pop it as an implicit
     * unwind (reported as "I id" so the test can check it is a constructor).
     */
    private static void resync(String what, int id) {
        ArrayDeque<Integer> s = STACK.get();
        if (!s.contains(id)) {
            error(what + " " + id + " not on stack " + s);
            return;
        }
        while (s.peek() != id) {
            int gone = s.pop();
            synchronized (Tracker.class) { IMPLICIT.merge(gone, 1L, Long::sum); }
        }
    }

    public static void exit(int id) {
        resync("exit", id);
        Integer top = STACK.get().poll();
        if (top == null || top != id) error("exit " + id + " top " + top);
        count(id, 1);
    }

    public static void unwind(Throwable t, int id) {
        resync("unwind", id);
        Integer top = STACK.get().poll();
        if (top == null || top != id) error("unwind " + id + " top " + top + " " + t);
        if (t == null) error("unwind null throwable " + id);
        count(id, 2);
    }

    public static void caught(Throwable t, int id) {
        resync("caught", id);
        Integer top = STACK.get().peek();
        if (top == null || top != id) error("caught " + id + " top " + top + " " + t);
        if (t == null) error("caught null throwable " + id);
        count(id, 3);
    }

    public static void line(int id, int line) {
        Integer top = STACK.get().peek();
        if (top == null || top != id) error("line " + id + ":" + line + " top " + top);
        synchronized (Tracker.class) {
            LINES.merge(((long) id << 32) | line, 1L, Long::sum);
        }
    }

    /** Prints the counts and errors to stderr (stdout is compared). */
    public static synchronized void report() {
        synchronized (STACKS) {
            for (ArrayDeque<Integer> d : STACKS) {
                if (!d.isEmpty()) error("unbalanced stack " + d);
            }
        }
        for (Map.Entry<Integer, long[]> e : COUNTS.entrySet()) {
            long[] c = e.getValue();
            long implicit = IMPLICIT.getOrDefault(e.getKey(), 0L);
            System.err.println("M " + Integer.toUnsignedString(e.getKey()) + " " + c[0] + " " + c[1] + " " + (c[2] + implicit) + " " + c[3]);
            if (implicit > 0) System.err.println("I " + Integer.toUnsignedString(e.getKey()) + " " + implicit);
        }
        for (Map.Entry<Long, Long> e : LINES.entrySet()) {
            System.err.println("L " + Integer.toUnsignedString((int) (e.getKey() >>> 32)) + " " + (e.getKey() & 0xffffffffL) + " " + e.getValue());
        }
        for (String s : ERRORS) System.err.println("E " + s);
        System.err.println("TRACKER-END");
    }
}
