package families;

/**
 * Monitor family: two threads contend for one lock, then play ping-pong with
 * wait/notify.
 *
 * Phase 1: both threads enter {@code synchronized (LOCK)} {@code n} times each
 * and do some work inside (tens of microseconds) and as much outside, so the other one often finds the lock
 * taken, spins in vain and blocks (a contended enter: short critical sections are won
 * by spinning and produce no event). Phase 2: the threads hand a turn back and forth {@code n * 10}
 * times with wait/notifyAll (one wait per hand-over).
 *
 * Usage: java families.Monitors N
 * Prints: loop_ns=..., ops=... (lock entries + hand-overs), check=...
 */
public final class Monitors {
    /** Iterations of work inside the lock: long enough that spinning fails and the other thread blocks. */
    static final int WORK = 20000;
    static final Object LOCK = new Object();
    static long counter;
    static int turn;

    static void contend(final int times) {
        long local = 0;
        for (int i = 0; i < times; i++) {
            synchronized (LOCK) {
                for (int k = 0; k < WORK; k++) {
                    counter += k ^ i;
                }
            }
            for (int k = 0; k < WORK; k++) {
                local += k * i;
            }
        }
        synchronized (LOCK) {
            counter += local & 1;
        }
    }

    static void pingPong(final int me, final int rounds) {
        try {
            for (int i = 0; i < rounds; i++) {
                synchronized (LOCK) {
                    while (turn != me) {
                        LOCK.wait();
                    }
                    turn = 1 - me;
                    counter++;
                    LOCK.notifyAll();
                }
            }
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    public static void main(final String[] args) throws InterruptedException {
        final int n = Integer.parseInt(args[0]);
        final int entries = n;
        final int rounds = n * 10;
        final long t0 = System.nanoTime();
        final Thread a = new Thread(() -> contend(entries), "contend-a");
        final Thread b = new Thread(() -> contend(entries), "contend-b");
        a.start();
        b.start();
        a.join();
        b.join();
        final Thread p = new Thread(() -> pingPong(0, rounds), "ping");
        final Thread q = new Thread(() -> pingPong(1, rounds), "pong");
        p.start();
        q.start();
        p.join();
        q.join();
        final long t1 = System.nanoTime();
        System.out.println("loop_ns=" + (t1 - t0));
        System.out.println("ops=" + (2L * entries + 2L * rounds));
        System.out.println("check=" + counter);
    }
}
