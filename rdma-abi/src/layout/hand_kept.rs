//! Layout checks kept by hand: no probe prints them, so nothing regenerates
//! this file. Each section names where its numbers come from; change them
//! only together with the C layout they describe.

/// The ibacm messages of `<infiniband/acm.h>` (rdma-core 44's
/// `librdmacm/acm.h`), a header no probe compiles against (Debian's
/// librdmacm-dev does not install it): sizes and offsets counted by hand.
mod acm {
    use crate::acm::*;
    use crate::verbs::ibv_path_data;

    crate::assert_layout!(acm_hdr, size = 16, align = 8, length = 6, tid = 8);
    crate::assert_layout!(acm_ep_addr_data, size = 72, align = 8, type_ = 4, info = 8);
    // The lengths acm.h defines are those of the structs they measure: the
    // header, and an endpoint entry, which a path record also fills.
    crate::assert_layout!(acm_hdr, size = ACM_MSG_HDR_LENGTH);
    crate::assert_layout!(acm_ep_addr_data, size = ACM_MSG_EP_LENGTH);
    crate::assert_layout!(ibv_path_data, size = ACM_MSG_EP_LENGTH);
}

/// librdmacm's private CM header for AF_IB, `struct ib_connect_hdr` of
/// rdma-core 44's `librdmacm/cma.h` (not installed): sent in private data, so
/// its layout is the wire format between librdmacm peers. Counted by hand.
mod cma {
    use crate::cma::ib_connect_hdr;

    crate::assert_layout!(
        ib_connect_hdr,
        size = 36,
        align = 4,
        ip_version = 1,
        src_addr = 4,
        dst_addr = 20
    );
}

/// Types of `ucma.rs` that exist only in Rust.
mod ucma {
    use crate::ucma::ucma_query_path_buf;

    // The QUERY_PATH response header, then room for six path records.
    crate::assert_layout!(ucma_query_path_buf, size = 8 + 6 * 72);
}

/// `kern.rs`: what the probe's numbers imply rather than print.
mod kern {
    use crate::kern::*;
    use core::mem::offset_of;

    // The attribute array (`hdr.attrs`) starts right after the struct.
    crate::assert_layout!(
        ibv_command_buffer,
        size = offset_of!(ibv_command_buffer, hdr) + offset_of!(ib_uverbs_ioctl_hdr, attrs)
    );
}

/// `kern.rs`: the ids and enums rdma-core 65.0's `kernel-headers/` add to
/// the ioctl protocol (DMA handles, dma-buf export, REG_MR, port speed,
/// completion counters). The kern probe compiles against 44's headers, which
/// lack them; the values were read from 65's `rdma/ib_user_ioctl_cmds.h`
/// and `rdma/ib_user_ioctl_verbs.h` and compared once with gcc against them.
mod kern_v65 {
    use crate::kern::*;

