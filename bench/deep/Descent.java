import java.util.Random;

/** The deep cell of cargo xtask bench (--deep): a recursive-descent parser over generated expression texts, hundreds of frames deep with millions of distinct call paths. */
public class Descent {
    final String s; int p;
    Descent(String s) { this.s = s; }

    static void gen(StringBuilder b, Random r, int depth) {
        int k = depth > 60 ? 0 : r.nextInt(7);
        switch (k) {
            case 0: case 1: b.append((char) ('a' + r.nextInt(26))); break;
            case 2: b.append('('); gen(b, r, depth + 1); b.append(')'); break;
            case 3: b.append('('); gen(b, r, depth + 1); b.append('+'); gen(b, r, depth + 1); b.append(')'); break;
            case 4: b.append('('); gen(b, r, depth + 1); b.append('*'); gen(b, r, depth + 1); b.append(')'); break;
            case 5: b.append('-'); gen(b, r, depth + 1); break;
            default: b.append('f').append('['); gen(b, r, depth + 1); b.append(',');
                     gen(b, r, depth + 1); b.append(']');
        }
    }

    int expr() { int v = term(); while (p < s.length() && s.charAt(p) == '+') { p++; v += term(); } return v; }
    int term() { int v = unary(); while (p < s.length() && s.charAt(p) == '*') { p++; v ^= unary(); } return v; }
    int unary() { if (s.charAt(p) == '-') { p++; return -unary(); } return primary(); }
    int primary() {
        char c = s.charAt(p);
        if (c == '(') { p++; int v = expr(); p++; return v; }
        if (c == 'f') { p += 2; return call(); }
        return atom();
    }
    int call() { int a = expr(); p++; int b = expr(); p++; return a * 31 + b; }
    int atom() { return s.charAt(p++) - 'a'; }

    public static void main(String[] a) {
        int rounds = Integer.parseInt(a[0]);
        Random r = new Random(42);
        long sum = 0;
        for (int i = 0; i < rounds; i++) {
            StringBuilder b = new StringBuilder();
            while (b.length() < 2000) { if (b.length() > 0) b.append('+'); gen(b, r, 0); }
            sum += new Descent(b.toString()).expr();
        }
        System.out.println("sum " + sum);
    }
}
