// Monitors: a lock held by one named thread while another named thread blocks on it (the
// holder releases only once it has seen the blocker BLOCKED, which HotSpot sets after posting
// MonitorContendedEnter), and wait/notify with waits the program measures itself.
//
// Timing claims are floors only: the waiter is notified at least NOTIFY_AFTER_MS after the
// main thread saw it WAITING, so its waits (monWaited@timeout, ms actually waited) add up to
// at least FLOOR_MS (< NOTIFY_AFTER_MS, a margin for ms rounding); the timer's timed waits
// add up to at least half the time it asked for. Nobody notifies the timer, and HotSpot does
// not wake waiters spuriously, so each of its waits times out.
// jtrace-compare-modes: no

import java.util.concurrent.CountDownLatch;

public class Monitors {
    static final Object lock = new Object();
    static final Object cond = new Object();
    static final Object timerLock = new Object();
    static final long NOTIFY_AFTER_MS = 250;
    static final long FLOOR_MS = 200;
    static final long TIMER_MS = 120;

    static final CountDownLatch held = new CountDownLatch(1);
    static volatile Thread blocker;
    static volatile boolean sawBlocked;
    static int blockerEntered;
    static boolean notified;
    static int waiterWaits;
    static int timerWaits;
    static long timerAsked;

    static class Holder extends Thread {
        Holder() {
            super("holder");
        }

        @Override
        public void run() {
            synchronized (lock) {
                held.countDown();
                while (blocker.getState() != Thread.State.BLOCKED) {
                    Thread.onSpinWait();
                }
                sawBlocked = true;
                // Keep holding a moment: HotSpot shows BLOCKED while it is still
                // posting the contended-enter event, and the agent asks who owns the
                // monitor from inside that event. Released earlier, the owner would
                // rightly be reported as unknown (threadOwner="0").
                try {
                    Thread.sleep(200);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    static class Blocker extends Thread {
        Blocker() {
            super("blocker");
        }

        @Override
        public void run() {
            try {
                held.await();
            } catch (InterruptedException e) {
                return;
            }
            synchronized (lock) {
                blockerEntered++;
            }
        }
    }

    static class Waiter extends Thread {
        Waiter() {
            super("waiter");
        }

        @Override
        public void run() {
            synchronized (cond) {
                while (!notified) {
                    waiterWaits++;
                    try {
                        cond.wait();
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }
        }
    }

    static class Timer extends Thread {
        Timer() {
            super("timer");
        }

        @Override
        public void run() {
            synchronized (timerLock) {
                long end = System.nanoTime() + TIMER_MS * 1_000_000;
                long left;
                while ((left = (end - System.nanoTime()) / 1_000_000) > 0) {
                    timerWaits++;
                    timerAsked += left;
                    try {
                        timerLock.wait(left);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }
        }
    }

    public static void main(String[] args) throws InterruptedException {
        Blocker b = new Blocker();
        blocker = b;
        Holder h = new Holder();
        b.start();
        h.start();
        h.join();
        b.join();

        Waiter w = new Waiter();
        w.start();
        while (w.getState() != Thread.State.WAITING) {
            Thread.onSpinWait();
        }
        Thread.sleep(NOTIFY_AFTER_MS);
        synchronized (cond) {
            notified = true;
            cond.notifyAll();
        }
        w.join();

        Timer t = new Timer();
        t.start();
        t.join();

        if (!sawBlocked || blockerEntered != 1) {
            throw new AssertionError("no contention");
        }
        System.out.println("EXPECT contended blocker holder 1");
        System.out.println("EXPECT waits waiter " + waiterWaits);
        System.out.println("EXPECT waited-at-least waiter " + FLOOR_MS);
        System.out.println("EXPECT timed-out waiter 0");
        System.out.println("EXPECT waits timer " + timerWaits);
        System.out.println("EXPECT timed-out timer " + timerWaits);
        System.out.println("EXPECT waited-at-least timer " + timerAsked / 2);
        System.out.println("EXPECT thread-calls holder Monitors$Holder.run 1");
        System.out.println("EXPECT thread-calls blocker Monitors$Blocker.run 1");
        System.out.println("EXPECT exit-code 0");
    }
}
