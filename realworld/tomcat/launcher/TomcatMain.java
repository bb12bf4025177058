import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import org.apache.catalina.Context;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;

/**
 * Embedded Tomcat serving the web application in args[0] (deployed from its directory, so
 * its classes load through Tomcat's WebappClassLoader) on 127.0.0.1 and an ephemeral port.
 * Prints "PORT n" once it serves, and shuts down cleanly when standard input closes.
 */
public class TomcatMain {
    public static void main(String[] args) throws Exception {
        Tomcat tomcat = new Tomcat();
        tomcat.setBaseDir(new File("tc").getAbsolutePath());
        Connector connector = new Connector();
        connector.setPort(0);
        connector.setProperty("address", "127.0.0.1");
        tomcat.setConnector(connector);
        tomcat.getHost().setAutoDeploy(false);
        Context ctx = tomcat.addWebapp("/app", new File(args[0]).getAbsolutePath());
        tomcat.start();
        System.out.println("PORT " + connector.getLocalPort());
        System.out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        while (in.readLine() != null) {
            // Serve until the harness closes our standard input.
        }
        tomcat.stop();
        tomcat.destroy();
        System.out.println("stopped " + ctx.getName());
    }
}
