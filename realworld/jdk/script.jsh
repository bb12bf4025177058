// jtrace realworld corpus: a jshell session read from a file (methods, records, lambdas,
// streams, exceptions), each snippet compiled by javac inside jshell and run in its agent JVM.
int sq(int x) { return x * x; }
record P(int a, String b) {}
var list = java.util.stream.IntStream.rangeClosed(1, 10).map(x -> sq(x)).boxed().toList();
System.out.println("squares " + list);
System.out.println(new P(3, "x"));
try { Integer.parseInt("x"); } catch (NumberFormatException e) { System.out.println("caught " + e.getMessage()); }
String joined = String.join(",", java.util.List.of("a", "b", "c"));
System.out.println(joined.toUpperCase());
/exit
