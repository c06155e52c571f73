/// Runs before `main`, and before the Rust runtime's first allocation (see
/// [`agc::memory::commit_on_demand`]).
#[cfg(target_os = "linux")]
#[used]
#[unsafe(link_section = ".init_array")]
static COMMIT_ON_DEMAND: extern "C" fn() = {
    extern "C" fn before_main() {
        agc::memory::commit_on_demand();
    }
    before_main
};

fn main() {
    agc::memory::tune();
    std::process::exit(agc::cli::main());
}

/// mimalloc: agc allocates millions of small nodes (documents, spans, IR) and frees them in
/// bulk; glibc's allocator spends a large share of a 100k-node build in `malloc_consolidate`
/// and page faults (measured with `bench/scale.sh`). Wrapped in a per-thread byte count, which
/// the memory limit of an expression evaluation reads (`agc_runtime::held`).
#[global_allocator]
static GLOBAL: agc_runtime::held::Counting<mimalloc::MiMalloc> =
    agc_runtime::held::Counting(mimalloc::MiMalloc);
