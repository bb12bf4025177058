// The program `cargo xtask test` traces to test the `jtrace` command (xtask/src/steps/cli_tests.rs).
// Its structure is fixed: known call counts, sleeps, exceptions thrown and caught at a
// known line, allocations at a known site, a lock held while another thread waits. It
// prints what the command must find as TRUTH lines (times are lower bounds it measured
// itself, inside the traced frames). -Dcli.factor=2 calls counted() twice as often and
// changes nothing else (the diff test).
// jtrace-options: alloc=exact,lines=on,waits=off
// jtrace-stdout: TRUTH *
// jtrace-compare-modes: no
// jtrace-timeout: 120
public class CliWork {
    static final int FACTOR = Integer.getInteger("cli.factor", 1);
    static final int SLEEPS = 5;
    static final long SLEEP_MS = 20;
    static final int COUNTED = 1000 * FACTOR;
    static final int THROWS = 7;
    static final int ALLOCS = 13;
    static final long HOLD_MS = 200;

    static final class Payload {
        long a, b;
    }

    static final class Lock {
    }

    static final class WaitBox {
    }

    static final Lock LOCK = new Lock();
    static final WaitBox BOX = new WaitBox();
    static volatile boolean held;
    static volatile boolean aboutToLock;
    static long sleptNs;
    static long minSleepNs = Long.MAX_VALUE;
    static long heldNs;
    static int throwLine;
    static int allocLine;
    static int sink;
    static String sleepyPath;

    static void sleepy() throws InterruptedException {
        if (sleepyPath == null) {
            StackTraceElement[] st = new Throwable().getStackTrace();
            StringBuilder path = new StringBuilder();
            for (int i = st.length - 1; i >= 0; i--) {
                path.append(st[i].getClassName()).append('.').append(st[i].getMethodName());
                path.append(i > 0 ? ";" : "");
            }
            sleepyPath = path.toString();
        }
        long t0 = System.nanoTime();
        Thread.sleep(SLEEP_MS);
        long d = System.nanoTime() - t0;
        sleptNs += d;
        minSleepNs = Math.min(minSleepNs, d);
    }

    static int counted(int i) {
        return i * 3 + 1;
    }

    static void thrower() {
        IllegalStateException e = new IllegalStateException("boom"); throwLine = e.getStackTrace()[0].getLineNumber(); throw e;
    }

    static int catcher() {
        try {
            thrower();
            return 0;
        } catch (IllegalStateException e) {
            return 1;
        }
    }

    static Object allocSite() {
        Object o = new Payload(); if (allocLine == 0) allocLine = new Throwable().getStackTrace()[0].getLineNumber(); return o;
    }

    static void enterLock() {
        aboutToLock = true;
        synchronized (LOCK) {
            sink++;
        }
    }

    static void waitOnBox() throws InterruptedException {
        synchronized (BOX) {
            BOX.wait(30);
        }
    }

    static final class Holder implements Runnable {
        final Thread waiter;

        Holder(Thread waiter) {
            this.waiter = waiter;
        }

        public void run() {
            synchronized (LOCK) {
                held = true;
                // The waiter is blocked on LOCK (it asked for it after aboutToLock) before
                // the hold starts: its contention lasts at least the hold.
                while (!(aboutToLock && waiter.getState() == Thread.State.BLOCKED)) {
                    Thread.onSpinWait();
                }
                long t0 = System.nanoTime();
                try {
                    Thread.sleep(HOLD_MS);
                } catch (InterruptedException e) {
                    throw new RuntimeException(e);
                }
                heldNs = System.nanoTime() - t0;
            }
        }
    }

    static final class Waiter implements Runnable {
        public void run() {
            while (!held) {
                Thread.onSpinWait();
            }
            enterLock();
        }
    }

    static void work() throws InterruptedException {
        for (int i = 0; i < SLEEPS; i++) {
            sleepy();
        }
        for (int i = 0; i < COUNTED; i++) {
            sink += counted(i);
        }
        for (int i = 0; i < THROWS; i++) {
            sink += catcher();
        }
        for (int i = 0; i < ALLOCS; i++) {
            sink += allocSite().hashCode() & 1;
        }
        waitOnBox();
    }

    public static void main(String[] args) throws Exception {
        work();
        Thread waiter = new Thread(new Waiter(), "cli-waiter");
        Thread holder = new Thread(new Holder(waiter), "cli-holder");
        waiter.start();
        holder.start();
        holder.join();
        waiter.join();
        System.gc();

        System.out.println("EXPECT calls CliWork.counted " + COUNTED);
        System.out.println("EXPECT calls CliWork.sleepy " + SLEEPS);
        System.out.println("EXPECT catches CliWork.catcher " + THROWS);
        System.out.println("EXPECT thread cli-waiter");
        // The JVM itself, as it reports its own system properties (the trace's JVM facts).
        for (String p : new String[] {"java.vm.vendor", "java.vm.name", "java.vm.version",
                "java.vm.specification.version", "java.home", "sun.java.command"}) {
            System.out.println("TRUTH jvm " + p + " " + System.getProperty(p));
        }
        System.out.println("TRUTH calls CliWork.counted " + COUNTED);
        System.out.println("TRUTH calls CliWork.sleepy " + SLEEPS);
        System.out.println("TRUTH calls CliWork.catcher " + THROWS);
        System.out.println("TRUTH calls CliWork.thrower " + THROWS);
        System.out.println("TRUTH calls CliWork.allocSite " + ALLOCS);
        System.out.println("TRUTH calls CliWork.work 1");
        System.out.println("TRUTH calls CliWork.main 1");
        System.out.println("TRUTH exception-exits CliWork.thrower " + THROWS);
        System.out.println("TRUTH self-at-least CliWork.sleepy " + sleptNs);
        System.out.println("TRUTH total-at-least CliWork.work " + sleptNs);
        System.out.println("TRUTH min-sleep " + minSleepNs);
        System.out.println("TRUTH sleep-ms " + SLEEP_MS);
        System.out.println("TRUTH exception java.lang.IllegalStateException CliWork.thrower:" + throwLine
                + " CliWork.catcher " + THROWS);
        System.out.println("TRUTH alloc CliWork$Payload CliWork.allocSite:" + allocLine + " " + ALLOCS);
        System.out.println("TRUTH contended CliWork$Lock CliWork.enterLock 1 " + heldNs);
        // The wait's own events come inside Object.wait, so the time measured around it is
        // no lower bound of the traced wait: only the count is checked.
        System.out.println("TRUTH waits CliWork$WaitBox CliWork.waitOnBox 1 0");
        System.out.println("TRUTH thread cli-holder");
        System.out.println("TRUTH thread cli-waiter");
        System.out.println("TRUTH gc-at-least 1");
        // Root-to-method path of every sleepy() call (jtrace parquet's paths.stack).
        System.out.println("TRUTH path CliWork.sleepy " + sleepyPath);
        // Who calls whom (the structure of work() and catcher() above): caller edges.
        System.out.println("TRUTH caller CliWork.counted CliWork.work " + COUNTED);
        System.out.println("TRUTH caller CliWork.sleepy CliWork.work " + SLEEPS);
        System.out.println("TRUTH caller CliWork.thrower CliWork.catcher " + THROWS);
        System.out.println("TRUTH caller CliWork.work CliWork.main 1");
    }
}
