//! Compiles the shipped example graph into `OUT_DIR/release.rs` (and its plan), again whenever
//! the graph changes; its diagnostics show as cargo warnings and errors, and an error fails
//! the build.

fn main() -> Result<(), agc_build::Error> {
    agc_build::Builder::new("../ags/changelog-release.agraph.yaml")
        .module("release")
        .compile()?;
    Ok(())
}
