// Define before use across threads, and one class one classDef (issue 23): 4 starter threads
// start 100 worker threads between them while allocating, and every id one thread's records
// name is defined by another thread's: each worker's Thread object (allocated by its starter,
// named by the worker's threadStart), an exception a starter allocates and its worker throws,
// one lock object that main allocates and every worker contends for, and a thread whose
// Thread object main names (waits on) before its threadStart does. The workers allocate
// arrays of the program's own classes before those classes are linked (Item[] and Item[][]
// ahead of the first Item), an int[], and their own exceptions.
//
// Ground truth: every figure is counted by the program (counters under a lock). Under
// alloc=exact the trace must hold each allocation once, filed under its element class
// (Spawner$Item for Item[], the class [LSpawner$Item; for Item[][], int for int[]), with
// one classDef per class and every id defined before use (the harness runs tracecheck).
// jtrace-options: alloc=exact
// jtrace-jvm-args: -XX:-DoEscapeAnalysis
// jtrace-compare-modes: no

public class Spawner {
    static final int STARTERS = 4;
    static final int PER_STARTER = 25;
    static final int ITEMS = 5;

    static final class Item {
        final int id;

        Item(int id) {
            this.id = id;
        }
    }

    static final class Boom extends RuntimeException {
        Boom(String why) {
            super(why, null, false, false);
        }
    }

    static final class Lock {}

    static final Object COUNT = new Object();
    static Lock lock;
    static int workCalls, items, itemArrays, itemMatrices, intArrays, booms, thrown, workers;
    static long shared;
    /** Sinks: nothing the workers allocate can be optimised away. */
    static final Object[] SINK = new Object[STARTERS * PER_STARTER];

    static final class Worker extends Thread {
        final int slot;
        final Boom given;

        Worker(int slot, Boom given) {
            super("worker-" + slot);
            this.slot = slot;
            this.given = given;
        }

        @Override
        public void run() {
            work(slot, given);
        }
    }

    /** Allocated by main, waited on by main, then started (see `main`). */
    static final class Waiter extends Thread {
        Waiter() {
            super("waiter");
        }

        @Override
        public void run() {}
    }

    static final class Starter extends Thread {
        final int first;

        Starter(int first) {
            super("starter-" + first);
            this.first = first;
        }

        @Override
        public void run() {
            Worker[] started = new Worker[PER_STARTER];
            for (int i = 0; i < PER_STARTER; i++) {
                // The exception is allocated here and thrown by the worker.
                Boom b = new Boom("given " + (first + i));
                started[i] = new Worker(first + i, b);
                synchronized (COUNT) {
                    booms++;
                    workers++;
                }
                started[i].start();
            }
            for (Worker w : started) {
                try {
                    w.join();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }
        }
    }

    static void work(int slot, Boom given) {
        Item[] row = new Item[ITEMS];
        Item[][] grid = new Item[2][2];
        int[] ints = new int[4];
        for (int i = 0; i < ITEMS; i++) {
            row[i] = new Item(slot * 100 + i);
        }
        grid[0][0] = row[0];
        ints[0] = row.length;
        SINK[slot] = new Object[] {row, grid, ints};
        try {
            throw given;
        } catch (Boom b) {
            count(0);
        }
        try {
            fail(slot);
        } catch (Boom b) {
            count(0);
        }
        for (int i = 0; i < 50; i++) {
            synchronized (lock) {
                shared += ints[0];
                Thread.onSpinWait();
            }
        }
        synchronized (COUNT) {
            workCalls++;
            items += ITEMS;
            itemArrays += 1 + 2; // row, and the two rows of grid
            itemMatrices++;
            intArrays++;
        }
    }

    static void fail(int slot) {
        synchronized (COUNT) {
            booms++;
        }
        throw new Boom("own " + slot);
    }

    static void count(int unused) {
        synchronized (COUNT) {
            thrown++;
        }
    }

    public static void main(String[] args) throws Exception {
        // The allocating thread's own record (main's monWait) names the Thread object
        // first; the waiter's threadStart, another stream, names it next and must
        // still find main's objAlloc published ahead of it.
        Waiter waiter = new Waiter();
        synchronized (waiter) {
            waiter.wait(1);
        }
        waiter.start();
        waiter.join();
        lock = new Lock();
        Starter[] starters = new Starter[STARTERS];
        for (int s = 0; s < STARTERS; s++) {
            starters[s] = new Starter(s * PER_STARTER);
        }
        for (Starter s : starters) {
            s.start();
        }
        for (Starter s : starters) {
            s.join();
        }
        System.out.println("EXPECT threads-named worker- " + workers);
        System.out.println("EXPECT threads-named starter- " + STARTERS);
        System.out.println("EXPECT each-thread-calls worker- Spawner.work 1");
        System.out.println("EXPECT calls Spawner.work " + workCalls);
        System.out.println("EXPECT allocs Spawner$Worker 0 " + workers);
        System.out.println("EXPECT allocs Spawner$Starter 0 " + STARTERS);
        System.out.println("EXPECT allocs Spawner$Lock 0 1");
        System.out.println("EXPECT allocs Spawner$Waiter 0 1");
        System.out.println("EXPECT allocs Spawner$Item 0 " + items);
        System.out.println("EXPECT allocs Spawner$Item 2 " + itemArrays);
        System.out.println("EXPECT allocs [LSpawner$Item; 2 " + itemMatrices);
        System.out.println("EXPECT allocs - 10 " + intArrays);
        System.out.println("EXPECT allocs Spawner$Boom 0 " + booms);
        System.out.println("EXPECT thrown Spawner$Boom " + thrown);
        System.out.println("EXPECT allocs Spawner$Worker 2 " + STARTERS);
        System.out.println("EXPECT classdefs Spawner$Item 1");
        System.out.println("EXPECT classdefs Spawner$Boom 1");
        System.out.println("EXPECT classdefs [LSpawner$Item; 1");
        System.out.println("EXPECT exit-code 0");
    }
}
