;; jtrace realworld corpus: a Clojure program (protocols, records, lazy seqs, atoms,
;; exceptions, eval: every form compiles into classes of Clojure's DynamicClassLoader).
(ns demo.core
  (:require [clojure.string :as str])
  (:gen-class))

(defprotocol Shape (area [s]))
(defrecord Rect [w h] Shape (area [_] (* w h)))
(defrecord Circle [r] Shape (area [_] (* 3 r r)))

(defn fib [n] (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2)))))

(defn -main [& args]
  (let [counter (atom 0)
        shapes (for [i (range 1 6)] (if (even? i) (->Rect i (inc i)) (->Circle i)))]
    (println "fibs" (str/join "," (map fib (range 1 21))))
    (println "areas" (str/join "," (map area shapes)))
    (doseq [s shapes] (swap! counter + (area s)))
    (println "total" @counter)
    (println "caught" (try (/ 1 0) (catch ArithmeticException e (.getMessage e))))
    (println "eval" (eval (read-string "(reduce + (map #(* % %) (range 10)))")))
    (println "freqs" (into (sorted-map) (frequencies "mississippi")))))
