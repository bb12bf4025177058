// Hello world: the smallest traced program.
// jtrace-stdout: Hello, world!

public class Hello {
    static int greetCalls;

    static String greet(String who) {
        greetCalls++;
        return "Hello, " + who + "!";
    }

    public static void main(String[] args) {
        System.out.println(greet("world"));
        System.out.println("EXPECT calls Hello.main 1");
        System.out.println("EXPECT calls Hello.greet " + greetCalls);
        System.out.println("EXPECT exits Hello.greet " + greetCalls);
        System.out.println("EXPECT max-depth Hello.greet 2");
        System.out.println("EXPECT thread main");
        System.out.println("EXPECT exit-code 0");
    }
}
