// jtrace realworld corpus: a Kotlin program (data and sealed classes, lambdas, extension
// functions, sequences, exceptions) compiled by kotlinc and run by the kotlin runner.
package demo

sealed class Shape { abstract fun area(): Double }
data class Rect(val w: Double, val h: Double) : Shape() { override fun area() = w * h }
data class Circle(val r: Double) : Shape() { override fun area() = 3 * r * r }

fun fib(n: Int): Long = if (n < 2) n.toLong() else fib(n - 1) + fib(n - 2)

fun Shape.describe(): String = when (this) {
    is Rect -> "rect($w,$h)"
    is Circle -> "circle($r)"
}

fun main(args: Array<String>) {
    val shapes = (1..5).map { if (it % 2 == 0) Rect(it.toDouble(), it + 1.0) else Circle(it.toDouble()) }
    println("fibs " + (1..20).map(::fib).joinToString(","))
    println("shapes " + shapes.joinToString(" ") { it.describe() })
    println("total " + shapes.sumByDouble { it.area() })
    try { println(1 / args.size) } catch (e: ArithmeticException) { println("caught " + e.message) }
    println("freqs " + "mississippi".groupingBy { it }.eachCount().toSortedMap())
    println("sevens " + generateSequence(1) { it + 1 }.filter { it % 7 == 0 }.take(5).toList())
}
