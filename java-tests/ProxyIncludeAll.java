// The smallest form of the include=* ClassCircularityError: one JDK proxy created in
// main with every class traced. Rewriting the first class of java.base makes HotSpot
// give the module its default read edges through Modules.transformedByAgent, which
// needs java.lang.Module$ReflectionData; if that very class is the one being rewritten,
// the JVM caches a ClassCircularityError and module reflection stays broken. The program
// must run exactly as without the agent. It also calls a method by reflection often
// enough that JDK 17 generates a reflection accessor class (in a loader of its own,
// jdk.internal.reflect.DelegatingClassLoader), which include=* traces too.
// jtrace-options: include=*
// jtrace-compare-modes: no
// jtrace-timeout: 120

import java.lang.reflect.Proxy;
import java.util.function.IntSupplier;

public class ProxyIncludeAll {
    static int invoked;
    static int reflected;

    public static int viaReflection(int x) {
        reflected++;
        return x + 1;
    }

    public static void main(String[] args) throws Exception {
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
        java.lang.reflect.Method m = ProxyIncludeAll.class.getMethod("viaReflection", int.class);
        for (int i = 0; i < 40; i++) {
            s += (Integer) m.invoke(null, i);
        }
        System.err.println("sum " + s);
        System.out.println("EXPECT calls ProxyIncludeAll.viaReflection " + reflected);
        System.out.println("EXPECT calls ProxyIncludeAll.lambda$main$0 " + invoked);
        System.out.println("EXPECT exit-code 0");
    }
}
