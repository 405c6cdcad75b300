//! The failure-atomicity property over every public core operation, as a
//! property test on stable (the same decoder the `core_api` and `mm` fuzz
//! targets use): random call sequences with arbitrary arguments; after each
//! call the invariants hold, and a call that failed changed nothing
//! observable and raised no notification (`mprotect`, which Linux applies
//! in part, excepted).

use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn failed_core_calls_change_nothing(data in prop::collection::vec(any::<u8>(), 0..3000)) {
        taskcore_fuzz::core_api(&data);
    }

    #[test]
    fn failed_memory_calls_change_nothing(data in prop::collection::vec(any::<u8>(), 0..3000)) {
        taskcore_fuzz::mm(&data);
    }
}
