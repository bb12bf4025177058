// jtrace realworld corpus: a Groovy script (compiled at run time by GroovyClassLoader).
import groovy.transform.CompileStatic

@CompileStatic
long fib(int n) { n < 2 ? n : fib(n - 1) + fib(n - 2) }

def memo = [:].withDefault { k -> fib(k as int) }
println "fibs ${(1..20).collect { memo[it] }.join(',')}"
def shell = new GroovyShell()
println "eval ${shell.evaluate('(1..10).inject(0) { a, b -> a + b * b }')}"
def expando = new Expando(name: 'x')
expando.greet = { -> "hello ${name}" }
println expando.greet()
println "json-ish ${[a: 1, b: [2, 3]].inspect()}"
