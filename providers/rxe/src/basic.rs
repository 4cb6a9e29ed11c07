//! The ops that are a command and little else: device and port queries,
//! protection domains, memory regions and memory windows.

use core::ffi::{c_char, c_int, c_void};
use core::ptr;

use rdma_abi::driver::pabi34_v44::verbs_mr;
use rdma_abi::kern::*;
use rdma_abi::verbs::*;
use rdma_abi::verbs_v65::ibv_port_attr as ibv_port_attr65;
use rdma_provider::{mem, op, verbs};

/// Writes "major.minor.sub" of a firmware version word (16 bits each, from
/// bit 32 down), NUL-terminated, into `out`; cut to fit as snprintf does.
pub(crate) fn format_fw_ver(raw: u64, out: &mut [c_char]) {
    let parts = [(raw >> 32) & 0xffff, (raw >> 16) & 0xffff, raw & 0xffff];
    let mut text = [0u8; 20];
    let mut n = 0;
    for (i, p) in parts.iter().enumerate() {
        if i > 0 {
            text[n] = b'.';
            n += 1;
        }
        let mut digits = [0u8; 5];
        let mut d = 0;
        let mut v = *p;
        loop {
            digits[d] = b'0' + (v % 10) as u8;
            d += 1;
            v /= 10;
            if v == 0 {
                break;
            }
        }
        while d > 0 {
            d -= 1;
            text[n] = digits[d];
            n += 1;
        }
    }
    if out.is_empty() {
        return;
    }
    let k = n.min(out.len() - 1);
    for (o, t) in out.iter_mut().zip(&text[..k]) {
        *o = *t as c_char;
    }
    out[k] = 0;
}

op! {
    pub(crate) fn rxe_query_device(
        context: *mut ibv_context,
        input: *const ibv_query_device_ex_input,
        attr: *mut ibv_device_attr_ex,
        attr_size: usize,
    ) -> c_int, on_panic = libc::EIO;
    {
        // SAFETY: a plain response struct.
        let mut resp: ib_uverbs_ex_query_device_resp = unsafe { rdma_util::mem::zeroed_unchecked() };
        let mut resp_size = size_of::<ib_uverbs_ex_query_device_resp>();
        // SAFETY: the library's arguments, passed on; our response buffer.
        let ret = unsafe { (verbs().cmd_query_device_any)(context, input, attr, attr_size, &mut resp, &mut resp_size) };
        if ret != 0 {
            return ret;
        }
        // SAFETY: the library checked attr and attr_size: the original
        // attributes are always there.
        format_fw_ver(resp.base.fw_ver, unsafe { &mut (*attr).orig_attr.fw_ver });
        0
    }
}

op! {
    pub(crate) fn rxe_query_port(context: *mut ibv_context, port: u8, attr: *mut ibv_port_attr65) -> c_int,
        on_panic = libc::EIO;
    {
        let mut cmd = ibv_query_port::default();
        // SAFETY: passed on; under 34 the library hands 44's smaller struct
        // to the function of the same ABI, which fills only that.
        unsafe { verbs().cmd_query_port(context, port, attr, &mut cmd, size_of::<ibv_query_port>()) }
    }
}

op! {
    pub(crate) fn rxe_alloc_pd(context: *mut ibv_context) -> *mut ibv_pd, on_panic = ptr::null_mut();
    {
        let pd = mem::calloc::<ibv_pd>();
        if pd.is_null() {
            return ptr::null_mut();
        }
        let mut cmd = ibv_alloc_pd::default();
        let mut resp = ib_uverbs_alloc_pd_resp::default();
        // SAFETY: our new PD; our buffers.
        let ret = unsafe {
            (verbs().cmd_alloc_pd)(context, pd, &mut cmd, size_of_val(&cmd), &mut resp, size_of_val(&resp))
        };
        if ret != 0 {
            // SAFETY: ours, never handed out.
            unsafe { mem::free(pd) };
            return ptr::null_mut();
        }
        pd
    }
}

