// A jar's resource extracted once per content into a directory only this user can write.
package jtrace.agent;

import java.io.File;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.CodeSource;
import java.util.Locale;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * Where the {@code -javaagent} jar puts its library (and the listener's registration), and the
 * Maven and Gradle plugins the agent jar and the jtrace command they carry: under
 * {@code ${java.io.tmpdir}/jtrace-${user.name}/} (or {@code -Djtrace.extractPath=DIR}), in a
 * directory named by the content's SHA-256, written to a temporary file there and renamed into
 * place, so that two JVMs or builds at once never see half a file and a later one reuses it.
 *
 * <p>What is found there is loaded or run without reading it again, so the directory must be
 * this user's alone: it is created {@code rwx------}, and refused (an {@link IOException}
 * naming it) when it is a symbolic link, is not owned by this process's user, or can be
 * written by its group or others: on a shared {@code /tmp}, another user could otherwise
 * put a library or a command there first. No regular expression on the way: the first one
 * costs a JVM's start several milliseconds.
 */
public final class Extract {
    private Extract() {}

    /** This machine's platform directory ({@code linux-x86_64}), or null when jtrace has none. */
    public static String platform() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        String o = os.startsWith("linux") ? "linux" : os.startsWith("mac") ? "macos" : null;
        String a = arch.equals("amd64") || arch.equals("x86_64") ? "x86_64"
                : arch.equals("aarch64") || arch.equals("arm64") ? "aarch64" : null;
        return o == null || a == null ? null : o + "-" + a;
    }

    /** The extraction root for this user, checked (created if missing). */
    public static Path root() throws IOException {
        String base = System.getProperty("jtrace.extractPath");
        Path root = base != null && !base.isEmpty()
                ? Paths.get(base)
                : Paths.get(System.getProperty("java.io.tmpdir"),
                        "jtrace-" + fileName(System.getProperty("user.name", "user")));
        // Numeric ids and mode bits: a user name lookup (NSS: LDAP, sssd) can take far
        // longer than a JVM's start should.
        Map<String, Object> a;
        try {
            a = unix(root);
            if (a == null) {
                try {
                    Files.createDirectories(root, PosixFilePermissions.asFileAttribute(
                            PosixFilePermissions.fromString("rwx------")));
                } catch (FileAlreadyExistsException e) {
                    // Made at the same moment by another JVM: checked below as any.
                }
                a = unix(root);
                if (a == null) {
                    throw new IOException(root + " vanished as it was made");
                }
            }
        } catch (UnsupportedOperationException e) {
            Files.createDirectories(root);
            return root; // No POSIX owner and mode to check on this file system.
        }
        int mode = (Integer) a.get("mode");
        if ((mode & 0170000) != 0040000) {
            throw new IOException(root + " is not a directory");
        }
        if ((mode & 0022) != 0) {
            throw new IOException(root + " can be written by other users (chmod go-w it, or "
                    + "choose another with -Djtrace.extractPath=DIR)");
        }
        int owner = (Integer) a.get("uid");
        int me = self(root);
        if (owner != me) {
            throw new IOException(root + " belongs to user id " + owner + ", not to " + me
                    + " (choose another with -Djtrace.extractPath=DIR)");
        }
        return root;
    }

    /** {@code path}'s Unix mode and owner, not following a link; null if it is missing. */
    private static Map<String, Object> unix(Path path) throws IOException {
        try {
            return Files.readAttributes(path, "unix:mode,uid", LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return null;
        }
    }

    /** This process's user id: the owner of /proc/self, or of a file made in {@code dir}. */
    private static int self(Path dir) throws IOException {
        try {
            return (Integer) Files.getAttribute(Paths.get("/proc/self"), "unix:uid");
        } catch (IOException | UnsupportedOperationException e) {
            Path probe = Files.createTempFile(dir, "owner", ".probe");
            try {
                return (Integer) Files.getAttribute(probe, "unix:uid",
                        LinkOption.NOFOLLOW_LINKS);
            } finally {
                Files.deleteIfExists(probe);
            }
        }
    }

    /**
     * {@code resource} of {@code owner}'s jar at {@code ROOT/SUM/name}, written there first if
     * it is not there yet; made executable when asked.
     */
    public static Path extract(Class<?> owner, String resource, String sum, String name,
            boolean executable) throws IOException {
        if (sum.length() != 64 || !only(sum, "0123456789abcdef")) {
            throw new IOException("the checksum of " + resource + " is malformed");
        }
        Path dir = root().resolve(sum);
        Path file = dir.resolve(name);
        if (Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)
                && (!executable || Files.isExecutable(file))) {
            return file;
        }
        Files.createDirectories(dir);
        // Not Files.createTempFile: its name comes from a SecureRandom, whose providers
        // cost a JVM's first start about 13 ms. A name of this process's clock, created
        // only if new, is as safe here: the directory is this user's alone.
        Path tmp = null;
        OutputStream out = null;
        for (int i = 0; out == null; i++) {
            tmp = dir.resolve(name + "." + System.nanoTime() + "." + i + ".part");
            try {
                out = Files.newOutputStream(tmp, StandardOpenOption.CREATE_NEW,
                        StandardOpenOption.WRITE);
            } catch (FileAlreadyExistsException e) {
                if (i >= 100) {
                    throw e;
                }
            }
        }
        try {
            try (OutputStream o = out; InputStream in = open(owner, resource)) {
                if (in == null) {
                    throw new IOException("the jar has no " + resource);
                }
                // Large writes: the library is megabytes, read whole at a first start.
                byte[] buffer = new byte[1 << 18];
                for (int n; (n = in.read(buffer)) > 0; ) {
                    o.write(buffer, 0, n);
                }
            }
            if (executable && !tmp.toFile().setExecutable(true, true)) {
                throw new IOException("cannot make " + tmp + " executable");
            }
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp);
        }
        return file;
    }

    /**
     * {@code resource} of {@code owner}'s jar, read from the jar file itself where the class
     * came from one (a resource URL's connection costs a first start about 4 ms), else
     * through the class's loader; null if there is no such resource.
     */
    private static InputStream open(Class<?> owner, String resource) throws IOException {
        try {
            CodeSource source = owner.getProtectionDomain().getCodeSource();
            URL at = source == null ? null : source.getLocation();
            if (at != null && at.getProtocol().equals("file") && at.getPath().endsWith(".jar")
                    && resource.startsWith("/")) {
                ZipFile jar = new ZipFile(new File(at.toURI()));
                ZipEntry entry = jar.getEntry(resource.substring(1));
                if (entry == null) {
                    jar.close();
                    return null;
                }
                return new FilterInputStream(jar.getInputStream(entry)) {
                    @Override
                    public void close() throws IOException {
                        try {
                            super.close();
                        } finally {
                            jar.close();
                        }
                    }
                };
            }
        } catch (URISyntaxException | IllegalArgumentException | SecurityException e) {
            // Not a plain file: the loader reads it.
        }
        return owner.getResourceAsStream(resource);
    }

    /** Whether every character of {@code s} is one of {@code chars}. */
    private static boolean only(String s, String chars) {
        for (int i = 0; i < s.length(); i++) {
            if (chars.indexOf(s.charAt(i)) < 0) {
                return false;
            }
        }
        return true;
    }

    /** {@code s} with every character but letters, digits, '.', '_' and '-' made '_'. */
    private static String fileName(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean ok = c < 128 && (Character.isLetterOrDigit(c) || c == '.' || c == '_' || c == '-');
            b.append(ok ? c : '_');
        }
        return b.toString();
    }
}
