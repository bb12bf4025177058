// For `cargo xtask test` step control, case stop-while-deep: main -> outer -> middle -> inner,
// where inner waits (sleeping) until the file named by its argument exists. A trace stopped
// meanwhile ends with those four calls open; the next trace sees them return. It prints
// "ready" once inside inner and "done N" at the end (N: inner's polls, at least 1).
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

public class Nested {
    static int polls;

    static void outer(Path flag) throws InterruptedException {
        middle(flag);
    }

    static void middle(Path flag) throws InterruptedException {
        inner(flag);
    }

    static void inner(Path flag) throws InterruptedException {
        System.out.println("ready");
        while (!Files.exists(flag)) {
            polls++;
            Thread.sleep(5);
        }
    }

    public static void main(String[] args) throws Exception {
        outer(Paths.get(args[0]));
        System.out.println("done " + (polls > 0));
    }
}
