package demo.client;

import demo.api.Greeter;
import org.osgi.framework.BundleActivator;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;

/** Finds the Greeter service another bundle registered and calls it across bundles. */
public class ClientActivator implements BundleActivator {
    public void start(BundleContext ctx) {
        ServiceReference<Greeter> ref = ctx.getServiceReference(Greeter.class);
        Greeter g = ctx.getService(ref);
        System.out.println("client: " + g.greet("osgi") + " (" + ref.getProperty("flavour") + ")");
        ctx.ungetService(ref);
    }

    public void stop(BundleContext ctx) {
        System.out.println("client: stopped");
    }
}
