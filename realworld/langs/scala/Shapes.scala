// jtrace realworld corpus: a Scala program (case classes, pattern matching, closures,
// collections, exceptions) compiled by scalac and run by the scala runner.
sealed trait Shape { def area: Double }
case class Rect(w: Double, h: Double) extends Shape { def area: Double = w * h }
case class Circle(r: Double) extends Shape { def area: Double = 3 * r * r }

object Shapes {
  def fib(n: Int): Long = if (n < 2) n else fib(n - 1) + fib(n - 2)

  def describe(s: Shape): String = s match {
    case Rect(w, h) if w == h => s"square($w)"
    case Rect(w, h)           => s"rect($w,$h)"
    case Circle(r)            => s"circle($r)"
  }

  def main(args: Array[String]): Unit = {
    val shapes = (1 to 5).map(i => if (i % 2 == 0) Rect(i, i + 1) else Circle(i))
    println("fibs " + (1 to 20).map(fib).mkString(","))
    println("shapes " + shapes.map(describe).mkString(" "))
    println("total " + shapes.map(_.area).sum)
    try { println(1 / args.length) } catch { case e: ArithmeticException => println("caught " + e.getMessage) }
    println("freqs " + "mississippi".groupBy(identity).mapValues(_.length).toSeq.sorted.mkString(","))
    val lazyStream = Stream.from(1).filter(_ % 7 == 0).take(5).toList
    println("sevens " + lazyStream.mkString(","))
  }
}
