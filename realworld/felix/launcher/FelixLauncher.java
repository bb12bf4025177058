import java.io.File;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.launch.Framework;
import org.osgi.framework.launch.FrameworkFactory;

/**
 * Embeds the Felix framework the way applications do (the OSGi launch API): installs the
 * bundle jars named on the command line, starts them in order, stops them in reverse order,
 * stops the framework, and prints each bundle's state on the way.
 */
public class FelixLauncher {
    static String state(Bundle b) {
        switch (b.getState()) {
            case Bundle.INSTALLED: return "INSTALLED";
            case Bundle.RESOLVED: return "RESOLVED";
            case Bundle.STARTING: return "STARTING";
            case Bundle.STOPPING: return "STOPPING";
            case Bundle.ACTIVE: return "ACTIVE";
            case Bundle.UNINSTALLED: return "UNINSTALLED";
            default: return "?";
        }
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> config = new HashMap<>();
        config.put("org.osgi.framework.storage", "felix-cache");
        config.put("org.osgi.framework.storage.clean", "onFirstInit");
        FrameworkFactory factory = ServiceLoader.load(FrameworkFactory.class).iterator().next();
        Framework framework = factory.newFramework(config);
        framework.start();
        BundleContext context = framework.getBundleContext();
        List<Bundle> bundles = new ArrayList<>();
        for (String jar : args) {
            bundles.add(context.installBundle(new File(jar).toURI().toString()));
        }
        int failures = 0;
        for (Bundle b : bundles) {
            try {
                b.start();
            } catch (Exception e) {
                failures++;
                Throwable root = e;
                while (root.getCause() != null) {
                    root = root.getCause();
                }
                System.out.println("start " + b.getSymbolicName() + " failed: " + root);
            }
            System.out.println(b.getSymbolicName() + " " + state(b));
        }
        for (int i = bundles.size() - 1; i >= 0; i--) {
            Bundle b = bundles.get(i);
            b.stop();
            System.out.println(b.getSymbolicName() + " " + state(b));
        }
        framework.stop();
        framework.waitForStop(30000);
        System.out.println("framework " + state(framework));
        System.exit(failures == 0 ? 0 : 1);
    }
}
