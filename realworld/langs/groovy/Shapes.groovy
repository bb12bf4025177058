// jtrace realworld corpus: Groovy classes for groovyc (traits, closures, dynamic dispatch).
trait Named { String describe() { "${getClass().simpleName}(${area()})" } }

abstract class Shape implements Named { abstract BigDecimal area() }

class Rect extends Shape {
    BigDecimal w, h
    BigDecimal area() { w * h }
}

class Circle extends Shape {
    BigDecimal r
    BigDecimal area() { 3 * r * r }
}

class Shapes {
    static long fib(int n) { n < 2 ? n : fib(n - 1) + fib(n - 2) }

    static void main(String[] args) {
        def shapes = (1..5).collect { it % 2 == 0 ? new Rect(w: it, h: it + 1) : new Circle(r: it) }
        println "fibs ${(1..20).collect { fib(it) }.join(',')}"
        println "shapes ${shapes*.describe().join(' ')}"
        println "total ${shapes.sum { it.area() }}"
        try {
            shapes.first().noSuchMethod()
        } catch (MissingMethodException e) {
            println "caught ${e.method}"
        }
        def groups = 'mississippi'.toList().groupBy { it }.collectEntries { k, v -> [k, v.size()] }
        println "freqs ${groups.sort()}"
    }
}
