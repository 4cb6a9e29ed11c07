/* include/infiniband/sa-kern-abi.h: hand-written (include/hand/infiniband/sa-kern-abi.h), copied by tools/gen-headers.
 * Do not edit: edit rdma-abi or include/hand/ and run `cargo run -p gen-headers`. */
/* placeholder */
