//! Multiprogrammed systems (seed 002): job streams, processor schedulers and page policies.
