// Several named threads, each making a different number of calls to the same methods.

public class Threads {
    static final int WORKERS = 4;
    /** One slot per worker, written only by that worker. */
    static final int[] stepCalls = new int[WORKERS];
    static final int[] helperCalls = new int[WORKERS];

    static int step(int worker, int x) {
        stepCalls[worker]++;
        return helper(worker, x) + 1;
    }

    static int helper(int worker, int x) {
        helperCalls[worker]++;
        return x * 3;
    }

    public static void main(String[] args) throws InterruptedException {
        Thread[] threads = new Thread[WORKERS];
        long[] sinks = new long[WORKERS];
        for (int i = 0; i < WORKERS; i++) {
            final int w = i;
            final int n = 200 * (i + 1);
            threads[i] = new Thread(() -> {
                long sum = 0;
                for (int k = 0; k < n; k++) {
                    sum += step(w, k);
                }
                sinks[w] = sum;
            }, "worker-" + i);
        }
        for (Thread t : threads) {
            t.start();
        }
        for (Thread t : threads) {
            t.join();
        }
        int total = 0;
        for (int i = 0; i < WORKERS; i++) {
            System.out.println("EXPECT thread worker-" + i);
            System.out.println("EXPECT thread-calls worker-" + i + " Threads.step " + stepCalls[i]);
            System.out.println("EXPECT thread-calls worker-" + i + " Threads.helper " + helperCalls[i]);
            total += stepCalls[i];
        }
        System.out.println("EXPECT thread-calls main Threads.step 0");
        System.out.println("EXPECT calls Threads.step " + total);
        System.out.println("EXPECT exits Threads.step " + total);
        System.out.println("EXPECT calls Threads.step(II)I " + total);
        System.out.println("EXPECT exit-code 0");
    }
}
