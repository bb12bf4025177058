// Exceptions: one thrown three frames below the frame that catches it (a throw in every
// traced frame it passes through, the catching frame included, a catch there, and exits by
// exception for the frames it unwinds), and one thrown out of a thread's run method, which
// no traced frame catches: run exits by exception and the thread dies of it (the program's
// uncaught-exception handler, itself traced, counts it).

public class ExceptionsDeep {
    static final int ROUNDS = 10;
    static int level1Calls, level2Calls, level3Calls, topCalls, caughtInTop;
    static volatile int uncaught;

    static void level3(int i) {
        level3Calls++;
        throw new IllegalArgumentException("deep " + i);
    }

    static void level2(int i) {
        level2Calls++;
        level3(i);
    }

    static void level1(int i) {
        level1Calls++;
        level2(i);
    }

    static void top(int i) {
        topCalls++;
        try {
            level1(i);
        } catch (IllegalArgumentException e) {
            caughtInTop++;
        }
    }

    static class Worker extends Thread {
        Worker() {
            super("worker");
        }

        static void fail() {
            throw new IllegalStateException("out of run");
        }

        @Override
        public void run() {
            fail();
        }
    }

    static class Handler implements Thread.UncaughtExceptionHandler {
        @Override
        public void uncaughtException(Thread t, Throwable e) {
            if (e instanceof IllegalStateException) {
                uncaught++;
            }
        }
    }

    public static void main(String[] args) throws InterruptedException {
        for (int i = 0; i < ROUNDS; i++) {
            top(i);
        }
        Worker w = new Worker();
        w.setUncaughtExceptionHandler(new Handler());
        w.start();
        w.join();

        int n = caughtInTop;
        System.out.println("EXPECT calls ExceptionsDeep.top " + topCalls);
        System.out.println("EXPECT exits ExceptionsDeep.top " + topCalls);
        System.out.println("EXPECT calls ExceptionsDeep.level1 " + level1Calls);
        System.out.println("EXPECT calls ExceptionsDeep.level2 " + level2Calls);
        System.out.println("EXPECT calls ExceptionsDeep.level3 " + level3Calls);
        System.out.println("EXPECT exits ExceptionsDeep.level3 " + level3Calls);
        for (String m : new String[] {"level3", "level2", "level1"}) {
            System.out.println("EXPECT throws ExceptionsDeep." + m + " " + n);
            System.out.println("EXPECT catches ExceptionsDeep." + m + " 0");
            System.out.println("EXPECT exception-exits ExceptionsDeep." + m + " " + n);
        }
        System.out.println("EXPECT throws ExceptionsDeep.top " + n);
        System.out.println("EXPECT catches ExceptionsDeep.top " + n);
        System.out.println("EXPECT exception-exits ExceptionsDeep.top 0");
        System.out.println("EXPECT max-depth ExceptionsDeep.level3 5");

        int u = uncaught;
        System.out.println("EXPECT thread-calls worker ExceptionsDeep$Worker.run 1");
        System.out.println("EXPECT throws ExceptionsDeep$Worker.fail " + u);
        System.out.println("EXPECT throws ExceptionsDeep$Worker.run " + u);
        System.out.println("EXPECT catches ExceptionsDeep$Worker.run 0");
        System.out.println("EXPECT exits ExceptionsDeep$Worker.run 1");
        System.out.println("EXPECT exception-exits ExceptionsDeep$Worker.fail " + u);
        System.out.println("EXPECT exception-exits ExceptionsDeep$Worker.run " + u);
        System.out.println("EXPECT thread-calls worker ExceptionsDeep$Handler.uncaughtException " + u);
        // The handler itself throws nothing and returns normally.
        System.out.println("EXPECT throws ExceptionsDeep$Handler.uncaughtException 0");
        System.out.println("EXPECT exception-exits ExceptionsDeep$Handler.uncaughtException 0");
        System.out.println("EXPECT exit-code 0");
    }
}
