package demo.impl;

import demo.api.Greeter;
import demo.util.Strings;
import java.util.Hashtable;
import org.osgi.framework.BundleActivator;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;

/** Registers a Greeter service whose implementation stays private to this bundle. */
public class ImplActivator implements BundleActivator {
    private ServiceRegistration<Greeter> registration;

    static final class ReversingGreeter implements Greeter {
        public String greet(String who) {
            return "hello " + who + " / " + Strings.reverse(who);
        }
    }

    public void start(BundleContext ctx) {
        Hashtable<String, Object> props = new Hashtable<>();
        props.put("flavour", "reversing");
        registration = ctx.registerService(Greeter.class, new ReversingGreeter(), props);
        System.out.println("impl: registered greeter");
    }

    public void stop(BundleContext ctx) {
        registration.unregister();
        System.out.println("impl: unregistered greeter");
    }
}
