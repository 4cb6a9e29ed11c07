/* include/infiniband/sa-kern-abi.h: hand-written (include/hand/infiniband/sa-kern-abi.h), copied by tools/gen-headers.
 * Do not edit: edit rdma-abi or include/hand/ and run `cargo run -p gen-headers`. */
/*
 * <infiniband/sa-kern-abi.h>: the old names of the kernel's path record
 * struct. The struct itself is the kernel uAPI's struct ib_user_path_rec
 * (<rdma/ib_user_sa.h>, from the kernel headers package); both old names
 * are macros for it.
 */
#ifndef INFINIBAND_SA_KERN_ABI_H
#define INFINIBAND_SA_KERN_ABI_H

#warning "This header is obsolete, use rdma/ib_user_sa.h instead"

#include <rdma/ib_user_sa.h>

#define ib_kern_path_rec ib_user_path_rec
#define ibv_kern_path_rec ib_user_path_rec

#endif /* INFINIBAND_SA_KERN_ABI_H */
