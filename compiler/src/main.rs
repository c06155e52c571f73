fn main() {
    std::process::exit(agc::cli::main());
}
