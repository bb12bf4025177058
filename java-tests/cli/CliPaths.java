// The program `cargo xtask test` traces to test a large flame graph in `report --html`
// (xtask/src/steps/cli_tests.rs, `flame_page`): 16 methods calling each other three deep
// through `go`, 8,738 distinct call paths, each leaf spinning at least 100 us so every
// path is wide enough to be drawn (inferno leaves out frames under 1/12,000 of the
// whole: a leaf is about 1/4,500 of it, with room for a loaded machine's delays). Its
// graph's SVG is past the 2 MB a `data:` URL holds,
// so the page shows it through its frame's `srcdoc`.
// Prints EXPECT lines (exact calls per method) and TRUTH paths N (its distinct
// root-to-method paths, counted by construction).
// jtrace-options: waits=off
// jtrace-stdout: TRUTH *
// jtrace-compare-modes: no
// jtrace-timeout: 120
public class CliPaths {
    static final int N = 16;
    static final int DEPTH = 2;
    static long sink;

    public static void main(String[] args) {
        for (int i = 0; i < N; i++) {
            go(i, DEPTH);
        }
        // main, main;go, then at each depth N methods under each go, a go under each
        // method but the deepest, and a spin under each of the deepest.
        long paths = 2;
        long width = 1;
        for (int d = DEPTH; d >= 0; d--) {
            width *= N;
            paths += 2 * width;
        }
        // go(i, d) runs at depths DEPTH..0: once at the top, N times more a level down.
        long calls = 0;
        long at = 1;
        for (int d = DEPTH; d >= 0; d--) {
            calls += at;
            at *= N;
        }
        System.out.println("EXPECT calls CliPaths.main 1");
        System.out.println("EXPECT calls CliPaths.go " + N * calls);
        System.out.println("EXPECT calls CliPaths.spin " + at);
        for (int i = 0; i < N; i++) {
            System.out.println("EXPECT calls CliPaths.handleRequestThroughStageNumber"
                    + (i < 10 ? "0" : "") + i + " " + calls);
        }
        System.out.println("TRUTH paths " + paths);
    }

    static void go(int i, int d) {
        switch (i) {
            case 0: handleRequestThroughStageNumber00(d); break;
            case 1: handleRequestThroughStageNumber01(d); break;
            case 2: handleRequestThroughStageNumber02(d); break;
            case 3: handleRequestThroughStageNumber03(d); break;
            case 4: handleRequestThroughStageNumber04(d); break;
            case 5: handleRequestThroughStageNumber05(d); break;
            case 6: handleRequestThroughStageNumber06(d); break;
            case 7: handleRequestThroughStageNumber07(d); break;
            case 8: handleRequestThroughStageNumber08(d); break;
            case 9: handleRequestThroughStageNumber09(d); break;
            case 10: handleRequestThroughStageNumber10(d); break;
            case 11: handleRequestThroughStageNumber11(d); break;
            case 12: handleRequestThroughStageNumber12(d); break;
            case 13: handleRequestThroughStageNumber13(d); break;
            case 14: handleRequestThroughStageNumber14(d); break;
            case 15: handleRequestThroughStageNumber15(d); break;
            default: throw new IllegalArgumentException("method " + i);
        }
    }

    static void handleRequestThroughStageNumber00(int d) {
        if (d > 0) {
            for (int j = 0; j < N; j++) {
                go(j, d - 1);
            }
        } else {
            spin();
        }
    }

    static void handleRequestThroughStageNumber01(int d) {
        if (d > 0) {
            for (int j = 0; j < N; j++) {
                go(j, d - 1);
            }
        } else {
            spin();
        }
    }

    static void handleRequestThroughStageNumber02(int d) {
        if (d > 0) {
            for (int j = 0; j < N; j++) {
                go(j, d - 1);
            }
        } else {
            spin();
        }
    }

    static void handleRequestThroughStageNumber03(int d) {
        if (d > 0) {
            for (int j = 0; j < N; j++) {
                go(j, d - 1);
            }
        } else {
            spin();
        }
    }

    static void handleRequestThroughStageNumber04(int d) {
        if (d > 0) {
            for (int j = 0; j < N; j++) {
                go(j, d - 1);
            }
        } else {
            spin();
        }
    }

    static void handleRequestThroughStageNumber05(int d) {
        if (d > 0) {
            for (int j = 0; j < N; j++) {
                go(j, d - 1);
            }
        } else {
            spin();
        }
    }

    static void handleRequestThroughStageNumber06(int d) {
        if (d > 0) {
            for (int j = 0; j < N; j++) {
                go(j, d - 1);
            }
        } else {
            spin();
        }
    }

    static void handleRequestThroughStageNumber07(int d) {
        if (d > 0) {
            for (int j = 0; j < N; j++) {
                go(j, d - 1);
            }
        } else {
            spin();
        }
    }

    static void handleRequestThroughStageNumber08(int d) {
        if (d > 0) {
            for (int j = 0; j < N; j++) {
                go(j, d - 1);
            }
        } else {
            spin();
        }
    }

    static void handleRequestThroughStageNumber09(int d) {
        if (d > 0) {
            for (int j = 0; j < N; j++) {
                go(j, d - 1);
            }
        } else {
            spin();
        }
    }

    static void handleRequestThroughStageNumber10(int d) {
        if (d > 0) {
            for (int j = 0; j < N; j++) {
                go(j, d - 1);
            }
        } else {
            spin();
        }
    }

    static void handleRequestThroughStageNumber11(int d) {
        if (d > 0) {
            for (int j = 0; j < N; j++) {
                go(j, d - 1);
            }
        } else {
            spin();
        }
    }

    static void handleRequestThroughStageNumber12(int d) {
        if (d > 0) {
            for (int j = 0; j < N; j++) {
                go(j, d - 1);
            }
        } else {
            spin();
        }
    }

    static void handleRequestThroughStageNumber13(int d) {
        if (d > 0) {
            for (int j = 0; j < N; j++) {
                go(j, d - 1);
            }
        } else {
            spin();
        }
    }

    static void handleRequestThroughStageNumber14(int d) {
        if (d > 0) {
            for (int j = 0; j < N; j++) {
                go(j, d - 1);
            }
        } else {
            spin();
        }
    }

    static void handleRequestThroughStageNumber15(int d) {
        if (d > 0) {
            for (int j = 0; j < N; j++) {
                go(j, d - 1);
            }
        } else {
            spin();
        }
    }

    static void spin() {
        long end = System.nanoTime() + 100_000;
        while (System.nanoTime() < end) {
            sink++;
        }
    }
}
