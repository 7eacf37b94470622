fn main() {
    eprintln!("wmlab: not built yet");
    std::process::exit(2);
}
