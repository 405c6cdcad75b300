//! Address spaces against the real kernel: `data/mm-oracle/mmgen.c` made
//! random mmap/munmap/mprotect/mremap/madvise/brk sequences on Linux and
//! recorded every result and the final `/proc/self/maps` of its region
//! (`fixtures.txt.gz`, 200 sequences of 400 operations; re-record with
//! `data/mm-oracle/record.sh`). Each sequence is replayed through
//! [`MmStruct`] and every result and the final maps lines (range, perms,
//! offset, kind of mapping) must be Linux's.
//!
//! `TASKCORE_MM_ORACLE_REPORT=1` reports every failing sequence instead of
//! stopping at the first.

use std::io::Read;

use crate::common::repo;

use taskcore::mm::flags::{MAP_ANONYMOUS, MAP_FIXED, MAP_NORESERVE, MAP_PRIVATE, PROT_NONE};
use taskcore::mm::{render_vma, FileId, MmLayout, MmStruct, MmapFile};

const PG: u64 = 4096;
const NPAGES: u64 = 4096;
/// Where the region lives in the emulation (Linux's was elsewhere: all
/// addresses are compared relative to it). mmgen gives hints only for
/// free ranges, which both kernels honour, so the rest of the address
/// space does not matter.
const BASE: u64 = 0x7f00_0000_0000;
const BRK0: u64 = 0x5555_0000_0000;

struct Seq {
    seed: String,
    file: FileId,
    ops: Vec<String>,
    maps: Vec<String>,
}

/// The recorded sequences (0.9 MB, kept out of the packaged crate), or
/// `None` (skip, said) from a packaged copy.
fn fixtures() -> Option<Vec<Seq>> {
    let path = repo::path("data/mm-oracle/fixtures.txt.gz", "mm_oracle")?;
    let gz = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut text = String::new();
    flate2::read::GzDecoder::new(&gz[..])
        .read_to_string(&mut text)
        .unwrap();
    Some(parse(&text))
}

fn parse(text: &str) -> Vec<Seq> {
    let mut out: Vec<Seq> = Vec::new();
    let mut in_maps = false;
    for l in text.lines() {
        if let Some(s) = l.strip_prefix("SEED ") {
            out.push(Seq {
                seed: s.to_string(),
                file: FileId {
                    major: 0,
                    minor: 0,
                    inode: 0,
                },
                ops: vec![],
                maps: vec![],
            });
            in_maps = false;
        } else if let Some(f) = l.strip_prefix("FILE ") {
            let (dev, ino) = f.split_once(' ').unwrap();
            let (ma, mi) = dev.split_once(':').unwrap();
            out.last_mut().unwrap().file = FileId {
                major: ma.parse().unwrap(),
                minor: mi.parse().unwrap(),
                inode: ino.parse().unwrap(),
            };
        } else if l == "MAPS" {
            in_maps = true;
        } else if in_maps {
            out.last_mut().unwrap().maps.push(l.to_string());
        } else {
            out.last_mut().unwrap().ops.push(l.to_string());
        }
    }
    out
}

/// `key=value` of an op line.
fn kv(words: &[&str], key: &str) -> u64 {
    let w = words
        .iter()
        .find_map(|w| w.strip_prefix(key).and_then(|r| r.strip_prefix('=')))
        .unwrap_or_else(|| panic!("no {key} in {words:?}"));
    if let Some(h) = w.strip_prefix("0x") {
        u64::from_str_radix(h, 16).unwrap()
    } else {
        w.trim_start_matches('@').parse().unwrap()
    }
}

fn page(w: &str) -> u64 {
    w.trim_start_matches('@').parse::<u64>().unwrap()
}

/// The result as the fixture writes it.
fn show_addr(r: taskcore::Result<u64>) -> String {
    match r {
        Ok(a) if (BASE..BASE + NPAGES * PG).contains(&a) => format!("@{}", (a - BASE) / PG),
        Ok(_) => "OUTSIDE".into(),
        Err(e) => e.name().into(),
    }
}

fn show_unit(r: taskcore::Result<()>) -> String {
    match r {
        Ok(()) => "0".into(),
        Err(e) => e.name().into(),
    }
}

/// The region's maps lines as mmgen prints them.
fn maps(mm: &MmStruct) -> Vec<String> {
    let mut out = Vec::new();
    for v in mm.iter() {
        if v.start < BASE || v.start >= BASE + NPAGES * PG {
            continue;
        }
        let mut line = String::new();
        render_vma(&mut line, v).unwrap();
        let f: Vec<&str> = line.split_whitespace().collect();
        let off = u64::from_str_radix(f[2], 16).unwrap();
        let kind = if f[4] == "0" {
            "ANON"
        } else if f.get(5).is_some_and(|p| p.starts_with("/dev/zero")) {
            "SHMEM"
        } else {
            "FILE"
        };
        out.push(format!(
            "{}-{} {} {:x} {}",
            (v.start - BASE) / PG,
            (v.end - BASE) / PG,
            f[1],
            off,
            kind
        ));
    }
    out
}

