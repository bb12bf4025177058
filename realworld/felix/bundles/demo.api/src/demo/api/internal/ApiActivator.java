package demo.api.internal;

import org.osgi.framework.BundleActivator;
import org.osgi.framework.BundleContext;

public class ApiActivator implements BundleActivator {
    public void start(BundleContext ctx) {
        System.out.println("api: started, fib(15) = " + demo.api.Calc.fib(15));
    }

    public void stop(BundleContext ctx) {
        System.out.println("api: stopped");
    }
}