op! {
    pub(crate) fn rxe_dealloc_pd(pd: *mut ibv_pd) -> c_int, on_panic = libc::EIO;
    {
        // SAFETY: one of our PDs.
        let ret = unsafe { (verbs().cmd_dealloc_pd)(pd) };
        if ret == 0 {
            // SAFETY: released; ours.
            unsafe { mem::free(pd) };
        }
        ret
    }
}

op! {
    pub(crate) fn rxe_reg_mr(pd: *mut ibv_pd, addr: *mut c_void, length: usize, hca_va: u64, access: c_int)
        -> *mut ibv_mr, on_panic = ptr::null_mut();
    {
        let vmr = mem::calloc::<verbs_mr>();
        if vmr.is_null() {
            return ptr::null_mut();
        }
        let mut cmd = ibv_reg_mr::default();
        let mut resp = ib_uverbs_reg_mr_resp::default();
        // SAFETY: passed on with our new MR and buffers.
        let ret = unsafe {
            (verbs().cmd_reg_mr)(pd, addr, length, hca_va, access, vmr, &mut cmd, size_of_val(&cmd), &mut resp, size_of_val(&resp))
        };
        if ret != 0 {
            // SAFETY: ours, never handed out.
            unsafe { mem::free(vmr) };
            return ptr::null_mut();
        }
        // SAFETY: ibv_mr is the first member.
        unsafe { ptr::addr_of_mut!((*vmr).ibv_mr) }
    }
}

op! {
    pub(crate) fn rxe_dereg_mr(vmr: *mut verbs_mr) -> c_int, on_panic = libc::EIO;
    {
        // SAFETY: one of our MRs.
        let ret = unsafe { (verbs().cmd_dereg_mr)(vmr) };
        if ret == 0 {
            // SAFETY: released; ours.
            unsafe { mem::free(vmr) };
        }
        ret
    }
}

op! {
    pub(crate) fn rxe_alloc_mw(pd: *mut ibv_pd, type_: ibv_mw_type) -> *mut ibv_mw, on_panic = ptr::null_mut();
    {
        let mw = mem::calloc::<ibv_mw>();
        if mw.is_null() {
            return ptr::null_mut();
        }
        let mut cmd = ibv_alloc_mw::default();
        let mut resp = ib_uverbs_alloc_mw_resp::default();
        // SAFETY: passed on with our new MW and buffers.
        let ret = unsafe {
            (verbs().cmd_alloc_mw)(pd, type_, mw, &mut cmd, size_of_val(&cmd), &mut resp, size_of_val(&resp))
        };
        if ret != 0 {
            // SAFETY: ours, never handed out.
            unsafe { mem::free(mw) };
            return ptr::null_mut();
        }
        mw
    }
}

op! {
    pub(crate) fn rxe_dealloc_mw(mw: *mut ibv_mw) -> c_int, on_panic = libc::EIO;
    {
        // SAFETY: one of our MWs.
        let ret = unsafe { (verbs().cmd_dealloc_mw)(mw) };
        if ret == 0 {
            // SAFETY: released; ours.
            unsafe { mem::free(mw) };
        }
        ret
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(b: &[c_char]) -> String {
        b.iter()
            .take_while(|&&c| c != 0)
            .map(|&c| c as u8 as char)
            .collect()
    }

    #[test]
    fn fw_ver() {
        let mut out = [0x55 as c_char; 64];
        format_fw_ver(0, &mut out);
        assert_eq!(text(&out), "0.0.0");
        format_fw_ver((1 << 32) | (2 << 16) | 3, &mut out);
        assert_eq!(text(&out), "1.2.3");
        format_fw_ver(0xffff_ffff_ffff_ffff, &mut out);
        assert_eq!(text(&out), "65535.65535.65535");
        let mut small = [0x55 as c_char; 4];
        format_fw_ver((10 << 32) | (20 << 16) | 30, &mut small);
        assert_eq!(text(&small), "10.");
        assert_eq!(small[3], 0);
    }
}
