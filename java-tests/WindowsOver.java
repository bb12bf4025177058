// Windows with keep=over:200ms: only the requests that spun 400 ms are written, each
// with its exact calls, decided while recording (see Windows.java).
// jtrace-options: window=WinRequests.handle,keep=over:200ms,waits=off
// jtrace-compare-modes: no

public class WindowsOver {
    public static void main(String[] args) throws Exception {
        Windows.serve(new String[] {"over"}, 0);
    }
}
