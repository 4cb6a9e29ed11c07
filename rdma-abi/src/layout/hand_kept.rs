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