    crate::assert_consts!(
        UVERBS_OBJECT_DMAH = 17,
        UVERBS_ATTR_GET_CONTEXT_FD_ARR = 2,
        UVERBS_ATTR_CREATE_CQ_BUFFER_VA = 8,
        UVERBS_ATTR_CREATE_CQ_BUFFER_LENGTH = 9,
        UVERBS_ATTR_CREATE_CQ_BUFFER_FD = 10,
        UVERBS_ATTR_CREATE_CQ_BUFFER_OFFSET = 11,
        UVERBS_OBJECT_DMABUF = 18,
        UVERBS_OBJECT_COMP_CNTR = 19,
        UVERBS_METHOD_QUERY_PORT_SPEED = 7,
        UVERBS_METHOD_QUERY_COMP_CNTR_CAPS = 8,
        UVERBS_ATTR_QUERY_PORT_SPEED_PORT_NUM = 0,
        UVERBS_ATTR_QUERY_PORT_SPEED_RESP = 1,
        UVERBS_ATTR_QUERY_COMP_CNTR_CAPS_MAX_COUNTERS = 0,
        UVERBS_ATTR_QUERY_COMP_CNTR_CAPS_MAX_VALUE = 1,
        UVERBS_ATTR_QUERY_COMP_CNTR_CAPS_SUPPORTED_QP_ATTACH_OPS = 2,
        UVERBS_METHOD_QP_ATTACH_COMP_CNTR = 2,
        UVERBS_ATTR_QP_ATTACH_COMP_CNTR_HANDLE = 0,
        UVERBS_ATTR_QP_ATTACH_COMP_CNTR_CNTR_HANDLE = 1,
        UVERBS_ATTR_QP_ATTACH_COMP_CNTR_OP_MASK = 2,
        UVERBS_ATTR_ALLOC_DMAH_HANDLE = 0,
        UVERBS_ATTR_ALLOC_DMAH_CPU_ID = 1,
        UVERBS_ATTR_ALLOC_DMAH_TPH_MEM_TYPE = 2,
        UVERBS_ATTR_ALLOC_DMAH_PH = 3,
        UVERBS_ATTR_FREE_DMA_HANDLE = 0,
        UVERBS_METHOD_DMAH_ALLOC = 0,
        UVERBS_METHOD_DMAH_FREE = 1,
        UVERBS_ATTR_ALLOC_DMABUF_HANDLE = 0,
        UVERBS_ATTR_ALLOC_DMABUF_PGOFF = 1,
        UVERBS_METHOD_DMABUF_ALLOC = 0,
        UVERBS_METHOD_REG_MR = 5,
        UVERBS_ATTR_REG_MR_HANDLE = 0,
        UVERBS_ATTR_REG_MR_PD_HANDLE = 1,
        UVERBS_ATTR_REG_MR_DMA_HANDLE = 2,
        UVERBS_ATTR_REG_MR_IOVA = 3,
        UVERBS_ATTR_REG_MR_ADDR = 4,
        UVERBS_ATTR_REG_MR_LENGTH = 5,
        UVERBS_ATTR_REG_MR_ACCESS_FLAGS = 6,
        UVERBS_ATTR_REG_MR_FD = 7,
        UVERBS_ATTR_REG_MR_FD_OFFSET = 8,
        UVERBS_ATTR_REG_MR_RESP_LKEY = 9,
        UVERBS_ATTR_REG_MR_RESP_RKEY = 10,
        UVERBS_METHOD_COMP_CNTR_CREATE = 0,
        UVERBS_METHOD_COMP_CNTR_DESTROY = 1,
        UVERBS_METHOD_COMP_CNTR_MODIFY = 2,
        UVERBS_METHOD_COMP_CNTR_READ = 3,
        UVERBS_ATTR_CREATE_COMP_CNTR_HANDLE = 0,
        UVERBS_ATTR_DESTROY_COMP_CNTR_HANDLE = 0,
        UVERBS_ATTR_MODIFY_COMP_CNTR_HANDLE = 0,
        UVERBS_ATTR_MODIFY_COMP_CNTR_ENTRY = 1,
        UVERBS_ATTR_MODIFY_COMP_CNTR_OP = 2,
        UVERBS_ATTR_MODIFY_COMP_CNTR_VALUE = 3,
        UVERBS_ATTR_READ_COMP_CNTR_HANDLE = 0,
        UVERBS_ATTR_READ_COMP_CNTR_ENTRY = 1,
        UVERBS_ATTR_READ_COMP_CNTR_RESP_VALUE = 2,
        IB_UVERBS_COMP_CNTR_ENTRY_COMP = 0,
        IB_UVERBS_COMP_CNTR_ENTRY_ERR = 1,
        IB_UVERBS_COMP_CNTR_MODIFY_OP_SET = 0,
        IB_UVERBS_COMP_CNTR_MODIFY_OP_INC = 1,
        IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_SEND = 0x1,
        IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_RECV = 0x2,
        IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_RDMA_READ = 0x4,
        IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_READ = 0x8,
        IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_RDMA_WRITE = 0x10,
        IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_WRITE = 0x20,
    );
}

/// `cma_v65.rs`: what rdma-core 65.0's `librdmacm/rdma_cma.h` adds, which
/// no probe compiles against yet (Debian 12 installs 44's header). Values
/// counted from the 65.0 header (the event enum continues after
/// TIMEWAIT_EXIT = 15) and checked once with gcc against it.
mod cma_v65 {
    use crate::cma_v65::*;

