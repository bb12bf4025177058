// Helper of the class-file fuzz case (not a test of its own): loads each mutated class
// listed in args[0] ("INDEX<TAB>DIR<TAB>NAME" lines) in a fresh loader over DIR and the
// stress classes, and links it (getDeclaredMethods; run with -Xverify:all). Prints
// "INDEX OK", "INDEX FAIL message" (VerifyError / ClassFormatError) or
// "INDEX OTHER message" per class. The runner compares a run without the agent with one
// under it: a class the JVM accepts untraced must be accepted traced.
// jtrace-stdout: *

import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

public class StressVerifyMutants {
    public static void main(String[] args) throws Exception {
        URL self = StressVerifyMutants.class.getProtectionDomain().getCodeSource().getLocation();
        for (String line : Files.readAllLines(Paths.get(args[0]))) {
            String[] f = line.split("\t");
            Path dir = Paths.get(f[1]);
            String verdict;
            try (URLClassLoader loader = new URLClassLoader(
                    new URL[] {dir.toUri().toURL(), self}, ClassLoader.getPlatformClassLoader())) {
                Class<?> c = Class.forName(f[2], false, loader);
                c.getDeclaredMethods();
                verdict = "OK";
            } catch (VerifyError | ClassFormatError e) {
                verdict = "FAIL " + oneLine(e);
            } catch (Throwable t) {
                verdict = "OTHER " + oneLine(t);
            }
            System.out.println(f[0] + " " + verdict);
        }
    }

    static String oneLine(Throwable t) {
        return t.toString().replace('\n', ' ').replace('\r', ' ');
    }
}
