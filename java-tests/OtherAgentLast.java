// OtherAgentFirst with the other agent after jtrace on the command line.
// jtrace-javaagent: OtherAgentFirst$Agent last
// jtrace-compare-modes: no

public class OtherAgentLast {
    public static void main(String[] args) throws Exception {
        OtherAgentFirst.run("OtherAgentLast");
    }
}
