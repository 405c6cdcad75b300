//! The `taskcore` command.

mod strace;

fn main() {
    eprintln!("usage: taskcore <replay|bench|proc> ...");
    std::process::exit(2);
}