/// Replays one sequence; the first difference, if any.
fn replay(s: &Seq) -> Result<(), String> {
    let layout = MmLayout {
        start_brk: BRK0 - 16 * PG,
        brk: BRK0,
        ..MmLayout::default()
    };
    let mut mm = MmStruct::new(layout);
    mm.mmap(
        BASE,
        NPAGES * PG,
        PROT_NONE,
        MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE,
        None,
        0,
    )
    .map_err(|e| format!("reservation: {e}"))?;
    let file = MmapFile {
        id: s.file,
        path: "/tmp/mmgen.file".into(),
        readable: true,
        writable: true,
    };
    for (i, line) in s.ops.iter().enumerate() {
        let (call, want) = line.rsplit_once(" = ").unwrap();
        let w: Vec<&str> = call.split_whitespace().collect();
        let at = |x: &str| BASE + page(x) * PG;
        let got = match w[0] {
            "mmap" => {
                let (n, prot, flags) = (page(w[2]), kv(&w, "prot"), kv(&w, "flags"));
                let (is_file, off) = (kv(&w, "file") == 1, kv(&w, "off"));
                let f = is_file.then_some(&file);
                let r = mm.mmap(at(w[1]), n * PG, prot as u32, flags as u32, f, off);
                if let Ok(a) = r {
                    if !(BASE..BASE + NPAGES * PG).contains(&a) {
                        mm.munmap(a, n * PG).unwrap();
                    }
                }
                show_addr(r)
            }
            "munmap" => show_unit(mm.munmap(at(w[1]), page(w[2]) * PG)),
            "mprotect" => show_unit(mm.mprotect(at(w[1]), page(w[2]) * PG, kv(&w, "prot") as u32)),
            "mremap" => {
                let flags = kv(&w, "flags") as u32;
                let to = w
                    .iter()
                    .find(|x| x.starts_with("to="))
                    .map_or(0, |t| at(&t[3..]));
                show_addr(mm.mremap(at(w[1]), page(w[2]) * PG, page(w[3]) * PG, flags, to))
            }
            "madvise_dontneed" => show_unit(mm.madvise_dontneed(at(w[1]), page(w[2]) * PG)),
            "brk" => {
                let d: u64 = w[1].trim_start_matches('+').parse().unwrap();
                let r = mm.brk(BRK0 + d * PG);
                format!("+{}", (r as i64 - BRK0 as i64) / PG as i64)
            }
            other => panic!("unknown op {other}"),
        };
        if got != want {
            return Err(format!(
                "seed {} op {} `{line}`: got {got}\n  maps before the end:\n{}",
                s.seed,
                i + 1,
                maps(&mm).join("\n")
            ));
        }
    }
    mm.brk(BRK0);
    let got = maps(&mm);
    if got != s.maps {
        let first = got
            .iter()
            .zip(&s.maps)
            .position(|(a, b)| a != b)
            .unwrap_or(got.len().min(s.maps.len()));
        return Err(format!(
            "seed {}: final maps differ at line {} ({} lines, Linux {}):\n  core:  {:?}\n  linux: {:?}",
            s.seed,
            first + 1,
            got.len(),
            s.maps.len(),
            &got[first.saturating_sub(1)..(first + 3).min(got.len())],
            &s.maps[first.saturating_sub(1)..(first + 3).min(s.maps.len())]
        ));
    }
    Ok(())
}

#[test]
fn random_sequences_match_linux() {
    let Some(all) = fixtures() else { return };
    assert!(all.len() >= 200 && all.iter().all(|s| s.ops.len() == 400));
    check(&all);
}

/// Records fresh sequences on this machine's kernel (seeds never
/// committed: `TASKCORE_MM_FRESH_SEEDS=FIRST-LAST`, default 1000-1099) and
/// replays them. Needs a C compiler. `cargo test -p taskcore --test
/// mm_oracle -- --ignored`.
#[test]
#[ignore]
fn fresh_sequences_match_linux() {
    let range = std::env::var("TASKCORE_MM_FRESH_SEEDS").unwrap_or_else(|_| "1000-1099".into());
    let (a, b) = range.split_once('-').unwrap();
    let dir = std::env::temp_dir().join(format!("taskcore-mmgen-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("fresh.txt.gz");
    let Some(script) = repo::path("data/mm-oracle/record.sh", "fresh_sequences_match_linux") else {
        return;
    };
    let st = std::process::Command::new("bash")
        .arg(&script)
        .args([a, b, "400"])
        .arg(&out)
        .status()
        .unwrap();
    assert!(st.success());
    let mut text = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(&out).unwrap())
        .read_to_string(&mut text)
        .unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    let all = parse(&text);
    eprintln!("{} fresh sequences", all.len());
    assert!(!all.is_empty());
    check(&all);
}

fn check(all: &[Seq]) {
    let report = std::env::var_os("TASKCORE_MM_ORACLE_REPORT").is_some();
    let mut failed = Vec::new();
    for s in all {
        if let Err(e) = replay(s) {
            if !report {
                panic!("{e}");
            }
            failed.push(e);
        }
    }
    for e in &failed {
        eprintln!("{e}\n");
    }
    assert!(
        failed.is_empty(),
        "{} of {} sequences differ",
        failed.len(),
        all.len()
    );
}
