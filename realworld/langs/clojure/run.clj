;; Loads demo/core.clj from source (compiling every form at run time) and runs it.
(require 'demo.core)
(demo.core/-main)
