// mode=jvmti cannot be served after attach (a running JVM refuses JVMTI method
// events): jcmd must report the failure, nothing is written, and the program runs on.
// jtrace-attach: refused
// jtrace-trace: none
// jtrace-expect-stderr: mode=jvmti needs the agent at JVM start
// jtrace-stdout: sum 9900

public class AttachJvmtiRefused {
    static int work(int i) {
        return i * 2;
    }

    public static void main(String[] args) throws Exception {
        System.out.println("READY");
        System.out.flush();
        Thread.sleep(1500);
        int s = 0;
        for (int i = 0; i < 100; i++) {
            s += work(i);
        }
        System.out.println("sum " + s);
    }
}
