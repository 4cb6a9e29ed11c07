/* include/infiniband/verbs_api.h: hand-written (include/hand/infiniband/verbs_api.h), copied by tools/gen-headers.
 * Do not edit: edit rdma-abi or include/hand/ and run `cargo run -p gen-headers`. */
/* placeholder */
