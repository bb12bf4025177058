//! Property tests: the rewriter fed truncated and mutated real class files (compiled from
//! testdata/corpus, java-tests/ and stress/ with JDK 17's javac) never panics, and
//! whatever it emits parses again with the same methods. An `Err` is the agent's cue to
//! load the original bytes untouched (events/classes.rs), so "never panics, and either
//! `Err` or a well-formed class" is the whole contract at this level; the stress suite's
//! ClassFileFuzz case puts the emitted classes before the JVM's verifier.

use super::*;
use proptest::prelude::*;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

const JDK17: &str = "/usr/lib/jvm/java-17-openjdk-amd64";

/// The seed class files, compiled once per test process.
fn seeds() -> &'static [Vec<u8>] {
    static SEEDS: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    SEEDS.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let out = std::env::temp_dir().join(format!("jtrace-fuzz-seeds-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&out);
        // Each directory compiles on its own (testdata/corpus/Main.java needs generated
        // sources, so only Ctors.java is taken from there).
        for (dir, only) in [
            (
                root.join("src/classfile/testdata/corpus"),
                Some("Ctors.java"),
            ),
            (root.join("../java-tests"), None),
            (root.join("../stress"), None),
        ] {
            let mut sources: Vec<PathBuf> = std::fs::read_dir(&dir)
                .expect("seed sources")
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "java"))
                .filter(|p| only.is_none_or(|o| p.file_name().is_some_and(|n| n == o)))
                .collect();
            sources.sort();
            // A missing JDK is a test failure, not a skip (as in tests.rs).
            let ok = Command::new(Path::new(JDK17).join("bin/javac"))
                .arg("-g")
                .arg("-d")
                .arg(&out)
                .args(&sources)
                .status()
                .expect("javac")
                .success();
            assert!(ok, "javac of the seed classes in {} failed", dir.display());
        }
        let mut classes: Vec<Vec<u8>> = std::fs::read_dir(&out)
            .expect("compiled seeds")
            .flatten()
            .filter(|e| e.path().extension().is_some_and(|x| x == "class"))
            .map(|e| std::fs::read(e.path()).expect("class file"))
            .collect();
        classes.sort();
        let _ = std::fs::remove_dir_all(&out);
        assert!(classes.len() >= 10, "only {} seed classes", classes.len());
        classes
    })
}

/// Every method with code gets probes (the agent's widest plan).
fn plan_ids(bytes: &[u8]) -> Option<Vec<Option<u32>>> {
    let info = parse_info(bytes).ok()?;
    Some(
        info.methods
            .iter()
            .enumerate()
            .map(|(i, m)| (m.has_code && m.access & 0x0500 == 0).then_some(i as u32 + 1))
            .collect(),
    )
}

/// The property itself: no panic (proptest reports one as a failure), and an `Ok` is a
/// class that parses again with the same number of methods, the same each time.
fn rewrite_is_sound(bytes: &[u8], lines: bool) -> Result<(), TestCaseError> {
    let Some(ids) = plan_ids(bytes) else {
        // Unparsable: instrument must refuse it too (the agent then loads it untouched).
        let plan = ProbePlan {
            tracker: "jtrace/Tracker",
            method_ids: &[],
            lines,
            pad: false,
            windows: &[],
        };
        prop_assert!(instrument(bytes, &plan).is_err());
        return Ok(());
    };
    let plan = ProbePlan {
        tracker: "jtrace/Tracker",
        method_ids: &ids,
        lines,
        pad: false,
        windows: &[],
    };
    if let Ok(out) = instrument(bytes, &plan) {
        let again = parse_info(&out);
        prop_assert!(
            again.is_ok(),
            "emitted class does not parse: {:?}",
            again.err()
        );
        prop_assert_eq!(again.unwrap().methods.len(), ids.len());
        prop_assert_eq!(instrument(bytes, &plan).ok(), Some(out));
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn truncated_class_files(pick in any::<prop::sample::Index>(), cut in any::<prop::sample::Index>(), lines: bool) {
        let seeds = seeds();
        let b = &seeds[pick.index(seeds.len())];
        let b = &b[..cut.index(b.len())];
        rewrite_is_sound(b, lines)?;
    }

    #[test]
    fn mutated_class_files(
        pick in any::<prop::sample::Index>(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6),
        lines: bool,
    ) {
        let seeds = seeds();
        let mut b = seeds[pick.index(seeds.len())].clone();
        for (at, v) in edits {
            let i = at.index(b.len());
            b[i] = v;
        }
        rewrite_is_sound(&b, lines)?;
    }

    #[test]
    fn unmutated_seeds_rewrite(pick in any::<prop::sample::Index>(), lines: bool) {
        let seeds = seeds();
        let b = &seeds[pick.index(seeds.len())];
        let ids = plan_ids(b).expect("javac output parses");
        let plan = ProbePlan { tracker: "jtrace/Tracker", method_ids: &ids, lines, pad: false, windows: &[] };
        prop_assert!(instrument(b, &plan).is_ok());
        rewrite_is_sound(b, lines)?;
    }
}
