//! The `taskcore` command.

fn main() {
    eprintln!("usage: taskcore <replay|bench|proc> ...");
    std::process::exit(2);
}
