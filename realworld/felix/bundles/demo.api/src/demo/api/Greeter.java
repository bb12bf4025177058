package demo.api;

/** The service interface the impl bundle provides and the client bundle calls. */
public interface Greeter {
    String greet(String who);
}
