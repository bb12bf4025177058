// A server for `cargo xtask test` step control, case ring-dump: one worker handles
// requests (window=RingServer.handle, one window each, in order) until the file named by
// its first argument exists. After request 400 it dumps the agent's ring itself
// (jtrace.Trace.dump to its second argument) and prints "SELF 400"; the step then dumps
// it from outside (jtrace dump). At the end it prints each request's calls, counted in
// handle() and step(): the truth every dump's windows are compared with.
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

public class RingServer {
    static final int SELF = 400;
    static int sink;

    static final class Req {
        final int i;
        int calls;

        Req(int i) {
            this.i = i;
        }
    }

    static void handle(Req r) {
        r.calls++;
        for (int k = 0; k < 200 + r.i % 7; k++) {
            step(r, k);
        }
    }

    static void step(Req r, int k) {
        r.calls++;
        sink += k;
    }

    public static void main(String[] args) throws Exception {
        Path flag = Paths.get(args[0]);
        List<Integer> calls = new ArrayList<>();
        Thread worker = new Thread(() -> {
            for (int i = 0; !Files.exists(flag); i++) {
                Req r = new Req(i);
                handle(r);
                calls.add(r.calls);
                if (i + 1 == SELF) {
                    boolean dumped = jtrace.Trace.dump(args[1]);
                    System.out.println("SELF " + SELF + " " + dumped);
                }
                if (i % 20 == 0) {
                    try {
                        Thread.sleep(1);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }
        }, "ring-worker");
        System.out.println("ready");
        worker.start();
        worker.join();
        StringBuilder b = new StringBuilder("CALLS");
        for (int c : calls) {
            b.append(' ').append(c);
        }
        System.out.println(b);
    }
}
