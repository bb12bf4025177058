package demo.app;

import demo.api.Calc;
import demo.util.Strings;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleActivator;
import org.osgi.framework.BundleContext;

/** Calls two other bundles' exported packages, throws and catches across them. */
public class AppActivator implements BundleActivator {
    public void start(BundleContext ctx) {
        System.out.println("app: squares " + Strings.squares(8));
        try {
            Calc.checkedDivide(1, 0);
        } catch (IllegalArgumentException e) {
            System.out.println("app: caught " + e.getMessage());
        }
        StringBuilder names = new StringBuilder();
        for (Bundle b : ctx.getBundles()) {
            names.append(b.getSymbolicName()).append(' ');
        }
        System.out.println("app: bundles " + names.toString().trim());
        Runnable r = () -> System.out.println("app: lambda fib(20) = " + Calc.fib(20));
        r.run();
    }

    public void stop(BundleContext ctx) {
        System.out.println("app: stopped");
    }
}
