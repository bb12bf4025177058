package demo;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/** A filter in the chain: adds a header counting the requests it saw. */
public class UpperFilter implements Filter {
    private int seen;

    @Override
    public void doFilter(ServletRequest req, ServletResponse resp, FilterChain chain)
            throws IOException, ServletException {
        int n;
        synchronized (this) {
            n = ++seen;
        }
        ((HttpServletResponse) resp).setHeader("X-Seen", Integer.toString(n));
        chain.doFilter(req, resp);
    }
}