    crate::assert_consts!(
        RDMA_CM_EVENT_ADDRINFO_RESOLVED = 16,
        RDMA_CM_EVENT_ADDRINFO_ERROR = 17,
        RDMA_CM_EVENT_USER = 18,
        RDMA_CM_EVENT_INTERNAL = 19,
        RAI_SA = 0x10,
        RAI_DNS = 0x20,
    );
    // 65's `param` gained `uint64_t arg` without changing the union's or
    // the event's layout (gcc: sizeof 56 / 80, alignment 8 both, as 44).
    crate::assert_layout!(rdma_cm_event_param, size = 56, align = 8);
    crate::assert_layout!(rdma_cm_event, size = 80, align = 8, param = 24);
}

/// `ucma_v65.rs`: what rdma-core 65.0's `kernel-headers/rdma/rdma_user_cm.h`
/// and `ib_user_sa.h` add (Debian 12 installs an older uAPI, which the
/// ucma probe measures). Counted from those headers and checked once with
/// gcc against them.
mod ucma_v65 {
    use crate::ucma_v65::*;

    crate::assert_consts!(
        RDMA_USER_CM_CMD_RESOLVE_IB_SERVICE = 23,
        RDMA_USER_CM_CMD_WRITE_CM_EVENT = 24,
        RDMA_USER_CM_QUERY_IB_SERVICE = 3,
        RDMA_USER_CM_IB_SERVICE_FLAG_ID = 1,
        RDMA_USER_CM_IB_SERVICE_FLAG_NAME = 2,
        RDMA_USER_CM_IB_SERVICE_NAME_SIZE = 64,
    );
    crate::assert_layout!(
        rdma_ucm_ib_service,
        size = 80,
        align = 8,
        service_id = 0,
        service_name = 8,
        flags = 72,
        reserved = 76
    );
    crate::assert_layout!(rdma_ucm_resolve_ib_service, size = 88, align = 8, id = 0, reserved = 4, ibs = 8);
    crate::assert_layout!(rdma_ucm_write_cm_event_param, size = 304, align = 8);
    crate::assert_layout!(
        rdma_ucm_write_cm_event,
        size = 320,
        align = 8,
        id = 0,
        reserved = 4,
        event = 8,
        status = 12,
        param = 16
    );
    crate::assert_layout!(
        ib_user_service_rec,
        size = 176,
        align = 8,
        id = 0,
        gid = 8,
        pkey = 24,
        reserved = 26,
        lease = 28,
        key = 32,
        name = 48,
        data_8 = 112,
        data_16 = 128,
        data_32 = 144,
        data_64 = 160
    );
    crate::assert_layout!(rdma_ucm_query_ib_service_resp, size = 8, align = 8, num_service_recs = 0, reserved = 4, recs = 8);
    // 65's `arg32[2]` sits at the start of the event response's `param`
    // union, which keeps 44's size and 4-byte alignment.
    crate::assert_layout!(rdma_ucm_event_resp_param, size = 304, align = 4);
}

/// `kern_v65.rs`: rdma-core 65's copy of the kernel's ib_user_ioctl_verbs.h
/// (numbers from a one-off probe compiled against rdma-core 65.0's
/// kernel-headers/).
mod kern_v65_module {
    use crate::kern_v65::*;
    crate::assert_layout!(
        ib_uverbs_query_port_resp_ex,
        size = 48,
        align = 4,
        port_cap_flags2 = 40,
        reserved = 42,
        active_speed_ex = 44
    );
    crate::assert_layout!(
        ib_uverbs_buffer_desc,
        size = 32,
        align = 8,
        type_ = 0,
        fd = 4,
        flags = 8,
        optional_flags = 12,
        addr = 16,
        length = 24
    );
    crate::assert_consts!(
        IB_UVERBS_CORE_SUPPORT_ROBUST_UDATA = 2,
        IB_UVERBS_ACCESS_FLUSH_GLOBAL = 256,
        IB_UVERBS_ACCESS_FLUSH_PERSISTENT = 512,
        RDMA_DRIVER_IONIC = 21,
        IB_UVERBS_BUFFER_TYPE_DMABUF = 0,
        IB_UVERBS_BUFFER_TYPE_VA = 1,
    );
}

/// Soft-RoCE's command wrappers (rdma-core's `providers/rxe/rxe-abi.h`, not
/// installed): `DECLARE_DRV_CMD` asserts that the driver data follows the
/// uverbs wrapper without padding, so each offset is the wrapper's size and
/// each size the sum. And rdma-core 65's `flush` member of
/// `rxe_send_wr.wr`, counted from its `kernel-headers/rdma/rdma_user_rxe.h`.
mod rxe_abi {
    use crate::kern::*;
    use crate::rxe::*;
    use crate::rxe_abi::*;

