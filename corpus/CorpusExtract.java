import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.Enumeration;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * Extracts the classes of jars, one JVM for all of them (cargo xtask corpus).
 * Arguments: pairs JAR OUTDIR. Entries under META-INF/ (multi-release variants) and
 * anything that is not a .class file are left out. Prints "JAR n" per jar and
 * "ERROR JAR message" for a jar it cannot read.
 */
public final class CorpusExtract {
    public static void main(String[] args) throws IOException {
        for (int i = 0; i + 1 < args.length; i += 2) {
            Path out = Paths.get(args[i + 1]);
            int n = 0;
            try (ZipFile zip = new ZipFile(args[i])) {
                Enumeration<? extends ZipEntry> entries = zip.entries();
                while (entries.hasMoreElements()) {
                    ZipEntry e = entries.nextElement();
                    String name = e.getName();
                    if (e.isDirectory() || !name.endsWith(".class") || name.startsWith("META-INF/")
                            || name.contains("..") || name.startsWith("/")) {
                        continue;
                    }
                    Path target = out.resolve(name);
                    Files.createDirectories(target.getParent());
                    try (InputStream in = zip.getInputStream(e)) {
                        Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
                    }
                    n++;
                }
                System.out.println(args[i] + " " + n);
            } catch (IOException | RuntimeException e) {
                System.out.println("ERROR " + args[i] + " " + e);
            }
        }
    }
}
