// Windows with keep=sample:1/4: one window in four, chosen as it opens (counted; each
// kept window's calls checked by the checker against its own tags).
// jtrace-options: window=WinRequests.handle,keep=sample:1/4,waits=off
// jtrace-compare-modes: no

public class WindowsSample {
    public static void main(String[] args) throws Exception {
        Windows.serve(new String[] {}, 4);
    }
}
