//! Replays every input of the fuzz corpora (`fuzz/corpus/TARGET/*`) and the
//! crash reproducers (`fuzz/regressions/TARGET/*`) through its target, on
//! stable: what once crashed must not crash again.

use std::path::Path;

#[test]
fn every_corpus_input_runs_clean() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz");
    let mut total = 0;
    for (name, target) in taskcore_fuzz::TARGETS {
        let mut n = 0;
        for dir in ["corpus", "regressions"] {
            let d = root.join(dir).join(name);
            let Ok(rd) = std::fs::read_dir(&d) else {
                continue;
            };
            let mut files: Vec<_> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
            files.sort();
            for f in files {
                // A running fuzzer may replace corpus files meanwhile.
                let Ok(data) = std::fs::read(&f) else {
                    continue;
                };
                let r = std::panic::catch_unwind(|| target(&data));
                assert!(r.is_ok(), "{}: target {name} panicked", f.display());
                n += 1;
            }
        }
        assert!(n > 0, "no corpus for target {name}");
        total += n;
    }
    eprintln!("{total} corpus inputs replayed");
}
