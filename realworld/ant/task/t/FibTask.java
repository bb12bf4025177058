package t;

import java.io.FileWriter;
import java.io.IOException;
import org.apache.tools.ant.BuildException;
import org.apache.tools.ant.Task;

/** A custom Ant task: computes fib(n), sets a property and writes a file. */
public class FibTask extends Task {
    private int n;
    private String property;
    private String file;

    public void setN(int n) {
        this.n = n;
    }

    public void setProperty(String property) {
        this.property = property;
    }

    public void setFile(String file) {
        this.file = file;
    }

    static long fib(int k) {
        return k < 2 ? k : fib(k - 1) + fib(k - 2);
    }

    @Override
    public void execute() throws BuildException {
        long v = fib(n);
        getProject().setNewProperty(property, Long.toString(v));
        try (FileWriter w = new FileWriter(getProject().resolveFile(file))) {
            w.write("fib(" + n + ") = " + v + "\n");
        } catch (IOException e) {
            throw new BuildException(e);
        }
        log("computed fib(" + n + ")");
    }
}
