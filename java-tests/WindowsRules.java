// Windows with keep=over:200ms|exception: the slow requests and the failing ones, each
// kept window with its exact calls; nothing else (see Windows.java).
// jtrace-options: window=WinRequests.handle,keep=over:200ms|exception,waits=off
// jtrace-compare-modes: no

public class WindowsRules {
    public static void main(String[] args) throws Exception {
        Windows.serve(new String[] {"over", "exception"}, 0);
    }
}
