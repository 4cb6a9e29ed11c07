//! Layout checks kept by hand: no probe prints them, so nothing regenerates
//! this file. Each section names where its numbers come from; change them
//! only together with the C layout they describe.

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
