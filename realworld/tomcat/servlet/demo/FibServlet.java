package demo;

import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpSession;
import java.io.FileWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.Map;
import java.util.TreeMap;

/** Computes from the query string, throws and catches on bad input, logs every request. */
public class FibServlet extends HttpServlet {
    private final Map<Integer, Long> cache = new TreeMap<>();

    static long fib(int n) {
        return n < 2 ? n : fib(n - 1) + fib(n - 2);
    }

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp)
            throws ServletException, IOException {
        String q = req.getParameter("n");
        int n;
        try {
            n = Integer.parseInt(q);
        } catch (NumberFormatException e) {
            resp.sendError(400, "not a number: " + q);
            return;
        }
        long v;
        synchronized (cache) {
            v = cache.computeIfAbsent(n % 25, FibServlet::fib);
        }
        resp.setContentType("text/plain;charset=UTF-8");
        PrintWriter w = resp.getWriter();
        w.println("fib(" + (n % 25) + ") = " + v);
        w.println("path " + req.getRequestURI() + " method " + req.getMethod());
        String log = getServletContext().getRealPath("/requests.log");
        synchronized (FibServlet.class) {
            try (FileWriter f = new FileWriter(log, true)) {
                f.write(q + " " + v + "\n");
            }
        }
    }
}
