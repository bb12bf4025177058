// The program `cargo xtask demo` traces: a few threads, recursion, an exception that
// crosses frames and is caught. Run it yourself with
//   java -agentpath:$PWD/target/release/libjtrace.so=out=demo.xml -cp target/demo Demo
import java.util.ArrayList;
import java.util.List;

public class Demo {
    static int fib(int n) {
        return n < 2 ? n : fib(n - 1) + fib(n - 2);
    }

    static int parse(String s) {
        return Integer.parseInt(s);
    }

    static int parseOrZero(String s) {
        try {
            return parse(s);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    static class Worker extends Thread {
        private final int n;
        int result;

        Worker(int n) {
            super("worker-" + n);
            this.n = n;
        }

        @Override
        public void run() {
            result = fib(n) + parseOrZero("x" + n);
        }
    }

    public static void main(String[] args) throws InterruptedException {
        List<Worker> workers = new ArrayList<>();
        for (int i = 10; i < 14; i++) {
            Worker w = new Worker(i);
            workers.add(w);
            w.start();
        }
        int sum = 0;
        for (Worker w : workers) {
            w.join();
            sum += w.result;
        }
        System.out.println("sum of fib(10..13) = " + sum + ", parsed " + parseOrZero("42"));
    }
}
