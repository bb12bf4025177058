// A busy program for `cargo xtask test` step control: about 50,000 calls of work() (and
// of other()) per second until the file named by its argument exists, then it prints
// what it did and exits 0. Its output is the same with or without the agent.
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

public class Busy {
    static long works, others;

    static int work(int i) {
        works++;
        return other(i) + 1;
    }

    static int other(int i) {
        others++;
        return i * 31;
    }

    public static void main(String[] args) throws Exception {
        Path flag = Paths.get(args[0]);
        System.out.println("ready");
        long sum = 0;
        int i = 0;
        while (!Files.exists(flag)) {
            for (int k = 0; k < 50; k++) {
                sum += work(i++);
            }
            Thread.sleep(1);
        }
        System.out.println("done " + (works == others && works == i) + " " + (sum != 0));
    }
}
