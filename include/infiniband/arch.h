/* include/infiniband/arch.h: hand-written (include/hand/infiniband/arch.h), copied by tools/gen-headers.
 * Do not edit: edit rdma-abi or include/hand/ and run `cargo run -p gen-headers`. */
/* placeholder */
