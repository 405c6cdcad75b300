//! The crate whose cold `cargo build -j2` is data/traces/wide/cargo-build-sig.
use serde::{Deserialize, Serialize};

#[derive(Debug, Serialize, Deserialize, PartialEq)]
struct Task {
    pid: i32,
    name: String,
    children: Vec<Task>,
}

fn main() {
    let t = Task {
        pid: 1,
        name: "init".into(),
        children: vec![Task { pid: 2, name: "sh".into(), children: vec![] }],
    };
    let s = serde_json::to_string(&t).unwrap();
    let back: Task = serde_json::from_str(&s).unwrap();
    assert_eq!(t, back);
    println!("{s}");
}
