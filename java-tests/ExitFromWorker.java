// System.exit(3) from a worker while other threads are busy inside traced methods:
// the trace must still be complete (their frames stay open, their threads end after
// runtimeShutdown).
// jtrace-expect-exit: 3
// jtrace-compare-modes: no

import java.util.concurrent.CountDownLatch;

public class ExitFromWorker {
    static final int BUSY = 3;
    static final CountDownLatch busyInside = new CountDownLatch(BUSY);
    static int exitCalls;

    static void tick() throws InterruptedException {
        Thread.sleep(1);
    }

    static void busy() {
        busyInside.countDown();
        try {
            while (true) {
                tick();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static void exitNow(int code) {
        exitCalls++;
        System.out.println("EXPECT calls ExitFromWorker.exitNow " + exitCalls);
        System.out.println("EXPECT calls ExitFromWorker.busy " + BUSY);
        System.out.println("EXPECT exits ExitFromWorker.busy 0");
        System.out.println("EXPECT exits ExitFromWorker.exitNow 0");
        System.out.println("EXPECT thread exiter");
        System.out.println("EXPECT exit-code " + code);
        System.out.flush();
        System.exit(code);
    }

    public static void main(String[] args) throws InterruptedException {
        for (int i = 0; i < BUSY; i++) {
            new Thread(ExitFromWorker::busy, "busy-" + i).start();
            System.out.println("EXPECT thread busy-" + i);
        }
        busyInside.await();
        Thread exiter = new Thread(() -> exitNow(3), "exiter");
        exiter.start();
        exiter.join();
        throw new AssertionError("System.exit returned");
    }
}
