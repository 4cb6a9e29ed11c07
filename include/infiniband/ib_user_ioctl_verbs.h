/* include/infiniband/ib_user_ioctl_verbs.h: hand-written (include/hand/infiniband/ib_user_ioctl_verbs.h), copied by tools/gen-headers.
 * Do not edit: edit rdma-abi or include/hand/ and run `cargo run -p gen-headers`. */
/* placeholder */
