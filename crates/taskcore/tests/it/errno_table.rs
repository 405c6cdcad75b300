//! `Errno` against this machine's C library: every Linux errno 1..=133 with
//! its name (`strerrorname_np`) and message (`strerror`), as recorded by
//! `tests/oracle/errno_table.c` into `errno_table.out` (re-record with
//! `tests/oracle/record.sh`).

use taskcore::Errno;

#[test]
fn every_linux_errno_has_its_name_number_and_message() {
    let table = include_str!("oracle/errno_table.out");
    let mut n = 0;
    for line in table.lines() {
        let mut f = line.splitn(3, '\t');
        let (num, name, msg) = (f.next().unwrap(), f.next().unwrap(), f.next().unwrap());
        let num: i32 = num.parse().unwrap();
        let e = Errno::from_i32(num).unwrap_or_else(|| panic!("no Errno for {num} {name}"));
        assert_eq!((e.as_i32(), e.name(), e.message()), (num, name, msg));
        assert_eq!(Errno::from_name(name), Some(e));
        n += 1;
    }
    assert_eq!(n, 131, "1..=133 less 41 and 58");
    for gap in [0, 41, 58, 134, -1] {
        assert_eq!(Errno::from_i32(gap), None);
    }
}