    crate::assert_layout!(urxe_create_ah_resp, size = 12, align = 4, ibv_resp = 0, drv_payload = 4);
    crate::assert_layout!(urxe_create_cq_resp, size = 24, align = 8, ibv_resp = 0, drv_payload = 8);
    crate::assert_layout!(urxe_create_cq_ex_resp, size = 32, align = 8, ibv_resp = 0, drv_payload = 16);
    crate::assert_layout!(urxe_create_qp_resp, size = 64, align = 8, ibv_resp = 0, drv_payload = 32);
    crate::assert_layout!(urxe_create_qp_ex_resp, size = 72, align = 8, ibv_resp = 0, drv_payload = 40);
    crate::assert_layout!(urxe_create_srq_resp, size = 40, align = 8, ibv_resp = 0, drv_payload = 16);
    crate::assert_layout!(urxe_create_srq_ex_resp, size = 40, align = 8, ibv_resp = 0, drv_payload = 16);
    crate::assert_layout!(urxe_modify_srq, size = 32, align = 8, ibv_cmd = 0, drv_payload = 24);
    crate::assert_layout!(urxe_resize_cq_resp, size = 24, align = 8, ibv_resp = 0, drv_payload = 8);
    // The sums, from the parts' own checked sizes.
    crate::assert_layout!(
        urxe_create_qp_ex_resp,
        size = size_of::<ib_uverbs_ex_create_qp_resp>() + size_of::<rxe_create_qp_resp>()
    );
    crate::assert_layout!(
        urxe_create_srq_resp,
        size = size_of::<ib_uverbs_create_srq_resp>() + size_of::<rxe_create_srq_resp>()
    );
    crate::assert_layout!(
        urxe_create_ah_resp,
        size = size_of::<ib_uverbs_create_ah_resp>() + size_of::<rxe_create_ah_resp>()
    );
    crate::assert_layout!(urxe_modify_srq, size = size_of::<ibv_modify_srq>() + size_of::<rxe_modify_srq_cmd>());
    crate::assert_layout!(
        rxe_send_wr_wr_flush,
        size = 24,
        align = 8,
        remote_addr = 0,
        length = 8,
        rkey = 12,
        type_ = 16,
        level = 17
    );
    // A member of the union: no larger than it.
    const _: () = assert!(size_of::<rxe_send_wr_wr_flush>() <= size_of::<rxe_send_wr_wr>());
}

/// Soft-iWARP's command wrappers (rdma-core's `providers/siw/siw_abi.h`,
/// not installed): the numbers a probe compiled against rdma-core 44's
/// `siw_abi.h` printed (2026-11-29). `DECLARE_DRV_CMD` puts the driver data
/// right after the uverbs wrapper, so each is also the sum of its parts.
mod siw_abi {
    use crate::kern::*;
    use crate::siw::*;
    use crate::siw_abi::*;

    crate::assert_layout!(siw_cmd_alloc_context_resp, size = 16, align = 8, ibv_resp = 0, drv_payload = 8);
    crate::assert_layout!(siw_cmd_create_cq_resp, size = 24, align = 8, ibv_resp = 0, drv_payload = 8);
    crate::assert_layout!(siw_cmd_create_srq_resp, size = 32, align = 8, ibv_resp = 0, drv_payload = 16);
    crate::assert_layout!(siw_cmd_create_qp_resp, size = 64, align = 8, ibv_resp = 0, drv_payload = 32);
    crate::assert_layout!(siw_cmd_reg_mr, size = 56, align = 8, ibv_cmd = 0, drv_payload = 48);
    crate::assert_layout!(siw_cmd_reg_mr_resp, size = 20, align = 4, ibv_resp = 0, drv_payload = 12);
    crate::assert_layout!(
        siw_cmd_create_qp_resp,
        size = size_of::<ib_uverbs_create_qp_resp>() + size_of::<siw_uresp_create_qp>()
    );
    crate::assert_layout!(siw_cmd_reg_mr, size = size_of::<ibv_reg_mr>() + size_of::<siw_ureq_reg_mr>());
    crate::assert_layout!(
        siw_cmd_reg_mr_resp,
        size = size_of::<ib_uverbs_reg_mr_resp>() + size_of::<siw_uresp_reg_mr>()
    );
}
