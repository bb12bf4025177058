// The smallest form of the include=* ClassCircularityError: one JDK proxy created in
// main with every class traced. Rewriting the first class of java.base makes HotSpot
// give the module its default read edges through Modules.transformedByAgent, which
// needs java.lang.Module$ReflectionData; if that very class is the one being rewritten,
// the JVM caches a ClassCircularityError and module reflection stays broken. The program
// must run exactly as without the agent.
// jtrace-options: include=*
// jtrace-compare-modes: no
// jtrace-timeout: 120

import java.lang.reflect.Proxy;
import java.util.function.IntSupplier;

public class ProxyIncludeAll {
    static int invoked;

    public static void main(String[] args) {
        IntSupplier p =
                (IntSupplier)
                        Proxy.newProxyInstance(
                                ProxyIncludeAll.class.getClassLoader(),
                                new Class<?>[] {IntSupplier.class},
                                (proxy, m, a) -> ++invoked);
        int s = 0;
        for (int i = 0; i < 5; i++) {
            s += p.getAsInt();
        }
        System.err.println("sum " + s);
        System.out.println("EXPECT calls ProxyIncludeAll.lambda$main$0 " + invoked);
        System.out.println("EXPECT exit-code 0");
    }
}
