//! Replays every saved fuzz finding (`fuzz/regressions/<target>/*`) through the same harness
//! the fuzz targets run (`fuzz/src/harness.rs`), on stable: a finding that once crashed, hung
//! or broke an invariant must now pass. The campaign itself (`fuzz/run.sh`) needs nightly and
//! is not part of CI; this replay is.

#[allow(dead_code)]
#[path = "../fuzz/src/harness.rs"]
mod harness;

use std::path::Path;

type Target = (&'static str, fn(&[u8]));

const TARGETS: [Target; 12] = [
    ("load", harness::load),
    ("split", harness::split),
    ("check", harness::check),
    ("mutate", harness::mutate),
    ("template", harness::template),
    ("agx", harness::agx),
    ("cel", harness::cel),
    ("gotmpl", harness::gotmpl),
    ("jq", harness::jq),
    ("jq_eval", harness::jq_eval),
    ("expr_eval", harness::expr_eval),
    ("lsp_change", harness::lsp_change),
];

#[test]
fn every_saved_finding_passes_its_target() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/regressions");
    let mut replayed = 0;
    for (target, run) in TARGETS {
        let dir = root.join(target);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut files: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        files.sort();
        for f in files.iter().filter(|f| f.is_file()) {
            let data = std::fs::read(f).unwrap();
            let outcome = std::panic::catch_unwind(|| run(&data));
            assert!(outcome.is_ok(), "{} fails {target}", f.display());
            replayed += 1;
        }
    }
    eprintln!("replayed {replayed} saved fuzz inputs");
}

#[test]
fn the_harness_accepts_ordinary_inputs() {
    // Each target on a few plain inputs, so that a broken harness shows on stable too.
    let doc = std::fs::read("examples/ags/changelog-release.agraph.yaml").unwrap();
    // The change handler: the document opened, then cut, edited mid-line in both encodings,
    // with ranges past the end and backwards, and replaced whole.
    for first in [0u8, 1] {
        let mut edits = vec![first];
        edits.extend_from_slice(&doc);
        edits.extend_from_slice(b"\0\x01\x05\x03\x05\x09n\xc3\xa9w: [\0\x03\x1f\xff\x00\x00}");
        // An empty edit whose place (line 28, column 16) is on `collect_changes` of
        // `entrypoints`: every request there, a rename included, on the whole document.
        edits.extend_from_slice(b"\0\x01\x1c\x10\x1c\x10");
        edits.extend_from_slice(b"\0nodes: {a: {depends_on: [b]}}\0\x01\x00\x04\x00\x02");
        harness::lsp_change(&edits);
    }
    harness::load(&doc);
    harness::split(&doc);
    harness::check(&doc);
    for seed in 0u8..12 {
        let bytes: Vec<u8> = (0..64u8)
            .map(|i| i.wrapping_mul(seed).wrapping_add(seed))
            .collect();
        harness::mutate(&bytes);
        harness::check(&bytes);
        harness::load(&bytes);
    }
    harness::template(b"a ${{ params.x }} b");
    harness::agx(b"nodes.in.outputs.x == 1");
    harness::cel(b"a.b + 1 > 2");
    harness::gotmpl(b"{{ .x }}");
    harness::jq(b".a | .b");
    harness::jq_eval(b"def f: [f]; f");
    harness::jq_eval(b"[.a[] | tostring]");
    harness::expr_eval(b"\x00params.n + 1");
    harness::expr_eval(b"\x01x.map(a, x.map(b, a + b))");
}
