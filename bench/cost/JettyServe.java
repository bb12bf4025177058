package cost;

import java.io.IOException;
import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.servlet.ServletContextHandler;
import org.eclipse.jetty.servlet.ServletHolder;

/**
 * Attach cell's server: Jetty 9 serving one servlet on PORT until killed; prints
 * "ready" once it accepts requests.
 *
 * Usage: java -cp jetty9 jars:servlet-api.jar:. cost.JettyServe PORT
 */
public final class JettyServe {
    public static final class Hello extends HttpServlet {
        @Override
        protected void doGet(final HttpServletRequest req, final HttpServletResponse resp)
                throws IOException {
            final StringBuilder b = new StringBuilder();
            for (int i = 0; i < 20; i++) {
                b.append(Integer.toHexString(req.getRequestURI().hashCode() + i));
            }
            resp.setContentType("text/plain");
            resp.getWriter().println(b);
        }
    }

    public static void main(final String[] args) throws Exception {
        final Server server = new Server(Integer.parseInt(args[0]));
        final ServletContextHandler ctx = new ServletContextHandler();
        ctx.addServlet(new ServletHolder(new Hello()), "/*");
        server.setHandler(ctx);
        server.start();
        System.out.println("ready");
        server.join();
    }
}
