// Windows in bounded memory: a window that outgrows window-max= is not written (and its
// thread holds no more), a failing window is still kept, and a window still running when
// the JVM exits is written as open once over: has kept it.
// jtrace-options: window=WinBounded.handle,keep=over:300ms|exception,window-max=64k,waits=off
// jtrace-compare-modes: no

public class WindowsBounded {
    public static void main(String[] args) throws Exception {
        Thread huge = new Thread(() -> WinBounded.handle(0, 200_000), "bounded-huge");
        huge.start();
        huge.join();
        Thread fails = new Thread(() -> {
            try {
                WinBounded.handle(1, 0);
            } catch (IllegalStateException expected) {
                // kept by keep=exception
            }
        }, "bounded-throw");
        fails.start();
        fails.join();
        Thread open = new Thread(() -> WinBounded.handle(2, 3), "bounded-open");
        open.setDaemon(true);
        open.start();
        synchronized (WinBounded.class) {
            while (!WinBounded.spinning) {
                WinBounded.class.wait();
            }
        }
        Thread.sleep(700);
        System.out.println("EXPECT windows bounded-huge -");
        System.out.println("EXPECT windows bounded-throw 2:threw");
        System.out.println("EXPECT windows bounded-open 4:open");
        System.out.println("EXPECT end-count windowsSeen 3");
        System.out.println("EXPECT end-count windowsKept 2");
        System.out.println("EXPECT end-count windowsKeptOver 1");
        System.out.println("EXPECT end-count windowsKeptException 1");
        System.out.println("EXPECT end-count windowsTooLarge 1");
        System.out.println("EXPECT end-count windowsOpenAtClose 1");
    }
}

class WinBounded {
    static volatile boolean spinning;
    static long sink;

    static void handle(int kind, int calls) {
        for (int i = 0; i < calls; i++) {
            leaf(i);
        }
        if (kind == 1) {
            fail();
        }
        if (kind == 2) {
            synchronized (WinBounded.class) {
                spinning = true;
                WinBounded.class.notifyAll();
            }
            while (true) {
                sink++;
            }
        }
    }

    static void leaf(int i) {
        sink += i;
    }

    static void fail() {
        throw new IllegalStateException("kept");
    }
}
