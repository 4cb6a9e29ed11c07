/* include/infiniband/ib_user_ioctl_verbs.h: hand-written (include/hand/infiniband/ib_user_ioctl_verbs.h), copied by tools/gen-headers.
 * Do not edit: edit rdma-abi or include/hand/ and run `cargo run -p gen-headers`. */
/*
 * <infiniband/ib_user_ioctl_verbs.h>: the kernel's ioctl-verbs uAPI as
 * libibverbs' headers see it.
 *
 * rdma-core installs a copy of its own kernel-headers/ under this name. We
 * do not ship kernel headers: this file takes the system's
 * <rdma/ib_user_ioctl_verbs.h> (linux-libc-dev on Debian) and adds the few
 * names that libibverbs-dev's copy has and an older uAPI header lacks, so
 * that code written against rdma-core 65's copy still builds on Debian 12
 * (Linux 6.1 uAPI). Each addition is made only when <linux/version.h>
 * (from the same kernel headers package) says the uAPI predates it; that
 * header's LINUX_VERSION_CODE and KERNEL_VERSION come along with this one.
 *
 * Not supplied here, because they cannot be, or are too new to place:
 *  - struct ib_uverbs_query_port_resp_ex: 65's copy (Linux 6.7 and later)
 *    splits the 6 reserved bytes into reserved[2] and active_speed_ex; the
 *    struct is the kernel's, its size is the same either way;
 *  - IB_UVERBS_CORE_SUPPORT_ROBUST_UDATA, enum ib_uverbs_buffer_type,
 *    struct ib_uverbs_buffer_desc and the completion-counter enums
 *    (ib_uverbs_comp_cntr_entry, ib_uverbs_comp_cntr_modify_op,
 *    ib_uverbs_qp_attach_comp_cntr_op), added to the uAPI in 2026: they
 *    are there when the installed uAPI header has them.
 *
 * The kernel header's include guard is IB_USER_IOCTL_VERBS_H, the name
 * rdma-core's copy uses too, so this file needs a guard of its own.
 */
#ifndef INFINIBAND_IB_USER_IOCTL_VERBS_H
#define INFINIBAND_IB_USER_IOCTL_VERBS_H

#include <linux/version.h>
#include <rdma/ib_user_ioctl_verbs.h>

/* Versions below are LINUX_VERSION_CODE values, one hex byte per part:
 * 0x060200 is Linux 6.2.0, 0x061200 is 6.18.0. */
#if LINUX_VERSION_CODE < 0x060200
/* Linux 6.2: the FLUSH access bits (values of ib_uverbs_access_flags) and
 * the MANA driver id (a value of rdma_driver_id). */
enum {
	IB_UVERBS_ACCESS_FLUSH_GLOBAL = 1 << 8,
	IB_UVERBS_ACCESS_FLUSH_PERSISTENT = 1 << 9,
};
enum {
	RDMA_DRIVER_MANA = 20,
};
#endif

#if LINUX_VERSION_CODE < 0x061200
/* Linux 6.18: the ionic driver id, next after MANA's. */
enum {
	RDMA_DRIVER_IONIC = 21,
};
#endif

#endif /* INFINIBAND_IB_USER_IOCTL_VERBS_H */
