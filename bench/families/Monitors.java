package families;

/**
 * Monitor family: two threads contend for one lock, then play ping-pong with
 * wait/notify.
 *
 * Phase 1: both threads enter {@code synchronized (LOCK)} {@code n * 1000} times each
 * and do a little work inside, so the other one often finds the lock taken
 * (contended enter). Phase 2: the threads hand a turn back and forth {@code n * 10}
 * times with wait/notifyAll (one wait per hand-over).
 *
 * Usage: java families.Monitors N
 * Prints: loop_ns=..., ops=... (lock entries + hand-overs), check=...
 */
public final class Monitors {
    static final Object LOCK = new Object();
    static long counter;
    static int turn;

    static void contend(final int times) {
        for (int i = 0; i < times; i++) {
            synchronized (LOCK) {
                for (int k = 0; k < 20; k++) {
                    counter += k ^ i;
                }
            }
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
        final int entries = n * 1000;
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
